# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""parse_nuttcp on real nuttcp 6.1.2 and 8.2.2 output (tests/unit/fixtures/nuttcp/README.md)."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os

import pytest

from ansible_collections.perflab.network.plugins.module_utils.tools.nuttcp import parse as parse_nuttcp

FIXTURES = os.path.join(os.path.dirname(__file__), '..', '..', 'fixtures', 'nuttcp')


def load(name):
    with open(os.path.join(FIXTURES, name)) as handle:
        return handle.read()


def run(name, transmit=True, version='6.1.2'):
    base = '%s/%s' % (version, name)
    stderr_path = os.path.join(FIXTURES, base + '.stderr')
    stderr = load(base + '.stderr') if os.path.exists(stderr_path) else ''
    rc = 0
    if version == '6.1.2':
        codes = dict(line.split(' rc=') for line in load('6.1.2/exit-codes.txt').split('\n') if line)
        rc = int(codes[name])
    return parse_nuttcp.parse(load(base + '.txt'), stderr, rc, transmit=transmit)


def test_tcp_transmit():
    res = run('tcp-t')
    assert res['error'] is None
    assert res['metrics'] == {'throughput_mbps': 16039.7968, 'retransmits': 0.0,
                              'cpu_local_pct': 14.0, 'cpu_remote_pct': 28.0}
    assert res['extra'] == {'megabytes': 3827.2468, 'real_seconds': 2.0, 'rtt_ms': 0.08}
    assert res['intervals'] == []


def test_tcp_receive_swaps_cpu():
    res = run('tcp-r', transmit=False)
    # tx_cpu=12 rx_cpu=24: the client is the receiver
    assert res['metrics'] == {'throughput_mbps': 13481.7385, 'retransmits': 0.0,
                              'cpu_local_pct': 24.0, 'cpu_remote_pct': 12.0}


def test_tcp_intervals():
    res = run('tcp-t-i1')
    assert res['intervals'] == [{'t': 1.0, 'throughput_mbps': 11197.9389, 'retransmits': 0.0}]
    assert res['metrics']['throughput_mbps'] == 9461.949


def test_multi_stream_has_no_retrans():
    res = run('tcp-t-N4')
    assert res['metrics'] == {'throughput_mbps': 9109.6878, 'cpu_local_pct': 12.0, 'cpu_remote_pct': 19.0}
    res = run('tcp-t-N4-i1')
    assert res['intervals'] == [{'t': 1.0, 'throughput_mbps': 10542.3913}]


def test_udp_loss():
    res = run('udp-t-R100m')
    assert res['metrics'] == {'throughput_mbps': 98.5201, 'lost_packets': 34.0, 'packets': 3042.0,
                              'lost_percent': 1.11758, 'cpu_local_pct': 24.0, 'cpu_remote_pct': 0.0}
    res = run('udp-t-R100m-i1')
    assert res['intervals'] == [{'t': 1.0, 'throughput_mbps': 100.5272, 'lost_packets': 0.0,
                                 'packets': 1534.0, 'lost_percent': 0.0}]
    res = run('udp-r-R100m', transmit=False)
    assert res['metrics']['lost_percent'] == 0.22949
    assert res['metrics']['cpu_local_pct'] == 0.0 and res['metrics']['cpu_remote_pct'] == 60.0


def test_refused():
    res = run('error-refused')
    assert res['error'] == 'nuttcp-t: v6.1.2: Error: connect: Connection refused'
    assert res['version'] == '6.1.2'
    assert res['metrics'] == {}


def test_busy_nofork_server_refuses_second_client():
    assert run('error-busy-nofork')['error'] == 'nuttcp-t: v6.1.2: Error: connect: Connection refused'
    assert run('busy-first')['metrics']['throughput_mbps'] == 11177.928


def test_nonzero_exit_with_a_result_line_is_an_error():
    res = parse_nuttcp.parse(load('6.1.2/tcp-t.txt'), 'nuttcp-t: v6.1.2: Error: something late\n', 1)
    assert res['error'] == 'nuttcp-t: v6.1.2: Error: something late'
    assert res['metrics'] == {}


