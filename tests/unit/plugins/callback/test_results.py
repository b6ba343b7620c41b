# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""The results callback: driven directly with TaskResult-like objects, then
for real by ansible-playbook against localhost."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import copy
import json
import os
import re
import subprocess
import sys

import pytest
import yaml

from ansible import constants as C

from ansible_collections.perflab.network.plugins.callback import results as results_callback
from ansible_collections.perflab.network.plugins.module_utils.core import record as rec
from ansible_collections.perflab.network.plugins.module_utils.report import store

FIXTURES = os.path.join(os.path.dirname(__file__), '..', '..', 'fixtures', 'results')
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', '..', '..'))
PLUGIN = 'perflab.network.results'


def fixture_lines(name='stock.jsonl'):
    with open(os.path.join(FIXTURES, name)) as handle:
        return [json.loads(line) for line in handle if line.strip()]


RECORDS = [obj for obj in fixture_lines() if obj['schema'] == 'perflab.result/1']
SYSTEMS = [obj for obj in fixture_lines() if obj['schema'] == 'perflab.system/1']


class FakeDisplay(object):
    verbosity = 0

    def __init__(self):
        self.lines = []
        self.warnings = []
        self.errors = []

    def display(self, msg, *args, **kwargs):
        self.lines.append(msg)

    def warning(self, msg, *args, **kwargs):
        self.warnings.append(msg)

    def error(self, msg, *args, **kwargs):
        self.errors.append(msg)

    def vvvv(self, *args, **kwargs):
        pass


class FakeResult(object):
    """What a callback reads of a CallbackTaskResult."""

    def __init__(self, data, host='localhost'):
        self.result = data
        self._host = host


class FakeVariableManager(object):
    def __init__(self, extra_vars=None, play_vars=None):
        self.extra_vars = dict(extra_vars or {})
        self.play_vars = dict(play_vars or {})

    def get_vars(self, play=None, include_hostvars=True):
        merged = dict(self.play_vars)
        merged.update(self.extra_vars)
        return merged


class FakePlay(object):
    def __init__(self, manager):
        self.manager = manager

    def get_variable_manager(self):
        return self.manager

    def get_loader(self):
        return None


class FakePlaybook(object):
    def __init__(self, plays):
        self.plays = plays

    def get_plays(self):
        return list(self.plays)


def make_callback(tmp_path, **options):
    """A configured callback, as the task queue manager makes one (options from its DOCUMENTATION)."""
    definitions = yaml.safe_load(results_callback.DOCUMENTATION)['options']
    C.config.initialize_plugin_configuration_definitions('callback', PLUGIN, definitions)
    callback = results_callback.CallbackModule(display=FakeDisplay())
    callback._load_name = PLUGIN
    direct = {'results_dir': str(tmp_path / 'results'), 'run_id': 'R1'}
    direct.update(options)
    callback.set_options(direct=direct)
    return callback


def start(callback, extra_vars=None, play_vars=None):
    play = FakePlay(FakeVariableManager(extra_vars, play_vars))
    callback.v2_playbook_on_start(FakePlaybook([play]))
    callback.v2_playbook_on_play_start(play)
    return play


def lines_of(path):
    with open(path) as handle:
        return [json.loads(line) for line in handle]


def test_documentation_declares_an_aggregate_callback_that_needs_enabling():
    assert results_callback.CallbackModule.CALLBACK_TYPE == 'aggregate'
    assert results_callback.CallbackModule.CALLBACK_NEEDS_ENABLED is True
    options = yaml.safe_load(results_callback.DOCUMENTATION)['options']
    assert options['results_dir']['env'] == [{'name': 'PERFLAB_RESULTS_DIR'}]
    assert options['results_dir']['ini'] == [{'section': 'callback_perflab_results', 'key': 'results_dir'}]
    assert options['run_id']['vars'] == [{'name': 'perflab_run_id'}]
    assert set(options) >= {'results_dir', 'run_id', 'baseline', 'summary'}


def test_each_record_is_on_disk_as_soon_as_it_arrives(tmp_path):
    callback = make_callback(tmp_path)
    start(callback)
    path = str(tmp_path / 'results' / 'R1.jsonl')
    for number, record in enumerate(RECORDS[:4], 1):
        callback.v2_runner_on_ok(FakeResult({'changed': False, 'perflab_result': [copy.deepcopy(record)]}))
        # read by another handle before anything else happens: the line is there, whole
        assert lines_of(path) == RECORDS[:number]


