# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The system table of a report (like Phoronix Test Suite's) and the data interface's network facts.

Parsers are pure functions tested on real output (tests/unit/fixtures/sysprofile/).
``collect`` does the I/O: it reads files under ``root`` and runs tools through
a ``runner``; a missing tool or file makes its field "unknown" (table) or null
(network facts), never an error.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json
import os
import re

SCHEMA = 'perflab.system/1'
UNKNOWN = 'unknown'
TABLE_FIELDS = ('Processor', 'Motherboard', 'Chipset', 'Memory', 'Disk', 'Network', 'OS', 'Kernel',
                'Compiler', 'File-System')
# what a system we do not manage (a server already listening, reached without SSH) shows for every field
UNMANAGED = 'unknown: unmanaged server'


def unmanaged_profile(address=None):
    """The system table of an unmanaged server (no SSH, no Python: an appliance such as OSv): every field says
    we could not know it; the network part holds only the data address the inventory gives."""
    return {'table': dict((field, UNMANAGED) for field in TABLE_FIELDS),
            'network': {'interface': None, 'mtu': None, 'address': address, 'unmanaged': True}}


# The network sysctls the tuning role touches. Inside a network namespace
# several do not exist (netdev_max_backlog, busy_poll, default_qdisc, tcp_mem,
# udp_mem, ...): they are reported as null.
NETWORK_SYSCTLS = (
    'net.core.rmem_max', 'net.core.wmem_max', 'net.core.rmem_default', 'net.core.wmem_default',
    'net.core.netdev_max_backlog', 'net.core.busy_poll', 'net.core.busy_read', 'net.core.default_qdisc',
    'net.core.optmem_max', 'net.core.somaxconn',
    'net.ipv4.tcp_rmem', 'net.ipv4.tcp_wmem', 'net.ipv4.tcp_mem', 'net.ipv4.udp_mem',
    'net.ipv4.tcp_congestion_control', 'net.ipv4.tcp_mtu_probing', 'net.ipv4.tcp_timestamps',
    'net.ipv4.tcp_sack', 'net.ipv4.tcp_window_scaling', 'net.ipv4.tcp_low_latency', 'net.ipv4.tcp_fastopen',
)

_PCI_ADDRESS_RE = re.compile(r'([0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])')


# ---------------------------------------------------------------- parsers

def _key_values(text, separator=':'):
    values = {}
    for line in (text or '').splitlines():
        if separator not in line:
            continue
        key, value = line.split(separator, 1)
        values.setdefault(key.strip(), value.strip())
    return values


def parse_cpuinfo(text):
    """/proc/cpuinfo -> ``{model, sockets, cores, threads, mhz}`` (None where unknown).

    x86 lists "model name", "physical id", "core id"; arm64 has neither a model
    name nor sockets (then "CPU implementer"/"CPU part" or "Hardware"/"Model").
    """
    blocks = [block for block in re.split(r'\n\s*\n', text or '') if block.strip()]
    processors = [_key_values(block) for block in blocks]
    processors = [proc for proc in processors if 'processor' in proc]
    if not processors:
        return {'model': None, 'sockets': None, 'cores': None, 'threads': None, 'mhz': None}
    first = processors[0]
    model = first.get('model name') or first.get('Model') or first.get('Hardware') or first.get('cpu model')
    if not model and first.get('CPU implementer'):
        model = 'ARM implementer %s part %s' % (first.get('CPU implementer'), first.get('CPU part', '?'))
    sockets = set(proc.get('physical id') for proc in processors if proc.get('physical id') is not None)
    cores = set((proc.get('physical id'), proc.get('core id')) for proc in processors
                if proc.get('core id') is not None)
    mhz = None
    try:
        mhz = float(first['cpu MHz'])
    except (KeyError, ValueError):
        pass
    return {
        'model': model,
        'sockets': len(sockets) or None,
        'cores': len(cores) or None,
        'threads': len(processors),
        'mhz': mhz,
    }


