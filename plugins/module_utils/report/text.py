# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The result views in the seeds' shape, plain text and Markdown: a block per test (its title, unit and
direction), a line per configuration with its value, its spread and a bar.

::

    iPerf 3.12 - TCP - Parallel: 5
    Mbit/s, higher is better
      Debian 12 stock ... 9412.30 ± 12.10 |########################################
      Debian 12 tuned ... 9603.10 ±  8.40 |#########################################  +2.0% [+1.7, +2.3] better

Both renderings come from the same rows (``test_rows``), so the text, the Markdown and the workbook's
numbers (the test sheets' Mean and Stdev) are the same figures.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

from ansible_collections.perflab.network.plugins.module_utils.report import matrix
from ansible_collections.perflab.network.plugins.module_utils.report import exports, parallel

BAR_WIDTH = 50


def format_value(value):
    if value is None:
        return ''
    if abs(value) >= 100000:
        return '%.0f' % value
    return '%.2f' % value


def _bar(value, largest, width):
    if value is None or largest is None or largest <= 0 or value <= 0:
        return ''
    return '#' * max(1, int(round(width * value / largest)))


def _header_lines(report):
    lines = ['%d configuration(s), baseline %s; %d test(s); %d run(s): %d ok, %d failed, %d skipped'
             % (len(report.columns), ', '.join(report.baselines) or report.baseline or '-', len(report.tests),
                report.records, report.ok, report.failed, report.skipped)]
    if report.others:
        lines.append("%s %s [its 95%% confidence interval] and the verdict (significance: Welch's t-test, "
                     "its p adjusted by Holm's method over the tests of each comparison)"
                     % ('Ratio (%) to' if report.form == 'ratio' else 'Change vs',
                        'each configuration\'s own baseline (%s)' % report.compare_text()
                        if len(report.baselines) > 1 else 'the baseline'))
        lines.append(report.verdict_note())
        lines.append(report.design_note())
    lines.append('Value: the mean of the successful runs, +/- their standard deviation (with 2 runs or more)')
    lines += ['skipped %s' % problem for problem in report.problems]
    lines += ['warning: %s' % warning for warning in report.warnings]
    return lines


def test_rows(report, test, bar_width=BAR_WIDTH):
    """One dict per configuration of ``test`` that has records: ``label``, ``value`` and ``spread`` (text, ''
    without), ``bar``, ``notes`` (change, share of the link, failed and skipped runs), or ``problem`` (the
    FAILED/SKIPPED text) when no run succeeded."""
    several = len(report.baselines) > 1
    present = [column for column in test.columns if column.present]
    means = [column.mean for column in present if column.mean is not None]
    largest = max(means) if means else None
    rows = []
    for column in present:
        row = {'label': column.label, 'value': '', 'spread': '', 'bar': '', 'notes': [], 'problem': None}
        problems = column.failed + column.skipped
        if column.mean is None:
            error = ('; '.join(column.errors))[:120]
            row['problem'] = '%s (%d of %d runs)%s' % ('FAILED' if column.failed else 'SKIPPED', problems,
                                                       problems + column.runs, (': ' + error) if error else '')
            rows.append(row)
            continue
        row['value'] = format_value(column.mean)
        if column.summary.get('stdev') is not None and column.runs > 1:
            row['spread'] = format_value(column.summary['stdev'])
        row['bar'] = _bar(column.mean, largest, bar_width)
        if report.form == 'ratio' and column.ratio_percent is not None:
            # the seeds' "OSv as a share of Linux": 104 %
            interval = (' [%.1f, %.1f]' % (column.ratio_low, column.ratio_high)) if column.ratio_low is not None else ''
            row['notes'].append('%.1f%% of %s%s%s' % (column.ratio_percent, column.baseline, interval,
                                                      (' %s' % column.verdict) if column.verdict else ''))
        elif column.change_percent is not None:
            interval = (' [%+.1f, %+.1f]' % (column.change_low, column.change_high)) \
                if column.change_low is not None else ''
            row['notes'].append('%+.1f%%%s%s%s' % (column.change_percent, interval,
                                                   (' %s' % column.verdict) if column.verdict else '',
                                                   (' vs %s' % column.baseline) if several else ''))
        if column.link_percent is not None:
            row['notes'].append('[%.0f%% of %s Mbit/s link]' % (column.link_percent, format_value(column.link_mbps)))
        if column.failed:
            row['notes'].append('(%d failed)' % column.failed)
        if column.skipped:
            row['notes'].append('(%d skipped)' % column.skipped)
        rows.append(row)
    return rows


def _figure(value, unit=''):
    return '-' if value is None else ('%.1f%s' % (value, unit))


def parallel_lines(report):
    """The parallel-netperf seed's table as text lines (report.parallel), [] when no record has processes or NIC
    counters: per test and configuration, each process, both sums and the NIC against the link."""
    rows = parallel.rows(report)
    if not rows:
        return []
    lines = ['', 'Processes and the link (the parallel-netperf table; Mbit/s, % of the link)']
    for row in rows:
        (title, _test_id, label, runs, processes, each, total, total_pct, seconds, common, common_pct,
         nic, nic_pct, peak, peak_pct, link) = row
        lines.append('  %s - %s (%d run(s), %d process(es), link %s Mbit/s)'
                     % (title, label, runs, processes, _figure(link)))
        if processes > 1:
            lines.append('    each process: %s' % (each or '-'))
            lines.append('    sum of their own averages: %s (%s of link)' % (_figure(total), _figure(total_pct, ' %')))
            lines.append('    sum over the common window (%s s): %s (%s of link)' % (
                _figure(seconds), _figure(common), _figure(common_pct, ' %')))
        else:
            lines.append('    the process: %s (%s of link)' % (_figure(total), _figure(total_pct, ' %')))
        lines.append('    NIC counters: %s (%s of link), 1-s peak %s (%s of link)' % (
            _figure(nic), _figure(nic_pct, ' %'), _figure(peak), _figure(peak_pct, ' %')))
    return lines


def render(report, bar_width=BAR_WIDTH):
    """The plain-text view as one string (ends with a newline)."""
    lines = [report.title] + _header_lines(report)
    for test in report.tests:
        lines += ['', test.title, test.units_line]
        rows = test_rows(report, test, bar_width)
        label_width = max([len(row['label']) for row in rows] + [8]) + 4
        value_width = max([len(row['value']) for row in rows] + [1])
        spread_width = max([len(row['spread']) for row in rows] + [0])
        for row in rows:
            dots = ' ' + '.' * (label_width - len(row['label']) - 1)
            if row['problem']:
                lines.append('  %s%s %s' % (row['label'], dots, row['problem']))
                continue
            spread = (' ± %s' % row['spread'].rjust(spread_width) if row['spread'] else
                      ' ' * (spread_width + 3)) if spread_width else ''
            line = '  %s%s %s%s |%s' % (row['label'], dots, row['value'].rjust(value_width), spread, row['bar'])
            if row['notes']:
                line = line.ljust(label_width + value_width + len(spread) + bar_width + 6) + '  ' + ' '.join(row['notes'])
            lines.append(line.rstrip())
    fleet = report.matrices()
    if fleet:
        lines += ['', 'Fleet matrix'] + [line.rstrip() for line in matrix.text(fleet)]
    lines += parallel_lines(report)
    return '\n'.join(lines) + '\n'


def _cell_text(value):
    return '' if value is None else ('%.1f' % value if isinstance(value, float) else str(value))


def _md(text):
    """``text`` as it may stand in a Markdown table cell."""
    return str(text).replace('\\', '\\\\').replace('|', '\\|').replace('\n', ' ')


def render_markdown(report, bar_width=BAR_WIDTH):
    """The Markdown view: a heading per test, its unit and direction, a table row per configuration."""
    lines = ['# %s' % _md(report.title), '']
    lines += ['%s  ' % _md(line) for line in _header_lines(report)]
    for test in report.tests:
        lines += ['', '## %s' % _md(test.title), '', '*%s*' % _md(test.units_line), '',
                  '| Configuration | Value | ± | | Notes |', '|---|---:|---:|---|---|']
        for row in test_rows(report, test, bar_width):
            if row['problem']:
                lines.append('| %s | %s | | | |' % (_md(row['label']), _md(row['problem'])))
                continue
            lines.append('| %s | %s | %s | %s | %s |' % (
                _md(row['label']), row['value'], row['spread'], ('`%s`' % row['bar']) if row['bar'] else '',
                _md(' '.join(row['notes']))))
    rows = parallel.rows(report)
    if rows:
        lines += ['', '## Processes and the link', '',
                  '| ' + ' | '.join(_md(name) for name in parallel.COLUMNS if name != 'Test ID') + ' |',
                  '|' + '---|' * (len(parallel.COLUMNS) - 1)]
        for row in rows:
            lines.append('| ' + ' | '.join(_md(_cell_text(value)) for index, value in enumerate(row) if index != 1)
                         + ' |')
    return '\n'.join(lines) + '\n'


RENDERERS = {'text': render, 'markdown': render_markdown}


def write_views(report, stem):
    """Write ``<stem>.txt`` and ``<stem>.md`` (each complete or not at all); returns their paths."""
    paths = []
    for name, suffix in (('text', '.txt'), ('markdown', '.md')):
        path = stem + suffix
        with exports.AtomicFile(path) as handle:
            handle.write(RENDERERS[name](report))
        paths.append(path)
    return paths
