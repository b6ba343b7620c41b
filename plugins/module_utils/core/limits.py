# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""What limited a test: the parsers of what the runner samples and the one verdict (pure, no I/O).

The runner's sampler (nic.NicSampler) reads, on the host that runs the test: /proc/stat (per-core CPU)
before and after, ``ss -tin dst <peer>`` (the test connections' TCP state) every interval, the data NIC's
drop/error/missed counters before and after; the runner pings the server before the test (the path's
RTT). The server host's sampler (server_sampler.py, beside bench_server's servers) reads the same CPU and drop
counters there every second; :func:`server_window` takes a test's seconds of it. :func:`verdict` turns both sides'
samples and the record's metrics into ``limited_by: {verdict, evidence, ...}``.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import calendar
import re
import time

VERDICTS = ('target', 'link', 'nic', 'loss', 'window', 'cpu', 'unknown')

# the share of the goodput ceiling (or of a UDP target) a test must reach to be limited by it
LINK_SHARE = 0.90
TARGET_SHARE = 0.95
# a core this busy (user+system+irq+softirq, % of its time) is saturated
CPU_BUSY_PCT = 90.0
# a sender's connections this long limited by the peer's receive window or its own send buffer
# (share of the time the connection was busy)
WINDOW_LIMITED_PCT = 30.0
# ... or this long when the peer's window (snd_wnd) is below the bandwidth-delay product
WINDOW_SOME_PCT = 10.0
# a share of segments retransmitted (TCP) or datagrams lost (UDP) that limits a test
LOSS_PCT = 0.5
# drops/errors of the data NIC above this share of its packets (and at least a few)
NIC_DROP_PCT = 0.1
NIC_DROP_MIN = 10

# IPv4 + TCP with timestamps (20 + 20 + 12); on the wire an Ethernet frame adds 14 + 4 FCS + 8 preamble
# + 12 gap = 38 bytes to the MTU, and tc's tbf counts from the Ethernet header: 14
TCP_HEADERS = 52
UDP_HEADERS = 28
ETHERNET_WIRE = 38
TBF_FRAME = 14

# a connection that sent fewer segments is a tool's control connection, not a data one
CONTROL_SEGMENTS = 100

PROC_STAT_FIELDS = ('user', 'nice', 'system', 'idle', 'iowait', 'irq', 'softirq', 'steal')
DROP_COUNTERS = ('rx_dropped', 'tx_dropped', 'rx_errors', 'tx_errors', 'rx_missed_errors')
# what a host's own stack dropped of what it received because it could not take it in (no NIC counts these):
# /proc/net/netstat's TcpExt (per network namespace): the socket backlog full while the socket was busy
# (TCPBacklogDrop), the receive queue over its buffer (TCPRcvQDrop), segments pruned from the receive and
# out-of-order queues (RcvPruned, OfoPruned), out-of-order segments dropped for want of memory (TCPOFODrop);
# and /proc/net/softnet_stat's second column summed over the CPUs (``softnet_dropped``: a CPU's input backlog
# full, veth's netif_rx lands there)
HOST_DROP_COUNTERS = ('TCPBacklogDrop', 'TCPRcvQDrop', 'RcvPruned', 'OfoPruned', 'TCPOFODrop', 'softnet_dropped')
# ... sampled beside them: the receive queue's prunings tried (PruneCalled: a sign of pressure, no drop by itself)
HOST_COUNTERS = HOST_DROP_COUNTERS + ('PruneCalled',)


def goodput_ceiling(mtu, rate_mbps, protocol='tcp', framing='ethernet'):
    """The most a transfer's payload can reach on a link of ``rate_mbps`` at ``mtu``: (m - 52) / (m + 38) of an
    Ethernet line rate, (m - 52) / (m + 14) of a tc tbf rate (``framing='tbf'``); UDP's headers are 28 bytes.
    None when either is unknown."""
    if not mtu or not rate_mbps or mtu <= TCP_HEADERS:
        return None
    headers = UDP_HEADERS if protocol == 'udp' else TCP_HEADERS
    frame = TBF_FRAME if framing == 'tbf' else ETHERNET_WIRE
    return round(float(rate_mbps) * (mtu - headers) / (mtu + frame), 3)