def test_every_way_a_record_can_arrive(tmp_path):
    callback = make_callback(tmp_path)
    start(callback)
    callback.v2_runner_on_ok(FakeResult({'perflab_system': SYSTEMS[0]}))
    callback.v2_runner_on_ok(FakeResult({'perflab_result': RECORDS[0]}))                      # one record
    callback.v2_runner_on_ok(FakeResult({'perflab_result': RECORDS[1:3]}))                    # a list
    callback.v2_runner_item_on_ok(FakeResult({'perflab_result': [RECORDS[3]], 'item': 1}))    # a loop item
    failed = [r for r in RECORDS if r['status'] == 'failed'][0]
    callback.v2_runner_on_failed(FakeResult({'failed': True, 'perflab_result': [failed]}), ignore_errors=True)
    callback.v2_runner_item_on_failed(FakeResult({'failed': True, 'perflab_result': RECORDS[4]}))
    # the loop's final result lists the items again: they are not stored twice
    callback.v2_runner_on_ok(FakeResult({'results': [{'perflab_result': [RECORDS[3]]}]}))
    callback.v2_runner_on_ok(FakeResult({'perflab_result': RECORDS[0]}))                      # same record again
    stored = lines_of(str(tmp_path / 'results' / 'R1.jsonl'))
    assert stored == [SYSTEMS[0], RECORDS[0], RECORDS[1], RECORDS[2], RECORDS[3], failed, RECORDS[4]]


def test_records_without_run_id_get_the_callbacks_and_junk_is_not_stored(tmp_path):
    callback = make_callback(tmp_path)
    start(callback)
    record = dict(RECORDS[0], run_id='')
    callback.v2_runner_on_ok(FakeResult({'perflab_result': [record, 'not a record', {'schema': 'x/1'},
                                                            dict(RECORDS[1], schema='perflab.result/9')]}))
    callback.v2_runner_on_ok(FakeResult({'perflab_result': 'VARIABLE IS NOT DEFINED!'}))
    stored = lines_of(str(tmp_path / 'results' / 'R1.jsonl'))
    assert stored == [dict(RECORDS[0], run_id='R1')]
    warnings = ' '.join(callback._display.warnings)
    assert 'not a mapping' in warnings
    assert "no perflab schema ('x/1')" in warnings
    assert "'perflab.result/9' is not supported" in warnings


def test_progress_lines_with_and_without_a_plan(tmp_path):
    callback = make_callback(tmp_path)
    start(callback)
    display = callback._display
    callback.v2_runner_on_ok(FakeResult({'perflab_result': RECORDS[0]}))
    record = RECORDS[0]
    value = record['metrics'][record['primary']]['value']
    assert display.lines[-1] == '[1] %s · Debian 12 stock · lab1->lab2 · %.1f Mbit/s' % (record['test_id'], value)
    # the benchmark role announces its plan with set_fact: every host reports it, counted once
    plan = {'ansible_facts': {'perflab_plan': {'total_tests': 120, 'expected_duration_s': 1200}}}
    callback.v2_runner_on_ok(FakeResult(plan, host='lab1'))
    callback.v2_runner_on_ok(FakeResult(plan, host='lab2'))
    callback.v2_runner_on_ok(FakeResult({'perflab_result': RECORDS[1]}))
    assert re.match(r'^\[1/120\] iperf3/tcp/parallel=1 · Debian 12 stock · lab1->lab2 · [0-9.]+ Mbit/s · '
                    r'ETA \d\d:\d\d:\d\d$', display.lines[-1])
    failed = [r for r in RECORDS if r['status'] == 'failed'][0]
    callback.v2_runner_on_failed(FakeResult({'perflab_result': failed}))
    assert display.lines[-1].startswith('[2/120] iperf3/tcp/parallel=20 · Debian 12 stock · lab1->lab2 · '
                                        'FAILED: iperf3 timed out after 40 s · ETA ')
    # a system profile is stored but is no test: no progress line
    count = len(display.lines)
    callback.v2_runner_on_ok(FakeResult({'perflab_system': SYSTEMS[1]}))
    assert len(display.lines) == count


