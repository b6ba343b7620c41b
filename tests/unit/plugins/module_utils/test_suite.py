# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json
import os

import pytest
import yaml

from ansible_collections.perflab.network.plugins.module_utils.plan import suite as s
from ansible_collections.perflab.network.plugins.module_utils.tools import registry
from ansible_collections.perflab.network.plugins.module_utils.plan import records as plan_records
from ansible_collections.perflab.network.plugins.module_utils.report import store

SUITES = os.path.join(os.path.dirname(__file__), '..', '..', '..', '..', 'roles', 'benchmark', 'files', 'suites')


def load(name):
    with open(s.find_suite(name, [SUITES])) as f:
        return yaml.safe_load(f)


HOSTS = {'lab1': {'data_address': '10.0.1.11', 'data_interface': 'data0'},
         'lab2': {'data_address': '10.0.1.12', 'data_interface': 'data0', 'peer': 'lab1'},
         'lab3': {'data_address': '10.0.1.13', 'data_interface': 'data0', 'peer': 'lab1'},
         'lab4': {'data_address': '10.0.1.14', 'data_interface': 'data0'}}


def test_phoronix_network_matches_the_seeds_matrix_test_for_test():
    # ../shared/reference/TOOLS.md, "The seeds' test matrix"
    expected = (
        # TCP ranked by the sender's count, as pts/iperf read it (test_seed_studies.py)
        ['iperf3/tcp_stream/reading=sender/parallel=%d' % p for p in (1, 5, 20)]
        + ['iperf3/udp_stream/bitrate=1000/parallel=%d' % p for p in (5, 10, 20)]
        + ['netperf/%s/parallel=1' % t for t in ('tcp_maerts', 'tcp_stream', 'tcp_rr', 'udp_rr', 'udp_stream', 'tcp_crr')]
        + ['nuttcp/tcp_stream/parallel=1']
        # the record's normalized test names, as the ethr module names them ad hoc
        # ethr 1.0 runs latency over one connection whatever -n says: the seeds' six are one test
        + ['ethr/tcp_latency/parallel=1']
        + ['ethr/connections/parallel=%d' % p for p in (1, 2, 8, 16, 32, 64)]
        + ['ethr/tcp_stream/parallel=%d' % p for p in (8, 64)]
        + ['ethr/udp_stream/parallel=8']
        + ['ethr/http_bandwidth/parallel=%d' % p for p in (1, 2)]
    )
    notes = []
    tests = s.expand_suite(load('phoronix-network'), notes=notes)
    assert [t['test_id'] for t in tests] == expected
    assert notes == ['ethr latency runs 1 connection(s) whatever parallel says: parallel 1, 2, 8, 16, 32, 64 '
                     'make one test, recorded with parallel 1']
    # each profile's own duration: pts/nuttcp -T30, pts/ethr -d 10s, the rest 60 s
    assert {(t['tool'], t['duration']) for t in tests} == {('iperf3', 60), ('netperf', 60), ('nuttcp', 30), ('ethr', 10)}
    assert {t['repetitions'] for t in tests} == {1}
    assert [t['optional'] for t in tests if t['test'] == 'http'] == [True, True]
    assert not any(t['optional'] for t in tests if t['test'] != 'http')


def test_osv_netperf_is_30s_five_runs():
    tests = s.expand_suite(load('osv-netperf'))
    assert [t['test_id'] for t in tests] == [
        'netperf/tcp_stream/parallel=1', 'netperf/tcp_maerts/parallel=1', 'netperf/tcp_rr/parallel=1',
        'netperf/udp_rr/parallel=1', 'iperf3/tcp_stream/parallel=1', 'iperf3/tcp_stream/parallel=4',
        'iperf3/tcp_stream/parallel=16']
    assert {(t['duration'], t['repetitions']) for t in tests} == {(30, 5)}


def test_quick_has_every_tool_and_short_tests():
    tests = s.expand_suite(load('quick'))
    assert {t['tool'] for t in tests} == set(registry.NAMES) == {'iperf3', 'iperf2', 'netperf', 'nuttcp', 'ethr', 'sockperf'}
    assert max(t['duration'] for t in tests) <= 5


