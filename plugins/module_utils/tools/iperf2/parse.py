# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Pure parsing of iperf2 (2.1.8) client text output into perflab metrics and intervals.

The module runs the client as ``iperf -c HOST -p PORT -t N -e -f k -i 1 [...]``
(enhanced text reports, rates in decimal Kbit/s); any ``-f`` unit is read
(``bits/sec``, ``Kbits/sec``, ``Mbits/sec``, ``Gbits/sec``, all 10^3 based).
Captured output and how it was made: tests/unit/fixtures/iperf2/2.1.8/README.md.

iperf2 2.1.8 quirks this parser relies on:

* **Exit code is 0 on every client error** (connection refused, network
  unreachable, unknown option, a missing argument, a peer reset mid-test);
  only ``-v`` and ``-h`` exit 1. Errors go to **stderr**, e.g.
  ``tcp connect failed: Connection refused``, ``tcp write failed: Connection
  reset by peer``, ``read failed: Connection refused`` (UDP with no server,
  repeated), ``iperf: unrecognized option `--x'`` (the test then runs anyway,
  without the option), ``listener bind failed: Address already in use``
  (``-d``), ``[  3] WARNING: did not receive ack of last datagram after 10
  tries.`` (UDP: no server report). A refused connect still prints a
  ``[  1] local 0.0.0.0 port 0 connected with ...`` line on stdout. So the
  error comes from stderr patterns and from what stdout lacks, never from rc.
* A server killed mid-test (``-R``) leaves no stderr at all: only the final
  report's end time (``0.0000-1.0029 sec`` for ``-t 3``) shows the cut; pass
  ``duration`` to catch it.
* Report lines: ``[ ID] start-end sec  TRANSFER UNIT  RATE UNIT  [enhanced
  columns]``. ``[  N]`` is stream N sending (``-e``: ``Write/Err Rtry
  Cwnd/RTT(var) NetPwr``), ``[ *N]`` stream N receiving (``-R``, the read
  half of ``--full-duplex``; ``-e``: ``Reads=Dist``). ``[FDN]`` is the sum of
  both halves of full-duplex stream N. ``[SUM]`` appears **only with -P > 1**
  (per interval and at the end; with ``--full-duplex -P N`` it sums both
  directions). Each stream's last line is its final report (start 0.0); the
  last ``[SUM]``/``[FDN]`` line is the final sum. The final ``[SUM]`` end
  time can be less than the streams' (``0.0000-2.0009`` vs ``-2.0099``).
* TCP: the client is told nothing by the server. Without ``-R`` the client's
  rate is what it wrote (the sender's rate) and ``Rtry`` its retransmits;
  with ``-R`` it is what the client read, and retransmits (the server's) are
  not shown.
* UDP: the client's own lines are what it sent. After the test the server
  returns a report per stream, printed as ``[  N] Server Report:``, a header,
  then ``[  N] 0.0000-2.0003 sec  24420 KBytes  100009 Kbits/sec   0.001 ms
  0/17011 (0%)`` (jitter, lost/total datagrams; a server run with ``-e`` adds
  latency, PPS and NetPwr columns). There is no summed server report with
  -P > 1: they are summed here. The printed percentage is rounded (``(28%)``
  for 38566/136061), so ``lost_percent`` is computed from the counts. Only
  the final report comes from the server: UDP intervals are the send rate.
  ``-b`` is per stream (``-P 2 -b 100m`` sends 200 Mbit/s) and ``-b 100M``
  is 2^20 based (104.9 Mbit/s): use lowercase ``m``. ``-u -R`` prints the
  jitter/loss columns on the client's own ``[ *N]`` lines (it is the receiver).
  So intervals name their side: the client's sent lines (TCP without ``-R``,
  UDP) ``throughput_sent_mbps`` (under loss they overstate what arrived),
  what it received ``throughput_mbps``.
* ``-m`` prints ``MSS size 536 bytes`` (or ``MSS req size 1400 bytes (per
  TCP_MAXSEG)`` with ``-M``) *before* connecting: the default or requested
  value, not the segment size in use, never read. The real one is in every
  TCP connect line, ``(icwnd/mss/irtt=319/32741/27)``, printed with or without
  ``-m``. iperf 2.0.x has no such connect line; with ``-m`` it prints the MSS
  in use after the test, ``[  3] MSS size 1448 bytes (MTU 1500 bytes,
  ethernet)`` (one per stream): ``mss`` is read from there when no connect
  line has it.
* A stream that stalls (its packets dropped, the server stopped) holds the
  client past ``-t``: its last interval moves 0 bytes and its final report ends
  late (6.5 s for ``-t 3``); 2.1.8 still prints a final ``[SUM]`` after the
  streams' finals, other builds end without one, their last ``[SUM]`` then an
  interval's (0.00 bits/sec). The total is the final ``[SUM]`` (start 0, after
  every stream's final line), else the streams' finals added up; the stall is
  said in ``notes``. At the end of a ``-P`` run a stream's last part-second can
  be folded into its final report, and the streams' last intervals end at
  different times (``1.0000-1.9992``, ``1.0000-1.9980``): an interval is known
  by its start, and one without a ``[SUM]`` or a line of every stream is left
  out.
* CSV (``-y C``) in 2.1.8 is worse than text: 9 TCP columns ``time,local
  ip,local port,remote ip,remote port,id,start-end,bytes,bits/s`` with or
  without ``-e`` (no retransmits, cwnd or RTT), 14 UDP columns (adds
  ``jitter_ms,lost,total,lost_percent,out_of_order``) filled from the
  sender's side only (the final row shows ``-1,-0.000``: the server report is
  not printed), no ``[SUM]`` rows with -P, and the time column is
  ``19700101000000`` unless ``-i`` is given. Not parsed here.
* The version is not printed by a client run (``iperf -v`` prints
  ``iperf version 2.1.8 (12 August 2022) pthreads`` to stderr, exit 1).
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import re

from ansible_collections.perflab.network.plugins.module_utils.core.units import to_mbps

TESTS = ('tcp_stream', 'tcp_maerts', 'tcp_bidir', 'udp_stream')

_VERSION_RE = re.compile(r'iperf version (\d+(?:\.\d+)+)')
_REPORT_RE = re.compile(
    r'^\[\s*(?P<star>\*?)\s*(?P<id>\d+|SUM|FD\d+)\]\s+'
    r'(?P<start>\d+(?:\.\d+)?)-\s*(?P<end>\d+(?:\.\d+)?)\s+sec\s+'
    r'(?P<transfer>[\d.]+)\s+(?P<tunit>[KMGT]?Bytes?)\s+'
    r'(?P<rate>[\d.]+)\s+(?P<runit>[kKMGT]?bits/sec)(?P<rest>.*)$')
_UDP_RECV_RE = re.compile(r'^\s+(?P<jitter>[\d.]+)\s+ms\s+(?P<lost>-?\d+)/\s*(?P<total>\d+)\s+\(')
_TCP_SEND_RE = re.compile(r'^\s+(?P<writes>\d+)/(?P<errs>\d+)\s+(?P<rtry>\d+)(?:\s|$)')
_MSS_CONNECT_RE = re.compile(r'icwnd/mss/irtt=\d+/(\d+)/\d+')
# 2.0.x with -m, after the test: the MSS in use and the MTU it implies
_MSS_AFTER_RE = re.compile(r'^\[\s*\d+\]\s+MSS size (\d+) bytes \(MTU \d+ bytes')
_SERVER_REPORT_RE = re.compile(r'^\[\s*(\d+)\] Server Report:')

_CONNECT_ERROR_RE = re.compile(r'connect failed: ')
_OPTION_ERROR_RE = re.compile(r'unrecognized option|option requires an argument|invalid option|'
                              r'ignoring extra argument', re.I)
_FAILURE_RE = re.compile(r'failed|error|WARNING: did not receive ack', re.I)


def parse_version(text):
    """"iperf version 2.1.8 (12 August 2022) pthreads" -> "2.1.8"; "" when absent."""
    match = _VERSION_RE.search(text or '')
    return match.group(1) if match else ''


def _report(line):
    """One report line as a dict, or None."""
    match = _REPORT_RE.match(line.rstrip())
    if not match:
        return None
    rest = match.group('rest')
    entry = {
        'id': match.group('id'),
        'star': bool(match.group('star')),
        'start': float(match.group('start')),
        'end': float(match.group('end')),
        'transfer': float(match.group('transfer')),
        'mbps': round(to_mbps(float(match.group('rate')), match.group('runit')), 6),
        'server': False,
    }
    udp = _UDP_RECV_RE.match(rest)
    tcp = _TCP_SEND_RE.match(rest)
    if udp:
        entry.update(jitter_ms=float(udp.group('jitter')), lost=float(udp.group('lost')),
                     total=float(udp.group('total')), direction='recv')
    elif 'Reads=' in rest or re.match(r'^\s+\d+=', rest) or entry['star']:
        entry['direction'] = 'recv'
    else:
        entry['direction'] = 'send'
        if tcp and not rest.rstrip().endswith('pps'):
            entry['retransmits'] = float(tcp.group('rtry'))
    return entry


def report_lines(stdout):
    """Every report line of ``stdout`` in order; server reports (UDP) are marked ``server``."""
    entries = []
    pending = set()
    for line in (stdout or '').splitlines():
        marker = _SERVER_REPORT_RE.match(line)
        if marker:
            pending.add(marker.group(1))
            continue
        entry = _report(line)
        if entry is None:
            continue
        if entry['id'] in pending:
            entry['server'] = True
            pending.discard(entry['id'])
        entry['index'] = len(entries)
        entries.append(entry)
    return entries


def parse_mss(stdout):
    """The MSS in use: the first TCP connect line's (2.1.x), else the line 2.0.x prints after the
    test with ``-m`` (``[  3] MSS size 1448 bytes (MTU 1500 bytes, ethernet)``); else None.

    2.1.x's ``-m`` line (``MSS size 536 bytes`` before connecting) is the socket's default or
    ``-M`` request, not the segment size in use: never read.
    """
    match = _MSS_CONNECT_RE.search(stdout or '')
    if match:
        return int(match.group(1))
    for line in (stdout or '').splitlines():
        printed = _MSS_AFTER_RE.match(line.strip())
        if printed:
            return int(printed.group(1))
    return None


def _stderr_lines(stderr):
    seen = []
    for line in (stderr or '').splitlines():
        # "[  3] WARNING: ..." -> "WARNING: ..."
        line = re.sub(r'^\[\s*\d+\]\s*', '', line.strip())
        if line and line not in seen:
            seen.append(line)
    return seen


def _stderr_error(stderr, test):
    """An error sentence from iperf2's stderr, or None when it holds no failure."""
    lines = _stderr_lines(stderr)
    for line in lines:
        if _CONNECT_ERROR_RE.search(line):
            return 'iperf2 could not connect to the server: %s' % line
    for line in lines:
        if _OPTION_ERROR_RE.search(line):
            return 'iperf2 rejected its arguments: %s' % line
    failures = [line for line in lines if _FAILURE_RE.search(line)]
    if not failures:
        return None
    if test == 'udp_stream' and any('did not receive ack' in line for line in failures):
        causes = [line for line in failures if 'did not receive ack' not in line]
        return ('iperf2 got no UDP server report (is a UDP server listening?): %s'
                % '; '.join(causes + [line for line in failures if line not in causes]))
    if any(word in failures[0] for word in ('write failed', 'read failed', 'shutdown failed')):
        return 'iperf2 lost the connection during the test: %s' % failures[0]
    return 'iperf2 reported an error: %s' % failures[0]


def _split(entries):
    """(final line of each stream by (id, direction), interval lines of streams, sum lines)."""
    finals = {}
    order = []
    for entry in entries:
        if entry['server'] or not entry['id'].isdigit():
            continue
        key = (entry['id'], entry['direction'])
        if key not in finals:
            order.append(key)
        finals[key] = entry
    stream_intervals = [e for e in entries if not e['server'] and e['id'].isdigit()
                        and finals[(e['id'], e['direction'])] is not e]
    sums = [e for e in entries if not e['server'] and not e['id'].isdigit()]
    return [finals[key] for key in order], stream_intervals, sums


def _total(lines, key):
    values = [line[key] for line in lines if line.get(key) is not None]
    return round(sum(values), 6) if values else None


def _final_sum(sums, kind, finals=()):
    """The final [SUM] (kind 'SUM') or the [FDn] lines' last of each n (kind 'FD').

    The final [SUM] starts at 0 and comes after every stream's final line: a run whose
    stream stalled can end without one, and its last [SUM] is then an interval's (0.00
    bits/sec in the worst case), not the total (None: the caller adds the streams' finals up).
    """
    if kind == 'SUM':
        after = max([entry['index'] for entry in finals] or [-1])
        chosen = [entry for entry in sums if entry['id'] == 'SUM' and entry['start'] == 0
                  and entry['index'] > after]
        return chosen[-1] if chosen else None
    last = {}
    for entry in sums:
        if entry['id'].startswith('FD'):
            last[entry['id']] = entry
    return list(last.values())


def _interval_samples(finals, stream_intervals, sums, test):
    """Per-second samples summed over streams (the [SUM]/[FD] lines where iperf2 prints them).

    A second for which iperf printed neither a [SUM] line nor a line of every stream is left
    out: at the end of a ``-P`` run iperf folds a stream's last part-second into its final
    report, and the one stream left would read as the whole (7490 of about 30000 Mbit/s).
    The client's own lines are what it sent (TCP without ``-R``, UDP): ``throughput_sent_mbps``;
    what it received (``-R``, UDP's jitter/loss columns) is ``throughput_mbps``, the receiver's.
    """
    final_sum = _final_sum(sums, 'SUM', finals)
    streams = set((e['id'], e['direction']) for e in finals)
    # an interval is known by its start: the streams' ends differ at the last one (1.9992, 1.9980)
    starts = []
    for entry in stream_intervals:
        if entry['start'] not in starts:
            starts.append(entry['start'])
    sum_lines = [e for e in sums if e['id'] == 'SUM' and e is not final_sum]
    fd_lines = {}
    for entry in sums:
        if entry['id'].startswith('FD'):
            fd_lines.setdefault(entry['id'], []).append(entry)
    samples = []
    for start in starts:
        rows = [e for e in stream_intervals if e['start'] == start]
        own_sum = [e for e in sum_lines if e['start'] == start]
        if not own_sum and set((e['id'], e['direction']) for e in rows) != streams:
            continue
        sample = {'t': own_sum[0]['end'] if own_sum else max(e['end'] for e in rows)}
        send = [e for e in rows if e['direction'] == 'send']
        recv = [e for e in rows if e['direction'] == 'recv']
        if test == 'tcp_bidir':
            fd_here = [lines[i] for lines in fd_lines.values() for i in range(len(lines) - 1)
                       if lines[i]['start'] == start]
            sample['throughput_sent_mbps'] = _total(send, 'mbps')
            sample['throughput_received_mbps'] = _total(recv, 'mbps')
            if own_sum:
                sample['throughput_mbps'] = own_sum[0]['mbps']
            elif fd_here:
                sample['throughput_mbps'] = _total(fd_here, 'mbps')
            else:
                sample['throughput_mbps'] = round((sample['throughput_sent_mbps'] or 0.0)
                                                  + (sample['throughput_received_mbps'] or 0.0), 6)
            sample['retransmits'] = _total(send, 'retransmits')
        else:
            source = own_sum if own_sum else rows
            side = 'throughput_mbps' if recv and not send else 'throughput_sent_mbps'
            sample[side] = _total(source, 'mbps')
            sample['retransmits'] = _total(source, 'retransmits')
            if recv and all('lost' in e for e in recv):
                sample['lost_packets'] = _total(recv, 'lost')
                sample['packets'] = _total(recv, 'total')
                sample['jitter_ms'] = round(sum(e['jitter_ms'] for e in recv) / len(recv), 6)
        samples.append(dict((k, v) for k, v in sample.items() if v is not None))
    return samples


def stalled_streams(finals, stream_intervals, duration=None):
    """Notes on the streams that stalled: whose last interval moved 0 bytes, or whose final
    report ends long after the ``duration`` asked (iperf waits for a stuck stream)."""
    notes = []
    for final in finals:
        mine = [e for e in stream_intervals if (e['id'], e['direction']) == (final['id'], final['direction'])]
        why = []
        if mine and mine[-1]['transfer'] == 0:
            why.append('0 bytes in its last interval (%g-%g s)' % (mine[-1]['start'], mine[-1]['end']))
        if duration and final['end'] > float(duration) + max(2.0, 0.25 * float(duration)):
            why.append('its final report ends at %g s of the %s s asked' % (final['end'], duration))
        if why:
            notes.append('iperf2 stream %s (%s) stalled: %s; the total counts what it moved'
                         % (final['id'], 'sending' if final['direction'] == 'send' else 'receiving', ', '.join(why)))
    return notes


def _receiver_metrics(lines, metrics):
    """jitter/loss/packets of UDP receiver lines (server reports, or the client's with -R)."""
    metrics['throughput_mbps'] = _total(lines, 'mbps')
    metrics['throughput_received_mbps'] = metrics['throughput_mbps']
    metrics['jitter_ms'] = round(sum(e['jitter_ms'] for e in lines) / len(lines), 6)
    metrics['lost_packets'] = _total(lines, 'lost')
    metrics['packets'] = _total(lines, 'total')
    if metrics['packets']:
        metrics['lost_percent'] = round(100.0 * metrics['lost_packets'] / metrics['packets'], 6)


def _metrics(finals, sums, servers, test):
    send = [e for e in finals if e['direction'] == 'send']
    recv = [e for e in finals if e['direction'] == 'recv']
    total = _final_sum(sums, 'SUM', finals)
    metrics = {}
    if test == 'tcp_bidir':
        fds = _final_sum(sums, 'FD')
        metrics['throughput_sent_mbps'] = _total(send, 'mbps')
        metrics['throughput_received_mbps'] = _total(recv, 'mbps')
        if total is not None:
            metrics['throughput_mbps'] = total['mbps']
        elif fds:
            metrics['throughput_mbps'] = _total(fds, 'mbps')
        elif send and recv:
            metrics['throughput_mbps'] = round(metrics['throughput_sent_mbps']
                                               + metrics['throughput_received_mbps'], 6)
        metrics['retransmits'] = _total(send, 'retransmits')
    elif test == 'tcp_maerts':
        metrics['throughput_mbps'] = total['mbps'] if total is not None else _total(recv, 'mbps')
        metrics['throughput_received_mbps'] = metrics['throughput_mbps']
    elif test == 'tcp_stream':
        metrics['throughput_mbps'] = total['mbps'] if total is not None else _total(send, 'mbps')
        metrics['throughput_sent_mbps'] = metrics['throughput_mbps']
        if total is not None and total.get('retransmits') is not None:
            metrics['retransmits'] = total['retransmits']
        else:
            metrics['retransmits'] = _total(send, 'retransmits')
    else:
        if send:
            metrics['throughput_sent_mbps'] = (total['mbps'] if total is not None
                                               else _total(send, 'mbps'))
        receivers = [e for e in servers if 'lost' in e] or [e for e in recv if 'lost' in e]
        if receivers:
            _receiver_metrics(receivers, metrics)
    return dict((k, v) for k, v in metrics.items() if v is not None)


def _zero_received(finals, servers, test):
    if test == 'udp_stream':
        lines = servers or [e for e in finals if e['direction'] == 'recv']
    elif test == 'tcp_stream':
        lines = finals
    elif test == 'tcp_maerts':
        lines = [e for e in finals if e['direction'] == 'recv']
    else:
        lines = finals
        # both halves must carry data
        for direction in ('send', 'recv'):
            part = [e for e in finals if e['direction'] == direction]
            if part and not any(e['transfer'] > 0 for e in part):
                return True
    return bool(lines) and not any(e['transfer'] > 0 for e in lines)


def parse(stdout, stderr='', rc=0, test='tcp_stream', duration=None):
    """Parse one iperf2 client run (text output, ``-e`` or not, any ``-f``).

    ``test`` is one of TESTS: ``tcp_stream`` (client sends), ``tcp_maerts``
    (``-R``), ``tcp_bidir`` (``--full-duplex``), ``udp_stream`` (``-u``).
    ``duration`` (the ``-t`` asked), when given, makes a final report ending
    before 90 % of it an error (a cut-short run).
    Returns ``{version, error, metrics, intervals, mss, streams, notes}``: metrics
    maps perflab metric names to floats; on an error both metrics and
    intervals are empty (a failed run must not be ranked); ``notes`` says
    which streams stalled (``stalled_streams``).
    """
    if test not in TESTS:
        raise ValueError('test must be one of %s, not %r' % (', '.join(TESTS), test))
    result = {'version': parse_version(stderr) or parse_version(stdout), 'error': None,
              'metrics': {}, 'intervals': [], 'mss': parse_mss(stdout), 'streams': 0, 'notes': []}
    entries = report_lines(stdout)
    servers = [e for e in entries if e['server']]
    finals, stream_intervals, sums = _split(entries)
    result['streams'] = len(set(e['id'] for e in finals))
    error = _stderr_error(stderr, test)
    if error is None and rc not in (0, None):
        lines = _stderr_lines(stderr)
        error = 'iperf2 exited with code %s%s' % (rc, (': %s' % lines[0]) if lines else '')
    if error is None and not finals:
        lines = _stderr_lines(stderr)
        error = ('iperf2 printed no report: %s' % lines[0]) if lines else 'iperf2 printed no report line'
    if error is None:
        metrics = _metrics(finals, sums, servers, test)
        if test == 'udp_stream' and 'throughput_mbps' not in metrics:
            error = 'iperf2 got no UDP server report (the receiver\'s numbers are missing)'
        elif 'throughput_mbps' not in metrics:
            error = 'iperf2 printed no %s report for %s' % (
                'receive' if test == 'tcp_maerts' else 'send', test)
        elif _zero_received(finals, servers, test):
            error = 'iperf2 reported 0 bytes received'
        elif duration:
            end = max(e['end'] for e in (servers or finals))
            if end < 0.9 * float(duration):
                error = 'iperf2 test ended after %.4f s of the %s s asked (cut short)' % (end, duration)
    if error is not None:
        result['error'] = error
        return result
    result['metrics'] = metrics
    result['intervals'] = _interval_samples(finals, stream_intervals, sums, test)
    result['notes'] = stalled_streams(finals, stream_intervals, duration)
    return result
