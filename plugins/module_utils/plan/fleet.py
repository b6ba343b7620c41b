# -*- coding: utf-8 -*-
# Copyright: perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fleet schedules: which host tests which, in rounds in which no host takes part in two tests (pure).

A schedule names the directed tests (client -> server) of a fleet: ``mesh`` (every ordered pair),
``one_to_many`` (the hub sends to every other host), ``many_to_one`` (every other host sends to the hub)
and ``ring`` (each host with its neighbours, both directions). The tests run in rounds: a round holds
tests of disjoint hosts, so a host's link carries one test at a time. The mesh's rounds are a round-robin
tournament made by the circle method: N-1 pairings of N/2 pairs for even N (N pairings with one host idle
for odd N), and each pairing runs twice, once each way, so that a host is never client and server at once.
``stress`` puts every test into one round (every link at once), on purpose.

A host left out (unreachable, or failed its preflight) takes no place in the rounds; its tests are
returned as skipped with the reason, and the rounds are made among the others. The preflight runs after
the plan (it checks the planned paths and ports), so a fleet is planned twice when it fails somewhere:
``preflight_left_out`` blames a host whose own checks failed or whose data path failed with most of its
peers (the bad cable, NIC or switch port), and a single link that failed between hosts that are fine
otherwise is skipped alone (``skip_pairs``).

AWX job slicing gives each slice's playbook the hosts ``sorted(names)[number - 1::count]`` (AWX's
``subset=slice<number>of<count>``) and the same variables; the slice's number, when not given, is the one
whose hosts the play holds. A test whose two hosts are in different slices cannot run in either: the plan
is refused naming them, or (``slice_scope=inside``) the schedule is made inside the slice, and the tests
between slices are in no slice's plan (``crossing``: the merged matrix marks them not measured).
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

from ansible_collections.perflab.network.plugins.module_utils.core import record as records

SCHEDULES = ('mesh', 'one_to_many', 'many_to_one', 'ring')
SLICE_SCOPES = ('refuse', 'inside')
# a host that left the play without a stage saying why: it did not answer (unreachable), or a task failed
UNKNOWN_REASON = 'unreachable, or it failed an earlier stage'


# the reason of a host or a link the preflight left out
PREFLIGHT_FAILED = 'failed the preflight: %s'
PREFLIGHT_LINK = 'the preflight of %s->%s failed: %s'


class FleetError(ValueError):
    """A fleet schedule that cannot be made, found before anything runs."""


