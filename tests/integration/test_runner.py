# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Our playbooks run through ansible-runner, as AWX runs them, against a lab of our own.

Each test builds the private data directory that docs/ansible-runner.md
describes (env/extravars, env/envvars, env/settings, inventory/, project ->
this checkout), runs ansible_runner.run() and checks runner's artifacts: status,
rc, job events, the stats event and its artifact_data (what set_stats
published, what AWX hands to the next workflow node), and the result files.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

ansible_runner = pytest.importorskip('ansible_runner')

from conftest import BIN, ROOT  # noqa: E402  (tests/integration is on sys.path under pytest)

LAB = dict(hosts=2, mgmt='10.207.0.0/24', data='10.207.1.0/24')
RESULTS_CALLBACK = ROOT / 'plugins' / 'callback' / 'results.py'
RESULT_FIXTURES = ROOT / 'tests' / 'unit' / 'fixtures' / 'results'
RANGES = yaml.safe_load((ROOT / 'playbooks' / 'vars' / 'study_ranges.yml').read_text())['perflab_ranges']
VALIDATION_ACTIONS = {'validate_argument_spec', 'assert', 'fail'}


@pytest.fixture(autouse=True)
def _venv_on_path(monkeypatch):
    # runner starts `ansible-playbook` from PATH, as AWX does inside an EE
    monkeypatch.setenv('PATH', '%s:%s' % (BIN, os.environ.get('PATH', '')))


@pytest.fixture(scope='module')
def lab(lab_factory):
    return lab_factory('h7', **LAB)


def make_private_data_dir(base, inventory=None, extravars=None, results_dir=None):
    """The private data directory of docs/ansible-runner.md."""
    pdd = base / 'runner'
    (pdd / 'env').mkdir(parents=True)
    (pdd / 'inventory').mkdir()
    # project: the checkout itself (its ansible.cfg and .collections link come along)
    (pdd / 'project').symlink_to(ROOT, target_is_directory=True)
    if inventory:
        shutil.copy(inventory, pdd / 'inventory' / 'hosts.yml')
    envvars = {
        'ANSIBLE_CONFIG': str(pdd / 'project' / 'ansible.cfg'),
        'ANSIBLE_CALLBACKS_ENABLED': 'perflab.network.results',
    }
    if results_dir:
        envvars['PERFLAB_RESULTS_DIR'] = str(results_dir)
    (pdd / 'env' / 'envvars').write_text(yaml.safe_dump(envvars))
    (pdd / 'env' / 'extravars').write_text(yaml.safe_dump(extravars or {}))
    (pdd / 'env' / 'settings').write_text(yaml.safe_dump({'job_timeout': 1800, 'suppress_ansible_output': True}))
    return pdd


def run(pdd, playbook, ident):
    return ansible_runner.run(private_data_dir=str(pdd), playbook=playbook, ident=ident, quiet=True)


def artifact_dir(pdd, ident):
    return pdd / 'artifacts' / ident


def stats_event(events):
    found = [e for e in events if e.get('event') == 'playbook_on_stats']
    assert len(found) == 1, 'expected one playbook_on_stats event, got %d' % len(found)
    return found[0]['event_data']


def host_state(lab, host):
    """What the study changes on a host: congestion control, TCP buffers, data MTU."""
    out = {}
    for key in ('net.ipv4.tcp_congestion_control', 'net.ipv4.tcp_rmem', 'net.ipv4.tcp_wmem'):
        out[key] = lab.ssh(host, ['sysctl', '-n', key], check=True).stdout.strip()
    out['mtu'] = lab.ssh(host, ['cat', '/sys/class/net/data0/mtu'], check=True).stdout.strip()
    return out


def short_action(event):
    return (event['event_data'].get('task_action') or '').rsplit('.', 1)[-1]


def need_playbook(name):
    path = ROOT / 'playbooks' / name
    if not path.exists():
        pytest.skip('playbooks/%s does not exist yet' % name)
    return path


