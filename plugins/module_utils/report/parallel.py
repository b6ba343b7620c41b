# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The parallel-netperf seed's table (seed 004): processes, their sum and the NIC counters against the link.

Where some test ran several processes, one row per throughput test and configuration whose records ran
several processes or sampled the NIC (the one-process test beside the N-process one): each
process' rate, the sum of the processes' own averages and the sum over their common window (the seconds all
of them ran: the record's ``common_window``; their own windows are not aligned, so the first sum can exceed
the link, the NIC and one process alone), each as a share of the link, and the NIC counters over the test and
their one-second peak (the seed's 98 % was such a second) as shares of the link. Values are means over the
test's successful runs. The workbook's "Parallel" sheet and the text views' last block read these rows.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

from ansible_collections.perflab.network.plugins.module_utils.report.store import RESULT

COLUMNS = ('Test', 'Test ID', 'Configuration', 'Runs', 'Processes', 'Each process (Mbit/s)',
           "Sum of the processes' own averages (Mbit/s)", 'Sum % of link',
           'Common window (s)', 'Sum over the common window (Mbit/s)', 'Common sum % of link',
           'NIC (Mbit/s)', 'NIC % of link', 'NIC 1-s peak (Mbit/s)', 'NIC peak % of link', 'Link (Mbit/s)')

NOTES = (
    "Each process: its own average over its own run. Sum of the processes' own averages: the record's value "
    "(what the tools add up); their windows are not aligned (the processes connect at slightly different "
    "times), so a process that ran alone for a moment counts that moment at the whole link's rate and this sum "
    "can exceed the link, the NIC counters and one process alone.",
    'Sum over the common window: each process\' rate over the seconds all of them ran (from their per-interval '
    'output), added up; "Common window (s)" is that span. Where a tool prints one interval for the whole test '
    '(netperf without finer interim lines) the window cannot be placed finer than its runs.',
    'NIC: the data interface\'s byte counters over the seconds the tool measured, in the test\'s direction (the '
    'client sends: tx; it receives: rx), headers included; NIC 1-s peak: the highest one-second rate within '
    'them. % of link: against the link speed the record names (client.link_mbps).',
)

THROUGHPUT_UNIT = 'Mbit/s'


def _number(value):
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _mean(values):
    values = [value for value in values if value is not None]
    return sum(values) / len(values) if values else None


def _share(value, link):
    return value / link * 100.0 if value is not None and link else None


def _value(metrics, name):
    metric = (metrics or {}).get(name)
    return _number(metric.get('value')) if isinstance(metric, dict) else None


def _nic(direction, nic, key):
    """``key`` (rx_mbps/tx_mbps or the peaks: 'rate' or 'peak') of ``nic`` in the test's direction."""
    if not isinstance(nic, dict):
        return None
    rx = _number(nic.get('rx_mbps' if key == 'rate' else 'rx_peak_mbps'))
    tx = _number(nic.get('tx_mbps' if key == 'rate' else 'tx_peak_mbps'))
    if direction == 'client_to_server':
        return tx
    if direction == 'server_to_client':
        return rx
    return rx + tx if rx is not None and tx is not None else None


def _collect(report):
    """``{(test_id, label): {runs, processes, each: [[values]], sum, common, seconds, nic, peak, link}}``."""
    cells = {}
    for kind, rec in report.source:
        if kind != RESULT or rec.get('status') != 'ok' or not rec.get('test_id'):
            continue
        primary = rec.get('primary')
        metrics = rec.get('metrics') or {}
        metric = metrics.get(primary) if isinstance(metrics, dict) else None
        if not isinstance(metric, dict) or metric.get('unit') != THROUGHPUT_UNIT:
            continue
        processes = [p for p in rec.get('processes') or [] if isinstance(p, dict)]
        nic = rec.get('nic') if isinstance(rec.get('nic'), dict) else None
        if not processes and not (nic and (nic.get('rx_mbps') is not None or nic.get('tx_mbps') is not None)):
            continue
        cell = cells.setdefault((rec['test_id'], report.column_of(rec)), {
            'runs': 0, 'processes': max(1, len(processes)), 'each': [], 'sum': [], 'common': [], 'seconds': [],
            'nic': [], 'peak': [], 'link': []})
        cell['runs'] += 1
        for index, process in enumerate(processes):
            while len(cell['each']) <= index:
                cell['each'].append([])
            cell['each'][index].append(_value(process.get('metrics'), primary))
        cell['sum'].append(_number(metric.get('value')))
        window = rec.get('common_window') if isinstance(rec.get('common_window'), dict) else {}
        cell['common'].append(_number(window.get('sum_mbps')))
        cell['seconds'].append(_number(window.get('seconds')))
        direction = rec.get('direction')
        cell['nic'].append(_nic(direction, nic, 'rate'))
        cell['peak'].append(_nic(direction, nic, 'peak'))
        client = rec.get('client') if isinstance(rec.get('client'), dict) else {}
        link = _number(client.get('link_mbps'))
        cell['link'].append(link if link and link > 0 else None)
    return cells


def rows(report):
    """The table's rows (COLUMNS), in the report's test and configuration order; [] when no record ran several
    processes (a study without them keeps the NIC counters on its test sheets and Intervals only)."""
    cells = _collect(report)
    if not any(cell['processes'] > 1 for cell in cells.values()):
        return []
    out = []
    for test in report.tests:
        for label in report.columns:
            cell = cells.get((test.test_id, label))
            if cell is None:
                continue
            links = [link for link in cell['link'] if link]
            link = min(links) if links else None
            each = [_mean(values) for values in cell['each']]
            total, common = _mean(cell['sum']), _mean(cell['common'])
            nic, peak = _mean(cell['nic']), max([value for value in cell['peak'] if value is not None] or [None])
            out.append([test.title, test.test_id, label, cell['runs'], cell['processes'],
                        ' / '.join('%.1f' % value for value in each if value is not None) or None,
                        total, _share(total, link), _mean(cell['seconds']), common, _share(common, link),
                        nic, _share(nic, link), peak, _share(peak, link), link])
    return out
