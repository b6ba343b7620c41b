# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""parse_sockperf and the sockperf tool file on real sockperf 3.7 output (tests/unit/fixtures/sockperf/3.7/)."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os

import pytest

from ansible_collections.perflab.network.plugins.module_utils.tools.sockperf import parse as p
from ansible_collections.perflab.network.plugins.module_utils.core import record as rec
from ansible_collections.perflab.network.plugins.module_utils.tools import registry
from ansible_collections.perflab.network.plugins.module_utils.plan import suite
from ansible_collections.perflab.network.plugins.module_utils.host.process import ProcessResult
from ansible_collections.perflab.network.plugins.module_utils.tools.sockperf import tool as sockperf_tool

FIXTURES = os.path.join(os.path.dirname(__file__), '..', '..', 'fixtures', 'sockperf', '3.7')
TOOL = registry.get('sockperf')


def fixture(name):
    with open(os.path.join(FIXTURES, name)) as handle:
        return handle.read()


def test_version_from_the_probe_and_from_the_client_banner():
    assert p.parse_version(fixture('version.txt')) == '3.7'
    assert p.parse_version(fixture('pp_udp.txt')) == '3.7'
    assert TOOL.parse_version(fixture('version.txt')) == '3.7'
    assert TOOL.version_argv('/usr/bin/sockperf') == ['/usr/bin/sockperf', '--version']


def test_ping_pong_udp_latency_and_every_percentile_in_usec_half_round_trip():
    parsed = p.parse(fixture('pp_udp.txt'), 'ping-pong')
    assert parsed['error'] is None and parsed['full_rtt'] is False and parsed['version'] == '3.7'
    metrics = parsed['metrics']
    assert metrics['latency_us_mean'] == 7.108 and metrics['latency_us_stddev'] == 10.353
    assert (metrics['latency_us_p50'], metrics['latency_us_p90'], metrics['latency_us_p99']) == (6.945, 7.711, 9.439)
    assert (metrics['latency_us_p99_9'], metrics['latency_us_p99_999']) == (45.247, 1377.079)
    assert (metrics['latency_us_max'], metrics['latency_us_min']) == (2088.396, 5.523)
    # 108794 answers in the valid 1.551 s
    assert metrics['transactions_per_s'] == pytest.approx(108794 / 1.551)
    assert metrics['lost_packets'] == 0
    # sockperf's p25, p75 and p99.99 name no metric
    assert len(metrics) == 11


@pytest.mark.parametrize('name, mean, p99_9', [('pp_tcp.txt', None, None), ('ns_pp_tcp.txt', 9.638, 214.067),
                                               ('ns_pp_udp.txt', None, None), ('ul_udp.txt', 132.69, 2195.461),
                                               ('ul_tcp.txt', 97.781, 1757.052), ('ns_ul_udp.txt', None, None)])
def test_every_latency_capture_parses(name, mean, p99_9):
    mode = 'under-load' if name.startswith(('ul_', 'ns_ul_')) else 'ping-pong'
    parsed = p.parse(fixture(name), mode)
    assert parsed['error'] is None
    metrics = parsed['metrics']
    assert set(p.PERCENTILES.values()) | set(['latency_us_mean', 'latency_us_max']) <= set(metrics)
    assert metrics['latency_us_p50'] <= metrics['latency_us_p90'] <= metrics['latency_us_p99'] \
        <= metrics['latency_us_p99_9'] <= metrics['latency_us_p99_999'] <= metrics['latency_us_max']
    if mean is not None:
        assert metrics['latency_us_mean'] == mean and metrics['latency_us_p99_9'] == p99_9


def test_full_rtt_is_the_round_trip_and_says_so():
    parsed = p.parse(fixture('pp_udp_fullrtt_m.txt'), 'ping-pong')
    assert parsed['error'] is None and parsed['full_rtt'] is True
    assert parsed['metrics']['latency_us_mean'] == 13.922 and parsed['metrics']['latency_us_p99_999'] == 1921.13


def test_under_load_counts_the_answered_messages_only():
    # the server answers one message in 100: 76 answers in the valid 1.5 s
    metrics = p.parse(fixture('ul_udp.txt'), 'under-load')['metrics']
    assert metrics['transactions_per_s'] == pytest.approx(76 / 1.5)


