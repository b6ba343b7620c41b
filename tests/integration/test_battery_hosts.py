# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The battery, one failing host among healthy pairs, resumes that changed, copied result files (issue 29,
points 9, 13 and 15), on a lab of our own: "i29h", 4 hosts (pairs lab2->lab1 and lab4->lab3), each behind a
default-deny firewall.

Faults: a host without python3 in one pair of two; ANSIBLE_STRATEGY=free with a failing host; one pair's
failed MTU 9000 check in stock_vs_tuned; then the run of the first fault resumed on healthy hosts (only the
failed pair runs: the matching accepts the run's own records). In each, the healthy pair is measured, the
failed pair's tests are recorded failed with the reason, no finished result is lost (the witness callback),
and every host is left as it was (no server, no lock, no firewall opening, MTU 1500, no snapshot).
Bad input: the same run resumed with another duration, other options, another suite, other pairs: each is
refused on localhost, naming what differs, before anything changes. The report: a backup copy of a run's
file in the results folder is counted once, and the report says so.
Runs are shared: the first fault's run is the one the resumes and the report read.
"""
from __future__ import annotations

import json
import shutil
import subprocess

import pytest
import yaml

import battery
from conftest import BIN, ENV, ROOT, run_playbook
from test_battery_faults import WITNESS_PLUGINS, read_jsonl_strict, record_key, results_of

pytestmark = pytest.mark.lab
NAME, MGMT, DATA = 'i29h', '10.173.0.0/24', '10.173.1.0/24'
HOSTS = ('lab1', 'lab2', 'lab3', 'lab4')
LOCK = '/run/perflab/run.lock'
BLOCK = 'perflab_i29h_blackhole'
SUITE = {'name': 'h29', 'description': 'issue 29 hosts battery', 'defaults': {'duration': 2, 'repetitions': 1},
         'tests': [{'tool': 'iperf3', 'test': 'tcp_stream'}]}


@pytest.fixture(scope='module')
def lab(lab_factory):
    lab = lab_factory(NAME, hosts=4, mgmt=MGMT, data=DATA, firewall='default-deny')
    res = subprocess.run([str(BIN / 'ansible'), 'perflab_lab', '-i', str(lab.inventory), '-m', 'ansible.builtin.include_role',
                          '-a', 'name=perflab.network.tools', '-e', json.dumps({'tools_list': ['iperf3']})],
                         cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=900, check=False)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-2000:]
    return lab


@pytest.fixture(scope='module')
def work(tmp_path_factory):
    work = tmp_path_factory.mktemp('i29h')
    write_suite(work / 'h29.yml', SUITE)
    return work


def write_suite(path, suite):
    path.write_text(yaml.safe_dump(suite))
    return path


def no_python(work, host):
    """An inventory source that gives ``host`` an interpreter that does not exist: a host without python3."""
    path = work / ('no-python-%s.yml' % host)
    path.write_text(yaml.safe_dump({'all': {'children': {'perflab_lab': {'hosts': {
        host: {'ansible_python_interpreter': '/nonexistent/python3'}}}}}}))
    return path


class Play:
    def __init__(self, work, run_id, proc, witness):
        self.run_id, self.rc, self.witness = run_id, proc.returncode, witness
        self.output = proc.stdout + proc.stderr
        self.flat = ' '.join(self.output.split())
        self.jsonl = work / 'results' / ('%s.jsonl' % run_id)

    def records(self):
        return results_of(read_jsonl_strict(self.jsonl))

    def by_pair(self, config=None):
        return dict(('%s->%s' % (r['client']['name'], r['server']['name']), r) for r in self.records()
                    if config is None or r['config'].endswith(config))

    def lost(self):
        """Records the run reported (the witness) that are not in its results file."""
        reported = [json.loads(line) for line in self.witness.read_text().splitlines() if line.strip()] \
            if self.witness.exists() else []
        stored = set(record_key(r) for r in self.records())
        return len(set(record_key(r) for r in reported if r.get('test_id')) - stored)


def play(lab, work, run_id, playbook='benchmark.yml', extra=None, env=None, inventories=(), suite='h29.yml',
         timeout=900):
    ev = {'perflab_run_id': run_id, 'perflab_results_dir': str(work / 'results'), 'perflab_install_tools': False,
          'perflab_suite': str(work / suite)}
    ev.update(extra or {})
    witness = work / ('witness-%s-%d.jsonl' % (run_id, len(list(work.glob('witness-*')))))
    run_env = dict(ENV, PERFLAB_WITNESS=str(witness), ANSIBLE_CALLBACK_PLUGINS=str(WITNESS_PLUGINS),
                   ANSIBLE_CALLBACKS_ENABLED='perflab.network.results,fault_witness')
    run_env.update(env or {})
    argv = [str(BIN / 'ansible-playbook'), str(ROOT / 'playbooks' / playbook), '-i', str(lab.inventory)]
    for extra_inventory in inventories:
        argv += ['-i', str(extra_inventory)]
    proc = subprocess.run(argv + ['-e', json.dumps(ev)], cwd=ROOT, env=run_env, capture_output=True, text=True,
                          timeout=timeout, check=False)
    return Play(work, run_id, proc, witness)


def host_state(lab):
    """What a run must leave as it found it on each host: tool processes, the run lock, our firewall
    openings, the data MTU, the configuration snapshots."""
    script = ('pgrep -x iperf3 >/dev/null && echo server-running; test -e %s && echo locked; '
              'nft list ruleset | grep -c "perflab:" | sed "s/^/openings=/"; '
              'echo mtu=$(cat /sys/class/net/data0/mtu); ls /var/lib/perflab 2>/dev/null | sed "s/^/snapshot=/"' % LOCK)
    return dict((host, sorted(lab.ssh(host, ['sh', '-c', script], timeout=60).stdout.split())) for host in HOSTS)


CLEAN = ['mtu=1500', 'openings=0']


def check_clean(lab):
    state = host_state(lab)
    assert all(lines == CLEAN for lines in state.values()), state


def check_no_crash(run):
    for text in ("has no attribute '__benchmark_label'", "'benchmark_summary' is undefined", 'HostVarsVars'):
        assert text not in run.output, '%s in the output: %s' % (text, run.output[-3000:])


def test_a_host_without_python_leaves_only_its_pair_out(lab, work):
    with battery.case('fault', 'host without python3 in one pair of two') as case:
        run = play(lab, work, 'h29a', inventories=[no_python(work, 'lab3')])
        check_no_crash(run)
        assert run.rc == 2, run.output[-3000:]   # a host failed: the run says so
        pairs = run.by_pair()
        assert sorted(pairs) == ['lab2->lab1', 'lab4->lab3'], (pairs, run.output[-6000:])
        assert pairs['lab2->lab1']['status'] == 'ok', pairs['lab2->lab1']
        failed = pairs['lab4->lab3']
        assert failed['status'] == 'failed' and failed['error'].startswith('not run: lab3 failed before the tests'), failed
        assert failed['config'] == pairs['lab2->lab1']['config']   # the column the pair would have filled
        assert '1 ok, 1 failed, 0 skipped' in run.flat, run.flat[-2000:]
        assert run.lost() == 0
        check_clean(lab)
        case.detail = 'lab2->lab1 ok; lab4->lab3 failed: %s' % failed['error'][:70]

    with battery.case('fault', 'resume after a failed host: only its pair runs') as case:
        again = play(lab, work, 'h29a')
        assert again.rc == 0, again.output[-3000:]
        assert '1 runs to do, 1 already recorded' in again.flat, again.flat[-3000:]
        statuses = sorted((r['client']['name'], r['status']) for r in again.records())
        assert statuses == [('lab2', 'ok'), ('lab4', 'failed'), ('lab4', 'ok')], statuses
        assert again.lost() == 0
        check_clean(lab)
        case.detail = 'same parameters: accepted, 1 already recorded, lab4->lab3 measured'


RESUMES = [
    ('resume with another duration', {'perflab_duration': 5}, 'h29.yml',
     ['duration: iperf3/tcp_stream/parallel=1 (2 s recorded, 5 s asked now)']),
    ('resume with other options', {}, 'h29-options.yml',
     ['options: iperf3/tcp_stream/parallel=1 (connect_timeout unset recorded, 3000 asked now)']),
    ('resume with another suite', {}, 'h29-other.yml', ['suite: the run recorded suite h29, this run asks for h29b']),
    ('resume with other pairs', {'benchmark_pairs': [{'client': 'lab2', 'server': 'lab1'}]}, 'h29.yml',
     ['pairs: the run recorded lab4->lab3, which this run does not plan (it plans lab2->lab1)']),
]


def test_a_resume_that_changed_the_tests_is_refused(lab, work):
    write_suite(work / 'h29-options.yml', dict(SUITE, tests=[dict(SUITE['tests'][0], options={'connect_timeout': 3000})]))
    write_suite(work / 'h29-other.yml', dict(SUITE, name='h29b'))
    jsonl = work / 'results' / 'h29a.jsonl'
    assert jsonl.exists(), 'needs the run of test_a_host_without_python_leaves_only_its_pair_out'
    failures = []
    for name, extra, suite, wanted in RESUMES:
        with battery.collect(failures, name), battery.case('bad input', name) as case:
            before, state = jsonl.read_bytes(), host_state(lab)
            run = play(lab, work, 'h29a', extra=extra, suite=suite)
            assert run.rc != 0, run.output[-2000:]
            assert 'run h29a cannot be resumed: its results file holds runs made with other test parameters' in run.flat
            for text in wanted:
                assert text in run.flat, run.flat[-2500:]
            # refused on localhost before any host was touched
            assert 'lab1' not in ' '.join(line for line in run.output.splitlines() if line.startswith(('ok:', 'changed:')))
            assert jsonl.read_bytes() == before and host_state(lab) == state
            case.detail = wanted[0][:100]
    assert not failures, failures


def test_a_copied_results_file_is_counted_once(lab, work):
    with battery.case('fault', 'backup copy of a results file in the folder') as case:
        results = work / 'results'
        assert (results / 'h29a.jsonl').exists(), 'needs the run of test_a_host_without_python_leaves_only_its_pair_out'
        alone = run_playbook('playbooks/report.yml', None, {'perflab_results_dir': str(results),
                                                            'perflab_run_ids': ['h29a']}, timeout=300)
        shutil.copy(str(results / 'h29a.jsonl'), str(results / 'h29a-backup.jsonl'))
        both = run_playbook('playbooks/report.yml', None, {'perflab_results_dir': str(results),
                                                           'perflab_run_ids': ['h29a', 'h29a-backup']}, timeout=300)
        (results / 'h29a-backup.jsonl').unlink()
        assert alone.rc == 0 and both.rc == 0, both.stdout[-3000:]
        one = alone.task_results('Build the workbook and the exports')['localhost']
        two = both.task_results('Build the workbook and the exports')['localhost']
        assert (two['records'], two['records_ok'], two['records_failed']) == \
            (one['records'], one['records_ok'], one['records_failed']) == (3, 2, 1), two
        copies = sum(two['duplicates'].values())
        assert list(two['duplicates']) == [str(results / 'h29a-backup.jsonl')] and copies >= 3, two['duplicates']
        assert 'read more than once and counted once' in ' '.join(both.stdout.split())
        case.detail = '%d copies counted once, said in the warnings and the summary' % copies


def test_strategy_free_with_a_failing_host(lab, work):
    with battery.case('fault', 'ANSIBLE_STRATEGY=free with a failing host') as case:
        run = play(lab, work, 'h29f', env={'ANSIBLE_STRATEGY': 'free'}, inventories=[no_python(work, 'lab2')])
        check_no_crash(run)
        assert run.rc == 2, run.output[-3000:]
        pairs = run.by_pair()
        assert pairs['lab4->lab3']['status'] == 'ok', pairs
        assert pairs['lab2->lab1']['status'] == 'failed' and 'lab2 failed before the tests' in pairs['lab2->lab1']['error']
        assert run.lost() == 0
        check_clean(lab)
        case.detail = 'lab4->lab3 ok, lab2->lab1 failed with the reason'


def test_one_pairs_failed_mtu_check_in_a_tuned_run(lab, work):
    with battery.case('fault', "one pair's MTU 9000 check fails in stock_vs_tuned") as case:
        # lab3 drops every frame above 1600 bytes on its data link: the MTU 9000 proof of lab3 and lab4 fails
        block = ('nft add table inet {t}; nft add chain inet {t} input "{{ type filter hook input priority -5; }}"; '
                 'nft add rule inet {t} input iifname data0 meta length gt 1600 drop').format(t=BLOCK)
        assert lab.ssh('lab3', ['sh', '-c', block], timeout=60).returncode == 0
        try:
            run = play(lab, work, 'h29t', playbook='stock_vs_tuned.yml', extra={'perflab_tuned_mtu': 9000})
        finally:
            lab.ssh('lab3', ['nft', 'delete', 'table', 'inet', BLOCK], timeout=60)
        check_no_crash(run)
        assert run.rc == 2, run.output[-3000:]
        stock, tuned = run.by_pair(' stock'), run.by_pair('tuned-throughput')
        assert [r['status'] for r in stock.values()] == ['ok', 'ok'], stock
        assert tuned['lab2->lab1']['status'] == 'ok', tuned   # the healthy pair measured tuned
        error = tuned['lab4->lab3']['error']
        assert tuned['lab4->lab3']['status'] == 'failed' and 'lab3 failed before the tests' in error, error
        assert 'Prove the path carries the MTU' in error, error
        assert run.lost() == 0
        check_clean(lab)   # MTU 1500, no tuning or MTU snapshot, no opening: on every host
        case.detail = 'healthy pair measured tuned; lab4->lab3 failed (MTU proof); all reverted'