@pytest.mark.lab
def test_lab_smoke_through_runner(lab, tmp_path):
    pdd = make_private_data_dir(tmp_path, lab.inventory, results_dir=tmp_path / 'results')
    r = run(pdd, 'playbooks/lab_smoke.yml', 'smoke')
    adir = artifact_dir(pdd, 'smoke')
    stdout = (adir / 'stdout').read_text()
    assert (r.status, r.rc) == ('successful', 0), stdout[-3000:]

    # runner's artifacts, as AWX reads them
    assert (adir / 'status').read_text() == 'successful'
    assert (adir / 'rc').read_text() == '0'
    command = json.loads((adir / 'command').read_text())
    assert command['cwd'] == str(pdd / 'project')
    assert command['command'][-1] == 'playbooks/lab_smoke.yml'
    assert str(pdd / 'inventory') in command['command']
    assert '@%s' % (pdd / 'env' / 'extravars') in command['command']
    assert len(list((adir / 'job_events').glob('*.json'))) > 0

    events = list(r.events)
    kinds = [e['event'] for e in events]
    assert kinds[0] == 'playbook_on_start' and 'playbook_on_stats' in kinds
    pinged = {e['event_data']['host'] for e in events
              if e['event'] == 'runner_on_ok' and e['event_data']['task'] == 'Ping the next host over the data link'}
    assert pinged == {'lab1', 'lab2'}
    stats = stats_event(events)
    assert set(stats['ok']) == {'lab1', 'lab2'}
    assert not stats['failures'] and not stats['dark']
    assert r.stats['processed'] == {'lab1': 1, 'lab2': 1}
    # the stdout callback of runner is awx_display; the results callback ran beside it
    assert 'PLAY RECAP' in stdout
    assert (tmp_path / 'results').is_dir()


def test_report_through_runner(tmp_path):
    """report.yml on the controller only: set_stats reaches runner's artifact_data."""
    need_playbook('report.yml')
    sources = [RESULT_FIXTURES / 'stock.jsonl', RESULT_FIXTURES / 'tuned.jsonl']
    if not all(p.exists() for p in sources):
        pytest.skip('result fixtures %s are missing' % ', '.join(str(p) for p in sources))
    results = tmp_path / 'results'
    dest = results / 'stock-vs-tuned.xlsx'
    pdd = make_private_data_dir(tmp_path, results_dir=results,
                                extravars={'perflab_report_src': [str(p) for p in sources],
                                           'perflab_report_dest': str(dest)})
    r = run(pdd, 'playbooks/report.yml', 'report')
    assert (r.status, r.rc) == ('successful', 0), (artifact_dir(pdd, 'report') / 'stdout').read_text()[-3000:]

    lines = [json.loads(line) for p in sources for line in p.read_text().splitlines() if line.strip()]
    records = [d for d in lines if d.get('schema', '').startswith('perflab.result/')]
    configs = list(dict.fromkeys(d['config'] for d in records))

    published = stats_event(r.events)['artifact_data']['perflab_report']
    assert published['workbook'] == str(dest)
    assert published['records'] == len(records)
    assert published['records_failed'] == sum(1 for d in records if d['status'] == 'failed')
    assert published['configurations'] == configs
    assert published['baseline'] == configs[0]
    assert dest.is_file() and all(Path(p).is_file() for p in published['exports'])
    openpyxl = pytest.importorskip('openpyxl')
    assert len(openpyxl.load_workbook(dest, read_only=True).sheetnames) > 1


# Bad survey answers: each must stop the run at argument validation, naming the
# variable, before any task changes a host.
def _range(variable):
    return [str(v) for v in RANGES[variable]]