def test_overrides_apply_to_every_test():
    tests = s.expand_suite(load('phoronix-network'), duration=5, repetitions=3, parallel=[2], tools=['iperf3'])
    assert [t['test_id'] for t in tests] == ['iperf3/tcp_stream/reading=sender/parallel=2',
                                             'iperf3/udp_stream/bitrate=1000/parallel=2']
    assert {(t['duration'], t['repetitions']) for t in tests} == {(5, 3)}


@pytest.mark.parametrize('suite, kwargs, message', [
    ({'name': 'x', 'tests': []}, {}, 'has no tests'),
    ({'name': 'x'}, {}, 'has no tests'),
    ({'name': 'x', 'tests': [{'tool': 'ping', 'test': 'x'}]}, {}, "unknown tool 'ping'"),
    ({'name': 'x', 'tests': [{'tool': 'iperf3', 'test': 'tcp_rr'}]}, {}, "unknown iperf3 test 'tcp_rr'"),
    ({'name': 'x', 'tests': [{'tool': 'iperf3', 'test': 'tcp_stream', 'parallel': 0}]}, {}, 'parallel must be from 1 to 128'),
    ({'name': 'x', 'tests': [{'tool': 'iperf3', 'test': 'tcp_stream', 'options': {'bitrate': 10}}]}, {}, 'bitrate applies to udp_stream only, not tcp_stream'),
    ({'name': 'x', 'tests': [{'tool': 'iperf3', 'test': 'tcp_stream', 'options': {'rm': 1}}]}, {}, "unknown iperf3 option 'rm'"),
    ({'name': 'x', 'tests': [{'tool': 'iperf3', 'test': 'tcp_stream', 'bogus': 1}]}, {}, "unknown key 'bogus'"),
    ({'name': 'x', 'tests': [{'tool': 'iperf3', 'test': 'tcp_stream'}]}, {'duration': 0}, 'duration must be from 1 to 3600'),
    ({'name': 'x', 'tests': [{'tool': 'iperf3', 'test': 'tcp_stream'}]}, {'repetitions': 101}, 'repetitions must be from 1 to 100'),
    ({'name': 'x', 'tests': [{'tool': 'iperf3', 'test': 'tcp_stream'}]}, {'tools': ['netperf']}, 'has no tests for tools netperf'),
    ({'name': 'x', 'tests': [{'tool': 'iperf3', 'test': ['tcp_stream', 'tcp_stream']}]}, {}, 'lists iperf3/tcp_stream/parallel=1 twice'),
])
def test_bad_suites_are_refused_with_the_field_named(suite, kwargs, message):
    with pytest.raises(s.PlanError, match=message.replace('(', r'\(').replace(')', r'\)')):
        s.expand_suite(suite, **kwargs)


def test_unknown_suite_lists_the_known_ones():
    known = 'jumbo-bond, osv-netperf, osv-netperf-udp, parallel-netperf, phoronix-network, quick'
    with pytest.raises(s.PlanError, match=r"unknown suite 'nope'; known suites: " + known):
        s.find_suite('nope', [SUITES])


@pytest.mark.parametrize('name, start', [
    ('quick;reboot', "suite name 'quick;reboot' is invalid"),
    ('quick; touch /tmp/x', 'suite file quick; touch /tmp/x does not exist'),
    ('$(reboot).yml', 'suite file $(reboot).yml does not exist'),
])
def test_bad_suite_names_say_what_a_suite_may_be(name, start):
    with pytest.raises(s.PlanError) as err:
        s.find_suite(name, [SUITES])
    message = str(err.value)
    assert message.startswith(start)
    assert message.endswith('the suite must be a suite name (jumbo-bond, osv-netperf, osv-netperf-udp, parallel-netperf, phoronix-network, quick; '
                            '1 to 64 letters, digits, _ . -, starting with a letter or a digit) or the path of a suite file (.yml)')


def test_pairs_from_groups_with_peers_and_ports_per_server_index():
    pairs = s.make_pairs(HOSTS, servers=['lab1'], clients=['lab2', 'lab3'])
    assert [(p['name'], p['index']) for p in pairs] == [('lab2->lab1', 0), ('lab3->lab1', 1)]
    assert pairs[0]['ports'] == {'iperf3': 5201, 'iperf2': 5401, 'netperf': 12865, 'nuttcp': 5000, 'ethr': 8888,
                                 'sockperf': 11111}
    assert pairs[1]['ports'] == {'iperf3': 5225, 'iperf2': 5425, 'netperf': 12889, 'nuttcp': 5024, 'ethr': 8912,
                                 'sockperf': 11135}
    assert pairs[0]['server_address'] == '10.0.1.11' and pairs[0]['client_address'] == '10.0.1.12'


