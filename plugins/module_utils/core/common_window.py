# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The common window of several client processes run at once (pure, core layer).

Each process reports its own average over its own window, and those windows are not aligned: processes
connect at slightly different times, and one that runs alone for a while (first or last) gets the whole
link then. Adding up the averages then counts those lone seconds as if every process had had them at
once: the sum can exceed both the NIC counters and one process' rate (the parallel-netperf seed's trap).
The sum over the processes' common window (the interval where all were running, from their per-interval
output, as each tool's parser gives it: JSON intervals, interim lines) is what the link carried while N
processes shared it.

A process' samples are ``[{'t': end of the interval in s from its first interval's start, <metric>: rate}]``
(the parsers' ``intervals``); its ``anchor`` is the wall time (epoch s) of that clock's zero: the tool's own
timestamps where it prints them (netperf's interim lines), else the process' end minus its last sample's
``t`` (a client exits when its last interval ends). Within an interval the rate is taken as even.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import datetime

THROUGHPUT_METRICS = ('throughput_mbps', 'throughput_sent_mbps', 'throughput_received_mbps')


def epoch_of(iso):
    """Epoch seconds of an ISO 8601 UTC time as units.iso_utc writes it (``...T18:40:00.123Z``); None if not one."""
    if not isinstance(iso, str) or not iso:
        return None
    text = iso[:-1] + '+00:00' if iso.endswith('Z') else iso
    try:
        moment = datetime.datetime.fromisoformat(text)
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=datetime.timezone.utc)
    return moment.timestamp()


def _number(value):
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def interval_metric(interval_lists, primary=None):
    """The throughput metric every process' samples carry: ``primary`` when they all have it, else the first of
    THROUGHPUT_METRICS they all have (netperf's TCP_STREAM interim rates are the sender's); None without one."""
    lists = [samples for samples in interval_lists if samples]
    if not lists or len(lists) != len(interval_lists):
        return None
    for name in ((primary,) if primary in THROUGHPUT_METRICS else ()) + THROUGHPUT_METRICS:
        if all(any(_number(sample.get(name)) is not None for sample in samples) for samples in lists):
            return name
    return None


def spans(samples, metric, anchor):
    """``[(start, end, rate)]`` in wall time of one process' samples of ``metric``."""
    out = []
    previous = 0.0
    for sample in samples:
        end = _number(sample.get('t'))
        if end is None or end <= previous:
            continue
        rate = _number(sample.get(metric))
        if rate is not None:
            out.append((anchor + previous, anchor + end, rate))
        previous = end
    return out


def anchor_of(samples, parsed_anchor=None, ended_epoch=None):
    """The wall time of a process' sample clock's zero: the tool's own (``parsed_anchor``), else its end minus
    its last sample's ``t``; None when neither is known."""
    if _number(parsed_anchor) is not None:
        return float(parsed_anchor)
    ends = [_number(sample.get('t')) for sample in samples or ()]
    ends = [end for end in ends if end is not None]
    if ended_epoch is None or not ends:
        return None
    return float(ended_epoch) - max(ends)


def common_window(processes, metric):
    """The processes' common window and each one's rate over it.

    ``processes``: ``[{'intervals': samples, 'anchor': epoch s}]`` in process order. Returns None when a process
    has no sample of ``metric`` or no anchor, or the windows do not overlap; else ``{metric, start_s, end_s,
    seconds, process_windows, processes_mbps, sum_mbps, resolution_s}``, times in seconds from the earliest
    process' start: ``process_windows`` each process' [start, end], ``processes_mbps`` each one's mean rate over
    the common window, ``sum_mbps`` their sum, ``resolution_s`` the longest interval (how finely the tools'
    output places the window's edges: a tool printing one interval for the whole test gives no finer).
    """
    all_spans = []
    for process in processes:
        anchor = _number(process.get('anchor'))
        pieces = spans(process.get('intervals') or [], metric, anchor) if anchor is not None else []
        if not pieces:
            return None
        all_spans.append(pieces)
    if not all_spans:
        return None
    start = max(pieces[0][0] for pieces in all_spans)
    end = min(pieces[-1][1] for pieces in all_spans)
    if end - start <= 0:
        return None
    origin = min(pieces[0][0] for pieces in all_spans)
    rates = []
    for pieces in all_spans:
        carried = sum(rate * max(0.0, min(stop, end) - max(begin, start)) for begin, stop, rate in pieces)
        rates.append(round(carried / (end - start), 3))
    return {
        'metric': metric,
        'start_s': round(start - origin, 3),
        'end_s': round(end - origin, 3),
        'seconds': round(end - start, 3),
        'process_windows': [[round(pieces[0][0] - origin, 3), round(pieces[-1][1] - origin, 3)]
                            for pieces in all_spans],
        'processes_mbps': rates,
        'sum_mbps': round(sum(rates), 3),
        'resolution_s': round(max(stop - begin for pieces in all_spans for begin, stop, _rate in pieces), 3),
    }


def of_processes(parsed, procs, primary=None):
    """The common window of a test's processes from their parse results (``intervals``, the tool's own
    ``anchor`` where it has one) and ProcessResults (``ended_at``); None where it cannot be had. The result
    also holds ``start_epoch``/``end_epoch`` (wall time) and ``last_end_epoch`` (when the last process ended)."""
    if len(parsed) < 2 or len(parsed) != len(procs):
        return None
    lists = [result.get('intervals') or [] for result in parsed]
    metric = interval_metric(lists, primary)
    if metric is None:
        return None
    ended = [epoch_of(getattr(proc, 'ended_at', None)) for proc in procs]
    processes = [{'intervals': samples, 'anchor': anchor_of(samples, result.get('anchor'), end)}
                 for samples, result, end in zip(lists, parsed, ended)]
    window = common_window(processes, metric)
    if window is None or None in ended:
        return window
    origin = min(spans(process['intervals'], metric, process['anchor'])[0][0] for process in processes)
    window.update(start_epoch=round(origin + window['start_s'], 3), end_epoch=round(origin + window['end_s'], 3),
                  last_end_epoch=round(max(ended), 3))
    return window


def sampler_window(window, ended_t):
    """The common window on a NIC sampler's clock, whose ``ended_t`` is when the last process ended; None
    where it cannot be placed."""
    last = (window or {}).get('last_end_epoch')
    if last is None or ended_t is None or window.get('start_epoch') is None:
        return None
    return (ended_t - (last - window['start_epoch']), ended_t - (last - window['end_epoch']))
