# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The configuration roles on VM lab hosts of each Debian release: ``make test-vm``.

For each suite of PERFLAB_VM_SUITES (bullseye, bookworm, trixie) one pair of VMs with both data
links on one bridge is booted, saved, and restored before each case, and for 802.3ad a pair with
point-to-point links (a Linux bridge drops LACP frames; balance-alb and active-backup need one
segment):

  ifupdown          balance-alb, MTU 9000
  NetworkManager    802.3ad (LACP over the point-to-point links), layer3+4, MTU 9000
  systemd-networkd  active-backup; the active member's link is cut while iperf3 runs: the test
                    goes on over the other member, and the failover shows in the bond's counters

Each case: the bond as the role builds it (mode, members, MTU on bond and members), jumbo frames
across it, an iperf3 test through it, a second run that changes nothing, and the removal back to
the stock addresses. The mtu role on eth1 managed by each of the three stacks (detected, MTU 9000
persisted where the stack keeps it, the path check, back to 1500). Also, written once in test_vm_lab.py and run here on each release:
firewalld's openings (scoped to the peer, a third address refused, removed after), tuned's
profile applied and reverted, and the management guard with the opt-in (a bond over eth0 that
cuts SSH, rolled back by the host's own timer). Not in ``make test`` (about 25 minutes a suite
under TCG): its Debian 12 subset is tests/integration/test_vm_lab.py.
"""
from __future__ import annotations

import json
import os
import time
from types import SimpleNamespace

import pytest

from ansible_collections.perflab.network.plugins.module_utils.lab import vm as lab_vm

from conftest import run_playbook
from test_vm_lab import (data, firewalld_opens_the_plan_ports_to_the_peer_only_and_closes_them, iperf3,
                         management_change_refused_then_rolled_back, role, same_state, sh, snapshot,
                         tuned_profile_applied_and_reverted)

pytestmark = [pytest.mark.lab, pytest.mark.vm_matrix]
SUITES = os.environ.get('PERFLAB_VM_SUITES', 'bullseye bookworm trixie').split()
NUMBER = {'bullseye': 11, 'bookworm': 12, 'trixie': 13}

CASES = {
    'ifupdown-balance-alb': dict(bonding_stack='ifupdown', bonding_mode='balance-alb', bonding_mtu=9000),
    'networkmanager-802.3ad': dict(bonding_stack='networkmanager', bonding_mode='802.3ad', bonding_mtu=9000,
                                   bonding_xmit_hash_policy='layer3+4'),
    'networkd-active-backup': dict(bonding_stack='networkd', bonding_mode='active-backup'),
}
# the daemon each stack needs (installed in the image, disabled at boot)
DAEMON = {'networkmanager': 'NetworkManager', 'networkd': 'systemd-networkd'}


def _suite_pair(lab_factory, name, suite, subnet, links):
    n = NUMBER[suite]
    lab = lab_factory('%s%d' % (name, n), hosts=2, mgmt='%s.%d.0/24' % (subnet, 2 * n),
                      data='%s.%d.0/24' % (subnet, 2 * n + 1), kind='vm', debian_suite=suite, vm_links=links)
    snapshot(lab, 'snapshot')
    return lab


@pytest.fixture(scope='module', params=SUITES)
def suite_lab(request, lab_factory):
    """The release's pair with its data links on one bridge (one segment: balance-alb, active-backup)."""
    lab = _suite_pair(lab_factory, 'vmx', request.param, '10.225', 'bridge')
    yield lab
    lab.down()  # the next release's pair boots on a quieter machine


@pytest.fixture(scope='module', params=SUITES)
def suite_p2p_lab(request, lab_factory):
    """The release's pair with point-to-point links (eth1-eth1, eth2-eth2), which carry LACP frames;
    balance-alb and active-backup need one segment and fail here (each end may pick another member)."""
    lab = _suite_pair(lab_factory, 'vmp', request.param, '10.226', 'p2p')
    yield lab
    lab.down()