def test_client_without_server_is_refused():
    with pytest.raises(s.PlanError, match='client lab4 has no server'):
        s.make_pairs(HOSTS, servers=['lab1', 'lab2'], clients=['lab4'])


def test_a_peer_left_out_by_limit_is_named_as_such():
    # issue 29.17: --limit to one host of a pair said "not in the inventory"
    run = dict((name, HOSTS[name]) for name in ('lab2',))
    with pytest.raises(s.PlanError) as err:
        s.make_pairs(run, servers=[], clients=['lab2'], inventory=sorted(HOSTS))
    assert 'server lab1 of the pair lab2 -> lab1 is in the inventory but not in this run (left out by --limit' in str(err.value)
    assert 'not in the inventory' not in str(err.value).replace('in the inventory but', '')
    with pytest.raises(s.PlanError, match="server 'lab9' of a pair is not in the inventory"):
        s.make_pairs(run, explicit=[{'client': 'lab2', 'server': 'lab9'}], inventory=sorted(HOSTS))
    # the other half: only the server in the run, no client left to pair
    with pytest.raises(s.PlanError, match=r'this run has only lab1 of the inventory \(--limit\?\): lab2, lab3, lab4 not in it'):
        s.make_pairs({'lab1': HOSTS['lab1']}, servers=['lab1'], clients=[], inventory=sorted(HOSTS))


@pytest.mark.parametrize('client, server', [('10.0.1.12', 'fd00::11'), ('fd00::12', '10.0.1.11')])
def test_a_pair_of_mixed_address_families_is_refused(client, server):
    # issue 29.17: an IPv4 client with an IPv6 server failed at run time with "Unknown error -9 ... a firewall drops"
    hosts = {'lab1': dict(HOSTS['lab1'], data_address=server), 'lab2': dict(HOSTS['lab2'], data_address=client)}
    with pytest.raises(s.PlanError) as err:
        s.make_pairs(hosts, servers=['lab1'], clients=['lab2'])
    assert 'pair lab2 -> lab1 mixes address families' in str(err.value)
    assert "perflab_data_address %s is IPv%d" % (client, 6 if ':' in client else 4) in str(err.value)


def test_mesh_is_every_ordered_pair():
    pairs = s.make_pairs(HOSTS, servers=['lab1', 'lab2'], clients=['lab3'], mesh=True)
    assert len(pairs) == 6 and {p['index'] for p in pairs} == {0, 1}


def test_explicit_pairs_sharing_an_iperf3_port_are_refused():
    explicit = [{'client': 'lab2', 'server': 'lab1', 'ports': {'iperf3': 5201}},
                {'client': 'lab3', 'server': 'lab1', 'ports': {'iperf3': 5201}}]
    with pytest.raises(s.PlanError, match='share iperf3 port 5201 on lab1'):
        s.check_explicit_ports(explicit)


def test_plan_resume_skips_recorded_ok_tests(tmp_path):
    tests = s.expand_suite(load('quick'), repetitions=2)
    pairs = s.make_pairs(HOSTS, servers=['lab1'], clients=['lab2'])
    labels = {'lab2': 'Debian 12 stock'}
    items, skipped = s.build_plan(tests, pairs, labels)
    assert skipped == 0 and len(items) == 2 * len(tests)
    path = tmp_path / 'run.jsonl'
    lines = []
    for item in items[:3]:
        lines.append(json.dumps({'schema': 'perflab.result/1', 'status': 'ok', 'config': 'Debian 12 stock',
                                 'client': {'name': 'lab2'}, 'server': {'name': 'lab1'},
                                 'test_id': item['test_id'], 'repetition': item['repetition']}))
    failed = dict(json.loads(lines[0]), status='failed', test_id=items[3]['test_id'], repetition=items[3]['repetition'])
    lines.append(json.dumps(failed))
    path.write_text('\n'.join(lines) + '\n{"schema": "perflab.result/1", "status": "o')  # cut mid-line
    done = s.recorded_keys(store.read_run(str(path)))
    again, skipped = s.build_plan(tests, pairs, labels, done)
    assert skipped == 3
    assert [i['test_id'] for i in again] == [i['test_id'] for i in items[3:]]
    # another label (the "tuned" half) has nothing recorded yet
    other, skipped = s.build_plan(tests, pairs, {'lab2': 'Debian 12 tuned'}, done)
    assert skipped == 0 and len(other) == len(items)


