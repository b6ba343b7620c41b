# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The one builder of ``perflab.result/1`` records (see docs/result-record.md)."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import binascii
import copy
import os
import socket
import time

from ansible_collections.perflab.network.plugins.module_utils.process import iso_utc
from ansible_collections.perflab.network.plugins.module_utils.nic import interface_mtu

SCHEMA = 'perflab.result/1'
RAW_LIMIT = 64 * 1024
STATUSES = ('ok', 'failed', 'skipped')

# name -> (unit, higher_is_better)
METRICS = {
    'throughput_mbps': ('Mbit/s', True),
    'throughput_sent_mbps': ('Mbit/s', True),
    'throughput_received_mbps': ('Mbit/s', True),
    'retransmits': ('count', False),
    'jitter_ms': ('ms', False),
    'lost_percent': ('%', False),
    'lost_packets': ('count', False),
    'packets': ('count', True),
    'transactions_per_s': ('1/s', True),
    'latency_us_mean': ('us', False),
    'latency_us_p50': ('us', False),
    'latency_us_p90': ('us', False),
    'latency_us_p99': ('us', False),
    'latency_us_min': ('us', False),
    'latency_us_max': ('us', False),
    'latency_us_stddev': ('us', False),
    'connections_per_s': ('1/s', True),
    'packets_per_s': ('1/s', True),
    'cpu_local_pct': ('%', False),
    'cpu_remote_pct': ('%', False),
    'nic_tx_mbps': ('Mbit/s', True),
    'nic_rx_mbps': ('Mbit/s', True),
}


def new_run_id(timestamp=None):
    """e.g. 20261129T184000Z-ab12"""
    if timestamp is None:
        timestamp = time.time()
    stamp = time.strftime('%Y%m%dT%H%M%SZ', time.gmtime(timestamp))
    return '%s-%s' % (stamp, binascii.hexlify(os.urandom(2)).decode('ascii'))


def _host_side(name, address, interface):
    return {
        'name': name,
        'address': address,
        'interface': interface,
        'mtu': interface_mtu(interface) if interface else None,
    }


def new_record(params, tool, test, protocol, direction, test_id, options=None, tool_version=''):
    """A fresh record with identity / what / where filled from the module's common params.

    ``params`` is the module's ``params`` (TEST_COMMON_ARGS keys; missing keys are fine).
    ``options`` are the module's test options as given (copied).
    """
    params = params or {}
    if protocol not in ('tcp', 'udp'):
        raise ValueError('protocol must be tcp or udp, not %r' % (protocol,))
    if direction not in ('client_to_server', 'server_to_client', 'bidirectional'):
        raise ValueError('unknown direction %r' % (direction,))
    duration = params.get('duration')
    return {
        'schema': SCHEMA,
        'run_id': params.get('run_id') or new_run_id(),
        'config': params.get('config') or '',
        'suite': params.get('suite') or 'adhoc',
        # a suite's id (passed by the benchmark role) wins over the module's own
        'test_id': params.get('test_id') or test_id,
        'repetition': int(params.get('repetition') or 1),
        'started_at': None,
        'ended_at': None,
        'tool': tool,
        'tool_version': tool_version or '',
        'test': test,
        'protocol': protocol,
        'direction': direction,
        'parallel': int(params.get('parallel') or 1),
        'duration_s': float(duration) if duration is not None else None,
        'options': copy.deepcopy(options) if options else {},
        'command': [],
        'commands': [],
        'client': _host_side(params.get('client_name') or socket.gethostname(),
                             params.get('bind'), params.get('nic_interface')),
        'server': _host_side(params.get('server_name') or params.get('server'),
                             params.get('server'), None),
        'metrics': {},
        'primary': None,
        'intervals': [],
        'nic': None,
        'processes': None,
        'status': None,
        'error': None,
        'raw': '',
    }


def metric(value, unit, higher_is_better):
    return {'value': float(value), 'unit': unit, 'higher_is_better': bool(higher_is_better)}


def add_metric(record, name, value, unit=None, higher_is_better=None):
    """Add metric ``name`` to ``record``. Returns False (and adds nothing) when ``value`` is None.

    For a name in METRICS, ``unit`` and ``higher_is_better`` may be omitted;
    a unit that disagrees with the table raises ValueError (convert first, with units.py).
    """
    if value is None:
        return False
    known = METRICS.get(name)
    if known is not None:
        if unit is None:
            unit = known[0]
        elif unit != known[0]:
            raise ValueError('metric %s is in %s, not %s' % (name, known[0], unit))
        if higher_is_better is None:
            higher_is_better = known[1]
    elif unit is None or higher_is_better is None:
        raise ValueError('metric %s is not in METRICS: give unit and higher_is_better' % name)
    record['metrics'][name] = metric(value, unit, higher_is_better)
    return True


