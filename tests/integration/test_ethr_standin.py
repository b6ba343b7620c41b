# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""ethr as a user meets it (issue #21), with the ethr stand-in (no registry has ethr): installed by the
tools role from a controller file (tools_ethr_src), found by the benchmark, its records ok; an ethr-only
install that never touches apt and a removal that finishes; a server out of file descriptors that the
record says; a stage that fails before the tests leaving a failed record per planned test.

The stand-in (tests/integration/files/ethr-standin/ethr, written by build.py) replays the real output of
ethr v1.0.0-5 and really listens; see its docstring. PERFLAB_ETHR_BINARY runs the real binary elsewhere
(test_tools_role.py, test_study.py)."""
from __future__ import annotations

import json

import pytest

from conftest import ROOT, run_playbook

pytestmark = pytest.mark.lab
NAME, MGMT, DATA = 'itethr', '10.254.0.0/24', '10.254.1.0/24'
STANDIN = ROOT / 'tests' / 'integration' / 'files' / 'ethr-standin' / 'ethr'
SUITE = ROOT / 'tests' / 'integration' / 'files' / 'ethr-suite.yml'
NOFILE_SUITE = ROOT / 'tests' / 'integration' / 'files' / 'ethr-suite-nofile.yml'
IDS = ['ethr/tcp_stream/parallel=1', 'ethr/tcp_latency/parallel=1', 'ethr/connections/parallel=1']
BROKEN_SOURCE = '/etc/apt/sources.list.d/perflab-itethr-broken.list'
TOOLS_PLAYBOOK = '''---
- name: Run the tools role
  hosts: lab1
  gather_facts: true
  tasks:
    - name: Run perflab.network.tools
      ansible.builtin.include_role:
        name: perflab.network.tools
'''


@pytest.fixture(scope='module')
def lab(lab_factory):
    return lab_factory(NAME, hosts=2, mgmt=MGMT, data=DATA)


def read_jsonl(path):
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def task_names(res):
    return [task['task']['name'] for play in res.plays for task in play.get('tasks', [])]


def benchmark(lab, results, run_id, suite=SUITE, **extra):
    res = run_playbook('playbooks/benchmark.yml', lab.inventory,
                       dict({'perflab_suite': str(suite), 'tools_ethr_src': str(STANDIN), 'perflab_run_id': run_id,
                             'perflab_results_dir': str(results),
                             # the stand-in replays real ethr output and moves no data: the data interface's
                             # counters cannot account for it (the wrong-path check would fail every record)
                             'benchmark_nic_sampling': False}, **extra),
                       env={'PERFLAB_RESULTS_DIR': str(results)}, timeout=600)
    path = results / (run_id + '.jsonl')
    records = [r for r in read_jsonl(path) if r.get('schema') == 'perflab.result/2'] if path.exists() else []
    return res, records


def test_ethr_only_install_needs_no_package_manager_and_removal_finishes(lab, tmp_path):
    playbook = tmp_path / 'tools.yml'
    playbook.write_text(TOOLS_PLAYBOOK)
    ethr_only = {'tools_list': ['ethr'], 'tools_ethr_src': str(STANDIN), 'tools_ethr_optional': False}
    # package lists that cannot be refreshed: an ethr-only install must not need them
    lab.ssh('lab1', ['sh', '-c', 'echo "deb http://127.0.0.1:9/debian bookworm main" > %s' % BROKEN_SOURCE],
            check=True)
    try:
        lists_before = lab.ssh('lab1', ['stat', '-c', '%Y', '/var/lib/apt/lists']).stdout
        installed = run_playbook(str(playbook), lab.inventory, ethr_only)
        assert installed.rc == 0, installed.stdout[-3000:]
        names = task_names(installed)
        assert not [n for n in names if 'Refresh the package lists' in n or 'List the installed packages' in n], names
        assert lab.ssh('lab1', ['stat', '-c', '%Y', '/var/lib/apt/lists']).stdout == lists_before
        version = lab.ssh('lab1', ['/opt/perflab/bin/ethr', '-h'], check=True).stdout
        assert 'Version: v1.0.0-5-g86e0704' in version

        removed = run_playbook(str(playbook), lab.inventory, dict(ethr_only, tools_state='absent'))
        assert removed.rc == 0, removed.stdout[-3000:]
        assert not [n for n in task_names(removed) if 'Refresh the package lists' in n]
        left = lab.ssh('lab1', ['sh', '-c', 'ls -A /opt/perflab 2>/dev/null; ls /var/lib/perflab 2>/dev/null']).stdout
        assert 'ethr' not in left and 'manifest' not in left, left
    finally:
        lab.ssh('lab1', ['rm', '-f', BROKEN_SOURCE])


def test_benchmark_finds_the_ethr_the_tools_role_installed(lab, tmp_path):
    res, records = benchmark(lab, tmp_path, 'itethr-ok')
    assert res.rc == 0, res.stdout[-5000:] + res.stderr[-2000:]
    ethr = dict((r['test_id'], r) for r in records if r['tool'] == 'ethr')
    assert sorted(ethr) == sorted(IDS), sorted(ethr)
    for tid, r in ethr.items():
        assert r['status'] == 'ok', (tid, r['error'], r['raw'][-500:])
        assert r['command'][0] == '/opt/perflab/bin/ethr'
        assert r['metrics'][r['primary']]['value'] > 0
        assert r['tool_version'] == '1.0.0-5-g86e0704'  # as the tools role says it: no 'v' (issue 29.6)
    # the values are what ethr printed (the stand-in replays the real output)
    assert ethr['ethr/connections/parallel=1']['metrics']['connections_per_s']['value'] == pytest.approx(11300.0)
    latency = ethr['ethr/tcp_latency/parallel=1']
    assert latency['parallel'] == 1 and latency['command'][latency['command'].index('-n') + 1] == '1'
    assert any('parallel 2, 8 ignored' in note for note in latency['notes']), latency['notes']
    assert {s['t'] for s in latency['intervals']} == {None}
    assert 'parallel 1, 2, 8 make one test' in res.stdout
    # the servers got the hard open-files limit: no accept errors, no note
    assert not [n for n in ethr['ethr/connections/parallel=1']['notes'] if 'open-files' in n]
    # no NIC sample: the stand-in moves no data (tests/unit/plugins/modules/test_ethr.py checks the
    # window of ethr's NIC rates on its real output)
    assert ethr['ethr/tcp_stream/parallel=1']['nic'] is None
    assert '3 ok, 0 failed, 0 skipped' in res.stdout


def test_a_server_out_of_file_descriptors_fails_its_record(lab, tmp_path):
    # issue #29.2: each test is checked on its own window of the server log, which the accept errors of
    # the tests before it filled (8 MiB): the stand-in logs 60000 per test with 2 threads, 120000 with 4
    res, records = benchmark(lab, tmp_path, 'itethr-nofile', suite=NOFILE_SUITE, benchmark_server_nofile=1024,
                             perflab_install_tools=False)
    assert res.rc == 0, res.stdout[-5000:]
    repeated = sorted((r for r in records if r['test_id'] == 'ethr/connections/parallel=2'),
                      key=lambda r: r['repetition'])
    assert [r['repetition'] for r in repeated] == [1, 2, 3]
    for connections in repeated:
        assert connections['status'] == 'failed', (connections['repetition'], connections['notes'])
        # its own 60000, not what the tests before it left (the log is emptied after each check)
        assert connections['error'].startswith('the ethr server hit its open-files limit (soft nofile 1024): '
                                               '60000 accept error(s)'), connections['error']
        assert 'too many open files' in connections['error']
        assert not [n for n in connections['notes'] if 'reached its bound' in n], connections['notes']
        # its values are kept, and a failed record carries no NIC rates as results
        assert connections['metrics']['connections_per_s']['value'] == pytest.approx(11300.0)
        assert not [name for name in connections['metrics'] if name.startswith('nic_')]
    # one test whose errors alone fill the log: a lower bound, and the record says the log was full
    full = [r for r in records if r['test_id'] == 'ethr/connections/parallel=4'][0]
    assert full['status'] == 'failed'
    assert 'soft nofile 1024): at least ' in full['error'], full['error']
    assert [n for n in full['notes'] if 'the server log was checked only in part: it reached its bound' in n]
    assert [r['status'] for r in records if r['tool'] == 'ethr' and 'connections' not in r['test_id']] == ['ok']


def test_a_stage_that_fails_before_the_tests_leaves_a_failed_record_per_planned_test(lab, tmp_path):
    res, records = benchmark(lab, tmp_path, 'itethr-stage', benchmark_server_nofile=100000000,
                             perflab_install_tools=False)
    # the run fails (a stage is not a test), and says how many planned tests it recorded as failed
    assert res.rc != 0 and 'planned test(s) that did not run are recorded as failed' in res.stdout, res.stdout[-3000:]
    assert sorted(r['test_id'] for r in records) == sorted(IDS)
    for r in records:
        assert r['status'] == 'failed', r
        assert r['error'].startswith('not run: the stage "Start the test servers on the data address'), r['error']
        assert 'nofile' in r['error']
    assert '0 ok, 3 failed, 0 skipped' in res.stdout
