# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The study, for real: tools installed over SSH, stock vs tuned with the quick
suite between two lab hosts, every result in the JSONL, resume after an interrupt."""
from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

import pytest
import yaml

from conftest import BIN, ENV, ROOT, run_playbook

from ansible_collections.perflab.network.plugins.module_utils.report import store

pytestmark = pytest.mark.lab
NAME, MGMT, DATA = 'itstudy', '10.235.0.0/24', '10.235.1.0/24'
SUITE = ROOT / 'roles' / 'benchmark' / 'files' / 'suites' / 'quick.yml'
DURATION = 2


def quick_test_ids():
    sys.path.insert(0, str(ROOT / '.collections'))
    from ansible_collections.perflab.network.plugins.module_utils.plan import suite
    return [t['test_id'] for t in suite.expand_suite(yaml.safe_load(SUITE.read_text()))]


def read_jsonl(path):
    records = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line:
                records.append(json.loads(line))
    return records


@pytest.fixture(scope='module')
def lab(lab_factory):
    return lab_factory(NAME, hosts=2, mgmt=MGMT, data=DATA)


@pytest.fixture(scope='module')
def study(lab, tmp_path_factory):
    results = tmp_path_factory.mktemp('results')
    res = run_playbook('playbooks/stock_vs_tuned.yml', lab.inventory,
                       {'perflab_suite': 'quick', 'perflab_duration': DURATION, 'perflab_run_id': 'itstudy-svt',
                        'perflab_results_dir': str(results)},
                       env={'PERFLAB_RESULTS_DIR': str(results)})
    return res, results


def test_stock_vs_tuned_records_every_test_for_both_labels(study, lab):
    res, results = study
    # the default labels name the full OS version and the profile (docs/studies.md)
    base = 'Debian ' + lab.ssh('lab1', ['cat', '/etc/debian_version'], check=True).stdout.strip()
    assert res.rc == 0, res.stdout[-5000:] + res.stderr[-2000:]
    records = [r for r in read_jsonl(results / 'itstudy-svt.jsonl') if r['schema'] == 'perflab.result/2']
    by_label = {}
    for r in records:
        by_label.setdefault(r['config'], {})[r['test_id']] = r
    assert sorted(by_label) == [base + ' stock', base + ' tuned-throughput']
    for label, tests in by_label.items():
        assert sorted(tests) == sorted(quick_test_ids()), label
        for tid, r in tests.items():
            if r['tool'] == 'ethr' and not os.environ.get('PERFLAB_ETHR_BINARY'):
                assert r['status'] == 'skipped' and 'ethr' in r['error'], r
                continue
            assert r['status'] == 'ok', (label, tid, r['error'], r['raw'][-500:])
            assert r['metrics'][r['primary']]['value'] > 0
            assert r['client']['name'] == 'lab2' and r['server']['name'] == 'lab1'
    systems = [r for r in read_jsonl(results / 'itstudy-svt.jsonl') if r['schema'] == 'perflab.system/1']
    assert {(s['host'], s['config']) for s in systems} >= {('lab1', base + ' stock'), ('lab2', base + ' tuned-throughput')}
    workbook = results / 'itstudy-svt.xlsx'
    assert workbook.exists()
    import openpyxl
    book = openpyxl.load_workbook(workbook, read_only=True)
    assert {'Summary', 'Systems', 'Intervals', 'Raw'} <= set(book.sheetnames)
    soffice = shutil.which('soffice') or shutil.which('libreoffice')
    if soffice:  # the workbook of a real study converts to PDF (LibreOffice headless)
        out = results / 'pdf'
        conv = subprocess.run([soffice, '--headless', '--convert-to', 'pdf', '--outdir', str(out), str(workbook)],
                              capture_output=True, text=True, timeout=300, check=False,
                              env=dict(os.environ, HOME=str(results)))
        assert conv.returncode == 0 and (out / 'itstudy-svt.pdf').stat().st_size > 0, conv.stdout + conv.stderr


def test_progress_counts_the_whole_study(study):
    """The progress lines count stock and tuned as one study: the last one says [N/N], N both halves."""
    res, _results = study
    counters = re.findall(r'^\[(\d+)/(\d+)\] ', res.stdout, re.M)
    n = 2 * len(quick_test_ids())
    assert counters, res.stdout[-3000:]
    assert counters[0] == ('1', str(n)) and counters[-1] == (str(n), str(n)), counters
    assert all(int(done) <= int(total) for done, total in counters)


def test_study_leaves_no_server_and_restores_stock(study, lab):
    res = study[0]
    assert res.rc == 0
    for host in ('lab1', 'lab2'):
        ps = lab.ssh(host, ['ps', '-eo', 'comm='], check=True).stdout.split()
        assert not {'iperf3', 'netserver', 'nuttcp', 'ethr', 'sockperf'} & set(ps), (host, ps)
        assert lab.ssh(host, ['test', '-e', '/var/lib/perflab/tuning/stock.json']).returncode == 1


def test_preflight_refuses_bad_plans_before_any_change(lab):
    for extra, message in [({'perflab_suite': 'nope'}, "unknown suite 'nope'"),
                           ({'perflab_duration': 0}, 'perflab_duration'),
                           ({'perflab_repetitions': 500}, 'perflab_repetitions'),
                           ({'perflab_suite': str(ROOT / 'tests' / 'integration' / 'files' / 'empty-suite.yml')}, 'has no tests')]:
        before = lab.ssh('lab1', ['sh', '-c', 'ls /var/lib/perflab /opt 2>/dev/null; dpkg -l | wc -l']).stdout
        res = run_playbook('playbooks/benchmark.yml', lab.inventory, extra)
        assert res.rc != 0 and message in res.stdout, (extra, res.stdout[-3000:])
        assert 'Install the tools' not in [t['task']['name'] for p in res.plays for t in p.get('tasks', [])]
        assert lab.ssh('lab1', ['sh', '-c', 'ls /var/lib/perflab /opt 2>/dev/null; dpkg -l | wc -l']).stdout == before


@pytest.mark.long
def test_interrupted_run_resumes_with_only_what_was_missing(lab, tmp_path):
    run_id = 'itstudy-resume'
    argv = [str(BIN / 'ansible-playbook'), str(ROOT / 'playbooks' / 'benchmark.yml'), '-i', str(lab.inventory),
            '-e', json.dumps({'perflab_suite': 'quick', 'perflab_duration': DURATION, 'perflab_run_id': run_id,
                              'perflab_results_dir': str(tmp_path)})]
    env = dict(ENV, PERFLAB_RESULTS_DIR=str(tmp_path))
    proc = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True)
    path = tmp_path / (run_id + '.jsonl')
    deadline = time.time() + 900  # the tools are installed first when this test runs alone
    # interrupt once two tests are recorded
    while time.time() < deadline:
        if path.exists() and sum(1 for r in read_jsonl(path) if r['schema'] == 'perflab.result/2' and r['status'] == 'ok') >= 2:
            break
        time.sleep(0.5)
    os.killpg(proc.pid, signal.SIGINT)
    try:
        proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    first = [r for r in read_jsonl(path) if r['schema'] == 'perflab.result/2']
    done_first = {r['test_id'] for r in first if r['status'] == 'ok'}
    assert 2 <= len(done_first) < len(quick_test_ids())
    # no test server outlives the interrupt for long (the role stops them in `always`, the idle timeout else)
    res = run_playbook('playbooks/benchmark.yml', lab.inventory,
                       {'perflab_suite': 'quick', 'perflab_duration': DURATION, 'perflab_run_id': run_id,
                        'perflab_results_dir': str(tmp_path), 'perflab_install_tools': False},
                       env={'PERFLAB_RESULTS_DIR': str(tmp_path)})
    assert res.rc == 0, res.stdout[-4000:]
    second = [r for r in read_jsonl(path) if r['schema'] == 'perflab.result/2'][len(first):]
    ran_again = {r['test_id'] for r in second if r['status'] == 'ok'}
    assert not ran_again & done_first
    assert done_first | ran_again | {r['test_id'] for r in second if r['status'] == 'skipped'} == set(quick_test_ids())


@pytest.mark.long
def test_the_noise_floor_study_compares_two_identical_runs(lab, tmp_path):
    """playbooks/noise_floor.yml: the same suite twice on the unchanged hosts, interleaved (A B B A A B),
    one run id, B compared with A in the text view with an interval and a verdict; nothing is tuned or
    left behind."""
    results = tmp_path / 'results'
    suite = tmp_path / 'aa.yml'
    suite.write_text(yaml.safe_dump({'name': 'aa', 'description': 'A/A', 'defaults': {'duration': 1, 'repetitions': 3},
                                     'tests': [{'tool': 'iperf3', 'test': 'tcp_stream'},
                                               {'tool': 'netperf', 'test': 'tcp_rr'}]}))
    res = run_playbook('playbooks/noise_floor.yml', lab.inventory,
                       {'perflab_suite': str(suite), 'perflab_run_id': 'itstudy-aa', 'perflab_results_dir': str(results)})
    assert res.rc == 0, res.stdout[-3000:]
    lines = read_jsonl(results / 'itstudy-aa.jsonl')
    # read as the report reads them: each record with its amendment (the server side, read after the client's tests)
    records = store.read_files([str(results / 'itstudy-aa.jsonl')])[0]
    base = 'Debian ' + lab.ssh('lab1', ['cat', '/etc/debian_version'], check=True).stdout.strip()
    configs = sorted(set(r['config'] for r in records))
    assert configs == [base + ' stock (A)', base + ' stock (B)'], configs
    assert len(records) == 2 * 2 * 3 and all(r['status'] == 'ok' for r in records), \
        [(r['test_id'], r['config'], r['status'], r['error']) for r in records]
    # interleaved: blocks A B B A A B of one repetition of each test, in that order in time, nothing switched
    by_block = {}
    for r in records:
        assert r['design'] == 'interleaved' and r['design_switch_s'] is None, r
        by_block.setdefault(r['design_block'], set()).add(r['config'][-2])
    assert [''.join(by_block[b]) for b in sorted(by_block)] == list('ABBAAB'), by_block
    in_time = [r['config'][-2] for r in sorted(records, key=lambda r: r['started_at'])]
    assert ''.join(in_time[::2]) == 'ABBAAB', in_time
    # issue 27.4 through the role: the server host sampled beside its servers; every record has the server's
    # interface, MTU and link speed (a veth's: 10000) and its CPU over the test's seconds, from one amendment line each
    server = lab.hostvars()['lab1']
    assert sum(1 for line in lines if line['schema'] == 'perflab.amendment/1') == len(records)
    for r in records:
        assert (r['server']['interface'], r['server']['link_mbps']) == (server['perflab_data_interface'], 10000.0), r['server']
        assert r['server']['mtu'] == r['client']['mtu'] > 0, (r['server'], r['client'])
        assert r['limited_by']['server']['cpu']['busiest'] and r['limited_by']['server']['cpu']['cores'], r['limited_by']
    view = (results / 'itstudy-aa.txt').read_text()
    # every B line carries its change, the change's interval and a verdict word
    b_lines = [line for line in view.splitlines() if line.strip().startswith(base + ' stock (B)')]
    assert len(b_lines) == 2, view
    verdicts = ('better', 'worse', 'no significant change', 'too noisy', 'below minimum change')
    assert all(re.search(r'[+-]\d+\.\d%% \[[+-]\d+\.\d, [+-]\d+\.\d\] (%s)' % '|'.join(verdicts), line)
               for line in b_lines), b_lines
    for host in ('lab1', 'lab2'):
        assert lab.ssh(host, ['test', '-e', '/run/perflab/run.lock']).returncode == 1