def test_eta_scales_the_remaining_plan_by_the_observed_pace():
    now = [1000.0]
    progress = results_callback.Progress(clock=lambda: now[0])
    assert progress.add({'duration_s': 10}) == ('[1]', None)
    progress.set_plan({'total_tests': 10, 'expected_duration_s': 100}, play_serial=1)
    now[0] += 30.0                                   # 10 s requested took 30 s (servers, waits)
    counter, eta = progress.add({'duration_s': 10})
    assert counter == '[1/10]'
    assert eta == pytest.approx(90 * 3.0)            # 90 s of tests left, at 3x
    now[0] += 30.0
    assert progress.add({'duration_s': 10})[1] == pytest.approx(80 * 3.0)
    # without durations: the average time per record
    progress.set_plan({'total_tests': 4, 'expected_duration_s': 0}, play_serial=2)
    now[0] += 20.0
    assert progress.add({}) == ('[1/4]', pytest.approx(60.0))
    assert results_callback.format_duration(2470) == '00:41:10'
    # the same plan from another host does not restart the count; a new play does
    progress.set_plan({'total_tests': 4, 'expected_duration_s': 0}, play_serial=2)
    assert progress.add({})[0] == '[2/4]'


def test_a_study_of_two_configurations_is_counted_as_one():
    """stock_vs_tuned: [N/N] at the end counts both halves (it printed [10/9] in the tuned half)."""
    now = [0.0]
    progress = results_callback.Progress(clock=lambda: now[0])
    stock = {'run_id': 'R', 'labels': ['Debian 12 stock'], 'total_tests': 9, 'expected_duration_s': 45,
             'configurations': 2}
    progress.set_plan(stock, play_serial=3)
    lines = []
    for dummy in range(9):
        now[0] += 10.0
        lines.append(progress.add({'duration_s': 3}))
    assert lines[0][0] == '[1/18]' and lines[-1][0] == '[9/18]'
    # the ETA of the stock half covers the tuned half too: 90 s of 45 planned took 90 s
    assert lines[-1][1] == pytest.approx((90 - 27) * (90.0 / 27))
    # the tuned plan (same run, other label; a resumed half plans fewer) goes on counting
    progress.set_plan(dict(stock, labels=['Debian 12 tuned'], total_tests=8), play_serial=3)
    progress.set_plan(dict(stock, labels=['Debian 12 tuned'], total_tests=8), play_serial=3)  # another host
    tuned = [progress.add({'duration_s': 3})[0] for dummy in range(8)]
    assert tuned[0] == '[10/17]' and tuned[-1] == '[17/17]'
    assert progress.eta() == 0.0
    # a new study (another run id) starts again
    progress.set_plan(dict(stock, run_id='R2'), play_serial=4)
    assert progress.add({'duration_s': 3})[0] == '[1/18]'


def test_stats_writes_the_workbook_and_prints_the_summary(tmp_path):
    openpyxl = pytest.importorskip('openpyxl')
    callback = make_callback(tmp_path, baseline='Debian 12 tuned')
    start(callback)
    tuned = fixture_lines('tuned.jsonl')
    for record in RECORDS + tuned:
        key = 'perflab_result' if record['schema'] == 'perflab.result/1' else 'perflab_system'
        callback.v2_runner_on_ok(FakeResult({key: record}))
    callback.v2_playbook_on_stats(None)
    workbook_path = str(tmp_path / 'results' / 'R1.xlsx')
    wb = openpyxl.load_workbook(workbook_path)
    assert wb.sheetnames[0] == 'Summary' and wb.sheetnames[-1] == 'Raw'
    header = [cell.value for cell in wb['Summary'][1]]
    assert 'Debian 12 stock vs Debian 12 tuned (%)' in header            # the configured baseline
    output = '\n'.join(callback._display.lines)
    assert 'Netperf 2.7.0 - Duration: 10 Seconds - Test: TCP Request Response\n1/s, higher is better' in output
    assert 'perflab workbook: %s' % workbook_path in output
    # the text and Markdown views beside the workbook, the text one what was printed
    views = [str(tmp_path / 'results' / 'R1.txt'), str(tmp_path / 'results' / 'R1.md')]
    assert 'perflab result views: %s' % ', '.join(views) in output
    with open(views[0]) as handle:
        written = handle.read()
    assert written.rstrip('\n') in output
    with open(views[1]) as handle:
        assert '## Netperf 2.7.0 - Duration: 10 Seconds - Test: TCP Request Response\n\n*1/s, higher is better*' \
            in handle.read()


