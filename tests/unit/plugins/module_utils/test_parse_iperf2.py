# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""parse_iperf2 on real iperf 2.1.8 output (tests/unit/fixtures/iperf2/2.1.8/README.md).

Expected values are read by eye from the fixture files (Kbits/sec / 1000 = Mbit/s).
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os

import pytest

from ansible_collections.perflab.network.plugins.module_utils.tools.iperf2 import parse as parse_iperf2

FIXTURES = os.path.join(os.path.dirname(__file__), '..', '..', 'fixtures', 'iperf2', '2.1.8')


def load(name):
    with open(os.path.join(FIXTURES, name)) as handle:
        return handle.read()


def exit_codes():
    return dict((line.split(' rc=')[0], int(line.split(' rc=')[1]))
                for line in load('exit-codes.txt').splitlines() if line)


def run(name, test='tcp_stream', duration=None):
    return parse_iperf2.parse(load(name + '.txt'), load(name + '.stderr'), exit_codes()[name],
                              test=test, duration=duration)


def test_every_client_fixture_is_listed_with_its_exit_code():
    names = sorted(n[:-len('.stderr')] for n in os.listdir(FIXTURES) if n.endswith('.stderr'))
    codes = exit_codes()
    assert names and all(name in codes for name in names)
    # iperf2 exits 0 on every client error; only -v and --help exit 1
    assert set(code for name, code in codes.items() if name not in ('version', 'help')) == {0}
    assert codes['version'] == 1 and codes['help'] == 1


def test_version():
    assert parse_iperf2.parse_version(load('version.txt')) == '2.1.8'
    assert parse_iperf2.parse_version('iperf 3.12 (cJSON 1.7.15)') == ''
    assert parse_iperf2.parse_version('') == ''
    assert parse_iperf2.parse(load('fk-tcp.txt'), '', 0)['version'] == ''
    assert parse_iperf2.parse('', load('version.txt'), 1)['version'] == '2.1.8'


def test_help_lists_the_options_the_module_uses():
    text = load('help.txt')
    for option in ('--full-duplex', '--dualtest', '--reverse', '--enhanced', '--print_mss', '--format',
                   '--singleclient', '--daemon', '--bind', '--reportstyle C', '--parallel'):
        assert option in text
    assert 'pidfile' not in text.lower()


def test_tcp_stream_enhanced_kbits():
    res = run('fk-tcp')
    assert res['error'] is None
    assert res['metrics'] == {'throughput_mbps': 23043.199, 'throughput_sent_mbps': 23043.199,
                              'retransmits': 19.0}
    assert res['intervals'] == [{'t': 1.0, 'throughput_sent_mbps': 22959.621, 'retransmits': 14.0},
                                {'t': 2.0, 'throughput_sent_mbps': 23419.945, 'retransmits': 4.0}]
    assert res['mss'] == 32741
    assert res['streams'] == 1


def test_tcp_stream_mbits_formats():
    assert run('tcp')['metrics'] == {'throughput_mbps': 23028.0, 'throughput_sent_mbps': 23028.0}
    res = run('tcp-e-i1')
    assert res['metrics'] == {'throughput_mbps': 23529.0, 'throughput_sent_mbps': 23529.0,
                              'retransmits': 16.0}
    assert [i['t'] for i in res['intervals']] == [1.0, 2.0]
    assert res['intervals'][1] == {'t': 2.0, 'throughput_sent_mbps': 23535.0, 'retransmits': 0.0}


def test_adaptive_units_are_read():
    line = '[  1] 0.0000-1.9995 sec  5.40 GBytes  23.2 Gbits/sec\n'
    assert parse_iperf2.parse(line)['metrics']['throughput_mbps'] == 23200.0
    line = '[  1] 0.0000-2.0000 sec  2804285500 Bytes  22434284000 bits/sec  21395/0  7  1023K/68(29) us  4\n'
    expected = {'throughput_mbps': 22434.284, 'throughput_sent_mbps': 22434.284, 'retransmits': 7.0}
    assert parse_iperf2.parse(line)['metrics'] == expected


def test_mss_from_connect_line_not_from_m():
    # -m prints "MSS size 536 bytes" before connecting; the connect line has the real one
    assert 'MSS size 536 bytes' in load('tcp-m.txt')
    assert run('tcp-m')['mss'] == 32741
    assert run('tcp-e-m')['mss'] == 32741
    # -M 1400: "MSS req size 1400 bytes (per TCP_MAXSEG)", in use 1388 (timestamps take 12)
    res = run('fk-tcp-M1400-m-w256k-l64k')
    assert res['mss'] == 1388
    assert res['metrics']['throughput_mbps'] == 13884.912
    # the -m/-M line before connecting is the default or the request, not the MSS in use
    assert parse_iperf2.parse_mss('MSS req size 1400 bytes (per TCP_MAXSEG)\n') is None
    assert parse_iperf2.parse_mss(load('tcp-m.txt').replace('icwnd/mss/irtt', 'x')) is None
    assert run('fk-udp', 'udp_stream')['mss'] is None


