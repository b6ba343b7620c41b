# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Pure parsing of nuttcp ``-fparse`` output into perflab metrics and intervals.

In client/server mode nuttcp reports from the receiver's point of view, so
``rate_Mbps`` is what the receiver got. Final line (6.1.2):
``megabytes=5092.3990 real_seconds=2.00 rate_Mbps=21358.0123 tx_cpu=21 rx_cpu=71 retrans=0 rtt_ms=0.07``;
interval lines (``-i``) use ``real_sec`` (the interval's length); UDP adds
``drop= pkt= data_loss=`` (data_loss in percent). nuttcp 8 adds ``cwnd=`` (and
``retrans=`` with several streams), and with ``-j`` (UDP) ``msmaxjitter=``.
Errors go to stderr with exit 1.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import re

_PAIR_RE = re.compile(r'([A-Za-z_][A-Za-z0-9_-]*)=(\S+)')
_VERSION_RE = re.compile(r'(?:nuttcp-|\bv)(\d+\.\d+(?:\.\d+)*)')
# nuttcp 8 with -j (tests/unit/fixtures/nuttcp/8.2.2): -fparse prints msmaxjitter= on the result and
# interval lines; with -v the receiver's line also has msminjitter= msavgjitter=. No other jitter key exists.
_JITTER_KEYS = ('msavgjitter',)
_MAX_JITTER_KEYS = ('msmaxjitter',)


def parse_version(text):
    """"nuttcp-6.1.2" or "nuttcp-t: v6.1.2: Error: ..." -> "6.1.2"; "" when absent."""
    match = _VERSION_RE.search(text or '')
    return match.group(1) if match else ''


def _float(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def parse_pairs(line):
    """``key=value`` pairs of one -fparse line, values as floats where numeric (else strings)."""
    pairs = {}
    for key, value in _PAIR_RE.findall(line):
        number = _float(value)
        pairs[key] = number if number is not None else value
    return pairs


def _error_from_stderr(stderr):
    lines = [line.strip() for line in (stderr or '').splitlines() if line.strip()]
    for line in lines:
        if 'Error:' in line or 'error:' in line:
            return line
    # Info="..." lines are chatter, not the cause
    for line in reversed(lines):
        if not line.startswith('errno=') and 'Info=' not in line:
            return line
    return None


def _common_metrics(pairs, transmit):
    metrics = {}
    if 'rate_Mbps' in pairs:
        metrics['throughput_mbps'] = pairs['rate_Mbps']
    if 'retrans' in pairs:
        metrics['retransmits'] = pairs['retrans']
    if 'drop' in pairs:
        metrics['lost_packets'] = pairs['drop']
    if 'pkt' in pairs:
        metrics['packets'] = pairs['pkt']
    if 'data_loss' in pairs:
        metrics['lost_percent'] = pairs['data_loss']
    for key in _JITTER_KEYS:
        if isinstance(pairs.get(key), float):
            metrics['jitter_ms'] = pairs[key]
            break
    for key in _MAX_JITTER_KEYS:
        if isinstance(pairs.get(key), float):
            metrics['jitter_max_ms'] = pairs[key]
            break
    # the client's own CPU is the transmitter's with -t, the receiver's with -r
    local, remote = ('tx_cpu', 'rx_cpu') if transmit else ('rx_cpu', 'tx_cpu')
    if local in pairs:
        metrics['cpu_local_pct'] = pairs[local]
    if remote in pairs:
        metrics['cpu_remote_pct'] = pairs[remote]
    return dict((k, v) for k, v in metrics.items() if isinstance(v, float))


def parse(stdout, stderr='', rc=0, transmit=True):
    """Parse one nuttcp client run.

    ``transmit`` is True for ``-t`` (the client sends), False for ``-r``.
    Returns ``{version, error, metrics, intervals, extra}``: ``metrics`` maps
    perflab metric names to values, ``extra`` holds the other numeric keys of
    the final line (``megabytes``, ``real_seconds``, ``rtt_ms``, ``cwnd``, ...).
    """
    result = {'version': parse_version(stderr) or parse_version(stdout), 'error': None,
              'metrics': {}, 'intervals': [], 'extra': {}}
    final = None
    elapsed = 0.0
    for line in (stdout or '').splitlines():
        pairs = parse_pairs(line)
        if 'real_seconds' in pairs:
            final = pairs
        elif 'real_sec' in pairs and isinstance(pairs['real_sec'], float):
            elapsed += pairs['real_sec']
            sample = {'t': round(elapsed, 3)}
            sample.update(_common_metrics(pairs, transmit))
            # an interval's CPU is not reported; keep only per-interval quantities
            sample.pop('cpu_local_pct', None)
            sample.pop('cpu_remote_pct', None)
            result['intervals'].append(sample)
    error = _error_from_stderr(stderr)
    if final is None:
        result['error'] = error or ('nuttcp exited with code %s and printed no result line' % rc
                                    if rc else 'nuttcp printed no result line (real_seconds=)')
        result['intervals'] = []
        return result
    if rc not in (0, None):
        result['error'] = error or 'nuttcp exited with code %s' % rc
        return result
    result['metrics'] = _common_metrics(final, transmit)
    used = ('rate_Mbps', 'retrans', 'drop', 'pkt', 'data_loss', 'tx_cpu', 'rx_cpu') + _JITTER_KEYS + _MAX_JITTER_KEYS
    result['extra'] = dict((k, v) for k, v in final.items() if k not in used and isinstance(v, float))
    if 'throughput_mbps' not in result['metrics']:
        result['error'] = 'nuttcp result line has no rate_Mbps'
    elif final.get('megabytes') == 0.0 or result['metrics']['throughput_mbps'] <= 0:
        receiver = 'server' if transmit else 'client'
        sent = (' of %d datagrams sent' % final['pkt']) if isinstance(final.get('pkt'), float) and final['pkt'] else ''
        result['error'] = 'the %s received 0 bytes%s (nuttcp: megabytes=%s rate_Mbps=%s)' % (
            receiver, sent, final.get('megabytes'), final.get('rate_Mbps'))
    return result