def test_the_records_of_a_pair_take_the_label_of_the_side_under_test():
    tests = s.expand_suite(load('quick'))
    pairs = s.make_pairs(HOSTS, servers=['lab1'], clients=['lab2'])
    labels = {'lab1': 'OSv 0.53 tuned-latency', 'lab2': 'Ubuntu 18.04 stock'}
    assert {i['config'] for i in s.build_plan(tests, pairs, labels, side='servers')[0]} == {'OSv 0.53 tuned-latency'}
    assert {i['config'] for i in s.build_plan(tests, pairs, labels, side='clients')[0]} == {'Ubuntu 18.04 stock'}
    assert {i['config'] for i in s.build_plan(tests, pairs, labels)[0]} == {'Ubuntu 18.04 stock / OSv 0.53 tuned-latency'}


def test_reversed_pairs_send_from_the_servers_side():
    pairs = s.make_pairs(HOSTS, servers=['lab1'], clients=['lab2'], reverse=True)
    assert [(p['client'], p['server'], p['server_address']) for p in pairs] == \
        [('lab1', 'lab2', HOSTS['lab2']['data_address'])]
    labels = {'lab1': 'OSv tuned-latency', 'lab2': 'Ubuntu 18.04 stock'}
    # the host under test (lab1, a server of the groups) is now the client: its label still names the records
    from ansible_collections.perflab.network.plugins.module_utils.plan import study
    items = s.build_plan(s.expand_suite(load('quick')), pairs, labels, side=study.flip_side('servers'))[0]
    assert {i['config'] for i in items} == {'OSv tuned-latency'}


def test_servers_needed_and_expected_duration():
    tests = s.expand_suite(load('quick'))
    pairs = s.make_pairs(HOSTS, servers=['lab1'], clients=['lab2', 'lab3'])
    items = s.build_plan(tests, pairs, {})[0]
    servers = s.servers_needed(items, pairs)
    assert [(x['pair'], x['tool'], x['port']) for x in servers if x['pair'] == 'lab3->lab1'] == [
        ('lab3->lab1', 'ethr', 8912), ('lab3->lab1', 'iperf2', 5425), ('lab3->lab1', 'iperf3', 5225),
        ('lab3->lab1', 'netperf', 12889), ('lab3->lab1', 'nuttcp', 5024),
        ('lab3->lab1', 'sockperf', 11135)]
    for server in servers:
        assert server['bench_server'] == {'tool': server['tool'], 'bind': server['server_address'],
                                          'port': server['port'], 'count': server['count']}
    # the firewall openings of each server: exactly its ports, scoped to the pair's client
    lab3 = dict((x['tool'], x['openings']) for x in servers if x['pair'] == 'lab3->lab1')
    assert lab3['iperf3'] == [{'port': 5225, 'end_port': 5225, 'protocol': 'tcp'},
                              {'port': 5225, 'end_port': 5225, 'protocol': 'udp'}]
    assert lab3['netperf'] == [{'port': 12889, 'end_port': 12889, 'protocol': 'tcp'},
                               {'port': 12890, 'end_port': 12890, 'protocol': 'tcp'},
                               {'port': 12890, 'end_port': 12890, 'protocol': 'udp'}]
    assert lab3['nuttcp'] == [{'port': 5024, 'end_port': 5024, 'protocol': 'tcp'},
                              {'port': 5025, 'end_port': 5025, 'protocol': 'tcp'},
                              {'port': 5025, 'end_port': 5025, 'protocol': 'udp'}]
    openings = s.firewall_openings(servers)
    assert list(openings) == ['lab1']
    assert {'peer': '10.0.1.13', 'port': 5225, 'end_port': 5225, 'protocol': 'udp'} in openings['lab1']
    assert all(rule['peer'] in ('10.0.1.12', '10.0.1.13') for rule in openings['lab1'])
    assert len(openings['lab1']) == len(set(tuple(sorted(rule.items())) for rule in openings['lab1']))
    # what the preflight connects to from each client: the TCP ports of its own servers only
    checks = s.connect_checks(servers)
    assert sorted(checks) == ['lab2', 'lab3']
    assert [c['port'] for c in checks['lab3']] == [8912, 5425, 5225, 12889, 12890, 5024, 5025, 11135]
    assert {c['address'] for c in checks['lab3']} == {'10.0.1.11'} and {c['server'] for c in checks['lab3']} == {'lab1'}
    per_pair = sum(t['duration'] + s.TEST_OVERHEAD_S for t in tests)
    assert s.expected_duration(items) == per_pair
    assert s.expected_duration(items, parallel_pairs=False) == 2 * per_pair


