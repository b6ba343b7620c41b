# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The one place where perflab.network converts units.

Rates are normalized to Mbit/s (10^6 bits per second), times to microseconds.
Decimal prefixes throughout (K = 1000), except netperf's byte units (its
``KBytes/s``, ``MBytes/s``, ``GBytes/s`` are 2^10, 2^20, 2^30 bytes: see
``netperf_to_mbps``) and the ``KiB``/``MiB``/``GiB`` forms.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import datetime
import re
import time

# bits per second for one unit of each spelling the tools print
_RATE_BPS = {
    'bits/s': 1.0, 'bit/s': 1.0, 'bps': 1.0, 'bits/sec': 1.0,
    'kbits/s': 1e3, 'kbit/s': 1e3, 'kbps': 1e3, 'kbits/sec': 1e3,
    'mbits/s': 1e6, 'mbit/s': 1e6, 'mbps': 1e6, 'mbits/sec': 1e6,
    'gbits/s': 1e9, 'gbit/s': 1e9, 'gbps': 1e9, 'gbits/sec': 1e9,
    'tbits/s': 1e12, 'tbit/s': 1e12, 'tbps': 1e12,
    # netperf's bit units (THROUGHPUT_UNITS with -f k, m, g)
    '10^0bits/s': 1.0, '10^3bits/s': 1e3, '10^6bits/s': 1e6, '10^9bits/s': 1e9,
    # bytes per second, decimal (MB = 10^6 bytes)
    'bytes/s': 8.0, 'byte/s': 8.0, 'bytes/sec': 8.0,
    'kbytes/s': 8e3, 'kbytes/sec': 8e3,
    'mbytes/s': 8e6, 'mbytes/sec': 8e6,
    'gbytes/s': 8e9, 'gbytes/sec': 8e9,
    # binary byte units
    'kib/s': 8.0 * 2 ** 10, 'mib/s': 8.0 * 2 ** 20, 'gib/s': 8.0 * 2 ** 30,
}

# Spellings whose case carries the bits/bytes distinction ("Mb/s" vs "MB/s",
# "Mbps" vs "MBps"): matched exactly, before the case-insensitive table.
_RATE_CASE_SENSITIVE = {
    'b/s': 1.0, 'Kb/s': 1e3, 'kb/s': 1e3, 'Mb/s': 1e6, 'Gb/s': 1e9, 'Tb/s': 1e12,
    'B/s': 8.0, 'KB/s': 8e3, 'kB/s': 8e3, 'MB/s': 8e6, 'GB/s': 8e9, 'TB/s': 8e12,
    'Bps': 8.0, 'KBps': 8e3, 'kBps': 8e3, 'MBps': 8e6, 'GBps': 8e9,
}

# netperf's THROUGHPUT_UNITS as it prints them (-f k m g K M G; the man page: "Capital letters are
# powers of two, lowercase are powers of ten"): its K/M/G bytes are binary, unlike the table above
NETPERF_RATE_BPS = {
    '10^3bits/s': 1e3, '10^6bits/s': 1e6, '10^9bits/s': 1e9,
    'KBytes/s': 8.0 * 2 ** 10, 'MBytes/s': 8.0 * 2 ** 20, 'GBytes/s': 8.0 * 2 ** 30,
}

_TIME_US = {
    'ns': 1e-3,
    'us': 1.0, u'\u00b5s': 1.0, u'\u03bcs': 1.0, 'usec': 1.0, 'usecs': 1.0,
    'ms': 1e3, 'msec': 1e3, 'msecs': 1e3,
    's': 1e6, 'sec': 1e6, 'secs': 1e6, 'seconds': 1e6,
    'm': 60e6, 'min': 60e6,
    'h': 3600e6,
}

_SI = {'': 1.0, 'K': 1e3, 'k': 1e3, 'M': 1e6, 'G': 1e9, 'T': 1e12, 'P': 1e15}

_SI_RE = re.compile(r'^\s*([-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?)\s*([kKMGTP]?)\s*$')
_DURATION_PART_RE = re.compile(u'([-+]?(?:\\d+(?:\\.\\d*)?|\\.\\d+))\\s*(ns|us|\u00b5s|\u03bcs|ms|h|m|s)')


