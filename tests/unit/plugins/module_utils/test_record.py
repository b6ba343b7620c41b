# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import re

import pytest

from ansible_collections.perflab.network.plugins.module_utils.core import record as rec
from ansible_collections.perflab.network.plugins.module_utils.host.process import ProcessResult

PARAMS = {
    'server': '10.201.1.2', 'port': 5201, 'duration': 5, 'parallel': 4, 'processes': 1,
    'timeout': None, 'nic_interface': 'lo', 'bind': '10.201.1.1', 'run_id': 'R1',
    'config': 'Debian 12 stock', 'suite': 'phoronix', 'repetition': 2,
    'client_name': 'lab1', 'server_name': 'lab2',
}


def _proc(**kw):
    base = dict(argv=['iperf3', '-c', '10.201.1.2'], rc=0, stdout='OUT', stderr='', timed_out=False,
                started_at='2026-11-29T18:40:00.000Z', ended_at='2026-11-29T18:40:05.100Z', elapsed_s=5.1)
    base.update(kw)
    return ProcessResult(**base)


def test_new_record_fields():
    record = rec.new_record(PARAMS, 'iperf3', 'tcp_stream', 'tcp', 'client_to_server',
                            'iperf3/tcp_stream/parallel=4', options={'omit': 1}, client_mtu=65536)
    assert record['schema'] == rec.SCHEMA
    assert record['run_id'] == 'R1'
    assert record['config'] == 'Debian 12 stock'
    assert record['suite'] == 'phoronix'
    assert record['repetition'] == 2
    assert record['parallel'] == 4
    assert record['duration_s'] == 5.0
    assert record['options'] == {'omit': 1}
    assert record['client'] == {'name': 'lab1', 'address': '10.201.1.1', 'interface': 'lo', 'mtu': 65536}
    assert record['server'] == {'name': 'lab2', 'address': '10.201.1.2', 'interface': None, 'mtu': None}
    assert record['metrics'] == {} and record['intervals'] == [] and record['nic'] is None
    assert record['processes'] is None and record['status'] is None
    # host facts are passed in, never read: a record built elsewhere (the controller) has no MTU
    bare = rec.new_record(PARAMS, 'iperf3', 'tcp_stream', 'tcp', 'client_to_server', 'x')
    assert bare['client']['mtu'] is None


def test_new_record_defaults():
    record = rec.new_record({'server': 'srv', 'duration': 10}, 'nuttcp', 'tcp_stream', 'tcp',
                            'client_to_server', 'nuttcp/tcp_stream')
    assert re.match(r'^\d{8}T\d{6}Z-[0-9a-f]{4}$', record['run_id'])
    assert record['suite'] == 'adhoc'
    assert record['config'] == ''
    assert record['repetition'] == 1
    assert record['server']['name'] == 'srv'
    assert record['client']['name']  # host name


def test_new_record_rejects_bad_protocol_direction():
    with pytest.raises(ValueError):
        rec.new_record(PARAMS, 'iperf3', 'tcp_stream', 'sctp', 'client_to_server', 'x')
    with pytest.raises(ValueError):
        rec.new_record(PARAMS, 'iperf3', 'tcp_stream', 'tcp', 'sideways', 'x')


def test_add_metric():
    record = rec.new_record(PARAMS, 'iperf3', 'tcp_stream', 'tcp', 'client_to_server', 'x')
    assert rec.add_metric(record, 'throughput_mbps', '941.5') is True
    assert record['metrics']['throughput_mbps'] == {'value': 941.5, 'unit': 'Mbit/s', 'higher_is_better': True}
    rec.add_metric(record, 'retransmits', 3, 'count', False)
    assert record['metrics']['retransmits'] == {'value': 3.0, 'unit': 'count', 'higher_is_better': False}
    assert rec.add_metric(record, 'jitter_ms', None) is False
    assert 'jitter_ms' not in record['metrics']
    with pytest.raises(ValueError):
        rec.add_metric(record, 'throughput_mbps', 1, 'Gbit/s', True)
    with pytest.raises(ValueError):
        rec.add_metric(record, 'made_up_metric', 1)
    rec.add_metric(record, 'made_up_metric', 1, 'widgets', True)
    assert record['metrics']['made_up_metric']['unit'] == 'widgets'