# (playbook, answers, the variable the failure must name, what else it must mention)
BAD_ANSWERS = [
    ('stock_vs_tuned.yml', {'perflab_tuning_profile': 'bogus'}, 'perflab_tuning_profile', ['bogus']),
    ('stock_vs_tuned.yml', {'perflab_repetitions': 0}, 'perflab_repetitions', ['0'] + _range('perflab_repetitions')),
    ('stock_vs_tuned.yml', {'perflab_tuned_mtu': 20000}, 'perflab_tuned_mtu', ['20000'] + _range('perflab_tuned_mtu')),
    # inside the survey's 0..9216 but below the IPv4 minimum: only the playbook can refuse it
    ('stock_vs_tuned.yml', {'perflab_tuned_mtu': 50}, 'perflab_tuned_mtu', ['50', '68']),
    ('stock_vs_tuned.yml', {'perflab_duration': 'ten'}, 'perflab_duration', ['ten']),
    ('benchmark.yml', {'perflab_repetitions': 0}, 'perflab_repetitions', ['0'] + _range('perflab_repetitions')),
    ('benchmark.yml', {'perflab_duration': 3601}, 'perflab_duration', ['3601'] + _range('perflab_duration')),
    ('revert.yml', {'perflab_tuning_profile': 'bogus'}, 'perflab_tuning_profile', ['bogus']),
]


@pytest.mark.lab
@pytest.mark.parametrize('playbook,answers,variable,mentions', BAD_ANSWERS,
                         ids=['%s-%s' % (case[0].split('.')[0], '-'.join('%s=%s' % kv for kv in case[1].items())) for case in BAD_ANSWERS])
def test_bad_survey_answers_fail_validation(lab, tmp_path, playbook, answers, variable, mentions):
    need_playbook(playbook)
    before = {h: host_state(lab, h) for h in ('lab1', 'lab2')}
    extravars = dict({'perflab_suite': 'quick', 'perflab_duration': 1, 'perflab_repetitions': 1}, **answers)
    pdd = make_private_data_dir(tmp_path, lab.inventory, extravars=extravars, results_dir=tmp_path / 'results')
    r = run(pdd, 'playbooks/' + playbook, 'bad')
    stdout = (artifact_dir(pdd, 'bad') / 'stdout').read_text()
    assert r.status == 'failed' and r.rc != 0, stdout[-3000:]

    events = list(r.events)
    failed = [e for e in events if e['event'] == 'runner_on_failed' and not e['event_data'].get('ignore_errors')]
    assert failed, 'no failed task in:\n' + stdout[-3000:]
    first = failed[0]
    assert short_action(first) in VALIDATION_ACTIONS, \
        'the run failed in %r, not in argument validation' % first['event_data']['task']
    res = first['event_data']['res']
    message = json.dumps([res.get('msg'), res.get('argument_errors'), res.get('assertion')])
    assert variable in message, 'the failure does not name %s: %s' % (variable, message)
    for text in mentions:
        assert re.search(r'\b%s\b' % re.escape(text), message), 'the failure does not mention %r: %s' % (text, message)

    changed = [e['event_data']['task'] for e in events
               if e['event'] == 'runner_on_ok' and e['event_data'].get('res', {}).get('changed')]
    assert changed == [], 'tasks changed something before validation failed: %s' % changed
    assert {h: host_state(lab, h) for h in ('lab1', 'lab2')} == before


def _strings(data):
    if isinstance(data, dict):
        for v in data.values():
            yield from _strings(v)
    elif isinstance(data, list):
        for v in data:
            yield from _strings(v)
    elif isinstance(data, str):
        yield data


