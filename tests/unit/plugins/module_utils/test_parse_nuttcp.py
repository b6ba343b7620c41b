# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""parse_nuttcp on real nuttcp 6.1.2 output (tests/unit/fixtures/nuttcp/README.md) and 8.x from-docs files."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os

import pytest

from ansible_collections.perflab.network.plugins.module_utils import parse_nuttcp

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


def test_8x_tcp_from_docs():
    res = run('tcp-t-i1-from-docs', version='8.2.2')
    assert res['error'] is None
    assert res['metrics'] == {'throughput_mbps': 9412.4861, 'retransmits': 2.0,
                              'cpu_local_pct': 14.0, 'cpu_remote_pct': 52.0}
    assert res['extra']['cwnd'] == 3072.0 and res['extra']['host-retrans'] == 0.0
    assert [i['t'] for i in res['intervals']] == [1.0, 2.0]


def test_8x_udp_jitter_from_docs():
    res = run('udp-t-R100m-from-docs', version='8.2.2')
    assert res['metrics']['jitter_ms'] == 0.0046
    assert res['metrics']['lost_percent'] == 1.04849
    assert res['extra']['OWD_ms'] == 0.052
    assert res['intervals'][0]['jitter_ms'] == 0.0041


def test_version():
    assert parse_nuttcp.parse_version(load('6.1.2/version.txt')) == '6.1.2'
    assert parse_nuttcp.parse_version('no version here') == ''
    assert parse_nuttcp.parse_version('nuttcp-8.2.2') == '8.2.2'


def test_zero_received_udp_is_an_error():
    # real: every data datagram dropped by nft, nuttcp exited 0 with megabytes=0.0000 rate_Mbps=0.0000
    res = parse_nuttcp.parse(load('6.1.2/udp-t-R10m-zero-received.txt'), '', 0, transmit=True)
    assert res['error'] == 'the server received 0 bytes of 306 datagrams sent (nuttcp: megabytes=0.0 rate_Mbps=0.0)'