def test_summary_and_workbook_can_be_switched_off(tmp_path):
    callback = make_callback(tmp_path, summary=False, workbook=False, progress=False)
    start(callback)
    callback.v2_runner_on_ok(FakeResult({'perflab_result': RECORDS[0]}))
    callback.v2_playbook_on_stats(None)
    assert os.listdir(str(tmp_path / 'results')) == ['R1.jsonl']
    assert callback._display.lines == ['perflab results: %s' % (tmp_path / 'results' / 'R1.jsonl')]


def test_under_ansible_runner_the_result_files_are_copied_into_the_job_artifacts(tmp_path, monkeypatch):
    """ansible-runner names artifacts/<ident> in AWX_ISOLATED_DATA_DIR; the worker streams that directory back."""
    pytest.importorskip('openpyxl')
    artifacts = tmp_path / 'artifacts' / 'job'
    artifacts.mkdir(parents=True)
    monkeypatch.setenv('AWX_ISOLATED_DATA_DIR', str(artifacts))
    callback = make_callback(tmp_path, summary=False, progress=False)
    start(callback)
    for record in RECORDS[:3]:
        callback.v2_runner_on_ok(FakeResult({'perflab_result': record}))
    callback.v2_playbook_on_stats(None)
    copied = artifacts / 'perflab_results'
    assert sorted(os.listdir(str(copied))) == ['R1.jsonl', 'R1.md', 'R1.txt', 'R1.xlsx']
    results = tmp_path / 'results'
    names = ('R1.jsonl', 'R1.xlsx', 'R1.txt', 'R1.md')
    for name in names:
        assert (copied / name).read_bytes() == (results / name).read_bytes()
    assert lines_of(str(copied / 'R1.jsonl')) == RECORDS[:3]
    assert callback._display.lines[-1] == 'perflab job artifacts: %s' % ', '.join(str(copied / name) for name in names)


def test_no_copy_without_ansible_runner_or_when_switched_off(tmp_path, monkeypatch):
    monkeypatch.delenv('AWX_ISOLATED_DATA_DIR', raising=False)
    callback = make_callback(tmp_path, summary=False, workbook=False, progress=False)
    start(callback)
    callback.v2_runner_on_ok(FakeResult({'perflab_result': RECORDS[0]}))
    callback.v2_playbook_on_stats(None)
    assert sorted(os.listdir(str(tmp_path))) == ['results']

    artifacts = tmp_path / 'artifacts'
    artifacts.mkdir()
    monkeypatch.setenv('AWX_ISOLATED_DATA_DIR', str(artifacts))
    callback = make_callback(tmp_path, summary=False, workbook=False, progress=False, runner_artifacts=False)
    start(callback)
    callback.v2_runner_on_ok(FakeResult({'perflab_result': RECORDS[1]}))
    callback.v2_playbook_on_stats(None)
    assert os.listdir(str(artifacts)) == []


def test_a_failed_copy_into_the_job_artifacts_is_a_warning(tmp_path, monkeypatch):
    artifacts = tmp_path / 'artifacts'
    artifacts.mkdir()
    (artifacts / 'perflab_results').write_text('a file where the directory would go')
    monkeypatch.setenv('AWX_ISOLATED_DATA_DIR', str(artifacts))
    callback = make_callback(tmp_path, summary=False, workbook=False, progress=False)
    start(callback)
    callback.v2_runner_on_ok(FakeResult({'perflab_result': RECORDS[0]}))
    callback.v2_playbook_on_stats(None)
    assert callback._display.errors == []
    assert len(callback._display.warnings) == 1
    assert 'cannot copy the result files into the job artifacts' in callback._display.warnings[0]
    assert lines_of(callback.jsonl_path) == [RECORDS[0]]


