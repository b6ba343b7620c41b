# -*- coding: utf-8 -*-
# Copyright: perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The VM lab: lab hosts as QEMU virtual machines booting Debian's own kernel,
for what a network namespace cannot show (bonds, NetworkManager, firewalld,
tuned, machine-wide sysctls, a management link that can really be cut).

Layout of one VM lab named NAME:
  /var/cache/perflab/vm-<suite>-<tag>/   the image (lab_vm_image): qcow2 base, kernel, initrd
  /var/lib/perflab/NAME/                 state: lab.json, ssh key, vms/<host>/ (overlay, console, monitor)
  root namespace                         bridge NAME-vbr, taps NAME-t<i>a / NAME-t<i>b (bridge links)
  127.0.0.1:<port>                       each VM's SSH (QEMU user networking, hostfwd; no privilege)

Each VM has eth0 (management, QEMU user networking), eth1 and eth2 (data). With
``links=bridge`` both data links of every VM are taps on one bridge (one segment:
active-backup failover and balance-alb work); with ``links=p2p`` (two VMs only)
eth1 and eth2 are point-to-point UDP socket links between the two VMs, which
carry LACP frames that a Linux bridge drops (802.3ad).

Emulation: QEMU runs under TCG unless this machine has a real KVM (kvm_intel or
kvm_amd). A nested paging hypervisor's /dev/kvm (kvm_pvm) hangs Debian's kernel
in its decompressor, so /dev/kvm alone is not enough. Under TCG a VM host is for
live behaviour, never for performance figures."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import base64
import hashlib
import json
import os
import signal
import socket
import time

from ansible_collections.perflab.network.plugins.module_utils.lab.vm_image import VmImage, build_image
from ansible_collections.perflab.network.plugins.module_utils.lab.spec import SWITCH_PORT_MTU
from ansible_collections.perflab.network.plugins.module_utils.lab.util import (
    LabError, _write, link_exists, port_open, run, wait_for,
)

QEMU = 'qemu-system-x86_64'
DATA_NICS = ('eth1', 'eth2')
MGMT_NIC = 'eth0'
CONSOLE_LINES = 25


def accel_choice(asked='auto'):
    """'kvm' only where the kernel has a real KVM module; TCG otherwise (see the module doc)."""
    if asked != 'auto':
        return asked
    real = any(os.path.isdir('/sys/module/' + m) for m in ('kvm_intel', 'kvm_amd'))
    return 'kvm' if real and os.access('/dev/kvm', os.R_OK | os.W_OK) else 'tcg'


def vm_dir(spec, h):
    return os.path.join(spec.state_dir, 'vms', h['name'])


def bridge_name(spec):
    return '%s-vbr' % spec.name


def tap_names(spec, h):
    return ['%s-t%d%s' % (spec.name, h['index'], s) for s in ('a', 'b')]


def mac(spec, h, nic):
    digest = hashlib.sha1(spec.name.encode('utf-8')).digest()
    return '52:54:%02x:%02x:%02x:%02x' % (digest[0], digest[1], h['index'] & 0xff, nic)


def free_ports(count, kind=socket.SOCK_STREAM):
    """Ports the kernel hands out now (bound together, so they are distinct)."""
    socks, ports = [], []
    try:
        for dummy in range(count):
            s = socket.socket(socket.AF_INET, kind)
            s.bind(('127.0.0.1', 0))
            socks.append(s)
            ports.append(s.getsockname()[1])
    finally:
        for s in socks:
            s.close()
    return ports


def image_for(spec):
    return VmImage(spec.cache_root, spec.suite, spec.extra_packages, spec.mirror, spec.vm_tool_packages)


def _pid(path):
    try:
        with open(path) as f:
            pid = int(f.read().strip())
        with open('/proc/%d/cmdline' % pid, 'rb') as f:
            cmd = f.read().split(b'\0')
    except (IOError, OSError, ValueError):
        return None
    return pid if cmd and os.path.basename(cmd[0]).startswith(b'qemu-system') else None


def vm_pid(spec, h):
    return _pid(os.path.join(vm_dir(spec, h), 'qemu.pid'))


def vm_running(spec, h):
    # the banner, not the connect (QEMU's forward accepts at once); a busy TCG guest takes seconds to send it
    return vm_pid(spec, h) is not None and port_open('127.0.0.1', h['ssh_port'], timeout=15)