@pytest.mark.parametrize('stdout, stderr, rc, error', [
    ('', '', 0, 'nuttcp printed no result line (real_seconds=)'),
    ('', '', 1, 'nuttcp exited with code 1 and printed no result line'),
    ('', 'nuttcp-t: Info="x"\nerrno=111\n', 1, 'nuttcp exited with code 1 and printed no result line'),
    ('', 'usage: bad option\n', 1, 'usage: bad option'),
    ('megabytes=1.0 real_seconds=1.00\n', '', 0, 'nuttcp result line has no rate_Mbps'),
])
def test_bad_output(stdout, stderr, rc, error):
    assert parse_nuttcp.parse(stdout, stderr, rc)['error'] == error


# --- nuttcp 8.2.2, real (tests/unit/fixtures/nuttcp/8.2.2/README.md) ---

def test_8x_tcp():
    res = run('tcp-t-i1', version='8.2.2')
    assert res['error'] is None
    assert res['metrics'] == {'throughput_mbps': 23895.5439, 'retransmits': 0.0,
                              'cpu_local_pct': 16.0, 'cpu_remote_pct': 82.0}
    assert res['extra'] == {'megabytes': 5699.0188, 'real_seconds': 2.0, 'cwnd': 511.0, 'rtt_ms': 0.05}
    # one interval line over -T2 (the second second ends with the run)
    assert res['intervals'] == [{'t': 1.0, 'throughput_mbps': 23870.1404, 'retransmits': 0.0}]


def test_8x_tcp_streams_have_retrans():
    # 8.x prints retrans= with -N (6.1.2 did not)
    assert run('tcp-t-N4', version='8.2.2')['metrics']['retransmits'] == 6.0


def test_8x_udp_jitter():
    # -j: msmaxjitter= on the result and interval lines, nothing else about jitter
    res = run('udp-t-R100m-j-i1', version='8.2.2')
    assert res['error'] is None
    m = res['metrics']
    assert (m['throughput_mbps'], m['jitter_max_ms'], m['lost_packets'], m['packets'], m['lost_percent']) == \
        (98.2063, 7.8426, 1.0, 2982.0, 0.03348)
    assert 'jitter_ms' not in m
    assert res['intervals'][0] == {'t': 1.0, 'throughput_mbps': 96.5312, 'lost_packets': 0.0, 'packets': 1473.0,
                                   'lost_percent': 0.0, 'jitter_max_ms': 7.3686}


def test_8x_verbose_jitter_keys():
    # the keys the issue names are real, but only in -v output (the receiver's "nuttcp-r:" line)
    line = [line for line in load('8.2.2/udp-t-R100m-j-v.txt').splitlines() if 'msavgjitter' in line][0]
    pairs = parse_nuttcp.parse_pairs(line)
    assert (pairs['msminjitter'], pairs['msavgjitter'], pairs['msmaxjitter']) == (0.0004, 0.3047, 16.2946)
    assert parse_nuttcp._common_metrics(pairs, True) == {'jitter_ms': 0.3047, 'jitter_max_ms': 16.2946}
    assert 'retrans_by_stream=27+21+32+32' in load('8.2.2/tcp-t-N4-v.txt')


def test_8x_j_makes_tcp_a_udp_test():
    # nuttcp 8 -j without -u still measures UDP (drop/pkt, no retrans): the module never passes -j for TCP
    res = run('tcp-t-j', version='8.2.2')
    assert 'retransmits' not in res['metrics'] and res['metrics']['packets'] == 30.0


def test_version():
    assert parse_nuttcp.parse_version(load('6.1.2/version.txt')) == '6.1.2'
    assert parse_nuttcp.parse_version('no version here') == ''
    assert parse_nuttcp.parse_version('nuttcp-8.2.2') == '8.2.2'


def test_zero_received_udp_is_an_error():
    # real: every data datagram dropped by nft, nuttcp exited 0 with megabytes=0.0000 rate_Mbps=0.0000
    res = parse_nuttcp.parse(load('6.1.2/udp-t-R10m-zero-received.txt'), '', 0, transmit=True)
    assert res['error'] == 'the server received 0 bytes of 306 datagrams sent (nuttcp: megabytes=0.0 rate_Mbps=0.0)'
