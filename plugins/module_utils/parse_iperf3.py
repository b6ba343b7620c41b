# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Pure parsing of iperf3 ``-J`` output into perflab metrics and intervals.

Throughput (``throughput_mbps``) is what the receiver got. Omitted (``-O``)
intervals are left out, as iperf3 leaves them out of its end sums.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json
import re

from ansible_collections.perflab.network.plugins.module_utils.units import to_mbps

_VERSION_RE = re.compile(r'iperf\s+(\d+(?:\.\d+)+)')


def parse_version(text):
    """"iperf 3.12 (cJSON 1.7.15)" -> "3.12"; "" when not found."""
    match = _VERSION_RE.search(text or '')
    return match.group(1) if match else ''


def version_tuple(version):
    """"3.1.3" -> (3, 1, 3); () for "" or garbage."""
    parts = []
    for part in (version or '').split('.'):
        if not part.isdigit():
            break
        parts.append(int(part))
    return tuple(parts)


def supports_bidir(version):
    """--bidir exists from iperf3 3.7 on."""
    return version_tuple(version) >= (3, 7)


def _mbps(section):
    if not section or section.get('bits_per_second') is None:
        return None
    return round(to_mbps(section['bits_per_second'], 'bits/s'), 6)


def _number(section, key):
    if not section:
        return None
    value = section.get(key)
    return float(value) if value is not None else None


def _first_line(text, limit=200):
    stripped = (text or '').strip()
    return stripped.splitlines()[0][:limit] if stripped else ''


def loads(text):
    """The JSON document iperf3 printed, or raise ValueError with a readable message.

    iperf3 may print more than one document (e.g. a warning before the JSON);
    the first one starting at a line with ``{`` is used.
    """
    source = (text or '').strip()
    if not source:
        raise ValueError('iperf3 printed no JSON')
    start = source.find('{')
    if start < 0:
        raise ValueError('iperf3 output is not JSON: %s' % _first_line(source))
    try:
        document, _end = json.JSONDecoder().raw_decode(source[start:])
    except ValueError:
        raise ValueError('iperf3 output is not valid JSON: %s' % _first_line(source))
    if not isinstance(document, dict):
        raise ValueError('iperf3 JSON is not an object')
    return document


def _interval_sample(interval, protocol, bidir):
    total = interval.get('sum') or {}
    sample = {'t': round(float(total.get('end', 0.0)), 3)}
    mbps = _mbps(total)
    if bidir:
        reverse = interval.get('sum_bidir_reverse') or {}
        back = _mbps(reverse)
        sample['throughput_sent_mbps'] = mbps
        sample['throughput_received_mbps'] = back
        sample['throughput_mbps'] = round((mbps or 0.0) + (back or 0.0), 6)
        retrans = [s.get('retransmits') for s in (total, reverse) if s.get('retransmits') is not None]
        if retrans:
            sample['retransmits'] = float(sum(retrans))
        return sample
    sample['throughput_mbps'] = mbps
    if protocol == 'TCP' and total.get('retransmits') is not None:
        sample['retransmits'] = float(total['retransmits'])
    if protocol == 'UDP':
        # Only the receiving side knows jitter and loss (the client with -R).
        if total.get('sender') is False:
            for key in ('jitter_ms', 'lost_packets', 'lost_percent'):
                if total.get(key) is not None:
                    sample[key] = float(total[key])
        if total.get('packets') is not None:
            sample['packets'] = float(total['packets'])
    return sample


def _intervals(document, protocol, bidir):
    samples = []
    for interval in document.get('intervals') or []:
        total = interval.get('sum') or {}
        if total.get('omitted'):
            continue
        samples.append(_interval_sample(interval, protocol, bidir))
    return samples