@pytest.mark.lab
@pytest.mark.long
def test_stock_vs_tuned_through_runner(lab, tmp_path):
    need_playbook('stock_vs_tuned.yml')
    before = {h: host_state(lab, h) for h in ('lab1', 'lab2')}
    results = tmp_path / 'results'
    extravars = {'perflab_suite': 'quick', 'perflab_duration': 2, 'perflab_repetitions': 1,
                 'perflab_tuning_profile': 'throughput', 'perflab_tuned_mtu': 9000}
    pdd = make_private_data_dir(tmp_path, lab.inventory, extravars=extravars, results_dir=results)
    r = run(pdd, 'playbooks/stock_vs_tuned.yml', 'study')
    stdout = (artifact_dir(pdd, 'study') / 'stdout').read_text()
    assert (r.status, r.rc) == ('successful', 0), stdout[-4000:]

    events = list(r.events)
    assert any(e['event'] == 'runner_on_ok' and e['event_data'].get('host') == 'lab2' for e in events)
    stats = stats_event(events)
    assert not stats['failures'] and not stats['dark']

    # set_stats: what AWX passes to the next workflow node
    uses_set_stats = any('set_stats' in p.read_text() for p in (ROOT / 'playbooks').glob('*.yml'))
    if uses_set_stats:
        artifact_data = stats['artifact_data']
        assert artifact_data, 'the playbooks call set_stats but runner saw no artifact_data'
        for path in _strings(artifact_data):
            if path.endswith(('.jsonl', '.xlsx')):
                assert Path(path).is_file(), 'published %s does not exist' % path

    if RESULTS_CALLBACK.exists():
        jsonl = sorted(results.glob('*.jsonl'))
        assert jsonl, 'the results callback wrote no JSON lines under %s' % results
        records = [json.loads(line) for p in jsonl for line in p.read_text().splitlines() if line.strip()]
        measured = [d for d in records if d.get('schema', '').startswith('perflab.result/')]
        assert measured and all(d['suite'] == 'quick' for d in measured)
        assert len({d['config'] for d in measured}) == 2, 'expected a stock and a tuned configuration'
        ok = [d for d in measured if d['status'] == 'ok']
        assert ok, 'no test succeeded: %s' % [d.get('error') for d in measured]
        workbooks = sorted(results.glob('*.xlsx'))
        assert workbooks, 'the results callback wrote no workbook under %s' % results
        openpyxl = pytest.importorskip('openpyxl')
        assert len(openpyxl.load_workbook(workbooks[0], read_only=True).sheetnames) > 1

    # perflab_keep_tuned defaults to false: the hosts are stock again
    assert {h: host_state(lab, h) for h in ('lab1', 'lab2')} == before


# The AWX workflow of awx/vars/templates.yml, node by node through ansible-runner,
# passing variables as the controller does: a node's job gets its job template's
# survey defaults and fixed extra_vars, then what the ancestors published with
# set_stats (artifacts), then the workflow's survey answers, each overriding the
# one before.
AWX = yaml.safe_load((ROOT / 'awx' / 'vars' / 'templates.yml').read_text())


def job_extravars(job_template, artifacts, answers):
    survey = job_template['survey_spec'].get('spec', []) if job_template['survey_spec'] else []
    extravars = {q['variable']: q['default'] for q in survey if 'default' in q}
    extravars.update(job_template['extra_vars'])
    extravars.update(artifacts)
    extravars.update(answers)
    return extravars


# The workflow replay (node by node, artifacts handed down as the controller does) is
# tests/integration/test_study_awx.py: through transmit | worker --delete | process, on a lab
# whose hosts drop inbound traffic, with the report restricted to the workflow's run ids.