def test_tcp_parallel_uses_sum_lines():
    res = run('fk-tcp-P4')
    assert res['error'] is None
    assert res['streams'] == 4
    assert res['metrics'] == {'throughput_mbps': 35441.037, 'throughput_sent_mbps': 35441.037,
                              'retransmits': 23.0}
    assert res['intervals'] == [{'t': 1.0, 'throughput_sent_mbps': 25970.084, 'retransmits': 18.0},
                                {'t': 2.0, 'throughput_sent_mbps': 44939.87, 'retransmits': 5.0}]
    res = run('tcp-P4')
    assert res['metrics'] == {'throughput_mbps': 35315.0, 'throughput_sent_mbps': 35315.0}
    assert res['intervals'] == []
    res = run('tcp-P4-e-i1')
    assert res['metrics']['retransmits'] == 62.0 and res['metrics']['throughput_mbps'] == 37111.0
    assert res['intervals'][0] == {'t': 1.0, 'throughput_sent_mbps': 39499.0, 'retransmits': 53.0}


def test_tcp_maerts_client_receives():
    res = run('fk-tcp-R', 'tcp_maerts')
    assert res['error'] is None
    # the server's retransmits are not shown to the client
    assert res['metrics'] == {'throughput_mbps': 23158.017, 'throughput_received_mbps': 23158.017}
    assert res['intervals'] == [{'t': 1.0, 'throughput_mbps': 22868.393},
                                {'t': 2.0, 'throughput_mbps': 23435.674}]
    assert run('tcp-R', 'tcp_maerts')['metrics']['throughput_mbps'] == 24254.0
    assert run('tcp-R-e-i1', 'tcp_maerts')['metrics']['throughput_mbps'] == 25069.0


def test_tcp_maerts_parallel():
    res = run('fk-tcp-R-P4', 'tcp_maerts')
    assert res['metrics'] == {'throughput_mbps': 42612.425, 'throughput_received_mbps': 42612.425}
    assert res['intervals'] == [{'t': 1.0, 'throughput_mbps': 38183.869},
                                {'t': 2.0, 'throughput_mbps': 47035.407}]


def test_tcp_bidir_full_duplex():
    res = run('fk-tcp-fullduplex', 'tcp_bidir')
    assert res['error'] is None
    # [FD1] is the total; [  1] the client's writes, [ *1] its reads
    assert res['metrics'] == {'throughput_mbps': 25806.431, 'throughput_sent_mbps': 11281.752,
                              'throughput_received_mbps': 14524.366, 'retransmits': 355.0}
    assert res['intervals'][0] == {'t': 1.0, 'throughput_mbps': 26813.635, 'throughput_sent_mbps': 12990.809,
                                   'throughput_received_mbps': 13822.826, 'retransmits': 296.0}
    # with -m (the module's tcp_bidir argv): the MSS in use from the connect line, the same totals' form
    res = run('fk-tcp-fullduplex-m', 'tcp_bidir', duration=1)
    assert res['error'] is None and res['mss'] == 32741
    assert res['metrics'] == {'throughput_mbps': 4422.394, 'throughput_sent_mbps': 1736.261,
                              'throughput_received_mbps': 2693.517, 'retransmits': 11.0}
    res = run('tcp-fullduplex-e-i1', 'tcp_bidir')
    assert res['metrics'] == {'throughput_mbps': 25299.0, 'throughput_sent_mbps': 13619.0,
                              'throughput_received_mbps': 11705.0, 'retransmits': 273.0}


def test_tcp_bidir_full_duplex_parallel_sums_each_direction():
    res = run('fk-tcp-fullduplex-P2', 'tcp_bidir')
    # [SUM] adds both directions; the per-direction totals are summed from the streams:
    # sent 7566283 + 5620224, received 6838677 + 10211239 Kbits/sec
    assert res['metrics'] == {'throughput_mbps': 30224.65, 'throughput_sent_mbps': 13186.507,
                              'throughput_received_mbps': 17049.916, 'retransmits': 80.0}
    assert res['intervals'][1] == {'t': 2.0, 'throughput_mbps': 35423.106,
                                   'throughput_sent_mbps': 8336.179 + 5324.669,
                                   'throughput_received_mbps': 7868.626 + 13893.632,
                                   'retransmits': 30.0}


