# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""parse_iperf3 on real iperf3 3.12 output (tests/unit/fixtures/iperf3/README.md) and a 3.1.3 from-docs file.

Expected values are read off the fixture JSON by hand (bits_per_second / 1e6).
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os

import pytest

from ansible_collections.perflab.network.plugins.module_utils import parse_iperf3

FIXTURES = os.path.join(os.path.dirname(__file__), '..', '..', 'fixtures', 'iperf3')


def load(name):
    with open(os.path.join(FIXTURES, name)) as handle:
        return handle.read()


def test_tcp_single_stream():
    res = parse_iperf3.parse(load('3.12/tcp.json'))
    assert res['error'] is None
    assert res['version'] == '3.12'
    assert (res['protocol'], res['num_streams'], res['reverse'], res['bidir']) == ('TCP', 1, False, False)
    assert res['congestion'] == 'bbr'
    m = res['metrics']
    # receiver's view: end.sum_received.bits_per_second 13422164391.161339
    assert m['throughput_mbps'] == pytest.approx(13422.164391)
    assert m['throughput_received_mbps'] == m['throughput_mbps']
    assert m['throughput_sent_mbps'] == pytest.approx(13451.945757)
    assert m['retransmits'] == 7
    assert m['cpu_local_pct'] == pytest.approx(16.710927)
    assert m['cpu_remote_pct'] == pytest.approx(41.312955)
    assert 'jitter_ms' not in m
    assert res['intervals'] == [
        {'t': 1.0, 'throughput_mbps': pytest.approx(16476.371257), 'retransmits': 3.0},
        {'t': 2.0, 'throughput_mbps': pytest.approx(10425.587116), 'retransmits': 4.0},
    ]


def test_tcp_four_streams_uses_sums():
    res = parse_iperf3.parse(load('3.12/tcp-P4.json'))
    assert res['num_streams'] == 4
    assert res['metrics']['throughput_mbps'] == pytest.approx(6732.731227)
    assert res['metrics']['throughput_sent_mbps'] == pytest.approx(6784.321823)
    assert res['metrics']['retransmits'] == 27
    assert [i['retransmits'] for i in res['intervals']] == [27.0, 0.0]


def test_tcp_reverse_throughput_is_what_client_received():
    res = parse_iperf3.parse(load('3.12/tcp-R.json'))
    assert res['reverse'] is True
    m = res['metrics']
    assert m['throughput_mbps'] == pytest.approx(10289.633025)  # sum_received (client receives)
    assert m['throughput_sent_mbps'] == pytest.approx(10293.722161)  # the server's sending side
    assert m['retransmits'] == 24  # server-side retransmits, from sum_sent
    # the client is the receiver: intervals carry no retransmits
    assert [sorted(i) for i in res['intervals']] == [['t', 'throughput_mbps']] * 2


def test_tcp_bidir_sums_both_directions():
    res = parse_iperf3.parse(load('3.12/tcp-bidir.json'))
    assert res['bidir'] is True
    m = res['metrics']
    assert m['throughput_sent_mbps'] == pytest.approx(4339.23346)      # sum_received
    assert m['throughput_received_mbps'] == pytest.approx(4915.053439)  # sum_received_bidir_reverse
    assert m['throughput_mbps'] == pytest.approx(4339.23346 + 4915.053439)
    assert m['retransmits'] == 19 + 4
    first = res['intervals'][0]
    assert first['throughput_mbps'] == pytest.approx(first['throughput_sent_mbps'] + first['throughput_received_mbps'])


def test_omitted_intervals_are_excluded():
    res = parse_iperf3.parse(load('3.12/tcp-omit1.json'))
    assert res['omit'] == 1
    assert len(res['intervals']) == 2  # the JSON has 3, the first "omitted": true
    assert res['intervals'][0]['throughput_mbps'] == pytest.approx(8169.856744)
    assert res['metrics']['throughput_mbps'] == pytest.approx(7679.744879)


