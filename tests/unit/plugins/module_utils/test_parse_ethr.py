# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json
import os

import pytest

from ansible_collections.perflab.network.plugins.module_utils.tools.ethr import parse as parse_ethr
from ansible_collections.perflab.network.plugins.module_utils.tools import registry

ETHR = registry.get('ethr')

FIXTURES = os.path.join(os.path.dirname(__file__), '..', '..', 'fixtures', 'ethr', '1.0.0-5')


def fixture(name):
    with open(os.path.join(FIXTURES, name)) as handle:
        return handle.read()


def exit_code(name):
    for line in fixture('exit-codes.txt').splitlines():
        if line.startswith(name + ' '):
            return int(line.split('exit=')[1])
    raise KeyError(name)


def test_version():
    assert parse_ethr.parse_version(fixture('tcp_bw.txt')) == 'v1.0.0-5-g86e0704'
    assert parse_ethr.parse_version(fixture('help.txt')) == 'v1.0.0-5-g86e0704'
    assert parse_ethr.parse_version('') == ''


def test_help_protocols_and_flags():
    help_text = fixture('help.txt')
    # the client -p entry, not the external mode's ("tcp", or "icmp")
    assert parse_ethr.help_protocols(help_text) == ['tcp', 'udp', 'http', 'https', 'icmp']
    assert parse_ethr.help_has_flag(help_text, 'dp')
    assert parse_ethr.help_has_flag(help_text, 'w')
    assert not parse_ethr.help_has_flag(help_text, 'ncs')
    assert parse_ethr.help_protocols('') == []


def test_tcp_bandwidth_one_stream():
    result = parse_ethr.parse_result('bandwidth', fixture('tcp_bw.txt'), exit_code('tcp_bw'))
    assert result['error'] is None
    assert result['intervals'] == [{'t': 1.0, 'throughput_mbps': 12500.0}, {'t': 2.0, 'throughput_mbps': 13100.0},
                                   {'t': 3.0, 'throughput_mbps': 13800.0}, {'t': 4.0, 'throughput_mbps': 12600.0},
                                   {'t': 5.0, 'throughput_mbps': 14600.0}]
    assert result['metrics'] == {'throughput_mbps': pytest.approx((12.5 + 13.1 + 13.8 + 12.6 + 14.6) / 5 * 1000)}


def test_tcp_bandwidth_four_streams_uses_the_sum_lines():
    result = parse_ethr.parse_result('bandwidth', fixture('tcp_bw_n4.txt'), exit_code('tcp_bw_n4'))
    assert [sample['throughput_mbps'] for sample in result['intervals']] == [9300.0, 9700.0, 9700.0]
    assert result['metrics']['throughput_mbps'] == pytest.approx(9566.6667, abs=1e-3)
    # without the SUM lines the rounded streams add up (second 2: 2.3+2.2+2.6+2.7 = 9.8G where
    # ethr's SUM, made before rounding, says 9.7G: why the SUM line wins)
    no_sum = '\n'.join(line for line in fixture('tcp_bw_n4.txt').splitlines() if 'SUM' not in line)
    assert [s['throughput_mbps'] for s in parse_ethr.parse_bandwidth(no_sum)] == [
        pytest.approx(9300.0), pytest.approx(9800.0), pytest.approx(9700.0)]
    assert [s['streams'] for s in parse_ethr.parse_bandwidth(no_sum)] == [4, 4, 4]
    # a second some streams printed no line for is not their sum (issue #29.5's class, in ethr)
    partial = '\n'.join(line for line in no_sum.splitlines() if not line.startswith('[    9]     TCP      002-003'))
    assert [s['t'] for s in parse_ethr.parse_bandwidth(partial)] == [1.0, 2.0]


def test_text_agrees_with_the_json_log_for_bandwidth():
    # the log's TestResult lines carry the same per-second sums as the text
    for name in ('tcp_bw', 'tcp_bw_n4', 'tcp_bw_reverse', 'udp_bw'):
        logged = [json.loads(line) for line in fixture(name + '.log').splitlines()]
        rates = [parse_ethr.units.parse_si(entry['BitsPerSecond']) / 1e6
                 for entry in logged if entry['Type'] == 'TestResult']
        parsed = [sample.get('throughput_mbps', sample.get('throughput_sent_mbps'))
                  for sample in parse_ethr.parse_bandwidth(fixture(name + '.txt'))]
        assert parsed == pytest.approx(rates), name


def test_udp_bandwidth_has_packets():
    result = parse_ethr.parse_result('bandwidth', fixture('udp_bw.txt'), exit_code('udp_bw'))
    # ethr 1.0 counts the bytes the client sent: the sender's rate, never the receiver's throughput_mbps
    assert result['intervals'][1] == {'t': 2.0, 'throughput_sent_mbps': 4000.0, 'packets_per_s': 31000.0}
    assert result['metrics']['throughput_sent_mbps'] == pytest.approx(3840.0)
    assert 'throughput_mbps' not in result['metrics'] and result['error'] is None
    # TCP bandwidth stays throughput_mbps
    assert 'throughput_mbps' in parse_ethr.parse_result('bandwidth', fixture('tcp_bw.txt'), 0)['metrics']
    assert result['metrics']['packets_per_s'] == pytest.approx((31.4 + 31 + 26.9 + 30.9 + 30.8) / 5 * 1000)


def test_reverse_bandwidth():
    result = parse_ethr.parse_result('bandwidth', fixture('tcp_bw_reverse.txt'), exit_code('tcp_bw_reverse'))
    assert result['metrics']['throughput_mbps'] == pytest.approx((5.6 + 5.2 + 5.8) / 3 * 1000)


