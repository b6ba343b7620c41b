# -*- coding: utf-8 -*-
# Copyright: perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The fleet matrix: senders as rows, receivers as columns, one per test and metric (pure).

Each cell is the median of a pair's ok values. Each host has a median out (its row) and in (its column);
a host whose median is worse than the fleet's median of those medians by more than ``k`` median absolute
deviations is flagged (slow outbound, slow inbound; worse is lower for a metric where higher is better).
The MAD has a floor of ``MAD_FLOOR`` of the fleet median, so that a fleet of nearly equal hosts flags
no host over noise. A host with records but none ok is unreachable. For a flagged host the likely
cause is what its Systems data (the data NIC's facts) says that the majority of hosts does not.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

from ansible_collections.perflab.network.plugins.module_utils.core import record as records

DEFAULT_K = 3.0
# the MAD's floor, a share of the fleet median: with k = 3 a host must be 15 % below the fleet to be flagged
# (measured: on the 2-core lab under load, healthy hosts of one shaped rate came out up to 7 % below it)
MAD_FLOOR = 0.05
NO_DIFFERENCE = 'no configuration difference found'
# a cell between hosts of two AWX job slices, each planned inside its slice: no slice ran that test (not a zero)
NOT_MEASURED_SLICES = 'not measured (slices %s and %s)'
# the data NIC's facts compared with the majority's, in the order a cause names them
CAUSE_FIELDS = (('speed_mbps', 'link speed'), ('mtu', 'MTU'), ('driver', 'driver'),
                ('firmware_version', 'firmware'), ('qdisc', 'qdisc'), ('numa_node', 'NUMA node of the NIC'),
                ('bond_members', 'bond members up'), ('offloads', 'offloads'))


def median(values):
    values = sorted(values)
    if not values:
        return None
    mid = len(values) // 2
    return values[mid] if len(values) % 2 else (values[mid - 1] + values[mid]) / 2.0


def _value(record, metric):
    value = (record.get('metrics') or {}).get(metric)
    if isinstance(value, dict):
        value = value.get('value')
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def _name(side):
    return (side or {}).get('name') if isinstance(side, dict) else side


def host_facts(systems):
    """host -> the facts a cause compares, from the Systems records (the last one of each host)."""
    out = {}
    for profile in systems or ():
        host = profile.get('host')
        if not host:
            continue
        network = profile.get('network') or {}
        bond = network.get('bond') or None
        facts = dict((key, network.get(key)) for key, dummy in CAUSE_FIELDS
                     if key not in ('bond_members', 'offloads'))
        facts['bond_members'] = len(bond.get('members') or []) if isinstance(bond, dict) else None
        offloads = network.get('offloads')
        facts['offloads'] = dict(offloads) if isinstance(offloads, dict) else None
        out[host] = facts
    return out


def _majority(values):
    counts = {}
    for value in values:
        key = repr(value)
        counts[key] = counts.get(key, (value, 0))
        counts[key] = (value, counts[key][1] + 1)
    if not counts:
        return None, 0
    return max(counts.values(), key=lambda vc: vc[1])


def likely_cause(host, facts):
    """What ``host``'s facts say that the majority's do not, as text; NO_DIFFERENCE when nothing."""
    mine = facts.get(host)
    others = [f for h, f in facts.items() if h != host]
    if not mine or not others:
        return NO_DIFFERENCE + (' (no Systems data of %s)' % host if not mine else '')
    found = []
    for key, label in CAUSE_FIELDS:
        if key == 'offloads':
            theirs = [f.get('offloads') or {} for f in others]
            differ = []
            for feature in sorted(mine.get('offloads') or {}):
                value, count = _majority([o.get(feature) for o in theirs if feature in o])
                if count * 2 > len(others) and value != mine['offloads'][feature]:
                    differ.append('%s %s' % (feature, 'on' if mine['offloads'][feature] else 'off'))
            if differ:
                found.append('%s %s (the others: the opposite)' % (label, ', '.join(differ[:4])))
            continue
        value, count = _majority([f.get(key) for f in others])
        if count * 2 > len(others) and mine.get(key) != value and (mine.get(key) is not None or value is not None):
            own = mine.get(key) if mine.get(key) is not None else 'unknown'
            found.append('%s %s (the others: %s)' % (label, own, value if value is not None else 'unknown'))
    return '; '.join(found) if found else NO_DIFFERENCE


def left_out_reason(host, reasons):
    """Why a fleet left ``host`` out, from its tests' reasons (``<host> left out of the fleet: <why>``, plan/fleet.py);
    None when none says so."""
    marker = records.FLEET_LEFT_OUT % host
    for reason in reasons:
        at = (reason or '').find(marker)
        # the host's own name, not the end of a longer one
        if at < 0 or (at and reason[max(0, at - 2):at] != '; '):
            continue
        rest = reason[at + len(marker):]
        # a test of two hosts left out: the other host's reason follows after '; '
        other = rest.find(records.FLEET_LEFT_OUT % '')
        if other > 0:
            rest = rest[:rest.rfind('; ', 0, other)] if rest.rfind('; ', 0, other) > 0 else rest
        return rest.strip()
    return None


def slice_of_hosts(recs):
    """host -> the number of the AWX job slice it was in, from the records' ``fleet_slice`` (the slice's every
    host), for a run merged from slices planned inside each (``slice_scope=inside``); empty when not sliced."""
    out = {}
    for r in recs:
        piece = r.get('fleet_slice')
        if not isinstance(piece, dict) or piece.get('scope') != 'inside' or not piece.get('number'):
            continue
        for h in piece.get('hosts') or ():
            out.setdefault(h, piece['number'])
    return out


def build(results, systems=None, k=DEFAULT_K):
    """One matrix per (test id, primary metric) of the fleet's records: ``[{test_id, metric, unit,
    higher_is_better, hosts, cells: {sender: {receiver: median}}, counts, hosts_out, hosts_in, fleet_out,
    fleet_in, mad_out, mad_in, verdicts: {host: {verdict, slow_out, slow_in, cause, reason}}, k, slices:
    {host: slice number}, not_measured: {sender: {receiver: why}}}]``. A host left out of the fleet (its tests
    skipped saying why) is ``unreachable`` when it did not answer, else ``left out`` with the reason (a failed
    preflight); ``not_measured`` holds the cells between two AWX job slices that no slice ran."""
    k = float(k)
    facts = host_facts(systems)
    groups = {}
    for rec in results or ():
        test_id = rec.get('test_id')
        if not test_id:
            continue
        groups.setdefault(test_id, []).append(rec)
    out = []
    for test_id in sorted(groups):
        recs = groups[test_id]
        metric = next((r.get('primary') for r in recs if r.get('primary')), None)
        hosts = sorted(set(h for r in recs for h in (_name(r.get('client')), _name(r.get('server'))) if h))
        values, notok = {}, {}
        for r in recs:
            client, server = _name(r.get('client')), _name(r.get('server'))
            value = _value(r, metric) if metric and r.get('status') == 'ok' else None
            if value is None:
                for h in (client, server):
                    notok.setdefault(h, []).append(r.get('error') or r.get('status') or '')
                continue
            values.setdefault(client, {}).setdefault(server, []).append(value)
        if metric is None:
            continue
        # METRICS: name -> (unit, higher is better, combine rule)
        unit, higher = (records.METRICS.get(metric) or ('', True))[:2]
        cells = dict((s, dict((r, median(v)) for r, v in row.items())) for s, row in values.items())
        counts = dict((s, dict((r, len(v)) for r, v in row.items())) for s, row in values.items())
        hosts_out = dict((h, median(list(cells.get(h, {}).values()))) for h in hosts)
        hosts_in = dict((h, median([row[h] for row in cells.values() if h in row])) for h in hosts)
        slices = slice_of_hosts(recs)
        # a test between two AWX job slices planned inside each (slice_scope=inside): no slice ran it
        not_measured = dict((s, dict((r, NOT_MEASURED_SLICES % (slices[s], slices[r])) for r in hosts
                                     if r != s and r in slices and slices[r] != slices[s]
                                     and r not in cells.get(s, {})))
                            for s in hosts if s in slices)
        matrix = {'test_id': test_id, 'metric': metric, 'unit': unit, 'higher_is_better': higher,
                  'hosts': hosts, 'cells': cells, 'counts': counts, 'hosts_out': hosts_out, 'hosts_in': hosts_in,
                  'k': k, 'verdicts': {}, 'slices': slices,
                  'not_measured': dict((s, row) for s, row in not_measured.items() if row)}
        slow = {}
        for side, per_host in (('out', hosts_out), ('in', hosts_in)):
            known = [v for v in per_host.values() if v is not None]
            fleet = median(known)
            mad = median([abs(v - fleet) for v in known]) if known else None
            matrix['fleet_' + side] = fleet
            matrix['mad_' + side] = mad
            if fleet is None:
                continue
            spread = max(mad, abs(fleet) * MAD_FLOOR)
            for h, v in per_host.items():
                if v is not None and (fleet - v if higher else v - fleet) > k * spread:
                    slow.setdefault(h, []).append(side)
        for h in hosts:
            left_out = left_out_reason(h, notok.get(h) or [])
            if hosts_out.get(h) is None and hosts_in.get(h) is None:
                if left_out is not None and not left_out.startswith('unreachable'):
                    verdict = 'left out'
                else:
                    verdict = 'unreachable' if h in notok else 'no results'
            elif h in slow:
                verdict = 'slow ' + ' and '.join({'in': 'inbound', 'out': 'outbound'}[s] for s in sorted(slow[h]))
            else:
                verdict = 'healthy'
            matrix['verdicts'][h] = {
                'verdict': verdict, 'slow_out': 'out' in slow.get(h, []), 'slow_in': 'in' in slow.get(h, []),
                'cause': likely_cause(h, facts) if h in slow else None,
                'reason': (left_out or (notok.get(h) or [None])[0]) if verdict in ('unreachable', 'left out') else None}
        out.append(matrix)
    return out


def _fmt(value):
    return '-' if value is None else ('%.0f' % value if abs(value) >= 100 else '%.3g' % value)


NOT_MEASURED_NOTE = ('not measured: the two hosts were in different AWX job slices, each planned inside its slice '
                     '(slice_scope=inside), and no slice ran the test between them (not a zero)')


def _cell(m, sender, receiver):
    """A cell of the text view: the median, ``n/m`` for a test between two slices, ``-`` for none."""
    if receiver in (m.get('not_measured') or {}).get(sender, {}):
        return 'n/m'
    return _fmt(m['cells'].get(sender, {}).get(receiver))


def text(matrices):
    """The matrices as plain text: the grid, each host's medians and its verdict (and cause)."""
    lines = []
    for m in matrices:
        hosts = m['hosts']
        width = max([len(h) for h in hosts] + [8])
        lines.append('%s - %s (%s), senders down, receivers across; flagged: below the fleet median by more '
                     'than %g MADs' % (m['test_id'], m['metric'], m['unit'], m['k']))
        lines.append(' ' * width + ' ' + ' '.join(h.rjust(width) for h in hosts) + '  ' + 'out'.rjust(width))
        for s in hosts:
            row = [(_cell(m, s, r) if r != s else '').rjust(width) for r in hosts]
            lines.append(s.ljust(width) + ' ' + ' '.join(row) + '  ' + _fmt(m['hosts_out'].get(s)).rjust(width))
        lines.append('in'.ljust(width) + ' ' + ' '.join(_fmt(m['hosts_in'].get(r)).rjust(width) for r in hosts))
        if m.get('not_measured'):
            lines.append('n/m = ' + NOT_MEASURED_NOTE)
        for h in hosts:
            v = m['verdicts'][h]
            lines.append('%s: %s%s' % (h, v['verdict'], (' - likely cause: %s' % v['cause']) if v['cause'] else
                                       (((': %s' if v['verdict'] == 'left out' else ' (%s)') % v['reason'])
                                        if v.get('reason') else '')))
        lines.append('')
    return lines