@pytest.fixture(scope='module')
def plays(tmp_path_factory):
    from test_vm_lab import IPERF3_PLAY, ROLE_PLAY
    base = tmp_path_factory.mktemp('vmxplays')
    (base / 'role.yml').write_text(ROLE_PLAY)
    (base / 'iperf3.yml').write_text(IPERF3_PLAY)
    return base


def monitor(lab, host, command):
    """An HMP command on the VM's monitor (set_link cuts a data link as a pulled cable does)."""
    return lab_vm.monitor(SimpleNamespace(state_dir='/var/lib/perflab/%s' % lab.name), {'name': host}, command)


@pytest.mark.parametrize('case', sorted(c for c in CASES if CASES[c]['bonding_mode'] != '802.3ad'))
def test_bond_on_each_stack(suite_lab, plays, tmp_path, case):
    bond_case(suite_lab, plays, tmp_path, case)


def bond_case(lab, plays, tmp_path, case, prepare=None, state=None, built=None):
    """The bond of CASES[case] (or the mapping ``case``) between lab1 and lab2 from their stock state;
    ``prepare`` (a function of the lab and a host) sets a host up first, ``built`` (one too) checks it
    once the bond is up, and what ``state`` (a shell command) prints on each host is the same after the
    removal as before the bond."""
    snapshot(lab, 'revert')
    bond = dict(CASES[case] if isinstance(case, str) else case, bonding_members=['eth1', 'eth2'],
                bonding_address='{{ perflab_data_address }}/{{ perflab_data_prefix }}')
    stack = bond.get('bonding_stack', 'auto')
    stock = {h: sh(lab, h, 'ip -j addr show dev eth1') for h in ('lab1', 'lab2')}
    for host in ('lab1', 'lab2'):
        if prepare:
            prepare(lab, host)
        if stack in DAEMON:
            sh(lab, host, 'systemctl start "$1"', DAEMON[stack])
    # the data NICs report 10000 Mbit/s (the lab gives QEMU's virtio NIC a speed): without one the kernel
    # keeps the members of a balance-alb or 802.3ad bond down, and LACP aggregates only links of a known speed
    assert sh(lab, 'lab1', 'cat /sys/class/net/eth1/speed /sys/class/net/eth2/speed').split() == ['10000'] * 2
    stocked = {h: sh(lab, h, state) for h in ('lab1', 'lab2')} if state else {}
    res = role(lab, plays, 'bonding', 'lab1:lab2', **bond)
    assert res.rc == 0, res.stdout[-5000:]
    mtu = str(bond.get('bonding_mtu') or 1500)
    for host in ('lab1', 'lab2'):
        if built:
            built(lab, host)
        assert sh(lab, host, 'cat /sys/class/net/bond0/bonding/mode').split()[0] == bond['bonding_mode']
        assert sh(lab, host, 'cat /sys/class/net/bond0/mtu /sys/class/net/eth1/mtu /sys/class/net/eth2/mtu').split() == \
            [mtu] * 3
    if bond['bonding_mode'] == '802.3ad':
        agg = sh(lab, 'lab1', 'cat /proc/net/bonding/bond0')
        assert agg.count('Aggregator ID: ') >= 3 and 'Number of ports: 2' in agg, agg
    ping_size = int(mtu) - 28
    assert sh(lab, 'lab2', 'ping -M do -s "$1" -c 2 -W 5 "$2" >/dev/null && echo ok', str(ping_size),
              data(lab, 'lab1')).strip() == 'ok'
    if bond['bonding_mode'] == 'active-backup':
        active = sh(lab, 'lab2', 'cat /sys/class/net/bond0/bonding/active_slave').strip()
        sh(lab, 'lab1', 'iperf3 -s -1 -D -B "$1"', data(lab, 'lab1'))
        # pull lab2's active member's cable (QEMU's set_link) 4 s into a 15 s test
        nic = {'eth1': 'data1', 'eth2': 'data2'}[active]
        import threading
        cut_at = []

        def cut_when_the_test_runs():
            deadline = time.time() + 240
            while time.time() < deadline:
                running = sh(lab, 'lab1', "ss -Htn state established '( sport = :5201 )' | wc -l", check=False)
                if running.strip() not in ('', '0'):
                    time.sleep(4)
                    monitor(lab, 'lab2', 'set_link %s off' % nic)
                    cut_at.append(time.time())
                    return
                time.sleep(1)

        cut = threading.Thread(target=cut_when_the_test_runs)
        cut.start()
        try:
            out = tmp_path / 'record.json'
            res = run_playbook(str(plays / 'iperf3.yml'), lab.inventory, dict(
                client='lab2', server=data(lab, 'lab1'), duration=15, record_file=str(out), nic='bond0'))
        finally:
            cut.join()
        assert res.rc == 0, res.stdout[-4000:]
        assert cut_at, 'the test never ran, no link was cut'
        after = sh(lab, 'lab2', 'cat /sys/class/net/bond0/bonding/active_slave').strip()
        assert after != active, 'no failover: %s still active' % active
        # the test went on over the other member, and its record says what the bond went through
        record = json.loads(out.read_text())[0]
        assert record['status'] == 'ok' and record['metrics']['throughput_mbps']['value'] > 0, record
        assert any('active member changed from %s to %s' % (active, after) in note for note in record['notes']), \
            record['notes']
        monitor(lab, 'lab2', 'set_link %s on' % nic)
    else:
        record = iperf3(lab, plays, tmp_path, nic='bond0')
        assert record['status'] == 'ok' and record['metrics']['throughput_mbps']['value'] > 0, record
        assert (record['client']['interface'], record['client']['mtu']) == ('bond0', int(mtu)), record['client']
        if mtu == '9000':
            # the jumbo frames took: TCP's MSS through MTU 9000 (9000 - 20 - 20 - 12 of timestamps)
            assert record['metrics']['mss_bytes']['value'] == 8948, record['metrics']
    again = role(lab, plays, 'bonding', 'lab1:lab2', **bond)
    assert again.rc == 0 and again.stats['lab1']['changed'] == 0, again.stdout[-3000:]
    gone = role(lab, plays, 'bonding', 'lab1:lab2', bonding_stack=stack, bonding_state='absent')
    assert gone.rc == 0, gone.stdout[-4000:]
    for host in ('lab1', 'lab2'):
        assert sh(lab, host, 'test -e /sys/class/net/bond0 && echo bond || echo none').strip() == 'none'
        same_state(lab, host, 'ip -j addr show dev eth1', stock[host])
        assert sh(lab, host, 'cat /sys/class/net/eth1/mtu').strip() == '1500'
        if stack == 'ifupdown':
            assert sh(lab, host, 'ls /etc/network/interfaces.d').strip() == ''
        if state:
            same_state(lab, host, state, stocked[host])
    assert sh(lab, 'lab2', 'ping -c 1 -W 5 "$1" >/dev/null && echo ok', data(lab, 'lab1')).strip() == 'ok'


