# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The iperf3 module with process.run/run_many answering from real iperf3 3.12 output (fixtures)."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json

import pytest

from ansible_collections.perflab.network.plugins.modules import iperf3
from ansible_collections.perflab.network.tests.unit.plugins.modules.tool_fakes import FakeTool, install_fake_tool, read_fixture
from ansible_collections.perflab.network.tests.unit.plugins.modules import tool_fakes

IPERF3 = '/usr/bin/iperf3'
BASE = [IPERF3, '-c', '10.201.1.2', '-p', '5201', '-t', '2', '-P', '1', '-J', '--get-server-output']


def fixture(name):
    return read_fixture('iperf3', name)


@pytest.fixture
def tools(monkeypatch):
    def install(outputs, installed=True, version='3.12/version.txt'):
        text = fixture(version) if version.endswith('.txt') else version
        return install_fake_tool(monkeypatch, IPERF3, FakeTool(outputs, ['--version'], text), installed)
    return install


def run_module(args, capsys, check_mode=False):
    return tool_fakes.run_module(iperf3, args, capsys, check_mode)


def test_default_tcp_stream(tools, capsys):
    fake = tools([fixture('3.12/tcp.json')])
    result = run_module({'server': '10.201.1.2', 'duration': 2, 'run_id': 'R1', 'config': 'stock',
                         'client_name': 'lab1', 'server_name': 'lab2'}, capsys)
    assert fake.test_calls == [BASE]
    assert fake.timeout == 2 + 0 + 5 + 30
    assert result['changed'] is False and 'failed' not in result
    record = result['perflab_result'][0]
    assert record['status'] == 'ok' and record['error'] is None
    assert record['schema'] == 'perflab.result/2'
    assert (record['run_id'], record['config'], record['suite']) == ('R1', 'stock', 'adhoc')
    assert record['tool'] == 'iperf3' and record['tool_version'] == '3.12'
    assert (record['test'], record['protocol'], record['direction']) == ('tcp_stream', 'tcp', 'client_to_server')
    assert record['test_id'] == 'iperf3/tcp_stream/parallel=1'
    assert record['primary'] == 'throughput_mbps'
    assert record['metrics']['throughput_mbps'] == {'value': 13422.164391, 'unit': 'Mbit/s', 'higher_is_better': True}
    assert record['metrics']['retransmits']['value'] == 7.0
    assert record['metrics']['cpu_remote_pct']['value'] == pytest.approx(41.312955)
    assert len(record['intervals']) == 2
    assert record['command'] == BASE and record['commands'] == [BASE]
    assert record['client']['name'] == 'lab1' and record['server'] == {
        'name': 'lab2', 'address': '10.201.1.2', 'interface': None, 'mtu': None}
    assert record['processes'] is None and record['nic'] is None
    assert record['raw'] == fixture('3.12/tcp.json')
    assert (record['started_at'], record['ended_at']) == ('2026-11-29T18:00:01.000Z', '2026-11-29T18:00:03.000Z')
    assert record['options'] == {'test': 'tcp_stream', 'omit': 0, 'zerocopy': False, 'reading': 'receiver'}
    # what ranks the test: the receiver's count, on the server
    assert record['reading'] == {'side': 'receiver', 'host': 'server'}


@pytest.mark.parametrize('test, name, host', [
    ('tcp_stream', '3.12/tcp.json', 'client'),
    ('tcp_maerts', '3.12/tcp-R.json', 'server'),
])
def test_sender_reading_ranks_by_the_senders_count(tools, capsys, test, name, host):
    # the pts/iperf profile reads the client's "sender" line: reading=sender makes that the primary metric
    tools([fixture(name)])
    record = run_module({'server': '10.201.1.2', 'duration': 2, 'test': test, 'reading': 'sender'},
                        capsys)['perflab_result'][0]
    assert record['primary'] == 'throughput_sent_mbps'
    assert record['reading'] == {'side': 'sender', 'host': host}
    assert record['test_id'] == 'iperf3/%s/reading=sender/parallel=1' % test
    data = json.loads(fixture(name))
    assert record['metrics']['throughput_sent_mbps']['value'] == pytest.approx(
        data['end']['sum_sent']['bits_per_second'] / 1e6)
    # the receiver's count stays in the record beside it, and differs from the sender's
    assert record['metrics']['throughput_mbps']['value'] == pytest.approx(
        data['end']['sum_received']['bits_per_second'] / 1e6)
    assert record['metrics']['throughput_mbps']['value'] != record['metrics']['throughput_sent_mbps']['value']


