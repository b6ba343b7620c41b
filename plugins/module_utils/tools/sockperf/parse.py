# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Pure parser of sockperf 3.7 client output (fixtures: tests/unit/fixtures/sockperf/3.7/).

Quirks (seen on the real 3.7, see the fixtures' README):

* sockperf exits 0 on every error (no server, connection refused, unknown option): the parser judges
  the text. An unknown option prints the help ("Usage: sockperf ..."); a bad value says which option first
  ("sockperf: '-i' Invalid address: ::1": 3.7 takes IPv4 addresses only).
* Some lines are coloured with ANSI escapes even when stdout is no terminal: they are removed first.
* ping-pong and under-load print the latency of the valid duration (after the warm-up) in usec:
  ``avg-latency`` is half the round trip; with ``--full-rtt`` ``avg-rtt`` is the whole round trip.
  Percentiles: ``---> percentile 99.999 = 1933.239`` and ``<MAX>``/``<MIN> observation``.
* under-load: the server answers one message in 100, so ReceivedMessages is about SentMessages / 100.
* throughput counts what the client sent (sockperf cannot know what arrived): "Message Rate is N
  [msg/sec]" and "BandWidth is X MBps (Y Mbps)", where MBps is MiB/s (2^20 bytes).
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import re

from ansible_collections.perflab.network.plugins.module_utils.core.units import to_mbps

ANSI_RE = re.compile(r'\x1b\[[0-9;]*m')
VERSION_RE = re.compile(r'\bversion #?([0-9][0-9A-Za-z.\-_+]*)')
AVG_RE = re.compile(r'====> avg-(latency|rtt)=([0-9.]+) \(std-dev=([0-9.]+)\)')
PERCENTILE_RE = re.compile(r'---> percentile +([0-9.]+) = +([0-9.]+)')
EXTREME_RE = re.compile(r'---> <(MAX|MIN)> observation = +([0-9.]+)')
VALID_RE = re.compile(r'\[Valid Duration\] RunTime=([0-9.]+) sec; SentMessages=([0-9]+); ReceivedMessages=([0-9]+)')
DROPPED_RE = re.compile(r'# dropped messages = ([0-9]+)')
RATE_RE = re.compile(r'Summary: Message Rate is ([0-9.]+) \[msg/sec\]')
BANDWIDTH_RE = re.compile(r'Summary: BandWidth is ([0-9.]+) MBps')
ERROR_RE = re.compile(r'sockperf: (ERROR: .*|No messages were received from the server.*|\'-?-?\w+\' .*)$', re.M)

# sockperf's percentile -> the record's metric name (percentiles with a dot: "_" for the dot)
PERCENTILES = {'50.000': 'latency_us_p50', '90.000': 'latency_us_p90', '99.000': 'latency_us_p99',
               '99.900': 'latency_us_p99_9', '99.999': 'latency_us_p99_999'}


def clean(text):
    return ANSI_RE.sub('', text or '')


def parse_version(text):
    """'3.7' from ``sockperf --version`` ("sockperf, version 3.7-no.git"); '' when absent."""
    match = VERSION_RE.search(clean(text))
    if not match:
        return ''
    return re.sub(r'-no\.git$', '', match.group(1))


def _error(text):
    match = ERROR_RE.search(text)
    if match:
        return 'sockperf: %s' % match.group(1).strip()
    if 'Usage: sockperf' in text:
        return 'sockperf printed its usage (it did not take the arguments it was given)'
    return None


def parse_latency(text):
    """ping-pong and under-load: {'metrics', 'full_rtt', 'error'}; latencies in usec."""
    text = clean(text)
    error = _error(text)
    avg = AVG_RE.search(text)
    if error or not avg:
        return {'metrics': {}, 'full_rtt': None,
                'error': error or 'sockperf printed no latency summary (avg-latency or avg-rtt)'}
    metrics = {'latency_us_mean': float(avg.group(2)), 'latency_us_stddev': float(avg.group(3))}
    for percentile, value in PERCENTILE_RE.findall(text):
        if percentile in PERCENTILES:
            metrics[PERCENTILES[percentile]] = float(value)
    for which, value in EXTREME_RE.findall(text):
        metrics['latency_us_%s' % which.lower()] = float(value)
    valid = VALID_RE.search(text)
    if valid and float(valid.group(1)) > 0:
        # the round trips answered per second of the valid duration
        metrics['transactions_per_s'] = int(valid.group(3)) / float(valid.group(1))
    dropped = DROPPED_RE.search(text)
    if dropped:
        metrics['lost_packets'] = float(dropped.group(1))
    return {'metrics': metrics, 'full_rtt': avg.group(1) == 'rtt', 'error': None}


def parse_throughput(text):
    """throughput: {'metrics': {messages_per_s, throughput_sent_mbps}, 'error'} (what the client sent)."""
    text = clean(text)
    error = _error(text)
    rate, bandwidth = RATE_RE.search(text), BANDWIDTH_RE.search(text)
    if error or not rate or not bandwidth:
        return {'metrics': {}, 'error': error or 'sockperf printed no throughput summary (Message Rate, BandWidth)'}
    return {'metrics': {'messages_per_s': float(rate.group(1)),
                        'throughput_sent_mbps': to_mbps(float(bandwidth.group(1)), 'MiB/s')},
            'error': None}


def parse(text, mode):
    """The client's stdout of a ``mode`` run (ping-pong, under-load, throughput):
    {'metrics', 'intervals': [], 'version', 'error'} (sockperf prints no intervals)."""
    parsed = parse_throughput(text) if mode == 'throughput' else parse_latency(text)
    parsed['intervals'] = []
    parsed['version'] = parse_version(text)
    return parsed
