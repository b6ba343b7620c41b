# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Parse the ethr client's text output (stdout).

Pure functions, no I/O. Tested on real output of ethr v1.0.0-5-g86e0704 in
tests/unit/fixtures/ethr/. Why the text and not the JSON log (``-o``): the
log's ``LatencyResult`` percentile fields are written shifted (the field named
P50 holds the maximum, P90 the median, ...), and its values are strings with SI
suffixes anyway. ethr has no summary line: the result of a test is the mean of
its one-second intervals (latency: see ``latency_metrics``).

Shapes (all values with decimal SI suffixes, K = 1000):

* bandwidth: ``[    6]     TCP      000-001 sec     12.5G`` per connection and
  second, ``[  SUM]     TCP      000-001 sec      9.3G`` when there are several;
  UDP adds a Pkts/s column.
* connections/s, packets/s (and the HTTP bandwidth of old builds):
  ``  TCP      000-001 sec     11.5K`` under a ``Protocol    Interval      Conn/s``
  (``Pkts/s``, ``Bits/s``) header.
* latency: a header ``Avg Min 50% 90% 95% 99% 99.9% 99.99% Max`` and a row of
  durations (``29.689us``) per measurement.
* errors: ``Error dialing control connection: ...`` (exit 0!),
  ``Error: Invalid value "http" specified for parameter "-p".`` (exit 1).
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import re

from ansible_collections.perflab.network.plugins.module_utils.core import units

# module test name -> (ethr -t letter, record test name, default protocol)
TESTS = {
    'bandwidth': ('b', None, 'tcp'),
    'connections': ('c', 'connections', 'tcp'),
    'latency': ('l', 'tcp_latency', 'tcp'),
    'packets': ('p', 'packets', 'udp'),
    'http': ('b', 'http_bandwidth', 'tcp'),
}

# the metric a report ranks each test by
PRIMARY = {
    'bandwidth': 'throughput_mbps',
    'http': 'throughput_mbps',
    'connections': 'connections_per_s',
    'packets': 'packets_per_s',
    'latency': 'latency_us_mean',
}

# ethr 1.0's UDP bandwidth is the client's send rate (its counters are the bytes it sent)
UDP_RATE = 'throughput_sent_mbps'

_VERSION_RE = re.compile(r'Version:\s*(v?[0-9][^\s)]*)')
_BW_RE = re.compile(r'^\[\s*(\d+|SUM)\s*\]\s+(TCP|UDP|HTTPS?|ICMP)\s+(\d+)-(\d+)\s+sec\s+(\S+)(?:\s+(\S+))?\s*$')
_ROW_RE = re.compile(r'^\s*(TCP|UDP|HTTPS?|ICMP)\s+(\d+)-(\d+)\s+sec\s+(\S+)\s*$')
_ROW_HEADER_RE = re.compile(r'^\s*Protocol\s+Interval\s+(Conn/s|Pkts/s|Bits/s)\s*$')
_LATENCY_HEADER_RE = re.compile(r'^\s*Avg\s+Min\s+.*Max\s*$')
_ERROR_RE = re.compile(r'^\s*(Error\b.*|Failed to .*|.*\bnot supported\b.*)$')

_LATENCY_COLUMNS = {'Avg': 'avg', 'Min': 'min', 'Max': 'max', '50%': 'p50', '90%': 'p90', '95%': 'p95',
                    '99%': 'p99', '99.9%': 'p999', '99.99%': 'p9999'}
_ROW_KINDS = {'Conn/s': 'connections_per_s', 'Pkts/s': 'packets_per_s', 'Bits/s': 'throughput_mbps'}


def parse_version(text):
    """"... (Version: v1.0.0-5-g86e0704)" -> "v1.0.0-5-g86e0704"; "" when absent."""
    match = _VERSION_RE.search(text or '')
    return match.group(1) if match else ''


def help_protocols(help_text):
    """Protocols the ``-p`` entry of ``ethr -h`` lists (lower case), e.g. ['tcp', 'udp', 'http', 'https', 'icmp'].

    Client mode only: the help also has an external-mode ``-p`` entry. Note that
    v1.0.0-5 lists http and https there but refuses ``-p http``.
    """
    text = help_text or ''
    client = text.find('Mode: Client')
    if client >= 0:
        end = text.find('Mode: External', client)
        text = text[client:end if end > 0 else len(text)]
    match = re.search(r'-p <protocol>\s*\n\s*Protocol \(([^)]*)\)', text)
    if not match:
        return []
    return re.findall(r'"([A-Za-z]+)"', match.group(1))


def find_errors(text):
    """Error lines ethr printed (it prints them on stdout, and exits 0 for a dead server)."""
    return [line.strip() for line in (text or '').splitlines() if _ERROR_RE.match(line)]


def _rate_mbps(text):
    return units.to_mbps(units.parse_si(text), 'bits/s')


