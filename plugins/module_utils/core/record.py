# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The one builder of ``perflab.result/2`` records (see docs/result-record.md)."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import binascii
import copy
import os
import socket
import time

from ansible_collections.perflab.network.plugins.module_utils.core.units import iso_utc

# /2: one test id grammar for ad-hoc, suite and plan-skipped records (module_utils/tools/tool.py);
# /1 records are still read (report/store.py) and a resumed /1 run matches by the new ids
SCHEMA = 'perflab.result/2'
READABLE_MAJORS = (1, 2)
RAW_LIMIT = 64 * 1024
STATUSES = ('ok', 'failed', 'skipped')
# a record's bulky fields, left out where only what a run measured counts (a resume's plan, the role's list of records)
BULKY = ('raw', 'intervals', 'commands', 'command', 'processes', 'nic')
# an amendment of a stored record: a line of its own schema with the record's identity (run key, start, end,
# status) and new values of these fields only (the server side's samples, read after the record was stored);
# the store puts them into the stored record (report/store.py), a crash before it keeps the record as it was.
# Its own schema: whoever reads the lines of perflab.result records does not take it for one
AMENDMENT_SCHEMA = 'perflab.amendment/1'
AMENDABLE = ('server', 'limited_by')
IDENTITY_FIELDS = ('run_id', 'config', 'test_id', 'repetition', 'started_at', 'ended_at', 'status')


def amendment(rec):
    """The amendment line of ``rec`` (already stored once): its identity and its AMENDABLE fields."""
    out = dict((key, rec.get(key)) for key in IDENTITY_FIELDS)
    out['schema'] = AMENDMENT_SCHEMA
    # the run key names the sides by their names only
    out['client'] = {'name': _side_name(rec.get('client'))}
    out.update((key, rec[key]) for key in AMENDABLE if key in rec)
    return out


# name -> (unit, higher_is_better, combine): how the values of several client processes
# run at once (and their interval samples) combine into one. A tool whose value means
# something else overrides the rule in its registry file (netperf's CPU is system-wide).
#   sum: rates and counters add up; mean: the average; max/min: the extreme;
#   weighted: the mean weighted by each process' transactions_per_s;
#   loss: recomputed from lost_packets / packets when every process has both, else the mean.
COMBINE_RULES = ('sum', 'mean', 'max', 'min', 'weighted', 'loss')
METRICS = {
    'throughput_mbps': ('Mbit/s', True, 'sum'),
    'throughput_sent_mbps': ('Mbit/s', True, 'sum'),
    'throughput_received_mbps': ('Mbit/s', True, 'sum'),
    # several processes: the sum of their rates over the seconds all of them ran (common_window)
    'throughput_common_mbps': ('Mbit/s', True, 'sum'),
    'retransmits': ('count', False, 'sum'),
    'jitter_ms': ('ms', False, 'mean'),
    'jitter_max_ms': ('ms', False, 'max'),
    'lost_percent': ('%', False, 'loss'),
    'lost_packets': ('count', False, 'sum'),
    'packets': ('count', True, 'sum'),
    'transactions_per_s': ('1/s', True, 'sum'),
    'latency_us_mean': ('us', False, 'weighted'),
    # percentiles and stddev of several processes cannot be combined exactly: the largest (an upper bound)
    'latency_us_p50': ('us', False, 'max'),
    'latency_us_p90': ('us', False, 'max'),
    'latency_us_p99': ('us', False, 'max'),
    'latency_us_min': ('us', False, 'min'),
    'latency_us_max': ('us', False, 'max'),
    'latency_us_stddev': ('us', False, 'max'),
    'connections_per_s': ('1/s', True, 'sum'),
    'packets_per_s': ('1/s', True, 'sum'),
    # a tool's own CPU use adds up over its processes (iperf3, nuttcp); netperf overrides: mean
    'cpu_local_pct': ('%', False, 'sum'),
    'cpu_remote_pct': ('%', False, 'sum'),
    'nic_tx_mbps': ('Mbit/s', True, 'sum'),
    'nic_rx_mbps': ('Mbit/s', True, 'sum'),
    'mss_bytes': ('bytes', True, 'min'),
}


def new_run_id(timestamp=None):
    """e.g. 20261129T184000Z-ab12"""
    if timestamp is None:
        timestamp = time.time()
    stamp = time.strftime('%Y%m%dT%H%M%SZ', time.gmtime(timestamp))
    return '%s-%s' % (stamp, binascii.hexlify(os.urandom(2)).decode('ascii'))