def lab_hosts(count, switches=None):
    """count hosts lab1..labN, even ones clients of the odd one before them; switches: name -> switch."""
    hosts = {}
    for i in range(1, count + 1):
        hosts['lab%d' % i] = {'data_address': '10.0.1.%d' % (10 + i), 'data_interface': 'data0',
                              'switch': (switches or {}).get('lab%d' % i)}
        if i % 2 == 0:
            hosts['lab%d' % i]['peer'] = 'lab%d' % (i - 1)
    return hosts


def group_pairs(hosts):
    names = sorted(hosts, key=lambda n: int(n[3:]))
    return s.make_pairs(hosts, servers=[n for n in names if 'peer' not in hosts[n]],
                        clients=[n for n in names if 'peer' in hosts[n]])


def test_pairs_run_side_by_side_unless_serialized():
    hosts = lab_hosts(8)
    pairs = group_pairs(hosts)
    assert s.schedule_waves(pairs, hosts) == {'lab2': 0, 'lab4': 0, 'lab6': 0, 'lab8': 0}
    assert {p['wave'] for p in pairs} == {0}


def test_serialized_pairs_on_one_unnamed_switch_run_one_after_another():
    hosts = lab_hosts(8)  # the lab: nobody names a switch, all share the one switch
    pairs = group_pairs(hosts)
    assert s.schedule_waves(pairs, hosts, serialize=True) == {'lab2': 0, 'lab4': 1, 'lab6': 2, 'lab8': 3}
    assert [p['switches'] for p in pairs] == [['']] * 4
    items = s.build_plan(s.expand_suite(load('quick')), pairs, {})[0]
    assert sorted({(i['client'], i['wave']) for i in items}) == [('lab2', 0), ('lab4', 1), ('lab6', 2), ('lab8', 3)]
    per_pair = sum(i['duration'] + s.TEST_OVERHEAD_S for i in items if i['client'] == 'lab2')
    assert s.expected_duration(items) == 4 * per_pair


def test_serialized_pairs_on_disjoint_switches_share_a_wave():
    switches = {'lab1': 'sw-a', 'lab2': 'sw-a', 'lab3': 'sw-a', 'lab4': 'sw-a',
                'lab5': 'sw-b', 'lab6': 'sw-b', 'lab7': 'sw-c', 'lab8': 'sw-b'}
    hosts = lab_hosts(8, switches)
    pairs = group_pairs(hosts)
    waves = s.schedule_waves(pairs, hosts, serialize=True)
    # lab2->lab1 on sw-a and lab6->lab5 on sw-b at once; lab4->lab3 (sw-a) and lab8->lab7 (sw-b, sw-c) next
    assert waves == {'lab2': 0, 'lab4': 1, 'lab6': 0, 'lab8': 1}
    assert [p['switches'] for p in pairs] == [['sw-a'], ['sw-a'], ['sw-b'], ['sw-b', 'sw-c']]
    items = s.build_plan(s.expand_suite(load('quick')), pairs, {})[0]
    per_pair = sum(i['duration'] + s.TEST_OVERHEAD_S for i in items if i['client'] == 'lab2')
    assert s.expected_duration(items) == 2 * per_pair