def jumbo_path_then_mtu_removed(lab, plays, mtu, interface):
    """After the mtu role at 9000: 8972 bytes cross unfragmented, a second run changes nothing, and the
    removal puts ``interface`` back to 1500 on each host (yielded after its removal, for more checks)."""
    assert sh(lab, 'lab2', 'ping -M do -s 8972 -c 2 -W 5 "$1" >/dev/null && echo ok', data(lab, 'lab1')).strip() == 'ok'
    again = role(lab, plays, 'mtu', 'lab1', mtu_verify_peer='', **mtu)
    assert again.rc == 0 and again.stats['lab1']['changed'] == 0, again.stdout[-3000:]
    for host in ('lab1', 'lab2'):
        gone = role(lab, plays, 'mtu', host, mtu_state='absent')
        assert gone.rc == 0, gone.stdout[-4000:]
        assert sh(lab, host, 'cat /sys/class/net/%s/mtu' % interface).strip() == '1500'
        yield host


# each stack made to manage eth1 with its stock address, as on a server installed with that stack
MANAGE_ETH1 = {
    'ifupdown': ('printf "auto eth1\\niface eth1 inet static\\n    address %s/24\\n" "$1" >/etc/network/interfaces.d/eth1'
                 ' && ip addr flush dev eth1 && ifup eth1'),
    # (not named eth1: NetworkManager has made an in-memory "eth1" for the address it found there)
    'networkmanager': ('systemctl start NetworkManager && nmcli connection add type ethernet ifname eth1'
                       ' con-name stock-eth1 ipv4.method manual ipv4.addresses "$1/24" ipv6.method disabled >/dev/null'
                       ' && nmcli connection up stock-eth1 >/dev/null'),
    'networkd': ('printf "[Match]\\nName=eth1\\n\\n[Network]\\nAddress=%s/24\\n" "$1"'
                 ' >/etc/systemd/network/20-eth1.network && systemctl start systemd-networkd && networkctl reload'
                 ' && networkctl reconfigure eth1'),
}
# where each keeps the MTU after the role: a command that prints it
PERSISTED_MTU = {
    'ifupdown': 'ifquery eth1 | sed -n "s/^mtu: //p"',
    'networkmanager': 'nmcli -g 802-3-ethernet.mtu connection show stock-eth1',
    'networkd': 'cat /etc/systemd/network/20-eth1.network.d/*.conf | sed -n "s/^MTUBytes=//p"',
}