# ---- /proc/stat (Linux) and kern.cp_times (FreeBSD) ------------------------------------------------------

def parse_proc_stat(text):
    """``{cpuN: {user, nice, system, idle, iowait, irq, softirq, steal}}`` in jiffies, one per core (not the
    ``cpu`` total line)."""
    cores = {}
    for line in (text or '').splitlines():
        parts = line.split()
        if not parts or not re.match(r'^cpu\d+$', parts[0]):
            continue
        values = [int(v) for v in parts[1:1 + len(PROC_STAT_FIELDS)] if v.isdigit()]
        cores[parts[0]] = dict(zip(PROC_STAT_FIELDS, values + [0] * (len(PROC_STAT_FIELDS) - len(values))))
    return cores


def parse_kern_cp_times(text):
    """FreeBSD's ``sysctl -n kern.cp_times`` (user nice sys intr idle per CPU, in ticks) in parse_proc_stat's
    shape: interrupts land in ``irq`` (FreeBSD does not split soft from hard interrupts: ``softirq`` stays 0)."""
    values = [int(v) for v in (text or '').split() if v.isdigit()]
    cores = {}
    for index in range(len(values) // 5):
        user, nice, system, intr, idle = values[index * 5:index * 5 + 5]
        cores['cpu%d' % index] = dict((field, 0) for field in PROC_STAT_FIELDS)
        cores['cpu%d' % index].update(user=user, nice=nice, system=system, irq=intr, idle=idle)
    return cores


def cpu_usage(before, after):
    """Per-core use between two parse_proc_stat snapshots: ``{cores: [{cpu, user, system, irq, softirq,
    busy}], busiest}`` in % of each core's time (user includes nice; busy excludes idle, iowait, steal);
    None without two snapshots of the same cores."""
    if not before or not after:
        return None
    cores = []
    for name in sorted(set(before) & set(after), key=lambda n: int(n[3:])):
        delta = dict((field, max(0, after[name][field] - before[name][field])) for field in PROC_STAT_FIELDS)
        total = sum(delta.values())
        if total <= 0:
            continue

        def pct(*fields):
            return round(100.0 * sum(delta[f] for f in fields) / total, 1)
        cores.append({'cpu': name, 'user': pct('user', 'nice'), 'system': pct('system'), 'irq': pct('irq'),
                      'softirq': pct('softirq'), 'busy': pct('user', 'nice', 'system', 'irq', 'softirq')})
    if not cores:
        return None
    busiest = max(cores, key=lambda core: core['busy'])
    return {'cores': cores, 'busiest': busiest['cpu']}


def parse_proc_pid_stat(text):
    """(utime + stime ticks, last CPU) of a /proc/<pid>/stat line, None when unreadable."""
    if not text or ')' not in text:
        return None
    fields = text[text.rindex(')') + 2:].split()
    try:
        return int(fields[11]) + int(fields[12]), int(fields[36])
    except (IndexError, ValueError):
        return None


# ---- ss -tin (iproute2) -----------------------------------------------------------------------------------

_SS_RATE = {'bps': 1e-6, 'Kbps': 1e-3, 'Mbps': 1.0, 'Gbps': 1e3}


def _rate_mbps(text):
    match = re.match(r'^([\d.]+)([KMG]?bps)$', text)
    return round(float(match.group(1)) * _SS_RATE[match.group(2)], 3) if match else None


def parse_ss(text):
    """The connections of ``ss -tin`` output: ``[{local, peer, cwnd, rtt_ms, minrtt_ms, delivery_rate_mbps,
    busy_ms, rwnd_limited_ms, rwnd_limited_pct, sndbuf_limited_ms, sndbuf_limited_pct, retrans, data_segs_out,
    bytes_acked, snd_wnd, rcv_space, dsack_dups, reord_seen, app_limited}]``; a field the kernel did not print is
    absent (the ``*_limited`` ones, ``dsack_dups`` and ``reord_seen`` appear only when non-zero, kernel 4.9+/5.x)."""
    connections = []
    current = None
    for line in (text or '').splitlines():
        if not line.strip() or line.startswith('State') or line.startswith('Recv-Q'):
            continue
        if not line[0].isspace():
            parts = line.split()
            # "ESTAB 0 6144 127.0.0.1:41654 127.0.0.1:47011" (with -t the state comes first)
            addresses = [part for part in parts if ':' in part]
            current = {'local': addresses[0] if addresses else None,
                       'peer': addresses[1] if len(addresses) > 1 else None}
            connections.append(current)
            continue
        if current is None:
            continue
        _parse_ss_info(line, current)
    return connections


def _parse_ss_info(line, conn):
    tokens = line.split()
    for index, token in enumerate(tokens):
        key, sep, value = token.partition(':')
        if token == 'app_limited':
            conn['app_limited'] = True
        elif token == 'delivery_rate' and index + 1 < len(tokens):
            conn['delivery_rate_mbps'] = _rate_mbps(tokens[index + 1])
        elif not sep or key == 'bbr':
            continue
        elif key in ('cwnd', 'data_segs_out', 'bytes_acked', 'snd_wnd', 'rcv_space', 'unacked', 'dsack_dups',
                     'reord_seen') and value.isdigit():
            conn[key] = int(value)
        elif key in ('rtt', 'minrtt'):
            try:
                conn[key + '_ms'] = float(value.split('/')[0])
            except ValueError:
                pass
        elif key == 'retrans':
            # retrans:<now>/<total>
            total = value.split('/')[-1]
            if total.isdigit():
                conn['retrans'] = int(total)
        elif key in ('busy', 'rwnd_limited', 'sndbuf_limited'):
            match = re.match(r'^(\d+)ms(?:\(([\d.]+)%\))?$', value)
            if match:
                conn[key + '_ms'] = int(match.group(1))
                if match.group(2):
                    conn[key + '_pct'] = float(match.group(2))


def tcp_summary(connections):
    """The test connections' state as one: cwnd and rtt of each, delivery rate summed, the limited times'
    share of the busy time over all, retransmitted segments over the segments sent, and of those the ones the
    receiver reported as duplicates (``dsack_dups``: D-SACK, they had arrived) and the reorderings seen."""
    if not connections:
        return None
    # the test's data connections: a control connection (iperf3's, netperf's) sends a few segments only
    connections = [c for c in connections if (c.get('data_segs_out') or 0) >= CONTROL_SEGMENTS] or connections
    busy = sum(c.get('busy_ms') or 0 for c in connections)
    summary = {'connections': len(connections),
               'cwnd': [c.get('cwnd') for c in connections],
               'rtt_ms': [c.get('rtt_ms') for c in connections],
               'minrtt_ms': min([c['minrtt_ms'] for c in connections if c.get('minrtt_ms') is not None] or [None]),
               'delivery_rate_mbps': round(sum(c.get('delivery_rate_mbps') or 0 for c in connections), 3),
               'busy_ms': busy,
               'retrans': sum(c.get('retrans') or 0 for c in connections),
               'data_segs_out': sum(c.get('data_segs_out') or 0 for c in connections),
               'dsack_dups': sum(c.get('dsack_dups') or 0 for c in connections),
               'reord_seen': sum(c.get('reord_seen') or 0 for c in connections),
               'snd_wnd': [c.get('snd_wnd') for c in connections]}
    for key in ('rwnd_limited', 'sndbuf_limited'):
        limited = sum(c.get(key + '_ms') or 0 for c in connections)
        summary[key + '_ms'] = limited
        summary[key + '_pct'] = round(100.0 * limited / busy, 1) if busy else 0.0
    return summary


def merge_ss(known, connections):
    """Keep the latest state of each connection (by local and peer address) across ``ss`` samples: the
    counters are the connection's own totals, and a connection closed at the end is gone from the last one."""
    for conn in connections:
        known[(conn.get('local'), conn.get('peer'))] = conn
    return known


def parse_ping_rtt(text):
    """``{min_ms, avg_ms, max_ms}`` from ping's summary (iputils "rtt min/avg/max/mdev = a/b/c/d ms", FreeBSD
    "round-trip min/avg/max/stddev = ..."), None without one."""
    match = re.search(r'(?:rtt|round-trip) min/avg/max/\w+ = ([\d.]+)/([\d.]+)/([\d.]+)', text or '')
    if not match:
        return None
    return {'min_ms': float(match.group(1)), 'avg_ms': float(match.group(2)), 'max_ms': float(match.group(3))}


def counter_deltas(before, after, keys=DROP_COUNTERS):
    """The drop/error/missed counters' increase during the test (those of ``keys`` both readings have)."""
    if not before or not after:
        return None
    return dict((key, after[key] - before[key]) for key in keys if key in before and key in after)


# ---- the host stack's receive drops (Linux /proc/net) -----------------------------------------------------

def parse_netstat(text):
    """``{counter: value}`` of the TcpExt lines of /proc/net/netstat (a header line of names, then one of values);
    None without them (no file: FreeBSD, or a kernel without TcpExt)."""
    rows = [line.split() for line in (text or '').splitlines() if line.startswith('TcpExt:')]
    if len(rows) < 2 or len(rows[0]) != len(rows[1]):
        return None
    return dict((name, int(value)) for name, value in zip(rows[0][1:], rows[1][1:]) if value.lstrip('-').isdigit())


def parse_softnet_stat(text):
    """The packets dropped because a CPU's input backlog was full: /proc/net/softnet_stat's second column (hex,
    one line per CPU) summed; None without the file's lines."""
    rows = [re.match(r'^[0-9a-f]+\s+([0-9a-f]+)(\s|$)', line) for line in (text or '').splitlines()]
    dropped = [int(row.group(1), 16) for row in rows if row]
    return sum(dropped) if dropped else None


def host_counters(netstat_text, softnet_text):
    """The HOST_COUNTERS a host has now (parse_netstat's and ``softnet_dropped``), None when it has none: what a
    sampler reads before and after (counter_deltas with ``keys=HOST_COUNTERS``)."""
    counters = dict((key, value) for key, value in (parse_netstat(netstat_text) or {}).items() if key in HOST_COUNTERS)
    softnet = parse_softnet_stat(softnet_text)
    if softnet is not None:
        counters['softnet_dropped'] = softnet
    return counters or None


# ---- the server's side (server_sampler.py samples it over the whole run, each test takes its window) ------

def epoch_of(iso):
    """Seconds since the epoch of a record's ``started_at``/``ended_at`` (units.iso_utc's format), None if not one."""
    match = re.match(r'^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(\.\d+)?Z$', iso or '')
    if not match:
        return None
    return calendar.timegm(time.strptime(match.group(1), '%Y-%m-%dT%H:%M:%S')) + float(match.group(2) or 0)


def server_not_sampled(os_name, interface):
    """bench_server's ``sampled`` on a server host without the sampler (FreeBSD, Windows): what it cannot tell."""
    return {'interface': interface, 'not_sampled': [
        '%s: the server side is not sampled (its per-core CPU and its data NIC\'s drop counters during the test '
        'are unknown: a receiver limited by its CPU shows as window at most)' % os_name]}


def server_window(series, started_at, ended_at, facts=None):
    """What the server host's sampler saw during one test: ``{interface, mtu, link_mbps, cpu, process_cpu,
    nic_drops, nic_packets, host_drops, window}`` in the shape of the client's samples, from ``series`` (its
    samples: ``{t, cpu, drops, packets, procs, host}``, t in epoch seconds) between the record's ``started_at``
    and ``ended_at``.

    The samples inside the test's window (the first at or after its start, the last at or before its end;
    the two hosts' clocks are assumed in step within a sampling interval), or, with fewer than two inside,
    the two around it. ``facts``: the server's ``interface``, ``mtu``, ``link_mbps``. Without two samples,
    only the facts and ``not_sampled`` saying why."""
    out = dict((key, (facts or {}).get(key)) for key in ('interface', 'mtu', 'link_mbps'))
    start, end = epoch_of(started_at), epoch_of(ended_at)
    series = sorted((s for s in series or [] if isinstance(s.get('t'), (int, float))), key=lambda s: s['t'])
    if start is None or end is None or len(series) < 2:
        out['not_sampled'] = ['the server\'s sampler has no samples of this test']
        return out
    inside = [s for s in series if start <= s['t'] <= end]
    if len(inside) >= 2:
        first, last = inside[0], inside[-1]
    else:
        before = [s for s in series if s['t'] <= start]
        after = [s for s in series if s['t'] >= end]
        if not before or not after:
            out['not_sampled'] = ['the server\'s sampler has no samples around this test']
            return out
        first, last = before[-1], after[0]
    out['window'] = [round(first['t'], 3), round(last['t'], 3)]
    out['cpu'] = cpu_usage(first.get('cpu'), last.get('cpu'))
    out['nic_drops'] = counter_deltas(first.get('drops'), last.get('drops'))
    out['host_drops'] = counter_deltas(first.get('host'), last.get('host'), HOST_COUNTERS)
    if isinstance(first.get('packets'), int) and isinstance(last.get('packets'), int):
        out['nic_packets'] = last['packets'] - first['packets']
    out['process_cpu'] = busiest_process_cpu(first.get('procs'), last.get('procs'))
    return out


def busiest_process_cpu(before, after):
    """The core the busiest of some processes last ran on: ``before``/``after`` map a pid to (utime + stime
    ticks, last core number) (parse_proc_pid_stat); None without a process that ran in between."""
    used = [(ticks - before[pid][0], core) for pid, (ticks, core) in (after or {}).items()
            if pid in (before or {}) and ticks - before[pid][0] > 0]
    return 'cpu%d' % max(used)[1] if used else None


def apply_server(record, server):
    """The server's interface, MTU and link speed that its sampler found, into the record's ``server`` where
    the record has none (the caller's own values win)."""
    side = record.get('server')
    if not isinstance(side, dict) or not server:
        return record
    for key in ('interface', 'mtu', 'link_mbps'):
        if side.get(key) is None and server.get(key) is not None:
            side[key] = server[key]
    return record


# what the client's sampler gave a record's limited_by (verdict keeps them): judged again with the server's
CLIENT_SAMPLES = ('cpu', 'process_cpu', 'interface', 'tcp', 'nic_drops', 'nic_packets', 'host_drops', 'path_rtt',
                  'not_sampled')


def with_server(record, sampled):
    """``record`` with the server's side: its interface, MTU and link speed (apply_server) and, on an ok record,
    ``limited_by`` judged again with the server's window of ``sampled`` (bench_server's RV(sampled):
    ``{interface, mtu, link_mbps, series}``, or ``not_sampled`` where the server's OS has no sampler)."""
    if not sampled:
        return record
    window = server_window(sampled.get('series'), record.get('started_at'), record.get('ended_at'), sampled) \
        if sampled.get('series') is not None else dict(sampled)
    apply_server(record, window)
    previous = record.get('limited_by')
    if record.get('status') != 'ok' or not isinstance(previous, dict):
        return record
    samples = dict((key, previous.get(key)) for key in CLIENT_SAMPLES)
    samples['not_sampled'] = list(previous.get('not_sampled') or []) + list(window.get('not_sampled') or [])
    if window.get('cpu') or window.get('nic_drops') is not None:
        samples['server'] = dict((key, value) for key, value in window.items() if key not in ('not_sampled', 'series'))
    record['limited_by'] = verdict(record, samples)
    return record


# ---- the verdict ------------------------------------------------------------------------------------------

def _throughput(record):
    metric = (record.get('metrics') or {}).get(record.get('primary') or '')
    unit_ok = isinstance(metric, dict) and metric.get('unit') == 'Mbit/s'
    return float(metric['value']) if unit_ok and isinstance(metric.get('value'), (int, float)) else None


def _metric(record, name):
    metric = (record.get('metrics') or {}).get(name)
    return metric.get('value') if isinstance(metric, dict) else None


def _sides(samples):
    """(side, its samples) of each side sampled: the client (the samples themselves) and the server."""
    sides = [('client', samples)]
    if samples.get('server'):
        sides.append(('server', samples['server']))
    return sides


def _side_core(cpu, process_cpu=None):
    """The core that says whether a side was CPU-bound: the one its tool's busiest process last ran on (where
    the two sides share a kernel, as in the namespace lab, their /proc/stat are the same: only the process
    tells them apart), else its busiest core; None without CPU samples."""
    if not cpu:
        return None
    by_name = dict((core['cpu'], core) for core in cpu['cores'])
    return by_name.get(process_cpu) or by_name.get(cpu['busiest'])


def cpu_verdict(samples):
    """``{side, saturated, evidence}`` when a side's core (_side_core) was at least CPU_BUSY_PCT busy: the
    busier side when both were (the client on a tie); None when neither was."""
    found = []
    for name, sampled in _sides(samples):
        core = _side_core(sampled.get('cpu'), sampled.get('process_cpu'))
        if core and core['busy'] >= CPU_BUSY_PCT:
            found.append((core['busy'], name == 'client', name, core, sampled))
    if not found:
        return None
    busy, _client, name, core, sampled = max(found, key=lambda found_side: found_side[:2])
    evidence = '%s core %s %.0f %% busy: user %.0f, system %.0f, irq %.0f, softirq %.0f %% (softirq %.0f %% of its busy ' \
               'time)' % (name, core['cpu'], busy, core['user'], core['system'], core['irq'], core['softirq'],
                          100.0 * core['softirq'] / busy)
    if sampled.get('process_cpu') == core['cpu']:
        evidence += '; the %s\'s tool ran there' % name
    for other in found:
        if other[2] != name:
            evidence += '; the %s core %s was %.0f %% busy too' % (other[2], other[3]['cpu'], other[0])
    return {'side': name, 'core': core['cpu'], 'evidence': evidence,
            'saturated': [c['cpu'] for c in sampled['cpu']['cores'] if c['busy'] >= CPU_BUSY_PCT]}


def side_cpu_verdict(samples, side):
    """cpu_verdict of one side alone (``client`` or ``server``): None when that side's core was not saturated."""
    return cpu_verdict(dict(samples, server=None) if side == 'client' else dict(samples, cpu=None))


def _receivers(record):
    """The side(s) that received the test's data: the server when the client sends (the record's ``direction``),
    the client when it receives (tcp_maerts, a reverse test); both for a bidirectional test or no direction."""
    receivers = {'client_to_server': ('server',), 'server_to_client': ('client',)}
    return receivers.get(record.get('direction'), ('client', 'server'))


def receiver_verdict(record, samples, tcp):
    """``{side, core, saturated, evidence}`` (cpu_verdict's) with ``account``, the receiver's account of the
    sender's retransmissions in words, when a receiving side's core was saturated and what it says of them leaves
    less than LOSS_PCT of the segments to the network: the segments its host stack dropped because it could not
    take them in (its ``host_drops``, HOST_DROP_COUNTERS) and those it reported as duplicates (the sender's
    ``dsack_dups``: D-SACK, they had arrived, late and out of order: seen live on the namespace lab, where a
    receiver starved of its core took the segments in out of order and the sender retransmitted them). The side
    that explains more when both do; None otherwise: the retransmissions are the network's loss."""
    duplicates = tcp.get('dsack_dups') or 0
    found = []
    for name, sampled in _sides(samples):
        drops = sampled.get('host_drops') or {}
        dropped = sum(drops.get(key) or 0 for key in HOST_DROP_COUNTERS)
        unexplained = tcp['retrans'] - dropped - duplicates
        if name not in _receivers(record) or not (dropped or duplicates) \
                or 100.0 * unexplained / tcp['data_segs_out'] >= LOSS_PCT:
            continue
        receiver = side_cpu_verdict(samples, name)
        if receiver:
            parts = ["the receiver's host dropped %d it could not take in (%s)" % (dropped, ', '.join(
                '%s %d' % (key, drops[key]) for key in HOST_DROP_COUNTERS if drops.get(key)))] if dropped else []
            if duplicates:
                parts.append('the receiver reported %d of them as duplicates (D-SACK: they had arrived, late and out of '
                             'order)' % duplicates)
            found.append((dropped + duplicates, dict(receiver, account='; '.join(parts))))
    return max(found, key=lambda one: one[0])[1] if found else None


def nic_verdict(samples):
    """The evidence that the data NICs dropped or lost packets (their drop/error/missed counters, both sides
    summed, at least NIC_DROP_MIN and over NIC_DROP_PCT of the packets one side counted), None otherwise."""
    parts, dropped, packets = [], 0, 0
    for name, sampled in _sides(samples):
        drops = sampled.get('nic_drops') or {}
        counted = sum(drops.values())
        dropped += counted
        packets = max(packets, sampled.get('nic_packets') or 0)
        if counted:
            parts.append('the %s\'s %s %s (%d packets)' % (
                name, sampled.get('interface') or 'data NIC',
                ', '.join('%s %d' % (key, value) for key, value in sorted(drops.items()) if value),
                sampled.get('nic_packets') or 0))
    if dropped >= NIC_DROP_MIN and dropped > NIC_DROP_PCT / 100.0 * max(packets, 1):
        return 'the data NICs counted drops or errors during the test: %s' % '; '.join(parts)
    return None


def verdict(record, samples):
    """``{verdict, evidence, ...}`` of an ok record: what limited it, from ``samples`` (the runner's:
    ``cpu``, ``tcp``, ``nic_drops``, ``nic_packets``, ``host_drops``, ``path_rtt``, ``not_sampled``, and the
    server's in ``server``) and the record's metrics, link speed and MTU. The first that holds wins: target, link,
    nic, loss, window, cpu; else ``unknown`` with why. TCP retransmissions that a receiver whose core was saturated
    accounts for (its host stack's drops, its D-SACKs: receiver_verdict) are ``cpu`` on its side, not loss."""
    samples = samples or {}
    out = dict((key, value) for key, value in samples.items() if value is not None)
    rate = _throughput(record)
    protocol = record.get('protocol')
    # the smaller MTU of the two sides (the server's when the role passed it)
    mtus = [side.get('mtu') for side in (record.get('client') or {}, record.get('server') or {}) if side.get('mtu')]
    mtu = min(mtus) if mtus else None
    # the client's link (link_mbps given: the path's, e.g. shaped), else the server's NIC (its sampler's)
    link = (record.get('client') or {}).get('link_mbps') or (record.get('server') or {}).get('link_mbps')
    out['ceiling_mbps'] = goodput_ceiling(mtu, link, protocol)
    out['ceiling_tbf_mbps'] = goodput_ceiling(mtu, link, protocol, 'tbf')
    tcp = samples.get('tcp')

    def done(name, evidence):
        out.update(verdict=name, evidence=evidence)
        return out

    # a UDP bitrate is per stream (tool.udp_bitrate_errors): the test's target is the streams' sum
    per_stream = (record.get('options') or {}).get('bitrate') if protocol == 'udp' else None
    target = float(per_stream) * (record.get('parallel') or 1) if per_stream else None
    if rate is None:
        return done('unknown', 'no throughput in Mbit/s to judge (%s)' % (record.get('primary') or 'no primary metric'))
    if target and rate >= TARGET_SHARE * float(target):
        return done('target', 'UDP reached %.1f of its %.1f Mbit/s target (%.0f %%%s)' % (
            rate, target, 100 * rate / target, ', %s streams of %g' % (record['parallel'], float(per_stream))
            if (record.get('parallel') or 1) > 1 else ''))
    ceiling = out['ceiling_mbps']
    if ceiling and rate >= LINK_SHARE * ceiling:
        return done('link', '%.1f Mbit/s is %.0f %% of the goodput ceiling %.1f Mbit/s (%s Mbit/s at MTU %s; %.1f '
                            'with tbf framing)' % (rate, 100 * rate / ceiling, ceiling, link, mtu, out['ceiling_tbf_mbps']))
    nic = nic_verdict(samples)
    if nic:
        return done('nic', nic)
    lost = _metric(record, 'lost_percent')
    if protocol == 'udp' and lost is not None and lost >= LOSS_PCT:
        return done('loss', '%.2f %% of the datagrams were lost' % lost)
    # fewer segments than a data connection sends say nothing of loss (seen live: 1 of 5 retransmitted, 20 %,
    # called a cpu-bound test 'loss')
    if tcp and (tcp.get('data_segs_out') or 0) >= CONTROL_SEGMENTS \
            and 100.0 * tcp['retrans'] / tcp['data_segs_out'] >= LOSS_PCT:
        share = 100.0 * tcp['retrans'] / tcp['data_segs_out']
        retransmitted = '%d of %d segments retransmitted (%.2f %%)' % (tcp['retrans'], tcp['data_segs_out'], share)
        # a receiver whose saturated core could not take in what arrived (seen in CI: the cpu_server case's
        # 0.52 %): its CPU limited, the network lost (next to) nothing
        receiver = receiver_verdict(record, samples, tcp)
        if receiver:
            out.update(side=receiver['side'], core=receiver['core'], saturated=receiver['saturated'])
            return done('cpu', '%s; %s: %s' % (receiver['evidence'], retransmitted, receiver['account']))
        if tcp.get('dsack_dups'):
            retransmitted += '; the receiver reported %d of them as duplicates (D-SACK)' % tcp['dsack_dups']
        return done('loss', retransmitted)
    limited = max(tcp.get('rwnd_limited_pct') or 0, tcp.get('sndbuf_limited_pct') or 0) if tcp else 0
    rtt = (tcp or {}).get('minrtt_ms') or (samples.get('path_rtt') or {}).get('min_ms')
    bdp = int((ceiling or rate) * 1e6 / 8 * rtt / 1e3) if rtt else None
    windows = [w for w in (tcp or {}).get('snd_wnd') or [] if w]
    # limited most of the time, or for a while with a peer's window below the bandwidth-delay product
    if limited >= WINDOW_LIMITED_PCT or (limited >= WINDOW_SOME_PCT and bdp and windows and min(windows) < bdp):
        which = 'rwnd' if (tcp.get('rwnd_limited_pct') or 0) >= (tcp.get('sndbuf_limited_pct') or 0) else 'sndbuf'
        # the client sent against the server's window (ss samples the client's sockets): a server whose core
        # was saturated could not read fast enough and closed its window: its CPU, not the window, limited
        # (unless the test set its socket buffer: then that buffer is the window that limited)
        receiver = side_cpu_verdict(samples, 'server') if which == 'rwnd' and samples.get('server') and not (
            record.get('options') or {}).get('window') else None
        if receiver:
            out.update(side=receiver['side'], core=receiver['core'], saturated=receiver['saturated'])
            return done('cpu', '%s; the receiver could not keep up: its window limited the client %.0f %% of the busy '
                               'time (rwnd_limited)' % (receiver['evidence'], tcp['rwnd_limited_pct']))
        out['bdp_bytes'] = bdp
        return done('window', '%s limited %.0f %% of the busy time (%s); bandwidth-delay product %s bytes (%.1f Mbit/s x '
                              '%s ms) against a window of %s bytes' % (
                                  'the receive window' if which == 'rwnd' else 'the send buffer',
                                  tcp[which + '_limited_pct'], which + '_limited', bdp if bdp is not None else '?',
                                  ceiling or rate, rtt, '/'.join(str(w) for w in windows) or '?'))
    side = cpu_verdict(samples)
    if side:
        out.update(side=side['side'], core=side['core'], saturated=side['saturated'])
        return done('cpu', side['evidence'])
    why = []
    if not ceiling:
        why.append('the link speed or MTU is unknown (give link_mbps)')
    else:
        why.append('%.0f %% of the %.1f Mbit/s ceiling' % (100 * rate / ceiling, ceiling))
    why.append('no TCP state sampled' if protocol == 'tcp' and not tcp else '')
    for name, sampled in _sides(samples):
        core = _side_core(sampled.get('cpu'), sampled.get('process_cpu'))
        why.append('%s core %s %.0f %%' % (name, core['cpu'], core['busy']) if core else 'no %s CPU sampled' % name)
    why.extend(samples.get('not_sampled') or [])
    if not samples.get('server'):
        why.append('the server side is not sampled')
    return done('unknown', '; '.join(part for part in why if part))


def short(limited_by):
    """The verdict in a few words for a progress line or a table cell: "window", "cpu cpu0" (a client's core),
    "cpu server cpu1", "link"."""
    if not limited_by or not limited_by.get('verdict'):
        return ''
    name = limited_by['verdict']
    if name == 'cpu':
        core = limited_by.get('core') or (limited_by.get('cpu') or {}).get('busiest')
        side = 'server ' if limited_by.get('side') == 'server' else ''
        return 'cpu %s%s' % (side, core) if core else name
    return name