def clean_cpu_model(model):
    """"Intel(R) Xeon(R) Gold 6138 CPU @ 2.00GHz" -> "Intel Xeon Gold 6138" (PTS style).

    A trailing "Processor" ("AMD EPYC 7742 64-Core Processor") goes when a
    model number remains, so "Intel(R) Xeon(R) Processor" (a VM) stays whole.
    """
    text = re.sub(r'\((R|TM|tm|r)\)', '', model or '')
    text = re.sub(r'\s+@\s*[\d.]+\s*[GM]Hz', '', text)
    text = re.sub(r'\s+CPU\b', '', text)
    text = re.sub(r'\s+', ' ', text).strip()
    shorter = re.sub(r'(\s+\d+-Core)?\s+Processor$', '', text)
    if shorter != text and len(shorter.split()) >= 3:
        text = shorter
    return text or (model or '').strip()


def format_processor(info):
    """e.g. "2 x Intel Xeon Gold 6138 @ 2.00GHz (40 Cores / 80 Threads)"."""
    if not info or not info.get('model'):
        return UNKNOWN
    text = clean_cpu_model(info['model'])
    if info.get('sockets') and info['sockets'] > 1:
        text = '%d x %s' % (info['sockets'], text)
    if info.get('mhz'):
        text += ' @ %.2fGHz' % (info['mhz'] / 1000.0)
    counts = []
    if info.get('cores'):
        counts.append('%d Core%s' % (info['cores'], '' if info['cores'] == 1 else 's'))
    if info.get('threads'):
        counts.append('%d Thread%s' % (info['threads'], '' if info['threads'] == 1 else 's'))
    if counts:
        text += ' (%s)' % ' / '.join(counts)
    return text


def parse_meminfo(text):
    """/proc/meminfo -> MemTotal in kB (int) or None."""
    match = re.search(r'^MemTotal:\s+(\d+)\s*kB', text or '', re.MULTILINE)
    return int(match.group(1)) if match else None


def _dmi_known(value):
    return None if not value or value.strip() in ('Unknown', 'Not Specified', 'Other') else value.strip()


def parse_dmidecode_memory(text):
    """``dmidecode -t 17`` -> installed modules ``[{size_mb, type, speed_mts, manufacturer, part}]``.

    Handles dmidecode 3.x ("Size: 16 GB", "Speed: 2666 MT/s") and 2.x
    ("Size: 16384 MB", "Speed: 2666 MHz"); empty slots are skipped.
    """
    modules = []
    for block in re.split(r'\n(?=Handle )', text or ''):
        if '\nMemory Device' not in block and not block.startswith('Memory Device'):
            continue
        values = _key_values(block)
        size = values.get('Size', '')
        match = re.match(r'(\d+)\s*(MB|GB|TB|kB)', size)
        if not match:
            continue
        size_mb = int(match.group(1)) * {'kB': 1.0 / 1024, 'MB': 1, 'GB': 1024, 'TB': 1024 * 1024}[match.group(2)]
        speed = None
        for key in ('Configured Memory Speed', 'Configured Clock Speed', 'Speed'):
            found = re.match(r'(\d+)\s*(MT/s|MHz)', values.get(key, ''))
            if found:
                speed = int(found.group(1))
                break
        modules.append({'size_mb': size_mb, 'type': _dmi_known(values.get('Type')), 'speed_mts': speed,
                        'manufacturer': _dmi_known(values.get('Manufacturer')),
                        'part': _dmi_known(values.get('Part Number'))})
    return modules


def _gb(size_mb):
    value = size_mb / 1024.0
    return ('%d' % value) if value == int(value) else ('%.1f' % value)


def format_memory(total_kb, modules=None):
    """"2 x 16 GB DDR4-2666MT/s Samsung M393A2K40CB2-CTD" with dmidecode, else "24GB" from MemTotal."""
    if modules:
        groups = []
        for module in modules:
            text = '%s GB' % _gb(module['size_mb'])
            if module['type']:
                text += ' %s' % module['type']
                if module['speed_mts']:
                    text += '-%dMT/s' % module['speed_mts']
            if module['manufacturer']:
                text += ' %s' % module['manufacturer']
            if module['part']:
                text += ' %s' % module['part']
            for group in groups:
                if group[1] == text:
                    group[0] += 1
                    break
            else:
                groups.append([1, text])
        return ' + '.join(('%d x %s' % (count, text)) if count > 1 else text for count, text in groups)
    if not total_kb:
        return UNKNOWN
    # MemTotal leaves out what the firmware and kernel reserve: round to whole GB
    return '%dGB' % max(1, int(round(total_kb / 1048576.0)))