def run_key(config, client, server, test_id, repetition):
    """The one key of a run of a test (configuration, pair, test, repetition): what a resume finds
    recorded, what a failed stage records, and (with the run id and start) a record's identity in a report."""
    return '%s|%s|%s|%s|%d' % (config or '', client or '', server or '', test_id, int(repetition or 1))


def record_run_key(rec, test_id=None):
    """run_key of a record (``test_id``: its id in the current grammar, when the caller converted it)."""
    return run_key(rec.get('config'), _side_name(rec.get('client')), _side_name(rec.get('server')),
                   test_id if test_id is not None else rec.get('test_id'), rec.get('repetition'))


def _side_name(side):
    return side.get('name') if isinstance(side, dict) else side


def _host_side(name, address, interface, mtu=None, link_mbps=None):
    side = {
        'name': name,
        'address': address,
        'interface': interface,
        'mtu': int(mtu) if mtu is not None else None,
    }
    if link_mbps is not None:
        side['link_mbps'] = float(link_mbps)
    return side


def new_record(params, tool, test, protocol, direction, test_id, options=None, tool_version='', client_mtu=None,
               server_mtu=None, parallel=None, notes=None, client_speed=None, reading=None):
    """A fresh record with identity / what / where filled from the module's common params.

    ``params`` is the module's ``params`` (TEST_COMMON_ARGS keys; missing keys are fine).
    ``parallel``: the streams/threads the tool really runs (the tool's ``effective_parallel``),
    when it differs from what ``params`` asked; ``notes``: what the record must say beside its
    values (an option the tool ignored, a server that hit its limit); ``client_speed``: the Mbit/s the
    kernel reports for the client's interface, used as ``client.link_mbps`` unless ``params`` give
    ``link_mbps`` (a shaped link, a slower path); ``reading``: whose count the primary metric of a
    one-way transfer is, ``{side: sender|receiver, host: client|server}`` (the tool's ``reading``), else None.
    ``options`` are the module's test options as given (copied). No I/O: host facts
    such as the interfaces' MTU are passed in (the runner reads them on the host that
    runs the test; a record built on the controller for a skipped test has none).
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
        # a suite's name of the test (reports title it so), None without one
        'title': params.get('title') or None,
        'repetition': int(params.get('repetition') or 1),
        'started_at': None,
        'ended_at': None,
        'tool': tool,
        'tool_version': tool_version or '',
        'test': test,
        'protocol': protocol,
        'direction': direction,
        'reading': copy.deepcopy(reading) if reading else None,
        'parallel': int(parallel if parallel is not None else (params.get('parallel') or 1)),
        'duration_s': float(duration) if duration is not None else None,
        'options': copy.deepcopy(options) if options else {},
        'command': [],
        'commands': [],
        'client': _host_side(params.get('client_name') or socket.gethostname(),
                             params.get('bind'), params.get('nic_interface'), client_mtu,
                             params.get('link_mbps') or client_speed),
        'server': _host_side(params.get('server_name') or params.get('server'),
                             params.get('server'), params.get('server_interface'),
                             server_mtu if server_mtu is not None else params.get('server_mtu')),
        'metrics': {},
        'primary': None,
        'intervals': [],
        'nic': None,
        # what limited the test (limits.verdict), on ok records: {verdict, evidence, ...}
        'limited_by': None,
        'processes': None,
        # several processes: their common window and each one's rate over it (common_window.common_window)
        'common_window': None,
        'status': None,
        'error': None,
        'raw': '',
        'notes': list(notes or []),
    }


def add_design(record, design):
    """Write a study's design into ``record`` (a copy): ``design`` (interleaved or sequential), ``design_order``
    (the configurations' states of every block, in the order they ran), ``design_block`` (the 1-based block
    this record's run belongs to), ``design_seed`` (a random order's seed, else None) and ``design_switch_s``
    (the seconds the switch into this block's configuration took, None for none). ``design`` is the plan's
    (benchmark_plan's ``design``); a record that has its design already, or no design given: as it is."""
    if not isinstance(design, dict) or not design.get('design') or record.get('design'):
        return record
    switch = design.get('switch_s')
    try:
        switch = None if switch in (None, '') else round(float(switch), 3)
    except (TypeError, ValueError):
        switch = None
    block = design.get('block')
    return dict(record, design=str(design['design']), design_order=[str(s) for s in design.get('order') or []],
                design_block=int(block) if str(block or '').isdigit() else None,
                design_seed=design.get('seed') if isinstance(design.get('seed'), int) else None,
                design_switch_s=switch)


# the reason of a fleet's test that a host left out kept from running (plan/fleet.py writes it, the matrix reads it)
FLEET_LEFT_OUT = '%s left out of the fleet: '


def add_fleet_slice(record, fleet_slice):
    """Write the AWX job slice the record's run was into ``record`` (a copy): ``fleet_slice`` ``{number, count,
    hosts, scope}`` (benchmark_plan's ``fleet.slice``: the slice's number of ``count``, every host of the slice,
    and its ``slice_scope``), so that a report merging the slices' runs knows which slice each record came from
    and which tests no slice ran. A record that has one already, or no slice given: as it is."""
    if not isinstance(fleet_slice, dict) or not fleet_slice.get('number') or record.get('fleet_slice'):
        return record
    return dict(record, fleet_slice={'number': int(fleet_slice['number']), 'count': int(fleet_slice.get('count') or 0),
                                     'hosts': [str(h) for h in fleet_slice.get('hosts') or []],
                                     'scope': str(fleet_slice.get('scope') or '')})


def add_note(record, note):
    """Append ``note`` to the record's ``notes`` (once)."""
    notes = record.setdefault('notes', [])
    if note and note not in notes:
        notes.append(note)


def clean_number(value):
    """``value`` as a float without binary noise (12 significant digits: 8119.999999999999 -> 8120.0); the
    one rounding of every value a record holds, whatever tool and parser made it. Not a number: as it is."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return value
    return float('%.12g' % value)


def metric(value, unit, higher_is_better):
    return {'value': clean_number(float(value)), 'unit': unit, 'higher_is_better': bool(higher_is_better)}


def set_intervals(record, samples):
    """The per-second samples of a record, each value through clean_number (``t`` included)."""
    record['intervals'] = [dict((key, clean_number(value)) for key, value in sample.items()) for sample in samples or []]


def add_metric(record, name, value, unit=None, higher_is_better=None, known=None):
    """Add metric ``name`` to ``record``. Returns False (and adds nothing) when ``value`` is None.

    For a name in METRICS, ``unit`` and ``higher_is_better`` may be omitted;
    a unit that disagrees with the table raises ValueError (convert first, with units.py).
    """
    if value is None:
        return False
    known = (known or {}).get(name) or METRICS.get(name)
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


def add_metrics(record, values, known=None):
    """Add every known metric of a ``{name: value}`` map (parsers return such maps); ``known``: the metrics of
    the tool beside METRICS (its ``Tool.metrics``)."""
    for name, value in values.items():
        add_metric(record, name, value, known=known)


def set_primary(record, name):
    record['primary'] = name


def primary_value(record):
    """The record's primary metric as a float when the record is ok and has it, else None."""
    metric = (record.get('metrics') or {}).get(record.get('primary') or '')
    if record.get('status') == 'ok' and isinstance(metric, dict) and isinstance(metric.get('value'), (int, float)):
        return float(metric['value'])
    return None


def set_commands(record, argvs):
    """Record the argv(s) that run: ``command`` is the first, ``commands`` all of them."""
    argvs = [list(argv) for argv in argvs]
    record['command'] = argvs[0] if argvs else []
    record['commands'] = argvs


def add_nic(record, nic_result, metrics=True):
    """Attach a NicSampler.result() and (``metrics``) its nic_rx_mbps/nic_tx_mbps metrics."""
    record['nic'] = nic_result
    # a bond's failover (active member changed, a member's link lost) is what the test went through
    for event in ((nic_result or {}).get('bond') or {}).get('events') or []:
        note = 'data interface %s: %s' % (nic_result.get('interface'), event)
        if note not in record['notes']:
            record['notes'].append(note)
    if nic_result and metrics:
        add_metric(record, 'nic_rx_mbps', nic_result.get('rx_mbps'))
        add_metric(record, 'nic_tx_mbps', nic_result.get('tx_mbps'))


# Wrong path: the data interface's NIC counters (sampled during the test, over the seconds the tool
# measured) must account for at least this share of the throughput the tool measured, in the test's
# direction (the client sends: tx; receives: rx; both: rx + tx). Headers make the counters read higher,
# never lower; a test that ran over another interface (the management link) shows next to nothing.
# Half, not more: the counters' window (the tool's own seconds, ending when it exits) can miss the
# start of a short test (seen down to 68% with iperf2 on the lab), while a wrong path shows ~0%; when it
# does, the whole run's bytes are judged (_run_bytes_account) before the record is called a wrong path.
NIC_ACCOUNT_MIN = 0.5
# below this the tool measured too little for the counters to tell (an idle link's chatter)
NIC_ACCOUNT_FLOOR_MBPS = 1.0


def nic_accounting_problem(record):
    """Why the record's NIC counters do not account for its measured throughput, or None (also when there
    is nothing to compare: no NIC samples, a primary metric that is not a throughput)."""
    primary = record.get('primary')
    nic = record.get('nic') or {}
    if not primary or primary.startswith('nic_') or METRICS.get(primary, ('',))[0] != 'Mbit/s':
        return None
    measured = (record.get('metrics', {}).get(primary) or {}).get('value')
    rx, tx = nic.get('rx_mbps'), nic.get('tx_mbps')
    if not isinstance(measured, (int, float)) or rx is None or tx is None or measured < NIC_ACCOUNT_FLOOR_MBPS:
        return None
    counted, keys, side = {'client_to_server': (tx, ('tx_bytes',), 'sent'),
                           'server_to_client': (rx, ('rx_bytes',), 'received')}.get(
        record.get('direction'), (rx + tx, ('rx_bytes', 'tx_bytes'), 'sent and received'))
    if counted >= measured * NIC_ACCOUNT_MIN:
        return None
    if _run_bytes_account(nic, keys, measured):
        return None
    return ('the data interface %s %s %.1f Mbit/s while %s measured %.1f Mbit/s (its counters must account for at '
            'least %d%%): the measured traffic did not cross the data interface (a wrong path? check '
            'perflab_data_address and perflab_data_interface)' % (nic.get('interface'), side, counted, record.get('tool'),
                                                                  measured, int(NIC_ACCOUNT_MIN * 100)))


def _run_bytes_account(nic, keys, measured):
    """Whether the bytes the counters saw over the whole sampled run (first to last sample) account for what the
    tool measured over its own seconds (the window's length). The window is placed by the process's exit: a
    client that exits late on a loaded host (seen: 1 s after a 2 s iperf2 test) shifts it past the data, while
    the whole run's bytes hold all of it; a wrong path counts next to nothing either way."""
    samples, window = nic.get('samples') or [], nic.get('window') or []
    if len(samples) < 2 or len(window) != 2 or not all(key in samples[0] for key in keys):
        return False
    seconds = float(window[1]) - float(window[0])
    counted_mbit = sum(samples[-1][key] - samples[0][key] for key in keys) * 8 / 1e6
    return seconds > 0 and counted_mbit >= measured * seconds * NIC_ACCOUNT_MIN


# A throughput below this share of the client's link speed (known: the kernel's, or link_mbps given) is
# judged against the path before the record is called ok: an MTU black hole lets a TCP test crawl at a
# fraction of a Mbit/s on a 10 Gbit/s link. The share is no limit of ours on a result: a slow record on a
# path that carries full-size packets stays ok, with a note that says so.
FAR_BELOW_LINK = 0.01


def far_below_link(record):
    """(measured Mbit/s, link Mbit/s) when the TCP record's throughput is far below its client's link, else None."""
    primary = record.get('primary')
    # TCP only: a UDP test sends at the rate it is asked (1 Mbit/s is iperf3's default), far below any link
    if record.get('protocol') != 'tcp' or not primary or primary.startswith('nic_') \
            or METRICS.get(primary, ('',))[0] != 'Mbit/s':
        return None
    measured = (record.get('metrics', {}).get(primary) or {}).get('value')
    link = (record.get('client') or {}).get('link_mbps')
    if not isinstance(measured, (int, float)) or not link or measured >= link * FAR_BELOW_LINK:
        return None
    return float(measured), float(link)


def far_below_link_verdict(record, server, mtu, answered):
    """What a far-below-the-link record says after its path was probed (pure): (error, note), one of them None.

    ``answered``: whether a don't-fragment ping of ``mtu`` bytes to ``server`` was answered; None when it
    could not be made (the MTU unknown, a Windows IPv6 path).
    """
    measured, link = far_below_link(record)
    what = '%s measured %.2f Mbit/s, below %g%% of the link\'s %.0f Mbit/s' % (
        record.get('tool'), measured, FAR_BELOW_LINK * 100, link)
    if answered is None:
        return None, '%s; the path MTU could not be checked' % what
    if answered:
        return None, '%s; the path carries packets of the MTU (a don\'t-fragment ping of %d bytes to %s was answered)' % (
            what, mtu, server)
    return ('%s, and the path to %s does not carry packets of the MTU: a don\'t-fragment ping of %d bytes got no '
            'answer (an MTU black hole: something on the path drops larger frames), so this is no result' % (
                what, server, mtu)), None


def set_common_window(record, window, nic_result=None):
    """Attach the processes' common window (common_window.common_window, or None) and, where the NIC was sampled
    over it, its rates and one-second peak (``nic``: a NicSampler.result() of that window); the sum over it is
    the metric ``throughput_common_mbps`` beside the sum of the processes' own averages."""
    if not window:
        record['common_window'] = None
        return
    window = dict(window)
    if nic_result:
        window['nic'] = dict((key, nic_result.get(key)) for key in
                             ('rx_mbps', 'tx_mbps', 'rx_peak_mbps', 'tx_peak_mbps', 'window'))
    record['common_window'] = window
    add_metric(record, 'throughput_common_mbps', window.get('sum_mbps'))


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


# primary metrics for which 0 means the test moved nothing (not a slow result)
ZERO_IS_FAILURE = ('throughput_mbps', 'throughput_sent_mbps', 'transactions_per_s', 'connections_per_s',
                   'packets_per_s')


def nothing_measured_error(record):
    """Why a record whose primary rate is 0 (or less) failed, None otherwise."""
    name = record.get('primary')
    metric = (record.get('metrics') or {}).get(name)
    if name not in ZERO_IS_FAILURE or not isinstance(metric, dict) or metric.get('value') is None:
        return None
    if metric['value'] > 0:
        return None
    return '%s measured %s = 0 %s: nothing reached the receiver' % (
        record.get('tool') or 'the tool', name, metric.get('unit') or '')


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
    nothing = nothing_measured_error(record)
    if status == 'ok' and nothing:
        # a rate of 0 is no result (every tool: iperf3, nuttcp, ethr, iperf2 print 0 and exit 0)
        status, error = 'failed', nothing
        record['metrics'] = {}
    if status != 'ok' and not error:
        error = 'failed' if status == 'failed' else 'skipped'
    record['status'] = status
    record['error'] = error if status != 'ok' else None
    record['raw'] = bound_raw(raw)
    return record


def combine_rule(name, overrides=None, known=None):
    """How metric ``name`` of several processes combines (METRICS or the tool's own ``known`` metrics, or a
    tool's override)."""
    if overrides and name in overrides:
        return overrides[name]
    known = (known or {}).get(name) or METRICS.get(name)
    return known[2] if known else 'mean'


def combine_metrics(metric_maps, overrides=None, known=None):
    """Combine ``{name: value}`` maps of processes run at once, each metric by its rule.

    ``overrides``: a tool's {name: rule} where its value means something else
    (see METRICS and COMBINE_RULES). Values missing in a process are left out.
    """
    metric_maps = [values for values in metric_maps if values]
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
        rule = combine_rule(name, overrides, known)
        if rule == 'sum':
            value = sum(present)
        elif rule == 'max':
            value = max(present)
        elif rule == 'min':
            value = min(present)
        elif rule == 'weighted':
            pairs = [(values[name], values.get('transactions_per_s') or 0.0)
                     for values in metric_maps if values.get(name) is not None]
            total = sum(weight for _value, weight in pairs)
            value = (sum(v * w for v, w in pairs) / total) if total > 0 else sum(present) / len(present)
        else:   # mean, and loss without packet counts
            value = sum(present) / len(present)
        combined[name] = round(value, 6)
    lost = [values.get('lost_packets') for values in metric_maps]
    packets = [values.get('packets') for values in metric_maps]
    if 'lost_percent' in combined and combine_rule('lost_percent', overrides) == 'loss' \
            and None not in lost and None not in packets and sum(packets) > 0:
        combined['lost_percent'] = round(100.0 * sum(lost) / sum(packets), 6)
    return combined


def combine_intervals(interval_lists, overrides=None, known=None):
    """Combine per-process interval lists sample by sample, each metric by its rule.

    The i-th samples of the processes make the i-th combined sample, as far as
    every process has one (a partial sum would look like a drop); its ``t`` is
    the latest of theirs, when the combined sample is complete. The processes'
    clocks start within milliseconds of each other (they are started at once).
    """
    interval_lists = [samples for samples in interval_lists if samples]
    if not interval_lists:
        return []
    combined = []
    for index in range(min(len(samples) for samples in interval_lists)):
        row = [samples[index] for samples in interval_lists]
        values = combine_metrics([dict((k, v) for k, v in sample.items() if k != 't') for sample in row], overrides, known)
        times = [sample.get('t') for sample in row if sample.get('t') is not None]
        sample = {'t': max(times) if times else None}
        sample.update(values)
        combined.append(sample)
    return combined
