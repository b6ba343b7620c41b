# -*- coding: utf-8 -*-
# Copyright: perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The local lab: N lab hosts on this machine, each a network namespace with
a private overlay root, its own hostname and pid namespace, and an sshd that
the control node reaches over a management bridge.

Layout of one lab named NAME (all names derive from it):
  root namespace   bridge NAME-br (management gateway), veth NAME-m<i> per host,
                   nftables table ip perflab_NAME (masquerade for package installs)
  NAME-sw          the data "switch": bridge br0, port p<i> per host
  NAME-<host>      a lab host: mgmt0 (management), data0 (data link)
  /var/lib/perflab/NAME/         state: ssh key, inventory, per host upper/work/root
  /var/cache/perflab/rootfs-*/   the Debian base made once with debootstrap (a cache)

Every lab host runs in its own mount, UTS, IPC and pid namespace; its pid 1 is
sshd. Killing the `unshare` parent kills the whole pid namespace (--kill-child),
which also drops the namespace's mounts: nothing of a host outlives its stop.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import errno
import fcntl
import hashlib
import ipaddress
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import time

STATE_ROOT = '/var/lib/perflab'
CACHE_ROOT = '/var/cache/perflab'
NAME_RE = re.compile(r'^[a-z][a-z0-9]{0,7}$')
HOST_PREFIX_RE = re.compile(r'^[a-z][a-z0-9]{0,5}$')
MIN_HOSTS = 1
MAX_HOSTS = 128
SWITCH_PORT_MTU = 9216
BASE_PACKAGES = [
    'openssh-server', 'python3', 'python3-apt', 'iproute2', 'procps', 'ethtool',
    'iputils-ping', 'ca-certificates', 'sudo', 'nftables', 'kmod', 'gnupg',
]
FORWARD_ORIG = os.path.join(STATE_ROOT, '.ip_forward.orig')

# pid 1 of each lab host. A constant script: every value arrives as a
# positional argument (names are validated against NAME_RE beforehand).
HOST_INIT = r'''
set -e
root=$1 lower=$2 upper=$3 work=$4 host=$5
mount -t overlay overlay -o "lowerdir=$lower,upperdir=$upper,workdir=$work" "$root"
mount -t proc proc "$root/proc"
# sysfs mounted from inside the network namespace shows only its interfaces
mount -t sysfs sysfs "$root/sys"
mount -t tmpfs -o mode=755,size=16m tmpfs "$root/dev"
for node in "null 1 3" "zero 1 5" "full 1 7" "random 1 8" "urandom 1 9" "tty 5 0"; do
  set -- $node
  mknod -m 666 "$root/dev/$1" c "$2" "$3"
done
mkdir -p "$root/dev/pts" "$root/dev/shm"
mount -t devpts -o newinstance,ptmxmode=0666,mode=620 devpts "$root/dev/pts"
ln -s pts/ptmx "$root/dev/ptmx"
ln -s /proc/self/fd "$root/dev/fd"
mount -t tmpfs -o mode=1777 tmpfs "$root/dev/shm"
mount -t tmpfs -o mode=755 tmpfs "$root/run"
mkdir -p "$root/run/sshd"
hostname "$host"
[ -e "$root/etc/ssh/ssh_host_ed25519_key" ] || chroot "$root" ssh-keygen -A >/dev/null
exec chroot "$root" /usr/sbin/sshd -D -e
'''


class LabError(Exception):
    """A problem that stops the lab before (or instead of) any change."""


def run(argv, check=True, input_text=None, timeout=120):
    proc = subprocess.run(argv, input=input_text, check=False, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, timeout=timeout)
    if check and proc.returncode != 0:
        raise LabError('%s failed (exit %d): %s' % (' '.join(argv), proc.returncode,
                                                    (proc.stderr or proc.stdout).strip()))
    return proc