def circle_pairings(names):
    """The circle method's pairings of ``names``: N-1 lists of N/2 unordered pairs for even N, N lists with
    one host idle for odd N; every two hosts meet exactly once."""
    ring = list(names)
    if len(ring) < 2:
        return []
    if len(ring) % 2:
        ring.append(None)   # the idle host's partner
    n = len(ring)
    pairings = []
    for dummy in range(n - 1):
        pairs = []
        for i in range(n // 2):
            a, b = ring[i], ring[n - 1 - i]
            if a is not None and b is not None:
                pairs.append((a, b))
        pairings.append(pairs)
        # the first host stays, the others turn one place
        ring = [ring[0], ring[-1]] + ring[1:-1]
    return pairings


def _matchings(edges):
    """Unordered ``edges`` in matchings (no host twice in one), greedy in order (the ring, the star)."""
    out = []
    for a, b in edges:
        for match in out:
            if not any(x in pair for pair in match for x in (a, b)):
                match.append((a, b))
                break
        else:
            out.append([(a, b)])
    return out


def ring_edges(names):
    """The ring's unordered edges: each host with the next (the last with the first), for N >= 3."""
    if len(names) < 2:
        return []
    if len(names) == 2:
        return [(names[0], names[1])]
    return [(names[i], names[(i + 1) % len(names)]) for i in range(len(names))]


def schedule_rounds(names, schedule='mesh', hub=None, stress=False):
    """The rounds of ``schedule`` over ``names`` (in that order): a list of lists of (client, server)."""
    names = list(names)
    if schedule == 'mesh':
        pairings = circle_pairings(names)
    elif schedule == 'ring':
        # an even ring in 2 matchings, an odd one in 3
        edges = ring_edges(names)
        pairings = _matchings(edges[0::2] + edges[1::2])
    elif schedule in ('one_to_many', 'many_to_one'):
        others = [n for n in names if n != hub]
        if hub not in names:
            return []
        tests = [(hub, n) if schedule == 'one_to_many' else (n, hub) for n in others]
        # the hub is in every test: one test a round
        return [[t] for t in tests] if not stress else ([tests] if tests else [])
    else:
        raise FleetError('unknown fleet schedule %r (one of %s)' % (schedule, ', '.join(SCHEDULES)))
    # each pairing twice: first each pair as listed, then the other way round
    rounds = []
    for pairs in pairings:
        rounds.append(list(pairs))
        rounds.append([(b, a) for a, b in pairs])
    if stress:
        every = [t for r in rounds for t in r]
        return [every] if every else []
    return rounds


def slice_members(names, number, count):
    """The hosts of slice ``number`` (1-based) of ``count`` as AWX's job slicing cuts an inventory: its
    hosts in name order, every ``count``-th from the ``number``-th."""
    return sorted(names)[number - 1::count]


def slice_number_of(count, fleet, play_hosts):
    """The number of the slice of ``count`` whose hosts ``play_hosts`` are (AWX gives each slice's job the same
    variables and an inventory of that slice's hosts only, so the slice's inventory says which it is); None when
    no slice holds them all."""
    hosts = set(play_hosts)
    found = [n for n in range(1, count + 1) if hosts and hosts <= set(slice_members(fleet, n, count))]
    return found[0] if len(found) == 1 else None


def slice_problems(number, count, fleet, play_hosts):
    """What is wrong with a slice's variables, one message each."""
    problems = []
    for name, value in (('perflab_fleet_slice_number', number), ('perflab_fleet_slice_count', count)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            problems.append('%s must be a whole number from 1, got %r' % (name, value))
    if problems:
        return problems
    if number > count:
        problems.append('perflab_fleet_slice_number %d is past perflab_fleet_slice_count %d' % (number, count))
    if not fleet:
        problems.append('a sliced fleet needs perflab_fleet_hosts, every host of the fleet (a slice\'s inventory '
                        'holds only its own hosts)')
        return problems
    mine = slice_members(fleet, number, count)
    if set(play_hosts) - set(mine):
        problems.append('the play holds %s, which slice %d of %d of perflab_fleet_hosts does not (it holds %s)'
                        % (', '.join(sorted(set(play_hosts) - set(mine))), number, count, ', '.join(mine)))
    return problems


def plan_fleet(names, schedule='mesh', hub=None, stress=False, left_out=None, test_seconds=0,
               slice_number=None, slice_count=None, fleet=None, slice_scope='refuse', skip_pairs=None):
    """The fleet's plan: ``{schedule, stress, hosts, rounds, tests, skipped, left_out, expected_s, slice,
    summary}``.

    names: the hosts, in the order the schedule uses (sorted when the caller has no order);
    left_out: host -> reason (unreachable, failed preflight): its tests become ``skipped`` entries
    ``{client, server, reason}`` and the rounds are made among the others;
    test_seconds: what one round costs (its tests' durations and overheads), for ``expected_s``;
    slice_number/slice_count/fleet: an AWX slice of ``fleet`` (every host of the fleet): the schedule is
    made over the fleet and refused when a test crosses slices, or (``slice_scope=inside``) made over this
    slice's hosts only;
    skip_pairs: ``(client, server) -> reason``, single tests taken out of their rounds and skipped (a link
    that failed its preflight between hosts that are fine otherwise).
    """
    names = list(names)
    left_out = dict(left_out or {})
    skip_pairs = dict(skip_pairs or {})
    if schedule not in SCHEDULES:
        raise FleetError('unknown fleet schedule %r (one of %s)' % (schedule, ', '.join(SCHEDULES)))
    if slice_scope not in SLICE_SCOPES:
        raise FleetError('perflab_fleet_slice_scope must be one of %s, got %r' % (', '.join(SLICE_SCOPES), slice_scope))
    slice_info = None
    everyone = names
    if slice_count not in (None, '', 0) or slice_number not in (None, '', 0):
        if slice_number is None and isinstance(slice_count, int) and not isinstance(slice_count, bool) \
                and slice_count >= 1 and fleet:
            # not given: the slice whose hosts the play holds (the same variables reach every slice's job)
            slice_number = slice_number_of(slice_count, fleet, names + list(left_out))
            if slice_number is None:
                raise FleetError(
                    'the play holds %s, which no slice of %d of perflab_fleet_hosts (%s) holds all of: give '
                    'perflab_fleet_slice_number, or the fleet\'s every host as perflab_fleet_hosts'
                    % (', '.join(sorted(names + list(left_out))), slice_count, ', '.join(sorted(fleet))))
        problems = slice_problems(slice_number, slice_count, fleet, names + list(left_out))
        if problems:
            raise FleetError('; '.join(problems))
        mine = slice_members(fleet, slice_number, slice_count)
        slice_info = {'number': slice_number, 'count': slice_count, 'hosts': mine, 'scope': slice_scope}
        if slice_scope == 'refuse':
            everyone = list(fleet)
            outside = {}
            for client, server in [t for r in schedule_rounds(everyone, schedule, hub, stress) for t in r]:
                if (client in mine) != (server in mine):
                    outside.setdefault(client if client in mine else server, []).append('%s->%s' % (client, server))
            if outside:
                raise FleetError(
                    'slice %d of %d holds %s, but the %s schedule pairs them with hosts of other slices (%s): a '
                    'slice runs on its own controller and cannot reach them. Set perflab_fleet_slice_scope=inside to '
                    'make the schedule inside each slice, or run the fleet unsliced'
                    % (slice_number, slice_count, ', '.join(mine), schedule,
                       '; '.join('%s: %s' % (h, ', '.join(t[:3]) + (' ...' if len(t) > 3 else ''))
                                 for h, t in sorted(outside.items()))))
            everyone = mine
        else:
            everyone = [n for n in names if n in mine] + [n for n in left_out if n in mine and n not in names]
    if schedule in ('one_to_many', 'many_to_one'):
        if not hub:
            raise FleetError('the %s schedule needs its hub (perflab_fleet_hub)' % schedule)
        if hub not in everyone and hub not in left_out:
            raise FleetError('the hub %s is not among the fleet\'s hosts (%s)' % (hub, ', '.join(everyone)))
    everyone = [n for n in everyone if n not in left_out] + [n for n in everyone if n in left_out]
    present = [n for n in everyone if n not in left_out]
    if len(everyone) < 2:
        raise FleetError('a fleet needs at least 2 hosts, got %s' % (', '.join(everyone) or 'none'))
    # every test the whole schedule has; those of a host left out are skipped
    all_tests = [t for r in schedule_rounds(everyone, schedule, hub, stress) for t in r]
    skipped = []
    for client, server in all_tests:
        lost = [h for h in (client, server) if h in left_out]
        if lost:
            skipped.append({'client': client, 'server': server,
                            'reason': '; '.join(records.FLEET_LEFT_OUT % h + (left_out[h] or UNKNOWN_REASON)
                                                for h in lost)})
    rounds = schedule_rounds(present, schedule, hub if hub in present else None, stress)
    for client, server in [t for r in rounds for t in r if t in skip_pairs]:
        skipped.append({'client': client, 'server': server, 'reason': skip_pairs[(client, server)]})
    # a skipped link leaves its round one test shorter; a round left empty is no round
    rounds = [r for r in ([t for t in r if t not in skip_pairs] for r in rounds) if r]
    out_rounds = [{'round': i + 1, 'tests': [{'client': c, 'server': s} for c, s in tests]}
                  for i, tests in enumerate(rounds)]
    tests = [dict(t, round=r['round']) for r in out_rounds for t in r['tests']]
    expected = len(out_rounds) * int(test_seconds or 0)
    summary = ['fleet %s%s over %d host(s)%s: %d round(s), %d test(s), %d skipped; expected %d min %02d s'
               % (schedule, ' (stress: every link at once)' if stress else '', len(present),
                  ' (slice %d of %d)' % (slice_number, slice_count) if slice_info else '',
                  len(out_rounds), len(tests), len(skipped), expected // 60, expected % 60)]
    summary += ['round %d: %s' % (r['round'], ', '.join('%s->%s' % (t['client'], t['server']) for t in r['tests']))
                for r in out_rounds]
    summary += ['left out %s: %s' % (h, left_out[h] or UNKNOWN_REASON) for h in sorted(left_out)]
    summary += ['skipped %s->%s: %s' % (c, s, skip_pairs[(c, s)]) for c, s in sorted(skip_pairs)
                if c not in left_out and s not in left_out]
    return {'schedule': schedule, 'stress': bool(stress), 'hub': hub, 'hosts': present, 'rounds': out_rounds,
            'tests': tests, 'skipped': skipped, 'left_out': left_out, 'expected_s': expected,
            'slice': slice_info, 'summary': summary}


def check_rounds(rounds):
    """The hosts that take part in two tests of one round, per round: ``{round: [host, ...]}`` (empty: good)."""
    bad = {}
    for r in rounds:
        seen = []
        for t in r['tests']:
            for h in (t['client'], t['server']):
                if h in seen:
                    bad.setdefault(r['round'], []).append(h)
                seen.append(h)
    return bad


OPTION_KEYS = ('schedule', 'hub', 'stress', 'slice_number', 'slice_count', 'hosts', 'slice_scope')


def round_seconds(tests, overhead_s):
    """What one round costs: a pair runs every test of the suite (each repetition), one after another."""
    return sum((int(t.get('duration') or 0) + overhead_s) * int(t.get('repetitions') or 1) for t in tests)


def preflight_checks(preflights, pairs, connect=True):
    """What each client's preflight (``bench_preflight``'s result, host -> result) says, per host:
    ``{host: {'own': [message], 'peers': {server: message}}}``. ``own``: the host's own data address or
    routes are wrong; ``peers``: the servers it could not test (no ping answer over the data link, a path that
    drops packets of the MTU, a planned port a firewall drops; ports only with ``connect``, not in check mode,
    which applies no opening). ``pairs``: the plan's pairs (client, server, server_address)."""
    out = {}
    for host, result in sorted((preflights or {}).items()):
        result = result or {}
        names = dict((p['server_address'], p['server']) for p in pairs or () if p.get('client') == host)
        peers = {}

        def note(server, message):
            if server and server not in peers:
                peers[server] = message
        for address in result.get('unanswered') or ():
            note(names.get(address), 'no answer to ping from %s to %s (%s) over the data link'
                 % (host, names.get(address), address))
        mtu_messages = result.get('path_mtu_problems') or []
        for probe in result.get('path_mtu') or ():
            if (probe.get('answered') or {}).get(str(probe.get('mtu'))) is False:
                address = probe.get('address')
                message = next((m for m in mtu_messages if '(%s)' % address in m), None)
                note(names.get(address), message or 'the path from %s to %s does not carry packets of %s bytes'
                     % (host, address, probe.get('mtu')))
        if connect:
            lost = {}
            for entry in result.get('unconnected') or ():
                lost.setdefault(entry.get('server'), []).append('%s:%s (%s)' % (entry.get('address'), entry.get('port'),
                                                                                entry.get('outcome')))
            for server, ports in sorted(lost.items()):
                note(server, 'a firewall keeps %s from %s' % (', '.join(ports), host))
        own = list(result.get('path_problems') or [])
        if own or peers:
            out[host] = {'own': own, 'peers': peers}
    return out


def preflight_left_out(checks, tests):
    """The hosts and the links a fleet leaves out after its preflight: ``{'hosts': {host: reason}, 'pairs':
    [{client, server, reason}]}`` (lists and strings: it goes from a filter to the plan module).

    checks: ``preflight_checks``'s; tests: the planned ``(client, server)`` tests. A host whose own checks
    failed is left out. Then, one at a time, the host that failed with the largest share of its peers (at least
    two, and more than half of them: a host with a bad cable fails with every peer, each of its peers with
    one) is left out and the shares are counted again without it. A failed link left after that, between
    hosts that are fine otherwise, is skipped alone.
    """
    tests = [tuple(t) for t in tests or ()]
    hosts = dict((h, PREFLIGHT_FAILED % '; '.join(c['own'])) for h, c in sorted((checks or {}).items()) if c.get('own'))
    failed = dict(((client, server), message) for client, c in (checks or {}).items()
                  for server, message in (c.get('peers') or {}).items())
    while True:
        live = [t for t in tests if t[0] not in hosts and t[1] not in hosts]
        peers, bad = {}, {}
        for client, server in live:
            peers.setdefault(client, set()).add(server)
            peers.setdefault(server, set()).add(client)
            if (client, server) in failed:
                bad.setdefault(client, set()).add(server)
                bad.setdefault(server, set()).add(client)
        worst = sorted((-float(len(b)) / len(peers[h]), -len(b), h) for h, b in bad.items()
                       if len(b) >= 2 and 2 * len(b) > len(peers[h]))
        if not worst:
            break
        host = worst[0][2]
        first = failed[min(t for t in failed if host in t and t in live)]
        hosts[host] = PREFLIGHT_FAILED % ('its data path failed with %d of its %d peers (%s); %s'
                                          % (len(bad[host]), len(peers[host]), ', '.join(sorted(bad[host])), first))
    pairs = [{'client': c, 'server': s, 'reason': PREFLIGHT_LINK % (c, s, failed[(c, s)])} for c, s in sorted(tests)
             if (c, s) in failed and c not in hosts and s not in hosts]
    return {'hosts': hosts, 'pairs': pairs}


def skip_pairs_of(preflight):
    """``preflight_left_out``'s links as ``plan_fleet``'s ``skip_pairs``."""
    return dict(((p['client'], p['server']), p['reason']) for p in (preflight or {}).get('pairs') or ())


def preflight_new_skips(skipped, earlier, preflight):
    """The ``(client, server)`` tests of ``skipped`` (a second plan's skipped entries) that the preflight left
    out: a host or a link of ``preflight`` (``preflight_left_out``'s), and no host of ``earlier`` (left out by
    the first plan, which recorded those tests already)."""
    hosts = set((preflight or {}).get('hosts') or ())
    pairs = set(skip_pairs_of(preflight))
    return set((t['client'], t['server']) for t in skipped or ()
               if t['client'] not in (earlier or ()) and t['server'] not in (earlier or ())
               and (t['client'] in hosts or t['server'] in hosts or (t['client'], t['server']) in pairs))


def plan_from_options(options, names, left_out, tests, overhead_s, skip_pairs=None):
    """``plan_fleet`` from the benchmark plan's ``fleet`` option (its keys checked first)."""
    options = dict(options or {})
    unknown = sorted(set(options) - set(OPTION_KEYS))
    if unknown:
        raise FleetError('fleet: unknown key(s) %s (allowed: %s)' % (', '.join(unknown), ', '.join(OPTION_KEYS)))

    def number(key):
        value = options.get(key)
        if value in (None, '', 0, '0'):
            return None
        try:
            return int(str(value))
        except ValueError:
            raise FleetError('perflab_fleet_%s must be a whole number, got %r' % (key, value))

    if not isinstance(options.get('stress', False), bool):
        raise FleetError('perflab_fleet_stress must be true or false, got %r' % (options.get('stress'),))
    return plan_fleet(names, schedule=options.get('schedule') or 'mesh', hub=options.get('hub') or None,
                      stress=options.get('stress', False), left_out=left_out,
                      test_seconds=round_seconds(tests, overhead_s),
                      slice_number=number('slice_number'), slice_count=number('slice_count'),
                      fleet=list(options.get('hosts') or []), slice_scope=options.get('slice_scope') or 'refuse',
                      skip_pairs=skip_pairs)
