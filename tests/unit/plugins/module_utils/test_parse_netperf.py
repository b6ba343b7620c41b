# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os
import re

import pytest

from ansible_collections.perflab.network.plugins.module_utils import parse_netperf
from ansible_collections.perflab.network.plugins.module_utils import registry

NETPERF = registry.get('netperf')

FIXTURES = os.path.join(os.path.dirname(__file__), '..', '..', 'fixtures', 'netperf', '2.7.0')


def fixture(name):
    with open(os.path.join(FIXTURES, name)) as handle:
        return handle.read()


def exit_code(name):
    for line in fixture('exit-codes.txt').splitlines():
        if line.startswith(name + ' '):
            return int(line.split('exit=')[1])
    raise KeyError(name)


def test_fixtures_were_made_with_the_module_selectors():
    # each capture used exactly the selector list the module passes, in that order
    for line in fixture('commands.txt').splitlines():
        name, command = line.split(': ', 1)
        if name.startswith('error.no_server') or name == 'version':
            continue
        selectors = re.search(r' -o (\S+)', command).group(1).split(',')
        test = re.search(r' -t (\S+)', command).group(1)
        wanted = parse_netperf.STREAM_SELECTORS if test.endswith(('STREAM', 'MAERTS')) else parse_netperf.RR_SELECTORS
        assert selectors == list(wanted), name


def test_parse_version():
    assert parse_netperf.parse_version(fixture('version.stdout')) == '2.7.0'
    assert parse_netperf.parse_version('') == ''


@pytest.mark.parametrize('test', ['tcp_stream', 'tcp_maerts', 'udp_stream', 'tcp_rr', 'tcp_crr', 'udp_rr'])
def test_csv_and_banner_parse_to_the_same_fields(test):
    selectors = parse_netperf.selectors_for(test)
    csv_run = parse_netperf.parse_omni(fixture(test + '.csv.stdout'), selectors)
    banner_run = parse_netperf.parse_omni(fixture(test + '.banner.stdout'), selectors)
    assert set(csv_run['values']) == set(selectors) == set(banner_run['values'])
    assert csv_run['banner'] is None
    assert banner_run['banner'].startswith('MIGRATED ')
    # two interim lines (-D 1 over -l 2) in both shapes
    assert len(csv_run['interim']) == 2 and len(banner_run['interim']) == 2
    # the banner's header line maps back to the selectors without being told them
    assert parse_netperf.parse_omni(fixture(test + '.banner.stdout'))['values'] == banner_run['values']


def test_tcp_stream_metrics():
    result = parse_netperf.parse_result('tcp_stream', fixture('tcp_stream.csv.stdout'), '', 0)
    assert result['error'] is None
    assert result['metrics'] == {
        'throughput_mbps': 18336.23,
        'throughput_sent_mbps': 18336.18,
        'throughput_received_mbps': 18336.23,
        'cpu_local_pct': 99.5,
        'cpu_remote_pct': 99.5,
        'retransmits': 30.0,
    }
    assert result['intervals'] == [{'t': 1.622, 'throughput_mbps': 19226.23},
                                   {'t': 2.001, 'throughput_mbps': 14544.72}]


def test_tcp_maerts_sender_is_the_server():
    result = parse_netperf.parse_result('tcp_maerts', fixture('tcp_maerts.banner.stdout'), '', 0)
    metrics = result['metrics']
    # THROUGHPUT is what this (receiving) side got; the remote sent a little more
    assert metrics['throughput_mbps'] == 23208.70
    assert metrics['throughput_received_mbps'] == 23208.70
    assert metrics['throughput_sent_mbps'] == 23225.16
    # local 0 + remote 17 retransmissions: the server is the sender
    assert metrics['retransmits'] == 17.0


def test_udp_stream_reports_what_the_receiver_got_and_the_loss():
    result = parse_netperf.parse_result('udp_stream', fixture('udp_stream.m1472.csv.stdout'), '', 0)
    metrics = result['metrics']
    assert metrics['throughput_mbps'] == 4034.64
    assert metrics['throughput_sent_mbps'] == 4282.74
    assert metrics['throughput_received_mbps'] == 4034.64
    # 1 - 1008686528 / 1070712192
    assert metrics['lost_percent'] == pytest.approx(5.7929, abs=1e-3)
    # UDP: no retransmissions (netperf prints -1); -c/-C not given: no CPU
    assert 'retransmits' not in metrics
    assert 'cpu_local_pct' not in metrics and 'cpu_remote_pct' not in metrics
    assert result['intervals'] == []


