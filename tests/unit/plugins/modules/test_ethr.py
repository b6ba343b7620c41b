# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os
import socket
import tempfile
import time

import pytest


from ansible_collections.perflab.network.plugins.module_utils.host import process
from ansible_collections.perflab.network.plugins.modules import ethr
from ansible_collections.perflab.network.tests.unit.plugins.modules.tool_fakes import FakeTool, install_fake_tool, read_fixture
from ansible_collections.perflab.network.tests.unit.plugins.modules import tool_fakes

ETHR = '/opt/perflab/bin/ethr'


def fixture(name):
    return read_fixture('ethr', '1.0.0-5', name)


@pytest.fixture
def tools(monkeypatch):
    def install(outputs, rc=0, help_text=None, installed=True):
        fake = FakeTool(outputs, ['-h'], fixture('help.txt') if help_text is None else help_text, rc,
                        result_defaults={'started_at': '2026-11-29T18:23:19.000Z', 'ended_at': '2026-11-29T18:23:25.000Z'})
        return install_fake_tool(monkeypatch, ETHR, fake, installed)
    return install


def run_module(args, capsys, check_mode=False):
    return tool_fakes.run_module(ethr, args, capsys, check_mode)


def test_tcp_bandwidth(tools, capsys):
    fake = tools([fixture('tcp_bw.txt')])
    result = run_module({'server': '10.77.0.1', 'duration': 5}, capsys)
    assert fake.test_calls == [[ETHR, '-c', '10.77.0.1', '-port', '8888', '-t', 'b', '-p', 'tcp', '-n', '1',
                                '-d', '5s', '-no']]
    assert fake.timeout == 5 + 5 + 30
    record = result['perflab_result'][0]
    assert record['status'] == 'ok'
    assert record['tool'] == 'ethr' and record['tool_version'] == '1.0.0-5-g86e0704'
    assert (record['test'], record['protocol'], record['direction']) == ('tcp_stream', 'tcp', 'client_to_server')
    assert record['test_id'] == 'ethr/tcp_stream/parallel=1'
    assert record['primary'] == 'throughput_mbps'
    assert record['metrics']['throughput_mbps']['value'] == pytest.approx(13320.0)
    assert len(record['intervals']) == 5
    assert record['raw'] == fixture('tcp_bw.txt')


def test_tcp_bandwidth_threads_and_options(tools, capsys):
    fake = tools([fixture('tcp_bw_n4.txt')])
    result = run_module({'server': '10.99.0.1', 'parallel': 4, 'duration': 3, 'port': 9999, 'bind': '10.99.0.2',
                         'buffer_length': 131072, 'rate_mbps': 2500, 'warmup': 2, 'decimal_precision': 2}, capsys)
    assert fake.test_calls == [[ETHR, '-c', '10.99.0.1', '-port', '9999', '-t', 'b', '-p', 'tcp', '-n', '4',
                                '-d', '3s', '-ip', '10.99.0.2', '-l', '131072', '-b', '2500000000', '-w', '2',
                                '-dp', '2', '-no']]
    record = result['perflab_result'][0]
    assert record['test_id'] == 'ethr/tcp_stream/buffer_length=131072/rate_mbps=2500/warmup=2/parallel=4'
    assert record['parallel'] == 4
    assert record['metrics']['throughput_mbps']['value'] == pytest.approx(9566.667, abs=1e-3)


def test_reverse(tools, capsys):
    fake = tools([fixture('tcp_bw_reverse.txt')])
    result = run_module({'server': '10.99.0.1', 'reverse': True, 'duration': 3}, capsys)
    assert fake.test_calls[0][-3:] == ['3s', '-r', '-no']
    record = result['perflab_result'][0]
    assert (record['test'], record['direction']) == ('tcp_maerts', 'server_to_client')
    assert record['test_id'] == 'ethr/tcp_maerts/parallel=1'