class LabSpec(object):
    """What the user asked for, with every derived name and address."""

    def __init__(self, name='perflab', hosts=2, host_prefix='lab', mgmt_subnet='10.213.0.0/24',
                 data_subnet='10.213.1.0/24', mtu=1500, offloads=False, rate_mbit=0, shaper='tbf',
                 suite='bookworm', mirror=None, extra_packages=None, state_root=STATE_ROOT,
                 cache_root=CACHE_ROOT):
        self.name = name
        self.count = hosts
        self.host_prefix = host_prefix
        self.mgmt_subnet = mgmt_subnet
        self.data_subnet = data_subnet
        self.mtu = mtu
        self.offloads = offloads
        self.rate_mbit = rate_mbit
        self.shaper = shaper
        self.suite = suite
        self.mirror = mirror
        self.extra_packages = list(extra_packages or [])
        self.state_dir = os.path.join(state_root, name)
        self.cache_root = cache_root

    # names -----------------------------------------------------------
    @property
    def bridge(self):
        return '%s-br' % self.name

    @property
    def switch_ns(self):
        return '%s-sw' % self.name

    @property
    def nft_table(self):
        return 'perflab_%s' % self.name

    @property
    def base_dir(self):
        packages = ','.join(sorted(BASE_PACKAGES + self.extra_packages))
        tag = hashlib.sha1(packages.encode('utf-8')).hexdigest()[:8]
        return os.path.join(self.cache_root, 'rootfs-%s-%s' % (self.suite, tag))

    @property
    def key_file(self):
        return os.path.join(self.state_dir, 'ssh', 'id_ed25519')

    def host_names(self):
        return ['%s%d' % (self.host_prefix, i) for i in range(1, self.count + 1)]

    def host(self, index):
        """index is 1-based."""
        name = '%s%d' % (self.host_prefix, index)
        mgmt_net = ipaddress.ip_network(self.mgmt_subnet)
        data_net = ipaddress.ip_network(self.data_subnet)
        hdir = os.path.join(self.state_dir, 'hosts', name)
        return {
            'name': name,
            'index': index,
            'netns': '%s-%s' % (self.name, name),
            'mgmt_address': str(mgmt_net.network_address + 10 + index),
            'mgmt_prefix': mgmt_net.prefixlen,
            'mgmt_interface': 'mgmt0',
            'mgmt_peer': '%s-m%d' % (self.name, index),
            'data_address': str(data_net.network_address + 10 + index),
            'data_prefix': data_net.prefixlen,
            'data_interface': 'data0',
            'switch_port': 'p%d' % index,
            'mtu': self.mtu,
            'dir': hdir,
            'pidfile': os.path.join(hdir, 'init.pid'),
        }

    def gateway(self):
        return str(ipaddress.ip_network(self.mgmt_subnet).network_address + 1)


# preflight -------------------------------------------------------------

def _routes():
    out = run(['ip', '-j', 'route', 'show', 'table', 'all'], check=False).stdout or '[]'
    routes = []
    for r in json.loads(out):
        dst = r.get('dst')
        if not dst or dst == 'default' or r.get('type') in ('local', 'broadcast', 'multicast'):
            continue
        try:
            routes.append((ipaddress.ip_network(dst, strict=False), r.get('dev')))
        except ValueError:
            continue
    return routes


