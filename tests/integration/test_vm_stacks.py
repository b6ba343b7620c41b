# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The seeds' other network stacks on VM lab hosts (``make test-vm``): netplan, ufw, firewalld on iptables.

The Ubuntu 18.04/18.10 rows of the seeds ran netplan and ufw, the CentOS 7 / Scientific Linux 7 rows
firewalld on its iptables backend. No registry here has those systems' images, so these cases run
Debian's builds of the same software (netplan.io, ufw, firewalld with ``FirewallBackend=iptables``,
iptables) on Debian's kernel: the closest a test gets to those rows (the roles' support tables say so).

For each suite of PERFLAB_VM_SUITES (bookworm, trixie: bullseye's netplan.io 0.101 is older than the
rows' own and is not run) one pair with its data links on one bridge, saved and restored before
each case, and for 802.3ad a pair with point-to-point links:

  netplan (networkd renderer)        balance-alb, MTU 9000: the bonding role on a host whose
                                     /etc/netplan holds its stack (detected), jumbo frames, iperf3
  netplan (NetworkManager renderer)  802.3ad over the point-to-point links, MTU 9000
  netplan bond, then the mtu role    the bond built at 1500, the mtu role on bond0 (the case that
                                     once wrote ``ethernets: bond0``, which netplan refuses)
  netplan mtu on eth1                the mtu role on a data NIC netplan manages
  ufw                                enabled, default deny incoming, SSH allowed: the role's openings
  firewalld on iptables              the openings, and a reload of firewalld while they are open

Each bond: a second run changes nothing, and the removal leaves ``netplan get``, the files netplan
generated and ``ip -j addr`` as they were. Each firewall: only the peer's address reaches the ports (a
third address of its subnet is refused), a test passes through them, and the firewall's own state
(``ufw status verbose`` and its rule files; firewalld's zones and the iptables rules) is back byte
for byte after the removal.
"""
from __future__ import annotations

import json
import os

import pytest

from conftest import run_playbook
from test_vm_lab import data, openings_let_only_the_peer_in, role, same_state, sh, snapshot
from test_vm_matrix import MANAGE_ETH1, bond_case, jumbo_path_then_mtu_removed, plays  # noqa: F401 pylint: disable=unused-import

pytestmark = [pytest.mark.lab, pytest.mark.vm_matrix]
# netplan.io in Debian: 0.106 in bookworm, 1.1 in trixie; bullseye's 0.101 is left out
SUITES = [s for s in os.environ.get('PERFLAB_VM_SUITES', 'bookworm trixie').split() if s != 'bullseye']
# each release's pairs: a name and two subnets each (bridge, point-to-point)
LABS = {'bookworm': (('vmn37', '10.156.0.0/24', '10.156.1.0/24'), ('vmn37p', '10.158.0.0/24', '10.158.1.0/24')),
        'trixie': (('vmn37b', '10.157.0.0/24', '10.157.1.0/24'), ('vmn37q', '10.158.2.0/24', '10.158.3.0/24'))}
DAEMON = {'networkd': 'systemd-networkd', 'NetworkManager': 'NetworkManager'}

# what netplan makes of /etc/netplan and what it generated from it, and the data NICs' addresses: the
# same after a removal as before (eth0 is left out: its SLAAC address from QEMU's network counts its
# lifetimes down, so its ip -j addr differs from one second to the next)
NETPLAN_FILES = ('netplan get; ls -l /etc/netplan; cat /etc/netplan/*.yaml;'
                 ' for f in /run/systemd/network/*netplan* /run/NetworkManager/system-connections/netplan-*; do'
                 ' [ -e "$f" ] && echo "$f" && cat "$f"; done; ip -j addr show dev eth1')
NETPLAN_STATE = NETPLAN_FILES + '; ip -j addr show dev eth2'


def _pair(lab_factory, suite, which, links):
    name, mgmt, data_net = LABS[suite][which]
    # a loaded 2-core machine has doubled a boot under TCG: 300 s were not enough for one measured here
    lab = lab_factory(name, hosts=2, mgmt=mgmt, data=data_net, kind='vm', debian_suite=suite, vm_links=links,
                      vm_boot_timeout=900)
    snapshot(lab, 'snapshot')
    return lab


@pytest.fixture(scope='module', params=SUITES)
def stacks_lab(request, lab_factory):
    lab = _pair(lab_factory, request.param, 0, 'bridge')
    yield lab
    lab.down()


@pytest.fixture(scope='module', params=SUITES)
def stacks_p2p_lab(request, lab_factory):
    lab = _pair(lab_factory, request.param, 1, 'p2p')
    yield lab
    lab.down()


def netplan_host(renderer, eth1=False):
    """A host whose network stack is netplan with ``renderer``, as an installed Ubuntu's: its file in
    /etc/netplan (with eth1's stock address when ``eth1``), the renderer's daemon running."""
    def prepare(lab, host):
        text = 'network:\n  version: 2\n  renderer: %s\n' % renderer
        if eth1:
            text += '  ethernets:\n    eth1:\n      addresses: [%s/24]\n' % data(lab, host)
        sh(lab, host, 'printf "%s" "$1" >/etc/netplan/01-stock.yaml && chmod 600 /etc/netplan/01-stock.yaml'
           ' && systemctl start "$2" && netplan apply', text, DAEMON[renderer])
    return prepare


def netplan_bond(lab, host):
    """The bond is netplan's (the stack was detected): its file, and netplan reads it back."""
    assert sh(lab, host, 'netplan get bonds.bond0.interfaces').split() == ['-', 'eth1', '-', 'eth2']


@pytest.mark.parametrize('renderer', ['networkd'])
def test_netplan_balance_alb_jumbo_bond(stacks_lab, plays, tmp_path, renderer):
    bond_case(stacks_lab, plays, tmp_path, dict(bonding_mode='balance-alb', bonding_mtu=9000),
              prepare=netplan_host(renderer), state=NETPLAN_STATE, built=netplan_bond)


@pytest.mark.parametrize('renderer', ['NetworkManager'])
def test_netplan_lacp_jumbo_bond(stacks_p2p_lab, plays, tmp_path, renderer):
    bond_case(stacks_p2p_lab, plays, tmp_path, dict(bonding_mode='802.3ad', bonding_mtu=9000,
                                                    bonding_xmit_hash_policy='layer3+4'),
              prepare=netplan_host(renderer), state=NETPLAN_STATE, built=netplan_bond)


def mtu_9000_under_netplan(lab, plays, interface):
    """The mtu role at 9000 on ``interface`` of both hosts (lab2 checks the path to lab1), netplan detected."""
    mtu = dict(mtu_interfaces=[dict(name=interface, mtu=9000)])
    for host, peer in (('lab1', 'lab2'), ('lab2', 'lab1')):
        res = role(lab, plays, 'mtu', host, mtu_verify_peer=data(lab, peer) if host == 'lab2' else '', **mtu)
        assert res.rc == 0, res.stdout[-4000:]
        assert 'network stack netplan (detected)' in res.stdout, res.stdout[-3000:]
    return mtu


def test_netplan_mtu_on_a_bond(stacks_lab, plays):
    """The bond built at MTU 1500, then the mtu role on bond0 at 9000 (the jumbo-bond study's tuned
    step): netplan must still read /etc/netplan (a bond given as ``ethernets: bond0`` is refused), the
    bond and its members carry 9000, and both removals leave netplan and the addresses as they were."""
    lab = stacks_lab
    snapshot(lab, 'revert')
    for host in ('lab1', 'lab2'):
        netplan_host('networkd')(lab, host)
    stock = {h: sh(lab, h, NETPLAN_STATE) for h in ('lab1', 'lab2')}
    bond = dict(bonding_mode='balance-alb', bonding_members=['eth1', 'eth2'],
                bonding_address='{{ perflab_data_address }}/{{ perflab_data_prefix }}')
    res = role(lab, plays, 'bonding', 'lab1:lab2', **bond)
    assert res.rc == 0, res.stdout[-5000:]
    mtu = mtu_9000_under_netplan(lab, plays, 'bond0')
    for host in ('lab1', 'lab2'):
        assert sh(lab, host, 'netplan generate && echo ok').strip() == 'ok'
        assert sh(lab, host, 'netplan get bonds.bond0.mtu').strip() == '9000'
        assert sh(lab, host, 'netplan get ethernets.bond0').strip() in ('', 'null')
        assert sh(lab, host, 'cat /sys/class/net/bond0/mtu /sys/class/net/eth1/mtu /sys/class/net/eth2/mtu').split() == \
            ['9000'] * 3
    for _host in jumbo_path_then_mtu_removed(lab, plays, mtu, 'bond0'):
        pass
    gone = role(lab, plays, 'bonding', 'lab1:lab2', bonding_state='absent')
    assert gone.rc == 0, gone.stdout[-4000:]
    for host in ('lab1', 'lab2'):
        same_state(lab, host, NETPLAN_STATE, stock[host])
    assert sh(lab, 'lab2', 'ping -c 1 -W 5 "$1" >/dev/null && echo ok', data(lab, 'lab1')).strip() == 'ok'


@pytest.mark.parametrize('renderer', ['networkd', 'NetworkManager'])
def test_netplan_mtu_on_a_data_nic(stacks_lab, plays, renderer):
    """The mtu role on eth1 whose stock address is in /etc/netplan: netplan detected, MTU 9000 in
    netplan's view of eth1, the path check, and the removal back to netplan's stock view."""
    lab = stacks_lab
    snapshot(lab, 'revert')
    for host in ('lab1', 'lab2'):
        netplan_host(renderer, eth1=True)(lab, host)
    # eth1 and netplan's files only: eth2 is not netplan's here, and with the NetworkManager renderer it is
    # NetworkManager's own (its automatic profile): its link-local address went during a case once, while
    # the role touches eth1 alone and runs no netplan apply
    stock = {h: sh(lab, h, NETPLAN_FILES) for h in ('lab1', 'lab2')}
    mtu_9000_under_netplan(lab, plays, 'eth1')
    for host in ('lab1', 'lab2'):
        assert sh(lab, host, 'cat /sys/class/net/eth1/mtu').strip() == '9000'
        assert sh(lab, host, 'netplan get ethernets.eth1.mtu').strip() == '9000'
    assert sh(lab, 'lab2', 'ping -M do -s 8972 -c 2 -W 5 "$1" >/dev/null && echo ok', data(lab, 'lab1')).strip() == 'ok'
    for host in ('lab1', 'lab2'):
        gone = role(lab, plays, 'mtu', host, mtu_state='absent')
        assert gone.rc == 0, gone.stdout[-4000:]
        assert sh(lab, host, 'cat /sys/class/net/eth1/mtu').strip() == '1500'
        same_state(lab, host, NETPLAN_FILES, stock[host])


UFW_STATE = 'ufw status verbose; cd /etc/ufw && md5sum ufw.conf ./*.rules'
# ufw as an Ubuntu server has it: enabled, default deny incoming, the management SSH rule
UFW_START = ('ufw default deny incoming >/dev/null && ufw allow 22/tcp >/dev/null && ufw --force enable >/dev/null'
             ' && ufw status | grep -q "^22/tcp .*ALLOW"')


def test_ufw_opens_the_plan_ports_to_the_peer_only_and_closes_them(stacks_lab, plays, tmp_path):
    """ufw enabled with default deny incoming and the management SSH rule (as an Ubuntu server has
    it): the rule stays through the run, and ufw's status and rule files are back byte for byte."""
    lab = stacks_lab
    snapshot(lab, 'revert')
    openings_let_only_the_peer_in(
        lab, plays, tmp_path, UFW_START, UFW_STATE, during='ufw status | grep -q "^22/tcp .*ALLOW"')


FIREWALLD_IPTABLES = ("sed -i 's/^FirewallBackend=.*/FirewallBackend=iptables/' /etc/firewalld/firewalld.conf"
                      ' && systemctl start firewalld && firewall-cmd --state'
                      # the iptables backend really: its chains in iptables, no table of its own in nftables
                      ' && iptables -S | grep -q "^-N IN_public" && ! nft list tables | grep -q "inet firewalld"')
# counters (packets, bytes) left out: they move with every packet
FIREWALLD_STATE = ("firewall-cmd --list-all; firewall-cmd --permanent --list-all; ls -l /etc/firewalld/zones;"
                   " iptables-save | grep -v '^#' | sed 's/\\[[0-9]*:[0-9]*\\]//'")


def test_firewalld_on_iptables_keeps_the_openings_through_a_reload(stacks_lab, plays, tmp_path):
    """firewalld on its iptables backend (CentOS 7's): the same openings, and a reload of firewalld
    while they are open (a package update or an administrator does one) does not drop them."""
    lab = stacks_lab
    snapshot(lab, 'revert')
    openings_let_only_the_peer_in(lab, plays, tmp_path, FIREWALLD_IPTABLES, FIREWALLD_STATE,
                                  during='firewall-cmd --reload')


# the seeds' stacks: the Ubuntu 18.04/18.10 rows (netplan and ufw) and the CentOS 7 / Scientific Linux 7
# rows (NetworkManager, firewalld on iptables, tuned); the label says which rows the pair stands in for, in
# the seeds' form ("<system label> <OS> <full version> stock|tuned-<profile>")
STUDY_STACKS = {
    'ubuntu-rows': dict(label='netplan+ufw', prepare=(netplan_host('networkd', eth1=True), UFW_START),
                        state=NETPLAN_STATE + '; ' + UFW_STATE),
    'el-rows': dict(label='NetworkManager+firewalld-iptables+tuned',
                    prepare=(MANAGE_ETH1['networkmanager'], FIREWALLD_IPTABLES + ' && systemctl start tuned'),
                    state=('nmcli -g 802-3-ethernet.mtu,ipv4.addresses connection show stock-eth1; tuned-adm active; '
                           + FIREWALLD_STATE)),
}


@pytest.mark.parametrize('stacks', sorted(STUDY_STACKS))
def test_stock_vs_tuned_study_on_the_seeds_stacks(stacks_lab, tmp_path, stacks):
    """stock vs tuned through the study flow (iperf3's quick tests, one repetition, MTU 9000 in the tuned
    configuration): the firewall stage opens the ports with ufw or firewalld on iptables, the configure
    stage sets the MTU through netplan or NetworkManager (and the profile through tuned), every test
    passes under both labels, and the hosts are back as they were."""
    lab = stacks_lab
    snapshot(lab, 'revert')
    case = STUDY_STACKS[stacks]
    network, firewall = case['prepare']
    for host in ('lab1', 'lab2'):
        if callable(network):
            network(lab, host)
        else:
            sh(lab, host, network, data(lab, host))
        sh(lab, host, firewall)
    before = {h: sh(lab, h, case['state']) for h in ('lab1', 'lab2')}
    run_id = 'vmn-' + stacks
    res = run_playbook('playbooks/stock_vs_tuned.yml', lab.inventory, dict(
        perflab_suite='quick', benchmark_tools=['iperf3'], perflab_duration=2, perflab_repetitions=1,
        perflab_tuned_mtu=9000, perflab_system_label=case['label'], perflab_run_id=run_id,
        perflab_results_dir=str(tmp_path)), env={'PERFLAB_RESULTS_DIR': str(tmp_path)})
    assert res.rc == 0, res.stdout[-6000:]
    base = '%s Debian %s' % (case['label'], sh(lab, 'lab1', 'cat /etc/debian_version').strip())
    records = [json.loads(line) for line in (tmp_path / (run_id + '.jsonl')).read_text().splitlines()
               if line.strip() and json.loads(line).get('schema') == 'perflab.result/2']
    labels = {}
    for r in records:
        assert r['status'] == 'ok', (r['config'], r['test_id'], r['error'])
        labels.setdefault(r['config'], []).append(r['test_id'])
    assert sorted(labels) == [base + ' stock', base + ' tuned-throughput'], sorted(labels)
    assert sorted(labels[base + ' stock']) == sorted(labels[base + ' tuned-throughput']) != []
    for host in ('lab1', 'lab2'):
        same_state(lab, host, case['state'], before[host])