def add_metrics(record, values):
    """Add every known metric of a ``{name: value}`` map (parsers return such maps)."""
    for name, value in values.items():
        add_metric(record, name, value)


def set_primary(record, name):
    record['primary'] = name


def set_commands(record, argvs):
    """Record the argv(s) that run: ``command`` is the first, ``commands`` all of them."""
    argvs = [list(argv) for argv in argvs]
    record['command'] = argvs[0] if argvs else []
    record['commands'] = argvs


def add_nic(record, nic_result):
    """Attach a NicSampler.result() and its nic_rx_mbps/nic_tx_mbps metrics."""
    record['nic'] = nic_result
    if nic_result:
        add_metric(record, 'nic_rx_mbps', nic_result.get('rx_mbps'))
        add_metric(record, 'nic_tx_mbps', nic_result.get('tx_mbps'))


def add_process(record, port, metrics, status='ok', error=None):
    """Append one client process' sub result (``metrics`` as name -> {value, unit, higher_is_better})."""
    if record['processes'] is None:
        record['processes'] = []
    record['processes'].append({'port': port, 'metrics': metrics, 'status': status, 'error': error})


def bound_raw(text, limit=RAW_LIMIT):
    """Bound ``text`` to ``limit`` characters, keeping its head and tail."""
    text = text or ''
    if len(text) <= limit:
        return text
    marker = '\n... [%d characters cut] ...\n' % (len(text) - limit)
    keep = max(0, limit - len(marker))
    head = keep // 2
    tail = keep - head
    return text[:head] + marker + (text[-tail:] if tail else '')


def finish_record(record, proc, status, error=None, raw=''):
    """Close ``record``: times and argv from ``proc`` (a ProcessResult or None), status, error, raw.

    ``raw`` defaults to the process' stdout and stderr. A record claiming ``ok``
    whose ``primary`` is not among its metrics becomes ``failed``.
    """
    if status not in STATUSES:
        raise ValueError('status must be one of %s, not %r' % (', '.join(STATUSES), status))
    now = iso_utc()
    if proc is not None:
        record['started_at'] = record['started_at'] or proc.started_at
        record['ended_at'] = proc.ended_at
        if not record['command']:
            record['command'] = list(proc.argv)
            record['commands'] = [list(proc.argv)]
        if not raw:
            raw = proc.stdout or ''
            if proc.stderr:
                raw = raw + ('\n' if raw and not raw.endswith('\n') else '') + proc.stderr
    record['started_at'] = record['started_at'] or now
    record['ended_at'] = record['ended_at'] or now
    if status == 'ok' and (not record['primary'] or record['primary'] not in record['metrics']):
        status = 'failed'
        error = error or 'the tool output has no %s' % (record['primary'] or 'primary metric')
    if status != 'ok' and not error:
        error = 'failed' if status == 'failed' else 'skipped'
    record['status'] = status
    record['error'] = error if status != 'ok' else None
    record['raw'] = bound_raw(raw)
    return record


# Metrics that add up over client processes run at once; the others are averaged
# (lost_percent is recomputed from the packet counts when every process has them).
ADDITIVE_METRICS = frozenset([
    'throughput_mbps', 'throughput_sent_mbps', 'throughput_received_mbps', 'retransmits',
    'lost_packets', 'packets', 'transactions_per_s', 'connections_per_s', 'packets_per_s',
    'cpu_local_pct', 'cpu_remote_pct', 'nic_tx_mbps', 'nic_rx_mbps',
])


def combine_metrics(metric_maps):
    """Combine ``{name: value}`` maps of processes run at once: sums, means, recomputed loss."""
    combined = {}
    names = []
    for values in metric_maps:
        for name in values:
            if name not in names:
                names.append(name)
    for name in names:
        present = [values[name] for values in metric_maps if values.get(name) is not None]
        if not present:
            continue
        if name in ADDITIVE_METRICS:
            combined[name] = round(sum(present), 6)
        else:
            combined[name] = round(sum(present) / len(present), 6)
    lost = [values.get('lost_packets') for values in metric_maps]
    packets = [values.get('packets') for values in metric_maps]
    if metric_maps and None not in lost and None not in packets and sum(packets) > 0:
        combined['lost_percent'] = round(100.0 * sum(lost) / sum(packets), 6)
    return combined


def combine_intervals(interval_lists):
    """Combine per-process interval lists sample by sample (the i-th of each), as combine_metrics does."""
    interval_lists = [samples for samples in interval_lists if samples]
    if not interval_lists:
        return []
    combined = []
    for index in range(min(len(samples) for samples in interval_lists)):
        row = [samples[index] for samples in interval_lists]
        values = combine_metrics([dict((k, v) for k, v in sample.items() if k != 't') for sample in row])
        sample = {'t': row[0].get('t')}
        sample.update(values)
        combined.append(sample)
    return combined