def console_tail(spec, h, lines=CONSOLE_LINES):
    try:
        with open(os.path.join(vm_dir(spec, h), 'console.log'), 'rb') as f:
            text = f.read()[-16384:].decode('utf-8', 'replace')
    except IOError:
        return '(no console output)'
    out = [ln.rstrip() for ln in text.replace('\r', '').splitlines() if ln.strip()]
    return '\n'.join(out[-lines:]) or '(no console output)'


def machine_id(spec, h):
    """Each VM's own machine id (32 hex digits), the same at every boot of the lab. The VMs boot one
    image, whose /etc/machine-id they would all share: systemd-networkd derives a bond's MAC address
    from it, so the two hosts' bonds had one MAC and no ping passed between them."""
    return hashlib.sha256(('perflab-vm %s %s' % (spec.name, h['name'])).encode('utf-8')).hexdigest()[:32]


def kernel_cmdline(spec, h, pubkey):
    key = pubkey.split()[1]
    base64.b64decode(key)  # an ed25519 key is one base64 word: nothing else reaches the command line
    args = ['root=/dev/vda', 'rw', 'console=ttyS0', 'net.ifnames=0', 'panic=-1', 'quiet',
            # systemd takes it over the image's /etc/machine-id (no first-boot presets)
            'systemd.machine_id=%s' % machine_id(spec, h),
            'perflab.hostname=%s' % h['name'], 'perflab.key=%s' % key,
            'perflab.addr=%s,%s/%d' % (DATA_NICS[0], h['data_address'], h['data_prefix'])]
    for nic in DATA_NICS[1:]:
        args.append('perflab.addr=%s,' % nic)  # up, no address
    return ' '.join(args)


# the data NICs' link speed as the guest sees it (Mbit/s): a 10 GbE NIC's
DATA_NIC_SPEED_MBPS = 10000


def qemu_argv(spec, h, image, pubkey, accel, loadvm=None):
    d = vm_dir(spec, h)
    argv = [QEMU, '-name', 'perflab-%s-%s' % (spec.name, h['name']), '-nodefaults', '-display', 'none',
            '-machine', 'pc', '-m', str(spec.vm_memory_mb), '-smp', '1',
            '-accel', 'tcg,tb-size=64' if accel == 'tcg' else 'kvm',
            '-kernel', image.kernel, '-initrd', image.initrd, '-append', kernel_cmdline(spec, h, pubkey),
            '-drive', 'file=%s,if=virtio,format=qcow2,cache=unsafe' % os.path.join(d, 'disk.qcow2'),
            '-netdev', 'user,id=mgmt,hostfwd=tcp:127.0.0.1:%d-:22' % h['ssh_port'],
            '-device', 'virtio-net-pci,netdev=mgmt,mac=%s' % mac(spec, h, 0),
            '-serial', 'file:%s' % os.path.join(d, 'console.log'),
            '-monitor', 'unix:%s,server=on,wait=off' % os.path.join(d, 'monitor.sock'),
            '-pidfile', os.path.join(d, 'qemu.pid'), '-daemonize', '-no-reboot']
    if accel == 'kvm':
        argv += ['-cpu', 'host']
    for n, link in enumerate(h['links'], start=1):
        if link['type'] == 'tap':
            netdev = 'tap,id=data%d,ifname=%s,script=no,downscript=no' % (n, link['tap'])
        else:
            netdev = 'socket,id=data%d,udp=127.0.0.1:%d,localaddr=127.0.0.1:%d' % (n, link['remote'], link['local'])
        # a data NIC reports a link speed as a real one does: virtio's default is none, and the kernel
        # keeps a member without one down in a balance-alb, balance-tlb or 802.3ad bond
        argv += ['-netdev', netdev, '-device', 'virtio-net-pci,netdev=data%d,mac=%s,speed=%d,duplex=full'
                 % (n, mac(spec, h, n), DATA_NIC_SPEED_MBPS)]
    if loadvm:
        argv += ['-loadvm', loadvm]
    return argv


def monitor(spec, h, command, timeout=120):
    """One HMP command on the VM's monitor socket; returns what it printed."""
    path = os.path.join(vm_dir(spec, h), 'monitor.sock')
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout)
    try:
        s.connect(path)
        buf = b''
        while not buf.endswith(b'(qemu) '):
            buf += s.recv(4096)
        s.sendall(command.encode('ascii') + b'\n')
        buf = b''
        while not buf.endswith(b'(qemu) '):
            chunk = s.recv(4096)
            if not chunk:
                break
            buf += chunk
    except (OSError, socket.timeout) as exc:
        raise LabError('the monitor of VM %s did not answer %r: %s' % (h['name'], command, exc))
    finally:
        s.close()
    text = buf.decode('utf-8', 'replace').replace('\r', '')
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.startswith('(qemu)') and command not in ln]
    return '\n'.join(lines)