def test_udp_stream():
    res = parse_iperf3.parse(load('3.12/udp-b100M.json'))
    assert res['protocol'] == 'UDP'
    m = res['metrics']
    assert m['throughput_mbps'] == pytest.approx(99.985989)
    assert m['throughput_sent_mbps'] == pytest.approx(100.003136)
    assert m['jitter_ms'] == pytest.approx(0.006563, abs=1e-6)
    assert m['lost_packets'] == 0 and m['lost_percent'] == 0
    assert m['packets'] == 763
    assert 'retransmits' not in m
    # client sends: its intervals have no jitter
    assert res['intervals'][0] == {'t': 1.0, 'throughput_mbps': pytest.approx(100.1315), 'packets': 382.0}


def test_udp_parallel():
    res = parse_iperf3.parse(load('3.12/udp-P3-b50M.json'))
    assert res['num_streams'] == 3
    assert res['metrics']['throughput_mbps'] == pytest.approx(150.17705)
    assert res['metrics']['jitter_ms'] == pytest.approx(0.579196, abs=1e-6)
    assert res['metrics']['packets'] == 1146


def test_udp_reverse_intervals_have_jitter():
    res = parse_iperf3.parse(load('3.12/udp-R-b100M.json'))
    assert res['reverse'] is True
    assert res['metrics']['throughput_mbps'] == pytest.approx(100.004236)
    assert res['intervals'][0]['jitter_ms'] == pytest.approx(0.002469, abs=1e-6)
    assert res['intervals'][0]['lost_percent'] == 0


def test_udp_3_1_3_without_sum_sent_received():
    res = parse_iperf3.parse(load('3.1.3/udp-b100M-from-docs.json'))
    assert res['version'] == '3.1.3'
    assert res['error'] is None
    m = res['metrics']
    assert m['throughput_sent_mbps'] == pytest.approx(100.000586)
    # received = sent less the lost share (1.998689 %)
    assert m['throughput_mbps'] == pytest.approx(100.000586 * (1 - 0.01998689))
    assert m['lost_packets'] == 61 and m['packets'] == 3052
    assert m['lost_percent'] == pytest.approx(1.998689)
    assert m['jitter_ms'] == pytest.approx(0.011)
    assert len(res['intervals']) == 2


@pytest.mark.parametrize('name, error', [
    ('3.12/error-refused.json', 'unable to connect to server: Connection refused'),
    ('3.12/error-busy.json', 'the server is busy running a test. try again later'),
    ('3.12/interrupted-sigterm.json', 'interrupt - the client has terminated'),
])
def test_error_json(name, error):
    res = parse_iperf3.parse(load(name))
    assert res['error'] == error
    assert res['metrics'] == {} and res['intervals'] == []


def test_busy_pair_first_client_completed():
    res = parse_iperf3.parse(load('3.12/busy-first.json'))
    assert res['error'] is None and res['metrics']['throughput_mbps'] == pytest.approx(10900.658686)


@pytest.mark.parametrize('text, error', [
    ('', 'iperf3 printed no JSON'),
    ('iperf3: unrecognized option', 'iperf3 output is not JSON: iperf3: unrecognized option'),
    ('{"start": {', 'iperf3 output is not valid JSON: {"start": {'),
    ('[1, 2]', 'iperf3 output is not JSON: [1, 2]'),
    ('{"start": {"test_start": {}}, "end": {}}', "iperf3 JSON has no test_start.protocol (protocol None)"),
    ('{"start": {"test_start": {"protocol": "TCP"}}, "end": {}}',
     'iperf3 JSON has no end sums (the test did not complete)'),
])
def test_bad_output(text, error):
    assert parse_iperf3.parse(text)['error'] == error


def test_json_after_a_warning_line():
    text = 'warning: something\n' + load('3.12/tcp.json')
    assert parse_iperf3.parse(text)['metrics']['throughput_mbps'] == pytest.approx(13422.164391)


def test_versions():
    assert parse_iperf3.parse_version(load('3.12/version.txt')) == '3.12'
    assert parse_iperf3.parse_version('iperf 3.1.3') == '3.1.3'
    assert parse_iperf3.parse_version('nothing') == ''
    assert parse_iperf3.version_tuple('3.1.3') == (3, 1, 3)
    assert parse_iperf3.supports_bidir('3.12') and parse_iperf3.supports_bidir('3.7')
    assert not parse_iperf3.supports_bidir('3.6') and not parse_iperf3.supports_bidir('3.1.3')
    assert not parse_iperf3.supports_bidir('')
