# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The nuttcp module with process.run/run_many answering from real nuttcp 6.1.2 output (fixtures)."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import pytest

from ansible_collections.perflab.network.plugins.modules import nuttcp
from ansible_collections.perflab.network.tests.unit.plugins.modules.tool_fakes import FakeTool, install_fake_tool, read_fixture
from ansible_collections.perflab.network.tests.unit.plugins.modules import tool_fakes

NUTTCP = '/usr/bin/nuttcp'


def fixture(name):
    return read_fixture('nuttcp', '6.1.2', name)


@pytest.fixture
def tools(monkeypatch):
    def install(outputs, installed=True):
        return install_fake_tool(monkeypatch, NUTTCP, FakeTool(outputs, ['-V'], fixture('version.txt')), installed)
    return install


def run_module(args, capsys, check_mode=False):
    return tool_fakes.run_module(nuttcp, args, capsys, check_mode)


def test_default_tcp_stream(tools, capsys):
    fake = tools([fixture('tcp-t-i1.txt')])
    result = run_module({'server': '10.201.1.2', 'duration': 2}, capsys)
    argv = [NUTTCP, '-fparse', '-t', '-T2', '-i1', '-N1', '-P5000', '-p5001', '10.201.1.2']
    assert fake.test_calls == [argv]
    assert fake.timeout == 2 + 5 + 30
    record = result['perflab_result'][0]
    assert record['status'] == 'ok' and record['error'] is None
    assert record['tool'] == 'nuttcp' and record['tool_version'] == '6.1.2'
    assert (record['test'], record['protocol'], record['direction']) == ('tcp_stream', 'tcp', 'client_to_server')
    assert record['test_id'] == 'nuttcp/tcp_stream/parallel=1'
    assert record['metrics'] == {
        'throughput_mbps': {'value': 9461.949, 'unit': 'Mbit/s', 'higher_is_better': True},
        'retransmits': {'value': 0.0, 'unit': 'count', 'higher_is_better': False},
        'cpu_local_pct': {'value': 16.0, 'unit': '%', 'higher_is_better': False},
        'cpu_remote_pct': {'value': 20.0, 'unit': '%', 'higher_is_better': False},
    }
    assert record['intervals'] == [{'t': 1.0, 'throughput_mbps': 11197.9389, 'retransmits': 0.0}]
    assert record['command'] == argv
    assert record['raw'] == fixture('tcp-t-i1.txt')


def test_one_second_run_has_no_interval_flag(tools, capsys):
    fake = tools([fixture('tcp-t.txt')])
    run_module({'server': '10.201.1.2', 'duration': 1}, capsys)
    assert fake.test_calls == [[NUTTCP, '-fparse', '-t', '-T1', '-N1', '-P5000', '-p5001', '10.201.1.2']]


def test_maerts_with_options(tools, capsys):
    fake = tools([fixture('tcp-r.txt')])
    result = run_module({'server': 'lab2', 'duration': 30, 'test': 'tcp_maerts', 'parallel': 4, 'port': 6000,
                         'data_port': 7000, 'window': '256K', 'length': '64K'}, capsys)
    assert fake.test_calls == [[NUTTCP, '-fparse', '-r', '-T30', '-i1', '-N4', '-P6000', '-p7000', '-w256',
                                '-l65536', 'lab2']]
    record = result['perflab_result'][0]
    assert record['direction'] == 'server_to_client'
    assert record['test_id'] == 'nuttcp/tcp_maerts/length=64K/window=256K/parallel=4'
    # the client receives: local CPU is rx_cpu
    assert record['metrics']['cpu_local_pct']['value'] == 24.0
    assert record['metrics']['cpu_remote_pct']['value'] == 12.0


def test_window_rounds_up_to_kib_and_ipv6(tools, capsys):
    fake = tools([fixture('tcp-t.txt')])
    run_module({'server': 'fd00::2', 'duration': 2, 'window': '1000'}, capsys)
    assert fake.test_calls[0][-3:] == ['-w1', '-6', 'fd00::2']


def test_udp_rate_is_per_stream(tools, capsys):
    fake = tools([fixture('udp-t-N2-R50m-i1.txt')])
    result = run_module({'server': '10.201.1.2', 'duration': 2, 'test': 'udp_stream', 'parallel': 2,
                         'bitrate': 25}, capsys)
    # nuttcp -R is the total in Kbit/s: 2 streams x 25 Mbit/s
    assert fake.test_calls == [[NUTTCP, '-fparse', '-t', '-u', '-T2', '-i1', '-N2', '-P5000', '-p5001',
                                '-R50000', '10.201.1.2']]
    record = result['perflab_result'][0]
    assert record['protocol'] == 'udp'
    assert record['metrics']['lost_percent']['value'] == 0.91764
    assert record['metrics']['lost_packets']['value'] == 14.0
    assert record['metrics']['packets']['value'] == 1526.0