def preflight(spec, need_base):
    """Every problem with the plan, before anything is created."""
    errors = []
    if os.geteuid() != 0:
        errors.append('the lab must be built as root (network namespaces, mounts, bridges); run it with sudo or as root')
    if not NAME_RE.match(spec.name or ''):
        errors.append('lab name %r is invalid: 1 to 8 characters, a-z and 0-9, starting with a letter' % spec.name)
    if not HOST_PREFIX_RE.match(spec.host_prefix or ''):
        errors.append('host_prefix %r is invalid: 1 to 6 characters, a-z and 0-9, starting with a letter' % spec.host_prefix)
    if not (MIN_HOSTS <= spec.count <= MAX_HOSTS):
        errors.append('hosts must be between %d and %d, got %s' % (MIN_HOSTS, MAX_HOSTS, spec.count))
    if not (68 <= spec.mtu <= 9000):
        errors.append('mtu must be between 68 and 9000, got %s' % spec.mtu)
    if spec.rate_mbit < 0 or spec.rate_mbit > 100000:
        errors.append('rate_mbit must be between 0 (unshaped) and 100000, got %s' % spec.rate_mbit)
    nets = {}
    for field in ('mgmt_subnet', 'data_subnet'):
        try:
            net = ipaddress.ip_network(getattr(spec, field))
        except ValueError as exc:
            errors.append('%s %r is not an IPv4 network: %s' % (field, getattr(spec, field), exc))
            continue
        if net.version != 4:
            errors.append('%s must be an IPv4 network, got %s' % (field, net))
            continue
        if net.num_addresses < spec.count + 12:
            errors.append('%s %s is too small for %d hosts (needs %d addresses)'
                          % (field, net, spec.count, spec.count + 12))
        nets[field] = net
    if len(nets) == 2 and nets['mgmt_subnet'].overlaps(nets['data_subnet']):
        errors.append('mgmt_subnet %s and data_subnet %s overlap: they must not overlap (give two disjoint IPv4 networks)'
                      % (nets['mgmt_subnet'], nets['data_subnet']))
    for field, net in nets.items():
        for route, dev in _routes():
            if dev == spec.bridge:
                continue  # our own management bridge, from an earlier `up`
            if route.version == 4 and route.overlaps(net):
                errors.append('%s %s overlaps this machine\'s route %s (dev %s): choose another subnet'
                              % (field, net, route, dev))
    tools = ['ip', 'unshare', 'nsenter', 'chroot', 'mount', 'nft', 'ssh-keygen', 'sysctl']
    if spec.rate_mbit:
        tools.append('tc')
    if not spec.offloads:
        tools.append('ethtool')
    if need_base:
        tools.append('debootstrap')
    for tool in tools:
        if not shutil.which(tool):
            errors.append('command %s is missing on the control node (make bootstrap installs it)' % tool)
    errors.extend(kernel_problems())
    return errors


def kernel_problems():
    problems = []
    if not os.path.exists('/proc/self/ns/net'):
        problems.append('the kernel has no network namespaces')
    if not os.path.exists('/proc/self/ns/pid'):
        problems.append('the kernel has no pid namespaces')
    with open('/proc/filesystems') as f:
        filesystems = f.read()
    if 'overlay' not in filesystems and run(['modprobe', 'overlay'], check=False).returncode != 0:
        problems.append('the kernel has no overlay filesystem (modprobe overlay failed)')
    if problems:
        return problems
    # veth and bridge: try them in a throwaway namespace
    probe = 'perflab-probe-%d' % os.getpid()
    if run(['ip', 'netns', 'add', probe], check=False).returncode != 0:
        return ['cannot create a network namespace (ip netns add failed)']
    try:
        if run(['ip', '-n', probe, 'link', 'add', 'plprobe0', 'type', 'veth', 'peer', 'name', 'plprobe1'], check=False).returncode:
            problems.append('the kernel has no veth support')
        if run(['ip', '-n', probe, 'link', 'add', 'plprobebr', 'type', 'bridge'], check=False).returncode:
            problems.append('the kernel has no bridge support')
    finally:
        run(['ip', 'netns', 'del', probe], check=False)
    return problems


# the Debian base ------------------------------------------------------------

def debian_mirror():
    """The Debian mirror this machine's apt already uses (we name none ourselves)."""
    candidates = []
    paths = ['/etc/apt/sources.list']
    d = '/etc/apt/sources.list.d'
    if os.path.isdir(d):
        paths += [os.path.join(d, f) for f in sorted(os.listdir(d)) if f.endswith(('.list', '.sources'))]
    for path in paths:
        try:
            with open(path) as f:
                text = f.read()
        except IOError:
            continue
        for line in text.splitlines():
            line = line.strip()
            if line.startswith('URIs:'):
                candidates.extend(line.split()[1:])
            elif line.startswith('deb '):
                parts = [p for p in line.split() if not p.startswith('[')]
                if len(parts) >= 3:
                    candidates.append(parts[1])
    for uri in candidates:
        if uri.rstrip('/').endswith('/debian'):
            return uri
    raise LabError('found no Debian mirror in /etc/apt/sources.list*: set lab_debian_mirror')


def base_ready(spec):
    return os.path.exists(os.path.join(spec.base_dir, '.perflab-complete'))


