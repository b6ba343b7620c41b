# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The study through a default-deny firewall, for real, on a lab of three hosts.

The lab hosts drop every inbound packet but replies, ICMP and SSH from the management subnet
(lab_firewall=default-deny), so the tests pass only because the study's firewall stage opened the
plan's ports, each to its own peer. lab1 serves, lab2 is its client, lab3 a third host in no pair:
it must not get in while the ports are open, and nobody may get in afterwards. Then the refusals
of the preflight (nothing changed), the TCP check that stops a run a firewall would fail, and a
configure stage that fails half way (a real one: the switch port cannot carry the MTU asked for)
and puts back what it had applied.
"""
from __future__ import annotations

import json
import subprocess
import threading
import time

import pytest

from conftest import BIN, ENV, ROOT, run_playbook

pytestmark = pytest.mark.lab
NAME, MGMT, DATA = 's16', '10.216.0.0/24', '10.216.1.0/24'
SERVER_DATA = '10.216.1.11'
# the quick suite's iperf3 and netperf tests: control and data ports of two tools, a few seconds
STUDY = {'perflab_suite': 'quick', 'perflab_duration': 1, 'benchmark_tools': ['iperf3', 'netperf']}

# how a TCP connection from a lab host ends: reached (accepted, or refused by the host's stack:
# the packet got in) or blocked (dropped on the way: timed out)
PROBE = r'''
import socket, sys
s = socket.socket()
s.settimeout(2)
try:
    s.connect((sys.argv[1], int(sys.argv[2])))
    print('reached')
except ConnectionRefusedError:
    print('reached')
except OSError:
    print('blocked')
'''


@pytest.fixture(scope='module')
def lab(lab_factory):
    return lab_factory(NAME, hosts=3, mgmt=MGMT, data=DATA, firewall='default-deny')


def probe(lab, host, port, address=SERVER_DATA):
    return lab.ssh(host, ['python3', '-c', PROBE, address, str(port)], check=True).stdout.strip()


def host_state(lab, host, packages=False):
    """What a study may change on a host and must put back (and, with packages, what the tools
    stage installs: nothing may be installed after a refusal)."""
    script = ('nft list ruleset; ls -R /var/lib/perflab 2>/dev/null; cat /sys/class/net/data0/mtu; '
              'sysctl -n net.ipv4.tcp_rmem net.ipv4.tcp_congestion_control' + ('; dpkg -l | wc -l' if packages else ''))
    return lab.ssh(host, ['sh', '-c', script], check=True).stdout


def records(path):
    return [json.loads(line) for line in path.read_text().splitlines()
            if line.strip() and json.loads(line).get('schema') == 'perflab.result/2']


def test_the_study_passes_only_through_the_ports_it_opened(lab, tmp_path):
    before = {h: host_state(lab, h) for h in ('lab1', 'lab2')}
    assert 'policy drop' in before['lab1'] and 'perflab:' not in before['lab1']
    assert probe(lab, 'lab2', 5201) == 'blocked'  # the default-deny host: nothing gets in yet
    argv = [str(BIN / 'ansible-playbook'), str(ROOT / 'playbooks' / 'benchmark.yml'), '-i', str(lab.inventory),
            '-e', json.dumps(dict(STUDY, perflab_run_id='s16-fw', perflab_results_dir=str(tmp_path)))]
    proc = subprocess.Popen(argv, cwd=ROOT, env=dict(ENV, PERFLAB_RESULTS_DIR=str(tmp_path)),
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        # while the plan's ports are open to lab2, a third host (lab3) is still dropped
        deadline, opened = time.time() + 600, ''
        while time.time() < deadline and proc.poll() is None:
            opened = lab.ssh('lab1', ['nft', 'list', 'ruleset']).stdout
            if 'perflab:' in opened:
                break
            time.sleep(0.5)
        assert 'ip saddr 10.216.1.12 tcp dport' in opened and '10.216.1.13' not in opened, opened
        assert probe(lab, 'lab3', 5201) == 'blocked'
        assert probe(lab, 'lab3', 12865) == 'blocked'
        out, _err = proc.communicate(timeout=900)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, out[-5000:]
    done = records(tmp_path / 's16-fw.jsonl')
    assert done and {r['tool'] for r in done} == {'iperf3', 'netperf'}
    assert all(r['status'] == 'ok' for r in done), [(r['test_id'], r['error']) for r in done if r['status'] != 'ok']
    # the preflight connected to every planned TCP port from lab2, through the opened firewall
    assert 'cannot open TCP connections' not in out
    # everything closed again: the rulesets and the hosts as they were, the port dropped again
    assert {h: host_state(lab, h) for h in ('lab1', 'lab2')} == before
    assert probe(lab, 'lab2', 5201) == 'blocked'


def test_a_firewall_the_study_leaves_alone_stops_the_run_at_the_connection_check(lab, tmp_path):
    res = run_playbook('playbooks/benchmark.yml', lab.inventory,
                       dict(STUDY, benchmark_tools=['iperf3'], perflab_firewall_mode='unmanaged', perflab_run_id='s16-unmanaged',
                            perflab_results_dir=str(tmp_path)),
                       env={'PERFLAB_RESULTS_DIR': str(tmp_path)})
    assert res.rc != 0
    assert ('lab2 cannot open TCP connections to planned ports of lab1: 10.216.1.11:5201 (timed out after 2 s)'
            in res.stdout), res.stdout[-4000:]
    path = tmp_path / 's16-unmanaged.jsonl'
    assert not path.exists() or not [r for r in records(path) if r['status'] == 'ok']
    ps = lab.ssh('lab1', ['ps', '-eo', 'comm='], check=True).stdout.split()
    assert not {'iperf3', 'netserver'} & set(ps)


def test_the_firewall_disabled_variant_switches_it_off_and_back(lab, tmp_path):
    """perflab_firewall_mode=disabled, the seeds' "firewall disabled" rows: the study hosts'
    rulesets are flushed for the run (a third host gets in too) and loaded back after."""
    before = {h: lab.ssh(h, ['nft', 'list', 'ruleset'], check=True).stdout for h in ('lab1', 'lab2')}
    seen = {}
    res_holder = {}

    def watch():
        # the rulesets while the run is on: empty once the firewall stage switched them off
        deadline = time.time() + 600
        while time.time() < deadline and 'rc' not in res_holder:
            text = lab.ssh('lab1', ['nft', 'list', 'ruleset']).stdout
            if text.strip() == '':
                seen['off'] = probe(lab, 'lab3', 5999)  # no server there: answered (reset) once off
                return
            time.sleep(0.5)
    watcher = threading.Thread(target=watch)
    watcher.start()
    res = run_playbook('playbooks/benchmark.yml', lab.inventory,
                       dict(STUDY, benchmark_tools=['iperf3'], perflab_firewall_mode='disabled', perflab_run_id='s16-off',
                            perflab_results_dir=str(tmp_path)),
                       env={'PERFLAB_RESULTS_DIR': str(tmp_path)})
    res_holder['rc'] = res.rc
    watcher.join()
    assert res.rc == 0, res.stdout[-4000:]
    assert seen.get('off') == 'reached', seen  # off: even the third host gets in
    assert all(r['status'] == 'ok' for r in records(tmp_path / 's16-off.jsonl'))
    assert {h: lab.ssh(h, ['nft', 'list', 'ruleset'], check=True).stdout for h in ('lab1', 'lab2')} == before
    assert probe(lab, 'lab2', 5201) == 'blocked'


@pytest.mark.parametrize('extra, message', [
    ({'perflab_profile': 'tuned', 'perflab_bond': {'members': ['data0', 'data1'], 'address': '10.216.1.31/24'}},
     'lab1: perflab_bond asks for a bond of data0, data1, but the host has 1 data NIC(s) (data0; management: mgmt0):'
     ' a bond needs two or more; not data NICs of this host: data1. Nothing was changed.'),
    ({'perflab_firewall_backend': 'firewalld'},
     'firewalld is not installed on lab1: install it, or set firewall_install_backend: true, or choose another'
     ' firewall_backend'),
    # a setting of the tuned configuration the host cannot take: the tuning role's own preflight,
    # run by the study's preflight stage (its `check` entry point)
    ({'perflab_profile': 'tuned', 'tuning_ethtool': [{'interface': 'nosuch0', 'features': {'gro': False}}]},
     'tuning: tuning_ethtool names interfaces this host does not have: nosuch0'),
], ids=['bond-on-one-nic', 'missing-firewall-backend', 'tuned-setting-the-host-cannot-take'])
def test_the_preflight_refuses_with_the_reason_and_changes_nothing(lab, extra, message):
    before = {h: host_state(lab, h, packages=True) for h in ('lab1', 'lab2')}
    res = run_playbook('playbooks/benchmark.yml', lab.inventory, dict(STUDY, **extra))
    assert res.rc != 0 and message in ' '.join(res.stdout.split()), res.stdout[-4000:]
    ran = [t['task']['name'] for p in res.plays for t in p.get('tasks', [])]
    assert 'Install the tools' not in ran and 'Open the plan\'s ports, each to its own peer' not in ran
    assert {h: host_state(lab, h, packages=True) for h in ('lab1', 'lab2')} == before
    # the lock stage took each host's run lock before the preflight: the refusal gave it back (issue 29)
    assert [h for h in ('lab1', 'lab2', 'lab3') if lab.ssh(h, ['test', '-e', '/run/perflab/run.lock']).returncode == 0] == []


def test_a_configure_stage_failing_half_way_puts_back_what_it_applied(lab):
    """The MTU step fails after the tuning profile was applied: lab1's switch port carries only
    1500 bytes, so the do-not-fragment ping of the mtu role fails. Everything comes back."""
    before = {h: host_state(lab, h) for h in ('lab1', 'lab2')}
    port = ['ip', '-n', NAME + '-sw', 'link', 'set', 'p1', 'mtu']
    subprocess.run(port + ['1500'], check=True)
    try:
        res = run_playbook('playbooks/benchmark.yml', lab.inventory,
                           dict(STUDY, perflab_profile='tuned', perflab_tuned_mtu=9000, perflab_install_tools=False))
    finally:
        subprocess.run(port + ['9216'], check=True)
    text = ' '.join(res.stdout.split())
    assert res.rc != 0 and 'The configure stage failed on lab1' in text, res.stdout[-4000:]
    assert 'What it had applied was put back to stock.' in text
    ran = [t['task']['name'] for p in res.plays for t in p.get('tasks', [])]
    assert 'Apply the tuning profile (the stock values are saved first)' in ran  # it was applied, then undone
    assert 'Run the suite' not in ran
    assert {h: host_state(lab, h) for h in ('lab1', 'lab2')} == before
