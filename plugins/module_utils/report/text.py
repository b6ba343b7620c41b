# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The text summary, in the seeds' style: a block per test, a bar per configuration.

::

    iPerf 3.12 - TCP - Parallel: 5
    Mbit/s, higher is better
      Debian 12 stock ... 9412.30 |########################################
      Debian 12 tuned ... 9603.10 |#########################################  +2.0% *
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

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


def render(report, bar_width=BAR_WIDTH):
    """The whole summary as one string (ends with a newline)."""
    lines = []
    lines.append(report.title)
    lines.append('%d configuration(s), baseline %s; %d test(s); %d run(s): %d ok, %d failed, %d skipped'
                 % (len(report.columns), ', '.join(report.baselines) or report.baseline or '-', len(report.tests),
                    report.records, report.ok, report.failed, report.skipped))
    several = len(report.baselines) > 1
    if report.others:
        lines.append("Change vs %s; * = significant (Welch's t-test, p < 0.05, both with >= 2 runs)"
                     % ('each configuration\'s own baseline (%s)' % report.compare_text() if several
                        else 'the baseline'))
    for problem in report.problems:
        lines.append('skipped %s' % problem)
    for warning in report.warnings:
        lines.append('warning: %s' % warning)
    for test in report.tests:
        lines.append('')
        lines.append(test.title)
        lines.append(test.units_line)
        present = [column for column in test.columns if column.present]
        label_width = max([len(column.label) for column in present] + [8]) + 4
        value_width = max([len(format_value(column.mean)) for column in present] + [1])
        means = [column.mean for column in present if column.mean is not None]
        largest = max(means) if means else None
        for column in present:
            dots = ' ' + '.' * (label_width - len(column.label) - 1)
            problems = column.failed + column.skipped
            if column.mean is None:
                error = ('; '.join(column.errors))[:120]
                lines.append('  %s%s %s (%d of %d runs)%s' % (
                    column.label, dots, 'FAILED' if column.failed else 'SKIPPED', problems,
                    problems + column.runs, (': ' + error) if error else ''))
                continue
            line = '  %s%s %s |%s' % (column.label, dots, format_value(column.mean).rjust(value_width),
                                      _bar(column.mean, largest, bar_width))
            notes = []
            if column.change_percent is not None:
                notes.append('%+.1f%%%s%s' % (column.change_percent, ' *' if column.significant else '',
                                              (' vs %s' % column.baseline) if several else ''))
            if column.link_percent is not None:
                notes.append('[%.0f%% of %s Mbit/s link]' % (column.link_percent, format_value(column.link_mbps)))
            if column.failed:
                notes.append('(%d failed)' % column.failed)
            if column.skipped:
                notes.append('(%d skipped)' % column.skipped)
            if notes:
                line = line.ljust(label_width + value_width + bar_width + 6) + '  ' + ' '.join(notes)
            lines.append(line.rstrip())
    return '\n'.join(lines) + '\n'