def test_an_unwritable_results_dir_stops_the_run_at_playbook_start(tmp_path):
    blocker = tmp_path / 'a-file'
    blocker.write_text('')
    callback = make_callback(tmp_path, results_dir=str(blocker / 'results'))
    with pytest.raises(SystemExit) as caught:
        callback.v2_playbook_on_start(FakePlaybook([FakePlay(FakeVariableManager())]))
    assert caught.value.code == 1
    assert 'cannot create the results directory %s' % (blocker / 'results') in callback._display.errors[0]
    assert 'before any test' in callback._display.errors[0]


def test_records_the_results_dir_refuses_go_to_tmpdir_and_the_run_fails(tmp_path, monkeypatch):
    callback = make_callback(tmp_path)
    display = callback._display
    start(callback)
    callback.v2_runner_on_ok(FakeResult({'perflab_result': RECORDS[0]}))
    real_append = results_callback.store.append_records

    def disk_full(path, records):
        if path == callback.jsonl_path:
            raise OSError(28, 'No space left on device')
        return real_append(path, records)

    monkeypatch.setattr(results_callback.store, 'append_records', disk_full)
    spare = tmp_path / 'spare'
    spare.mkdir()
    monkeypatch.setattr(results_callback.tempfile, 'gettempdir', lambda: str(spare))
    callback.v2_runner_on_ok(FakeResult({'perflab_result': RECORDS[1]}))
    callback.v2_runner_on_ok(FakeResult({'perflab_result': RECORDS[2]}))
    assert display.warnings == ['perflab.network.results: cannot append to %s ([Errno 28] No space left on device); '
                                '%d record(s) kept in memory, retried with the next one' % (callback.jsonl_path, count)
                                for count in (1, 2)]
    with pytest.raises(SystemExit) as exited:
        callback.v2_playbook_on_stats(None)
    assert exited.value.code == results_callback.EXIT_RESULTS_NOT_SAVED == 1
    fallback = spare / os.path.basename(callback.jsonl_path)
    assert lines_of(callback.jsonl_path) == [RECORDS[0]]
    assert lines_of(str(fallback)) == [RECORDS[1], RECORDS[2]]
    assert display.errors[0] == ('perflab.network.results: cannot write %s ([Errno 28] No space left on device): '
                                 '2 record(s) saved to %s' % (callback.jsonl_path, fallback))
    assert display.errors[-1].startswith('perflab.network.results: 2 record(s) are not in the results directory ')
    assert 'the run is marked failed' in display.errors[-1]


def test_a_run_whose_records_are_all_written_does_not_exit(tmp_path):
    callback = make_callback(tmp_path, workbook=False, summary=False)
    display = callback._display
    start(callback)
    callback.v2_runner_on_ok(FakeResult({'perflab_result': RECORDS[0]}))
    callback.v2_playbook_on_stats(None)
    assert display.errors == [] and lines_of(callback.jsonl_path) == [RECORDS[0]]


def test_play_variables_choose_the_run_and_the_directory(tmp_path):
    callback = make_callback(tmp_path)
    # extra vars count at playbook start (no default directory gets created first) ...
    start(callback, extra_vars={'perflab_run_id': 'resumed', 'perflab_results_dir': str(tmp_path / 'elsewhere')})
    assert not os.path.exists(str(tmp_path / 'results'))
    callback.v2_runner_on_ok(FakeResult({'perflab_result': RECORDS[0]}))
    assert lines_of(str(tmp_path / 'elsewhere' / 'resumed.jsonl')) == [RECORDS[0]]
    # ... and a play variable pointing somewhere unwritable stops that play before its first task
    blocker = tmp_path / 'a-file'
    blocker.write_text('')
    with pytest.raises(SystemExit):
        callback.v2_playbook_on_play_start(FakePlay(FakeVariableManager(play_vars={
            'perflab_results_dir': str(blocker / 'x')})))


# -- a real ansible-playbook run ------------------------------------------------------------------

PLAYBOOK = """
- name: Results callback, for real
  hosts: localhost
  connection: local
  gather_facts: false
  vars:
    records: {records}
    system: {system}
  tasks:
    - name: Announce the plan
      ansible.builtin.set_fact:
        perflab_plan: {{total_tests: 4, expected_duration_s: 40}}

    - name: Return a system profile the way system_profile does
      ansible.builtin.debug:
        var: perflab_system
      vars:
        perflab_system: "{{{{ system }}}}"

    - name: Return one record per loop item, as a test module returns perflab_result
      ansible.builtin.debug:
        var: perflab_result
      vars:
        perflab_result: "{{{{ records[item] }}}}"
      loop: [0, 1, 2]

    - name: The records are in the file before the play ends
      ansible.builtin.assert:
        that:
          - lookup('ansible.builtin.file', results_file).splitlines() | length == 4

    - name: A failed test still delivers its record
      ansible.builtin.debug:
        var: perflab_result
      vars:
        perflab_result: "{{{{ records[3] }}}}"
      failed_when: true
      ignore_errors: true
"""