def _ensure_bridge(spec):
    br = bridge_name(spec)
    changed = False
    if not link_exists(br):
        run(['ip', 'link', 'add', br, 'type', 'bridge', 'stp_state', '0', 'forward_delay', '0'])
        changed = True
    _no_ipv6(br)
    run(['ip', 'link', 'set', br, 'mtu', str(SWITCH_PORT_MTU), 'up'], check=False)
    return changed


def _no_ipv6(dev):
    try:
        with open('/proc/sys/net/ipv6/conf/%s/disable_ipv6' % dev, 'w') as f:
            f.write('1')
    except IOError:
        pass


def _ensure_taps(spec, h):
    br = bridge_name(spec)
    for tap in tap_names(spec, h):
        if not link_exists(tap):
            run(['ip', 'tuntap', 'add', 'dev', tap, 'mode', 'tap'])
        _no_ipv6(tap)
        run(['ip', 'link', 'set', tap, 'mtu', str(SWITCH_PORT_MTU), 'master', br, 'up'])


def plan_hosts(spec, saved):
    """Each VM's ports and links: the saved ones when the lab is up, new free ports otherwise."""
    ports = (saved or {}).get('vm_ports') or {}
    names = spec.host_names()
    if not all(n in ports for n in names):
        tcp = free_ports(len(names))
        udp = free_ports(2 * len(names), socket.SOCK_DGRAM)
        ports = dict((n, {'ssh': tcp[i], 'udp': udp[2 * i:2 * i + 2]}) for i, n in enumerate(names))
    hosts = []
    for i in range(1, spec.count + 1):
        h = spec.host(i)
        h['ssh_port'] = ports[h['name']]['ssh']
        h['udp_ports'] = ports[h['name']]['udp']
        h['mgmt_address'] = '127.0.0.1'
        h['mgmt_interface'] = MGMT_NIC
        h['data_interface'] = DATA_NICS[0]
        h['data_interfaces'] = list(DATA_NICS)
        hosts.append(h)
    for h in hosts:
        if spec.vm_links == 'p2p':
            peer = hosts[1 - (h['index'] - 1)]
            h['links'] = [{'type': 'udp', 'local': h['udp_ports'][k], 'remote': peer['udp_ports'][k]} for k in (0, 1)]
        else:
            h['links'] = [{'type': 'tap', 'tap': t} for t in tap_names(spec, h)]
    return hosts, ports


def start_vm(spec, h, image, pubkey, accel, log, loadvm=None):
    d = vm_dir(spec, h)
    os.makedirs(d, exist_ok=True)
    disk = os.path.join(d, 'disk.qcow2')
    if not os.path.exists(disk):
        run(['qemu-img', 'create', '-q', '-f', 'qcow2', '-b', image.disk, '-F', 'qcow2', disk])
    if spec.vm_links == 'bridge':
        _ensure_taps(spec, h)
    with open(os.path.join(d, 'console.log'), 'w'):
        pass
    proc = run(qemu_argv(spec, h, image, pubkey, accel, loadvm), check=False, timeout=120)
    if proc.returncode != 0:
        detail = (proc.stderr or proc.stdout).strip()[-1500:]
        raise LabError('QEMU did not start VM %s (exit %d): %s' % (h['name'], proc.returncode, detail))
    log('VM %s started (%s), waiting for SSH on 127.0.0.1:%d' % (h['name'], accel.upper(), h['ssh_port']))


def wait_booted(spec, hosts, timeout, log):
    """Wait until every VM answers SSH; a VM that died or did not boot in time fails with its console."""
    started = time.time()
    pending = list(hosts)
    last_note = started
    while pending:
        for h in list(pending):
            if vm_pid(spec, h) is None:
                raise LabError('VM %s stopped while booting; its console ended with:\n%s'
                               % (h['name'], console_tail(spec, h)))
            if port_open('127.0.0.1', h['ssh_port'], timeout=2):
                log('VM %s answers SSH after %d s' % (h['name'], time.time() - started))
                pending.remove(h)
        if not pending:
            break
        if time.time() - started > timeout:
            h = pending[0]
            raise LabError('VM %s did not answer SSH within %d s (lab_vm_boot_timeout); its console ended with:\n%s'
                           % (h['name'], timeout, console_tail(spec, h)))
        if time.time() - last_note > 30:
            log('still booting: %s (%d s)' % (', '.join(h['name'] for h in pending), time.time() - started))
            last_note = time.time()
        time.sleep(1)
    return time.time() - started