def test_maerts_with_every_option(tools, capsys):
    fake = tools([fixture('3.12/tcp-R.json')])
    result = run_module({'server': 'lab2.example', 'port': 6000, 'duration': 30, 'parallel': 4,
                         'test': 'tcp_maerts', 'omit': 2, 'window': '256K', 'mss': 1400, 'zerocopy': True,
                         'length': '128K', 'connect_timeout': 3000, 'congestion': 'bbr', 'bind': '10.201.1.1'},
                        capsys)
    assert fake.test_calls == [[IPERF3, '-c', 'lab2.example', '-p', '6000', '-t', '30', '-P', '4', '-J', '--get-server-output', '-R',
                                '-O', '2', '-w', '256K', '-M', '1400', '-Z', '-l', '128K',
                                '--connect-timeout', '3000', '-C', 'bbr', '-B', '10.201.1.1']]
    assert fake.timeout == 30 + 2 + 5 + 30
    record = result['perflab_result'][0]
    assert record['direction'] == 'server_to_client'
    assert record['test_id'] == ('iperf3/tcp_maerts/congestion=bbr/length=128K/mss=1400/omit=2/window=256K/'
                                 'zerocopy=true/parallel=4')
    assert record['metrics']['throughput_mbps']['value'] == 10289.633025
    assert record['client']['address'] == '10.201.1.1'


def test_udp_stream_bitrate_per_stream_in_bits(tools, capsys):
    fake = tools([fixture('3.12/udp-P3-b50M.json')])
    result = run_module({'server': '10.201.1.2', 'duration': 2, 'parallel': 3, 'test': 'udp_stream',
                         'bitrate': 50}, capsys)
    assert fake.test_calls == [[IPERF3, '-c', '10.201.1.2', '-p', '5201', '-t', '2', '-P', '3', '-J', '--get-server-output',
                                '-u', '-b', '50000000']]
    record = result['perflab_result'][0]
    assert record['protocol'] == 'udp'
    assert record['test_id'] == 'iperf3/udp_stream/bitrate=50/parallel=3'
    assert record['metrics']['throughput_mbps']['value'] == 150.17705
    assert record['metrics']['lost_percent'] == {'value': 0.0, 'unit': '%', 'higher_is_better': False}
    assert record['metrics']['jitter_ms']['unit'] == 'ms'


def test_fractional_and_unlimited_bitrate(tools, capsys):
    fake = tools([fixture('3.12/udp-b100M.json'), fixture('3.12/udp-b100M.json')])
    run_module({'server': '10.201.1.2', 'duration': 2, 'test': 'udp_stream', 'bitrate': 0.5}, capsys)
    run_module({'server': '10.201.1.2', 'duration': 2, 'test': 'udp_stream', 'bitrate': 0}, capsys)
    assert [call[-2:] for call in fake.test_calls] == [['-b', '500000'], ['-b', '0']]


def test_bidir(tools, capsys):
    fake = tools([fixture('3.12/tcp-bidir.json')])
    record = run_module({'server': '10.201.1.2', 'duration': 2, 'test': 'tcp_bidir'}, capsys)['perflab_result'][0]
    assert fake.test_calls == [BASE + ['--bidir']]
    assert record['direction'] == 'bidirectional'
    assert record['metrics']['throughput_mbps']['value'] == pytest.approx(4339.23346 + 4915.053439)