def ensure_base(spec, log):
    """Build the Debian base once (debootstrap), atomically, under a lock."""
    if base_ready(spec):
        return False
    os.makedirs(spec.cache_root, exist_ok=True)
    with open(os.path.join(spec.cache_root, '.lock'), 'w') as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if base_ready(spec):
            return False
        tmp = spec.base_dir + '.partial'
        shutil.rmtree(tmp, ignore_errors=True)
        mirror = spec.mirror or debian_mirror()
        packages = ','.join(BASE_PACKAGES + spec.extra_packages)
        log('building the lab base system (debootstrap %s, about a minute, cached in %s)' % (spec.suite, spec.base_dir))
        proc = run(['debootstrap', '--variant=minbase', '--include=' + packages, spec.suite, tmp, mirror],
                   check=False, timeout=1800)
        if proc.returncode != 0:
            shutil.rmtree(tmp, ignore_errors=True)
            raise LabError('debootstrap failed (exit %d): %s' % (proc.returncode, (proc.stdout + proc.stderr)[-2000:]))
        # every lab host makes its own host keys at its first start
        for f in os.listdir(os.path.join(tmp, 'etc', 'ssh')):
            if f.startswith('ssh_host_'):
                os.unlink(os.path.join(tmp, 'etc', 'ssh', f))
        with open(os.path.join(tmp, 'etc', 'ssh', 'sshd_config.d', 'perflab-lab.conf'), 'w') as f:
            f.write('# perflab lab host\nUseDNS no\nPermitRootLogin prohibit-password\nPasswordAuthentication no\n')
        run(['apt-get', 'clean'], check=False)
        shutil.rmtree(os.path.join(tmp, 'var', 'cache', 'apt', 'archives'), ignore_errors=True)
        os.makedirs(os.path.join(tmp, 'var', 'cache', 'apt', 'archives', 'partial'), exist_ok=True)
        with open(os.path.join(tmp, '.perflab-complete'), 'w') as f:
            f.write('%s %s\n' % (spec.suite, packages))
        os.rename(tmp, spec.base_dir)
    return True


# helpers -------------------------------------------------------------------

def netns_list():
    out = run(['ip', '-j', 'netns', 'list'], check=False).stdout.strip()
    return set(n['name'] for n in json.loads(out or '[]'))


def link_exists(name, netns=None):
    argv = ['ip'] + (['-n', netns] if netns else []) + ['link', 'show', 'dev', name]
    return run(argv, check=False).returncode == 0


def ip(netns, *args):
    return run(['ip'] + (['-n', netns] if netns else []) + list(args))


def read_pid(path):
    try:
        with open(path) as f:
            pid = int(f.read().strip())
    except (IOError, ValueError):
        return None
    try:
        with open('/proc/%d/cmdline' % pid, 'rb') as f:
            cmd = f.read().split(b'\0')
    except IOError:
        return None
    return pid if cmd and os.path.basename(cmd[0]) in (b'unshare', b'nsenter') else None


def port_open(address, port, timeout=0.5):
    try:
        with socket.create_connection((address, port), timeout=timeout) as s:
            return s.recv(4).startswith(b'SSH')
    except (OSError, socket.timeout):
        return False


def wait_for(predicate, timeout, interval=0.1):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if predicate():
            return True
        time.sleep(interval)
    return predicate()


# management network ---------------------------------------------------------

def mgmt_present(spec):
    return link_exists(spec.bridge) and run(['nft', 'list', 'table', 'ip', spec.nft_table], check=False).returncode == 0


def ensure_mgmt(spec):
    changed = False
    net = ipaddress.ip_network(spec.mgmt_subnet)
    if not link_exists(spec.bridge):
        ip(None, 'link', 'add', spec.bridge, 'type', 'bridge')
        ip(None, 'addr', 'add', '%s/%d' % (spec.gateway(), net.prefixlen), 'dev', spec.bridge)
        ip(None, 'link', 'set', spec.bridge, 'up')
        changed = True
    if run(['nft', 'list', 'table', 'ip', spec.nft_table], check=False).returncode != 0:
        # lab hosts install packages like real servers: NAT them out through this machine
        rules = ('table ip %s {\n chain postrouting {\n  type nat hook postrouting priority srcnat; policy accept;\n'
                 '  ip saddr %s oifname != "%s" masquerade\n }\n}\n') % (spec.nft_table, net, spec.bridge)
        run(['nft', '-f', '-'], input_text=rules)
        changed = True
    with open('/proc/sys/net/ipv4/ip_forward') as f:
        forward = f.read().strip()
    if forward != '1':
        os.makedirs(STATE_ROOT, exist_ok=True)
        if not os.path.exists(FORWARD_ORIG):
            with open(FORWARD_ORIG, 'w') as f:
                f.write(forward + '\n')
        run(['sysctl', '-qw', 'net.ipv4.ip_forward=1'])
        changed = True
    return changed