def ansible_playbook():
    path = os.path.join(os.path.dirname(sys.executable), 'ansible-playbook')
    if not os.path.exists(path):
        pytest.skip('ansible-playbook is not installed beside %s' % sys.executable)
    return path


def run_playbook(tmp_path, results_dir, run_id='live', env_extra=None):
    records = [r for r in RECORDS if r['status'] == 'ok'][:3] + [r for r in RECORDS if r['status'] == 'failed'][:1]
    playbook = tmp_path / 'play.yml'
    playbook.write_text(PLAYBOOK.format(records=json.dumps(records), system=json.dumps(SYSTEMS[0])))
    env = dict(os.environ)
    env.update({
        'ANSIBLE_CONFIG': os.path.join(ROOT, 'ansible.cfg'),
        'ANSIBLE_CALLBACKS_ENABLED': PLUGIN,
        'ANSIBLE_STDOUT_CALLBACK': 'ansible.builtin.default',
        'ANSIBLE_NOCOLOR': '1',
        'PERFLAB_RESULTS_DIR': results_dir,
        'PERFLAB_RUN_ID': run_id,
    })
    env.update(env_extra or {})
    completed = subprocess.run(
        [ansible_playbook(), '-i', 'localhost,', str(playbook),
         '-e', 'results_file=%s' % os.path.join(results_dir, run_id + '.jsonl')],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=300, check=False)
    return completed, records


def test_real_playbook_run_writes_jsonl_and_workbook(tmp_path):
    results_dir = str(tmp_path / 'results')
    # the smallest change the study cares about, from the environment as text
    completed, records = run_playbook(tmp_path, results_dir, env_extra={'PERFLAB_REPORT_MIN_CHANGE_PERCENT': '2.5'})
    output = completed.stdout.decode('utf-8')
    assert completed.returncode == 0, output
    stored = lines_of(os.path.join(results_dir, 'live.jsonl'))
    assert stored == [SYSTEMS[0]] + records
    assert os.path.exists(os.path.join(results_dir, 'live.xlsx'))
    assert re.search(r'^\[1/4\] iperf3/tcp/parallel=1 · Debian 12 stock · lab1->lab2 · [0-9.]+ Mbit/s · ETA ',
                     output, re.M), output
    assert re.search(r'^\[4/4\] iperf3/tcp/parallel=20 .* FAILED: iperf3 timed out after 40 s · ETA 00:00:00$',
                     output, re.M), output
    assert re.search(r'^iPerf 3\.12 - Duration: \d+ Seconds - Test: TCP - Parallel: 1\nMbit/s, higher is better$',
                     output, re.M), output
    assert 'perflab workbook: %s' % os.path.join(results_dir, 'live.xlsx') in output
    openpyxl = pytest.importorskip('openpyxl')
    notes = [row[0].value for row in openpyxl.load_workbook(os.path.join(results_dir, 'live.xlsx'))['Summary'].iter_rows()]
    assert any('minimum change (2.5 %)' in (note or '') for note in notes)


def test_real_playbook_run_stops_before_any_task_on_a_bad_minimum_change(tmp_path):
    completed, _records = run_playbook(tmp_path, str(tmp_path / 'results'),
                                       env_extra={'PERFLAB_REPORT_MIN_CHANGE_PERCENT': '-1'})
    output = completed.stdout.decode('utf-8')
    assert completed.returncode == 1, output
    assert "min_change_percent must be a number of percent, 0 or more (0: every significant change counts), got '-1'" \
        in output
    assert 'TASK [' not in output