def test_tcp_dualtest_with_listen_port():
    res = run('tcp-d-e', 'tcp_bidir')
    assert res['metrics'] == {'throughput_mbps': 24415.0 + 24934.0, 'throughput_sent_mbps': 24415.0,
                              'throughput_received_mbps': 24934.0, 'retransmits': 7.0}


def test_udp_server_report():
    res = run('fk-udp', 'udp_stream')
    assert res['error'] is None
    assert res['metrics'] == {'throughput_mbps': 100.009, 'throughput_received_mbps': 100.009,
                              'throughput_sent_mbps': 100.014, 'jitter_ms': 0.001,
                              'lost_packets': 0.0, 'packets': 17011.0, 'lost_percent': 0.0}
    # intervals are the send rate (only the final report comes from the server): named so
    assert res['intervals'] == [{'t': 1.0, 'throughput_sent_mbps': 100.007},
                                {'t': 2.0, 'throughput_sent_mbps': 100.019}]
    res = run('udp-b100m', 'udp_stream')
    assert res['metrics']['packets'] == 17005.0 and res['metrics']['throughput_mbps'] == 100.0


def test_udp_loss_percent_from_counts():
    res = run('fk-udp-loss', 'udp_stream')
    # printed "(28%)"; 38566/136061 is 28.3446...%
    assert res['metrics']['lost_packets'] == 38566.0
    assert res['metrics']['packets'] == 136061.0
    assert res['metrics']['lost_percent'] == pytest.approx(28.3446, abs=1e-4)
    assert res['metrics']['throughput_mbps'] == 574.315
    assert res['metrics']['throughput_sent_mbps'] == 799.983
    res = run('udp-b800m-loss', 'udp_stream')
    assert res['metrics']['lost_packets'] == 35634.0 and res['metrics']['throughput_mbps'] == 590.0


def test_udp_enhanced_server_report_columns():
    # server run with -e: latency, PPS and NetPwr columns after the loss
    res = run('udp-b100m-e-i1', 'udp_stream')
    assert res['metrics']['packets'] == 17010.0 and res['metrics']['jitter_ms'] == 0.0
    assert res['metrics']['throughput_mbps'] == 100.0


def test_udp_parallel_sums_server_reports():
    res = run('fk-udp-P2', 'udp_stream')
    # -b is per stream: -P 2 -b 100m sends 200 Mbit/s
    assert res['metrics'] == {'throughput_mbps': 100.011 + 100.015,
                              'throughput_received_mbps': 100.011 + 100.015,
                              'throughput_sent_mbps': 200.012, 'jitter_ms': 0.0,
                              'lost_packets': 0.0, 'packets': 17010.0 + 17011.0, 'lost_percent': 0.0}
    assert res['intervals'] == [{'t': 1.0, 'throughput_sent_mbps': 200.026},
                                {'t': 2.0, 'throughput_sent_mbps': 200.014}]
    res = run('udp-b50m-P2-e-i1', 'udp_stream')
    assert res['metrics']['lost_packets'] == 1.0 and res['metrics']['packets'] == 8507.0 * 2


def test_udp_reverse_client_is_receiver():
    res = run('fk-udp-R', 'udp_stream')
    assert res['metrics'] == {'throughput_mbps': 100.016, 'throughput_received_mbps': 100.016,
                              'jitter_ms': 0.001, 'lost_packets': 0.0, 'packets': 17010.0,
                              'lost_percent': 0.0}
    assert res['intervals'][0] == {'t': 1.0, 'throughput_mbps': 100.019, 'jitter_ms': 0.001,
                                   'lost_packets': 0.0, 'packets': 8505.0}


def test_udp_without_server_report_is_an_error():
    res = run('udp-no-server-report', 'udp_stream')
    assert res['error'] == ('iperf2 got no UDP server report (is a UDP server listening?): '
                            'WARNING: did not receive ack of last datagram after 10 tries.')
    assert res['metrics'] == {} and res['intervals'] == []
    res = run('error-udp-refused', 'udp_stream')
    assert res['error'] == ('iperf2 got no UDP server report (is a UDP server listening?): '
                            'read failed: Connection refused; '
                            'WARNING: did not receive ack of last datagram after 10 tries.')