def test_udp_stream_interim_rates_are_the_senders():
    result = parse_netperf.parse_result('udp_stream', fixture('udp_stream.csv.stdout'), '', 0)
    assert result['intervals'][0] == {'t': 1.94, 'throughput_sent_mbps': 41737.60}
    assert result['metrics']['throughput_mbps'] == 14789.60


@pytest.mark.parametrize('test, name, expected', [
    ('tcp_rr', 'tcp_rr.csv.stdout', {
        'transactions_per_s': 104538.23, 'latency_us_mean': 9.50, 'latency_us_p50': 8.0, 'latency_us_p90': 12.0,
        'latency_us_p99': 20.0, 'latency_us_min': 6.0, 'latency_us_max': 4889.0, 'latency_us_stddev': 36.26,
        'cpu_local_pct': 99.49, 'cpu_remote_pct': 99.49, 'retransmits': 0.0}),
    ('tcp_crr', 'tcp_crr.banner.stdout', {
        'transactions_per_s': 20956.98, 'latency_us_mean': 47.62, 'latency_us_p50': 45.0, 'latency_us_p90': 60.0,
        'latency_us_p99': 169.0, 'latency_us_min': 23.0, 'latency_us_max': 4221.0, 'latency_us_stddev': 50.22,
        'cpu_local_pct': 96.21, 'cpu_remote_pct': 163.04}),
    ('udp_rr', 'udp_rr.csv.stdout', {
        'transactions_per_s': 47141.94, 'latency_us_mean': 21.12, 'latency_us_p50': 19.0, 'latency_us_p90': 25.0,
        'latency_us_p99': 68.0, 'latency_us_min': 6.0, 'latency_us_max': 1199.0, 'latency_us_stddev': 15.01,
        'cpu_local_pct': 44.03, 'cpu_remote_pct': 44.03}),
])
def test_request_response_metrics(test, name, expected):
    result = parse_netperf.parse_result(test, fixture(name), '', 0)
    assert result['error'] is None
    assert result['metrics'] == expected
    assert all(set(sample) == {'t', 'transactions_per_s'} for sample in result['intervals'])


def test_cpu_not_measured_is_left_out():
    result = parse_netperf.parse_result('tcp_rr', fixture('tcp_rr.nocpu.csv.stdout'), '', 0)
    assert 'cpu_local_pct' not in result['metrics']
    assert 'cpu_remote_pct' not in result['metrics']
    assert result['metrics']['transactions_per_s'] == 57211.22
    assert result['intervals'] == []


def test_confidence_not_reached():
    values = parse_netperf.parse_omni(fixture('tcp_rr.confidence.csv.stdout'), parse_netperf.RR_SELECTORS)['values']
    reached = parse_netperf.confidence(values, 99, 5.0)
    assert reached == {'iterations': 3, 'width_pct': 53.268, 'level_pct': 99, 'requested_width_pct': 5.0,
                       'achieved': False}
    # THROUGHPUT is the mean over the iterations, TRANSACTION_RATE the last one
    result = parse_netperf.parse_result('tcp_rr', fixture('tcp_rr.confidence.csv.stdout'), '', 0)
    assert result['metrics']['transactions_per_s'] == 50395.84


def test_confidence_interim_t_runs_across_iterations():
    result = parse_netperf.parse_result('tcp_stream', fixture('tcp_stream.confidence.banner.stdout'), '', 0)
    assert [sample['t'] for sample in result['intervals']] == [1.0, 2.014, 3.028]
    assert result['metrics']['throughput_mbps'] == 25051.80


def test_no_confidence_without_i():
    values = parse_netperf.parse_omni(fixture('tcp_stream.csv.stdout'), parse_netperf.STREAM_SELECTORS)['values']
    assert parse_netperf.confidence(values, 99, 5.0) is None


