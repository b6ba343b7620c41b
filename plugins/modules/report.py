#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

DOCUMENTATION = r"""
module: report
short_description: Merge perflab result files into one workbook, with CSV and JSON exports
version_added: 0.1.0
description:
  - Reads any set of result files (JSON lines of C(perflab.result/1) records and C(perflab.system/1)
    profiles, as the P(perflab.network.results#callback) callback writes them) and writes one workbook
    comparing every configuration side by side, plus CSV and JSON exports of the same tables.
  - The workbook has a Summary sheet (a row per test, a column per configuration, the relative change
    against the baseline with its 95 % confidence interval, Welch's p, the p adjusted by Holm's method and a
    verdict), one sheet per test with the means' confidence intervals and a bar chart, Systems, Intervals
    (per-interval samples with line charts) and Raw (every record x metric). See docs/reports.md.
  - A line that is not valid JSON (a run stopped while writing it) is reported as C(file:line) and
    skipped. A record of a schema major this version does not know stops the module with an error.
  - The files are read where the module runs; run it on the controller (a play on C(localhost) with
    C(connection=local), or C(delegate_to=localhost) on a task).
requirements:
  - openpyxl >= 3.1 where the module runs
options:
  src:
    description:
      - Result files to merge, in this order (the first configuration seen is the default baseline).
      - Each item is a file, a glob (V(results/2026*.jsonl)) or a directory (its C(*.jsonl) files).
    type: list
    elements: path
    required: true
  dest:
    description:
      - The workbook to write, an C(.xlsx) path. Its directory is created when missing.
      - The text and Markdown views (RV(views)) are written beside it, with C(.txt) and C(.md) for C(.xlsx).
    type: path
    required: true
  exports:
    description: Which exports to write next to the workbook (V([]) for none).
    type: list
    elements: str
    choices: [csv, json]
    default: [csv, json]
  export_stem:
    description:
      - Path prefix of the exports, C(<export_stem>-<table>.csv) and C(<export_stem>.json).
      - Default, O(dest) without its C(.xlsx) suffix.
    type: path
  baseline:
    description:
      - Configuration label the others are compared against. Default, the first configuration seen.
      - With O(group_by=run) a plain label picks the first run of that label.
      - Only where neither O(compare) nor the stock rule gives a configuration its own baseline.
    type: str
  compare:
    description:
      - Which configuration is compared against which, a mapping of configuration labels to baseline
        configuration labels; any configuration against any other, so one workbook holds several baselines
        (each tuned configuration against its own stock; an OS study maps C(OSv) to C(Linux), "% relative to
        Linux"). Null, or the configuration itself, compares it with none.
      - A configuration left out is compared against the configuration of profile C(stock) on the same hosts
        with the same OS (from the system profiles), where exactly one is recorded; else against O(baseline).
    type: dict
  min_change_percent:
    description:
      - The smallest change (in percent of the baseline) the study cares about. A change whose magnitude is below it
        is never a verdict of C(better) or C(worse), however significant; it is C(below minimum change) when
        significant after Holm's correction, else C(no significant change), or C(too noisy) when its confidence
        interval reaches beyond it (docs/reports.md, "Statistics and verdicts").
      - A number, 0 or more; V(0), none (every significant change counts). Anything else (a negative number, text
        that is no number, a boolean) fails before any file is written.
    type: raw
    default: 0
  form:
    description:
      - How the workbook's comparisons and the text views show a configuration against its baseline.
      - V(change), the relative change, (configuration - baseline) / |baseline| in percent (V(-24.5)).
      - V(ratio), the configuration as a share of its baseline, configuration / baseline in percent (V(104), V(150)),
        the OSv seed's "OSv as a ratio of Linux". The statistics and verdicts are the same in both forms.
    type: str
    choices: [change, ratio]
    default: change
  systems:
    description:
      - V(tested), the Systems sheet shows one row per system under test (a host that ran tests as the client
        of its configuration); V(all) adds the servers.
    type: str
    choices: [tested, all]
    default: tested
  group_by:
    description:
      - V(config) pools every run of one configuration label in one column.
      - V(run) gives each run its own column, C(<label> [<run_id>]) (to compare two runs of one label).
    type: str
    choices: [config, run]
    default: config
  intervals:
    description: Include the Intervals sheet and export (per-interval tool and NIC samples).
    type: bool
    default: true
  title:
    description: Title of the report (workbook properties, text summary).
    type: str
    default: perflab.network results
  strict:
    description: Fail when a line of the result files had to be skipped, instead of warning.
    type: bool
    default: false
extends_documentation_fragment:
  - perflab.network.attributes
attributes:
  check_mode:
    details: Reads and checks the files and returns what would be written, writing nothing.
  platform:
    details: Any POSIX host with openpyxl; the controller in practice.
notes:
  - The workbook is rebuilt on every run, so the module always reports C(changed) outside check mode.
seealso:
  - plugin: perflab.network.results
    plugin_type: callback
    description: Writes the result files as tests run.
"""