@pytest.mark.parametrize('name, error', [
    ('error-refused', 'iperf2 could not connect to the server: tcp connect failed: Connection refused'),
    ('error-unreachable', 'iperf2 could not connect to the server: tcp connect failed: Network is unreachable'),
    ('error-bad-option', "iperf2 rejected its arguments: iperf: unrecognized option `--no-such-option'"),
    ('error-no-host', 'iperf2 rejected its arguments: iperf: option requires an argument -- c'),
    ('error-dualtest-listener-bind', 'iperf2 reported an error: listener bind failed: Address already in use'),
    ('error-server-killed', 'iperf2 lost the connection during the test: tcp write failed: Connection reset by peer'),
])
def test_errors_with_exit_code_zero(name, error):
    res = run(name)
    assert res['error'] == error
    assert res['metrics'] == {} and res['intervals'] == []


def test_cut_short_run_needs_the_duration():
    # the server was killed after 1 s of -t 3 -R: no stderr, only the end time tells
    assert run('error-server-killed-R', 'tcp_maerts')['error'] is None
    res = run('error-server-killed-R', 'tcp_maerts', duration=3)
    assert res['error'] == 'iperf2 test ended after 1.0029 s of the 3 s asked (cut short)'
    assert res['metrics'] == {}
    assert run('fk-tcp', duration=2)['error'] is None
    # a client end time past -t is fine (tcp-e-m: 3.0147 s for -t 2)
    assert run('tcp-e-m', duration=2)['error'] is None


def test_zero_bytes_received_is_an_error():
    text = load('fk-tcp-R.txt').replace('5654528 KBytes  23158017 Kbits/sec', '0 KBytes  0 Kbits/sec')
    assert parse_iperf2.parse(text, '', 0, 'tcp_maerts')['error'] == 'iperf2 reported 0 bytes received'
    text = load('fk-udp.txt').replace('24420 KBytes  100009 Kbits/sec   0.001 ms 0/17011',
                                      '0.00 Bytes  0.00 bits/sec   0.000 ms 0/0')
    assert parse_iperf2.parse(text, '', 0, 'udp_stream')['error'] == 'iperf2 reported 0 bytes received'


def test_nonzero_exit_and_empty_output():
    assert parse_iperf2.parse('', '', 0)['error'] == 'iperf2 printed no report line'
    assert parse_iperf2.parse('', 'something odd\n', 0)['error'] == 'iperf2 printed no report: something odd'
    assert parse_iperf2.parse(load('fk-tcp.txt'), '', 2)['error'] == 'iperf2 exited with code 2'
    assert parse_iperf2.parse('', load('version.txt'), 1)['error'] == (
        'iperf2 exited with code 1: iperf version 2.1.8 (12 August 2022) pthreads')


def test_csv_is_not_the_parsed_form():
    # CSV rows have no "[ ID]" report lines; the module runs text -e
    assert run('csv-tcp-e-i1')['error'] == 'iperf2 printed no report line'


def test_tcp_stream_without_send_lines():
    # -R output read as tcp_stream has no send report
    assert run('fk-tcp-R')['error'] == 'iperf2 printed no send report for tcp_stream'


def test_unknown_test():
    with pytest.raises(ValueError):
        parse_iperf2.parse('', '', 0, 'tcp_rr')


@pytest.mark.parametrize('name, test', [
    ('fk-tcp', 'tcp_stream'), ('fk-tcp-P4', 'tcp_stream'), ('fk-tcp-R', 'tcp_maerts'),
    ('fk-tcp-R-P4', 'tcp_maerts'), ('fk-tcp-fullduplex', 'tcp_bidir'),
    ('fk-tcp-fullduplex-P2', 'tcp_bidir'), ('fk-udp', 'udp_stream'), ('fk-udp-P2', 'udp_stream'),
    ('fk-udp-R', 'udp_stream'), ('tcp-e-i1', 'tcp_stream'),
])
def test_interval_mean_is_close_to_the_end_value(name, test):
    res = run(name, test)
    # each side compared with the same side: the client's send rate with the sent total
    side = 'throughput_sent_mbps' if test in ('tcp_stream', 'udp_stream') and 'throughput_sent_mbps' in \
        res['metrics'] else 'throughput_mbps'
    samples = [s[side] for s in res['intervals']]
    assert len(samples) == 2
    mean = sum(samples) / len(samples)
    final = res['metrics'][side]
    assert mean == pytest.approx(final, rel=0.15)


# ---------------------------------------------------------------------------
# issue #29.5 and #28.4: stalled streams, the last interval of a -P run, the sides of the
# intervals, and the MSS line of 2.0.x (fixtures: README.md of 2.1.8/ and 2.0.13/)

FIXTURES_2013 = os.path.join(os.path.dirname(__file__), '..', '..', 'fixtures', 'iperf2', '2.0.13')


