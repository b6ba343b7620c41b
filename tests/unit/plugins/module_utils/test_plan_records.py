# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

from ansible_collections.perflab.network.plugins.module_utils.plan import records as plan_records
from ansible_collections.perflab.network.plugins.module_utils.plan import suite

SUITE = {'name': 'x', 'tests': [{'tool': 'iperf3', 'test': 'tcp_stream', 'parallel': [1, 4]},
                                {'tool': 'ethr', 'test': ['latency', 'connections'], 'parallel': [8]}]}
HOSTS = {'lab1': {'data_address': '10.0.1.11', 'data_interface': 'data0'},
         'lab2': {'data_address': '10.0.1.12', 'data_interface': 'data0', 'peer': 'lab1'}}


def items():
    pairs = suite.make_pairs(HOSTS, servers=['lab1'], clients=['lab2'])
    planned, dummy = suite.build_plan(suite.expand_suite(SUITE), pairs, {'lab2': 'Debian 12 stock'})
    for item in planned:
        item.update(run_id='r1', suite='x')
    return planned


def test_a_failed_stage_leaves_a_failed_record_per_planned_test():
    reason = 'not run: the stage "Start the test servers" failed on lab2: port 5201 is already in use'
    out = plan_records.unrun_records(items(), reason)
    assert [r['test_id'] for r in out] == ['iperf3/tcp_stream/parallel=1', 'iperf3/tcp_stream/parallel=4',
                                           'ethr/tcp_latency/parallel=1', 'ethr/connections/parallel=8']
    for r in out:
        assert r['status'] == 'failed' and r['error'] == reason
        assert r['metrics'] == {} and r['run_id'] == 'r1' and r['config'] == 'Debian 12 stock'
        assert (r['client']['name'], r['server']['name']) == ('lab2', 'lab1')
    latency = out[2]
    assert latency['parallel'] == 1 and 'parallel 8 ignored' in latency['notes'][0]


def test_tests_that_have_a_record_are_left_out():
    planned = items()
    done = plan_records.unrun_records(planned[:2], 'x')
    out = plan_records.unrun_records(planned, 'stage failed', done=done)
    assert [r['test_id'] for r in out] == ['ethr/tcp_latency/parallel=1', 'ethr/connections/parallel=8']


def ok_record():
    record = plan_records.planned_record(items()[3], 'failed', 'x')
    record.update(status='ok', error=None, metrics={'connections_per_s': {'value': 10420.0},
                                                    'nic_tx_mbps': {'value': 1.5}})
    return record


def test_a_server_that_hit_its_limit_fails_the_record_and_says_so():
    servers = [{'tool': 'ethr', 'port': 8888, 'nofile': 1024,
                'log_problems': {'count': 5, 'lines': ['Error accepting new TCP connection: accept tcp '
                                                       '10.0.1.11:8888: accept4: too many open files']}}]
    record = ok_record()
    out = plan_records.server_verdict(record, servers)
    assert out['status'] == 'failed'
    assert out['error'].startswith('the ethr server hit its open-files limit (soft nofile 1024): 5 accept error(s)')
    assert out['notes'][-1].startswith('port 8888: the ethr server hit its open-files limit')
    # the values are what the tool printed: kept (the NIC rates not: it failed); the input is not changed
    assert out['metrics'] == {'connections_per_s': {'value': 10420.0}} and record['status'] == 'ok'


def test_a_clean_log_keeps_the_record_and_an_unread_one_says_so():
    clean = [{'tool': 'ethr', 'port': 8888, 'nofile': 1048576, 'log_problems': {'count': 0, 'lines': []}}]
    assert plan_records.server_verdict(ok_record(), clean)['status'] == 'ok'
    unread = plan_records.server_verdict(ok_record(), [], server_error='lab1 unreachable')
    assert unread['status'] == 'ok' and unread['notes'][-1] == 'the server log was not checked: lab1 unreachable'


def test_a_full_log_says_its_count_is_a_lower_bound_or_that_it_was_not_checked():
    # issue #29.2: a log at its bound loses what comes after; the record must not pass for checked
    line = 'Error accepting new TCP connection: accept tcp 10.0.1.11:8888: accept4: too many open files'
    full = [{'tool': 'ethr', 'port': 8888, 'nofile': 1024,
             'log_problems': {'count': 90200, 'lines': [line], 'full': True, 'size': 8388608}}]
    out = plan_records.server_verdict(ok_record(), full)
    assert out['status'] == 'failed'
    assert out['error'].startswith('the ethr server hit its open-files limit (soft nofile 1024): at least 90200 '
                                   'accept error(s)')
    assert 'port 8888: the server log was checked only in part: it reached its bound (8388608 bytes)' in out['notes'][0]
    unchecked = [{'tool': 'ethr', 'port': 8888, 'nofile': 1024,
                  'log_problems': {'count': 0, 'lines': [], 'full': True, 'size': 8388608}}]
    out = plan_records.server_verdict(ok_record(), unchecked)
    assert out['status'] == 'ok'
    assert out['notes'][-1].startswith('port 8888: the server log was not checked: it reached its bound')


