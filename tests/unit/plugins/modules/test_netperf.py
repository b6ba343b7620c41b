# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import pytest

from ansible_collections.perflab.network.plugins.module_utils.tools.netperf import parse as parse_netperf
from ansible_collections.perflab.network.plugins.module_utils.host import process
from ansible_collections.perflab.network.plugins.module_utils.host import platform as host_platform
from ansible_collections.perflab.network.plugins.module_utils.bench import runner
from ansible_collections.perflab.network.plugins.modules import netperf
from ansible_collections.perflab.network.tests.unit.plugins.modules.tool_fakes import FakeTool, install_fake_tool, read_fixture
from ansible_collections.perflab.network.tests.unit.plugins.modules import tool_fakes

NETPERF = '/usr/bin/netperf'
STREAM = ','.join(parse_netperf.STREAM_SELECTORS)
RR = ','.join(parse_netperf.RR_SELECTORS)


def fixture(name):
    return read_fixture('netperf', '2.7.0', name)


@pytest.fixture
def tools(monkeypatch):
    def install(outputs, rc=0, installed=True):
        fake = FakeTool(outputs, ['-V'], fixture('version.stdout'), rc, result_defaults={'elapsed_s': 2.0})
        return install_fake_tool(monkeypatch, NETPERF, fake, installed)
    return install


def run_module(args, capsys, check_mode=False):
    return tool_fakes.run_module(netperf, args, capsys, check_mode)


def test_default_tcp_stream_command_and_record(tools, capsys):
    fake = tools([fixture('tcp_stream.csv.stdout')])
    result = run_module({'server': '10.202.1.1', 'duration': 2}, capsys)
    assert fake.test_calls == [[NETPERF, '-H', '10.202.1.1', '-p', '12865', '-t', 'TCP_STREAM', '-l', '2',
                                '-c', '-C', '-D', '1', '-P', '0', '--', '-P', ',12866', '-o', STREAM]]
    assert fake.timeout == 2 + 5 + 30
    assert result['changed'] is False
    record = result['perflab_result'][0]
    assert record['status'] == 'ok' and record['error'] is None
    assert record['schema'] == 'perflab.result/2'
    assert record['tool'] == 'netperf' and record['tool_version'] == '2.7.0'
    assert (record['test'], record['protocol'], record['direction']) == ('tcp_stream', 'tcp', 'client_to_server')
    assert record['test_id'] == 'netperf/tcp_stream/parallel=1'
    assert record['primary'] == 'throughput_mbps'
    assert record['metrics']['throughput_mbps'] == {'value': 7877.63, 'unit': 'Mbit/s', 'higher_is_better': True}
    assert record['metrics']['cpu_remote_pct']['value'] == 100.0
    assert record['metrics']['retransmits'] == {'value': 21.0, 'unit': 'count', 'higher_is_better': False}
    assert record['metrics']['mss_bytes'] == {'value': 65483.0, 'unit': 'bytes', 'higher_is_better': True}
    assert record['intervals'] == [{'t': 2.0, 'throughput_sent_mbps': 7888.8}]
    assert record['command'] == fake.test_calls[0] and record['commands'] == fake.test_calls
    assert record['processes'] is None
    assert record['raw'] == fixture('tcp_stream.csv.stdout')
    assert (record['started_at'], record['ended_at']) == ('2026-11-29T18:00:01.000Z', '2026-11-29T18:00:03.000Z')