@pytest.mark.parametrize('options, extra_vars, play_vars, message', [
    ({'min_change_percent': '-2'}, None, None, "min_change_percent must be a number of percent, 0 or more"),
    ({}, {'perflab_report_min_change_percent': 'five'}, None, "got 'five'"),
    ({}, {'perflab_report_min_change_percent': True}, None, 'got True'),
    ({'compare': '{"tuned": '}, None, None, 'compare must be a mapping'),
    ({}, {'perflab_report_compare': ['stock']}, None, 'compare must be a mapping'),
    # a play's variable: that play stops before its first task
    ({}, None, {'perflab_report_min_change_percent': -5}, 'got -5'),
])
def test_bad_report_options_stop_the_run_before_any_test(tmp_path, options, extra_vars, play_vars, message):
    callback = make_callback(tmp_path, **options)
    with pytest.raises(SystemExit) as caught:
        start(callback, extra_vars=extra_vars, play_vars=play_vars)
    assert caught.value.code == 1
    assert message in callback._display.errors[0] and 'before any test' in callback._display.errors[0]
    assert not os.path.exists(callback.jsonl_path)


def test_real_playbook_run_stops_before_any_task_when_results_dir_is_unwritable(tmp_path):
    blocker = tmp_path / 'a-file'
    blocker.write_text('')
    completed, _records = run_playbook(tmp_path, str(blocker / 'results'))
    output = completed.stdout.decode('utf-8')
    assert completed.returncode == 1, output
    assert 'perflab.network.results: cannot create the results directory' in output
    assert 'TASK [' not in output


# -- issue 29.16 and 29.17: check mode writes nothing; a system directory is refused ---------------------------
def test_check_mode_writes_nothing_and_says_so(tmp_path, monkeypatch):
    from ansible import context
    monkeypatch.setattr(context, 'CLIARGS', dict(context.CLIARGS or {}, check=True))
    callback = make_callback(tmp_path)
    start(callback)
    callback.v2_runner_on_ok(FakeResult({'perflab_system': SYSTEMS[0]}))
    callback.v2_runner_on_ok(FakeResult({'perflab_result': RECORDS[:3]}))
    callback.v2_playbook_on_stats(None)
    assert not (tmp_path / 'results').exists(), 'check mode created the results directory'
    assert not list(tmp_path.rglob('*.jsonl')) and not list(tmp_path.rglob('*.xlsx'))
    assert callback._display.lines[-1] == ('perflab results: check mode, nothing written (4 record(s) returned; a real run '
                                           'writes %s and its workbook)' % (tmp_path / 'results' / 'R1.jsonl'))


@pytest.mark.parametrize('directory', ['/etc', '/usr/lib', '/etc/perflab', '/', '/var/lib/x', '/lib/modules'])
def test_a_system_results_dir_stops_the_run_at_playbook_start(tmp_path, directory):
    callback = make_callback(tmp_path, results_dir=directory)
    with pytest.raises(SystemExit) as caught:
        callback.v2_playbook_on_start(FakePlaybook([FakePlay(FakeVariableManager())]))
    assert caught.value.code == 1
    assert 'perflab_results_dir must be not a system directory' in callback._display.errors[0]
    assert directory in callback._display.errors[0] and 'before any test' in callback._display.errors[0]


def test_an_auto_test_says_why_it_stopped_and_drops_what_it_did_not_need():
    now = [0.0]
    progress = results_callback.Progress(clock=lambda: now[0])
    progress.set_plan({'run_id': 'R', 'total_tests': 12, 'expected_duration_s': 36}, play_serial=1)
    rule = {'min': 3, 'max': 10, 'ci_percent': 5.0}
    record = {'test_id': 'iperf3/tcp_stream/parallel=1', 'config': 'L', 'client': {'name': 'lab2'},
              'server': {'name': 'lab1'}, 'status': 'ok', 'primary': 'throughput_mbps', 'duration_s': 3,
              'metrics': {'throughput_mbps': {'value': 940.0, 'unit': 'Mbit/s'}}}
    going = dict(record, repetitions_auto=dict(rule, runs=2, stop=False, reason='2 of at least 3 runs'))
    now[0] += 3.0
    counter, eta = progress.add(going)
    assert counter == '[1/12]'
    assert results_callback.progress_line(counter, going, None).endswith('940.0 Mbit/s · auto: 2 of at least 3 runs')
    stopped = dict(record, repetitions_auto=dict(rule, runs=4, stop=True, reason='ci 3.1 % <= 5 % after 4 runs'))
    counter, eta = progress.add(stopped)
    # 6 of the 10 planned repetitions will not come: 12 - 6
    assert counter == '[2/6]'
    assert 'auto: stop, ci 3.1 % <= 5 % after 4 runs' in results_callback.progress_line(counter, stopped, eta)