def test_udp_bandwidth(tools, capsys):
    fake = tools([fixture('udp_bw.txt')])
    result = run_module({'server': '10.77.0.1', 'protocol': 'udp', 'parallel': 8, 'buffer_length': 1472}, capsys)
    assert fake.test_calls[0][5:10] == ['-t', 'b', '-p', 'udp', '-n']
    record = result['perflab_result'][0]
    assert (record['test'], record['protocol']) == ('udp_stream', 'udp')
    assert record['test_id'] == 'ethr/udp_stream/buffer_length=1472/parallel=8'
    assert record['metrics']['packets_per_s']['value'] == pytest.approx(30200.0)
    # the rate ethr 1.0 prints for UDP is what the client sent: named so, and ranked by it
    assert record['status'] == 'ok' and record['primary'] == 'throughput_sent_mbps'
    assert record['metrics']['throughput_sent_mbps']['value'] == pytest.approx(3840.0)
    assert 'throughput_mbps' not in record['metrics']


def test_connections(tools, capsys):
    fake = tools([fixture('tcp_cps.txt')])
    result = run_module({'server': '10.77.0.1', 'test': 'connections', 'parallel': 64, 'duration': 5}, capsys)
    assert fake.test_calls[0] == [ETHR, '-c', '10.77.0.1', '-port', '8888', '-t', 'c', '-p', 'tcp', '-n', '64',
                                  '-d', '5s', '-no']
    record = result['perflab_result'][0]
    assert record['test'] == 'connections'
    assert record['test_id'] == 'ethr/connections/parallel=64'
    assert record['primary'] == 'connections_per_s'
    assert record['metrics']['connections_per_s'] == {'value': pytest.approx(10420.0), 'unit': '1/s',
                                                      'higher_is_better': True}


def test_per_second_values_carry_no_float_noise(tools, capsys):
    # issue 29: "8.12K" read as 8.12 * 1000 is 8119.999999999999; the record holds 8120.0, each second and the total
    fake_output = fixture('tcp_cps.txt').replace('11.5K', '8.12K').replace('10.1K', '8.12K')
    tools([fake_output])
    record = run_module({'server': '10.77.0.1', 'test': 'connections', 'duration': 5}, capsys)['perflab_result'][0]
    assert [sample['connections_per_s'] for sample in record['intervals']] == [8120.0, 11100.0, 8120.0, 9200.0, 10200.0]
    assert record['metrics']['connections_per_s']['value'] == 9348.0
    assert all(repr(value) == repr(float('%.12g' % value)) for sample in record['intervals']
               for value in sample.values() if isinstance(value, float))


def test_latency(tools, capsys):
    fake = tools([fixture('tcp_lat.txt')])
    result = run_module({'server': '10.77.0.1', 'test': 'latency', 'iterations': 1000, 'gap': 0.5,
                         'duration': 5}, capsys)
    assert fake.test_calls[0][5:] == ['-t', 'l', '-p', 'tcp', '-n', '1', '-d', '5s', '-i', '1000', '-g', '500ms',
                                      '-no']
    record = result['perflab_result'][0]
    assert (record['test'], record['direction']) == ('tcp_latency', 'bidirectional')
    assert record['primary'] == 'latency_us_mean'
    assert record['metrics']['latency_us_max']['value'] == 421.004
    assert record['metrics']['latency_us_p50']['value'] == pytest.approx(33.6195)
    # one sample per measurement; ethr prints no time for them (6 rows in a 5 s run): none is made up
    assert [sample['n'] for sample in record['intervals']] == [1, 2, 3, 4, 5, 6]
    assert {sample['t'] for sample in record['intervals']} == {None}
    assert record['notes'] == []


def test_latency_ignores_parallel_and_says_so(tools, capsys):
    fake = tools([fixture('tcp_lat.txt')])
    result = run_module({'server': '10.77.0.1', 'test': 'latency', 'parallel': 8, 'duration': 5}, capsys)
    # ethr 1.0 ignores -n for latency: the argv, the record and its id say what really ran
    assert fake.test_calls[0][9:11] == ['-n', '1']
    record = result['perflab_result'][0]
    assert record['status'] == 'ok'
    assert record['parallel'] == 1
    assert record['test_id'] == 'ethr/tcp_latency/parallel=1'
    assert len(record['notes']) == 1 and 'parallel 8 ignored' in record['notes'][0]


