# -*- coding: utf-8 -*-
from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import itertools

import pytest

from ansible_collections.perflab.network.plugins.module_utils.plan import fleet
from ansible_collections.perflab.network.plugins.module_utils.plan import suite as s
from ansible_collections.perflab.network.plugins.filter.fleet_plan import fleet_plan
from ansible.errors import AnsibleFilterError


def names(n):
    return ['h%02d' % i for i in range(1, n + 1)]


def ordered_pairs(hosts):
    return sorted((a, b) for a in hosts for b in hosts if a != b)


@pytest.mark.parametrize('n', [2, 3, 4, 5, 6, 7, 8, 16, 31, 32])
def test_mesh_is_a_round_robin_tournament_each_way(n):
    pairings = fleet.circle_pairings(names(n))
    # N-1 pairings of N/2 pairs for even N; N pairings (one host idle) for odd N
    assert len(pairings) == (n - 1 if n % 2 == 0 else n)
    assert all(len(p) == n // 2 for p in pairings)
    met = sorted(tuple(sorted(pair)) for p in pairings for pair in p)
    assert met == sorted(itertools.combinations(names(n), 2))
    plan = fleet.plan_fleet(names(n), test_seconds=3)
    assert len(plan['rounds']) == 2 * len(pairings)
    assert fleet.check_rounds(plan['rounds']) == {}
    assert sorted((t['client'], t['server']) for t in plan['tests']) == ordered_pairs(names(n))
    assert plan['expected_s'] == 3 * len(plan['rounds'])


def test_six_hosts_five_pairings_of_three_pairs_each_way():
    plan = fleet.plan_fleet(names(6))
    rounds = plan['rounds']
    assert [len(r['tests']) for r in rounds] == [3] * 10
    # each pairing runs once as listed, then the other way round
    for first, second in zip(rounds[0::2], rounds[1::2]):
        assert [(t['server'], t['client']) for t in first['tests']] == [(t['client'], t['server']) for t in second['tests']]
    assert plan['summary'][0].startswith('fleet mesh over 6 host(s): 10 round(s), 30 test(s), 0 skipped')
    assert plan['summary'][1] == 'round 1: ' + ', '.join('%s->%s' % (t['client'], t['server']) for t in rounds[0]['tests'])


@pytest.mark.parametrize('n', [3, 4, 5, 6, 7])
def test_ring_each_host_with_its_neighbours_both_ways(n):
    hosts = names(n)
    plan = fleet.plan_fleet(hosts, schedule='ring')
    assert fleet.check_rounds(plan['rounds']) == {}
    want = sorted([(hosts[i], hosts[(i + 1) % n]) for i in range(n)] + [(hosts[(i + 1) % n], hosts[i]) for i in range(n)])
    assert sorted((t['client'], t['server']) for t in plan['tests']) == want
    # an even ring in 2 matchings, an odd one in 3; each both ways
    assert len(plan['rounds']) == (4 if n % 2 == 0 else 6)


@pytest.mark.parametrize('schedule,want', [('one_to_many', lambda h: [('h01', o) for o in h[1:]]),
                                           ('many_to_one', lambda h: [(o, 'h01') for o in h[1:]])])
def test_star_schedules_one_test_a_round(schedule, want):
    plan = fleet.plan_fleet(names(5), schedule=schedule, hub='h01')
    assert [[(t['client'], t['server']) for t in r['tests']] for r in plan['rounds']] == [[t] for t in want(names(5))]


def test_stress_runs_every_link_at_once_on_purpose():
    plan = fleet.plan_fleet(names(4), stress=True, test_seconds=5)
    assert len(plan['rounds']) == 1 and len(plan['tests']) == 12
    assert fleet.check_rounds(plan['rounds'])   # every host in many tests of the one round
    assert 'stress: every link at once' in plan['summary'][0] and plan['expected_s'] == 5


def test_a_host_left_out_has_its_tests_skipped_and_the_rest_goes_on():
    plan = fleet.plan_fleet(names(6), left_out={'h03': 'preflight: h03 cannot reach h01 over its data link',
                                                'h06': ''})
    assert plan['hosts'] == ['h01', 'h02', 'h04', 'h05']
    assert sorted((t['client'], t['server']) for t in plan['tests']) == ordered_pairs(plan['hosts'])
    assert len(plan['rounds']) == 6 and fleet.check_rounds(plan['rounds']) == {}
    skipped = dict(((t['client'], t['server']), t['reason']) for t in plan['skipped'])
    assert len(skipped) == 30 - 12
    assert skipped[('h01', 'h03')] == 'h03 left out of the fleet: preflight: h03 cannot reach h01 over its data link'
    assert skipped[('h06', 'h02')] == 'h06 left out of the fleet: ' + fleet.UNKNOWN_REASON
    assert '; ' in skipped[('h03', 'h06')]
    assert 'left out h03: preflight' in '\n'.join(plan['summary'])


@pytest.mark.parametrize('kwargs,message', [
    ({'schedule': 'tree'}, "unknown fleet schedule 'tree'"),
    ({'schedule': 'one_to_many'}, 'needs its hub'),
    ({'schedule': 'many_to_one', 'hub': 'h09'}, 'the hub h09 is not among'),
    ({'slice_scope': 'maybe', 'slice_number': 1, 'slice_count': 2}, 'slice_scope must be one of'),
])
def test_bad_schedules_are_refused(kwargs, message):
    with pytest.raises(fleet.FleetError, match=message):
        fleet.plan_fleet(names(4), **kwargs)


def test_one_host_is_no_fleet_but_one_left_of_two_records_every_test_skipped():
    with pytest.raises(fleet.FleetError, match='at least 2 hosts'):
        fleet.plan_fleet(names(1))
    plan = fleet.plan_fleet(names(2), left_out={'h02': 'unreachable'})
    assert plan['rounds'] == [] and len(plan['skipped']) == 2


def test_slices_are_cut_as_awx_cuts_an_inventory():
    fleet_hosts = ['h06', 'h01', 'h03', 'h02', 'h05', 'h04']
    assert fleet.slice_members(fleet_hosts, 1, 2) == ['h01', 'h03', 'h05']
    assert fleet.slice_members(fleet_hosts, 2, 2) == ['h02', 'h04', 'h06']
    assert fleet.slice_members(fleet_hosts, 3, 4) == ['h03']


def test_a_mesh_across_slices_is_refused_naming_the_tests():
    with pytest.raises(fleet.FleetError) as err:
        fleet.plan_fleet(['h01', 'h03', 'h05'], slice_number=1, slice_count=2, fleet=names(6))
    text = str(err.value)
    assert text.startswith('slice 1 of 2 holds h01, h03, h05, but the mesh schedule pairs them with hosts of other slices')
    assert 'perflab_fleet_slice_scope=inside' in text and 'h01: ' in text


def test_inside_a_slice_pairs_and_rounds_stay_in_it():
    for number in (1, 2):
        mine = fleet.slice_members(names(6), number, 2)
        plan = fleet.plan_fleet(mine, slice_number=number, slice_count=2, fleet=names(6), slice_scope='inside')
        assert set(h for t in plan['tests'] for h in (t['client'], t['server'])) == set(mine)
        assert sorted((t['client'], t['server']) for t in plan['tests']) == ordered_pairs(mine)
        assert plan['slice'] == {'number': number, 'count': 2, 'hosts': mine, 'scope': 'inside'}
        assert fleet.check_rounds(plan['rounds']) == {}


@pytest.mark.parametrize('number,count,fleet_hosts,play,message', [
    (0, 2, names(4), ['h01'], 'perflab_fleet_slice_number must be a whole number from 1'),
    (3, 2, names(4), ['h01'], 'is past perflab_fleet_slice_count 2'),
    (1, 2, [], ['h01'], 'needs perflab_fleet_hosts'),
    (1, 2, names(4), ['h01', 'h02'], 'the play holds h02, which slice 1 of 2'),
])
def test_bad_slices_are_refused(number, count, fleet_hosts, play, message):
    with pytest.raises(fleet.FleetError, match=message):
        fleet.plan_fleet(play, slice_number=number, slice_count=count, fleet=fleet_hosts, slice_scope='inside')


def test_plan_options_are_checked_and_round_seconds_count_every_test():
    tests = [{'duration': 2, 'repetitions': 1}, {'duration': 1, 'repetitions': 3}]
    assert fleet.round_seconds(tests, 2) == (2 + 2) + (1 + 2) * 3
    plan = fleet.plan_from_options({'schedule': 'mesh'}, names(4), {}, tests, 2)
    assert plan['expected_s'] == 6 * 13
    with pytest.raises(fleet.FleetError, match='unknown key'):
        fleet.plan_from_options({'schedul': 'mesh'}, names(4), {}, tests, 2)
    with pytest.raises(fleet.FleetError, match='perflab_fleet_stress must be true or false'):
        fleet.plan_from_options({'stress': 'yes'}, names(4), {}, tests, 2)
    with pytest.raises(fleet.FleetError, match='perflab_fleet_slice_count must be a whole number'):
        fleet.plan_from_options({'slice_number': 1, 'slice_count': 'two'}, names(4), {}, tests, 2)


def test_the_filter_exposes_the_plan():
    plan = fleet_plan(names(4), schedule='mesh', test_seconds=4)
    assert len(plan['rounds']) == 6
    with pytest.raises(AnsibleFilterError, match='fleet plan refused: unknown fleet schedule'):
        fleet_plan(names(4), schedule='star')


def test_rounds_reuse_a_servers_ports_and_check_overlaps_per_round():
    hosts = dict((h, {'data_address': '10.0.0.%d' % (i + 1)}) for i, h in enumerate(names(12)))
    plan = fleet.plan_fleet(names(12))
    rounds = dict(((t['client'], t['server']), t['round'] - 1) for t in plan['tests'])
    # 11 clients per server: more than MAX_PAIRS_PER_SERVER at once, but one per round
    pairs = s.make_pairs(hosts, explicit=[{'client': c, 'server': v} for c, v in rounds], slots=rounds)
    assert all(pair['index'] == 0 for pair in pairs)
    with pytest.raises(s.PlanError, match='at most 8 pairs'):
        s.make_pairs(hosts, explicit=[{'client': c, 'server': v} for c, v in rounds])
    for pair in pairs:
        pair['wave'] = rounds[(pair['client'], pair['server'])]
    tests = [{'tool': 'iperf3', 'test': 'tcp_stream', 'parallel': 1, 'processes': 1, 'duration': 1, 'repetitions': 1,
              'options': {}, 'test_id': 'iperf3/tcp_stream/parallel=1'}]
    items, dummy = s.build_plan(tests, pairs, {})
    servers = s.servers_needed(items, pairs)
    assert set(sv['wave'] for sv in servers) == set(range(22))
    s.check_port_overlaps(servers)   # one port per server, one round at a time
    for sv in servers:
        sv['wave'] = 0
    with pytest.raises(s.PlanError, match='both need tcp port 5201'):
        s.check_port_overlaps(servers)
    assert s.expected_duration(items) == 22 * (1 + s.TEST_OVERHEAD_S)


def test_a_slice_without_its_number_is_the_one_whose_hosts_the_play_holds():
    # AWX gives every slice's job the same variables: the slice's inventory says which slice it is
    for number in (1, 2):
        mine = fleet.slice_members(names(6), number, 2)
        plan = fleet.plan_from_options({'slice_count': 2, 'hosts': names(6), 'slice_scope': 'inside'}, mine, {}, [], 0)
        assert plan['slice']['number'] == number and plan['hosts'] == mine
    # a host of the slice left out (unreachable) still tells the slice
    plan = fleet.plan_fleet(['h02', 'h04'], slice_count=2, fleet=names(6), slice_scope='inside',
                            left_out={'h06': 'unreachable'})
    assert plan['slice']['number'] == 2 and [t['client'] for t in plan['skipped']].count('h06') == 2
    with pytest.raises(fleet.FleetError, match='which no slice of 2 of perflab_fleet_hosts'):
        fleet.plan_fleet(['h01', 'h02'], slice_count=2, fleet=names(6), slice_scope='inside')


def test_a_preflight_refusal_is_the_reason_of_the_skipped_tests():
    plan = fleet.plan_fleet(names(3), left_out={'h02': 'the preflight refused it: no folder /opt/x'})
    assert set(t['reason'] for t in plan['skipped']) == {'h02 left out of the fleet: the preflight refused it: no folder /opt/x'}
    assert 'left out h02: the preflight refused it: no folder /opt/x' in plan['summary']


def mesh_tests(hosts):
    return [tuple(t) for r in fleet.schedule_rounds(hosts) for t in r]


def preflight_of(client, hosts, unanswered=(), unconnected=(), path_problems=(), mtu_bad=()):
    """A bench_preflight result as the module returns it, for client's tests to every other host."""
    address = dict((h, '10.9.1.%d' % (i + 1)) for i, h in enumerate(hosts))
    return {
        'unanswered': [address[h] for h in unanswered],
        'unconnected': [{'address': address[h], 'port': 5201, 'server': h, 'outcome': 'timed out after 2 s'}
                        for h in unconnected],
        'path_problems': list(path_problems),
        'path_mtu': [{'address': address[h], 'interface': 'data0', 'mtu': 9000,
                      'answered': {'9000': h not in mtu_bad, '1500': True}} for h in hosts if h != client],
        'path_mtu_problems': ['the path to %s (%s) does not carry packets of the MTU of data0, 9000 bytes' % (h, address[h])
                              for h in mtu_bad],
    }, [{'client': client, 'server': h, 'server_address': address[h]} for h in hosts if h != client]


def test_a_host_whose_data_path_fails_with_every_peer_is_left_out_not_its_peers():
    hosts = names(6)
    preflights, pairs = {}, []
    for h in hosts:
        result, mine = preflight_of(h, hosts, unanswered=['h04'] if h != 'h04' else [x for x in hosts if x != h])
        preflights[h] = result
        pairs += mine
    checks = fleet.preflight_checks(preflights, pairs)
    assert checks['h01'] == {'own': [], 'peers': {'h04': 'no answer to ping from h01 to h04 (10.9.1.4) over the data link'}}
    out = fleet.preflight_left_out(checks, mesh_tests(hosts))
    assert list(out['hosts']) == ['h04'] and out['pairs'] == []
    assert out['hosts']['h04'] == ('failed the preflight: its data path failed with 5 of its 5 peers (h01, h02, h03, '
                                   'h05, h06); no answer to ping from h01 to h04 (10.9.1.4) over the data link')
    # the second plan: h04's tests skipped with that reason, the mesh among the five others
    plan = fleet.plan_fleet(hosts, left_out=out['hosts'])
    assert len(plan['tests']) == 20 and len(plan['skipped']) == 10
    assert all(t['reason'] == 'h04 left out of the fleet: ' + out['hosts']['h04'] for t in plan['skipped'])


def test_one_bad_link_between_good_hosts_is_skipped_alone_and_its_round_goes_on():
    hosts = names(4)
    preflights, pairs = {}, []
    for h in hosts:
        result, mine = preflight_of(h, hosts, unconnected=['h03'] if h == 'h01' else [])
        preflights[h] = result
        pairs += mine
    out = fleet.preflight_left_out(fleet.preflight_checks(preflights, pairs), mesh_tests(hosts))
    assert out['hosts'] == {}
    assert out['pairs'] == [{'client': 'h01', 'server': 'h03', 'reason': 'the preflight of h01->h03 failed: a firewall '
                             'keeps 10.9.1.3:5201 (timed out after 2 s) from h01'}]
    # in check mode no opening is applied: a port that does not answer leaves nothing out
    assert fleet.preflight_left_out(fleet.preflight_checks(preflights, pairs, connect=False), mesh_tests(hosts)) \
        == {'hosts': {}, 'pairs': []}
    plan = fleet.plan_fleet(hosts, skip_pairs=fleet.skip_pairs_of(out))
    assert ('h01', 'h03') not in [(t['client'], t['server']) for t in plan['tests']] and len(plan['tests']) == 11
    assert plan['skipped'] == [dict(out['pairs'][0])]
    assert len(plan['rounds']) == 6 and not fleet.check_rounds(plan['rounds'])
    assert 'skipped h01->h03: ' + out['pairs'][0]['reason'] in plan['summary']


def test_own_problems_and_mtu_black_holes_are_named():
    hosts = names(4)
    preflights, pairs = {}, []
    for h in hosts:
        result, mine = preflight_of(h, hosts, mtu_bad=['h02'] if h != 'h02' else [x for x in hosts if x != h],
                                    path_problems=['the data address 10.9.1.9 is not on this host'] if h == 'h03' else [])
        preflights[h] = result
        pairs += mine
    out = fleet.preflight_left_out(fleet.preflight_checks(preflights, pairs), mesh_tests(hosts))
    assert out['hosts']['h03'] == 'failed the preflight: the data address 10.9.1.9 is not on this host'
    # without h03, h02 fails with both its peers
    assert out['hosts']['h02'].startswith('failed the preflight: its data path failed with 2 of its 2 peers (h01, h04); '
                                          'the path to h02 (10.9.1.2) does not carry packets of the MTU of data0')
    assert out['pairs'] == []


def test_two_hosts_that_cannot_reach_each_other_blame_neither():
    out = fleet.preflight_left_out({'h01': {'own': [], 'peers': {'h02': 'no answer'}}}, mesh_tests(names(2)))
    assert out == {'hosts': {}, 'pairs': [{'client': 'h01', 'server': 'h02', 'reason': 'the preflight of h01->h02 failed: no answer'}]}


def test_a_second_plan_records_only_what_its_preflight_left_out():
    plan = fleet.plan_fleet(names(4), left_out={'h01': 'unreachable', 'h02': 'failed the preflight: x'},
                            skip_pairs={('h03', 'h04'): 'the preflight of h03->h04 failed: y'})
    left_out = {'hosts': {'h02': 'x'}, 'pairs': [{'client': 'h03', 'server': 'h04', 'reason': 'y'}]}
    new = fleet.preflight_new_skips(plan['skipped'], ['h01'], left_out)
    assert new == {('h02', 'h03'), ('h03', 'h02'), ('h02', 'h04'), ('h04', 'h02'), ('h03', 'h04')}


def test_the_preflight_filter_reads_the_modules_results():
    from ansible_collections.perflab.network.plugins.filter.fleet_preflight import fleet_preflight
    hosts = names(3)
    preflights, pairs = {}, []
    for h in hosts:
        result, mine = preflight_of(h, hosts, unanswered=['h03'] if h != 'h03' else ['h01', 'h02'])
        preflights[h] = result
        pairs += mine
    plan = {'pairs': pairs, 'fleet': fleet.plan_fleet(hosts)}
    assert list(fleet_preflight(preflights, plan)['hosts']) == ['h03']
    assert fleet_preflight({'h01': {'skipped': True}}, plan) == {'hosts': {}, 'pairs': []}
    with pytest.raises(AnsibleFilterError, match='fleet_preflight'):
        fleet_preflight({'h01': {'unconnected': [1]}}, plan)