@pytest.mark.parametrize('stack', sorted(MANAGE_ETH1))
def test_mtu_on_each_stack(suite_lab, plays, stack):
    """The mtu role on a virtio NIC managed by each stack: the stack detected, MTU 9000 set and
    persisted where the stack keeps it, the do-not-fragment path check at 8972 bytes, a second run
    that changes nothing, and the removal back to 1500 with nothing of ours left."""
    lab = suite_lab
    snapshot(lab, 'revert')
    for host in ('lab1', 'lab2'):
        sh(lab, host, MANAGE_ETH1[stack], data(lab, host))
    assert sh(lab, 'lab2', 'ping -c 1 -W 5 "$1" >/dev/null && echo ok', data(lab, 'lab1')).strip() == 'ok'
    mtu = dict(mtu_interfaces=[dict(name='eth1', mtu=9000)])
    for host, peer in (('lab1', 'lab2'), ('lab2', 'lab1')):
        res = role(lab, plays, 'mtu', host, mtu_verify_peer=data(lab, peer) if host == 'lab2' else '', **mtu)
        assert res.rc == 0, res.stdout[-4000:]
        assert 'network stack %s (detected)' % stack in res.stdout, res.stdout[-3000:]
    for host in ('lab1', 'lab2'):
        assert sh(lab, host, 'cat /sys/class/net/eth1/mtu').strip() == '9000'
        assert sh(lab, host, PERSISTED_MTU[stack]).strip() == '9000', stack
    for host in jumbo_path_then_mtu_removed(lab, plays, mtu, 'eth1'):
        assert sh(lab, host, '(%s) 2>/dev/null; true' % PERSISTED_MTU[stack]).strip() in ('', '0', 'auto'), stack
    assert sh(lab, 'lab2', 'ping -c 1 -W 5 "$1" >/dev/null && echo ok', data(lab, 'lab1')).strip() == 'ok'


def test_firewalld_opens_the_plan_ports_to_the_peer_only_and_closes_them(suite_lab, plays, tmp_path):
    snapshot(suite_lab, 'revert')
    firewalld_opens_the_plan_ports_to_the_peer_only_and_closes_them(suite_lab, plays, tmp_path)


def test_tuned_profile_applied_and_reverted(suite_lab, plays):
    snapshot(suite_lab, 'revert')
    tuned_profile_applied_and_reverted(suite_lab, plays)


def test_management_change_refused_then_rolled_back(suite_lab, plays):
    snapshot(suite_lab, 'revert')
    management_change_refused_then_rolled_back(suite_lab, plays)


# last: its own pair, booted once the bridge cases of the release are done
@pytest.mark.parametrize('case', sorted(c for c in CASES if CASES[c]['bonding_mode'] == '802.3ad'))
def test_lacp_bond_over_point_to_point_links(suite_p2p_lab, plays, tmp_path, case):
    bond_case(suite_p2p_lab, plays, tmp_path, case)