@pytest.mark.parametrize('name, rate, mbps', [
    # "BandWidth is 3.283 MBps (26.268 Mbps)": MiB/s, 3.283 * 2^20 * 8 / 10^6
    ('tp_udp.txt', 245926, 3.283 * 8 * 1048576 / 1e6),
    ('tp_tcp.txt', 506216, 6.759 * 8 * 1048576 / 1e6),
    ('tp_udp_m.txt', 138646, 185.112 * 8 * 1048576 / 1e6),
    ('ns_tp_tcp.txt', 113723, 151.837 * 8 * 1048576 / 1e6),
])
def test_throughput_is_what_the_client_sent_in_decimal_mbit(name, rate, mbps):
    parsed = p.parse(fixture(name), 'throughput')
    assert parsed['error'] is None
    assert parsed['metrics'] == {'messages_per_s': rate, 'throughput_sent_mbps': pytest.approx(mbps)}
    # the message size agrees: 138646 msg/s of 1400 bytes is 194.1 Mbit/s... x 8
    if name == 'tp_udp_m.txt':
        assert parsed['metrics']['throughput_sent_mbps'] == pytest.approx(138646 * 1400 * 8 / 1e6, rel=1e-3)


@pytest.mark.parametrize('name, mode, error', [
    ('noserver_udp.txt', 'ping-pong', 'sockperf: No messages were received from the server. Is the server down?'),
    ('noserver_tcp.txt', 'ping-pong', 'sockperf: ERROR: Can`t connect socket (errno=111 Connection refused)'),
    ('badport.txt', 'ping-pong', 'sockperf: No messages were received from the server. Is the server down?'),
    ('ipv6.txt', 'ping-pong', "sockperf: '-i' Invalid address: ::1"),
    ('badopt.txt', 'ping-pong', 'sockperf printed its usage (it did not take the arguments it was given)'),
    ('badopt.txt', 'throughput', 'sockperf printed its usage (it did not take the arguments it was given)'),
    ('pp_udp.txt', 'throughput', 'sockperf printed no throughput summary (Message Rate, BandWidth)'),
    ('tp_udp.txt', 'ping-pong', 'sockperf printed no latency summary (avg-latency or avg-rtt)'),
    ('version.txt', 'ping-pong', 'sockperf printed no latency summary (avg-latency or avg-rtt)'),
])
def test_errors_of_a_client_that_exited_0(name, mode, error):
    parsed = p.parse(fixture(name), mode)
    assert parsed['error'] == error and parsed['metrics'] == {}


def test_the_tool_fails_a_run_that_exited_0_with_an_error_and_one_that_exited_otherwise():
    params = TOOL.params_of('tcp_ping_pong')
    proc = ProcessResult(['sockperf'], rc=0, stdout=fixture('noserver_tcp.txt'))
    assert TOOL.parse(params, proc, {})['error'].startswith('sockperf: ERROR: Can`t connect socket')
    proc = ProcessResult(['sockperf'], rc=0, stdout=fixture('ns_pp_tcp.txt'))
    assert TOOL.parse(params, proc, {})['error'] is None
    proc = ProcessResult(['sockperf'], rc=-9, stdout=fixture('ns_pp_tcp.txt'))
    assert TOOL.parse(params, proc, {})['error'] == 'sockperf exited with code -9'


def test_client_and_server_argv():
    params = dict(TOOL.params_of('tcp_under_load', options={'mps': 20000, 'message_size': 256}),
                  server='10.244.1.11', port=11135, duration=3, bind='10.244.1.12')
    assert TOOL.client_argv(params, '/usr/bin/sockperf') == [
        '/usr/bin/sockperf', 'under-load', '-i', '10.244.1.11', '-p', '11135', '-t', '3', '--tcp', '-m', '256',
        '--mps', '20000', '--client_ip', '10.244.1.12']
    params = dict(TOOL.params_of('udp_ping_pong', options={'full_rtt': True}), server='10.0.0.1', port=11111,
                  duration=2)
    assert TOOL.client_argv(params, 'sockperf', index=1) == [
        'sockperf', 'ping-pong', '-i', '10.0.0.1', '-p', '11112', '-t', '2', '--full-rtt']
    assert TOOL.server_argv('sockperf', 11111, '10.0.0.1') == ['sockperf', 'server', '-p', '11111', '--tcp', '-i',
                                                               '10.0.0.1']
    assert TOOL.server_argv('sockperf', 11111) == ['sockperf', 'server', '-p', '11111', '--tcp']