# -- a host that failed before the tests (issue 29.9): its pair is left out, recorded failed ---------------
FOUR = dict(HOSTS, lab3={'data_address': '10.0.1.13', 'data_interface': 'data0'},
            lab4={'data_address': '10.0.1.14', 'data_interface': 'data0', 'peer': 'lab3'})


def test_a_failed_hosts_pair_takes_its_peers_label_and_the_reason():
    pairs = suite.make_pairs(FOUR, servers=['lab1', 'lab3'], clients=['lab2', 'lab4'])
    labels = {'lab1': 'Debian 12 stock', 'lab2': 'Debian 12 stock', 'lab4': 'Debian 12 stock'}
    failed = {'lab3': ''}
    with_failed = plan_records.failed_host_labels(labels, pairs, failed)
    assert with_failed == dict(labels, lab3='Debian 12 stock') and 'lab3' not in labels
    # neither end labelled: the run's one label, else a label that says so
    assert plan_records.failed_host_labels({'lab1': 'T', 'lab2': 'T'}, pairs, {'lab3': '', 'lab4': 'x'}) == \
        {'lab1': 'T', 'lab2': 'T', 'lab3': 'T', 'lab4': 'T'}
    assert plan_records.failed_host_labels({'lab1': 'T', 'lab2': 'U'}, pairs[1:], {'lab3': '', 'lab4': 'x'}) == \
        {'lab1': 'T', 'lab2': 'U', 'lab3': '(unlabelled: lab3 failed)', 'lab4': '(unlabelled: lab4 failed)'}
    planned, dummy = suite.build_plan(suite.expand_suite(SUITE), pairs, with_failed)
    lost = [item for item in planned if 'lab3' in (item['client'], item['server'])]
    assert len(lost) == 4 and len(planned) == 8
    reason = plan_records.host_failure(['lab3'], {'lab3': 'the MTU 9000 check to lab4 failed'}, lost[0])
    assert reason == ('not run: lab3 failed before the tests: the MTU 9000 check to lab4 failed; the pair '
                      'lab4->lab3 was left out, the other pairs ran')
    unknown = plan_records.host_failure(['lab3', 'lab4'], {'lab3': '', 'lab4': ''}, lost[0])
    assert 'lab3 failed before the tests (it failed or became unreachable in an earlier stage' in unknown
    assert 'lab4 failed before the tests' in unknown
    out = plan_records.planned_record(dict(lost[0], run_id='r1', suite='x'), 'failed', reason)
    assert (out['status'], out['error'], out['config']) == ('failed', reason, 'Debian 12 stock')


def test_one_call_finishes_the_records_of_a_loop_and_keeps_every_one():
    # bench_record with a loop's registered results: a test that returned a record is kept (not stored again),
    # one that failed before its tool ran gets a failed record, one whose host became unreachable gets none
    planned = items()
    ran = plan_records.planned_record(planned[0], 'failed', 'iperf3 exited 1')
    results = [{'item': planned[0], 'failed': True, 'msg': 'iperf3 exited 1', 'perflab_result': [ran]},
               {'item': planned[1], 'failed': True, 'msg': 'iperf3 has no option bogus'},
               {'item': planned[2], 'unreachable': True, 'msg': 'ssh: connection closed'},
               {'item': planned[3], 'changed': False, 'skipped': True, 'perflab_result': []}]
    new, finished = plan_records.finish(results=results)
    assert [(r['test_id'], r['status'], r['error']) for r in new] == [
        ('iperf3/tcp_stream/parallel=4', 'failed', 'the test did not start: iperf3 has no option bogus')]

    def slim(record):
        return dict((key, value) for key, value in record.items()
                    if key not in ('raw', 'intervals', 'nic', 'command', 'commands', 'processes'))
    assert finished == [slim(ran)] + [slim(record) for record in new] and 'raw' in new[0]


def test_a_failed_stage_finishes_only_what_the_run_has_no_record_of():
    # the rescue: the items minus the records the run kept (one list), each record once
    planned = items()
    kept = plan_records.finish(results=[{'item': planned[0], 'perflab_result': [ok_record_of(planned[0])]}])[1]
    new, finished = plan_records.finish(items=planned, reason='not run: x', done=kept)
    assert [r['test_id'] for r in new] == [item['test_id'] for item in planned[1:]]
    assert [r['test_id'] for r in finished] == [r['test_id'] for r in new] and all(r['error'] == 'not run: x' for r in new)


def test_a_held_record_is_stored_with_its_servers_verdict_and_kept():
    record = ok_record()
    new, finished = plan_records.finish(records=[record], servers=[], items=[])
    assert new == [record] and new[0] is not record and finished[0]['status'] == 'ok' and 'raw' not in finished[0]