def test_tcp_rr_with_every_option(tools, capsys, monkeypatch):
    # module warnings go through a process-wide store whose output depends on what ran before
    # (a controller-side test switches it to the display); record them at the source
    warned = []
    monkeypatch.setattr(runner.AnsibleModule, 'warn', lambda self, msg: warned.append(msg))
    fake = tools([fixture('tcp_rr.confidence.csv.stdout')])
    result = run_module({'server': 'server-b.lab', 'port': 12000, 'test': 'tcp_rr', 'duration': 30,
                         'bind': '10.202.1.2', 'data_port': 13000, 'local_data_port': 14000, 'request_size': 64,
                         'response_size': 1024, 'local_socket_buffer': 262144, 'remote_socket_buffer': 524288,
                         'cpu': False, 'interval': 0,
                         'confidence': {'level': 95, 'width': 2.5, 'min_iterations': 3, 'max_iterations': 5}},
                        capsys)
    assert fake.test_calls == [[NETPERF, '-H', 'server-b.lab', '-p', '12000', '-t', 'TCP_RR', '-l', '30',
                                '-L', '10.202.1.2', '-i', '5,3', '-I', '95,2.5', '-P', '0', '--',
                                '-P', '14000,13000', '-r', '64,1024', '-s', '262144', '-S', '524288', '-o', RR]]
    # duration x max iterations + 5 + the common 30 s margin
    assert fake.timeout == 30 * 5 + 5 + 30
    record = result['perflab_result'][0]
    assert record['test_id'] == ('netperf/tcp_rr/local_socket_buffer=262144/remote_socket_buffer=524288/request_size=64/'
                                 'response_size=1024/parallel=1')
    assert record['primary'] == 'transactions_per_s'
    assert record['metrics']['transactions_per_s']['value'] == 81721.33
    assert record['metrics']['latency_us_p99'] == {'value': 47.0, 'unit': 'us', 'higher_is_better': False}
    assert result['confidence'] == [{'iterations': 3, 'width_pct': 171.173, 'level_pct': 95,
                                     'requested_width_pct': 2.5, 'achieved': False}]
    assert any('netperf did not reach 95% +/-1.25% within 5 iterations (width 171%)' in w for w in warned)
    assert record['options']['request_size'] == 64


def test_udp_stream_message_size(tools, capsys):
    fake = tools([fixture('udp_stream.m1472.csv.stdout')])
    result = run_module({'server': '10.202.1.1', 'test': 'udp_stream', 'message_size': 1472, 'data_port': 0}, capsys)
    assert fake.test_calls[0][-5:] == ['--', '-m', '1472', '-o', STREAM]
    record = result['perflab_result'][0]
    assert record['test_id'] == 'netperf/udp_stream/message_size=1472/parallel=1'
    assert record['protocol'] == 'udp'
    assert record['metrics']['lost_percent']['value'] == pytest.approx(56.2144, abs=1e-3)


def test_four_processes_against_one_netserver(tools, capsys):
    outputs = [fixture(name) for name in ('tcp_stream.csv.stdout', 'tcp_stream.nocpu.csv.stdout',
                                          'tcp_stream.banner.stdout', 'tcp_maerts.csv.stdout')]
    # the MAERTS output stands for "a fourth run"; it parses with the STREAM selectors too
    fake = tools(outputs)
    result = run_module({'server': '10.202.1.1', 'processes': 4, 'duration': 2}, capsys)
    calls = fake.test_calls
    assert len(calls) == 4
    for index, call in enumerate(calls):
        assert call[3:5] == ['-p', '12865']
        assert call[call.index('--') + 1:call.index('--') + 3] == ['-P', ',%d' % (12866 + index)]
    record = result['perflab_result'][0]
    assert record['test_id'] == 'netperf/tcp_stream/processes=4/parallel=1'
    assert record['commands'] == calls and record['command'] == calls[0]
    assert [process_['port'] for process_ in record['processes']] == [12866, 12867, 12868, 12869]
    values = [7877.63, 7997.15, 9054.83, 9078.05]
    assert [p['metrics']['throughput_mbps']['value'] for p in record['processes']] == values
    assert record['metrics']['throughput_mbps']['value'] == pytest.approx(sum(values))
    assert record['status'] == 'ok'


def test_consecutive_ports(tools, capsys):
    fake = tools([fixture('tcp_rr.csv.stdout'), fixture('tcp_rr.nocpu.csv.stdout')])
    result = run_module({'server': '10.202.1.1', 'test': 'tcp_rr', 'processes': 2, 'port': 13000,
                         'process_ports': 'consecutive', 'data_port': 0}, capsys)
    assert [call[3:5] for call in fake.test_calls] == [['-p', '13000'], ['-p', '13001']]
    assert all('-P' not in call[call.index('--'):] for call in fake.test_calls)
    record = result['perflab_result'][0]
    assert [p['port'] for p in record['processes']] == [13000, 13001]
    assert record['metrics']['transactions_per_s']['value'] == pytest.approx(71934.31 + 84833.77)


def test_one_failed_process_fails_the_record(tools, capsys):
    fake = tools([fixture('tcp_stream.csv.stdout'), fixture('error.wrong_port.stdout')])
    fake.rc = 0
    result = run_module({'server': '10.202.1.1', 'processes': 2}, capsys)
    assert result['failed'] is True
    record = result['perflab_result'][0]
    assert record['status'] == 'failed'
    assert record['metrics'] == {}
    assert record['error'].startswith('process 2 (port 12867): ')
    assert [p['status'] for p in record['processes']] == ['ok', 'failed']


