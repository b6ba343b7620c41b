# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The roles on VM lab hosts: two QEMU VMs booting Debian's own kernel, reached over
real SSH, where bonds, firewalld, tuned, machine-wide sysctls and a management link
that can really be cut all exist.

One pair is booted for the module (1 to 2 minutes under TCG), saved as the snapshot
``base`` and restored before each case (about 10 s), so every case starts from the
stock system. Throughput between TCG guests is the emulating CPU's: these tests check
behaviour (the bond carries the test, the openings let exactly the peer in, the
management guard refuses), never figures.

Here, on Debian 12: the machine-wide sysctls, the tuned daemon's profile, firewalld's openings,
and the management guard (refused without the opt-in; with it, a change that cuts SSH rolled back
by the host's own timer). The cases that ``make test-vm`` (test_vm_matrix.py) also runs on Debian
11 and 13 are written once here, as functions of the lab, and called by both files. Bonds (a
balance-alb bond at MTU 9000 carrying iperf3, and the other modes on each network stack) are
``make test-vm``'s alone: the same case here cost 20 min of one core under TCG in every
``make test`` (measured 1169 s in a clean-clone run), a quarter of its time.
"""
from __future__ import annotations

import difflib
import json
import subprocess
import time

import pytest

from conftest import run_playbook

# make test-vm's, with the matrix: under TCG these cases ran last in a clean-clone make test and took it
# past 75 min (the matrix runs the firewalld, tuned and guard cases on every release)
pytestmark = [pytest.mark.lab, pytest.mark.vm_matrix]
NAME, MGMT, DATA = 'vt', '10.224.0.0/24', '10.224.1.0/24'
SUITE = 'bookworm'

ROLE_PLAY = '''
- name: One role on the targets
  hosts: "{{ target }}"
  gather_facts: false
  tasks:
    - name: The role
      ansible.builtin.include_role:
        name: "perflab.network.{{ role }}"
'''

IPERF3_PLAY = '''
- name: One iperf3 test from the client to the server's data address
  hosts: "{{ client }}"
  gather_facts: false
  tasks:
    - name: Run it
      perflab.network.iperf3:
        server: "{{ server }}"
        duration: "{{ duration | default(3) }}"
        test: tcp_stream
        nic_interface: "{{ nic | default(omit) }}"
      register: result

    - name: Keep the record
      ansible.builtin.copy:
        content: "{{ result.perflab_result | to_json }}"
        dest: "{{ record_file }}"
        mode: "0644"
      delegate_to: localhost
'''


def sh(lab, host, script, *args, check=True, timeout=180):
    return lab.ssh(host, ['sh', '-c', script, 'sh'] + list(args), check=check, timeout=timeout).stdout


def same_state(lab, host, command, before):
    """What ``command`` prints on ``host`` now is ``before``, byte for byte (if not, the message is the
    diff); returns it."""
    after = sh(lab, host, command)
    assert after == before, '%s is not as it was:\n%s' % (host, ''.join(difflib.unified_diff(
        before.splitlines(True), after.splitlines(True), 'before', 'after')))
    return after


def ssh_works(lab, host, timeout=30):
    return lab.ssh(host, ['true'], timeout=timeout).returncode == 0


def data(lab, host):
    return lab.hostvars()[host]['perflab_data_address']


@pytest.fixture(scope='module')
def plays(tmp_path_factory):
    base = tmp_path_factory.mktemp('vmplays')
    (base / 'role.yml').write_text(ROLE_PLAY)
    (base / 'iperf3.yml').write_text(IPERF3_PLAY)
    return base


def snapshot(lab, state):
    res = run_playbook('playbooks/lab_snapshot.yml',
                       extra_vars=dict(lab.extra_vars, lab_state=state, lab_snapshot='base'))
    assert res.rc == 0, res.stdout[-3000:]


@pytest.fixture(scope='module')
def vm(lab_factory):
    started = time.time()
    lab = lab_factory(NAME, hosts=2, mgmt=MGMT, data=DATA, kind='vm', debian_suite=SUITE)
    snapshot(lab, 'snapshot')
    print('VM lab up and saved in %d s' % (time.time() - started))
    return lab


@pytest.fixture
def stock(vm):
    """Every case starts from the booted, stock pair."""
    snapshot(vm, 'revert')
    return vm


def role(lab, plays, role_name, target, check=False, **variables):
    return run_playbook(str(plays / 'role.yml'), lab.inventory, dict(target=target, role=role_name, **variables),
                        check=check)


def iperf3(lab, plays, tmp_path, client='lab2', server_host='lab1', duration=3, nic=None):
    address = data(lab, server_host)
    sh(lab, server_host, 'iperf3 -s -1 -D -B "$1"', address)
    out = tmp_path / 'record.json'
    extra = dict(client=client, server=address, duration=duration, record_file=str(out))
    if nic:
        extra['nic'] = nic
    res = run_playbook(str(plays / 'iperf3.yml'), lab.inventory, extra)
    assert res.rc == 0, res.stdout[-4000:]
    records = json.loads(out.read_text())  # the module's records: one for this test
    assert len(records) == 1, records
    return records[0]


def test_vm_hosts_are_machines_of_their_own(stock):
    """Debian's kernel under QEMU, systemd as pid 1, machine-wide sysctls writable, a data link."""
    lab = stock
    assert sh(lab, 'lab1', 'systemd-detect-virt').strip() == 'qemu'
    assert sh(lab, 'lab1', 'cat /proc/1/comm').strip() == 'systemd'
    assert sh(lab, 'lab1', 'sysctl -w net.core.netdev_max_backlog=5000 >/dev/null && sysctl -n net.core.netdev_max_backlog') \
        .strip() == '5000'
    assert sh(lab, 'lab2', 'ping -c 1 -W 5 "$1" >/dev/null && echo ok', data(lab, 'lab1')).strip() == 'ok'
    assert lab.hostvars()['lab1']['perflab_data_interfaces'] == ['eth1', 'eth2']


def test_machine_wide_sysctls_are_applied_and_reverted(stock, plays):
    lab = stock
    keys = ['net.core.rmem_max', 'net.core.wmem_max', 'net.core.netdev_max_backlog', 'net.core.default_qdisc']
    before = sh(lab, 'lab1', 'sysctl -n "$@"', *keys).split()
    res = role(lab, plays, 'tuning', 'lab1', tuning_state='present', tuning_profile='throughput')
    assert res.rc == 0, res.stdout[-4000:]
    # the throughput profile's values, none left out as a namespace must
    assert sh(lab, 'lab1', 'sysctl -n "$@"', *keys).split() == ['134217728', '134217728', '250000', 'fq']
    assert before != ['134217728', '134217728', '250000', 'fq']
    res = role(lab, plays, 'tuning', 'lab1', tuning_state='absent')
    assert res.rc == 0, res.stdout[-4000:]
    assert sh(lab, 'lab1', 'sysctl -n "$@"', *keys).split() == before


def tuned_profile_applied_and_reverted(lab, plays):
    """The tuned daemon running: the tuning role persists through a tuned profile of its own
    (built on network-latency), tuned applies and verifies it, and the revert brings back the
    stock profile and values."""
    sh(lab, 'lab1', 'systemctl start tuned && tuned-adm profile balanced && tuned-adm active')
    keys = ['net.core.busy_read', 'net.core.busy_poll', 'net.ipv4.tcp_fastopen']
    before = sh(lab, 'lab1', 'sysctl -n "$@"', *keys).split()
    res = role(lab, plays, 'tuning', 'lab1', tuning_state='present', tuning_profile='latency')
    assert res.rc == 0, res.stdout[-4000:]
    active = sh(lab, 'lab1', 'tuned-adm active')
    assert 'Current active profile: perflab' in active, active
    assert sh(lab, 'lab1', 'tuned-adm verify >/dev/null && echo verified', check=False).strip() == 'verified'
    after = sh(lab, 'lab1', 'sysctl -n "$@"', *keys).split()
    assert after[:2] == ['50', '50'] and after != before, after
    again = role(lab, plays, 'tuning', 'lab1', tuning_state='present', tuning_profile='latency')
    assert again.rc == 0 and again.stats['lab1']['changed'] == 0, again.stdout[-3000:]
    gone = role(lab, plays, 'tuning', 'lab1', tuning_state='absent')
    assert gone.rc == 0, gone.stdout[-4000:]
    assert 'Current active profile: balanced' in sh(lab, 'lab1', 'tuned-adm active')
    assert sh(lab, 'lab1', 'sysctl -n "$@"', *keys).split() == before
    assert sh(lab, 'lab1', 'ls /etc/tuned | grep perflab; true').strip() == ''


def firewalld_opens_the_plan_ports_to_the_peer_only_and_closes_them(lab, plays, tmp_path):
    """firewalld in its default zone: the openings are scoped to the peer (a third address of the
    peer's subnet is refused), a test passes through them, and the removal leaves nothing."""
    openings_let_only_the_peer_in(lab, plays, tmp_path, 'systemctl start firewalld && firewall-cmd --state',
                                  'firewall-cmd --list-all; firewall-cmd --permanent --list-all')


def openings_let_only_the_peer_in(lab, plays, tmp_path, start, state, during=None):
    """The firewall role's openings on lab1 with the firewall that ``start`` switches on: closed before,
    open to lab2's data address only (a third address of its /24 refused), a test passes through them,
    ``during`` (a command on lab1, e.g. a reload) leaves them open, and after the removal the
    firewall's ``state`` (a command printing it) is as it was, byte for byte, with nothing of ours."""
    sh(lab, 'lab1', start)
    third = data(lab, 'lab2').rsplit('.', 1)[0] + '.99'  # another address of the peer's /24
    sh(lab, 'lab2', 'ip addr add "$1/24" dev eth1', third)
    probe = ('import socket,sys\ns=socket.socket();s.settimeout(3);s.bind((sys.argv[1],0))\n'
             'try:\n s.connect((sys.argv[2],5201));print("open")\nexcept OSError:\n print("closed")\n')
    sh(lab, 'lab1', 'iperf3 -s -D -B "$1"', data(lab, 'lab1'))
    try:
        def reach(src):
            return sh(lab, 'lab2', 'python3 -c "$1" "$2" "$3"', probe, src, data(lab, 'lab1')).strip()

        assert (reach(data(lab, 'lab2')), reach(third)) == ('closed', 'closed')
        before = sh(lab, 'lab1', state)
        res = role(lab, plays, 'firewall', 'lab1', firewall_peer_addresses=[data(lab, 'lab2')],
                   firewall_tools=['iperf3'])
        assert res.rc == 0, res.stdout[-4000:]
        assert ssh_works(lab, 'lab1')
        assert (reach(data(lab, 'lab2')), reach(third)) == ('open', 'closed')
        if during:
            sh(lab, 'lab1', during)
            assert (reach(data(lab, 'lab2')), reach(third)) == ('open', 'closed'), 'after ' + during
        sh(lab, 'lab1', 'pkill -x iperf3; true')
        record = iperf3(lab, plays, tmp_path)
        assert record['status'] == 'ok', record
        sh(lab, 'lab1', 'iperf3 -s -D -B "$1"', data(lab, 'lab1'))
        gone = role(lab, plays, 'firewall', 'lab1', firewall_state='absent')
        assert gone.rc == 0, gone.stdout[-4000:]
        assert reach(data(lab, 'lab2')) == 'closed'
        assert 'perflab' not in same_state(lab, 'lab1', state, before)
    finally:
        sh(lab, 'lab1', 'pkill -x iperf3; true', check=False)


def management_change_refused_then_rolled_back(lab, plays):
    """A bond over the management NIC (eth0), with systemd-networkd (it enslaves eth0 and so really
    cuts SSH: ifupdown would leave out a member that has a stanza of its own, which the role now
    refuses as a bond without that member): without bonding_allow_management_change refused in
    the preflight, nothing written; with it, the change cuts SSH, the role's tasks end instead of
    waiting on the dead connection, the host's own timer puts eth0 back (its run-time address
    included), and the role fails saying so."""
    sh(lab, 'lab1', 'systemctl start systemd-networkd')
    leftovers = 'ls /etc/systemd/network | grep perflab; test -e /sys/class/net/bond0 && echo bond; true'
    bond = dict(bonding_stack='networkd', bonding_members=['eth0'], bonding_check_member_configs=False)
    refused = role(lab, plays, 'bonding', 'lab1', **bond)
    assert refused.rc != 0 and 'management' in refused.stdout, refused.stdout[-3000:]
    assert sh(lab, 'lab1', leftovers).strip() == ''
    started = time.time()
    cut = role(lab, plays, 'bonding', 'lab1', bonding_allow_management_change=True, bonding_rollback_timeout=60, **bond)
    took = time.time() - started
    print('the guarded change ended after %d s: rc %d' % (took, cut.rc))
    assert cut.rc != 0, cut.stdout[-3000:]
    assert 'the rollback timer put the management interface back' in cut.stdout, cut.stdout[-3000:]
    assert ssh_works(lab, 'lab1'), 'SSH did not come back after the rollback'
    assert sh(lab, 'lab1', leftovers).strip() == ''
    assert subprocess.run(lab.ssh_argv('lab1') + ['ip', '-4', 'addr', 'show', 'dev', 'eth0'], capture_output=True,
                          text=True, check=False).stdout.count('10.0.2.15') == 1
    # the timer acted, and its log says what it did
    log = sh(lab, 'lab1', 'cat /var/lib/perflab/bonding/rolled-back-bond0 >/dev/null && cat /var/lib/perflab/bonding/rollback-bond0.log')
    assert '+ ip link delete bond0' in log and '+ ip addr replace 10.0.2.15/24 dev eth0' in log, log


def test_tuned_profile_applied_and_reverted(stock, plays):
    tuned_profile_applied_and_reverted(stock, plays)


def test_firewalld_opens_the_plan_ports_to_the_peer_only_and_closes_them(stock, plays, tmp_path):
    firewalld_opens_the_plan_ports_to_the_peer_only_and_closes_them(stock, plays, tmp_path)


def test_management_change_refused_then_rolled_back(stock, plays):
    management_change_refused_then_rolled_back(stock, plays)