def test_the_latency_note_names_every_value_the_plan_merged(tools, capsys):
    # issue 29: the plan made one test of parallel [1, 8, 64]; the note named only 64
    tools([fixture('tcp_lat.txt')])
    result = run_module({'server': '10.77.0.1', 'test': 'latency', 'parallel': 64, 'parallel_values': [1, 8, 64],
                         'duration': 5}, capsys)
    assert result['perflab_result'][0]['notes'] == [
        'parallel 8, 64 ignored: ethr 1.0 runs the latency test over one connection whatever -n says '
        '(parallel recorded as 1)']


def test_packets(tools, capsys):
    fake = tools([fixture('udp_pps-from-docs.txt')])
    result = run_module({'server': '10.77.0.1', 'test': 'packets', 'duration': 3}, capsys)
    assert fake.test_calls[0][5:9] == ['-t', 'p', '-p', 'udp']
    record = result['perflab_result'][0]
    assert (record['test'], record['protocol']) == ('packets', 'udp')
    assert record['metrics']['packets_per_s']['value'] == pytest.approx(405333.33, abs=0.01)


def test_unreachable_server_is_a_failure_despite_exit_0(tools, capsys):
    tools([fixture('unreachable.txt')], rc=0)
    result = run_module({'server': '10.99.0.9'}, capsys)
    assert result['failed'] is True
    assert result['msg'] == 'ethr: Error dialing control connection: dial tcp4 :0->10.99.0.9:8888: i/o timeout'
    assert result['perflab_result'][0]['status'] == 'failed'


def test_http_listed_in_help_but_refused(tools, capsys):
    fake = tools([fixture('http_bw.txt')], rc=1)
    result = run_module({'server': '10.77.0.1', 'test': 'http'}, capsys)
    assert fake.test_calls[0][5:9] == ['-t', 'b', '-p', 'http']
    assert result['failed'] is True
    assert result['msg'] == ('the installed ethr (1.0.0-5-g86e0704) has no HTTP test: it refuses -p http '
                             '(its help still lists http; ethr 1.0 removed the HTTP tests)')
    assert result['perflab_result'][0]['test_id'] == 'ethr/http_bandwidth/parallel=1'


def test_http_not_in_help_fails_before_running(tools, capsys):
    # the real help with http/https taken out, as a build without HTTP prints it
    help_text = fixture('help.txt').replace('"tcp", "udp", "http", "https", or "icmp"', '"tcp", "udp", or "icmp"')
    fake = tools([], help_text=help_text)
    result = run_module({'server': '10.77.0.1', 'test': 'http'}, capsys)
    assert fake.test_calls == []
    assert result['msg'] == ('the installed ethr (1.0.0-5-g86e0704) has no HTTP test: its help lists only '
                             'tcp, udp, icmp')


def test_decimal_precision_needs_dp_in_help(tools, capsys):
    help_text = '\n'.join(line for line in fixture('help.txt').splitlines() if not line.strip().startswith('-dp'))
    fake = tools([], help_text=help_text)
    result = run_module({'server': '10.77.0.1', 'decimal_precision': 2}, capsys)
    assert fake.test_calls == []
    assert result['msg'] == 'decimal_precision needs an ethr whose help lists -dp; 1.0.0-5-g86e0704 does not'


def test_two_processes(tools, capsys):
    fake = tools([fixture('tcp_bw.txt'), fixture('tcp_bw_reverse.txt')])
    result = run_module({'server': '10.77.0.1', 'processes': 2}, capsys)
    assert [call[3:5] for call in fake.test_calls] == [['-port', '8888'], ['-port', '8889']]
    record = result['perflab_result'][0]
    assert record['test_id'] == 'ethr/tcp_stream/processes=2/parallel=1'
    assert [p['port'] for p in record['processes']] == [8888, 8889]
    assert record['metrics']['throughput_mbps']['value'] == pytest.approx(13320.0 + 5533.333, abs=1e-3)
    assert [s['t'] for s in record['intervals']] == [1.0, 2.0, 3.0]


