# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Parse netperf 2.7 omni output (``-o <selectors>`` CSV), with or without the banner.

Pure functions, no I/O. Tested on real output in tests/unit/fixtures/netperf/.

Output shapes (netperf 2.7.0):

* ``-P 0``: one CSV line of values in the order of the selectors, no header.
* ``-P 1``: a banner line (``MIGRATED TCP STREAM TEST from ...``), a CSV line of
  human-readable column names, then the CSV line of values.
* ``-D <s>`` (builds with --enable-demo, such as Debian's) adds interim lines
  before the result: ``value,units,seconds,timestamp``. For UDP_STREAM they are
  the sender's rate, for the others the local side's.
* Errors go to stdout and netperf exits 255 (``establish control: are you sure
  there is a netserver listening on ...``).
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import csv
import re

from ansible_collections.perflab.network.plugins.module_utils.core import units

# Normalized test name -> netperf test name, protocol, direction, kind
TESTS = {
    'tcp_stream': ('TCP_STREAM', 'tcp', 'client_to_server', 'stream'),
    'tcp_maerts': ('TCP_MAERTS', 'tcp', 'server_to_client', 'stream'),
    'udp_stream': ('UDP_STREAM', 'udp', 'client_to_server', 'stream'),
    'tcp_rr': ('TCP_RR', 'tcp', 'bidirectional', 'rr'),
    'tcp_crr': ('TCP_CRR', 'tcp', 'bidirectional', 'rr'),
    'udp_rr': ('UDP_RR', 'udp', 'bidirectional', 'rr'),
}

# Fixed selector lists: user text never becomes a selector (netperf reads an
# unknown selector as the name of a file of selectors).
STREAM_SELECTORS = (
    'THROUGHPUT', 'THROUGHPUT_UNITS', 'ELAPSED_TIME', 'PROTOCOL', 'DIRECTION',
    'LOCAL_SEND_THROUGHPUT', 'LOCAL_RECV_THROUGHPUT', 'REMOTE_SEND_THROUGHPUT', 'REMOTE_RECV_THROUGHPUT',
    'LOCAL_BYTES_SENT', 'LOCAL_BYTES_RECVD', 'REMOTE_BYTES_SENT', 'REMOTE_BYTES_RECVD',
    'LOCAL_CPU_UTIL', 'REMOTE_CPU_UTIL', 'LOCAL_TRANSPORT_RETRANS', 'REMOTE_TRANSPORT_RETRANS',
    'CONFIDENCE_ITERATION', 'THROUGHPUT_CONFID',
    'LOCAL_SEND_SIZE', 'REMOTE_RECV_SIZE', 'LSS_SIZE_END', 'RSR_SIZE_END', 'TRANSPORT_MSS',
)
# Any *_LATENCY selector turns on netperf's per-transaction histogram (-j):
# only request/response tests ask for them.
RR_SELECTORS = (
    'THROUGHPUT', 'THROUGHPUT_UNITS', 'ELAPSED_TIME', 'PROTOCOL', 'DIRECTION',
    'TRANSACTION_RATE', 'RT_LATENCY', 'MEAN_LATENCY', 'P50_LATENCY', 'P90_LATENCY', 'P99_LATENCY',
    'STDDEV_LATENCY', 'MIN_LATENCY', 'MAX_LATENCY',
    'LOCAL_CPU_UTIL', 'REMOTE_CPU_UTIL', 'LOCAL_TRANSPORT_RETRANS', 'REMOTE_TRANSPORT_RETRANS',
    'CONFIDENCE_ITERATION', 'THROUGHPUT_CONFID', 'REQUEST_SIZE', 'RESPONSE_SIZE', 'TRANSPORT_MSS',
)

# Column names netperf 2.7.0 prints with -P 1 (seen in the fixtures) -> selector
HEADER_TO_SELECTOR = {
    'Throughput': 'THROUGHPUT',
    'Throughput Units': 'THROUGHPUT_UNITS',
    'Elapsed Time (sec)': 'ELAPSED_TIME',
    'Protocol': 'PROTOCOL',
    'Direction': 'DIRECTION',
    'Local Send Throughput': 'LOCAL_SEND_THROUGHPUT',
    'Local Recv Throughput': 'LOCAL_RECV_THROUGHPUT',
    'Remote Send Throughput': 'REMOTE_SEND_THROUGHPUT',
    'Remote Recv Throughput': 'REMOTE_RECV_THROUGHPUT',
    'Local Bytes Sent': 'LOCAL_BYTES_SENT',
    'Local Bytes Received': 'LOCAL_BYTES_RECVD',
    'Remote Bytes Sent': 'REMOTE_BYTES_SENT',
    'Remote Bytes Received': 'REMOTE_BYTES_RECVD',
    'Transaction Rate Tran/s': 'TRANSACTION_RATE',
    'Round Trip Latency usec/tran': 'RT_LATENCY',
    'Mean Latency Microseconds': 'MEAN_LATENCY',
    '50th Percentile Latency Microseconds': 'P50_LATENCY',
    '90th Percentile Latency Microseconds': 'P90_LATENCY',
    '99th Percentile Latency Microseconds': 'P99_LATENCY',
    'Stddev Latency Microseconds': 'STDDEV_LATENCY',
    'Minimum Latency Microseconds': 'MIN_LATENCY',
    'Maximum Latency Microseconds': 'MAX_LATENCY',
    'Local CPU Util %': 'LOCAL_CPU_UTIL',
    'Remote CPU Util %': 'REMOTE_CPU_UTIL',
    'Local Transport Retransmissions': 'LOCAL_TRANSPORT_RETRANS',
    'Remote Transport Retransmissions': 'REMOTE_TRANSPORT_RETRANS',
    'Confidence Iterations Run': 'CONFIDENCE_ITERATION',
    'Throughput Confidence Width (%)': 'THROUGHPUT_CONFID',
    'Local Send Size': 'LOCAL_SEND_SIZE',
    'Remote Recv Size': 'REMOTE_RECV_SIZE',
    'Local Send Socket Size Final': 'LSS_SIZE_END',
    'Remote Recv Socket Size Final': 'RSR_SIZE_END',
    'Request Size Bytes': 'REQUEST_SIZE',
    'Response Size Bytes': 'RESPONSE_SIZE',
    'Transport MSS bytes': 'TRANSPORT_MSS',
}

_VERSION_RE = re.compile(r'Netperf version (\S+)', re.IGNORECASE)
_NUMBER_RE = re.compile(r'^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$')
# Lines netperf prints for failures (stdout, exit 255 for most of them)
_ERROR_RE = re.compile(
    r'(establish control|establish_control|could not establish|are you sure there is a netserver|'
    r'netperf: |recv_response|send_response|receive_response|Connection refused|Connection reset|'
    r'unable to|cannot|could not|error|Sorry|Invalid)', re.IGNORECASE)


def selectors_for(test):
    """The fixed selector list for a normalized test name (KeyError for an unknown one)."""
    return STREAM_SELECTORS if TESTS[test][3] == 'stream' else RR_SELECTORS


def parse_version(text):
    """"Netperf version 2.7.0" -> "2.7.0"; "" when absent."""
    match = _VERSION_RE.search(text or '')
    return match.group(1) if match else ''


def _is_number(text):
    return bool(_NUMBER_RE.match(text.strip()))


def _value(text):
    text = text.strip()
    if text == '':
        return None
    if _is_number(text):
        return float(text)
    return text


def _csv_lines(text):
    rows = []
    for line in (text or '').splitlines():
        if not line.strip():
            continue
        fields = next(csv.reader([line]))
        rows.append((line, fields))
    return rows


def _is_interim(fields):
    # value,units,seconds,timestamp (netperf -D)
    return (len(fields) == 4 and _is_number(fields[0]) and not _is_number(fields[1])
            and _is_number(fields[2]) and _is_number(fields[3]))


def parse_omni(text, selectors=None):
    """Parse one netperf omni run.

    Returns ``{'values': {SELECTOR: float|str|None}, 'interim': [{value, units,
    seconds, timestamp}], 'banner': str or None}``. ``selectors`` is the list
    passed to ``-o``; without it the header line of ``-P 1`` output names the
    columns. Raises ValueError when there is no result line.
    """
    rows = _csv_lines(text)
    banner = None
    header = None
    result = None
    result_index = None
    want = len(selectors) if selectors else None
    mismatched = None
    for index in range(len(rows) - 1, -1, -1):
        line, fields = rows[index]
        if not fields or not _is_number(fields[0]):
            continue
        if want is not None and len(fields) != want:
            if mismatched is None and len(fields) > 4 and not _is_interim(fields):
                mismatched = len(fields)
            continue
        if want is None and index == 0:
            continue
        result, result_index = fields, index
        break
    if result is None:
        if mismatched is not None and want is not None:
            raise ValueError('netperf printed a result line of %d columns, but %d selectors were asked for: '
                             'the columns do not match the selectors (output of another -o list?)'
                             % (mismatched, len(selectors)))
        raise ValueError('netperf printed no result line')
    # the header (-P 1) is the line just above the result
    if result_index > 0:
        line, fields = rows[result_index - 1]
        if len(fields) == len(result) and not _is_number(fields[0]):
            header = [name.strip() for name in fields]
    if selectors:
        names = list(selectors)
    elif header:
        names = [HEADER_TO_SELECTOR.get(name, name) for name in header]
    else:
        raise ValueError('netperf output has no header: the selectors are needed to read it')
    interim = []
    for line, fields in rows[:result_index]:
        if _is_interim(fields):
            interim.append({'value': float(fields[0]), 'units': fields[1].strip(),
                            'seconds': float(fields[2]), 'timestamp': float(fields[3])})
        elif banner is None and (line.startswith('MIGRATED ') or line.startswith('OMNI ')):
            banner = line.strip()
    values = dict((name, _value(field)) for name, field in zip(names, result))
    return {'values': values, 'interim': interim, 'banner': banner}


def _measured(value):
    """netperf prints -1 (or -1.00) for what it did not measure."""
    if value is None or isinstance(value, str) or value < 0:
        return None
    return value


def _rate(values, selector):
    value = _measured(values.get(selector))
    unit = values.get('THROUGHPUT_UNITS')
    if value is None or not isinstance(unit, str):
        return None
    return units.netperf_to_mbps(value, unit)


def metrics_from_values(test, values):
    """Normalized metrics (``{name: value}``, perflab.result/1 names and units) of one run.

    STREAM tests: ``throughput_mbps`` is what the receiver got (netperf's
    THROUGHPUT: the remote receive rate for TCP/UDP_STREAM, the local one for
    TCP_MAERTS); request/response tests: ``transactions_per_s`` and latencies in
    microseconds. CPU and retransmission counters netperf did not measure (-1)
    are left out.
    """
    name, protocol, direction, kind = TESTS[test]
    metrics = {}
    unit = values.get('THROUGHPUT_UNITS')
    throughput = _measured(values.get('THROUGHPUT'))
    if kind == 'stream':
        if throughput is not None:
            metrics['throughput_mbps'] = units.netperf_to_mbps(throughput, unit)
        if test == 'tcp_maerts':
            sent, received = 'REMOTE_SEND_THROUGHPUT', 'LOCAL_RECV_THROUGHPUT'
        else:
            sent, received = 'LOCAL_SEND_THROUGHPUT', 'REMOTE_RECV_THROUGHPUT'
        for metric, selector in (('throughput_sent_mbps', sent), ('throughput_received_mbps', received)):
            rate = _rate(values, selector)
            if rate is not None:
                metrics[metric] = rate
        if test == 'udp_stream':
            sent_bytes = _measured(values.get('LOCAL_BYTES_SENT'))
            received_bytes = _measured(values.get('REMOTE_BYTES_RECVD'))
            if sent_bytes and received_bytes is not None:
                metrics['lost_percent'] = max(0.0, 100.0 * (1.0 - received_bytes / sent_bytes))
    else:
        if throughput is not None:
            if unit != 'Trans/s':
                raise ValueError('netperf %s reported %r, expected Trans/s' % (name, unit))
            metrics['transactions_per_s'] = throughput
        for metric, selector in (('latency_us_mean', 'MEAN_LATENCY'), ('latency_us_p50', 'P50_LATENCY'),
                                 ('latency_us_p90', 'P90_LATENCY'), ('latency_us_p99', 'P99_LATENCY'),
                                 ('latency_us_min', 'MIN_LATENCY'), ('latency_us_max', 'MAX_LATENCY'),
                                 ('latency_us_stddev', 'STDDEV_LATENCY')):
            value = _measured(values.get(selector))
            if value is not None:
                metrics[metric] = units.to_us(value, 'us')
    mss = _measured(values.get('TRANSPORT_MSS'))
    if protocol == 'tcp' and mss:
        metrics['mss_bytes'] = mss
    for metric, selector in (('cpu_local_pct', 'LOCAL_CPU_UTIL'), ('cpu_remote_pct', 'REMOTE_CPU_UTIL')):
        value = _measured(values.get(selector))
        if value is not None:
            metrics[metric] = value
    if protocol == 'tcp':
        counted = [_measured(values.get(selector))
                   for selector in ('LOCAL_TRANSPORT_RETRANS', 'REMOTE_TRANSPORT_RETRANS')]
        counted = [value for value in counted if value is not None]
        if counted:
            metrics['retransmits'] = float(sum(counted))
    return metrics


def interval_samples(test, interim):
    """Per-interval samples ``[{t, <metric>: value}]`` from netperf -D interim lines.

    ``t`` is the end of the interval in seconds from the start of the first one.
    Interim rates are the netperf side's, which sends in TCP_STREAM and UDP_STREAM
    (``throughput_sent_mbps``) and receives in TCP_MAERTS (``throughput_mbps``, the receiver's).
    """
    if not interim:
        return []
    kind = TESTS[test][3]
    if kind == 'rr':
        metric = 'transactions_per_s'
    elif TESTS[test][2] == 'client_to_server':
        metric = 'throughput_sent_mbps'
    else:
        metric = 'throughput_mbps'
    start = interim[0]['timestamp'] - interim[0]['seconds']
    samples = []
    for sample in interim:
        if kind == 'rr':
            value = sample['value']
        else:
            value = units.netperf_to_mbps(sample['value'], sample['units'])
        samples.append({'t': round(sample['timestamp'] - start, 3), metric: value})
    return samples


def confidence(values, level=None, width=None):
    """``{iterations, width_pct, achieved}`` of a run with -i/-I, None without it.

    ``width`` is the requested full interval width in percent (-I level,width);
    netperf's THROUGHPUT_CONFID is the width it reached.
    """
    iterations = _measured(values.get('CONFIDENCE_ITERATION'))
    reached = _measured(values.get('THROUGHPUT_CONFID'))
    if reached is None:
        return None
    result = {'iterations': int(iterations) if iterations is not None else None,
              'width_pct': reached, 'level_pct': level, 'requested_width_pct': width}
    result['achieved'] = None if width is None else reached <= width
    return result


def find_error(stdout, stderr='', rc=0):
    """Clear text of a netperf failure, None when the run looks fine.

    netperf writes its errors to stdout and exits 255; a missing netserver
    gives "establish control: are you sure there is a netserver listening on
    HOST at port PORT?".
    """
    text = '\n'.join(part for part in (stdout or '', stderr or '') if part)
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if rc == 0:
        return None
    detail = [line for line in lines if _ERROR_RE.search(line)] or lines
    message = 'netperf exited %s' % rc
    if detail:
        message += ': ' + detail[0]
    if any('are you sure there is a netserver' in line for line in lines):
        message += ' (start netserver on the server and open its control port)'
    return message


def parse_result(test, stdout, stderr='', rc=0, selectors=None):
    """Everything the netperf module needs from one run.

    Returns ``{'metrics', 'intervals', 'values', 'error', 'anchor'}``; ``error`` is None
    on success; ``anchor`` is the wall time (epoch s) at which the first interim interval started (netperf
    stamps each interim line with its end), None without interim lines: where several processes' intervals
    lie against each other (common_window). A run that exits 0 but measured nothing (0 throughput, e.g. a
    socket connected to itself because local and remote data ports are equal on
    one host) is an error too.
    """
    result = {'metrics': {}, 'intervals': [], 'values': {}, 'error': None, 'anchor': None}
    error = find_error(stdout, stderr, rc)
    if error:
        result['error'] = error
        return result
    try:
        parsed = parse_omni(stdout, selectors or selectors_for(test))
        result['values'] = parsed['values']
        result['metrics'] = metrics_from_values(test, parsed['values'])
        result['intervals'] = interval_samples(test, parsed['interim'])
        if parsed['interim']:
            result['anchor'] = parsed['interim'][0]['timestamp'] - parsed['interim'][0]['seconds']
    except ValueError as exc:
        lines = [line.strip() for line in (stdout or '').splitlines() if line.strip()]
        result['error'] = '%s%s' % (exc, (': ' + lines[-1]) if lines else ' (empty output)')
        return result
    primary = 'transactions_per_s' if TESTS[test][3] == 'rr' else 'throughput_mbps'
    value = result['metrics'].get(primary)
    if value is None:
        result['error'] = 'netperf printed no %s' % primary
    elif value <= 0:
        result['error'] = ('netperf measured 0 %s: nothing reached the other side (same local and remote '
                           'data port on one host, or a firewall dropping the data port?)'
                           % result['values'].get('THROUGHPUT_UNITS'))
    return result


def loss_from_bytes(values_list):
    """UDP_STREAM loss (percent) of several processes from their byte counters, or None."""
    sent = [_measured(values.get('LOCAL_BYTES_SENT')) for values in values_list]
    received = [_measured(values.get('REMOTE_BYTES_RECVD')) for values in values_list]
    if not values_list or any(value is None for value in sent + received) or sum(sent) <= 0:
        return None
    return max(0.0, 100.0 * (1.0 - sum(received) / sum(sent)))