def parse_lsblk(text):
    """``lsblk -J -b -d -o NAME,MODEL,VENDOR,SIZE,TYPE,ROTA,TRAN`` -> real disks (no zram, loop, ram, empty)."""
    try:
        data = json.loads(text or '{}')
    except ValueError:
        return []
    disks = []
    for device in data.get('blockdevices') or []:
        name = device.get('name') or ''
        if device.get('type') != 'disk' or re.match(r'^(zram|loop|ram|nbd)\d', name):
            continue
        try:
            size = int(device.get('size') or 0)
        except (TypeError, ValueError):
            size = 0
        if size <= 0:
            continue
        disks.append({'name': name, 'model': (device.get('model') or '').strip() or None,
                      'vendor': (device.get('vendor') or '').strip() or None, 'size_bytes': size,
                      'rota': device.get('rota'), 'tran': device.get('tran')})
    return disks


def format_disks(disks):
    """"275GB vda + 1000GB Samsung SSD 870" (decimal GB, as disk makers count)."""
    if not disks:
        return UNKNOWN
    parts = []
    for disk in disks:
        parts.append('%dGB %s' % (int(round(disk['size_bytes'] / 1e9)), disk['model'] or disk['name']))
    return ' + '.join(parts)


def parse_os_release(text):
    values = {}
    for line in (text or '').splitlines():
        match = re.match(r'^([A-Z0-9_]+)=(.*)$', line.strip())
        if match:
            value = match.group(2).strip()
            if len(value) >= 2 and value[0] == value[-1] and value[0] in '"\'':
                value = value[1:-1]
            values[match.group(1)] = value
    return values


def format_os(values):
    """"Debian GNU/Linux 12" from NAME and VERSION_ID (PRETTY_NAME without a codename as fallback)."""
    if not values:
        return UNKNOWN
    if values.get('NAME') and values.get('VERSION_ID'):
        return '%s %s' % (values['NAME'], values['VERSION_ID'])
    pretty = values.get('PRETTY_NAME') or values.get('NAME')
    return re.sub(r'\s*\([^)]*\)\s*$', '', pretty) if pretty else UNKNOWN


def format_kernel(release, machine):
    if not release:
        return UNKNOWN
    return '%s (%s)' % (release, machine) if machine else release


def parse_compiler_version(text):
    """First line of ``gcc --version`` / ``clang --version`` -> "GCC 12.2.0" / "Clang 14.0.6"; None if not one."""
    first = (text or '').strip().splitlines()[0] if (text or '').strip() else ''
    match = re.search(r'clang version (\d+(\.\d+)*)', first)
    if match:
        return 'Clang %s' % match.group(1)
    # "gcc (Debian 12.2.0-14+deb12u1) 12.2.0", "gcc (GCC) 8.5.0 20210514 (Red Hat 8.5.0-18)"
    match = re.match(r'^(\S*gcc\S*|cc|\S*g\+\+\S*|c\+\+)\s+\([^)]*\)\s+(\d+\.\d+(\.\d+)?)', first)
    if match:
        return 'GCC %s' % match.group(2)
    return None


def parse_mounts(text, mountpoint='/'):
    """Filesystem type mounted on ``mountpoint`` in /proc/mounts (the last mount there wins)."""
    fstype = None
    for line in (text or '').splitlines():
        fields = line.split()
        if len(fields) >= 3 and fields[1] == mountpoint:
            fstype = fields[2]
    return fstype


def parse_ethtool_driver(text):
    """``ethtool -i IF`` -> ``{driver, version, firmware_version, bus_info}``."""
    values = _key_values(text)
    return {
        'driver': values.get('driver') or None,
        'version': values.get('version') or None,
        'firmware_version': values.get('firmware-version') or None,
        'bus_info': values.get('bus-info') or None,
    }