def test_bidir_refused_on_old_iperf3(tools, capsys):
    fake = tools([], version='iperf 3.1.3\n')
    result = run_module({'server': '10.201.1.2', 'test': 'tcp_bidir'}, capsys)
    assert result['failed'] is True
    assert result['msg'] == 'tcp_bidir needs iperf3 3.7 or later (--bidir); the installed iperf3 is 3.1.3'
    assert fake.calls == [[IPERF3, '--version']]


@pytest.mark.parametrize('name, error', [
    ('3.12/error-refused.json', 'unable to connect to server: Connection refused'),
    ('3.12/error-busy.json', 'the server is busy running a test. try again later'),
])
def test_error_json_with_exit_0_fails(tools, capsys, name, error):
    tools([fixture(name)])
    result = run_module({'server': '10.201.1.2', 'duration': 2}, capsys)
    assert result['failed'] is True and result['msg'] == error
    record = result['perflab_result'][0]
    assert record['status'] == 'failed' and record['error'] == error
    assert record['metrics'] == {}
    assert record['raw'] == fixture(name)


def test_no_json_reports_stderr(tools, capsys):
    tools([dict(rc=1, stdout='', stderr=fixture('3.12/error-usage.stderr'))])
    result = run_module({'server': '10.201.1.2', 'duration': 2}, capsys)
    assert result['msg'] == "iperf3 exited with code 1: iperf3: unrecognized option '--bogus-option'"


def test_hung_tool_timeout(tools, capsys):
    fake = tools([dict(rc=-15, stdout=fixture('3.12/interrupted-sigterm.json'), timed_out=True)])
    result = run_module({'server': '10.201.1.2', 'duration': 2, 'timeout': 9}, capsys)
    assert fake.timeout == 9
    assert result['msg'] == 'iperf3 did not finish within the 9 s timeout: its process group was killed'
    assert result['perflab_result'][0]['status'] == 'failed'


def test_processes_sum_and_each(tools, capsys):
    fake = tools([fixture('3.12/tcp.json'), fixture('3.12/tcp-P4.json')])
    result = run_module({'server': '10.201.1.2', 'duration': 2, 'processes': 2}, capsys)
    assert fake.test_calls == [BASE, [IPERF3, '-c', '10.201.1.2', '-p', '5202', '-t', '2', '-P', '1', '-J', '--get-server-output']]
    record = result['perflab_result'][0]
    assert record['test_id'] == 'iperf3/tcp_stream/processes=2/parallel=1'
    assert record['commands'] == fake.test_calls and record['command'] == BASE
    assert record['metrics']['throughput_mbps']['value'] == pytest.approx(13422.164391 + 6732.731227)
    assert record['metrics']['retransmits']['value'] == 7 + 27
    assert [(p['port'], p['status'], p['metrics']['throughput_mbps']['value']) for p in record['processes']] == [
        (5201, 'ok', 13422.164391), (5202, 'ok', 6732.731227)]
    assert record['intervals'][0]['throughput_sent_mbps'] == pytest.approx(16476.371257 + 6182.950665)
    assert record['raw'].startswith('# ' + ' '.join(BASE) + '\n{')


def test_processes_one_busy_fails_the_record(tools, capsys):
    tools([fixture('3.12/busy-first.json'), fixture('3.12/error-busy.json')])
    result = run_module({'server': '10.201.1.2', 'duration': 2, 'processes': 2}, capsys)
    assert result['msg'] == 'process 2 (port 5202): the server is busy running a test. try again later'
    record = result['perflab_result'][0]
    assert record['status'] == 'failed' and record['metrics'] == {}
    assert [(p['port'], p['status'], p['error']) for p in record['processes']] == [
        (5201, 'ok', None), (5202, 'failed', 'the server is busy running a test. try again later')]


