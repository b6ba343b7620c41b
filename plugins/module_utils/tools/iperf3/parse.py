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

from ansible_collections.perflab.network.plugins.module_utils.core.units import human_bytes, to_mbps

_VERSION_RE = re.compile(r'iperf\s+(\d+(?:\.\d+)+)')
# iperf3's own error in a document cut short
_ERROR_KEY_RE = re.compile(r'"error"\s*:\s*"([^"]{1,200})"')


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
        raise ValueError('iperf3 printed no JSON but: %s' % _first_line(source))
    try:
        document, _end = json.JSONDecoder().raw_decode(source[start:])
    except ValueError:
        # a document cut short: the run was interrupted (^C) or its output truncated
        own = _ERROR_KEY_RE.search(source[start:])
        raise ValueError('iperf3\'s JSON ended early: the run was interrupted or its output cut off%s'
                         % ((' (iperf3: %s)' % own.group(1)) if own else ''))
    if not isinstance(document, dict):
        raise ValueError('iperf3 JSON is not an object')
    return document


# the server's interval lines in ``server_output_text`` (--get-server-output, server without -J):
# "[  5]   0.00-1.00   sec  11.9 MBytes   100 Mbits/sec  0.337 ms  0/382 (0%)", "[SUM][RX-S] ..."
_SERVER_LINE_RE = re.compile(
    r'^\[\s*(?P<id>SUM|\d+)\](?:\[(?P<role>[RT]X)-[SC]\])?\s+(?P<start>\d+(?:\.\d+)?)-(?P<end>\d+(?:\.\d+)?)\s+sec\s+'
    r'\S+\s+\S*Bytes\s+(?P<rate>\d+(?:\.\d+)?)\s+(?P<unit>\S*bits/sec)'
    r'(?:\s+(?P<jitter>\d+(?:\.\d+)?)\s+ms\s+(?P<lost>\d+)/(?P<total>\d+)\s+\((?P<pct>[-\d.e+]+)%\))?(?P<rest>.*)$')


def _server_json_intervals(server):
    """The server's interval sums from ``server_output_json`` (a server run with -J), omitted ones left out."""
    out = []
    for interval in server.get('intervals') or []:
        total = interval.get('sum') or {}
        if total.get('omitted'):
            continue
        reverse = interval.get('sum_bidir_reverse') or {}
        entry = {}
        for role, section in (('tx' if total.get('sender') else 'rx', total),
                              ('tx' if reverse.get('sender') else 'rx', reverse)):
            if section.get('bits_per_second') is None:
                continue
            entry[role] = {'mbps': _mbps(section), 'seconds': _number(section, 'seconds')}
            for key in ('jitter_ms', 'lost_packets', 'lost_percent'):
                if not section.get('sender') and section.get(key) is not None:
                    entry[role][key] = float(section[key])
        out.append(entry)
    return out


def _server_text_intervals(text):
    """The server's interval rates from ``server_output_text``: [{'rx'|'tx': {mbps, seconds, ...}}].

    The SUM lines when the server printed them (several streams), else the one stream's;
    omitted intervals and the end summary (lines ending in sender/receiver) are left out.
    iperf3 rounds these figures to three significant digits.
    """
    rows = {}
    order = []
    for line in (text or '').splitlines():
        match = _SERVER_LINE_RE.match(line.strip())
        if not match:
            continue
        rest = match.group('rest').strip()
        if '(omitted)' in rest or rest.endswith('sender') or rest.endswith('receiver'):
            continue
        key = (match.group('start'), match.group('end'))
        if key not in rows:
            rows[key] = {}
            order.append(key)
        role = (match.group('role') or '').lower() or None
        value = {'mbps': round(to_mbps(float(match.group('rate')), match.group('unit')), 6),
                 'seconds': float(match.group('end')) - float(match.group('start'))}
        if match.group('jitter') is not None:
            value.update(jitter_ms=float(match.group('jitter')), lost_packets=float(match.group('lost')),
                         lost_percent=float(match.group('pct')))
        slot = rows[key].setdefault(role, {'sum': None, 'streams': []})
        if match.group('id') == 'SUM':
            slot['sum'] = value
        else:
            slot['streams'].append(value)
    out = []
    for key in order:
        entry = {}
        for role, slot in rows[key].items():
            if slot['sum'] is None and len(slot['streams']) != 1:
                continue    # several streams but no SUM line: not this server's format
            entry[role] = slot['sum'] or slot['streams'][0]
        out.append(entry)
    return out