def parse_ethtool_features(text):
    """``ethtool -k IF`` -> ``{feature: bool}`` (True = on; "[fixed]"/"[requested ...]" notes dropped)."""
    features = {}
    for line in (text or '').splitlines():
        match = re.match(r'^\s*([a-z0-9_-]+):\s+(on|off)\b', line)
        if match:
            features[match.group(1)] = match.group(2) == 'on'
    return features


def parse_ethtool_speed(text):
    """``ethtool IF`` -> link speed in Mb/s, None when "Unknown!"."""
    match = re.search(r'^\s*Speed:\s*(\d+)\s*Mb/s', text or '', re.MULTILINE)
    return int(match.group(1)) if match else None


def parse_tc_qdisc(text):
    """``tc qdisc show dev IF`` -> the root qdisc, with its children's kinds for mq/mqprio.

    e.g. "fq_codel", "noqueue", "pfifo_fast", "mq (fq_codel)", "tbf".
    """
    root = None
    children = []
    for line in (text or '').splitlines():
        match = re.match(r'^qdisc\s+(\S+)\s+\S+\s+(root|parent\s+\S+)', line.strip())
        if not match:
            continue
        if match.group(2) == 'root':
            root = root or match.group(1)
        elif match.group(1) not in children:
            children.append(match.group(1))
    if root is None:
        return None
    if root in ('mq', 'mqprio') and children:
        return '%s (%s)' % (root, ', '.join(children))
    return root


def _split_pci_id(field):
    """"Intel Corporation [8086]" -> ("Intel Corporation", "8086")."""
    match = re.match(r'^(.*?)\s*\[([0-9a-fA-F]{4})\]$', field)
    return (match.group(1), match.group(2).lower()) if match else (field, None)


def parse_lspci(text):
    """``lspci -mm -nn`` -> ``[{slot, class, class_id, vendor, vendor_id, device, device_id}]``."""
    devices = []
    for line in (text or '').splitlines():
        fields = re.findall(r'"([^"]*)"|(\S+)', line)
        values = [quoted if quoted or not bare else bare for quoted, bare in fields]
        if len(values) < 4:
            continue
        class_name, class_id = _split_pci_id(values[1])
        vendor, vendor_id = _split_pci_id(values[2])
        device, device_id = _split_pci_id(values[3])
        devices.append({'slot': values[0], 'class': class_name, 'class_id': class_id, 'vendor': vendor,
                        'vendor_id': vendor_id, 'device': device, 'device_id': device_id})
    return devices


def short_vendor(vendor):
    """"Intel Corporation" -> "Intel", "Red Hat, Inc." -> "Red Hat" (PTS style)."""
    text = re.sub(r',?\s+(Corporation|Corp\.?|Inc\.?|Co\.,? Ltd\.?|Ltd\.?|Limited|Technologies|'
                  r'Technology|Semiconductor Co\.?|Communications Inc\.?|Devices, Inc\.)$', '', vendor or '')
    text = re.sub(r',?\s+(Inc\.?|Corporation|Ltd\.?)$', '', text)
    return text.strip() or (vendor or '').strip()


def pci_name(device):
    """"Red Hat Virtio 1.0 network device"; an ID lspci has no name for stays visible: "Intel Device 0d57"."""
    if not device:
        return None
    name = device['device']
    if name == 'Device' and device.get('device_id'):
        name = 'Device %s' % device['device_id']
    return '%s %s' % (short_vendor(device['vendor']), name)


def find_pci(devices, address):
    """The lspci entry of ``address`` ("0000:00:03.0" or "00:03.0")."""
    if not address:
        return None
    short = address.lower()
    if short.startswith('0000:'):
        short = short[5:]
    for device in devices:
        slot = device['slot'].lower()
        if slot == address.lower() or slot == short:
            return device
    return None


def chipset(devices):
    """PTS's chipset: the host bridge (PCI class 0600)."""
    for device in devices:
        if device.get('class_id') == '0600' or device.get('class') == 'Host bridge':
            return pci_name(device)
    return None