@pytest.mark.parametrize('name, host, port', [
    ('error.wrong_port', '127.0.0.1', '12203'),
    ('error.no_server', '127.0.0.2', '12865'),
])
def test_no_netserver(name, host, port):
    assert exit_code(name) == 255
    result = parse_netperf.parse_result('tcp_stream', fixture(name + '.stdout'), '', exit_code(name))
    assert result['metrics'] == {}
    assert result['error'].startswith('netperf exited 255: establish control: are you sure there is a netserver '
                                      'listening on %s at port %s?' % (host, port))
    assert 'start netserver' in result['error']


def test_zero_throughput_with_exit_0_is_an_error():
    assert exit_code('error.self_connect.csv') == 0
    result = parse_netperf.parse_result('tcp_stream', fixture('error.self_connect.csv.stdout'), '', 0)
    assert result['error'].startswith('netperf measured 0 10^6bits/s')


def test_output_without_result_line():
    result = parse_netperf.parse_result('tcp_stream', 'Sorry, Demo Mode not configured into this netperf.\n', '', 0)
    assert result['error'].startswith('netperf printed no result line')
    result = parse_netperf.parse_result('tcp_rr', '', '', 0)
    assert result['error'] == 'netperf printed no result line (empty output)'


def test_truncated_result_line_is_not_taken():
    # a line with fewer columns than selectors (killed mid-write) is not a result
    text = fixture('tcp_stream.csv.stdout').splitlines()
    text[-1] = ','.join(text[-1].split(',')[:5])
    with pytest.raises(ValueError):
        parse_netperf.parse_omni('\n'.join(text), parse_netperf.STREAM_SELECTORS)


def test_headerless_output_needs_the_selectors():
    with pytest.raises(ValueError):
        parse_netperf.parse_omni(fixture('tcp_rr.nocpu.csv.stdout'))


def test_combine_metrics_of_processes():
    stream_a = parse_netperf.parse_result('tcp_stream', fixture('tcp_stream.csv.stdout'))
    stream_b = parse_netperf.parse_result('tcp_stream', fixture('tcp_stream.nocpu.csv.stdout'))
    combined = NETPERF.combine([stream_a, stream_b], {'test': 'tcp_stream'})
    assert combined['throughput_mbps'] == pytest.approx(18336.23 + 22390.29)
    assert combined['retransmits'] == 34.0
    # only one process measured CPU: its value, not a sum
    assert combined['cpu_local_pct'] == 99.5

    rr_a = parse_netperf.parse_result('tcp_rr', fixture('tcp_rr.csv.stdout'))
    rr_b = parse_netperf.parse_result('tcp_rr', fixture('tcp_rr.nocpu.csv.stdout'))
    combined = NETPERF.combine([rr_a, rr_b], {'test': 'tcp_rr'})
    assert combined['transactions_per_s'] == pytest.approx(104538.23 + 57211.22)
    assert combined['latency_us_mean'] == pytest.approx(
        (9.50 * 104538.23 + 17.39 * 57211.22) / (104538.23 + 57211.22))
    assert combined['latency_us_min'] == 6.0
    assert combined['latency_us_max'] == 4889.0
    assert combined['latency_us_p99'] == 60.0


def test_combine_udp_loss_from_bytes():
    runs = [parse_netperf.parse_result('udp_stream', fixture(name)) for name in
            ('udp_stream.csv.stdout', 'udp_stream.m1472.csv.stdout')]
    combined = NETPERF.combine(runs, {'test': 'udp_stream'})
    sent = 10713669850 + 1070712192
    received = 3697608122 + 1008686528
    assert combined['lost_percent'] == pytest.approx(100.0 * (1 - received / sent))


def test_combine_intervals():
    a = [{'t': 1.0, 'throughput_mbps': 10.0}, {'t': 2.0, 'throughput_mbps': 20.0}]
    b = [{'t': 1.1, 'throughput_mbps': 1.0}, {'t': 2.1, 'throughput_mbps': 2.0}, {'t': 3.1, 'throughput_mbps': 3.0}]
    assert NETPERF.combine_intervals([{'intervals': a}, {'intervals': b}]) == [
        {'t': 1.1, 'throughput_mbps': 11.0}, {'t': 2.1, 'throughput_mbps': 22.0}]
    assert NETPERF.combine_intervals([{'intervals': []}, {'intervals': []}]) == []