def test_nic_cross_check(tools, capsys, monkeypatch):
    # the tool's (real) output claims Gbit/s, but nothing crossed the sampled interface: the wrong path
    # (lo is shared with whatever else runs on this machine: its rates are pinned, the samples stay real)
    from ansible_collections.perflab.network.plugins.module_utils.host import nic
    monkeypatch.setattr(nic, 'window_rates', lambda samples, window=None: (0.0, 0.0, [0.0, 2.0]))
    tools([fixture('3.12/tcp.json')])
    result = run_module({'server': '10.201.1.2', 'duration': 2, 'nic_interface': 'lo'}, capsys)
    record = result['perflab_result'][0]
    assert record['nic']['interface'] == 'lo' and len(record['nic']['samples']) >= 2
    assert record['client']['interface'] == 'lo' and record['client']['mtu'] == 65536
    assert record['status'] == 'failed' and result['failed']
    assert record['error'].startswith('the data interface lo sent 0.0 Mbit/s while iperf3 measured ')
    assert 'the measured traffic did not cross the data interface (a wrong path?' in record['error']
    # counters that account for the measured rate: ok
    monkeypatch.setattr(nic, 'window_rates', lambda samples, window=None: (50.0, 20000.0, [0.0, 2.0]))
    tools([fixture('3.12/tcp.json')])
    record = run_module({'server': '10.201.1.2', 'duration': 2, 'nic_interface': 'lo'}, capsys)['perflab_result'][0]
    assert record['status'] == 'ok' and record['metrics']['nic_tx_mbps']['value'] == 20000.0
    # what limited it: sampled on this host (real /proc/stat and lo's drop counters; the ping's real output)
    limited = record['limited_by']
    assert limited['verdict'] in ('link', 'nic', 'loss', 'window', 'cpu', 'unknown') and limited['evidence']
    assert limited['path_rtt'] == {'min_ms': 0.038, 'avg_ms': 0.043, 'max_ms': 0.048}
    assert limited['cpu']['busiest'] and set(limited['nic_drops']) <= set(('rx_dropped', 'tx_dropped', 'rx_errors',
                                                                           'tx_errors', 'rx_missed_errors'))
    assert record['server']['interface'] is None and result['perflab_result'][0]['limited_by'] is None   # failed
    # without nic_interface nothing is sampled: the verdict says so
    tools([fixture('3.12/tcp.json')])
    record = run_module({'server': '10.201.1.2', 'duration': 2, 'server_interface': 'data0', 'server_mtu': 9000},
                        capsys)['perflab_result'][0]
    assert record['limited_by']['verdict'] == 'unknown' and 'no nic_interface' in record['limited_by']['evidence']
    assert record['server']['interface'] == 'data0' and record['server']['mtu'] == 9000


def test_check_mode_runs_nothing(tools, capsys):
    fake = tools([])
    result = run_module({'server': '10.201.1.2', 'duration': 2, 'test': 'tcp_maerts'}, capsys, check_mode=True)
    assert fake.test_calls == []
    assert result['changed'] is False
    record = result['perflab_result'][0]
    assert record['status'] == 'skipped' and record['error'] == 'check mode: iperf3 did not run'
    assert record['command'] == BASE + ['-R']


def test_not_installed(tools, capsys):
    fake = tools([], installed=False)
    result = run_module({'server': '10.201.1.2', 'tool_paths': ['/opt/x/bin']}, capsys)
    # the error names every folder the one lookup searched, the given one after PATH
    assert result['msg'].startswith('iperf3 is not installed on this host (looked in ')
    assert ', /opt/x/bin, ' in result['msg']
    assert fake.calls == []