def parse_bandwidth(text):
    """Bandwidth intervals: ``[{t, throughput_mbps[, packets_per_s], streams}]``.

    ``t`` is the end of the interval in seconds. Uses the SUM line of an
    interval when ethr printed one, else the sum of the connection lines.
    UDP lines are the bytes the client sent (ethr 1.0 counts what it sent, not
    what arrived): their rate is ``throughput_sent_mbps``.
    """
    per_second = {}
    order = []
    rate = 'throughput_mbps'
    for line in (text or '').splitlines():
        match = _BW_RE.match(line)
        if not match:
            continue
        conn, proto, _start, end, bits, pkts = match.groups()
        if proto == 'UDP':
            rate = UDP_RATE
        end = int(end)
        if end not in per_second:
            per_second[end] = {'streams': [], 'sum': None}
            order.append(end)
        entry = {'mbps': _rate_mbps(bits), 'pps': units.parse_si(pkts) if pkts else None}
        if conn == 'SUM':
            per_second[end]['sum'] = entry
        else:
            per_second[end]['streams'].append(entry)
    samples = []
    # a second without a SUM line and without a line of every stream is left out: a partial sum would
    # read as a drop
    every = max([len(per_second[end]['streams']) for end in order] or [0])
    for end in order:
        entry = per_second[end]
        streams = entry['streams']
        total = entry['sum']
        if total is None and len(streams) < every:
            continue
        if total is None:
            total = {'mbps': sum(s['mbps'] for s in streams),
                     'pps': sum(s['pps'] for s in streams) if streams and all(s['pps'] is not None for s in streams)
                     else None}
        sample = {'t': float(end), rate: total['mbps'], 'streams': len(streams)}
        if total['pps'] is not None:
            sample['packets_per_s'] = total['pps']
        samples.append(sample)
    return samples


def parse_rows(text):
    """Single-value intervals (connections/s, packets/s, old HTTP bandwidth): ``[{t, <metric>}]``."""
    samples = []
    metric = None
    for line in (text or '').splitlines():
        header = _ROW_HEADER_RE.match(line)
        if header:
            metric = _ROW_KINDS[header.group(1)]
            continue
        match = _ROW_RE.match(line)
        if not match or metric is None:
            continue
        value = units.parse_si(match.group(4))
        if metric == 'throughput_mbps':
            value = units.to_mbps(value, 'bits/s')
        samples.append({'t': float(match.group(3)), metric: value})
    return samples


def parse_latency(text):
    """Latency measurements from the text table: ``[{avg, min, p50, p90, p95, p99, p999, p9999, max}]`` in µs."""
    rows = []
    columns = None
    for line in (text or '').splitlines():
        if _LATENCY_HEADER_RE.match(line):
            columns = [_LATENCY_COLUMNS.get(name) for name in line.split()]
            continue
        if columns is None:
            continue
        fields = line.split()
        if len(fields) != len(columns):
            continue
        try:
            values = [units.parse_duration_us(field) for field in fields]
        except ValueError:
            continue
        rows.append(dict((name, value) for name, value in zip(columns, values) if name))
    return rows


def _mean(values):
    return sum(values) / len(values) if values else None


def _median(values):
    ordered = sorted(values)
    if not ordered:
        return None
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[middle]
    return (ordered[middle - 1] + ordered[middle]) / 2.0


def latency_metrics(rows):
    """Record metrics of the latency rows.

    Every row is one measurement of the same number of round trips (``-i``):
    the mean of the row means is the overall mean, min/max are exact; a
    percentile of the whole run cannot be rebuilt from the rows' percentiles,
    so p50/p90/p99 are the median over the rows.
    """
    if not rows:
        return {}
    return {
        'latency_us_mean': _mean([row['avg'] for row in rows]),
        'latency_us_min': min(row['min'] for row in rows),
        'latency_us_max': max(row['max'] for row in rows),
        'latency_us_p50': _median([row['p50'] for row in rows]),
        'latency_us_p90': _median([row['p90'] for row in rows]),
        'latency_us_p99': _median([row['p99'] for row in rows]),
    }


def parse_result(test, stdout, rc=0):
    """Everything the ethr module needs from one client run.

    ``test`` is a key of TESTS. Returns ``{metrics, intervals, version,
    error}``; ``error`` is None on success. ethr exits 0 even when it could
    not reach the server: error lines and missing results make a failure.
    """
    result = {'metrics': {}, 'intervals': [], 'version': parse_version(stdout), 'error': None}
    errors = find_errors(stdout)
    if test == 'latency':
        rows = parse_latency(stdout)
        samples = []
        for index, row in enumerate(rows):
            # ethr prints no time for a latency row (a 5 s run prints 6 of them): `t` is unknown,
            # `n` numbers the measurement; a time made up from the gap would be a value never measured
            sample = {'t': None, 'n': index + 1}
            for key in ('avg', 'p50', 'p90', 'p99', 'min', 'max'):
                sample['latency_us_' + ('mean' if key == 'avg' else key)] = row[key]
            samples.append(sample)
        result['metrics'] = latency_metrics(rows)
    elif test == 'bandwidth':
        samples = parse_bandwidth(stdout)
    elif test == 'http':
        # old builds print HTTP bandwidth as single-value rows
        samples = parse_rows(stdout) or parse_bandwidth(stdout)
    else:
        samples = parse_rows(stdout)
    primary = PRIMARY[test]
    if test == 'bandwidth' and any(UDP_RATE in sample for sample in samples):
        primary = UDP_RATE
    result['intervals'] = [dict((k, v) for k, v in sample.items() if k != 'streams') for sample in samples]
    if test != 'latency':
        for metric in ('throughput_mbps', UDP_RATE, 'packets_per_s', 'connections_per_s'):
            values = [sample[metric] for sample in samples if metric in sample]
            if values:
                result['metrics'][metric] = _mean(values)
    if errors:
        result['error'] = 'ethr: ' + '; '.join(errors)
    elif rc not in (0, None):
        lines = [line.strip() for line in (stdout or '').splitlines() if line.strip()]
        result['error'] = 'ethr exited %s%s' % (rc, (': ' + lines[-1]) if lines else '')
    elif primary not in result['metrics']:
        result['error'] = 'ethr printed no %s result (is an ethr server listening there?)' % primary.replace('_', ' ')
    return result


def help_has_flag(help_text, flag):
    """True when ``ethr -h`` documents ``-<flag>`` (e.g. "dp", "1", "w")."""
    return re.search(r'^\s*-%s(\s|$)' % re.escape(flag), help_text or '', re.MULTILINE) is not None