def remove_mgmt(spec):
    changed = False
    if link_exists(spec.bridge):
        ip(None, 'link', 'del', spec.bridge)
        changed = True
    if run(['nft', 'list', 'table', 'ip', spec.nft_table], check=False).returncode == 0:
        run(['nft', 'delete', 'table', 'ip', spec.nft_table])
        changed = True
    # restore forwarding only when no other lab is up
    others = [d for d in os.listdir(STATE_ROOT) if not d.startswith('.') and d != spec.name] \
        if os.path.isdir(STATE_ROOT) else []
    if not others and os.path.exists(FORWARD_ORIG):
        with open(FORWARD_ORIG) as f:
            orig = f.read().strip()
        run(['sysctl', '-qw', 'net.ipv4.ip_forward=%s' % orig])
        os.unlink(FORWARD_ORIG)
        changed = True
    return changed


# data switch -----------------------------------------------------------

def ensure_switch(spec):
    if spec.switch_ns in netns_list() and link_exists('br0', spec.switch_ns):
        return False
    if spec.switch_ns not in netns_list():
        run(['ip', 'netns', 'add', spec.switch_ns])
    ip(spec.switch_ns, 'link', 'add', 'br0', 'type', 'bridge')
    ip(spec.switch_ns, 'link', 'set', 'br0', 'mtu', str(SWITCH_PORT_MTU), 'up')
    ip(spec.switch_ns, 'link', 'set', 'lo', 'up')
    return True