# ansible-runner's remote path, the one AWX takes through receptor: `transmit` streams
# the private data directory, `worker` runs the job elsewhere and streams back the
# events, the status and its artifact directory (zipped), `process` rebuilds the
# artifacts on the controller side. Three real processes in a pipe.
def runner_pipeline(pdd, worker_dir, process_dir, playbook, ident, timeout=1800):
    runner = str(BIN / 'ansible-runner')
    argvs = [
        [runner, 'transmit', str(pdd), '-p', playbook, '--ident', ident],
        # --delete: the worker removes its directory when the job ends, so what the
        # controller side has afterwards came through the stream
        [runner, 'worker', '--private-data-dir', str(worker_dir), '--delete'],
        [runner, 'process', str(process_dir), '--ident', ident],
    ]
    transmit = subprocess.Popen(argvs[0], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    worker = subprocess.Popen(argvs[1], stdin=transmit.stdout, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    transmit.stdout.close()
    process = subprocess.Popen(argvs[2], stdin=worker.stdout, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    worker.stdout.close()
    out, err = process.communicate(timeout=timeout)
    results = {'process': (process.returncode, out.decode(errors='replace'), err.decode(errors='replace'))}
    for name, proc in (('transmit', transmit), ('worker', worker)):
        proc.wait(timeout=60)
        results[name] = (proc.returncode, '', proc.stderr.read().decode(errors='replace'))
        proc.stderr.close()
    return results


@pytest.mark.lab
def test_benchmark_through_transmit_worker_process(lab, tmp_path):
    need_playbook('benchmark.yml')
    before = {h: host_state(lab, h) for h in ('lab1', 'lab2')}
    worker_dir = tmp_path / 'worker'
    controller_dir = tmp_path / 'controller'
    extravars = {'perflab_suite': 'quick', 'perflab_duration': 2, 'perflab_repetitions': 1}
    # the results directory is on the worker, inside the directory it deletes at the end
    pdd = make_private_data_dir(tmp_path / 'submit', lab.inventory, extravars=extravars,
                                results_dir=worker_dir / 'results')
    ran = runner_pipeline(pdd, worker_dir, controller_dir, 'playbooks/benchmark.yml', 'remote')
    adir = artifact_dir(controller_dir, 'remote')
    stdout = (adir / 'stdout').read_text() if (adir / 'stdout').exists() else ''
    assert ran['transmit'][0] == 0 and ran['worker'][0] == 0 and ran['process'][0] == 0, (ran, stdout[-3000:])

    # the worker ran the job and cleaned up: everything below came back through the stream
    assert not worker_dir.exists()
    assert (adir / 'status').read_text() == 'successful', stdout[-4000:]
    assert (adir / 'rc').read_text() == '0'

    # the job events, rebuilt by `process` from the streamed events
    events = [json.loads(p.read_text()) for p in sorted((adir / 'job_events').glob('*.json'),
                                                        key=lambda p: int(p.name.split('-', 1)[0]))]
    kinds = [e['event'] for e in events]
    assert kinds[0] == 'playbook_on_start' and kinds.count('playbook_on_stats') == 1
    ours = {(e['event_data']['host'], e['event_data']['task_action']) for e in events
            if e['event'] == 'runner_on_ok' and (e['event_data'].get('task_action') or '').startswith('perflab.network.')}
    # our modules ran on both lab hosts (and on localhost: the plan, the study checks)
    assert {h for h, _action in ours} >= {'lab1', 'lab2'}, ours
    assert {a for h, a in ours if h in ('lab1', 'lab2')} >= {'perflab.network.bench_preflight', 'perflab.network.bench_server'}, ours
    stats = stats_event(events)
    assert not stats['failures'] and not stats['dark']

    # set_stats: the summary AWX hands to the next workflow node
    artifact_data = stats['artifact_data']
    run_id = artifact_data['perflab_run_id']
    summary = artifact_data['perflab_summary']
    assert len(summary) == 1 and summary[0]['ok'] > 0 and summary[0]['run_id'] == run_id, summary

    # the result files: in the job's artifacts on the controller side, not only on the worker
    copied = adir / 'perflab_results'
    # the records, the workbook and its text and Markdown views
    assert sorted(p.name for p in copied.iterdir()) == ['%s.%s' % (run_id, ext) for ext in ('jsonl', 'md', 'txt', 'xlsx')]
    records = [json.loads(line) for line in (copied / ('%s.jsonl' % run_id)).read_text().splitlines() if line.strip()]
    measured = [d for d in records if d.get('schema', '').startswith('perflab.result/')]
    assert measured and all(d['suite'] == 'quick' and d['run_id'] == run_id for d in measured)
    # the file that came back holds what the summary counted
    for status in ('ok', 'failed'):
        assert len([d for d in measured if d['status'] == status]) == summary[0][status], (status, summary)
    openpyxl = pytest.importorskip('openpyxl')
    sheets = openpyxl.load_workbook(copied / ('%s.xlsx' % run_id), read_only=True).sheetnames
    assert sheets[0] == 'Summary' and 'Raw' in sheets
    # the submitting side wrote nothing of its own
    assert not (pdd / 'artifacts').exists() and not (tmp_path / 'submit' / 'results').exists()

    # perflab_profile defaults to stock: the hosts are as they were
    assert {h: host_state(lab, h) for h in ('lab1', 'lab2')} == before