def _rate_factor(unit):
    if not isinstance(unit, str):
        raise ValueError('unknown rate unit: %r' % (unit,))
    text = unit.strip()
    if text in _RATE_CASE_SENSITIVE:
        return _RATE_CASE_SENSITIVE[text]
    factor = _RATE_BPS.get(text.lower())
    if factor is None:
        raise ValueError('unknown rate unit: %r' % (unit,))
    return factor


def to_mbps(value, unit):
    """Convert a rate ``value`` given in ``unit`` to Mbit/s (10^6 bits/s).

    Raises ValueError on an unknown unit.
    """
    return float(value) * _rate_factor(unit) / 1e6


def netperf_to_mbps(value, unit):
    """Convert a netperf rate in its THROUGHPUT_UNITS (``NETPERF_RATE_BPS``) to Mbit/s."""
    factor = NETPERF_RATE_BPS.get((unit or '').strip()) if isinstance(unit, str) else None
    if factor is None:
        raise ValueError('unknown netperf throughput unit: %r (netperf prints %s)'
                         % (unit, ', '.join(sorted(NETPERF_RATE_BPS))))
    return float(value) * factor / 1e6


def human_bytes(count):
    """A byte count for messages, decimal: 39000 -> "39 KB", 2523136 -> "2.5 MB", 0 -> "0 bytes"."""
    count = float(count or 0)
    for factor, unit in ((1e12, 'TB'), (1e9, 'GB'), (1e6, 'MB'), (1e3, 'KB')):
        if abs(count) >= factor:
            return ('%.1f' % (count / factor)).rstrip('0').rstrip('.') + ' ' + unit
    return '%d bytes' % count


def from_mbps(value, unit):
    """Convert ``value`` Mbit/s to ``unit`` (the inverse of to_mbps)."""
    return float(value) * 1e6 / _rate_factor(unit)


def to_us(value, unit):
    """Convert a time ``value`` given in ``unit`` (ns, us, µs, ms, s) to microseconds."""
    if not isinstance(unit, str):
        raise ValueError('unknown time unit: %r' % (unit,))
    factor = _TIME_US.get(unit.strip())
    if factor is None:
        factor = _TIME_US.get(unit.strip().lower())
    if factor is None:
        raise ValueError('unknown time unit: %r' % (unit,))
    return float(value) * factor


def parse_si(text):
    """Parse a number with an optional decimal SI suffix: "12.5G" -> 12.5e9, "11.5K" -> 11500.0.

    K means 1000, as ethr prints. Raises ValueError on anything else.
    """
    if isinstance(text, (int, float)):
        return float(text)
    match = _SI_RE.match(text or '')
    if not match:
        raise ValueError('not a number with an SI suffix: %r' % (text,))
    return float(match.group(1)) * _SI[match.group(2)]


def parse_duration_us(text):
    """Parse a duration such as "29.689us", "1.2ms", "3s", "850ns" or Go's "1m2.5s" into microseconds."""
    if isinstance(text, (int, float)):
        raise ValueError('a duration needs a unit: %r' % (text,))
    source = (text or '').strip()
    if not source:
        raise ValueError('empty duration')
    total = 0.0
    pos = 0
    for match in _DURATION_PART_RE.finditer(source):
        if match.start() != pos:
            break
        total += to_us(match.group(1), match.group(2))
        pos = match.end()
    if pos != len(source) or pos == 0:
        raise ValueError('not a duration: %r' % (text,))
    return total


def iso_utc(timestamp=None):
    """ISO 8601 UTC with a ``Z`` and milliseconds, e.g. 2026-11-29T18:40:00.123Z."""
    if timestamp is None:
        timestamp = time.time()
    moment = datetime.datetime.fromtimestamp(timestamp, datetime.timezone.utc)
    return moment.strftime('%Y-%m-%dT%H:%M:%S.') + '%03dZ' % (moment.microsecond // 1000)