def server_intervals(document):
    """The server's side of each interval (--get-server-output), [] without it.

    Entries map ``rx`` (what the server received) and ``tx`` (what it sent) to
    ``{mbps, seconds[, jitter_ms, lost_packets, lost_percent]}``; a server without
    -J (bench_server's) returns its text output, whose roles are read from the
    client's direction: a forward test's server only receives, a reverse one only sends.
    """
    if isinstance(document.get('server_output_json'), dict):
        return _server_json_intervals(document['server_output_json'])
    return _server_text_intervals(document.get('server_output_text'))


def _role(entry, role):
    """The server's ``role`` side of an interval; a line without a role is its only side."""
    if not entry:
        return None
    return entry.get(role) or entry.get(None)


def _interval_sample(interval, protocol, reverse, bidir, server):
    """One interval, each side named: ``throughput_sent_mbps`` the sender's rate, ``throughput_received_mbps``
    the receiver's and ``throughput_mbps`` the receiver's (the end metric's side), where iperf3 printed it.

    The client's own sums are its side (the sender in a forward test, the receiver with -R);
    ``server`` (None without --get-server-output) gives the other. Bidirectional: the end
    metrics' naming, ``throughput_sent_mbps`` client -> server and ``throughput_received_mbps``
    server -> client, each as its receiver got it, and ``throughput_mbps`` their sum.
    """
    total = interval.get('sum') or {}
    sample = {'t': round(float(total.get('end', 0.0)), 3)}
    mine = _mbps(total)
    if bidir:
        reverse_sum = interval.get('sum_bidir_reverse') or {}
        back = _mbps(reverse_sum)
        there = _role(server, 'rx')
        forward = there['mbps'] if there else None
        if forward is not None:
            sample['throughput_sent_mbps'] = forward
        if back is not None:
            sample['throughput_received_mbps'] = back
        if forward is not None and back is not None:
            sample['throughput_mbps'] = round(forward + back, 6)
        retrans = [s.get('retransmits') for s in (total, reverse_sum) if s.get('retransmits') is not None]
        if protocol == 'TCP' and retrans:
            sample['retransmits'] = float(sum(retrans))
        return sample
    other = _role(server, 'tx' if reverse else 'rx')
    if reverse:
        # the client receives: its sums are the receiver's
        sample['throughput_mbps'] = mine
        sample['throughput_received_mbps'] = mine
        if other:
            sample['throughput_sent_mbps'] = other['mbps']
    else:
        sample['throughput_sent_mbps'] = mine
        if other:
            sample['throughput_received_mbps'] = other['mbps']
            sample['throughput_mbps'] = other['mbps']
    if protocol == 'TCP' and total.get('retransmits') is not None:
        sample['retransmits'] = float(total['retransmits'])
    if protocol == 'UDP':
        # Only the receiving side knows jitter and loss (the client with -R, else the server).
        receiving = total if total.get('sender') is False else (other or {})
        for key in ('jitter_ms', 'lost_packets', 'lost_percent'):
            if receiving.get(key) is not None:
                sample[key] = float(receiving[key])
        if total.get('packets') is not None:
            sample['packets'] = float(total['packets'])
    return sample


def _intervals(document, protocol, reverse, bidir):
    samples = []
    server = server_intervals(document)
    kept = [interval for interval in document.get('intervals') or [] if not (interval.get('sum') or {}).get('omitted')]
    for index, interval in enumerate(kept):
        samples.append(_interval_sample(interval, protocol, reverse, bidir,
                                        server[index] if index < len(server) else None))
    return samples