def _udp_metrics(end, metrics):
    received = end.get('sum_received')
    sent = end.get('sum_sent')
    if received is not None:
        metrics['throughput_mbps'] = _mbps(received)
        metrics['throughput_received_mbps'] = _mbps(received)
        metrics['throughput_sent_mbps'] = _mbps(sent)
        loss_source = received
    else:
        # iperf3 before 3.11: only end.sum, whose bytes are what was sent and
        # whose jitter/loss come from the receiver; the receiver got the sent
        # rate less the lost share (fixed-size datagrams).
        total = end.get('sum') or {}
        sent_mbps = _mbps(total)
        lost_percent = _number(total, 'lost_percent') or 0.0
        metrics['throughput_sent_mbps'] = sent_mbps
        if sent_mbps is not None:
            metrics['throughput_mbps'] = round(sent_mbps * (1.0 - lost_percent / 100.0), 6)
            metrics['throughput_received_mbps'] = metrics['throughput_mbps']
        loss_source = total
    metrics['jitter_ms'] = _number(loss_source, 'jitter_ms')
    metrics['lost_packets'] = _number(loss_source, 'lost_packets')
    metrics['lost_percent'] = _number(loss_source, 'lost_percent')
    metrics['packets'] = _number(loss_source, 'packets')


def _tcp_metrics(end, metrics, bidir):
    sent = end.get('sum_sent') or {}
    received = end.get('sum_received') or {}
    if bidir:
        sent_back = end.get('sum_sent_bidir_reverse') or {}
        received_back = end.get('sum_received_bidir_reverse') or {}
        forward = _mbps(received)
        backward = _mbps(received_back)
        if forward is not None and backward is not None:
            metrics['throughput_mbps'] = round(forward + backward, 6)
        # client -> server and server -> client, each as its receiver got it
        metrics['throughput_sent_mbps'] = forward
        metrics['throughput_received_mbps'] = backward
        retrans = [s.get('retransmits') for s in (sent, sent_back) if s.get('retransmits') is not None]
        metrics['retransmits'] = float(sum(retrans)) if retrans else None
        return
    metrics['throughput_mbps'] = _mbps(received)
    metrics['throughput_sent_mbps'] = _mbps(sent)
    metrics['throughput_received_mbps'] = _mbps(received)
    # With -R the sender is the server; sum_sent still carries its retransmits.
    metrics['retransmits'] = _number(sent, 'retransmits')


def parse(text):
    """Parse iperf3 ``-J`` stdout.

    Returns ``{version, error, protocol, num_streams, reverse, bidir, omit,
    duration, metrics: {name: value}, intervals: [...], congestion}``;
    ``metrics`` leaves out what the output lacks. ``error`` is the tool's own
    error text (or a parse problem) and is None on success.
    """
    result = {
        'version': '', 'error': None, 'protocol': None, 'num_streams': None,
        'reverse': None, 'bidir': None, 'omit': None, 'duration': None,
        'metrics': {}, 'intervals': [], 'congestion': None,
    }
    try:
        document = loads(text)
    except ValueError as exc:
        result['error'] = str(exc)
        return result
    start = document.get('start') or {}
    end = document.get('end') or {}
    test_start = start.get('test_start') or {}
    result['version'] = parse_version(start.get('version', ''))
    protocol = (test_start.get('protocol') or '').upper() or None
    bidir = bool(test_start.get('bidir')) or 'sum_sent_bidir_reverse' in end
    result.update({
        'protocol': protocol,
        'num_streams': test_start.get('num_streams'),
        'reverse': bool(test_start.get('reverse')) if 'reverse' in test_start else None,
        'bidir': bidir,
        'omit': test_start.get('omit'),
        'duration': test_start.get('duration'),
        'congestion': end.get('sender_tcp_congestion'),
    })
    if document.get('error'):
        # An error can come after a partial run (interrupt): keep no metrics then,
        # a cut-short run must not be ranked.
        result['error'] = document['error']
        return result

    metrics = {}
    if protocol == 'UDP':
        _udp_metrics(end, metrics)
    elif protocol == 'TCP':
        _tcp_metrics(end, metrics, bidir)
    else:
        result['error'] = 'iperf3 JSON has no test_start.protocol (protocol %r)' % (protocol,)
        return result
    cpu = end.get('cpu_utilization_percent') or {}
    metrics['cpu_local_pct'] = _number(cpu, 'host_total')
    metrics['cpu_remote_pct'] = _number(cpu, 'remote_total')
    result['metrics'] = dict((name, value) for name, value in metrics.items() if value is not None)
    result['intervals'] = _intervals(document, protocol, bidir)
    if 'throughput_mbps' not in result['metrics']:
        result['error'] = 'iperf3 JSON has no end sums (the test did not complete)'
    return result