EXAMPLES = r"""
- name: Merge the stock and the tuned runs into one workbook
  perflab.network.report:
    src:
      - results/20261129T184000Z-ab12.jsonl
      - results/20261129T201500Z-cd34.jsonl
    dest: results/stock-vs-tuned.xlsx
    baseline: Debian 12 stock
  delegate_to: localhost
  run_once: true

- name: Every result file of a directory, one column per run, workbook only
  perflab.network.report:
    src: [results/]
    dest: /srv/reports/all-runs.xlsx
    group_by: run
    exports: []
  delegate_to: localhost
  run_once: true
"""

RETURN = r"""
workbook:
  description: Path of the workbook (written, or to be written in check mode).
  returned: always
  type: str
  sample: results/stock-vs-tuned.xlsx
exports:
  description: Paths of the CSV and JSON exports.
  returned: always
  type: list
  elements: str
  sample: [results/stock-vs-tuned-summary.csv, results/stock-vs-tuned-raw.csv, results/stock-vs-tuned.json]
views:
  description:
    - The same results as plain text and as Markdown, next to the workbook (O(dest) with C(.txt) and C(.md)),
      a block per test (title, unit, whether higher or lower is better), a line per configuration with its
      mean, its standard deviation and a bar; to paste into an article or a ticket.
  returned: always
  type: list
  elements: str
  sample: [results/stock-vs-tuned.txt, results/stock-vs-tuned.md]
files:
  description: The result files read, in order.
  returned: always
  type: list
  elements: str
  sample: [results/20261129T184000Z-ab12.jsonl, results/20261129T201500Z-cd34.jsonl]
configurations:
  description: The configuration columns, in order.
  returned: always
  type: list
  elements: str
  sample: [Debian 12 stock, Debian 12 tuned]
baseline:
  description: The configuration the others are compared against where nothing gives them their own.
  returned: always
  type: str
  sample: Debian 12 stock
compare:
  description: Each compared configuration and its baseline.
  returned: always
  type: dict
  sample: {Debian 12 tuned: Debian 12 stock, Rocky 9 tuned: Rocky 9 stock}
min_change_percent:
  description: The smallest change the verdicts flag (0, none), as used.
  returned: always
  type: float
  sample: 2.0
form:
  description: How the comparisons are shown, V(change) or V(ratio).
  returned: always
  type: str
  sample: ratio
run_ids:
  description: The run ids found in the files.
  returned: always
  type: list
  elements: str
  sample: [20261129T184000Z-ab12, 20261129T201500Z-cd34]
tests:
  description: Number of distinct tests (test_id).
  returned: always
  type: int
  sample: 8
records:
  description: Number of result records read.
  returned: always
  type: int
  sample: 37
records_ok:
  description: Records with status ok.
  returned: always
  type: int
  sample: 33
records_failed:
  description: Records with status failed (counted, never averaged).
  returned: always
  type: int
  sample: 3
records_skipped:
  description: Records with status skipped.
  returned: always
  type: int
  sample: 1
systems:
  description: Number of system profiles (one per configuration and host).
  returned: always
  type: int
  sample: 4
sheets:
  description: The workbook's sheet names, in order (empty in check mode).
  returned: always
  type: list
  elements: str
  sample: [Summary, iPerf 3.12 - TCP - Parallel 5, Systems, Intervals, Raw]
charts:
  description: Number of charts in the workbook (0 in check mode).
  returned: always
  type: int
  sample: 12
truncated:
  description: Sheets cut at the spreadsheet row limit (the exports hold every row).
  returned: always
  type: list
  elements: str
  sample: []
skipped_lines:
  description: Lines that could not be read and were skipped.
  returned: always
  type: list
  elements: dict
  contains:
    file:
      description: The result file.
      type: str
      sample: results/20261129T184000Z-ab12.jsonl
    line:
      description: 1-based line number.
      type: int
      sample: 7
    error:
      description: Why the line was skipped.
      type: str
      sample: last line is incomplete, skipped (the run was probably stopped while writing it)
  sample:
    - file: results/20261129T184000Z-ab12.jsonl
      line: 7
      error: last line is incomplete, skipped (the run was probably stopped while writing it)
duplicates:
  description:
    - Records read more than once and counted once, by the file where the later copy was found (a backup copy
      of a results file in the folder, a file given twice). A record is one run of a test (its run, label, pair,
      test id, repetition, start, end and status) or one system profile; the module warns when there are any.
  returned: always
  type: dict
  sample: {results/backup-20261129T184000Z-ab12.jsonl: 12}
summary:
  description: The text summary, a block per test and a bar per configuration.
  returned: always
  type: str
  sample: |
    iPerf 3.12 - TCP - Parallel: 5
    Mbit/s, higher is better
      Debian 12 stock ... 9369.48 |##################################################
      Debian 12 tuned ... 9408.55 |##################################################   +0.4%
"""

from ansible.module_utils.basic import AnsibleModule, missing_required_lib