def test_finish_record_ok():
    record = rec.new_record(PARAMS, 'iperf3', 'tcp_stream', 'tcp', 'client_to_server', 'x')
    rec.add_metric(record, 'throughput_mbps', 900)
    rec.set_primary(record, 'throughput_mbps')
    rec.finish_record(record, _proc(stderr='warn'), 'ok', error='ignored')
    assert record['status'] == 'ok' and record['error'] is None
    assert record['started_at'] == '2026-11-29T18:40:00.000Z'
    assert record['ended_at'] == '2026-11-29T18:40:05.100Z'
    assert record['command'] == ['iperf3', '-c', '10.201.1.2']
    assert record['commands'] == [['iperf3', '-c', '10.201.1.2']]
    assert record['raw'] == 'OUT\nwarn'


def test_finish_record_ok_without_primary_becomes_failed():
    record = rec.new_record(PARAMS, 'iperf3', 'tcp_stream', 'tcp', 'client_to_server', 'x')
    rec.set_primary(record, 'throughput_mbps')
    rec.finish_record(record, _proc(), 'ok')
    assert record['status'] == 'failed'
    assert 'throughput_mbps' in record['error']


def test_finish_record_failed_and_skipped():
    record = rec.new_record(PARAMS, 'iperf3', 'tcp_stream', 'tcp', 'client_to_server', 'x')
    rec.set_commands(record, [['a', '1'], ['a', '2']])
    rec.finish_record(record, None, 'skipped', error='check mode')
    assert record['status'] == 'skipped' and record['error'] == 'check mode'
    assert record['command'] == ['a', '1'] and record['commands'] == [['a', '1'], ['a', '2']]
    assert record['started_at'] and record['ended_at']
    with pytest.raises(ValueError):
        rec.finish_record(record, None, 'great')


def test_bound_raw_keeps_head_and_tail():
    text = 'HEAD' + 'x' * 200000 + 'TAIL'
    bounded = rec.bound_raw(text)
    assert len(bounded) == rec.RAW_LIMIT
    assert bounded.startswith('HEAD') and bounded.endswith('TAIL')
    assert 'characters cut' in bounded
    assert rec.bound_raw('short') == 'short'


def test_add_nic_and_process():
    record = rec.new_record(PARAMS, 'iperf3', 'tcp_stream', 'tcp', 'client_to_server', 'x')
    rec.add_nic(record, {'interface': 'lo', 'samples': [], 'rx_mbps': 10.5, 'tx_mbps': None})
    assert record['metrics']['nic_rx_mbps']['value'] == 10.5
    assert 'nic_tx_mbps' not in record['metrics']
    rec.add_process(record, 5201, {'throughput_mbps': rec.metric(1, 'Mbit/s', True)})
    assert record['processes'] == [{'port': 5201, 'status': 'ok', 'error': None,
                                    'metrics': {'throughput_mbps': {'value': 1.0, 'unit': 'Mbit/s',
                                                                    'higher_is_better': True}}}]


def test_metrics_table_matches_doc():
    assert rec.METRICS['throughput_mbps'] == ('Mbit/s', True, 'sum')
    assert rec.METRICS['latency_us_p99'] == ('us', False, 'max')
    assert rec.METRICS['transactions_per_s'] == ('1/s', True, 'sum')
    assert rec.METRICS['packets'] == ('count', True, 'sum')
    assert rec.METRICS['lost_packets'] == ('count', False, 'sum')
    assert all(rule in rec.COMBINE_RULES for _unit, _better, rule in rec.METRICS.values())


def test_combine_metrics():
    combined = rec.combine_metrics([
        {'throughput_mbps': 100.0, 'retransmits': 1.0, 'jitter_ms': 0.2, 'lost_packets': 1.0, 'packets': 100.0,
         'lost_percent': 1.0, 'cpu_local_pct': 10.0},
        {'throughput_mbps': 50.0, 'retransmits': 2.0, 'jitter_ms': 0.4, 'lost_packets': 9.0, 'packets': 900.0,
         'lost_percent': 1.0},
    ])
    assert combined == {'throughput_mbps': 150.0, 'retransmits': 3.0, 'jitter_ms': pytest.approx(0.3),
                        'lost_packets': 10.0, 'packets': 1000.0, 'lost_percent': 1.0, 'cpu_local_pct': 10.0}
    # loss share weighted by packets, not a mean of percentages
    combined = rec.combine_metrics([{'lost_packets': 10.0, 'packets': 100.0, 'lost_percent': 10.0},
                                    {'lost_packets': 0.0, 'packets': 900.0, 'lost_percent': 0.0}])
    assert combined['lost_percent'] == 1.0
    assert rec.combine_metrics([]) == {}