@pytest.mark.parametrize('args, msg', [
    ({'parallel': 0}, 'parallel must be between 1 and 128, got 0'),
    ({'parallel': 129}, 'parallel must be between 1 and 128, got 129'),
    ({'duration': 0}, 'duration must be between 1 and 86400, got 0'),
    ({'test': 'tcp_stream', 'bitrate': 10}, 'bitrate applies to udp_stream only, not tcp_stream'),
    ({'test': 'tcp_bidir', 'bitrate': 10}, 'bitrate applies to udp_stream only, not tcp_bidir'),
    ({'test': 'udp_stream'}, 'bitrate (Mbit/s per stream, 0 = unlimited) is required for udp_stream'),
    ({'test': 'udp_stream', 'bitrate': -1}, 'bitrate must be between 0 and 1000000 Mbit/s, got -1.0'),
    ({'server': '10.201.1.2 -R'}, 'server must be an IP address or a host name'),
    ({'server': '$(reboot)'}, 'server must be an IP address or a host name'),
    ({'window': '256K;x'}, 'window must be a positive number with an optional K, M or G suffix'),
    ({'congestion': 'BBR x'}, 'congestion must be an algorithm name'),
    ({'omit': 601}, 'omit must be between 0 and 600, got 601'),
    ({'mss': 20}, 'mss must be between 88 and 9216, got 20'),
    ({'test': 'tcp_bidir', 'reading': 'sender'}, 'reading sender applies to tcp_stream, tcp_maerts and udp_stream only'),
    ({'reading': 'client'}, 'value of reading must be one of: receiver, sender, got: client'),
    ({'processes': 2, 'port': 65535}, 'port + processes - 1 must be at most 65535'),
    ({'nic_interface': 'nosuchif0'}, 'nic_interface nosuchif0 does not exist on this host'),
    ({'test': 'sctp_stream'}, 'value of test must be one of: tcp_bidir, tcp_maerts, tcp_stream, udp_stream, '
                              'got: sctp_stream'),
])
def test_bad_input_fails_before_running(tools, capsys, args, msg):
    fake = tools([])
    params = {'server': '10.201.1.2'}
    params.update(args)
    result = run_module(params, capsys)
    assert result['failed'] is True
    assert msg in result['msg']
    assert fake.calls == []


def test_a_rate_far_below_the_link_is_judged_against_the_path(tools, capsys, monkeypatch):
    # issue 29.11: through an MTU black hole a TCP test crawls; the link (given) is far faster than the result
    from ansible_collections.perflab.network.plugins.module_utils.host import platform as host_platform
    from ansible_collections.perflab.network.plugins.module_utils.host import nic
    from ansible_collections.perflab.network.plugins.module_utils.host import process
    from ansible_collections.perflab.network.plugins.module_utils.bench import runner
    monkeypatch.setattr(host_platform.LinuxHost, 'interface_mtu', staticmethod(lambda name: 9000))
    # counters that account for the rate (lo is shared with this machine: rates pinned, samples real)
    monkeypatch.setattr(nic, 'window_rates', lambda samples, window=None: (0.0, 10000000.0, [0.0, 2.0]))
    probes = []

    def with_ping(answer):
        fake_run = process.run    # the fake tool's

        def run(argv, timeout=None, **kwargs):
            if argv[0] != 'ping':
                return fake_run(argv, timeout, **kwargs)
            probes.append(argv)
            return process.ProcessResult(argv, rc=answer)
        monkeypatch.setattr(process, 'run', run)

    # the fixture's Gbit/s are below 1% of a 10 Tbit/s link
    args = {'server': '10.201.1.2', 'duration': 2, 'link_mbps': 10000000, 'nic_interface': 'lo'}
    tools([fixture('3.12/tcp.json')])
    with_ping(1)
    record = run_module(args, capsys)['perflab_result'][0]
    # the RTT ping before the test (limits.py), then the don't-fragment probe after it
    assert probes == [['ping', '-c', '2', '-i', '0.2', '-W', '1', '10.201.1.2'],
                      ['ping', '-c', '1', '-W', '3', '-M', 'do', '-s', '8972', '10.201.1.2']]
    assert record['status'] == 'failed' and 'does not carry packets of the MTU' in record['error']
    tools([fixture('3.12/tcp.json')])
    with_ping(0)
    record = run_module(args, capsys)['perflab_result'][0]
    assert record['status'] == 'ok' and any('the path carries packets of the MTU' in n for n in record['notes'])
    assert runner.probe_path(host_platform.LinuxHost, None, '10.201.1.2', None) is None   # MTU unknown: not probed