def shape_port(spec, port):
    """A switch port's egress is the link rate towards its host."""
    if not spec.rate_mbit:
        run(['ip', 'netns', 'exec', spec.switch_ns, 'tc', 'qdisc', 'del', 'dev', port, 'root'], check=False)
        return
    rate = '%dmbit' % spec.rate_mbit
    # tbf needs a bucket of at least rate/HZ; 10 ms of traffic, never below 64 jumbo frames
    burst = max(spec.rate_mbit * 1000000 // 8 // 100, 64 * 9216)
    tc = ['ip', 'netns', 'exec', spec.switch_ns, 'tc']
    if spec.shaper == 'tbf':
        run(tc + ['qdisc', 'replace', 'dev', port, 'root', 'tbf', 'rate', rate, 'burst', str(burst), 'latency', '50ms'])
    else:
        run(tc + ['qdisc', 'replace', 'dev', port, 'root', 'handle', '1:', 'htb', 'default', '10'])
        run(tc + ['class', 'replace', 'dev', port, 'parent', '1:', 'classid', '1:10', 'htb', 'rate', rate,
                  'burst', str(burst)])


def set_offloads(netns, dev, on):
    state = 'on' if on else 'off'
    # gro/gso/tso off make MTU matter as it does on a real NIC without offloads
    run(['ip', 'netns', 'exec', netns, 'ethtool', '-K', dev, 'tso', state, 'gso', state, 'gro', state,
         'tx', state, 'rx', state, 'sg', state], check=False)


# lab hosts ---------------------------------------------------------------

def host_running(spec, h):
    return (h['netns'] in netns_list() and read_pid(h['pidfile']) is not None
            and port_open(h['mgmt_address'], 22))


def stop_host(spec, h):
    changed = False
    pid = read_pid(h['pidfile'])
    if pid:
        os.kill(pid, signal.SIGKILL)  # --kill-child takes the whole pid namespace with it
        wait_for(lambda: not os.path.exists('/proc/%d' % pid), 10)
        changed = True
    if h['netns'] in netns_list():
        run(['ip', 'netns', 'del', h['netns']])  # also removes both veth pairs
        changed = True
    # `ip netns del` removes the veth pair asynchronously: wait for it, then remove what is left
    if not wait_for(lambda: not link_exists(h['mgmt_peer']), 2):
        run(['ip', 'link', 'del', h['mgmt_peer']], check=False)
        changed = True
    if os.path.isdir(h['dir']):
        # the overlay lived in the host's own mount namespace, gone with its last process
        _rmtree_retry(h['dir'])
        changed = True
    return changed


def _rmtree_retry(path):
    for dummy in range(20):
        try:
            shutil.rmtree(path)
            return
        except OSError as exc:
            if exc.errno not in (errno.EBUSY, errno.ENOTEMPTY):
                raise
            time.sleep(0.2)
    shutil.rmtree(path)


def _write(path, text, mode=0o644):
    d = os.path.dirname(path)
    if not os.path.isdir(d):
        os.makedirs(d)
    with open(path, 'w') as f:
        f.write(text)
    os.chmod(path, mode)


def start_host(spec, h, pubkey):
    """Create one lab host from nothing (any stale piece is removed first)."""
    stop_host(spec, h)
    ns = h['netns']
    run(['ip', 'netns', 'add', ns])
    ip(ns, 'link', 'set', 'lo', 'up')
    # management NIC: veth to the bridge in the root namespace
    ip(None, 'link', 'add', h['mgmt_peer'], 'type', 'veth', 'peer', 'name', 'mgmt0', 'netns', ns)
    ip(None, 'link', 'set', h['mgmt_peer'], 'master', spec.bridge, 'up')
    ip(ns, 'addr', 'add', '%s/%d' % (h['mgmt_address'], h['mgmt_prefix']), 'dev', 'mgmt0')
    ip(ns, 'link', 'set', 'mgmt0', 'up')
    ip(ns, 'route', 'add', 'default', 'via', spec.gateway())
    # data NIC: veth to the switch
    ip(spec.switch_ns, 'link', 'add', h['switch_port'], 'type', 'veth', 'peer', 'name', 'data0', 'netns', ns)
    ip(spec.switch_ns, 'link', 'set', h['switch_port'], 'mtu', str(SWITCH_PORT_MTU), 'master', 'br0', 'up')
    ip(ns, 'link', 'set', 'data0', 'mtu', str(spec.mtu))
    ip(ns, 'addr', 'add', '%s/%d' % (h['data_address'], h['data_prefix']), 'dev', 'data0')
    ip(ns, 'link', 'set', 'data0', 'up')
    if not spec.offloads:
        set_offloads(ns, 'data0', False)
        set_offloads(spec.switch_ns, h['switch_port'], False)
    shape_port(spec, h['switch_port'])

    # private root: overlay over the cached base; files are seeded in the upper layer
    upper, work, root = (os.path.join(h['dir'], d) for d in ('upper', 'work', 'root'))
    for d in (upper, work, root):
        os.makedirs(d, exist_ok=True)
    _write(os.path.join(upper, 'etc', 'hostname'), h['name'] + '\n')
    hosts = ['127.0.0.1\tlocalhost', '127.0.1.1\t%s' % h['name']]
    for i in range(1, spec.count + 1):
        other = spec.host(i)
        hosts.append('%s\t%s-data' % (other['data_address'], other['name']))
    _write(os.path.join(upper, 'etc', 'hosts'), '\n'.join(hosts) + '\n')
    shutil.copyfile('/etc/resolv.conf', os.path.join(upper, 'etc', 'resolv.conf'))
    _write(os.path.join(upper, 'root', '.ssh', 'authorized_keys'), pubkey, 0o600)
    os.chmod(os.path.join(upper, 'root', '.ssh'), 0o700)

    log = open(os.path.join(h['dir'], 'init.log'), 'w')
    proc = subprocess.Popen(
        ['nsenter', '--net=/run/netns/%s' % ns, 'unshare', '--mount', '--uts', '--ipc', '--pid', '--fork',
         '--kill-child=SIGKILL', '--propagation', 'private', 'sh', '-c', HOST_INIT, 'perflab-lab-init',
         root, spec.base_dir, upper, work, h['name']],
        stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, close_fds=True, start_new_session=True)
    log.close()
    # nsenter execs unshare, so this pid is the unshare parent
    _write(h['pidfile'], '%d\n' % proc.pid)
    if not wait_for(lambda: port_open(h['mgmt_address'], 22) or proc.poll() is not None, 30):
        pass
    if not port_open(h['mgmt_address'], 22):
        with open(os.path.join(h['dir'], 'init.log')) as f:
            detail = f.read()[-2000:]
        raise LabError('lab host %s did not start its sshd on %s:22: %s' % (h['name'], h['mgmt_address'], detail))
    return True


def ensure_key(spec):
    if not os.path.exists(spec.key_file):
        os.makedirs(os.path.dirname(spec.key_file), exist_ok=True)
        os.chmod(os.path.dirname(spec.key_file), 0o700)
        run(['ssh-keygen', '-q', '-t', 'ed25519', '-N', '', '-C', 'perflab-lab-%s' % spec.name, '-f', spec.key_file])
    with open(spec.key_file + '.pub') as f:
        return f.read()


def saved_spec(spec):
    try:
        with open(os.path.join(spec.state_dir, 'lab.json')) as f:
            return json.load(f)
    except (IOError, ValueError):
        return None


def spec_summary(spec):
    return {'name': spec.name, 'hosts': spec.count, 'host_prefix': spec.host_prefix,
            'mgmt_subnet': spec.mgmt_subnet, 'data_subnet': spec.data_subnet, 'mtu': spec.mtu,
            'offloads': spec.offloads, 'rate_mbit': spec.rate_mbit, 'shaper': spec.shaper,
            'base': spec.base_dir}


def up(spec, log=lambda msg: None):
    """Bring the lab to the spec; returns (changed, hosts)."""
    changed = ensure_base(spec, log)
    old = saved_spec(spec)
    if old and (old.get('mgmt_subnet'), old.get('data_subnet'), old.get('host_prefix')) != \
            (spec.mgmt_subnet, spec.data_subnet, spec.host_prefix):
        raise LabError('lab %s is up with other subnets or host names (%s, %s, %s): bring it down first'
                       % (spec.name, old.get('mgmt_subnet'), old.get('data_subnet'), old.get('host_prefix')))
    os.makedirs(spec.state_dir, exist_ok=True)
    pubkey = ensure_key(spec)
    changed |= ensure_mgmt(spec)
    changed |= ensure_switch(spec)
    reshape = old is not None and any(old.get(k) != v for k, v in
                                      (('rate_mbit', spec.rate_mbit), ('shaper', spec.shaper)))
    hosts = []
    for i in range(1, spec.count + 1):
        h = spec.host(i)
        if not host_running(spec, h):
            start_host(spec, h, pubkey)
            changed = True
        elif reshape:
            shape_port(spec, h['switch_port'])
            changed = True
        hosts.append(h)
    # hosts beyond the asked count (the lab shrank)
    i = spec.count + 1
    while old and i <= old.get('hosts', 0):
        changed |= stop_host(spec, spec.host(i))
        i += 1
    summary = spec_summary(spec)
    if summary != old:
        _write(os.path.join(spec.state_dir, 'lab.json'), json.dumps(summary, indent=1, sort_keys=True) + '\n')
    return changed, hosts


def down(spec):
    """Remove everything the lab made; the base cache stays unless purged."""
    changed = False
    old = saved_spec(spec) or {}
    count = max(old.get('hosts', 0), spec.count)
    prefix = old.get('host_prefix', spec.host_prefix)
    spec.host_prefix = prefix
    for i in range(1, count + 1):
        changed |= stop_host(spec, spec.host(i))
    # stray host namespaces of this lab (a count we no longer know)
    stray = re.compile(r'^%s-%s[0-9]+$' % (re.escape(spec.name), re.escape(prefix)))
    for ns in netns_list():
        if stray.match(ns):
            run(['ip', 'netns', 'del', ns])
            changed = True
    if spec.switch_ns in netns_list():
        run(['ip', 'netns', 'del', spec.switch_ns])
        changed = True
    if os.path.isdir(spec.state_dir):
        _rmtree_retry(spec.state_dir)
        changed = True
    changed |= remove_mgmt(spec)
    return changed


def status(spec):
    hosts = []
    for i in range(1, spec.count + 1):
        h = spec.host(i)
        h['running'] = host_running(spec, h)
        hosts.append(h)
    return hosts
