# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os
import re

import pytest

from ansible_collections.perflab.network.plugins.module_utils.tools.netperf import parse as parse_netperf
from ansible_collections.perflab.network.plugins.module_utils.core import units
from ansible_collections.perflab.network.plugins.module_utils.tools import registry

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
    # one or two interim lines (-D 1 over -l 2: the second can fall at the end) in both shapes
    assert 1 <= len(csv_run['interim']) <= 2 and 1 <= len(banner_run['interim']) <= 2
    # the banner's header line maps back to the selectors without being told them
    assert parse_netperf.parse_omni(fixture(test + '.banner.stdout'))['values'] == banner_run['values']


def test_tcp_stream_metrics():
    result = parse_netperf.parse_result('tcp_stream', fixture('tcp_stream.csv.stdout'), '', 0)
    assert result['error'] is None
    assert result['metrics'] == {
        'throughput_mbps': 7877.63,
        'throughput_sent_mbps': 7877.63,
        'throughput_received_mbps': 7877.63,
        'mss_bytes': 65483.0,       # TRANSPORT_MSS (loopback, MTU 65536)
        'cpu_local_pct': 100.0,
        'cpu_remote_pct': 100.0,
        'retransmits': 21.0,
    }
    # netperf's interim (-D) rate is its own side's: it sends in TCP_STREAM
    assert result['intervals'] == [{'t': 2.0, 'throughput_sent_mbps': 7888.8}]


def test_tcp_maerts_sender_is_the_server():
    result = parse_netperf.parse_result('tcp_maerts', fixture('tcp_maerts.banner.stdout'), '', 0)
    metrics = result['metrics']
    # THROUGHPUT is what this (receiving) side got; the remote sent a little more
    assert metrics['throughput_mbps'] == 9402.48
    assert metrics['throughput_received_mbps'] == 9402.48
    assert metrics['throughput_sent_mbps'] == 9402.48
    # local 0 + remote 58 retransmissions: the server is the sender
    assert metrics['retransmits'] == 58.0


def test_udp_stream_reports_what_the_receiver_got_and_the_loss():
    result = parse_netperf.parse_result('udp_stream', fixture('udp_stream.m1472.csv.stdout'), '', 0)
    metrics = result['metrics']
    assert metrics['throughput_mbps'] == 1274.86
    assert metrics['throughput_sent_mbps'] == 2911.59
    assert metrics['throughput_received_mbps'] == 1274.86
    # 1 - 319106048 / 728791616
    assert metrics['lost_percent'] == pytest.approx(56.2144, abs=1e-3)
    # UDP: TRANSPORT_MSS prints -1, no MSS
    assert 'mss_bytes' not in metrics
    # UDP: no retransmissions (netperf prints -1); -c/-C not given: no CPU
    assert 'retransmits' not in metrics
    assert 'cpu_local_pct' not in metrics and 'cpu_remote_pct' not in metrics
    assert result['intervals'] == []


def test_udp_stream_interim_rates_are_the_senders():
    result = parse_netperf.parse_result('udp_stream', fixture('udp_stream.csv.stdout'), '', 0)
    assert result['intervals'][0] == {'t': 2.003, 'throughput_sent_mbps': 38777.99}
    assert result['metrics']['throughput_mbps'] == 17634.83