def test_combine_intervals_by_index():
    got = rec.combine_intervals([
        [{'t': 1.0, 'throughput_mbps': 10.0}, {'t': 2.0, 'throughput_mbps': 20.0}],
        [{'t': 1.01, 'throughput_mbps': 1.0}, {'t': 2.01, 'throughput_mbps': 2.0}, {'t': 3.0, 'throughput_mbps': 3.0}],
        [],
    ])
    # t is the latest of the processes' samples: the combined sample is complete then
    assert got == [{'t': 1.01, 'throughput_mbps': 11.0}, {'t': 2.01, 'throughput_mbps': 22.0}]


def _throughput_record(direction, measured, rx, tx):
    record = rec.new_record({'run_id': 'r1', 'nic_interface': 'data0'}, 'iperf3', 'tcp_stream', 'tcp', direction,
                            'iperf3/tcp_stream/parallel=1')
    rec.set_primary(record, 'throughput_mbps')
    rec.add_metrics(record, {'throughput_mbps': measured})
    rec.add_nic(record, {'interface': 'data0', 'samples': [], 'rx_mbps': rx, 'tx_mbps': tx, 'window': [0, 1]})
    return record


def test_the_data_interface_counters_must_account_for_the_throughput():
    # the case: 15 Gbit/s measured over the management link, the data interface sent nothing
    problem = rec.nic_accounting_problem(_throughput_record('client_to_server', 15000.0, 0.0, 0.0))
    assert problem == ('the data interface data0 sent 0.0 Mbit/s while iperf3 measured 15000.0 Mbit/s (its counters '
                       'must account for at least 50%): the measured traffic did not cross the data interface (a wrong '
                       'path? check perflab_data_address and perflab_data_interface)')
    assert rec.nic_accounting_problem(_throughput_record('client_to_server', 940.0, 20.0, 960.0)) is None
    assert rec.nic_accounting_problem(_throughput_record('client_to_server', 940.0, 20.0, 400.0)) is not None
    assert rec.nic_accounting_problem(_throughput_record('server_to_client', 940.0, 955.0, 20.0)) is None
    assert 'received 20.0' in rec.nic_accounting_problem(_throughput_record('server_to_client', 940.0, 20.0, 955.0))
    assert rec.nic_accounting_problem(_throughput_record('bidirectional', 1800.0, 900.0, 900.0)) is None
    # too little to tell, or nothing sampled
    assert rec.nic_accounting_problem(_throughput_record('client_to_server', 0.5, 0.0, 0.0)) is None
    assert rec.nic_accounting_problem(_throughput_record('client_to_server', 900.0, None, None)) is None


def _late_window_record(tx_bytes_during_run):
    # the lab's case: iperf2 measured 1550 Mbit/s over 2 s, but exited 1 s late on a loaded host, so the window
    # ([1.058, 3.058]) missed the first second: 696.6 Mbit/s in it
    record = _throughput_record('client_to_server', 1550.0, 0.4, 696.6)
    record['nic']['window'] = [1.058, 3.058]
    record['nic']['samples'] = [{'t': 0.0, 'rx_bytes': 0, 'tx_bytes': 0},
                                {'t': 3.2, 'rx_bytes': 1000, 'tx_bytes': tx_bytes_during_run}]
    return record


def test_a_late_window_is_judged_on_the_whole_runs_bytes():
    # 387 MB crossed the interface during the run: the traffic took the data path
    assert rec.nic_accounting_problem(_late_window_record(387 * 10 ** 6)) is None
    # a wrong path: next to nothing crossed it over the whole run either
    assert 'sent 696.6 Mbit/s' in rec.nic_accounting_problem(_late_window_record(2 * 10 ** 6))


@pytest.mark.parametrize('tool, primary, unit', [
    ('ethr', 'throughput_mbps', 'Mbit/s'), ('iperf2', 'throughput_mbps', 'Mbit/s'),
    ('ethr', 'connections_per_s', '1/s'), ('netperf', 'transactions_per_s', '1/s')])