def test_no_netserver_fails_with_the_record(tools, capsys):
    tools([fixture('error.wrong_port.stdout')], rc=255)
    result = run_module({'server': '127.0.0.1', 'port': 12203}, capsys)
    assert result['failed'] is True
    assert 'are you sure there is a netserver listening on 127.0.0.1 at port 12203?' in result['msg']
    record = result['perflab_result'][0]
    assert record['status'] == 'failed'
    assert record['error'] == result['msg']
    assert record['metrics'] == {}


def test_zero_throughput_fails(tools, capsys):
    tools([fixture('error.self_connect.csv.stdout')])
    result = run_module({'server': '10.202.1.1', 'local_data_port': 12301, 'data_port': 12301}, capsys)
    assert result['failed'] is True
    assert result['msg'].startswith('netperf measured 0')


def test_check_mode_runs_nothing(tools, capsys):
    fake = tools([])
    result = run_module({'server': '10.202.1.1', 'test': 'udp_rr'}, capsys, check_mode=True)
    assert fake.test_calls == []
    record = result['perflab_result'][0]
    assert record['status'] == 'skipped'
    assert record['error'] == 'check mode: netperf did not run'
    assert record['command'][:7] == [NETPERF, '-H', '10.202.1.1', '-p', '12865', '-t', 'UDP_RR']


def test_netperf_missing(tools, capsys):
    tools([], installed=False)
    result = run_module({'server': '10.202.1.1'}, capsys)
    assert result['failed'] is True
    assert result['msg'].startswith('netperf is not installed on this host (looked in ')


@pytest.mark.parametrize('args, message', [
    ({'parallel': 2}, 'parallel must be 1: netperf runs one stream per process (use processes), got 2'),
    ({'test': 'tcp_stream', 'request_size': 64}, 'request_size applies to tcp_rr, tcp_crr and udp_rr only'),
    ({'test': 'tcp_rr', 'message_size': 64}, 'message_size applies to tcp_stream, tcp_maerts and udp_stream only'),
    ({'test': 'udp_stream', 'message_size': 70000}, 'message_size must be at most 65507 for udp_stream'),
    ({'server': '127.0.0.1', 'local_data_port': 20000, 'data_port': 20001, 'processes': 2},
     'local_data_port and data_port ranges overlap while the server is this host'),
    ({'data_port': 65535, 'processes': 2}, 'data_port must be between 1 and 65534'),
    ({'confidence': {'min_iterations': 5, 'max_iterations': 4}},
     'confidence.min_iterations (5) must not exceed confidence.max_iterations (4)'),
    ({'confidence': {'max_iterations': 40}}, 'confidence.max_iterations must be between 3 and 30, got 40'),
    ({'confidence': {'width': 0}}, 'confidence.width must be more than 0'),
    ({'interval': -1}, 'interval must be between 0 and 3600, got -1'),
    ({'server': '10.0.0.1; reboot'}, 'server must be an IP address or a host name'),
    ({'port': 70000}, 'port must be between 1 and 65535, got 70000'),
])
def test_bad_input_fails_before_running(tools, capsys, args, message):
    fake = tools([])
    result = run_module(dict({'server': '10.202.1.1'}, **args), capsys)
    assert result['failed'] is True
    assert message in result['msg']
    assert fake.calls == []


def test_bad_choice_fails(tools, capsys):
    fake = tools([])
    result = run_module({'server': '10.202.1.1', 'test': 'TCP_STREAM'}, capsys)
    assert result['failed'] is True and 'value of test must be one of' in result['msg']
    assert fake.calls == []


def test_nic_sampling(tools, capsys, monkeypatch):
    class FakeSampler(object):
        def __init__(self, interface, interval=1.0):
            self.interface = interface

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def elapsed(self):
            return 12.0

        def result(self, window=None):
            self.window = window
            return {'interface': self.interface, 'samples': [], 'rx_mbps': 12.5, 'tx_mbps': 18500.0}
    monkeypatch.setattr(host_platform.LinuxHost, 'nic_sampler', staticmethod(lambda name, interval=1.0, peer=None: FakeSampler(name)))
    monkeypatch.setattr(host_platform.LinuxHost, 'interface_exists', staticmethod(lambda name: True))
    tools([fixture('tcp_stream.csv.stdout')])
    result = run_module({'server': '10.202.1.1', 'nic_interface': 'h2-vb'}, capsys)
    record = result['perflab_result'][0]
    assert record['nic']['interface'] == 'h2-vb'
    assert record['metrics']['nic_tx_mbps']['value'] == 18500.0