def run_2013(name, test='tcp_stream', duration=2):
    with open(os.path.join(FIXTURES_2013, name + '.txt')) as handle:
        return parse_iperf2.parse(handle.read(), '', 0, test=test, duration=duration)


def test_no_final_sum_adds_up_the_streams_final_lines():
    # one stream stalled; no final [SUM]: the last [SUM] is an interval's 0.00 bits/sec
    res = run('edited-fk-tcp-P4-stall-no-final-sum', duration=3)
    assert res['error'] is None
    # the streams' own final lines: 6866954 + 9131934 + 8319479 + 1880077 Kbit/s
    assert res['metrics']['throughput_mbps'] == pytest.approx(26198.444)
    assert res['metrics']['retransmits'] == 11.0 + 3.0 + 21.0 + 16.0
    # where iperf printed its final [SUM] (real, the same stall), it is the total
    assert run('fk-tcp-P4-stall-one', duration=3)['metrics']['throughput_mbps'] == 24839.234


def test_a_stalled_stream_is_said_in_notes():
    res = run('fk-tcp-P4-stall-one', duration=3)
    assert res['notes'] == ['iperf2 stream 1 (sending) stalled: 0 bytes in its last interval (2-3 s), its final '
                            'report ends at 6.5056 s of the 3 s asked; the total counts what it moved']
    res = run('fk-tcp-P4-server-stopped', duration=3)
    assert len(res['notes']) == 4 and all('ends at 6.2' in note for note in res['notes'])
    assert res['metrics']['throughput_mbps'] == 6691.708
    # healthy runs, also a slow close on a busy machine (3.0147 s for -t 2), say nothing
    for name, duration in (('fk-tcp-P4-t3', 3), ('fk-tcp-P4', 2), ('tcp-e-m', 2), ('fk-tcp-R-P2-m', 2)):
        assert run(name, 'tcp_maerts' if '-R' in name else 'tcp_stream', duration=duration)['notes'] == [], name


def test_the_last_interval_of_one_stream_is_not_the_sum():
    # the others folded their last second into their finals: one stream's 11473 is not the whole
    res = run('edited-fk-tcp-P4-last-interval-one-stream', duration=3)
    assert [s['t'] for s in res['intervals']] == [1.0, 2.0]
    assert run('fk-tcp-P4-t3', duration=3)['intervals'][2] == {'t': 3.0, 'throughput_sent_mbps': 43187.7,
                                                               'retransmits': 3.0}
    # real: each stream's last interval ends elsewhere (1.9992, 1.9980); [SUM] 1.0000-2.0001 is their sum
    res = run('fk-tcp-R-P2-m', 'tcp_maerts')
    assert res['intervals'] == [{'t': 1.0, 'throughput_mbps': 27387.444},
                                {'t': 2.0001, 'throughput_mbps': 22375.068}]


def test_intervals_name_the_side_the_client_measured():
    # UDP: the client's lines are what it sent (the receiver's loss is in the server report only)
    res = run('fk-udp-loss', 'udp_stream')
    assert all('throughput_mbps' not in s and s['throughput_sent_mbps'] > 700 for s in res['intervals'])
    assert res['metrics']['throughput_mbps'] == 574.315
    # -u -R: the client received, its lines carry jitter/loss: the receiver's rate
    assert all('throughput_mbps' in s for s in run('fk-udp-R', 'udp_stream')['intervals'])
    assert all('throughput_mbps' in s and 'throughput_sent_mbps' not in s
               for s in run('fk-tcp-R', 'tcp_maerts')['intervals'])


def test_mss_after_the_test_2_0():
    # 2.0.x has no icwnd/mss/irtt in its connect line; with -m it prints the MSS in use after the test
    res = run_2013('tcp-e-m')
    assert res['error'] is None and res['mss'] == 1448
    assert res['metrics']['throughput_mbps'] == 942.142
    assert res['intervals'][1] == {'t': 2.0, 'throughput_sent_mbps': 941.621, 'retransmits': 0.0}
    assert run_2013('tcp-jumbo-e-m')['mss'] == 8948
    res = run_2013('tcp-P4-e-m')
    assert res['mss'] == 1448 and res['streams'] == 4
    assert res['metrics'] == {'throughput_mbps': 937.453, 'throughput_sent_mbps': 937.453, 'retransmits': 6.0}
    assert [s['throughput_sent_mbps'] for s in res['intervals']] == [942.67, 941.622]
    assert parse_iperf2.parse_mss('[  3] MSS size 1448 bytes (MTU 1500 bytes, ethernet)\n') == 1448
    # 2.1.8 with -m: the line before connecting is not read, the connect line is
    assert run('fk-tcp-m')['mss'] == 32741