def test_a_rate_of_zero_is_a_failed_record(tool, primary, unit):
    # every tool: a test that moved nothing is no result, whatever its parser said
    record = rec.new_record(PARAMS, tool, 'tcp_stream', 'tcp', 'client_to_server', 'x')
    rec.add_metric(record, primary, 0.0)
    rec.set_primary(record, primary)
    rec.finish_record(record, _proc(), 'ok')
    assert record['status'] == 'failed'
    assert record['error'] == '%s measured %s = 0 %s: nothing reached the receiver' % (tool, primary, unit)
    assert record['metrics'] == {}


def test_a_small_rate_or_latency_of_zero_is_kept():
    record = rec.new_record(PARAMS, 'ethr', 'tcp_latency', 'tcp', 'client_to_server', 'x')
    rec.add_metric(record, 'latency_us_mean', 0.0)
    rec.set_primary(record, 'latency_us_mean')
    rec.finish_record(record, _proc(), 'ok')
    assert record['status'] == 'ok'


def test_values_are_kept_without_binary_noise():
    record = rec.new_record({'server': '10.0.0.1'}, 'ethr', 'connections', 'tcp', 'client_to_server', 'ethr/connections')
    rec.add_metric(record, 'connections_per_s', 8.12 * 1000)
    assert record['metrics']['connections_per_s']['value'] == 8120.0
    rec.set_intervals(record, [{'t': 1.0000000000000002, 'connections_per_s': 8119.999999999999, 'x': None},
                               {'t': 2, 'connections_per_s': 0.1 + 0.2}])
    assert record['intervals'] == [{'t': 1.0, 'connections_per_s': 8120.0, 'x': None},
                                   {'t': 2.0, 'connections_per_s': 0.3}]
    # what is not noise stays: small values, many digits
    assert rec.clean_number(1.23456789012e-7) == 1.23456789012e-7 and rec.clean_number(True) is True


# -- issue 29.11: a throughput far below the link is judged against the path -----------------------------------
def _far_record(measured, link):
    record = rec.new_record({'run_id': 'r1', 'nic_interface': 'data0', 'link_mbps': link}, 'iperf3', 'tcp_stream',
                            'tcp', 'client_to_server', 'iperf3/tcp_stream/parallel=1', client_mtu=1500)
    rec.set_primary(record, 'throughput_mbps')
    rec.add_metrics(record, {'throughput_mbps': measured})
    return record


def test_far_below_the_link():
    assert rec.far_below_link(_far_record(0.25, 10000)) == (0.25, 10000.0)
    assert rec.far_below_link(_far_record(100.0, 10000)) is None      # 1%: not far below
    assert rec.far_below_link(_far_record(0.25, None)) is None        # no link speed known: nothing judged
    record = _far_record(0.25, 10000)
    rec.set_primary(record, 'latency_us')
    assert rec.far_below_link(record) is None
    udp = rec.new_record({'run_id': 'r1', 'link_mbps': 10000}, 'iperf3', 'udp_stream', 'udp', 'client_to_server',
                         'iperf3/udp_stream/parallel=1')
    rec.set_primary(udp, 'throughput_mbps')
    rec.add_metrics(udp, {'throughput_mbps': 1.0})
    assert rec.far_below_link(udp) is None    # a UDP test sends at the rate asked


def test_far_below_the_link_verdicts():
    record = _far_record(0.15, 10000)
    error, note = rec.far_below_link_verdict(record, '10.0.1.2', 1500, False)
    assert note is None and error.startswith("iperf3 measured 0.15 Mbit/s, below 1% of the link's 10000 Mbit/s, and "
                                             "the path to 10.0.1.2 does not carry packets of the MTU")
    assert "don't-fragment ping of 1500 bytes got no answer (an MTU black hole" in error
    error, note = rec.far_below_link_verdict(record, '10.0.1.2', 1500, True)
    assert error is None and note.endswith("the path carries packets of the MTU (a don't-fragment ping of 1500 bytes "
                                           "to 10.0.1.2 was answered)")
    assert rec.far_below_link_verdict(record, '10.0.1.2', None, None) == (
        None, "iperf3 measured 0.15 Mbit/s, below 1% of the link's 10000 Mbit/s; the path MTU could not be checked")