def ok_record_of(item):
    record = plan_records.planned_record(item, 'failed', 'x')
    record.update(status='ok', error=None)
    return record


def test_held_records_take_the_server_sides_window_and_are_judged_again():
    from ansible_collections.perflab.network.plugins.module_utils.core import limits
    record = plan_records.planned_record(items()[0], 'failed', 'x')
    record.update(status='ok', error=None, primary='throughput_mbps', started_at='2026-12-03T11:20:00.000Z',
                  ended_at='2026-12-03T11:20:03.000Z', metrics={'throughput_mbps': {'value': 900.0, 'unit': 'Mbit/s'}})
    record['server'].update(interface=None, mtu=None)
    record['limited_by'] = limits.verdict(record, {'not_sampled': []})
    assert record['limited_by']['verdict'] == 'unknown' and 'server side is not sampled' in record['limited_by']['evidence']
    start = limits.epoch_of(record['started_at'])

    def sample(t, user, idle, drops):
        stat = dict(dict.fromkeys(limits.PROC_STAT_FIELDS, 0), user=user, softirq=user, idle=idle)
        return {'t': start + t, 'cpu': {'cpu0': stat}, 'drops': {'rx_dropped': drops}, 'packets': 1000 * int(t),
                'procs': {'77': [10 * int(t), 0]}}
    sampled = {'interface': 'data0', 'mtu': 1500, 'link_mbps': 10000.0,
               'series': [sample(0.5, 0, 0, 0), sample(1.5, 50, 0, 0), sample(2.5, 100, 0, 0)]}
    new, _finished = plan_records.finish(records=[record], sampled={record['server']['name']: sampled})
    out = new[0]
    assert (out['server']['interface'], out['server']['mtu'], out['server']['link_mbps']) == ('data0', 1500, 10000.0)
    limited = out['limited_by']
    assert (limited['verdict'], limited['side'], limited['core']) == ('cpu', 'server', 'cpu0')
    assert limited['server']['window'] == [start + 0.5, start + 2.5] and limited['server']['process_cpu'] == 'cpu0'
    # a server whose OS has no sampler (FreeBSD, Windows): its facts and what was not sampled
    freebsd = {'interface': 'vtnet1', 'not_sampled': ['FreeBSD: the server side is not sampled']}
    record['server'].update(interface=None, mtu=None)
    out = plan_records.finish(records=[record], sampled={record['server']['name']: freebsd})[0][0]
    assert out['server']['interface'] == 'vtnet1' and out['limited_by']['verdict'] == 'unknown'
    assert 'FreeBSD: the server side is not sampled' in out['limited_by']['not_sampled']
    # no samples of the server (another server's name): the record as it was
    assert plan_records.finish(records=[record], sampled={'elsewhere': sampled})[0][0]['limited_by'] == record['limited_by']


def test_stored_records_get_amendments_the_store_puts_into_them():
    from ansible_collections.perflab.network.plugins.module_utils.core import limits
    from ansible_collections.perflab.network.plugins.module_utils.report import store
    record = plan_records.planned_record(items()[0], 'failed', 'x')
    record.update(status='ok', error=None, primary='throughput_mbps', started_at='2026-12-03T11:20:00.000Z',
                  ended_at='2026-12-03T11:20:03.000Z', metrics={'throughput_mbps': {'value': 900.0, 'unit': 'Mbit/s'}})
    record['limited_by'] = limits.verdict(record, {'not_sampled': []})
    other = dict(record, server=dict(record['server'], name='elsewhere'))
    start = limits.epoch_of(record['started_at'])
    stat = dict.fromkeys(limits.PROC_STAT_FIELDS, 0)
    series = [{'t': start + t, 'cpu': {'cpu0': dict(stat, user=10 * t, idle=100 * t)}, 'drops': {'rx_dropped': 0},
               'packets': 0, 'procs': {}} for t in (0.5, 1.5, 2.5)]
    sampled = {record['server']['name']: {'interface': 'data0', 'mtu': 9000, 'link_mbps': 10000.0, 'series': series}}
    lines, finished = plan_records.finish(records=[record, other], sampled=sampled, amend=True)
    # the role has the records already: nothing finished; the server that was not sampled: no amendment
    assert finished == [] and len(lines) == 1 and lines[0]['schema'] == 'perflab.amendment/1' and 'metrics' not in lines[0]
    assert (lines[0]['server']['interface'], lines[0]['server']['mtu']) == ('data0', 9000)
    assert lines[0]['limited_by']['server']['cpu']['busiest'] == 'cpu0'
    # the stored record as the store reads it with its amendment, and the caller's copy untouched
    read = [obj for kind, obj in store.RecordList([record, other] + lines)]
    assert read[0]['server']['mtu'] == 9000 and read[0]['metrics'] == record['metrics'] and read[1] == other
    assert record['server']['mtu'] is None
