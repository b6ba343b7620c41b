# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""FreeBSD's host facts: the argvs and the pure parsers of their output.

FreeBSD has no Linux /proc and no /sys: the NIC counters come from ``netstat -ibn -I IF``,
the listeners from ``sockstat -46l``, the processes from ``ps`` and ``procstat -a``, the
system table from ``sysctl hw.*``, ``kenv``, ``pciconf -lv``, ``geom disk list``, ``mount -p``,
``ifconfig`` and ``route -n get default``. Every parser is tested on real output
(tests/unit/fixtures/freebsd/, each file's source in its README). The I/O is in
host_platform.FreeBSDHost.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import re

UNKNOWN = 'unknown'


def netstat_argv(interface):
    return ['netstat', '-ibn', '-I', interface]


def sockstat_argv():
    # -4 -6: Internet sockets only; -l: listening (TCP in LISTEN, bound UDP)
    return ['sockstat', '-46l']


def ping_argv(address, wait, size=None):
    """One echo request; FreeBSD's ``-W`` is in milliseconds, ``-t`` ends ping after ``wait`` s.

    FreeBSD 12's ping is IPv4 only: an IPv6 address goes to ping6, whose ``-X`` is the same timeout.
    With ``size`` (payload bytes), a don't-fragment probe: ``-D`` sets IPv4's DF bit; ping6 fragments
    to the minimum IPv6 MTU unless told ``-m``.
    """
    if ':' in address:
        probe = ['-m', '-s', str(int(size))] if size else []
        return ['ping6', '-c', '1', '-X', str(wait)] + probe + [address]
    probe = ['-D', '-s', str(int(size))] if size else []
    return ['ping', '-c', '1', '-t', str(wait)] + probe + [address]


def _columns(header, line):
    """Split a whitespace table row by the header's column names (the last column takes the rest)."""
    names = header.split()
    values = line.split(None, len(names) - 1)
    return dict(zip(names, values))


def parse_netstat_link(text, interface):
    """``netstat -ibn [-d]`` -> the four counters of ``interface``'s <Link#> row, None when it is absent.

    The byte and packet counters of an interface are on its link-level row; the address rows
    repeat them per address family. A down interface's name carries a ``*``.
    """
    lines = (text or '').splitlines()
    if not lines or not lines[0].startswith('Name'):
        return None
    header = lines[0].split()
    for line in lines[1:]:
        fields = line.split()
        if len(fields) < len(header) - 1 or fields[0].rstrip('*') != interface:
            continue
        if not fields[2].startswith('<Link#'):
            continue
        # a link row of an interface without a MAC (lo0) names the interface as its Address
        row = dict(zip(header, fields))
        try:
            counters = {'rx_bytes': int(row['Ibytes']), 'tx_bytes': int(row['Obytes']),
                        'rx_packets': int(row['Ipkts']), 'tx_packets': int(row['Opkts'])}
        except (KeyError, ValueError):
            return None
        # the drop and error columns (Drop: the output drops, with -d), for what limited a test (limits.py)
        for column, key in (('Ierrs', 'rx_errors'), ('Idrop', 'rx_dropped'), ('Oerrs', 'tx_errors'),
                            ('Drop', 'tx_dropped')):
            if row.get(column, '').isdigit():
                counters[key] = int(row[column])
        return counters
    return None


def _split_address(text):
    """'192.168.5.2:22' -> ('192.168.5.2', 22); '*:22' -> ('*', 22); '[::1]:631'-free IPv6 'fe80::1:22'."""
    if ':' not in text:
        return None, None
    address, port = text.rsplit(':', 1)
    if not port.isdigit():
        return None, None
    return address, int(port)


def parse_sockstat(text):
    """``sockstat [-46l]`` -> ``[{proto: tcp|udp, address, port, pid, comm}]`` of the listening sockets.

    A socket listens when its foreign address is ``*:*`` (TCP in LISTEN, a bound unconnected UDP
    socket); ``*`` as local address is every address of its family (0.0.0.0 or ::).
    """
    out = []
    for line in (text or '').splitlines()[1:]:
        fields = line.split()
        if len(fields) < 7 or fields[-1] != '*:*':
            continue
        proto = fields[4]
        family = proto[:3]
        if family not in ('tcp', 'udp'):
            continue
        address, port = _split_address(fields[5])
        if port is None:
            continue
        if address == '*':
            address = '::' if proto.endswith('6') and not proto.endswith('46') else '0.0.0.0'
        pid = int(fields[2]) if fields[2].isdigit() else None
        out.append({'proto': family, 'address': address, 'port': port, 'pid': pid, 'comm': fields[1]})
    return out


def listening_ports(sockets):
    """{'tcp': [ports], 'udp': [ports]} (sorted) of parse_sockstat's sockets."""
    return dict((proto, sorted(set(item['port'] for item in sockets if item['proto'] == proto)))
                for proto in ('tcp', 'udp'))


def tcp_listeners(sockets, port):
    """bench_server's listeners of TCP ``port``: ``[{address, port, pid, comm}]`` sorted like process.tcp_listeners."""
    found = [dict((key, item[key]) for key in ('address', 'port', 'pid', 'comm'))
             for item in sockets if item['proto'] == 'tcp' and item['port'] == port]
    return sorted(found, key=lambda item: (item['address'], item['pid'] or 0))


def parse_table(text):
    """A ps/procstat table (header row, then rows) -> a list of dicts by the header's names."""
    lines = [line for line in (text or '').splitlines() if line.strip()]
    if not lines:
        return []
    return [_columns(lines[0], line) for line in lines[1:]]


def ps_state_argv(pid):
    return ['ps', '-o', 'pid,state', '-p', str(pid)]


def ps_args_argv(pid):
    return ['ps', '-ww', '-o', 'args=', '-p', str(pid)]


def procstat_all_argv():
    return ['procstat', '-a']


def group_members(procstat_text, pgid):
    """The pids of process group ``pgid`` in ``procstat -a``."""
    members = []
    for row in parse_table(procstat_text):
        if row.get('PGID') == str(pgid) and (row.get('PID') or '').isdigit():
            members.append(int(row['PID']))
    return members


def parse_ps_state(text, pid):
    """``ps -o pid,state -p PID`` -> its state letters ('S', 'Ss', 'Z', ...), None when it is not listed."""
    for row in parse_table(text):
        if row.get('PID') == str(pid):
            return row.get('STAT')
    return None


# ---------------------------------------------------------------- the system table

def sysctl_argv():
    return ['sysctl', 'hw.model', 'hw.ncpu', 'hw.physmem', 'hw.machine']


def parse_sysctl(text):
    """``sysctl name ...`` ("name: value" lines) -> {name: value}."""
    values = {}
    for line in (text or '').splitlines():
        if ': ' in line and not line.startswith('sysctl:'):
            key, value = line.split(': ', 1)
            values[key.strip()] = value.strip()
    return values


def parse_kenv(text):
    """``kenv`` (name="value" lines) -> {name: value}."""
    values = {}
    for line in (text or '').splitlines():
        match = re.match(r'^([^=\s]+)="(.*)"$', line.strip())
        if match:
            values[match.group(1)] = match.group(2)
    return values


def parse_pciconf(text):
    """``pciconf -lv`` -> ``[{device: 'igb0', selector, class_id, vendor, name, class, subclass}]``.

    Both header formats: ``class=0x060000 card=... chip=...`` (before FreeBSD 13) and
    ``class=0x060000 rev=... vendor=0x8086 device=0x1f08 ...``.
    """
    devices = []
    for line in (text or '').splitlines():
        match = re.match(r'^(\S+?)@(pci\S+?):\s+class=0x([0-9a-fA-F]{6})', line)
        if match:
            devices.append({'device': match.group(1), 'selector': match.group(2), 'class_id': match.group(3).lower(),
                            'vendor': None, 'name': None, 'class': None, 'subclass': None})
            continue
        field = re.match(r"^\s+(vendor|device|class|subclass)\s+=\s+'?(.*?)'?\s*$", line)
        if field and devices:
            key = 'name' if field.group(1) == 'device' else field.group(1)
            devices[-1][key] = field.group(2)
    return devices


def parse_geom_disks(text):
    """``geom disk list`` -> ``[{name, model, size_bytes}]`` (sysprofile.format_disks' disks)."""
    disks = []
    for line in (text or '').splitlines():
        stripped = line.strip()
        match = re.match(r'^\d+\.\s+Name:\s+(\S+)$', stripped)
        if match:
            disks.append({'name': match.group(1), 'model': None, 'size_bytes': 0})
        elif disks and stripped.startswith('Mediasize:'):
            size = stripped.split()[1]
            disks[-1]['size_bytes'] = int(size) if size.isdigit() else 0
        elif disks and stripped.startswith('descr:'):
            disks[-1]['model'] = stripped.split(':', 1)[1].strip() or None
    return [disk for disk in disks if disk['size_bytes']]


def parse_mount_p(text, mountpoint='/'):
    """``mount -p`` (fstab format) -> the file system type of ``mountpoint``, with the pool for ZFS."""
    found = None
    for line in (text or '').splitlines():
        fields = line.split()
        if len(fields) >= 3 and fields[1] == mountpoint:
            found = fields[2] if fields[2] != 'zfs' else 'zfs (pool %s)' % fields[0].split('/')[0]
    return found


def parse_route_interface(text):
    """``route -n get default`` -> the interface of the default route, None without one."""
    for line in (text or '').splitlines():
        key, _sep, value = line.strip().partition(':')
        if key == 'interface' and value.strip():
            return value.strip()
    return None


def parse_ifconfig(text, interface):
    """``ifconfig [IF]`` -> ``{mtu, options: [..], media, speed_mbps}`` of ``interface``, None when absent."""
    block = found = None
    for line in (text or '').splitlines():
        header = re.match(r'^(\S+): flags=', line)
        if header:
            block = {'mtu': None, 'options': [], 'media': None, 'speed_mbps': None} \
                if header.group(1) == interface else None
            if block is not None:
                mtu = re.search(r'\bmtu (\d+)', line)
                block['mtu'] = int(mtu.group(1)) if mtu else None
                found = block
            continue
        if block is None:
            continue
        stripped = line.strip()
        options = re.match(r'^options=[0-9a-fA-F]+<(.*)>$', stripped)
        if options:
            block['options'] = options.group(1).split(',') if options.group(1) else []
        if stripped.startswith('media:'):
            block['media'] = stripped.split(':', 1)[1].strip()
            block['speed_mbps'] = media_speed(block['media'])
    return found


def media_speed(media):
    """"Ethernet autoselect (10Gbase-T <full-duplex>)" -> 10000; "1000baseT" -> 1000; None when unknown."""
    match = re.search(r'\((\d+(?:\.\d+)?)([GM]?)base', media or '', re.IGNORECASE)
    if not match:
        return None
    value = float(match.group(1))
    return int(value * 1000) if match.group(2).upper() == 'G' else int(value)


# ifconfig's capability names -> the ethtool-style names the Linux profile reports
OFFLOAD_NAMES = (
    ('RXCSUM', 'rx-checksumming'), ('TXCSUM', 'tx-checksumming'), ('TSO4', 'tcp-segmentation-offload'),
    ('LRO', 'large-receive-offload'), ('VLAN_HWTAGGING', 'rx-vlan-offload'),
)


def offloads(options):
    """ifconfig's enabled ``options`` -> {ethtool-style name: bool}, plus every option as itself (True)."""
    enabled = set(options or [])
    out = dict((name, key in enabled) for key, name in OFFLOAD_NAMES)
    for option in sorted(enabled):
        out[option] = True
    return out


def driver_of(interface):
    """"igb0" -> "igb" (a FreeBSD interface is named by its driver and unit)."""
    match = re.match(r'^([a-z_]+?)\d+$', interface or '')
    return match.group(1) if match else None


# the network sysctls FreeBSD's tuning changes (their Linux counterparts do not exist there)
NETWORK_SYSCTLS = (
    'kern.ipc.maxsockbuf', 'kern.ipc.somaxconn', 'net.inet.tcp.sendbuf_max', 'net.inet.tcp.recvbuf_max',
    'net.inet.tcp.sendspace', 'net.inet.tcp.recvspace', 'net.inet.tcp.sendbuf_auto', 'net.inet.tcp.recvbuf_auto',
    'net.inet.tcp.cc.algorithm', 'net.inet.tcp.mssdflt', 'net.inet.tcp.rfc1323', 'net.inet.tcp.sack.enable',
    'net.inet.udp.recvspace', 'net.inet.udp.maxdgram',
)