def test_connections_per_second():
    result = parse_ethr.parse_result('connections', fixture('tcp_cps.txt'), exit_code('tcp_cps'))
    assert result['error'] is None
    assert [s['connections_per_s'] for s in result['intervals']] == [11500.0, 11100.0, 10100.0, 9200.0, 10200.0]
    assert result['metrics'] == {'connections_per_s': pytest.approx(10420.0)}


def test_packets_per_second_from_docs():
    result = parse_ethr.parse_result('packets', fixture('udp_pps-from-docs.txt'), 0)
    assert result['error'] is None
    assert result['metrics'] == {'packets_per_s': pytest.approx((412.3 + 398.1 + 405.6) / 3 * 1000)}


def test_latency_comes_from_the_text_table():
    result = parse_ethr.parse_result('latency', fixture('tcp_lat.txt'), exit_code('tcp_lat'))
    assert result['error'] is None
    rows = parse_ethr.parse_latency(fixture('tcp_lat.txt'))
    assert len(rows) == 6
    assert rows[0] == {'avg': 29.689, 'min': 20.150, 'p50': 22.604, 'p90': 52.137, 'p95': 68.912, 'p99': 88.631,
                       'p999': 105.256, 'p9999': 105.256, 'max': 109.832}
    metrics = result['metrics']
    assert metrics['latency_us_mean'] == pytest.approx((29.689 + 41.401 + 37.239 + 41.172 + 36.476 + 43.711) / 6)
    assert metrics['latency_us_min'] == 18.617
    assert metrics['latency_us_max'] == 421.004
    # median of 22.604 33.740 33.539 33.700 33.499 34.120
    assert metrics['latency_us_p50'] == pytest.approx((33.539 + 33.700) / 2)
    # ethr prints no time for a latency row: none is made up (6 rows in a 5 s run)
    assert result['intervals'][1]['t'] is None and result['intervals'][1]['n'] == 2
    assert [s['n'] for s in result['intervals']] == [1, 2, 3, 4, 5, 6]


def test_the_json_log_latency_percentiles_are_shifted():
    # why the parser reads the text: the log's "P50" is the text's Max, its "P90" the text's 50%, ...
    logged = [json.loads(line) for line in fixture('tcp_lat.log').splitlines()]
    latency = [entry for entry in logged if entry['Type'] == 'LatencyResult']
    rows = parse_ethr.parse_latency(fixture('tcp_lat.txt'))
    assert len(latency) == len(rows)
    for entry, row in zip(latency, rows):
        assert parse_ethr.units.parse_duration_us(entry['P50']) == row['max']
        assert parse_ethr.units.parse_duration_us(entry['P90']) == row['p50']
        assert parse_ethr.units.parse_duration_us(entry['P999']) == row['p99']
        # percentiles must not decrease; the log's would (P50 > P90)
        assert row['min'] <= row['p50'] <= row['p90'] <= row['p95'] <= row['p99'] <= row['max']


def test_unreachable_server_exits_0_but_fails():
    assert exit_code('unreachable') == 0
    result = parse_ethr.parse_result('bandwidth', fixture('unreachable.txt'), 0)
    assert result['metrics'] == {}
    assert result['error'] == ('ethr: Error dialing control connection: dial tcp4 :0->10.99.0.9:8888: i/o timeout')


def test_http_refused():
    assert exit_code('http_bw') == 1
    result = parse_ethr.parse_result('http', fixture('http_bw.txt'), 1)
    assert result['error'] == 'ethr: Error: Invalid value "http" specified for parameter "-p".'


def test_no_results_without_error_line():
    text = '\n'.join(fixture('tcp_bw.txt').splitlines()[:6])
    result = parse_ethr.parse_result('bandwidth', text, 0)
    assert result['error'] == 'ethr printed no throughput mbps result (is an ethr server listening there?)'


def test_nonzero_exit_without_error_line():
    result = parse_ethr.parse_result('connections', 'panic: runtime error\n', 2)
    assert result['error'] == 'ethr exited 2: panic: runtime error'


def test_combine_processes():
    a = parse_ethr.parse_result('bandwidth', fixture('tcp_bw.txt'))
    b = parse_ethr.parse_result('bandwidth', fixture('tcp_bw_reverse.txt'))
    combined = ETHR.combine([a, b], {'test': 'bandwidth'})
    assert combined['throughput_mbps'] == pytest.approx(a['metrics']['throughput_mbps'] + b['metrics']['throughput_mbps'])
    # only the seconds both reported (1-3) are summed
    intervals = ETHR.combine_intervals([a, b])
    assert intervals == [{'t': 1.0, 'throughput_mbps': 18100.0}, {'t': 2.0, 'throughput_mbps': 18300.0},
                         {'t': 3.0, 'throughput_mbps': 19600.0}]


def test_the_udp_bandwidth_title_says_it_is_the_sent_rate():
    from ansible_collections.perflab.network.plugins.module_utils.tools import registry
    ethr = registry.get('ethr')
    assert ethr.report_title('udp_stream', ['1.0.0'], 'udp', 'client_to_server', 8, 10) == \
        'Ethr 1.0.0 - Duration: 10 Seconds - Protocol: UDP - Test: Bandwidth (Sent) - Threads: 8'
    assert 'Test: Bandwidth -' in ethr.report_title('tcp_stream', ['1.0.0'], 'tcp', 'client_to_server', 8, 10)