def test_the_records_of_a_study_block_carry_its_design(tmp_path):
    """stock_vs_tuned interleaved: the plan of each block names the design and the block (benchmark_plan's
    design), and every record of that run stored after it says them; a record of another run does not."""
    callback = make_callback(tmp_path)
    start(callback)
    order = ['stock', 'tuned', 'tuned', 'stock']
    first, second = (dict(RECORDS[index], run_id='R1') for index in (0, 1))
    for block, record in ((1, first), (2, second)):
        design = {'design': 'interleaved', 'order': order, 'block': block, 'seed': None,
                  'switch_s': None if block == 1 else 4.25, 'state': order[block - 1], 'repetition': 1}
        callback.v2_runner_on_ok(FakeResult({'perflab_plan': {'run_id': 'R1', 'total_tests': 1, 'design': design}}))
        callback.v2_runner_on_ok(FakeResult({'perflab_result': [record]}))
    callback.v2_runner_on_ok(FakeResult({'perflab_result': [dict(RECORDS[2], run_id='other')]}))
    stored = lines_of(str(tmp_path / 'results' / 'R1.jsonl'))
    assert [(r['design'], r['design_order'], r['design_block'], r['design_seed'], r['design_switch_s'])
            for r in stored[:2]] == [('interleaved', order, 1, None, None), ('interleaved', order, 2, None, 4.25)]
    assert 'design' not in stored[2]
    # a plan without a design (benchmark.yml): its records carry none
    callback.v2_runner_on_ok(FakeResult({'perflab_plan': {'run_id': 'R1', 'total_tests': 1}}))
    callback.v2_runner_on_ok(FakeResult({'perflab_result': [dict(RECORDS[3], run_id='R1')]}))
    assert 'design' not in lines_of(str(tmp_path / 'results' / 'R1.jsonl'))[-1]


def test_progress_line_says_what_limited_the_test():
    record = {'test_id': 'iperf3/tcp_stream/parallel=1', 'config': 'L', 'client': {'name': 'lab2'},
              'server': {'name': 'lab1'}, 'status': 'ok', 'primary': 'throughput_mbps',
              'metrics': {'throughput_mbps': {'value': 940.0, 'unit': 'Mbit/s'}},
              'limited_by': {'verdict': 'cpu', 'evidence': 'client core cpu1 97 % busy', 'cpu': {'busiest': 'cpu1'}}}
    assert results_callback.progress_line('[1]', record, None).endswith('940.0 Mbit/s · limited by cpu cpu1')
    window = dict(record, limited_by={'verdict': 'window', 'evidence': 'rwnd_limited 80 %'})
    assert results_callback.progress_line('[1]', window, None).endswith('· limited by window')
    # a failed record has no verdict
    failed = dict(record, status='failed', error='boom', limited_by=None)
    assert 'limited by' not in results_callback.progress_line('[1]', failed, None)


def test_an_amendment_is_stored_without_a_progress_line_and_the_report_reads_it_into_its_record(tmp_path):
    callback = make_callback(tmp_path)
    start(callback)
    display = callback._display
    callback.v2_runner_on_ok(FakeResult({'perflab_plan': {'run_id': 'R1', 'total_tests': 2}}))
    record = dict(RECORDS[0], run_id='R1')
    callback.v2_runner_on_ok(FakeResult({'perflab_result': [record]}))
    count = len(display.lines)
    server = dict(record['server'], interface='data0', mtu=1500, link_mbps=10000.0)
    amendment = rec.amendment(dict(record, server=server, limited_by={'verdict': 'link'}))
    callback.v2_runner_on_ok(FakeResult({'perflab_result': [amendment]}))
    assert len(display.lines) == count and callback.progress.plan['done'] == 1
    path = str(tmp_path / 'results' / 'R1.jsonl')
    assert lines_of(path) == [record, amendment]
    read = [obj for kind, obj in store.ResultFiles([path])]
    assert len(read) == 1 and read[0]['server'] == server and read[0]['limited_by'] == {'verdict': 'link'}
