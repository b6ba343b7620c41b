# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
name: results
type: aggregate
short_description: Store every perflab result as it arrives, build the workbook at the end
description:
  - Collects the C(perflab_result) records (one record or a list) and C(perflab_system) profiles that
    tasks return as top-level keys of their results (the perflab.network test modules and
    P(perflab.network.system_profile#module) do), from successful and failed tasks and from each loop item.
  - Appends each one at once to C(<results_dir>/<run_id>.jsonl), one JSON object a line, flushed and
    fsync'ed before the next task result is handled, so that stopping or crashing a run loses nothing
    already measured.
  - A C(perflab.amendment/1) line (the benchmark role's server side, sampled after its records were stored, see
    docs/result-record.md) is stored the same way but is no new result. The report puts its C(server) and
    C(limited_by) into the record it amends. It has no progress line.
  - Prints one progress line per record, for example
    C([12/120] iperf3/tcp/parallel=5 · Debian 12 stock · lab1->lab2 · 9412.3 Mbit/s · limited by link · ETA 00:41:10);
    C(limited by) is the record's C(limited_by) verdict (link, cpu and its core, window, loss, nic, target, unknown).
    The plan size and the estimate come from the C(perflab_plan) fact (C({total_tests, expected_duration_s,
    configurations})) that the benchmark role sets with M(ansible.builtin.set_fact) before its tests, and
    cover every configuration of a study (stock_vs_tuned's stock and tuned count as one study); without it
    the line shows only the running count, as C([12]). A test whose repetitions are C(auto) ends its line with its rule's
    word after C(auto) (C(2 of at least 3 runs)), on its last run why it stopped (C(stop, ci 3.1 % <= 5 % after 4
    runs)), and the total drops by the repetitions its rule did not need.
  - At the end of the playbook writes C(<results_dir>/<run_id>.xlsx) (Summary, one sheet per test,
    Systems, Intervals, Raw; see the collection's docs/reports.md), beside it the same results as plain
    text and Markdown (C(<run_id>.txt) and C(<run_id>.md), a block per test, a line and a bar per
    configuration), and prints the text summary.
  - Under ansible-runner (and so in AWX), which names the job's artifact directory in E(AWX_ISOLATED_DATA_DIR), also
    copies the result files into C(<artifact dir>/perflab_results/) at the end (see O(runner_artifacts)).
    C(ansible-runner worker) streams that directory back to the C(ansible-runner process) side, so the files
    reach the controller even when the job ran on a remote worker.
  - Checks that O(results_dir) is writable and not a system directory (C(/etc), C(/usr/lib), anything below
    them, C(/) itself; the rule of the collection's user paths) when the playbook starts and again when a play
    sets it, and stops the run right there with a clear error when it is not, before any test has run.
  - In check mode (C(--check)) it writes nothing anywhere, the results directory is neither created nor
    written to, no workbook is built; it says so at the end, with the number of records the run returned.
  - An aggregate callback, it works beside any stdout callback (the default one, AWX and ansible-runner's).
version_added: 0.1.0
author: perflab.network contributors (@perflab)
requirements:
  - openpyxl on the controller, for the workbook (without it the JSON lines and the text summary are still written)
  - enable it in ansible.cfg, C(callbacks_enabled = perflab.network.results), or with E(ANSIBLE_CALLBACKS_ENABLED)
options:
  results_dir:
    description:
      - Directory of the result files. Created when missing.
      - A relative path is relative to the directory ansible-playbook runs in (from the environment, the
        default or a variable) or to the directory of the ansible.cfg that sets it.
    type: path
    default: ./results
    env:
      - name: PERFLAB_RESULTS_DIR
    ini:
      - section: callback_perflab_results
        key: results_dir
    vars:
      - name: perflab_results_dir
  run_id:
    description:
      - Name of this study run; the files are C(<run_id>.jsonl) and C(<run_id>.xlsx).
      - Set the same O(run_id) again (for example C(-e perflab_run_id=...)) to resume a run into the
        same file; the workbook then holds everything measured under that name.
      - Default, the run id that the first arriving record names (the benchmark role's plan gives every record of
        a study the same one), else a new one per ansible-playbook invocation, C(YYYYmmddTHHMMSSZ-xxxx)
        (UTC, 4 random hex digits).
      - Records that come without a C(run_id) get this one.
    type: str
    env:
      - name: PERFLAB_RUN_ID
    ini:
      - section: callback_perflab_results
        key: run_id
    vars:
      - name: perflab_run_id
  baseline:
    description:
      - Configuration label the workbook compares the others against (relative change, Welch's t-test), where
        neither O(compare) nor the stock rule gives one their own.
      - Default, the first configuration seen.
    type: str
    env:
      - name: PERFLAB_REPORT_BASELINE
    ini:
      - section: callback_perflab_results
        key: baseline
    vars:
      - name: perflab_report_baseline
  compare:
    description:
      - Which configuration the workbook and the text summary compare against which, as a mapping of
        configuration labels to baseline configuration labels; any configuration against any other, several
        baselines in one workbook (an OS study maps C(OSv) to C(Linux) and C(OSv tuned) to C(Linux tuned), read
        as "% relative to Linux"). A configuration mapped to null, or to itself, is compared with none.
      - A configuration the map leaves out is compared against the configuration of profile C(stock) on the same
        hosts with the same OS (the system profiles say the profile, the OS and the hosts), where exactly one is
        recorded; else against O(baseline).
      - From the environment or the ini file, the mapping is given as JSON.
    type: raw
    env:
      - name: PERFLAB_REPORT_COMPARE
    ini:
      - section: callback_perflab_results
        key: compare
    vars:
      - name: perflab_report_compare
  min_change_percent:
    description:
      - The smallest change (in percent of the baseline) the study cares about. A change whose magnitude is below it
        is never a verdict of C(better) or C(worse) in the workbook and the text views, however significant; it is
        C(below minimum change) when significant after Holm's correction, else C(no significant change), or
        C(too noisy) when its confidence interval reaches beyond it.
      - A number, 0 or more (text of one from the environment or the ini file); V(0), none. Anything else stops
        the run when the playbook starts, before any test.
    type: raw
    default: 0
    env:
      - name: PERFLAB_REPORT_MIN_CHANGE_PERCENT
    ini:
      - section: callback_perflab_results
        key: min_change_percent
    vars:
      - name: perflab_report_min_change_percent
  matrix_k:
    description:
      - The fleet matrix's outlier rule - a host whose median in or out is below the fleet's median by more than
        this many median absolute deviations is flagged (docs/reports.md, "Fleet matrix"). A number above 0.
    type: raw
    default: 3
    env:
      - name: PERFLAB_REPORT_MATRIX_K
    ini:
      - section: callback_perflab_results
        key: matrix_k
    vars:
      - name: perflab_report_matrix_k
  form:
    description:
      - How the workbook's comparisons and the text views show a configuration against its baseline, V(change)
        (the relative change in percent) or V(ratio) (configuration / baseline in percent, the OSv seed's
        "104 %, 150 %"). Anything else stops the run when the playbook starts, before any test.
    type: str
    default: change
    env:
      - name: PERFLAB_REPORT_FORM
    ini:
      - section: callback_perflab_results
        key: form
    vars:
      - name: perflab_report_form
  summary:
    description: Print the text summary (a block per test, a bar per configuration) at the end.
    type: bool
    default: true
    env:
      - name: PERFLAB_REPORT_SUMMARY
    ini:
      - section: callback_perflab_results
        key: summary
    vars:
      - name: perflab_report_summary
  workbook:
    description: Write the workbook and its text and Markdown views at the end (the JSON lines are always written).
    type: bool
    default: true
    env:
      - name: PERFLAB_REPORT_WORKBOOK
    ini:
      - section: callback_perflab_results
        key: workbook
    vars:
      - name: perflab_report_workbook
  progress:
    description: Print one progress line per arriving record.
    type: bool
    default: true
    env:
      - name: PERFLAB_REPORT_PROGRESS
    ini:
      - section: callback_perflab_results
        key: progress
    vars:
      - name: perflab_report_progress
  runner_artifacts:
    description:
      - When E(AWX_ISOLATED_DATA_DIR) names a directory (ansible-runner sets it to the job's artifact directory),
        copy the JSON lines and the workbook into its C(perflab_results/) subdirectory at the end of the playbook.
      - A copy that fails is a warning; the files in O(results_dir) are unchanged.
    type: bool
    default: true
    env:
      - name: PERFLAB_RUNNER_ARTIFACTS
    ini:
      - section: callback_perflab_results
        key: runner_artifacts
    vars:
      - name: perflab_runner_artifacts
notes:
  - Variables (C(perflab_results_dir), C(perflab_run_id), ...) are read from the play when it starts (extra
    vars, play vars and vars_files; not host variables), and override the environment and ansible.cfg.
  - A callback cannot call M(ansible.builtin.set_stats). To hand results to an AWX workflow, the playbook
    publishes them itself, for example with C(ansible.builtin.set_stats) of the registered C(perflab_result).
  - The check of O(results_dir) ends the run with exit code 1 (an error that a callback raises is only a
    warning in ansible-core, so the check exits the process). Nothing has run at that point.
  - A record that cannot be appended (a disk that filled up mid-run) is kept in memory and retried with the next
    one; what is still unwritten at the end goes to a file of the same name under C($TMPDIR), named in an error.
    The run then ends with exit code 1 after the recap, so that a job runner does not report success for results
    that are not where they were asked to be. Callbacks enabled after this one miss that last event.
  - Only top-level C(perflab_result) and C(perflab_system) keys of a task result are read (a module's return,
    or C(ansible.builtin.debug) with C(var=perflab_result)); facts with these names are not, so that a record
    reaches the file once. The same record arriving twice is stored once.
seealso:
  - module: perflab.network.report
    description: Merge any set of result files into one workbook with CSV and JSON exports.
"""

import hashlib
import os
import shutil
import tempfile
import threading
import time

from ansible import context
from ansible.plugins.callback import CallbackBase

from ansible_collections.perflab.network.plugins.module_utils.core import names
from ansible_collections.perflab.network.plugins.module_utils.core import limits
from ansible_collections.perflab.network.plugins.module_utils.core.record import add_design, add_fleet_slice, new_run_id, primary_value
from ansible_collections.perflab.network.plugins.module_utils.report import build, store, tables
from ansible_collections.perflab.network.plugins.module_utils.report.text import format_value

try:
    from ansible.template import Templar
except ImportError:  # pragma: no cover - every supported ansible-core has it
    Templar = None

OPTION_VARS = {
    'results_dir': 'perflab_results_dir',
    'run_id': 'perflab_run_id',
    'baseline': 'perflab_report_baseline',
    'compare': 'perflab_report_compare',
    'min_change_percent': 'perflab_report_min_change_percent',
    'matrix_k': 'perflab_report_matrix_k',
    'form': 'perflab_report_form',
    'summary': 'perflab_report_summary',
    'workbook': 'perflab_report_workbook',
    'progress': 'perflab_report_progress',
    'runner_artifacts': 'perflab_runner_artifacts',
}
# ansible-runner names the job's artifact directory (artifacts/<ident>) in this variable; `ansible-runner worker`
# zips that directory and streams it back to `ansible-runner process`
RUNNER_ARTIFACT_DIR_ENV = 'AWX_ISOLATED_DATA_DIR'
RUNNER_ARTIFACTS_SUBDIR = 'perflab_results'

RESULT_KEY = 'perflab_result'
# the one file name rule (run ids), as the study playbooks and benchmark_plan check it
RUN_ID_RE = names.NAME_RE
SYSTEM_KEY = 'perflab_system'
PLAN_KEY = 'perflab_plan'
# exit code of a run whose records could not all be written to the results directory
EXIT_RESULTS_NOT_SAVED = 1  # ansible-playbook's "error"; 2-5 and 99 mean other things


def format_duration(seconds):
    seconds = max(0, int(round(seconds)))
    return '%02d:%02d:%02d' % (seconds // 3600, seconds % 3600 // 60, seconds % 60)


class Progress(object):
    """Counts arriving records against the plan (``perflab_plan``) and estimates the time left.

    The estimate scales the plan's remaining test time by how long the tests
    done so far really took against what they asked for (their ``duration_s``),
    which covers server start-up, waits and retries; without durations it
    uses the average time per record.
    """

    def __init__(self, clock=time.monotonic):
        self.clock = clock
        self.count = 0
        self.plan = None

    def set_plan(self, plan, play_serial):
        """Count against ``plan``; a study of several configurations is counted as one.

        ``configurations`` in the plan (stock_vs_tuned: 2) says how many configurations the study
        runs this plan's tests in: the total and the estimate cover them all from the first plan on,
        and the plan of the next configuration (same run id, other labels) goes on counting, with
        the total corrected by what is really planned for it (a resumed run plans fewer).
        """
        if not isinstance(plan, dict):
            return
        try:
            total = int(plan.get('total_tests'))
            expected = float(plan.get('expected_duration_s') or 0)
            configurations = max(1, int(plan.get('configurations') or 1))
        except (TypeError, ValueError):
            return
        if total <= 0:
            return
        labels = tuple(sorted(str(label) for label in plan.get('labels') or []))
        key = (plan.get('run_id'), labels, total, expected, play_serial)
        current = self.plan
        if current is not None and current['key'] == key:
            return   # every host of the play reports the same plan
        if current is not None and current['run_id'] is not None and current['run_id'] == plan.get('run_id') \
                and current['configurations_left'] > 0:
            # the next configuration of the same study: what is done stays done
            left = current['configurations_left']
            current.update(key=key, configurations_left=left - 1,
                           total=current['done'] + total * left,
                           expected=current['requested_done'] + expected * left)
            return
        self.plan = {'key': key, 'run_id': plan.get('run_id'), 'configurations_left': configurations - 1,
                     'total': total * configurations, 'expected': expected * configurations, 'done': 0,
                     'requested_done': 0.0, 'started': self.clock()}

    def add(self, record):
        self.count += 1
        plan = self.plan
        if plan is None:
            return '[%d]' % self.count, None
        plan['done'] += 1
        duration = record.get('duration_s')
        seconds = float(duration) if isinstance(duration, (int, float)) and not isinstance(duration, bool) \
            and duration > 0 else 0.0
        plan['requested_done'] += seconds
        auto = record.get('repetitions_auto')
        if isinstance(auto, dict) and auto.get('stop'):
            # a repetitions: auto test that stopped early: its planned repetitions beyond will not come
            try:
                unneeded = max(0, int(auto.get('max')) - int(auto.get('runs')))
            except (TypeError, ValueError):
                unneeded = 0
            plan['total'] = max(plan['done'], plan['total'] - unneeded)
            plan['expected'] = max(plan['requested_done'], plan['expected'] - unneeded * seconds)
        return '[%d/%d]' % (plan['done'], plan['total']), self.eta()

    def eta(self):
        plan = self.plan
        if plan is None:
            return None
        done, total = plan['done'], plan['total']
        if done >= total:
            return 0.0
        elapsed = self.clock() - plan['started']
        if plan['expected'] > 0 and plan['requested_done'] > 0 and elapsed > 0:
            remaining = max(0.0, plan['expected'] - plan['requested_done'])
            return remaining * (elapsed / plan['requested_done'])
        if done and elapsed > 0:
            return elapsed / done * (total - done)
        return plan['expected'] * (total - done) / float(total) if plan['expected'] else None


def progress_line(counter, record, eta):
    client = record.get('client') or {}
    server = record.get('server') or {}
    parts = [record.get('test_id') or '?', record.get('config') or '(no label)',
             '%s->%s' % (client.get('name') or '?', server.get('name') or '?')]
    status = record.get('status')
    value = primary_value(record)
    if value is not None:
        text = ('%.1f' % value) if abs(value) >= 100 else format_value(value)
        parts.append(('%s %s' % (text, record['metrics'][record['primary']].get('unit') or '')).strip())
        limited = record.get('limited_by')
        if isinstance(limited, dict) and limited.get('verdict'):
            # what limited it, in a few words (limits.short): "limited by window", "limited by cpu cpu0"
            parts.append('limited by %s' % limits.short(limited))
    else:
        parts.append('%s: %s' % ((status or 'failed').upper(), record.get('error') or 'no result'))
    auto = record.get('repetitions_auto')
    if isinstance(auto, dict) and auto.get('reason'):
        # repetitions: auto says where its rule is, and on the test's last run why it stopped
        parts.append('auto: %s%s' % ('stop, ' if auto.get('stop') else '', auto['reason']))
    if eta is not None:
        parts.append('ETA %s' % format_duration(eta))
    return '%s %s' % (counter, ' · '.join(parts))


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = 'aggregate'
    CALLBACK_NAME = 'perflab.network.results'
    CALLBACK_NEEDS_ENABLED = True

    def __init__(self, display=None, options=None):
        super(CallbackModule, self).__init__(display=display, options=options)
        self._lock = threading.Lock()
        self._default_run_id = new_run_id()
        self._record_run_id = None
        # (run id, design) of the last plan: a study's design and block, for the records of that run
        self._design = (None, None)
        self._fleet_slice = (None, None)
        self._seen = set()
        self._pending = {}          # path -> records not yet durable (a failed write is retried)
        self._written = {}          # path -> records stored by this run (ordered: dicts keep order)
        self._diverted = 0          # records the results dir refused, saved under $TMPDIR instead
        self._lost = 0              # records neither could take
        self._reports_failed = []   # result files whose workbook could not be written
        self._checked_dirs = set()
        self._warned = set()
        self._play_serial = 0
        self.progress = Progress()
        self.results_dir = None
        self.run_id = None
        self.check_mode = False     # --check: nothing is written anywhere (records counted only)
        self._check_records = 0

    # -- configuration ------------------------------------------------------------
    def set_options(self, task_keys=None, var_options=None, direct=None):
        super(CallbackModule, self).set_options(task_keys=task_keys, var_options=var_options, direct=direct)
        # the one resolution of a user path: against the directory ansible-playbook was started from
        self.results_dir = names.user_path(self.get_option('results_dir') or 'results')
        self.run_id = self.get_option('run_id') or self._record_run_id or self._default_run_id

    @property
    def jsonl_path(self):
        return os.path.join(self.results_dir, '%s.jsonl' % self.run_id)

    def _fail_fast(self, message, hint=None):
        hint = hint or ('Set a writable directory with PERFLAB_RESULTS_DIR, [callback_perflab_results] results_dir '
                        'in ansible.cfg or -e perflab_results_dir=...')
        self._display.error('perflab.network.results: %s. %s; the run stops here, before any test.' % (message, hint))
        # an exception raised in a callback is turned into a warning and the play goes on;
        # leaving the process is the only way to stop before an hour of tests is lost
        raise SystemExit(1)

    def _check_results_dir(self):
        if self.results_dir in self._checked_dirs:
            return
        problem = names.system_path_problem('perflab_results_dir', self.results_dir)
        if not problem and not self.check_mode:   # check mode: nothing created, not even the directory
            problem = store.check_writable(self.results_dir)
        if problem:
            self._fail_fast(problem)
        if self.get_option('run_id') and names.name_problem('perflab_run_id', self.get_option('run_id')):
            self._fail_fast(names.name_problem('perflab_run_id', self.get_option('run_id')),
                            hint='Set another run id (PERFLAB_RUN_ID or -e perflab_run_id=...)')
        self._checked_dirs.add(self.results_dir)

    def _check_report_options(self):
        """The report's options, checked when the playbook and each play start: a bad one stops the run before any
        test, not at the end when the workbook is built."""
        try:
            build.compare_map(self.get_option('compare'))
            tables.min_change_value(self.get_option('min_change_percent'))
            tables.matrix_k_value(self.get_option('matrix_k'))
            tables.form_value(self.get_option('form'))
        except ValueError as exc:
            self._fail_fast(str(exc), hint='Fix it (-e perflab_report_compare=..., -e perflab_report_min_change_percent='
                                           '..., -e perflab_report_form=change|ratio, PERFLAB_REPORT_* or '
                                           '[callback_perflab_results] in ansible.cfg)')

    def _play_options(self, play):
        """Our options' variables as the play sees them (extra vars win), templated."""
        manager = play.get_variable_manager() if hasattr(play, 'get_variable_manager') else None
        if manager is None:
            return {}
        try:
            variables = manager.get_vars(play=play, include_hostvars=False)
        except Exception as exc:  # a broken vars file must not take the results down
            self._warn_once('cannot read the play variables (%s); using the configured options' % exc)
            return {}
        found = {}
        for name in OPTION_VARS.values():
            if name not in variables:
                continue
            value = variables[name]
            if isinstance(value, str) and '{{' in value and Templar is not None:
                try:
                    value = Templar(loader=play.get_loader(), variables=variables).template(value)
                except Exception as exc:
                    self._warn_once('cannot template %s (%s): ignored' % (name, exc))
                    continue
            found[name] = value
        return found

    def _warn_once(self, message):
        if message not in self._warned:
            self._warned.add(message)
            self._display.warning('perflab.network.results: %s' % message)

    # -- playbook events ------------------------------------------------------------
    def v2_playbook_on_start(self, playbook):
        self.check_mode = bool((getattr(context, 'CLIARGS', None) or {}).get('check'))
        if self.results_dir is None:
            self.set_options()
        # extra vars are known now: honour -e perflab_results_dir before creating a default directory
        found = self._extra_var_options(playbook)
        if found:
            self.set_options(var_options=found)
        self._check_results_dir()
        self._check_report_options()

    @staticmethod
    def _extra_var_options(playbook):
        plays = playbook.get_plays() if hasattr(playbook, 'get_plays') else []
        manager = plays[0].get_variable_manager() if plays else None
        extra = getattr(manager, 'extra_vars', None) or {}
        return dict((name, extra[name]) for name in OPTION_VARS.values()
                    if name in extra and not (isinstance(extra[name], str) and '{{' in extra[name]))

    def v2_playbook_on_play_start(self, play):
        with self._lock:
            self._play_serial += 1
            found = self._play_options(play)
            if found:
                self.set_options(var_options=found)
            self._check_results_dir()
        self._check_report_options()

    def v2_runner_on_ok(self, result):
        self._collect(result)

    def v2_runner_on_failed(self, result, ignore_errors=False):
        self._collect(result)

    def v2_runner_item_on_ok(self, result):
        self._collect(result)

    def v2_runner_item_on_failed(self, result):
        self._collect(result)

    def v2_playbook_on_stats(self, stats):
        if self.check_mode:
            self._display.display('perflab results: check mode, nothing written (%d record(s) returned; a real run '
                                  'writes %s and its workbook)' % (self._check_records, self.jsonl_path))
            return
        with self._lock:
            self._flush_pending(final=True)
            for path in list(self._written):
                self._finish_file(path)
                self._copy_to_runner_artifacts(path)
            if self._reports_failed and not (self._diverted or self._lost):
                self._display.error('perflab.network.results: the workbook of %s was not written (see above); the '
                                    'results are safe in that file; the run is marked failed'
                                    % ', '.join(self._reports_failed))
                raise SystemExit(EXIT_RESULTS_NOT_SAVED)
            if self._diverted or self._lost:
                self._display.error(
                    'perflab.network.results: %d record(s) are not in the results directory %s (%d saved to %s, '
                    '%d lost; see above); the run is marked failed so that a job runner notices'
                    % (self._diverted + self._lost, self.results_dir, self._diverted, tempfile.gettempdir(),
                       self._lost))
                # the exit code is decided before this event and a callback cannot change it, so leave;
                # the recap is printed (the stdout callback gets this event first) and every record is flushed
                raise SystemExit(EXIT_RESULTS_NOT_SAVED)

    # -- records ------------------------------------------------------------------------
    def _collect(self, result):
        data = getattr(result, 'result', None)
        if data is None:
            data = getattr(result, '_result', None)
        if not isinstance(data, dict):
            return
        facts = data.get('ansible_facts')
        plan = data.get(PLAN_KEY)
        if plan is None and isinstance(facts, dict):
            plan = facts.get(PLAN_KEY)
        with self._lock:
            if plan is not None:
                self.progress.set_plan(plan, self._play_serial)
                # the study's design and this run's block in it (benchmark_plan): written into its records
                if isinstance(plan, dict):
                    self._design = (plan.get('run_id'), plan.get('design'))
                    # an AWX job slice of a fleet (benchmark_plan): written into its records too
                    self._fleet_slice = (plan.get('run_id'), plan.get('fleet_slice'))
            for key in (SYSTEM_KEY, RESULT_KEY):
                if key not in data:
                    continue
                items = data[key]
                if isinstance(items, dict):
                    items = [items]
                if not isinstance(items, list):
                    continue
                for item in items:
                    self._store(item, key)

    def _store(self, record, key):
        if not isinstance(record, dict):
            self._warn_once('a %s item is not a mapping; it was not stored' % key)
            return
        try:
            kind = store.classify(record)
        except store.SchemaError as exc:
            self._warn_once('%s; it was not stored' % exc)
            return
        if kind is None:
            self._warn_once('a %s item has no perflab schema (%r); it was not stored'
                            % (key, record.get('schema')))
            return
        # The file's run: the run_id option when set; else the run the records name (the
        # benchmark role's plan names it, so files and set_stats agree without -e perflab_run_id),
        # the first one seen for the whole playbook; else our own.
        if not self.get_option('run_id') and self._record_run_id is None \
                and RUN_ID_RE.match(str(record.get('run_id') or '')):
            self._record_run_id = self.run_id = record['run_id']
        if not record.get('run_id'):
            record = dict(record, run_id=self.run_id)
        if kind == store.RESULT and self._design[0] and self._design[0] == record.get('run_id'):
            record = add_design(record, self._design[1])
        if kind == store.RESULT and self._fleet_slice[0] and self._fleet_slice[0] == record.get('run_id'):
            record = add_fleet_slice(record, self._fleet_slice[1])
        digest = hashlib.sha1(store.dumps(record).encode('utf-8')).hexdigest()
        if digest in self._seen:
            return
        self._seen.add(digest)
        if self.check_mode:
            # an amendment of a record stored before (the server side's samples) is no new record
            self._check_records += 0 if kind == store.AMENDMENT else 1
            return
        path = self.jsonl_path
        self._pending.setdefault(path, []).append(record)
        self._written.setdefault(path, 0)
        self._flush_pending()
        if kind == store.RESULT and self.get_option('progress'):
            counter, eta = self.progress.add(record)
            self._display.display(progress_line(counter, record, eta))
        elif kind == store.RESULT:
            self.progress.add(record)

    def _flush_pending(self, final=False):
        for path, records in list(self._pending.items()):
            if not records:
                continue
            try:
                store.append_records(path, records)
            except (OSError, IOError) as exc:
                if not final:
                    self._warn_once('cannot append to %s (%s); %d record(s) kept in memory, retried with the next one'
                                    % (path, exc, len(records)))
                    continue
                fallback = os.path.join(tempfile.gettempdir(), os.path.basename(path))
                try:
                    store.append_records(fallback, records)
                    self._diverted += len(records)
                    self._display.error('perflab.network.results: cannot write %s (%s): %d record(s) saved to %s'
                                        % (path, exc, len(records), fallback))
                except (OSError, IOError) as exc2:
                    self._lost += len(records)
                    self._display.error('perflab.network.results: cannot write %s (%s) nor %s (%s): %d record(s) lost'
                                        % (path, exc, fallback, exc2, len(records)))
                self._pending[path] = []
                continue
            self._written[path] = self._written.get(path, 0) + len(records)
            self._pending[path] = []

    def _copy_to_runner_artifacts(self, path):
        """Copy a run's JSON lines and workbook into ansible-runner's artifact directory, when there is one."""
        artifact_dir = os.environ.get(RUNNER_ARTIFACT_DIR_ENV)
        if not artifact_dir or not self.get_option('runner_artifacts') or not os.path.isdir(artifact_dir):
            return
        stem = path[:-len('.jsonl')] if path.endswith('.jsonl') else path
        dest_dir = os.path.join(artifact_dir, RUNNER_ARTIFACTS_SUBDIR)
        copied = []
        try:
            for source in (path, stem + '.xlsx', stem + '.txt', stem + '.md'):
                if os.path.isfile(source):
                    if not os.path.isdir(dest_dir):
                        os.makedirs(dest_dir)
                    dest = os.path.join(dest_dir, os.path.basename(source))
                    if os.path.abspath(source) != os.path.abspath(dest):
                        shutil.copyfile(source, dest)
                    copied.append(dest)
        except (OSError, IOError) as exc:
            self._warn_once('cannot copy the result files into the job artifacts %s (%s); they are in %s'
                            % (dest_dir, exc, os.path.dirname(path)))
            return
        if copied:
            self._display.display('perflab job artifacts: %s' % ', '.join(copied))

    def _finish_file(self, path):
        # imported here: the report builder (and openpyxl) is needed only at the end
        from ansible_collections.perflab.network.plugins.module_utils.report import workbook
        if not os.path.exists(path):
            return   # nothing could be written there; _flush_pending said where the records went
        stem = path[:-len('.jsonl')] if path.endswith('.jsonl') else path
        workbook_path = None
        if self.get_option('workbook'):
            if workbook.HAS_OPENPYXL:
                workbook_path = stem + '.xlsx'
            else:
                self._warn_once('openpyxl is not installed on the controller: no workbook written '
                                '(pip install openpyxl, then run playbooks/report.yml on %s)' % path)
        try:
            # the text and Markdown views need no openpyxl: written beside the workbook whenever one is asked for
            _report, result = build.build_report([path], workbook_path=workbook_path,
                                                 baseline=self.get_option('baseline'),
                                                 compare=self.get_option('compare'),
                                                 min_change_percent=self.get_option('min_change_percent'),
                                                 matrix_k=self.get_option('matrix_k'),
                                                 form=self.get_option('form'),
                                                 views_stem=stem if self.get_option('workbook') else None)
        except Exception as exc:  # pylint: disable=broad-except
            self._reports_failed.append(path)
            self._display.error('perflab.network.results: the report of %s failed (%s: %s); the results are safe '
                                'in that file, rebuild the workbook with playbooks/report.yml'
                                % (path, type(exc).__name__, ' '.join(str(exc).split())[:300]))
            return
        if self.get_option('summary'):
            self._display.display('\n' + result['summary'].rstrip('\n'))
        lines = ['perflab results: %s' % path]
        if result['workbook']:
            lines.append('perflab workbook: %s' % result['workbook'])
        if result['views']:
            lines.append('perflab result views: %s' % ', '.join(result['views']))
        self._display.display('\n'.join(lines))
