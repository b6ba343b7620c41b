# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The firewall and bonding roles against a private lab of three hosts, for real.

lab1 serves (a Python listener on 5201/tcp and 5201/udp, on its data address), lab2 is the
peer, lab3 a third host. With a default-drop policy on lab1, only lab2 must get through after
the firewall role ran, lab3 never, and neither after removal; a second run changes nothing;
a new SSH connection from the control node works after every run.
"""
from __future__ import annotations

import subprocess

import pytest

from conftest import run_playbook

pytestmark = pytest.mark.lab
NAME, MGMT, DATA = 'h6', '10.206.0.0/24', '10.206.1.0/24'

FIREWALL_PLAY = '''
- name: Firewall
  hosts: "{{ target }}"
  gather_facts: false
  roles:
    - role: perflab.network.firewall
'''

BONDING_PLAY = '''
- name: Bonding
  hosts: "{{ target }}"
  gather_facts: false
  roles:
    - role: perflab.network.bonding
'''

DEFAULT_DROP_NFT = '''table inet filter {
  chain input {
    type filter hook input priority filter; policy drop;
    ct state established,related accept
    iif lo accept
    tcp dport 22 accept
  }
}
'''

LISTENER = r'''
import socket, sys, threading
port = int(sys.argv[1])
def tcp():
    s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(('0.0.0.0', port)); s.listen(16)
    while True:
        c, _ = s.accept(); c.sendall(b'hello'); c.close()
def udp():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(('0.0.0.0', port))
    while True:
        data, peer = s.recvfrom(64); s.sendto(b'echo ' + data, peer)
threading.Thread(target=tcp, daemon=True).start()
udp()
'''

PROBE = r'''
import socket, sys
proto, host, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
try:
    if proto == 'tcp':
        s = socket.create_connection((host, port), timeout=2); ok = s.recv(5) == b'hello'
    else:
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.settimeout(2)
        s.sendto(b'x', (host, port)); ok = s.recvfrom(64)[0] == b'echo x'
except OSError:
    ok = False
print('open' if ok else 'closed')
'''


@pytest.fixture(scope='module')
def lab(lab_factory):
    return lab_factory(NAME, hosts=3, mgmt=MGMT, data=DATA)


@pytest.fixture(scope='module')
def plays(tmp_path_factory):
    base = tmp_path_factory.mktemp('h6plays')
    (base / 'firewall.yml').write_text(FIREWALL_PLAY)
    (base / 'bonding.yml').write_text(BONDING_PLAY)
    return base


@pytest.fixture(scope='module')
def listener(lab):
    """The test server on lab1, port 5201 TCP and UDP; killed at the end."""
    out = lab.ssh('lab1', ['sh', '-c', 'nohup python3 -c "$0" 5201 >/dev/null 2>&1 & echo $!', LISTENER], check=True)
    pid = out.stdout.strip()
    yield pid
    lab.ssh('lab1', ['kill', pid])


def data(lab, host):
    return lab.hostvars()[host]['perflab_data_address']


def reach(lab, src, proto='tcp'):
    out = lab.ssh(src, ['python3', '-c', PROBE, proto, data(lab, 'lab1'), '5201'], check=True)
    return out.stdout.strip()


def ssh_works(lab, host):
    return lab.ssh(host, ['true'], timeout=30).returncode == 0


def sh(lab, host, script, *args):
    return lab.ssh(host, ['sh', '-c', script, 'sh'] + list(args), check=True).stdout


def firewall(lab, plays, check=False, **variables):
    res = run_playbook(str(plays / 'firewall.yml'), lab.inventory, dict(target='lab1', **variables), check=check)
    assert res.rc == 0, res.stdout[-4000:] + res.stderr[-2000:]
    assert ssh_works(lab, 'lab1'), 'a new SSH connection to lab1 fails after the firewall role ran'
    return res.stats['lab1']['changed']


def nft_ruleset(lab):
    return sh(lab, 'lab1', 'nft list ruleset')


def test_nftables_lets_only_the_peer_in_and_removal_is_exact(lab, plays, listener):
    sh(lab, 'lab1', 'nft flush ruleset && printf "%s" "$1" | nft -f -', DEFAULT_DROP_NFT)
    before = nft_ruleset(lab)
    assert (reach(lab, 'lab2'), reach(lab, 'lab3')) == ('closed', 'closed')
    peer = {'firewall_peer_addresses': [data(lab, 'lab2')]}

    assert firewall(lab, plays, **peer) >= 1
    assert reach(lab, 'lab2') == 'open' and reach(lab, 'lab2', 'udp') == 'open'
    assert reach(lab, 'lab3') == 'closed' and reach(lab, 'lab3', 'udp') == 'closed'
    assert 'comment "perflab:tcp4:' in nft_ruleset(lab)

    assert firewall(lab, plays, **peer) == 0

    # check mode with another peer: reported, not done
    opened = nft_ruleset(lab)
    assert firewall(lab, plays, check=True, firewall_peer_addresses=[data(lab, 'lab3')]) >= 1
    assert nft_ruleset(lab) == opened and reach(lab, 'lab3') == 'closed'

    assert firewall(lab, plays, firewall_state='absent') >= 1
    assert reach(lab, 'lab2') == 'closed'
    assert nft_ruleset(lab) == before
    assert firewall(lab, plays, firewall_state='absent') == 0


def test_nftables_off_and_restored(lab, plays, listener):
    sh(lab, 'lab1', 'nft flush ruleset && printf "%s" "$1" | nft -f -', DEFAULT_DROP_NFT)
    before = nft_ruleset(lab)
    assert firewall(lab, plays, firewall_state='disabled') >= 1
    assert nft_ruleset(lab).strip() == '' and reach(lab, 'lab3') == 'open'
    assert sh(lab, 'lab1', 'cat /var/lib/perflab/firewall/disabled-backend').strip() == 'nftables'
    assert firewall(lab, plays, firewall_state='disabled') == 0
    assert firewall(lab, plays, firewall_state='restored') >= 1
    assert nft_ruleset(lab) == before and reach(lab, 'lab3') == 'closed'
    assert firewall(lab, plays, firewall_state='restored') == 0
    sh(lab, 'lab1', 'nft flush ruleset')


def test_iptables_backend_installed_and_picked_when_it_filters(lab, plays, listener):
    sh(lab, 'lab1', 'nft flush ruleset')
    # the lab hosts have no iptables: the role installs it (nothing to remove yet)
    firewall(lab, plays, firewall_state='absent', firewall_backend='iptables', firewall_install_backend=True)
    sh(lab, 'lab1', 'iptables -A INPUT -m conntrack --ctstate ESTABLISHED,RELATED -j ACCEPT && '
                    'iptables -A INPUT -i lo -j ACCEPT && iptables -A INPUT -p tcp --dport 22 -j ACCEPT && '
                    'iptables -P INPUT DROP')
    before = sh(lab, 'lab1', 'iptables -S')
    assert (reach(lab, 'lab2'), reach(lab, 'lab3')) == ('closed', 'closed')
    peer = {'firewall_peer_addresses': [data(lab, 'lab2')]}
    try:
        assert firewall(lab, plays, **peer) >= 1  # backend auto: iptables filters, so iptables
        assert '-N PERFLAB-INPUT' in sh(lab, 'lab1', 'iptables -S')
        assert reach(lab, 'lab2') == 'open' and reach(lab, 'lab2', 'udp') == 'open'
        assert reach(lab, 'lab3') == 'closed'
        assert firewall(lab, plays, **peer) == 0
        assert firewall(lab, plays, firewall_state='absent') >= 1
        assert sh(lab, 'lab1', 'iptables -S') == before and reach(lab, 'lab2') == 'closed'
        assert firewall(lab, plays, firewall_state='absent') == 0

        assert firewall(lab, plays, firewall_state='disabled') >= 1
        assert reach(lab, 'lab3') == 'open'
        assert firewall(lab, plays, firewall_state='restored') >= 1
        assert sh(lab, 'lab1', 'iptables -S') == before and reach(lab, 'lab3') == 'closed'
    finally:
        sh(lab, 'lab1', 'iptables -P INPUT ACCEPT; iptables -F; iptables -X; rm -rf /var/lib/perflab/firewall')


def test_bond_refused_before_any_change_on_a_kernel_without_bonding(lab, plays):
    """A namespace host shares this machine's kernel, which has no bonding: the role refuses with
    the kernel's reason before it writes anything. The live bond (ifupdown, balance-alb, MTU 9000,
    traffic, removal) runs on VM lab hosts: tests/integration/test_vm_lab.py."""
    sh(lab, 'lab2', 'ip link add h6b0 type veth peer name h6b1 && ip link add h6b2 type veth peer name h6b3')
    try:
        res = run_playbook(str(plays / 'bonding.yml'), lab.inventory, dict(
            target='lab2', bonding_stack='ifupdown', bonding_members=['h6b0', 'h6b2'], bonding_mode='active-backup',
            bonding_address='10.206.1.99/24'))
        assert res.rc != 0 and 'cannot make bonds' in res.stdout, res.stdout[-3000:]
        assert sh(lab, 'lab2', 'ls /etc/network/interfaces.d 2>/dev/null || true').strip() == ''
        assert sh(lab, 'lab2', 'test -e /sys/class/net/bond0 && echo bond || echo none').strip() == 'none'
        assert ssh_works(lab, 'lab2')
    finally:
        lab.ssh('lab2', ['sh', '-c', 'ip link del h6b0; ip link del h6b2; ip link del bond0'])
