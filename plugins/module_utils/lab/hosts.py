# -*- coding: utf-8 -*-
# Copyright: perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Lab hosts: start one (namespace, management and data links, overlay root,
seeded files, sshd as pid 1 of its own pid namespace), stop one, check one,
and the lab's SSH key."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os
import shutil
import signal
import subprocess

from ansible_collections.perflab.network.plugins.module_utils.lab.links import set_offloads, shape_port
from ansible_collections.perflab.network.plugins.module_utils.lab.spec import SWITCH_PORT_MTU
from ansible_collections.perflab.network.plugins.module_utils.lab.util import (
    LabError, _rmtree_retry, _write, ip, link_exists, netns_list, port_open, read_pid, run, wait_for,
)

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


# lab_firewall=default-deny: what a hardened host runs. Inbound traffic is dropped but replies,
# loopback, ICMP (the benchmark preflight pings the data addresses; IPv6 needs neighbour
# discovery) and SSH from the management subnet; the study's firewall stage (the firewall role's
# nftables backend) must open every test port. One transaction: the table is replaced whole.
FIREWALL_DEFAULT_DENY = '''table inet filter
delete table inet filter
table inet filter {
  chain input {
    type filter hook input priority filter; policy drop;
    ct state established,related accept
    ct state invalid drop
    iif lo accept
    meta l4proto { icmp, ipv6-icmp } accept
    ip saddr %(mgmt_subnet)s tcp dport 22 accept
  }
}
'''


def apply_firewall(spec, h):
    """Load the lab's firewall (spec.firewall) into the host's network namespace."""
    if spec.firewall == 'default-deny':
        run(['ip', 'netns', 'exec', h['netns'], 'nft', '-f', '-'],
            input_text=FIREWALL_DEFAULT_DENY % {'mgmt_subnet': spec.mgmt_subnet})
    else:
        run(['ip', 'netns', 'exec', h['netns'], 'nft', 'flush', 'ruleset'])


def host_running(spec, h):
    return (h['netns'] in netns_list() and read_pid(h['pidfile']) is not None
            and port_open(h['mgmt_address'], 22, timeout=5))


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


def no_dad(ns, dev):
    """No IPv6 duplicate address detection on a lab link (set before it comes up).

    Else its link-local address is "tentative" for a second or two after the lab is up: the host
    changes by itself while the first tests look at it. The lab's links are veths on one bridge,
    where no other host can hold the address.
    """
    run(['ip', 'netns', 'exec', ns, 'sysctl', '-qw', 'net.ipv6.conf.%s.accept_dad=0' % dev])


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
    no_dad(ns, 'mgmt0')
    ip(ns, 'link', 'set', 'mgmt0', 'up')
    ip(ns, 'route', 'add', 'default', 'via', spec.gateway())
    # data NIC: veth to the switch
    ip(spec.switch_ns, 'link', 'add', h['switch_port'], 'type', 'veth', 'peer', 'name', 'data0', 'netns', ns)
    ip(spec.switch_ns, 'link', 'set', h['switch_port'], 'mtu', str(SWITCH_PORT_MTU), 'master', 'br0', 'up')
    ip(ns, 'link', 'set', 'data0', 'mtu', str(spec.mtu))
    ip(ns, 'addr', 'add', '%s/%d' % (h['data_address'], h['data_prefix']), 'dev', 'data0')
    no_dad(ns, 'data0')
    ip(ns, 'link', 'set', 'data0', 'up')
    if not spec.offloads:
        set_offloads(ns, 'data0', False)
        set_offloads(spec.switch_ns, h['switch_port'], False)
    shape_port(spec, h['switch_port'])
    apply_firewall(spec, h)

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
    # a loaded machine (other labs starting beside this one) can make one banner read time out:
    # only a dead init or 60 s without a banner is a failure
    if wait_for(lambda: port_open(h['mgmt_address'], 22, timeout=2) or proc.poll() is not None, 60) \
            and proc.poll() is None:
        return True
    with open(os.path.join(h['dir'], 'init.log')) as f:
        detail = f.read()[-2000:]
    state = 'still running' if proc.poll() is None else 'exited with %s' % proc.returncode
    raise LabError('lab host %s did not start its sshd on %s:22 (its init %s): %s'
                   % (h['name'], h['mgmt_address'], state, detail))


def ensure_key(spec):
    if not os.path.exists(spec.key_file):
        os.makedirs(os.path.dirname(spec.key_file), exist_ok=True)
        os.chmod(os.path.dirname(spec.key_file), 0o700)
        run(['ssh-keygen', '-q', '-t', 'ed25519', '-N', '', '-C', 'perflab-lab-%s' % spec.name, '-f', spec.key_file])
    with open(spec.key_file + '.pub') as f:
        return f.read()