def parse_pci_ids(text, vendor_id, device_id):
    """Vendor and device names from a pci.ids database (used when lspci is absent)."""
    vendor = device = None
    in_vendor = False
    for line in (text or '').splitlines():
        if not line or line.startswith('#'):
            continue
        if not line.startswith('\t'):
            if vendor is not None:
                break
            in_vendor = line[:4].lower() == vendor_id
            if in_vendor:
                vendor = line[4:].strip()
        elif in_vendor and not line.startswith('\t\t') and line[1:5].lower() == device_id:
            device = line[5:].strip()
    return vendor, device


def pci_address_from_path(path):
    """The last PCI address in a resolved sysfs device path (a virtio NIC sits below its PCI function)."""
    found = _PCI_ADDRESS_RE.findall(path or '')
    return found[-1] if found else None


def parse_default_route_interface(text):
    """Interface of the IPv4 default route in /proc/net/route (lowest metric)."""
    best = None
    for line in (text or '').splitlines()[1:]:
        fields = line.split()
        if len(fields) < 8 or fields[1] != '00000000' or fields[7] != '00000000':
            continue
        try:
            metric = int(fields[6])
        except ValueError:
            continue
        if best is None or metric < best[1]:
            best = (fields[0], metric)
    return best[0] if best else None


def format_network(model, driver, speed_mbps):
    """"Intel 82599ES 10-Gigabit SFI/SFP+ Network Connection (ixgbe, 10000 Mb/s)"; "veth (virtual, 10000 Mb/s)"."""
    speed = '%d Mb/s' % speed_mbps if speed_mbps else 'speed unknown'
    if model:
        return '%s (%s)' % (model, ', '.join(part for part in (driver, speed) if part))
    if driver:
        # no PCI device behind it: veth, bridge, tun, ...
        return '%s (virtual, %s)' % (driver, speed)
    return UNKNOWN


def format_bond(mode, member_texts):
    """"balance-alb bond of 2 x Intel X520 (ixgbe, 10000 Mb/s)"; members that differ are joined with " + "."""
    counts = {}
    for text in member_texts:
        counts[text] = counts.get(text, 0) + 1
    parts = [('%d x %s' % (n, text)) if n > 1 else text for text, n in counts.items()]
    return '%s bond of %s' % (mode or 'unknown mode', ' + '.join(parts) or 'no members')


def host_nics(pci_devices, data_model=None, data_text=None):
    """Every network controller lspci lists (PCI class 02xx), grouped like the seeds' system table:
    "2 x Intel I210 + Mellanox MT26448", in the order lspci lists them; "" when there is none.
    The data NIC's model (``data_model``) is shown as ``data_text`` (its driver and speed)."""
    counts = {}
    for device in pci_devices or ():
        if not str(device.get('class_id') or '').startswith('02'):
            continue
        name = pci_name(device)
        if name:
            counts[name] = counts.get(name, 0) + 1
    shown = []
    for name, count in counts.items():
        text = data_text if data_text and name == data_model else name
        shown.append(('%d x %s' % (count, text)) if count > 1 else text)
    return ' + '.join(shown)


def sysctl_path(name, proc_sys='/proc/sys'):
    return os.path.join(proc_sys, *name.split('.'))


def normalize_sysctl(text):
    """"4096\\t131072\\t6291456\\n" -> "4096 131072 6291456"."""
    return ' '.join((text or '').split())


# ---------------------------------------------------------------- I/O

def _read(root, path):
    try:
        with open(os.path.join(root, path.lstrip('/'))) as handle:
            return handle.read()
    except (IOError, OSError, UnicodeDecodeError):
        return None


def _run_text(runner, argv):
    """stdout of ``argv`` through ``runner`` (argv -> (rc, stdout, stderr) or None when the tool is absent)."""
    result = runner(argv)
    if result is None:
        return None
    rc, stdout, _stderr = result
    return stdout if rc == 0 else None


