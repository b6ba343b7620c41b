# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""parse_iperf3 on real iperf3 3.12 output (tests/unit/fixtures/iperf3/README.md) and a 3.1.3 from-docs file.

Expected values are read off the fixture JSON by hand (bits_per_second / 1e6).
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os

import pytest

from ansible_collections.perflab.network.plugins.module_utils.tools.iperf3 import parse as parse_iperf3

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
    assert m['mss_bytes'] == 32768  # start.tcp_mss_default
    # without --get-server-output the client's intervals are the sender's only: no receiver rate
    assert res['intervals'] == [
        {'t': 1.0, 'throughput_sent_mbps': pytest.approx(16476.371257), 'retransmits': 3.0},
        {'t': 2.0, 'throughput_sent_mbps': pytest.approx(10425.587116), 'retransmits': 4.0},
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
    # the client is the receiver: intervals carry no retransmits, their rate is the receiver's
    assert [sorted(i) for i in res['intervals']] == [['t', 'throughput_mbps', 'throughput_received_mbps']] * 2


def test_tcp_bidir_sums_both_directions():
    res = parse_iperf3.parse(load('3.12/tcp-bidir.json'))
    assert res['bidir'] is True
    m = res['metrics']
    assert m['throughput_sent_mbps'] == pytest.approx(4339.23346)      # sum_received
    assert m['throughput_received_mbps'] == pytest.approx(4915.053439)  # sum_received_bidir_reverse
    assert m['throughput_mbps'] == pytest.approx(4339.23346 + 4915.053439)
    assert m['retransmits'] == 19 + 4
    # without the server's output only the server -> client direction's receiver (the client) is known
    assert res['intervals'][0] == {'t': 1.01, 'throughput_received_mbps': pytest.approx(5574.622416), 'retransmits': 14.0}


def test_omitted_intervals_are_excluded():
    res = parse_iperf3.parse(load('3.12/tcp-omit1.json'))
    assert res['omit'] == 1
    assert len(res['intervals']) == 2  # the JSON has 3, the first "omitted": true
    assert res['intervals'][0]['throughput_sent_mbps'] == pytest.approx(8169.856744)
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
    assert res['intervals'][0] == {'t': 1.0, 'throughput_sent_mbps': pytest.approx(100.1315), 'packets': 382.0}


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
    ('iperf3: unrecognized option', 'iperf3 printed no JSON but: iperf3: unrecognized option'),
    ('{"start": {', "iperf3's JSON ended early: the run was interrupted or its output cut off"),
    ('[1, 2]', 'iperf3 printed no JSON but: [1, 2]'),
    ('{"start": {"test_start": {}}, "end": {}}',
     'iperf3 printed no test parameters (start.test_start): the test never started '
     '(the server refused the connection or the output ended early)'),
    ('{"start": {"test_start": {"protocol": "SCTP"}}, "end": {}}',
     'iperf3 ran a protocol the collection does not read (SCTP)'),
    ('{"start": {"test_start": {"protocol": "TCP"}}, "end": {}}',
     'iperf3 printed no end sums: the test did not complete (the output ended early)'),
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


# --- each interval names its side; its mean matches the end value (issue 17, points 1, 2, 4, 5, 7) ---

def _json_fixtures():
    names = []
    for version in sorted(os.listdir(FIXTURES)):
        folder = os.path.join(FIXTURES, version)
        if os.path.isdir(folder):
            names += ['%s/%s' % (version, name) for name in sorted(os.listdir(folder)) if name.endswith('.json')]
    return names


# iperf3 prints the server's intervals (--get-server-output, server without -J) rounded to three
# significant digits (+-0.5 %), and an interval's end is the side's own clock: 1 % is what that allows
ROUNDING = 0.01


def _weighted_mean(samples, key):
    total = seconds = 0.0
    previous = 0.0
    for sample in samples:
        length = sample['t'] - previous
        previous = sample['t']
        total += sample[key] * length
        seconds += length
    return total / seconds


@pytest.mark.parametrize('name', _json_fixtures())
def test_interval_mean_matches_the_end_value_on_every_fixture(name):
    res = parse_iperf3.parse(load(name))
    if res['error']:
        # no result, or one that moved nothing (the zero-received capture)
        assert not res['metrics'].get('throughput_mbps')
        return
    checked = 0
    for key in ('throughput_mbps', 'throughput_sent_mbps', 'throughput_received_mbps'):
        present = [key in sample for sample in res['intervals']]
        if not any(present):
            continue
        # a side is in every sample or in none
        assert all(present), (name, key)
        assert _weighted_mean(res['intervals'], key) == pytest.approx(res['metrics'][key], rel=ROUNDING), (name, key)
        checked += 1
    assert checked, name
    # the receiver's rate is throughput_mbps, as in the end metrics, wherever both are printed
    for sample in res['intervals']:
        if 'throughput_mbps' in sample and not res['bidir']:
            assert sample['throughput_mbps'] == sample['throughput_received_mbps']


def test_server_output_gives_each_interval_the_receivers_rate():
    res = parse_iperf3.parse(load('3.12/tcp-so.json'))
    # client (sender) JSON beside the server's text lines "20.3 Gbits/sec", "20.9 Gbits/sec"
    assert res['intervals'] == [
        {'t': 1.0, 'throughput_sent_mbps': pytest.approx(20388.748754), 'throughput_received_mbps': 20300.0,
         'throughput_mbps': 20300.0, 'retransmits': 0.0},
        {'t': 2.0, 'throughput_sent_mbps': pytest.approx(20823.532793), 'throughput_received_mbps': 20900.0,
         'throughput_mbps': 20900.0, 'retransmits': 0.0},
    ]


def test_server_output_sum_lines_of_several_streams():
    res = parse_iperf3.parse(load('3.12/tcp-P4-so.json'))
    # the [SUM] lines, not one stream's
    assert [sample['throughput_mbps'] for sample in res['intervals']] == [20700.0, 12400.0]


def test_server_output_udp_receiver_has_jitter_and_loss():
    res = parse_iperf3.parse(load('3.12/udp-b100M-so.json'))
    second = res['intervals'][1]
    # "[  5]   1.00-2.00   sec  11.5 MBytes  96.7 Mbits/sec  0.035 ms  12/381 (3.1%)"
    assert (second['throughput_mbps'], second['jitter_ms'], second['lost_packets'], second['lost_percent']) == \
        (96.7, 0.035, 12.0, 3.1)
    assert second['throughput_sent_mbps'] == pytest.approx(100.139008)


def test_server_output_omitted_lines_are_left_out():
    res = parse_iperf3.parse(load('3.12/tcp-omit1-so.json'))
    # the server's "(omitted)" 0-1 s line is skipped like the client's omitted interval
    assert [sample['throughput_mbps'] for sample in res['intervals']] == [12700.0, 14600.0]


def test_server_output_reverse_gives_the_sender():
    res = parse_iperf3.parse(load('3.12/tcp-R-so.json'))
    assert [sample['throughput_sent_mbps'] for sample in res['intervals']] == [12700.0, 16100.0]
    assert all(sample['throughput_mbps'] == sample['throughput_received_mbps'] for sample in res['intervals'])


def test_server_output_bidir_both_receivers():
    res = parse_iperf3.parse(load('3.12/tcp-bidir-so.json'))
    first = res['intervals'][0]
    # server's "[  5][RX-S] 0.00-1.01 sec 773 MBytes 6.45 Gbits/sec" is client -> server as received
    assert first['throughput_sent_mbps'] == 6450.0
    assert first['throughput_mbps'] == pytest.approx(6450.0 + first['throughput_received_mbps'])


def test_zero_received_is_an_error_with_the_bytes():
    # real: nft dropped the UDP datagrams, iperf3 exited 0 with sum_received.bytes 0
    res = parse_iperf3.parse(load('3.12/udp-zero-received-b10M.json'))
    assert res['error'] == 'the server received 0 bytes of 2.5 MB sent by the client'
    assert res['metrics']['throughput_mbps'] == 0


def test_udp_bidir_sums_both_directions():
    # iperf3 3.12 -u -b 8M --bidir: 8.13 Mbit/s each way
    res = parse_iperf3.parse(load('3.12/udp-bidir-b8M.json'))
    m = res['metrics']
    assert res['bidir'] is True and res['error'] is None
    assert m['throughput_sent_mbps'] == pytest.approx(8.12585)       # sum_received
    assert m['throughput_received_mbps'] == pytest.approx(8.12585)   # sum_received_bidir_reverse
    assert m['throughput_mbps'] == pytest.approx(16.2517)
    assert m['packets'] == 124 and m['lost_packets'] == 0


def test_mss_given_with_M():
    res = parse_iperf3.parse(load('3.12/tcp-M1000-so.json'))
    assert res['metrics']['mss_bytes'] == 1000  # start.tcp_mss (-M 1000)
    assert 'mss_bytes' not in parse_iperf3.parse(load('3.12/udp-b100M.json'))['metrics']


def test_output_cut_short_says_so():
    # the real interrupted document cut short after its intervals, as a killed client's pipe leaves it
    text = load('3.12/interrupted-sigterm.json')
    cut = text[:text.index('"end"')]
    assert parse_iperf3.parse(cut)['error'] == (
        "iperf3's JSON ended early: the run was interrupted or its output cut off")