@pytest.mark.parametrize('test, name, expected', [
    ('tcp_rr', 'tcp_rr.csv.stdout', {
        'transactions_per_s': 71934.31, 'latency_us_mean': 13.82, 'latency_us_p50': 5.0, 'latency_us_p90': 5.0,
        'latency_us_p99': 46.0, 'latency_us_min': 4.0, 'latency_us_max': 10498.0, 'latency_us_stddev': 154.37,
        'mss_bytes': 32768.0, 'cpu_local_pct': 100.0, 'cpu_remote_pct': 100.0, 'retransmits': 0.0}),
    ('tcp_crr', 'tcp_crr.banner.stdout', {
        'transactions_per_s': 21349.96, 'latency_us_mean': 46.79, 'latency_us_p50': 19.0, 'latency_us_p90': 36.0,
        'latency_us_p99': 692.0, 'latency_us_min': 17.0, 'latency_us_max': 13011.0, 'latency_us_stddev': 223.56,
        'mss_bytes': 32768.0, 'cpu_local_pct': 100.0, 'cpu_remote_pct': 299.9}),
    ('udp_rr', 'udp_rr.csv.stdout', {
        'transactions_per_s': 111673.06, 'latency_us_mean': 8.92, 'latency_us_p50': 4.0, 'latency_us_p90': 4.0,
        'latency_us_p99': 106.0, 'latency_us_min': 3.0, 'latency_us_max': 47182.0, 'latency_us_stddev': 126.92,
        'cpu_local_pct': 100.0, 'cpu_remote_pct': 100.0}),
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
    assert result['metrics']['transactions_per_s'] == 84833.77
    assert result['intervals'] == []


def test_confidence_not_reached():
    values = parse_netperf.parse_omni(fixture('tcp_rr.confidence.csv.stdout'), parse_netperf.RR_SELECTORS)['values']
    reached = parse_netperf.confidence(values, 99, 5.0)
    assert reached == {'iterations': 3, 'width_pct': 171.173, 'level_pct': 99, 'requested_width_pct': 5.0,
                       'achieved': False}
    # THROUGHPUT is the mean over the iterations, TRANSACTION_RATE the last one
    result = parse_netperf.parse_result('tcp_rr', fixture('tcp_rr.confidence.csv.stdout'), '', 0)
    assert result['metrics']['transactions_per_s'] == 81721.33


def test_confidence_interim_t_runs_across_iterations():
    result = parse_netperf.parse_result('tcp_stream', fixture('tcp_stream.confidence.banner.stdout'), '', 0)
    assert [sample['t'] for sample in result['intervals']] == [1.0, 2.014, 3.026]
    assert result['metrics']['throughput_mbps'] == 6199.0


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
    assert combined['throughput_mbps'] == pytest.approx(7877.63 + 7997.15)
    assert combined['retransmits'] == 21.0 + 22.0
    # only one process measured CPU: its value, not a sum
    assert combined['cpu_local_pct'] == 100.0

    rr_a = parse_netperf.parse_result('tcp_rr', fixture('tcp_rr.csv.stdout'))
    rr_b = parse_netperf.parse_result('tcp_rr', fixture('tcp_rr.nocpu.csv.stdout'))
    combined = NETPERF.combine([rr_a, rr_b], {'test': 'tcp_rr'})
    assert combined['transactions_per_s'] == pytest.approx(71934.31 + 84833.77)
    assert combined['latency_us_mean'] == pytest.approx(
        (13.82 * 71934.31 + 11.75 * 84833.77) / (71934.31 + 84833.77))
    assert combined['latency_us_min'] == 4.0
    assert combined['latency_us_max'] == 46897.0
    assert combined['latency_us_p99'] == 122.0


def test_combine_udp_loss_from_bytes():
    runs = [parse_netperf.parse_result('udp_stream', fixture(name)) for name in
            ('udp_stream.csv.stdout', 'udp_stream.m1472.csv.stdout')]
    combined = NETPERF.combine(runs, {'test': 'udp_stream'})
    sent = 9708792470 + 728791616
    received = 4415564842 + 319106048
    assert combined['lost_percent'] == pytest.approx(100.0 * (1 - received / sent))


def test_combine_intervals():
    a = [{'t': 1.0, 'throughput_mbps': 10.0}, {'t': 2.0, 'throughput_mbps': 20.0}]
    b = [{'t': 1.1, 'throughput_mbps': 1.0}, {'t': 2.1, 'throughput_mbps': 2.0}, {'t': 3.1, 'throughput_mbps': 3.0}]
    assert NETPERF.combine_intervals([{'intervals': a}, {'intervals': b}]) == [
        {'t': 1.1, 'throughput_mbps': 11.0}, {'t': 2.1, 'throughput_mbps': 22.0}]
    assert NETPERF.combine_intervals([{'intervals': []}, {'intervals': []}]) == []


# --- netperf's units and selectors (issue 17, points 3, 6, 7) ---

def _commands(name):
    return dict(line.split(': ', 1) for line in fixture(name).splitlines())


@pytest.mark.parametrize('flag, unit', [('M', 'MBytes/s'), ('K', 'KBytes/s'), ('G', 'GBytes/s'),
                                        ('m', '10^6bits/s'), ('k', '10^3bits/s'), ('g', '10^9bits/s')])
def test_every_format_unit_gives_the_bytes_the_receiver_counted(flag, unit):
    # real -f runs: THROUGHPUT in the unit asked for; the receiver's byte counter over the elapsed
    # time is the rate in bits, whatever the unit (K/M/G Bytes binary: netperf's -f, capitals are powers of two)
    name = 'tcp_stream.f%s.mss.csv' % flag
    assert ' -f %s ' % flag in _commands('commands.mss.txt')[name]
    result = parse_netperf.parse_result('tcp_stream', fixture(name + '.stdout'))
    values = result['values']
    assert values['THROUGHPUT_UNITS'] == unit
    from_bytes = values['REMOTE_BYTES_RECVD'] * 8 / values['ELAPSED_TIME'] / 1e6
    # ELAPSED_TIME is printed to 10 ms over 2 s: 0.5 %
    assert result['metrics']['throughput_mbps'] == pytest.approx(from_bytes, rel=0.005)


def test_megabytes_are_binary():
    # the manual example: 17.81 MBytes/s is 149.4 Mbit/s, not 142.5
    assert units.netperf_to_mbps(17.81, 'MBytes/s') == pytest.approx(149.4, abs=0.05)
    result = parse_netperf.parse_result('tcp_stream', fixture('tcp_stream.fM.mss.csv.stdout'))
    assert result['metrics']['throughput_mbps'] == pytest.approx(1422.64 * 8 * 2 ** 20 / 1e6)
    with pytest.raises(ValueError, match='unknown netperf throughput unit'):
        units.netperf_to_mbps(1, '2^20bytes/s')


def test_fixtures_of_the_mss_capture_use_the_module_selectors():
    for name, command in _commands('commands.mss.txt').items():
        selectors = re.search(r' -o (\S+)', command).group(1).split(',')
        test = re.search(r' -t (\S+)', command).group(1)
        wanted = parse_netperf.STREAM_SELECTORS if test.endswith(('STREAM', 'MAERTS')) else parse_netperf.RR_SELECTORS
        assert selectors == list(wanted), name


def test_mss_is_recorded_for_tcp():
    assert parse_netperf.parse_result('tcp_rr', fixture('tcp_rr.mss.csv.stdout'))['metrics']['mss_bytes'] == 32768
    assert parse_netperf.parse_result('tcp_stream', fixture('tcp_stream.mss.csv.stdout'))['metrics']['mss_bytes'] == 65483
    assert 'mss_bytes' not in parse_netperf.parse_result('udp_stream', fixture('udp_stream.mss.csv.stdout'))['metrics']


def test_other_selector_list_says_the_columns_do_not_match():
    # a real result line of the 24 stream selectors read with the 23 request/response ones
    result = parse_netperf.parse_result('tcp_rr', fixture('tcp_stream.nocpu.csv.stdout'))
    assert result['error'].startswith('netperf printed a result line of 24 columns, but 23 selectors were asked for: '
                                      'the columns do not match the selectors')