def collect(interface=None, runner=None, root='/', machine=None, release=None):
    """The system table and the network facts of ``interface`` (default: the default route's).

    ``runner(argv)`` returns ``(rc, stdout, stderr)``, or None when argv[0] is
    not installed. ``root`` prefixes every file read (tests use a fake tree).
    """
    if runner is None:
        def runner(argv):
            return None
    table = dict((field, UNKNOWN) for field in TABLE_FIELDS)

    cpu = parse_cpuinfo(_read(root, '/proc/cpuinfo') or '')
    # PTS shows the top frequency; cpuinfo's "cpu MHz" is the current one
    max_khz = (_read(root, '/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq') or '').strip()
    if max_khz.isdigit():
        cpu['mhz'] = int(max_khz) / 1000.0
    table['Processor'] = format_processor(cpu)

    modules = parse_dmidecode_memory(_run_text(runner, ['dmidecode', '-t', '17']) or '')
    table['Memory'] = format_memory(parse_meminfo(_read(root, '/proc/meminfo') or ''), modules)

    dmi = dict((name, (_read(root, '/sys/class/dmi/id/' + name) or '').strip())
               for name in ('board_vendor', 'board_name', 'board_version', 'bios_version', 'sys_vendor',
                            'product_name'))
    board = ' '.join(part for part in (short_vendor(dmi['board_vendor']), dmi['board_name']) if part)
    if not board:
        board = ' '.join(part for part in (short_vendor(dmi['sys_vendor']), dmi['product_name']) if part)
    if board:
        table['Motherboard'] = board + (' (%s BIOS)' % dmi['bios_version'] if dmi['bios_version'] else '')

    lspci_text = _run_text(runner, ['lspci', '-mm', '-nn'])
    pci_devices = parse_lspci(lspci_text) if lspci_text else []
    table['Chipset'] = chipset(pci_devices) or _chipset_from_sysfs(root) or UNKNOWN

    lsblk = _run_text(runner, ['lsblk', '-J', '-b', '-d', '-o', 'NAME,MODEL,VENDOR,SIZE,TYPE,ROTA,TRAN'])
    table['Disk'] = format_disks(parse_lsblk(lsblk)) if lsblk else _disks_from_sysfs(root)

    table['OS'] = format_os(parse_os_release(_read(root, '/etc/os-release') or _read(root, '/usr/lib/os-release')))
    table['Kernel'] = format_kernel(release, machine)

    compiler = None
    for argv in (['gcc', '--version'], ['cc', '--version'], ['clang', '--version']):
        compiler = parse_compiler_version(_run_text(runner, argv) or '')
        if compiler:
            break
    table['Compiler'] = compiler or UNKNOWN
    table['File-System'] = parse_mounts(_read(root, '/proc/mounts') or '') or UNKNOWN

    if not interface:
        interface = parse_default_route_interface(_read(root, '/proc/net/route') or '')
    network = network_facts(interface, runner, root, pci_devices)
    model = network.pop('_model')
    data_nic = format_network(model, network['driver'], network['speed_mbps']) if interface else None
    if network['bond']:
        # the bond's members are the hardware: "balance-alb bond of 2 x <NIC> (driver, speed)"
        members = [nic_hardware(name, runner, root, pci_devices) for name in network['bond']['members']]
        data_nic = format_bond(network['bond']['mode'], [format_network(m['_model'], m['driver'], m['speed_mbps'])
                                                         for m in members])
    # every NIC of the host (the seeds' Network row), the data NIC's own line where it is no PCI device (veth)
    nics = host_nics(pci_devices, model, data_nic)
    if nics and data_nic and not model:
        nics = '%s + %s' % (nics, data_nic)
    if nics or data_nic:
        table['Network'] = nics or data_nic
    return {'table': table, 'network': network}


def _chipset_from_sysfs(root):
    base = os.path.join(root, 'sys/bus/pci/devices')
    try:
        addresses = sorted(os.listdir(base))
    except OSError:
        return None
    for address in addresses:
        if (_read(root, '/sys/bus/pci/devices/%s/class' % address) or '').strip().startswith('0x0600'):
            return _pci_name_from_sysfs(root, address)
    return None


def _pci_name_from_sysfs(root, address):
    vendor_id = (_read(root, '/sys/bus/pci/devices/%s/vendor' % address) or '').strip().replace('0x', '')
    device_id = (_read(root, '/sys/bus/pci/devices/%s/device' % address) or '').strip().replace('0x', '')
    if not vendor_id:
        return None
    ids = _read(root, '/usr/share/misc/pci.ids') or _read(root, '/usr/share/hwdata/pci.ids')
    vendor, device = parse_pci_ids(ids, vendor_id, device_id) if ids else (None, None)
    if vendor and device:
        return '%s %s' % (short_vendor(vendor), device)
    return 'PCI %s:%s' % (vendor_id, device_id)