def test_check_mode(tools, capsys):
    fake = tools([])
    result = run_module({'server': '10.77.0.1', 'test': 'connections'}, capsys, check_mode=True)
    assert fake.test_calls == []
    record = result['perflab_result'][0]
    assert record['status'] == 'skipped'
    assert record['command'] == [ETHR, '-c', '10.77.0.1', '-port', '8888', '-t', 'c', '-p', 'tcp', '-n', '1',
                                 '-d', '10s', '-no']


def test_missing_binary(tools, capsys):
    tools([], installed=False)
    result = run_module({'server': '10.77.0.1'}, capsys)
    assert result['failed'] is True
    assert result['msg'].startswith('ethr is not installed on this host (looked in ')
    assert result['msg'].endswith('install it with the perflab.network.tools role, or add its folder to tool_paths '
                                  "(the benchmark role's benchmark_tool_paths, benchmark_windows_tool_paths)")


def test_ethr_path_not_executable(tools, capsys):
    tools([], installed=False)
    result = run_module({'server': '10.77.0.1', 'ethr_path': '/nonexistent/ethr'}, capsys)
    assert result['msg'] == 'ethr_path /nonexistent/ethr is not an executable file'


def test_found_in_opt_perflab(monkeypatch, tmp_path):
    binary = tmp_path / 'ethr'
    binary.write_text(u'#!/bin/sh\n')
    binary.chmod(0o755)
    # where the tools role installs it (process.INSTALL_DIR) is searched beside PATH
    monkeypatch.setenv('PATH', '/nonexistent')
    monkeypatch.setattr(process, 'EXTRA_BIN_DIRS', (str(tmp_path),))
    assert process.which('ethr') == str(binary)


@pytest.mark.parametrize('args, message', [
    ({'test': 'connections', 'protocol': 'udp'}, 'protocol udp applies to the bandwidth test only'),
    ({'test': 'latency', 'reverse': True}, 'reverse applies to the TCP bandwidth test only'),
    ({'protocol': 'udp', 'reverse': True}, 'reverse applies to the TCP bandwidth test only'),
    ({'test': 'latency', 'buffer_length': 1000}, 'buffer_length applies to the bandwidth tests only'),
    ({'iterations': 10}, 'iterations applies to the latency test only'),
    ({'test': 'latency', 'processes': 2}, 'processes must be 1 for the latency test'),
    ({'protocol': 'udp', 'buffer_length': 70000}, 'buffer_length must be between 1 and 65507, got 70000'),
    ({'rate_mbps': -1}, 'rate_mbps must be between 0 and 10000000'),
    ({'parallel': 0}, 'parallel must be between 1 and 128, got 0'),
    ({'server': '$(reboot)'}, 'server must be an IP address or a host name'),
])
def test_bad_input(tools, capsys, args, message):
    fake = tools([])
    result = run_module(dict({'server': '10.77.0.1'}, **args), capsys)
    assert result['failed'] is True
    assert message in result['msg']
    assert fake.calls == []


# ---------------------------------------------------------------- live, when a binary is there

def _free_port():
    sock = socket.socket()
    sock.bind(('127.0.0.1', 0))
    port = sock.getsockname()[1]
    sock.close()
    return port


def test_live_loopback_bandwidth(capsys):
    binary = process.which('ethr')
    if binary is None:
        pytest.skip('no ethr binary on this host (looked on PATH and in /opt/perflab/bin): no registry has ethr, '
                    'install the release binary to run the live ethr test')
    port = _free_port()
    log = tempfile.NamedTemporaryFile(prefix='h2-ethr-server-', suffix='.log', delete=False)
    log.close()
    pid = process.spawn_detached([binary, '-s', '-ip', '127.0.0.1', '-port', str(port), '-no'], log.name)
    try:
        deadline = time.time() + 5
        while time.time() < deadline and not process.port_accepts('127.0.0.1', port):
            time.sleep(0.1)
        result = run_module({'server': '127.0.0.1', 'port': port, 'duration': 2, 'ethr_path': binary}, capsys)
        record = result['perflab_result'][0]
        assert record['status'] == 'ok', record['error']
        assert record['metrics']['throughput_mbps']['value'] > 0
    finally:
        process.kill_group(pid)
        os.unlink(log.name)