def test_a_pair_across_two_switches_waits_for_both():
    # lab4->lab3 crosses sw-a and sw-b: it cannot run with lab2->lab1 (sw-a) nor lab6->lab5 (sw-b)
    hosts = lab_hosts(6, {'lab1': 'sw-a', 'lab2': 'sw-a', 'lab3': 'sw-b', 'lab4': 'sw-a', 'lab5': 'sw-b', 'lab6': 'sw-b'})
    pairs = group_pairs(hosts)
    assert s.schedule_waves(pairs, hosts, serialize=True) == {'lab2': 0, 'lab4': 1, 'lab6': 0}


def test_a_client_keeps_all_its_pairs_in_one_wave():
    hosts = lab_hosts(4)
    pairs = s.make_pairs(hosts, explicit=[{'client': 'lab2', 'server': 'lab1'}, {'client': 'lab2', 'server': 'lab3'},
                                          {'client': 'lab4', 'server': 'lab3'}])
    assert s.schedule_waves(pairs, hosts, serialize=True) == {'lab2': 0, 'lab4': 1}
    assert [p['wave'] for p in pairs] == [0, 0, 1]
    # a client's pairs run one after another, also side by side with other clients
    items = s.build_plan(s.expand_suite(load('quick')), pairs, {})[0]
    assert s.expected_duration(items, parallel_pairs=False) == sum(i['duration'] + s.TEST_OVERHEAD_S for i in items)


def test_ethr_latency_parallel_list_is_one_test_with_parallel_one():
    suite = {'name': 'x', 'tests': [{'tool': 'ethr', 'test': 'latency', 'parallel': [1, 2, 8]},
                                    {'tool': 'ethr', 'test': 'connections', 'parallel': [1, 2, 8]}]}
    notes = []
    tests = s.expand_suite(suite, notes=notes)
    assert [(t['test_id'], t['parallel']) for t in tests] == [
        ('ethr/tcp_latency/parallel=1', 1), ('ethr/connections/parallel=1', 1),
        ('ethr/connections/parallel=2', 2), ('ethr/connections/parallel=8', 8)]
    assert len(notes) == 1 and 'parallel 1, 2, 8 make one test' in notes[0]
    # the plan item carries every value it stands for: the record's note names them all, as the plan's does
    assert [t['parallel_values'] for t in tests] == [[1, 2, 8], [1], [2], [8]]
    # without 1 in the list: still one test, with what ethr really runs
    only_eight = s.expand_suite({'name': 'y', 'tests': [{'tool': 'ethr', 'test': 'latency', 'parallel': [8]}]})
    assert [(t['test_id'], t['parallel']) for t in only_eight] == [('ethr/tcp_latency/parallel=1', 1)]


def test_a_suite_file_is_bounded(tmp_path):
    from ansible.module_utils.common.yaml import yaml_load
    bomb = tmp_path / 'bomb.yml'
    # nested aliases: 435 bytes that expand to 10**9 values
    lines = ['a0: &a0 [x, x, x, x, x, x, x, x, x, x]']
    for i in range(1, 9):
        lines.append('a%d: &a%d [%s]' % (i, i, ', '.join(['*a%d' % (i - 1)] * 10)))
    bomb.write_text('\n'.join(lines) + '\ntests: *a8\n')
    with pytest.raises(s.PlanError) as err:
        s.read_suite(str(bomb), yaml_load)
    assert str(err.value) == 'suite file %s expands to more than 20000 values (YAML aliases?): refused' % bomb
    big = tmp_path / 'big.yml'
    big.write_text('#' * (256 * 1024 + 1))
    with pytest.raises(s.PlanError, match='is 262145 bytes: a suite file may have at most 262144'):
        s.read_suite(str(big), yaml_load)
    broken = tmp_path / 'broken.yml'
    broken.write_text('tests: [\n  - {tool: iperf3\n' + 'x: y\n' * 50)
    with pytest.raises(s.PlanError) as err:
        s.read_suite(str(broken), yaml_load)
    assert str(err.value).startswith('cannot read the suite file %s: ' % broken) and '\n' not in str(err.value)