def stop_vm(spec, h):
    pid = vm_pid(spec, h)
    if pid is None:
        return False
    os.kill(pid, signal.SIGTERM)
    if not wait_for(lambda: not os.path.exists('/proc/%d' % pid), 15):
        os.kill(pid, signal.SIGKILL)
        wait_for(lambda: not os.path.exists('/proc/%d' % pid), 10)
    return True


def ssh_argv(spec, h, command):
    return ['ssh', '-i', spec.key_file, '-p', str(h['ssh_port']), '-o', 'BatchMode=yes',
            '-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null', '-o', 'LogLevel=ERROR',
            '-o', 'ConnectTimeout=20', 'root@127.0.0.1'] + list(command)


def set_clock(spec, h):
    """A VM restored from a snapshot wakes up with the snapshot's time."""
    run(ssh_argv(spec, h, ['date', '-u', '-s', '@%d' % int(time.time())]), check=False, timeout=60)


def snapshot(spec, hosts, name, revert=False):
    """Save (or go back to) an internal snapshot of every VM, the same name on each."""
    for h in hosts:
        if vm_pid(spec, h) is None:
            raise LabError('VM %s is not running: bring the lab up first' % h['name'])
    for h in hosts:
        out = monitor(spec, h, '%s %s' % ('loadvm' if revert else 'savevm', name), timeout=300)
        if 'rror' in out or 'not found' in out.lower() or 'does not' in out.lower():
            raise LabError('%s %s on VM %s failed: %s' % ('loadvm' if revert else 'savevm', name, h['name'], out))
    if revert:
        for h in hosts:
            if not wait_for(lambda: port_open('127.0.0.1', h['ssh_port'], timeout=2), 60, interval=1):
                raise LabError('VM %s does not answer SSH after loadvm %s' % (h['name'], name))
            set_clock(spec, h)
    return True


def snapshots(spec, h):
    out = monitor(spec, h, 'info snapshots')
    names = []
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[0].isdigit() or (parts and parts[0] == '--'):
            names.append(parts[1])
    return names


def up(spec, saved, pubkey, log):
    """Bring the VM lab to the spec; returns (changed, hosts, state to save)."""
    image = image_for(spec)
    changed = build_image(image, log)
    accel = accel_choice(spec.vm_accel)
    hosts, ports = plan_hosts(spec, saved)
    if spec.vm_links == 'bridge':
        changed |= _ensure_bridge(spec)
    to_boot = [h for h in hosts if not vm_running(spec, h)]
    for h in to_boot:
        stop_vm(spec, h)  # a VM that runs but does not answer
        start_vm(spec, h, image, pubkey, accel, log)
        changed = True
    if to_boot:
        took = wait_booted(spec, to_boot, spec.vm_boot_timeout, log)
        log('%d VM(s) booted in %d s' % (len(to_boot), took))
    state = {'vm_ports': ports, 'vm_accel': accel, 'vm_image': image.dir, 'vm_links': spec.vm_links}
    return changed, hosts, state


def down(spec, saved):
    """Stop every VM of the lab and remove its links; the state directory goes with the caller."""
    changed = False
    ports = (saved or {}).get('vm_ports') or {}
    count = max(len(ports), spec.count)
    for i in range(1, count + 1):
        h = spec.host(i)
        changed |= stop_vm(spec, h)
        for tap in tap_names(spec, h):
            if link_exists(tap):
                run(['ip', 'link', 'del', tap], check=False)
                changed = True
    if link_exists(bridge_name(spec)):
        run(['ip', 'link', 'del', bridge_name(spec)], check=False)
        changed = True
    return changed


def status(spec, saved):
    hosts, dummy = plan_hosts(spec, saved)
    for h in hosts:
        h['running'] = vm_running(spec, h)
    return hosts


def save_state(spec, summary):
    _write(os.path.join(spec.state_dir, 'lab.json'), json.dumps(summary, indent=1, sort_keys=True) + '\n')