def _disks_from_sysfs(root):
    base = os.path.join(root, 'sys/block')
    try:
        names = sorted(os.listdir(base))
    except OSError:
        return UNKNOWN
    disks = []
    for name in names:
        if re.match(r'^(zram|loop|ram|nbd|dm-|md|sr)', name):
            continue
        try:
            sectors = int((_read(root, '/sys/block/%s/size' % name) or '0').strip())
        except ValueError:
            continue
        if sectors <= 0:
            continue
        model = (_read(root, '/sys/block/%s/device/model' % name) or '').strip() or None
        disks.append({'name': name, 'model': model, 'size_bytes': sectors * 512})
    return format_disks(disks)


def network_facts(interface, runner, root='/', pci_devices=None):
    """``{interface, mtu, driver, speed_mbps, offloads, qdisc, congestion_control, sysctls, bond}`` (+ ``_model``);
    ``bond`` is ``{mode, members}`` for a Linux bond, else None."""
    facts = {'interface': interface, 'mtu': None, 'driver': None, 'speed_mbps': None, 'offloads': None,
             'qdisc': None, 'congestion_control': None, 'sysctls': {}, 'bond': None, '_model': None}
    for name in NETWORK_SYSCTLS:
        value = _read(root, sysctl_path(name))
        facts['sysctls'][name] = normalize_sysctl(value) if value is not None else None
    facts['congestion_control'] = facts['sysctls'].get('net.ipv4.tcp_congestion_control')
    if not interface:
        return facts
    sysfs = '/sys/class/net/%s' % interface
    mtu = (_read(root, sysfs + '/mtu') or '').strip()
    facts['mtu'] = int(mtu) if mtu.isdigit() else None
    # a Linux bond: its mode ("balance-alb 6") and members, from the bonding driver's sysfs files
    mode = (_read(root, sysfs + '/bonding/mode') or '').split()
    if mode:
        facts['bond'] = {'mode': mode[0], 'members': (_read(root, sysfs + '/bonding/slaves') or '').split()}
    facts.update(nic_hardware(interface, runner, root, pci_devices))
    features = _run_text(runner, ['ethtool', '-k', interface])
    facts['offloads'] = parse_ethtool_features(features) if features else None
    qdisc = _run_text(runner, ['tc', 'qdisc', 'show', 'dev', interface])
    facts['qdisc'] = parse_tc_qdisc(qdisc) if qdisc else None
    return facts


def nic_hardware(interface, runner, root='/', pci_devices=None):
    """What the NIC behind ``interface`` is: ``{driver, speed_mbps, _model}`` (its PCI model, or None)."""
    sysfs = '/sys/class/net/%s' % interface
    hw = {'driver': None, 'speed_mbps': None, '_model': None}
    speed = (_read(root, sysfs + '/speed') or '').strip()
    # -1 (or a read error) when the driver does not know the speed
    if speed.isdigit() and int(speed) > 0:
        hw['speed_mbps'] = int(speed)
    driver_info = parse_ethtool_driver(_run_text(runner, ['ethtool', '-i', interface]) or '')
    hw['driver'] = driver_info['driver']
    if hw['driver'] is None:
        link = os.path.join(root, sysfs.lstrip('/'), 'device', 'driver')
        if os.path.islink(link):
            hw['driver'] = os.path.basename(os.readlink(link))
    if hw['speed_mbps'] is None:
        hw['speed_mbps'] = parse_ethtool_speed(_run_text(runner, ['ethtool', interface]) or '')
    address = driver_info['bus_info'] if _PCI_ADDRESS_RE.match(driver_info['bus_info'] or '') else None
    if address is None:
        device_link = os.path.join(root, sysfs.lstrip('/'), 'device')
        if os.path.islink(device_link):
            address = pci_address_from_path(os.path.realpath(device_link))
    if address:
        hw['_model'] = pci_name(find_pci(pci_devices or [], address)) or _pci_name_from_sysfs(root, address)
    return hw