def test_pair_ports_and_port_clashes_are_caught_by_the_plan():
    with pytest.raises(s.PlanError) as err:
        s.check_explicit_ports([{'client': 'a', 'server': 'b', 'ports': {'iperf3': 70000, 'bogus': 1}}])
    assert str(err.value) == ('benchmark_pairs a->b: ports.iperf3 must be a port number from 1024 to 65000, got 70000; '
                              "benchmark_pairs a->b: ports names an unknown tool 'bogus' (allowed: ethr, iperf2, "
                              'iperf3, netperf, nuttcp, sockperf)')
    servers = [{'tool': 'iperf3', 'port': 6000, 'pair': 'a->b', 'server': 'b',
                'openings': [{'port': 6000, 'end_port': 6000, 'protocol': 'tcp'}]},
               {'tool': 'netperf', 'port': 5999, 'pair': 'a->b', 'server': 'b',
                'openings': [{'port': 5999, 'end_port': 6000, 'protocol': 'tcp'}]}]
    with pytest.raises(s.PlanError) as err:
        s.check_port_overlaps(servers)
    assert str(err.value) == ('on b, iperf3 port 6000 (pair a->b) and netperf port 5999 (pair a->b) both need tcp port '
                              '6000: give the pairs other ports')


def test_a_data_address_must_be_an_ip_address():
    with pytest.raises(s.PlanError) as err:
        s.make_pairs({'a': {'data_address': '10.0.0.1'}, 'b': {'data_address': 'lab2.example'}},
                     explicit=[{'client': 'a', 'server': 'b'}])
    assert str(err.value) == ("perflab_data_address of host b must be an IP address (the servers bind to it), "
                              "got 'lab2.example'")


def test_suite_options_are_typed_with_their_unit():
    errors = s.validate_suite({'name': 'x', 'tests': [{'tool': 'iperf3', 'test': 'udp_stream',
                                                       'options': {'bitrate': '1G'}}]})
    assert errors == ["suite test 1: iperf3 option bitrate must be a number from 0 to 1000000 "
                      "(Mbit/s per UDP stream (-b), 0 unlimited), got '1G'"]
    assert s.validate_suite({'name': '.hidden', 'tests': [{'tool': 'iperf3', 'test': 'tcp_stream'}]}) == [
        "suite: name must be 1 to 64 letters, digits, _ . -, starting with a letter or a digit (it names files), "
        "got '.hidden'"]


# -- resume: the run's file must hold what this plan asks for (issue 29.13) --------------------------
RESUME_SUITE = {'name': 'r', 'defaults': {'duration': 2},
                'tests': [{'tool': 'iperf3', 'test': 'tcp_stream'}, {'tool': 'netperf', 'test': 'tcp_stream'}]}


def recorded_run(suite=None, duration=None, pairs=None, status='ok', label='Debian 12 stock'):
    """The records a run of ``suite`` left (as bench_test writes them: options with the pair's ports)."""
    suite = suite or RESUME_SUITE
    pairs = pairs or s.make_pairs(HOSTS, servers=['lab1'], clients=['lab2'])
    items, dummy = s.build_plan(s.expand_suite(suite, duration=duration), pairs, {'lab2': label, 'lab1': label})
    out = []
    for item in items:
        rec = plan_records.planned_record(dict(item, options=item['tool_options']), 'failed', None, run_id='r1',
                                          suite_name=suite['name'])
        if status == 'ok':
            rec.update(status='ok', primary='throughput_mbps', metrics={'throughput_mbps': {'value': 900.0}})
        out.append(rec)
    return out


def plan_of(suite=None, duration=None, clients=('lab2',)):
    suite = suite or RESUME_SUITE
    return s.expand_suite(suite, duration=duration), s.make_pairs(HOSTS, servers=['lab1'], clients=list(clients))


def test_a_resume_with_the_same_parameters_matches_and_skips_what_is_done(tmp_path):
    path = tmp_path / 'r1.jsonl'
    store.append_records(str(path), recorded_run())
    recorded = store.read_run(str(path))
    tests, pairs = plan_of()
    assert s.resume_problems(tests, pairs, recorded, 'r') == []
    items, skipped = s.build_plan(tests, pairs, {'lab2': 'Debian 12 stock', 'lab1': 'Debian 12 stock'},
                                  s.recorded_keys(recorded))
    assert (items, skipped) == ([], 2)