def test_ids_records_and_openings():
    assert TOOL.test_id(TOOL.params_of('tcp_ping_pong')) == 'sockperf/tcp_ping_pong/parallel=1'
    assert TOOL.test_id(TOOL.params_of('tcp_under_load', options={'mps': 20000})) == \
        'sockperf/tcp_under_load/mps=20000/parallel=1'
    assert TOOL.test_id(TOOL.params_of('udp_throughput', options={'message_size': 1400})) == \
        'sockperf/udp_stream/message_size=1400/parallel=1'
    assert TOOL.record_test({'test': 'tcp_ping_pong'}) == ('tcp_ping_pong', 'tcp', 'bidirectional')
    assert TOOL.primary({'test': 'tcp_ping_pong'}) == 'latency_us_mean'
    assert TOOL.primary({'test': 'tcp_throughput'}) == 'throughput_sent_mbps'
    assert TOOL.reading({'test': 'tcp_throughput'}) == {'side': 'sender', 'host': 'client'}
    assert TOOL.reading({'test': 'tcp_ping_pong'}) is None
    # the server bench_server starts is a TCP one: the plan opens (and the preflight connects to) TCP only
    assert TOOL.openings(11111, 2) == [(11111, 11112, 'tcp')]


@pytest.mark.parametrize('test, options, error', [
    ('tcp_ping_pong', {'mps': 1000}, 'mps applies to udp_under_load and tcp_under_load only, not tcp_ping_pong'),
    ('udp_throughput', {'full_rtt': True}, 'full_rtt applies to the latency tests only, not udp_throughput'),
    ('tcp_ping_pong', {'parallel': 2}, 'parallel must be 1: a sockperf client runs one socket (use processes for more '
                                       'clients)'),
    ('tcp_ping_pong', {'message_size': 13}, 'message_size must be between 14 and 65000, got 13'),
    ('tcp_under_load', {'mps': 0}, 'mps must be between 1 and 100000000, got 0'),
    ('tcp_ping_pong', {'server': 'fd00::1'}, 'server must be an IPv4 address: sockperf 3.7 takes no IPv6 address, '
                                             'got fd00::1'),
])
def test_bad_options_are_refused_before_anything_runs(test, options, error):
    params = dict(TOOL.params_of(test), **options)
    assert error in TOOL.errors(params)


def test_the_plan_runs_the_tcp_tests_only():
    with pytest.raises(suite.PlanError) as err:
        suite.expand_suite({'name': 'x', 'tests': [{'tool': 'sockperf', 'test': 'udp_ping_pong'}]})
    assert 'udp_ping_pong' in str(err.value) and 'tcp_ping_pong' in str(err.value)


def test_the_new_metrics_are_the_tool_s_own_read_by_the_record_builder_through_the_tool():
    tool = sockperf_tool.TOOL
    for name in ('latency_us_p99_9', 'latency_us_p99_999', 'messages_per_s'):
        # declared once, in the tool file; record.METRICS is not changed by loading it (no import side effect)
        assert name not in rec.METRICS
        assert registry.METRICS[name] == tool.metrics[name]
    record = rec.new_record({'duration': 2}, 'sockperf', 'tcp_ping_pong', 'tcp', 'bidirectional', 'x')
    rec.add_metrics(record, p.parse(fixture('ns_pp_tcp.txt'), 'ping-pong')['metrics'], tool.metrics)
    assert record['metrics']['latency_us_p99_9'] == {'value': 214.067, 'unit': 'us', 'higher_is_better': False}
    # without the tool's metrics the record builder does not know them
    with pytest.raises(ValueError):
        rec.add_metric(rec.new_record({'duration': 2}, 'sockperf', 'tcp_ping_pong', 'tcp', 'bidirectional', 'x'),
                       'latency_us_p99_9', 1.0)
    # several processes: the largest percentile (an upper bound), the rates added up
    combined = tool.combine([{'metrics': {'latency_us_p99_999': 5.0, 'messages_per_s': 1.0}},
                             {'metrics': {'latency_us_p99_999': 7.0, 'messages_per_s': 2.0}}], {})
    assert combined == {'latency_us_p99_999': 7.0, 'messages_per_s': 3.0}