def _udp_metrics(end, metrics, bidir):
    received = end.get('sum_received')
    sent = end.get('sum_sent')
    if bidir and received is not None:
        # both directions, each as its receiver got it (like TCP's --bidir)
        back = end.get('sum_received_bidir_reverse') or {}
        forward, backward = _mbps(received), _mbps(back)
        metrics['throughput_sent_mbps'] = forward
        metrics['throughput_received_mbps'] = backward
        if forward is not None and backward is not None:
            metrics['throughput_mbps'] = round(forward + backward, 6)
        lost = [_number(s, 'lost_packets') for s in (received, back)]
        packets = [_number(s, 'packets') for s in (received, back)]
        if None not in lost and None not in packets:
            metrics['lost_packets'] = sum(lost)
            metrics['packets'] = sum(packets)
            if sum(packets) > 0:
                metrics['lost_percent'] = round(100.0 * sum(lost) / sum(packets), 6)
        jitters = [value for value in (_number(received, 'jitter_ms'), _number(back, 'jitter_ms')) if value is not None]
        if jitters:
            metrics['jitter_ms'] = sum(jitters) / len(jitters)
        return
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


def _mss(start, protocol):
    """The TCP MSS the test ran with: ``tcp_mss`` (-M) or else ``tcp_mss_default`` (the client's socket)."""
    if protocol != 'TCP':
        return None
    for key in ('tcp_mss', 'tcp_mss_default'):
        value = start.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
            return float(value)
    return None


def zero_received_error(end, reverse, bidir):
    """"the server received 0 bytes of 2.5 MB sent" when a direction moved no data, else None."""
    pairs = [('sum_sent', 'sum_received', 'client', 'server')]
    if bidir:
        pairs.append(('sum_sent_bidir_reverse', 'sum_received_bidir_reverse', 'server', 'client'))
    problems = []
    for sent_key, received_key, sender, receiver in pairs:
        if reverse and not bidir:
            sender, receiver = receiver, sender
        sent, received = end.get(sent_key), end.get(received_key)
        if not isinstance(received, dict) or received.get('bytes') is None:
            continue
        if received['bytes'] <= 0:
            sent_bytes = (sent or {}).get('bytes')
            problems.append('the %s received 0 bytes of %s sent by the %s' % (
                receiver, human_bytes(sent_bytes) if sent_bytes is not None else 'what was', sender))
    if not problems and not end.get('sum_received') and isinstance(end.get('sum'), dict):
        # before 3.11 (end.sum only): every datagram lost
        total = end['sum']
        if (_number(total, 'lost_percent') or 0.0) >= 100.0 or (total.get('bytes') == 0):
            problems.append('the receiver got none of the %s sent' % human_bytes(total.get('bytes') or 0))
    return '; '.join(problems) or None


def parse(text):
    """Parse iperf3 ``-J`` stdout.

    Returns ``{version, error, protocol, num_streams, reverse, bidir, omit,
    duration, metrics: {name: value}, intervals: [...], congestion}``;
    ``metrics`` leaves out what the output lacks. ``error`` is the tool's own
    error text (or what went wrong, in iperf3's terms) and is None on success.
    A throughput test whose receiver got 0 bytes is an error.
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
    reverse = bool(test_start.get('reverse')) if 'reverse' in test_start else None
    result.update({
        'protocol': protocol,
        'num_streams': test_start.get('num_streams'),
        'reverse': reverse,
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
        _udp_metrics(end, metrics, bidir)
    elif protocol == 'TCP':
        _tcp_metrics(end, metrics, bidir)
    elif not test_start:
        result['error'] = ('iperf3 printed no test parameters (start.test_start): the test never started '
                           '(the server refused the connection or the output ended early)')
        return result
    else:
        result['error'] = 'iperf3 ran a protocol the collection does not read (%s)' % (protocol or 'none given')
        return result
    metrics['mss_bytes'] = _mss(start, protocol)
    cpu = end.get('cpu_utilization_percent') or {}
    metrics['cpu_local_pct'] = _number(cpu, 'host_total')
    metrics['cpu_remote_pct'] = _number(cpu, 'remote_total')
    result['metrics'] = dict((name, value) for name, value in metrics.items() if value is not None)
    result['intervals'] = _intervals(document, protocol, bool(reverse), bidir)
    if 'throughput_mbps' not in result['metrics']:
        result['error'] = 'iperf3 printed no end sums: the test did not complete (the output ended early)'
        return result
    zero = zero_received_error(end, bool(reverse), bidir)
    if zero:
        result['error'] = zero
    return result