def test_processes_ports(tools, capsys):
    fake = tools([fixture('tcp-t-N4.txt'), fixture('busy-first.txt')])
    result = run_module({'server': '10.201.1.2', 'duration': 2, 'processes': 2, 'parallel': 4}, capsys)
    # control 5000, 5001; data ports after them, 4 per process
    assert fake.test_calls == [
        [NUTTCP, '-fparse', '-t', '-T2', '-i1', '-N4', '-P5000', '-p5002', '10.201.1.2'],
        [NUTTCP, '-fparse', '-t', '-T2', '-i1', '-N4', '-P5001', '-p5006', '10.201.1.2'],
    ]
    record = result['perflab_result'][0]
    assert record['metrics']['throughput_mbps']['value'] == pytest.approx(9109.6878 + 11177.928)
    assert [p['port'] for p in record['processes']] == [5000, 5001]


def test_refused(tools, capsys):
    tools([dict(rc=1, stdout='', stderr=fixture('error-refused.stderr'))])
    result = run_module({'server': '10.201.1.2', 'duration': 2}, capsys)
    assert result['failed'] is True
    assert result['msg'] == 'nuttcp-t: v6.1.2: Error: connect: Connection refused'
    assert result['perflab_result'][0]['status'] == 'failed'


def test_processes_one_refused(tools, capsys):
    tools([fixture('busy-first.txt'), dict(rc=1, stdout='', stderr=fixture('error-busy-nofork.stderr'))])
    result = run_module({'server': '10.201.1.2', 'duration': 2, 'processes': 2}, capsys)
    assert result['msg'] == 'process 2 (port 5001): nuttcp-t: v6.1.2: Error: connect: Connection refused'
    assert result['perflab_result'][0]['metrics'] == {}


def test_timeout(tools, capsys):
    tools([dict(rc=-15, stdout='', timed_out=True)])
    result = run_module({'server': '10.201.1.2', 'duration': 2, 'timeout': 4}, capsys)
    assert result['msg'] == 'nuttcp did not finish within the 4 s timeout: its process group was killed'


def test_check_mode(tools, capsys):
    fake = tools([])
    result = run_module({'server': '10.201.1.2', 'duration': 2, 'test': 'udp_stream', 'bitrate': 100},
                        capsys, check_mode=True)
    assert fake.test_calls == []
    record = result['perflab_result'][0]
    assert record['status'] == 'skipped'
    assert record['command'] == [NUTTCP, '-fparse', '-t', '-u', '-T2', '-i1', '-N1', '-P5000', '-p5001',
                                 '-R100000', '10.201.1.2']


def test_not_installed(tools, capsys):
    tools([], installed=False)
    result = run_module({'server': '10.201.1.2'}, capsys)
    assert result['msg'].startswith('nuttcp is not installed on this host (looked in ')
    assert '/opt/perflab/bin' in result['msg']


@pytest.mark.parametrize('args, msg', [
    ({'parallel': 0}, 'parallel must be between 1 and 128, got 0'),
    ({'duration': -1}, 'duration must be between 1 and 86400, got -1'),
    ({'bitrate': 10}, 'bitrate applies to udp_stream only, not tcp_stream'),
    ({'test': 'udp_stream'}, 'bitrate (Mbit/s per stream, 0 = unlimited) is required for udp_stream'),
    ({'bind': '10.201.1.1'}, 'bind is not supported by nuttcp'),
    ({'window': '12X'}, 'window must be a positive number'),
    ({'data_port': 5000}, 'data ports 5000-5000 overlap the control ports (5000)'),
    ({'processes': 3, 'data_port': 5001}, 'data ports 5001-5003 overlap the control ports (5001, 5002)'),
    ({'data_port': 65535, 'parallel': 2}, 'the data ports run up to 65536'),
    ({'server': 'a;b'}, 'server must be an IP address or a host name'),
    ({'test': 'tcp_bidir'}, 'value of test must be one of'),
])
def test_bad_input_fails_before_running(tools, capsys, args, msg):
    fake = tools([])
    params = {'server': '10.201.1.2'}
    params.update(args)
    result = run_module(params, capsys)
    assert result['failed'] is True
    assert msg in result['msg']
    assert fake.calls == []
