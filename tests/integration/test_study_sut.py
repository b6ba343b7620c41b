# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The system under test, its labels and the latency profile, on the namespace lab (lab "p17").

The OSv seed study (playbooks/studies/osv-netperf.yml) with a short duration: only the server side
is tuned (the latency profile, set per host group in the inventory), every record names it, the
UDP_STREAM -m 1400 test is sent from it (the pairs reversed), and the latency profile's machine-wide
knobs are reported as skipped with their reason on a lab host. A label two different systems would
share is refused before anything changes.
"""
from __future__ import annotations

import json

import pytest
import yaml

from conftest import run_playbook

pytestmark = pytest.mark.lab
NAME, MGMT, DATA = 'p17', '10.219.2.0/24', '10.219.3.0/24'
REPORT = 'Report per key (applied / unchanged / skipped with the reason)'


@pytest.fixture(scope='module')
def lab(lab_factory):
    return lab_factory(NAME, hosts=2, mgmt=MGMT, data=DATA)


def inventory(lab, tmp_path, servers_vars=None, host_vars=None):
    """The lab's inventory with group or host variables added (what a user's group_vars say)."""
    inv = yaml.safe_load(lab.inventory.read_text())
    children = inv['all']['children']
    if servers_vars:
        children['perflab_servers']['vars'] = servers_vars
    for host, values in (host_vars or {}).items():
        children['perflab_lab']['hosts'][host].update(values)
    path = tmp_path / 'hosts.yml'
    path.write_text(yaml.safe_dump(inv))
    return path


def records(path):
    return [r for r in (json.loads(line) for line in path.read_text().splitlines() if line.strip())
            if r.get('schema') == 'perflab.result/2']


def task_hosts(res, name):
    """Hosts that ran (not skipped) the last task of this name, with their results."""
    found = {}
    for play in res.plays:
        for task in play.get('tasks', []):
            if task['task']['name'].split(' : ')[-1] == name:
                found = {h: r for h, r in task['hosts'].items() if not r.get('skipped')}
    return found


# long: a whole tuned study; test_unmanaged_server.py runs the same study in make test (docs/testing.md)
@pytest.mark.long
def test_osv_study_tunes_and_labels_only_the_system_under_test(lab, tmp_path):
    results = tmp_path / 'results'
    version = lab.ssh('lab1', ['cat', '/etc/debian_version'], check=True).stdout.strip()
    inv = inventory(lab, tmp_path, servers_vars={'perflab_tuning_profile': 'latency'})
    res = run_playbook('playbooks/studies/osv-netperf.yml', inv,
                       {'perflab_profile': 'tuned', 'perflab_duration': 2, 'perflab_repetitions': 1,
                        'perflab_run_id': 'p17-osv', 'perflab_results_dir': str(results)},
                       env={'PERFLAB_RESULTS_DIR': str(results)}, timeout=1500)
    try:
        assert res.rc == 0, res.stdout[-5000:] + res.stderr[-2000:]
        # the latency profile on the server only (per host group), its machine knobs skipped with the reason
        reports = task_hosts(res, REPORT)
        assert sorted(reports) == ['lab1'], reports
        report = reports['lab1']['tuning_report']
        assert report['profile'] == 'latency'
        skipped = report['sysctls']['skipped']
        for knob in ('cpu_governor', 'cpu_dma_latency', '/sys/kernel/mm/transparent_hugepage/enabled',
                     'kernel.numa_balancing'):
            assert skipped[knob].startswith('machine-wide setting: never changed on a network-namespaced host'), \
                (knob, skipped)
        assert skipped['net.core.busy_poll'] == 'does not exist in this network namespace (only in the initial one)'
        assert 'net.ipv4.tcp_fastopen' in report['sysctls']['applied'] + report['sysctls']['unchanged']
        assert lab.ssh('lab1', ['cat', '/proc/sys/net/ipv4/tcp_fastopen'], check=True).stdout.strip() == '3'
        assert lab.ssh('lab2', ['test', '-e', '/var/lib/perflab/tuning/stock.json']).returncode == 1

        recs = records(results / 'p17-osv.jsonl')
        label = 'Debian %s tuned-latency' % version
        assert {r['config'] for r in recs} == {label}
        assert all(r['status'] == 'ok' for r in recs), [(r['test_id'], r['error']) for r in recs if r['status'] != 'ok']
        udp = [r for r in recs if r['test_id'].startswith('netperf/udp_stream')]
        assert len(udp) == 1 and 'message_size=1400' in udp[0]['test_id'], [r['test_id'] for r in recs]
        # sent from the system under test: lab1 runs netperf against lab2's netserver
        assert (udp[0]['client']['name'], udp[0]['server']['name']) == ('lab1', 'lab2')
        others = [r for r in recs if r is not udp[0]]
        assert others and all((r['client']['name'], r['server']['name']) == ('lab2', 'lab1') for r in others)
        assert (results / 'osv-netperf.xlsx').exists()
    finally:
        reverted = run_playbook('playbooks/revert.yml', inv, {})
    assert reverted.rc == 0, reverted.stdout[-3000:]
    assert lab.ssh('lab1', ['test', '-e', '/var/lib/perflab/tuning/stock.json']).returncode == 1


def test_a_label_shared_by_two_different_systems_is_refused_before_any_change(lab, tmp_path):
    inv = inventory(lab, tmp_path, host_vars={'lab1': {'perflab_system_label': 'Server 1'}})
    before = lab.ssh('lab1', ['sh', '-c', 'ls /var/lib/perflab 2>/dev/null; ls /opt 2>/dev/null']).stdout
    res = run_playbook('playbooks/benchmark.yml', inv, {'perflab_suite': 'quick', 'perflab_config_label': 'Same'})
    assert res.rc != 0
    assert ("Refused before any change: the label 'Same' would be shared by lab1 (stock) and lab2 (stock), which are different "
            "systems (system_label 'Server 1' vs '')") in res.stdout, res.stdout[-3000:]
    assert 'Install the tools' not in [t['task']['name'] for p in res.plays for t in p.get('tasks', [])]
    assert lab.ssh('lab1', ['sh', '-c', 'ls /var/lib/perflab 2>/dev/null; ls /opt 2>/dev/null']).stdout == before