def test_local_data_port_only(tools, capsys):
    fake = tools([fixture('tcp_rr.csv.stdout')])
    run_module({'server': '10.202.1.1', 'test': 'tcp_rr', 'data_port': 0, 'local_data_port': 5000}, capsys)
    command = fake.test_calls[0]
    assert command[command.index('--'):command.index('--') + 3] == ['--', '-P', '5000,']


def test_timeout_kills_and_fails(tools, capsys, monkeypatch):
    def hung(argv, timeout, env=None):
        if argv[1:] == ['-V']:
            return process.ProcessResult(argv, rc=0, stdout=fixture('version.stdout'))
        # what process.run returns after killing the group: the interim lines printed so far
        return process.ProcessResult(argv, rc=-15, stdout='9000.1,10^6bits/s,1.000,1795977929.541\n', timed_out=True,
                                     started_at='2026-11-29T18:00:01.000Z', ended_at='2026-11-29T18:00:41.000Z')
    tools([])
    monkeypatch.setattr(process, 'run', hung)
    result = run_module({'server': '10.202.1.1', 'duration': 5, 'timeout': 40}, capsys)
    assert result['failed'] is True
    assert result['msg'] == 'netperf did not finish within the 40 s timeout: its process group was killed'
    assert result['perflab_result'][0]['raw'].startswith('9000.1,10^6bits/s')


# ---------------------------------------------------------------- live, on loopback

def _free_port():
    import socket
    sock = socket.socket()
    sock.bind(('127.0.0.1', 0))
    port = sock.getsockname()[1]
    sock.close()
    return port


@pytest.mark.parametrize('test, primary', [('tcp_rr', 'transactions_per_s'), ('tcp_stream', 'throughput_mbps')])
def test_live_loopback(capsys, tmp_path, test, primary):
    # the real process module: this test runs netperf
    netserver = process.which('netserver')
    if netserver is None or process.which('netperf') is None:
        pytest.skip('netperf/netserver are not installed on this host (Debian: non-free package netperf)')
    control, data = _free_port(), _free_port()
    # -D: do not daemonize, so the process group can be killed
    pid = process.spawn_detached([netserver, '-D', '-L', '127.0.0.1,inet', '-p', str(control)],
                                 str(tmp_path / 'netserver.log'))
    try:
        for _attempt in range(50):
            if process.port_accepts('127.0.0.1', control):
                break
            import time
            time.sleep(0.1)
        result = run_module({'server': '127.0.0.1', 'port': control, 'data_port': data, 'test': test,
                             'duration': 1}, capsys)
        record = result['perflab_result'][0]
        assert record['status'] == 'ok', record['error']
        assert record['metrics'][primary]['value'] > 0
        assert record['tool_version'] == '2.7.0' or record['tool_version']
    finally:
        process.kill_group(pid)


def test_four_processes_record_their_common_window_through_the_runner(tools, capsys):
    """The runner's path: 4 real netperf outputs (processes4: the 4th started 0.5 s late) give the record the
    processes' common window, each one's rate over it and their sum beside the sum of their own averages."""
    fake = tools([fixture('processes4/p%d.stdout' % index) for index in range(4)])
    result = run_module({'server': '10.202.1.1', 'processes': 4, 'duration': 5}, capsys)
    assert len(fake.test_calls) == 4
    record = result['perflab_result'][0]
    window = record['common_window']
    assert window['metric'] == 'throughput_sent_mbps'
    assert 0.45 < window['start_s'] < 0.6 and len(window['processes_mbps']) == 4
    assert record['metrics']['throughput_common_mbps']['value'] == window['sum_mbps']
    assert record['metrics']['throughput_mbps']['value'] == pytest.approx(
        sum(p['metrics']['throughput_mbps']['value'] for p in record['processes']))


def test_one_process_has_no_common_window(tools, capsys):
    tools([fixture('tcp_stream.csv.stdout')])
    record = run_module({'server': '10.202.1.1', 'duration': 2}, capsys)['perflab_result'][0]
    assert record['common_window'] is None and 'throughput_common_mbps' not in record['metrics']