def test_a_resume_with_another_duration_is_refused_naming_it():
    tests, pairs = plan_of(duration=5)
    problems = s.resume_problems(tests, pairs, recorded_run(), 'r')
    assert len(problems) == 1 and problems[0].startswith('duration: ')
    assert 'iperf3/tcp_stream/parallel=1 (2 s recorded, 5 s asked now)' in problems[0]


def test_a_resume_with_other_options_is_refused_naming_them():
    changed = {'name': 'r', 'defaults': {'duration': 2},
               'tests': [{'tool': 'iperf3', 'test': 'tcp_stream', 'options': {'connect_timeout': 5000}},
                         {'tool': 'netperf', 'test': 'tcp_stream'}]}
    tests, pairs = plan_of(changed)
    # an option that does not name the test (its id is the same): compared on its own
    problems = s.resume_problems(tests, pairs, recorded_run(), 'r')
    assert problems == ['options: iperf3/tcp_stream/parallel=1 (connect_timeout unset recorded, 5000 asked now)']
    # one that names it (omit): the test ids differ
    changed['tests'][0]['options'] = {'omit': 1}
    problems = s.resume_problems(*plan_of(changed), recorded=recorded_run(), suite_name='r')
    assert problems == ['tests: the run recorded iperf3/tcp_stream/parallel=1, which this run does not plan '
                        '(other options or tools?)']
    # the pair's own ports (netperf's pinned data port) are not a test parameter
    assert not [p for p in problems if 'data_port' in p]


def test_a_resume_with_another_suite_pairs_or_tests_is_refused():
    other = dict(RESUME_SUITE, name='other', tests=[{'tool': 'iperf3', 'test': 'tcp_stream', 'parallel': 4}])
    tests, pairs = plan_of(other, clients=('lab3',))
    problems = s.resume_problems(tests, pairs, recorded_run(), 'other')
    assert [p.split(':')[0] for p in problems] == ['suite', 'pairs', 'tests']
    assert problems[0] == 'suite: the run recorded suite r, this run asks for other'
    assert 'lab2->lab1' in problems[1] and 'lab3->lab1' in problems[1]
    assert 'iperf3/tcp_stream/parallel=1' in problems[2] and 'netperf/tcp_stream' in problems[2]


def test_failed_records_count_for_the_parameters_but_are_run_again():
    tests, pairs = plan_of(duration=5)
    assert s.resume_problems(tests, pairs, recorded_run(status='failed'), 'r')[0].startswith('duration: ')
    assert s.recorded_keys(recorded_run(status='failed')) == set()


def test_the_run_key_is_one_for_plan_items_and_records():
    rec = recorded_run()[0]
    pairs = s.make_pairs(HOSTS, servers=['lab1'], clients=['lab2'])
    items, dummy = s.build_plan(s.expand_suite(RESUME_SUITE), pairs, {'lab2': 'Debian 12 stock', 'lab1': 'Debian 12 stock'})
    assert plan_records.item_key(items[0]) == plan_records.record_key(rec) == \
        'Debian 12 stock|lab2|lab1|iperf3/tcp_stream/parallel=1|1'


def test_the_parts_of_a_study_under_one_run_id_are_checked_each_against_its_own_suite():
    # the OSv study: osv-netperf, then a second suite the other way round under the same run id
    udp = {'name': 'r-udp', 'defaults': {'duration': 2}, 'tests': [{'tool': 'netperf', 'test': 'udp_stream'}]}
    reversed_pairs = s.make_pairs(HOSTS, servers=['lab1'], clients=['lab2'], reverse=True)
    both = recorded_run() + recorded_run(udp, pairs=reversed_pairs)
    tests, pairs = s.expand_suite(udp), reversed_pairs
    # without run_suites the first part's records read as another study
    problems = s.resume_problems(tests, pairs, both, 'r-udp')
    assert [p.split(':')[0] for p in problems] == ['suite', 'pairs', 'tests']
    # named as a part of the run: only this suite's records are compared, and they match
    assert s.resume_problems(tests, pairs, both, 'r-udp', other_suites={'r'}) == []
    assert s.resume_problems(*plan_of(), recorded=both, suite_name='r', other_suites={'r-udp'}) == []
    # a part's own records are still checked: another duration of this suite is refused
    assert s.resume_problems(s.expand_suite(udp, duration=5), pairs, both, 'r-udp', other_suites={'r'})[0].startswith(
        'duration: ')