def test_a_failed_record_keeps_the_nic_samples_but_no_nic_metrics(tools, capsys, monkeypatch):
    from ansible_collections.perflab.network.plugins.module_utils.host import platform as host_platform
    from ansible_collections.perflab.network.plugins.module_utils.bench import runner

    class Sampler(object):
        def __init__(self, interface, interval=1.0):
            self.interface = interface

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def elapsed(self):
            return 3.2

        def result(self, window=None):
            return {'interface': self.interface, 'samples': [], 'rx_mbps': 0.0, 'tx_mbps': 0.0, 'window': window}
    monkeypatch.setattr(host_platform.LinuxHost, 'nic_sampler', staticmethod(lambda name, interval=1.0, peer=None: Sampler(name)))
    monkeypatch.setattr(host_platform.LinuxHost, 'interface_exists', staticmethod(lambda name: True))
    tools([fixture('unreachable.txt')])
    result = run_module({'server': '10.99.0.9', 'duration': 3, 'nic_interface': 'data0'}, capsys)
    record = result['perflab_result'][0]
    assert record['status'] == 'failed'
    assert record['nic']['interface'] == 'data0'
    assert not [name for name in record['metrics'] if name.startswith('nic_')]


def test_the_nic_window_is_the_seconds_ethr_measured(tools, capsys, monkeypatch):
    from ansible_collections.perflab.network.plugins.module_utils.host import platform as host_platform
    from ansible_collections.perflab.network.plugins.module_utils.bench import runner
    seen = {}

    class Sampler(object):
        def __init__(self, interface, interval=1.0):
            pass

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def elapsed(self):
            return 6.4   # ethr's start-up, then its 5 one-second intervals

        def result(self, window=None):
            seen['window'] = window
            return {'interface': 'data0', 'samples': [], 'rx_mbps': 1.0, 'tx_mbps': 13000.0, 'window': window}
    monkeypatch.setattr(host_platform.LinuxHost, 'nic_sampler', staticmethod(lambda name, interval=1.0, peer=None: Sampler(name)))
    monkeypatch.setattr(host_platform.LinuxHost, 'interface_exists', staticmethod(lambda name: True))
    tools([fixture('tcp_bw.txt')])
    record = run_module({'server': '10.77.0.1', 'duration': 5, 'nic_interface': 'data0'}, capsys)['perflab_result'][0]
    assert seen['window'] == (pytest.approx(1.4), 6.4)
    assert record['metrics']['nic_tx_mbps']['value'] == 13000.0


def test_optional_http_refused_is_skipped_with_the_tools_reason(tools, capsys):
    # a suite's optional: true (ethr HTTP): the real refusal of ethr 1.0 makes a skipped record, not a failure
    fake = tools([fixture('http_bw.txt')], rc=1)
    result = run_module({'server': '10.77.0.1', 'test': 'http', 'optional': True}, capsys)
    assert fake.test_calls[0][5:9] == ['-t', 'b', '-p', 'http']
    assert not result.get('failed')
    record = result['perflab_result'][0]
    assert record['status'] == 'skipped'
    assert record['error'] == ('the installed ethr (1.0.0-5-g86e0704) has no HTTP test: it refuses -p http '
                               '(its help still lists http; ethr 1.0 removed the HTTP tests)')


def test_optional_test_the_help_lacks_is_skipped_without_running(tools, capsys):
    help_text = fixture('help.txt').replace('"tcp", "udp", "http", "https", or "icmp"', '"tcp", "udp", or "icmp"')
    fake = tools([], help_text=help_text)
    result = run_module({'server': '10.77.0.1', 'test': 'http', 'optional': True}, capsys)
    assert fake.test_calls == [] and not result.get('failed')
    record = result['perflab_result'][0]
    assert (record['status'], record['error']) == (
        'skipped', 'the installed ethr (1.0.0-5-g86e0704) has no HTTP test: its help lists only tcp, udp, icmp')


def test_a_failure_of_an_optional_test_that_is_no_refusal_still_fails(tools, capsys):
    tools([fixture('unreachable.txt')], rc=0)
    result = run_module({'server': '10.99.0.9', 'optional': True}, capsys)
    assert result['failed'] is True and result['perflab_result'][0]['status'] == 'failed'