from ansible_collections.perflab.network.plugins.module_utils.report import build, exports, store, tables, text
from ansible_collections.perflab.network.plugins.module_utils.report.workbook import (
    HAS_OPENPYXL, OPENPYXL_IMPORT_ERROR)


def export_paths(stem, formats, intervals):
    names = ['summary', 'tests', 'metrics', 'systems'] + (['intervals'] if intervals else []) + ['raw']
    paths = []
    for fmt in formats:
        if fmt == 'csv':
            paths.extend('%s-%s.csv' % (stem, name) for name in names)
        elif fmt == 'json':
            paths.append('%s.json' % stem)
    return paths


def main():
    module = AnsibleModule(
        argument_spec=dict(
            src=dict(type='list', elements='path', required=True),
            dest=dict(type='path', required=True),
            exports=dict(type='list', elements='str', choices=list(exports.FORMATS), default=list(exports.FORMATS)),
            export_stem=dict(type='path'),
            baseline=dict(type='str'),
            compare=dict(type='dict'),
            min_change_percent=dict(type='raw', default=0),
            form=dict(type='str', choices=list(tables.FORMS), default='change'),
            systems=dict(type='str', choices=['tested', 'all'], default='tested'),
            group_by=dict(type='str', choices=list(tables.GROUP_BY_CHOICES), default='config'),
            intervals=dict(type='bool', default=True),
            title=dict(type='str', default='perflab.network results'),
            strict=dict(type='bool', default=False),
        ),
        supports_check_mode=True,
    )
    params = module.params
    if not HAS_OPENPYXL:
        module.fail_json(msg=missing_required_lib('openpyxl'), exception=OPENPYXL_IMPORT_ERROR)
    if not params['src']:
        module.fail_json(msg='src is empty: give result files, globs or directories')
    dest = params['dest']
    if not dest.lower().endswith('.xlsx'):
        module.fail_json(msg='dest must be an .xlsx path, not %s' % dest)
    stem = params['export_stem'] or dest[:-len('.xlsx')]
    formats = []
    for fmt in params['exports']:
        if fmt not in formats:
            formats.append(fmt)

    paths, unmatched = store.expand_sources(params['src'])
    if not paths:
        module.fail_json(msg='no result file matches %s' % ', '.join(params['src']), unmatched=unmatched)
    for pattern in unmatched:
        module.warn('no result file matches %s' % pattern)

    try:
        build.compare_map(params['compare'])
        min_change = tables.min_change_value(params['min_change_percent'])
    except ValueError as exc:
        module.fail_json(msg=str(exc))

    try:
        if module.check_mode:
            report = tables.Report(store.ResultFiles(paths), baseline=params['baseline'],
                                   group_by=params['group_by'], title=params['title'],
                                   compare=build.compare_map(params['compare']), systems=params['systems'],
                                   min_change_percent=min_change, form=params['form'])
            result = {'workbook': dest, 'exports': export_paths(stem, formats, params['intervals']),
                      'views': [dest[:-len('.xlsx')] + suffix for suffix in ('.txt', '.md')],
                      'sheets': [], 'charts': 0, 'truncated': [], 'summary': text.render(report)}
        else:
            report, result = build.build_report(
                paths, workbook_path=dest, export_stem=stem, formats=formats, baseline=params['baseline'],
                group_by=params['group_by'], intervals=params['intervals'], title=params['title'],
                compare=params['compare'], systems=params['systems'], views_stem=dest[:-len('.xlsx')],
                min_change_percent=min_change, form=params['form'])
    except store.SchemaError as exc:
        module.fail_json(msg=str(exc), files=paths)
    except (IOError, OSError) as exc:
        module.fail_json(msg='cannot read or write the report files: %s' % exc, files=paths)

    skipped_lines = [problem.as_dict() for problem in report.problems]
    if skipped_lines and params['strict']:
        module.fail_json(msg='%d line(s) could not be read: %s' % (
            len(skipped_lines), '; '.join(str(problem) for problem in report.problems[:10])),
            skipped_lines=skipped_lines, files=paths, changed=not module.check_mode)
    for problem in report.problems:
        module.warn('skipped %s' % problem)
    for warning in report.warnings:
        module.warn(warning)

    module.exit_json(
        changed=True,
        workbook=result['workbook'],
        exports=result['exports'],
        views=result['views'],
        files=paths,
        configurations=list(report.columns),
        baseline=report.baseline,
        compare=report.overview()['compare'],
        min_change_percent=report.min_change_percent,
        form=report.form,
        run_ids=list(report.run_ids),
        tests=len(report.tests),
        records=report.records,
        records_ok=report.ok,
        records_failed=report.failed,
        records_skipped=report.skipped,
        systems=len(report.systems),
        sheets=result['sheets'],
        charts=result['charts'],
        truncated=result['truncated'],
        skipped_lines=skipped_lines,
        duplicates=report.duplicates,
        summary=result['summary'],
    )


if __name__ == '__main__':
    main()
