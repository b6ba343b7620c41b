# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The Windows side of the bench_test, bench_server, bench_preflight and system_profile action plugins, with a
stand-in for win_powershell: exact scripts and parameters sent,
the records and decisions from real output (no Windows host can run here)."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import io
import os

from ansible_collections.perflab.network.plugins.action import bench_preflight as win_bench_preflight
from ansible_collections.perflab.network.plugins.action import bench_server as win_bench_server
from ansible_collections.perflab.network.plugins.action import bench_test as win_bench_test
from ansible_collections.perflab.network.plugins.action import system_profile as win_system_profile
from ansible_collections.perflab.network.plugins.module_utils.host import windows as win
from ansible_collections.perflab.network.plugins.module_utils.bench import win_action

FIXTURES = os.path.join(os.path.dirname(__file__), '..', '..', 'fixtures')
IPERF3 = 'C:\\ProgramData\\chocolatey\\bin\\iperf3.exe'


def fixture(*parts):
    with io.open(os.path.join(FIXTURES, *parts), encoding='utf-8') as handle:
        return handle.read()


class Remote(object):
    """win_powershell stand-in: each script's $Ansible.Result from a function of its parameters."""

    def __init__(self, **handlers):
        self.handlers = handlers
        self.calls = []

    def __call__(self, script, parameters):
        name = next(key for key in ('RUN_PS', 'WHICH_PS', 'ADAPTERS_PS', 'SERVER_START_PS', 'SERVER_STOP_PS',
                                    'PIDFILES_PS', 'PROFILE_PS') if getattr(win, key) == script)
        self.calls.append((name, parameters))
        if name not in self.handlers:
            raise win_action.PowerShellError('no %s here' % name)
        return {'result': self.handlers[name](parameters)}


def ran(rc=0, stdout='', stderr='', before='', after='', elapsed=10.0):
    return {'rc': rc, 'stdout': stdout, 'stderr': stderr, 'timed_out': False, 'elapsed_s': elapsed,
            'started_at': '2026-12-01T10:00:00.000Z', 'ended_at': '2026-12-01T10:00:10.000Z', 'pid': 4242,
            'counters_before': before, 'counters_after': after}


def iperf3_remote(tcp_json):
    def run(parameters):
        if parameters['Arguments'] == '--version':
            return ran(stdout=fixture('iperf3', '3.12', 'version.txt'))
        return ran(stdout=tcp_json)
    return Remote(WHICH_PS=lambda p: {'path': IPERF3}, RUN_PS=run)


def test_win_bench_test_runs_the_client_and_parses_with_the_iperf3_parser():
    remote = iperf3_remote(fixture('iperf3', '3.12', 'tcp.json'))
    result = win_bench_test.run_windows_test({'tool': 'iperf3', 'test': 'tcp_stream', 'server': '10.0.1.1', 'duration': 10},
                                             False, remote)
    assert result['failed'] is False, result
    record = result['perflab_result'][0]
    assert record['status'] == 'ok' and record['tool'] == 'iperf3'
    assert record['commands'][0][:5] == [IPERF3, '-c', '10.0.1.1', '-p', '5201']
    assert remote.calls[0] == ('WHICH_PS', {'Name': 'iperf3', 'Dirs': list(win.BIN_DIRS)})
    assert remote.calls[1] == ('RUN_PS', {'FilePath': IPERF3, 'Arguments': '--version', 'TimeoutSeconds': 10,
                                          'Adapter': ''})
    client = remote.calls[2][1]
    assert client['FilePath'] == IPERF3 and client['Arguments'].startswith('-c 10.0.1.1 -p 5201 -t 10 -P 1 -J')
    assert record['metrics']['throughput_mbps']['value'] > 0


def test_win_bench_test_check_mode_runs_no_client():
    remote = iperf3_remote('')
    result = win_bench_test.run_windows_test({'tool': 'iperf3', 'server': '10.0.1.1'}, True, remote)
    assert result['perflab_result'][0]['status'] == 'skipped'
    assert [name for name, params in remote.calls] == ['WHICH_PS', 'RUN_PS']   # the version probe only


def test_win_bench_test_refuses_what_windows_cannot_do():
    remote = iperf3_remote('')
    result = win_bench_test.run_windows_test({'tool': 'iperf3', 'server': '10.0.1.1', 'processes': 2}, False, remote)
    assert result == {'failed': True, 'msg': 'processes > 1 is not supported on Windows hosts (one client process '
                                             'per test): give this test processes 1'}
    assert remote.calls == []
    missing = Remote(WHICH_PS=lambda p: {'path': None})
    result = win_bench_test.run_windows_test({'tool': 'iperf3', 'server': '10.0.1.1', 'tool_paths': ['D:\\tools']},
                                             False, missing)
    assert result['failed'] and result['msg'].startswith(
        'iperf3 is not installed on this host (looked in PATH, D:\\tools, C:\\ProgramData\\chocolatey\\bin, ')
    # the given folder is searched after PATH, before the usual ones
    assert missing.calls[-1] == ('WHICH_PS', {'Name': 'iperf3', 'Dirs': ['D:\\tools'] + list(win.BIN_DIRS)})
    # a relative folder is refused before anything runs (Windows' rule for an absolute path)
    relative = Remote(WHICH_PS=lambda p: {'path': None})
    result = win_bench_test.run_windows_test({'tool': 'iperf3', 'server': '10.0.1.1', 'tool_paths': ['tools']},
                                             False, relative)
    assert result['failed'] and "tool_paths must hold absolute folder paths, got 'tools'" in result['msg']
    assert relative.calls == []


def test_win_bench_test_nic_counters_from_get_netadapterstatistics():
    stats = fixture('windows', 'get-netadapterstatistics-pastebin.txt')
    after = stats.replace('5399113933', '5411613933').replace('360739612', '1610739612')

    def run(parameters):
        if parameters['Arguments'] == '--version':
            return ran(stdout=fixture('iperf3', '3.12', 'version.txt'))
        assert parameters['Adapter'] == 'Ethernet 2'
        return ran(stdout=fixture('iperf3', '3.12', 'tcp.json'), before=stats, after=after, elapsed=10.0)
    remote = Remote(WHICH_PS=lambda p: {'path': IPERF3}, RUN_PS=run,
                    ADAPTERS_PS=lambda p: {'names': ['Ethernet 2'], 'mtu': 1500 if p['Adapter'] else None})
    result = win_bench_test.run_windows_test({'tool': 'iperf3', 'server': '10.0.1.1', 'duration': 10,
                                              'nic_interface': 'Ethernet 2'}, False, remote)
    record = result['perflab_result'][0]
    # the one record code's wrong-path check holds on Windows too: the counters (1000 Mbit/s sent) do not
    # account for the 13 Gbit/s the (real, loopback) iperf3 output claims
    assert record['status'] == 'failed', record
    assert record['error'].startswith('the data interface Ethernet 2 sent 1000.0 Mbit/s while iperf3 measured '), record
    assert record['client']['interface'] == 'Ethernet 2' and record['client']['mtu'] == 1500
    assert record['nic']['samples'][0]['rx_bytes'] == 5399113933
    assert record['nic']['tx_mbps'] == 1000.0 and record['nic']['rx_mbps'] == 10.0


def test_win_bench_test_unknown_adapter_is_refused_before_running():
    remote = Remote(ADAPTERS_PS=lambda p: {'names': ['Ethernet 2'], 'mtu': None})
    result = win_bench_test.run_windows_test({'tool': 'iperf3', 'server': '10.0.1.1', 'nic_interface': 'Ethernet 9'},
                                             False, remote)
    assert result['failed'] and result['msg'] == 'nic_interface Ethernet 9 does not exist on this host (it has: Ethernet 2)'
    assert [name for name, params in remote.calls] == ['ADAPTERS_PS']


def test_win_bench_server_starts_in_the_background_and_rolls_back():
    started = []
    remote = Remote(
        WHICH_PS=lambda p: {'path': IPERF3},
        SERVER_STOP_PS=lambda p: {'pid': None, 'alive': False, 'left': False},
        RUN_PS=lambda p: ran(stdout=fixture('windows', 'netstat-ano-citrix.txt')),
        SERVER_START_PS=lambda p: started.append(p) or {'pid': 7000 + len(started),
                                                        'ready': len(started) == 1, 'alive': True})
    result = win_bench_server.manage({'tool': 'iperf3', 'bind': '10.0.1.1', 'count': 2}, False, remote)
    assert started[0] == {'CommandLine': '%s -s -p 5201 -B 10.0.1.1' % IPERF3,
                          'PidFile': 'C:\\perflab\\run\\iperf3-5201.pid', 'Port': 5201, 'ReadyTimeout': 10}
    # the second did not listen: the first is stopped again, and the task fails naming the port
    assert result['failed'] and result['msg'].startswith('the server on port 5202 did not listen within 10 s')
    assert remote.calls[-1] == ('SERVER_STOP_PS', {'PidFile': 'C:\\perflab\\run\\iperf3-5201.pid', 'Stop': True})
    assert result['servers'][0]['state'] == 'stopped'


def test_win_bench_server_refuses_a_taken_port_and_check_mode_starts_nothing():
    remote = Remote(WHICH_PS=lambda p: {'path': 'C:\\perflab\\bin\\nuttcp.exe'},
                    SERVER_STOP_PS=lambda p: {'pid': None, 'alive': False, 'left': False},
                    RUN_PS=lambda p: ran(stdout=fixture('windows', 'netstat-ano-citrix.txt')))
    result = win_bench_server.manage({'tool': 'iperf3', 'port': 3389}, False, remote)
    assert result['failed'] and result['msg'].startswith('port 3389 is already in use by another process (pid 1168 on '
                                                         '0.0.0.0)')
    result = win_bench_server.manage({'tool': 'iperf3', 'port': 5201}, True, remote)
    assert result['changed'] and result['servers'][0]['state'] == 'would start'
    assert 'SERVER_START_PS' not in [name for name, params in remote.calls]


def test_win_bench_server_stops_every_pidfile_of_a_tool():
    remote = Remote(WHICH_PS=lambda p: {'path': IPERF3},
                    PIDFILES_PS=lambda p: {'names': ['iperf3-5201.pid', 'nuttcp-5000.pid', 'notes.pid']},
                    SERVER_STOP_PS=lambda p: {'pid': 7001, 'alive': True, 'left': False})
    result = win_bench_server.manage({'tool': 'iperf3', 'state': 'stopped'}, False, remote)
    assert [(s['port'], s['state']) for s in result['servers']] == [(5201, 'stopped')]
    assert ('SERVER_STOP_PS', {'PidFile': 'C:\\perflab\\run\\iperf3-5201.pid', 'Stop': True}) in remote.calls


def test_win_bench_preflight_pings_lists_and_decides():
    def run(parameters):
        if parameters['FilePath'] == 'ping':
            return ran(rc=0, stdout='Reply from 10.0.1.1: bytes=32 time<1ms TTL=128')
        return ran(stdout=fixture('windows', 'netstat-ano-citrix.txt'))
    remote = Remote(RUN_PS=run, PIDFILES_PS=lambda p: {'names': ['iperf3-5201.pid', 'ethr-8888.pid']})
    result = win_bench_preflight.check({'addresses': ['10.0.1.1'],
                                        'servers': [{'tool': 'iperf3', 'port': 5201, 'bind': '10.0.1.2'},
                                                    {'tool': 'nuttcp', 'port': 8081}]}, remote)
    assert result['unanswered'] == [] and result['pings'] == [['ping', '-n', '1', '-w', '3000', '10.0.1.1']]
    assert result['stop_planned'] == [{'tool': 'iperf3', 'bind': '10.0.1.2', 'port': 5201, 'count': 1}]
    assert result['stop_unplanned'] == [{'tool': 'ethr', 'port': 8888}]
    assert result['taken'] == [8081]
    assert remote.calls[0] == ('RUN_PS', {'FilePath': 'ping', 'Arguments': '-n 1 -w 3000 10.0.1.1',
                                          'TimeoutSeconds': 8, 'Adapter': ''})


def test_win_bench_preflight_probes_the_path_mtu_with_dont_fragment():
    # issue 29.11: ping -f -l at the adapter's MTU; Windows answers "Packet needs to be fragmented but DF set."
    def run(parameters):
        size = int(parameters['Arguments'].split('-l ')[1].split()[0]) + 28 if '-l ' in parameters['Arguments'] else 60
        if size > 1600:
            return ran(rc=1, stdout='Packet needs to be fragmented but DF set.')
        return ran(rc=0, stdout='Reply from 10.0.1.1: bytes=%d time<1ms TTL=128' % (size - 28))
    remote = Remote(RUN_PS=run, ADAPTERS_PS=lambda p: {'names': ['Ethernet 2'], 'mtu': 9000})
    result = win_bench_preflight.check({'addresses': ['10.0.1.1', 'fd00::1'], 'data_interface': 'Ethernet 2',
                                        'address_names': {'10.0.1.1': 'win2'}}, remote)
    assert ['ping', '-n', '1', '-w', '3000', '-f', '-l', '8972', '10.0.1.1'] in result['pings']
    assert not [argv for argv in result['pings'] if 'fd00::1' in argv and '-l' in argv]   # no IPv6 probe
    (problem,) = result['path_mtu_problems']
    assert 'win2 (10.0.1.1)' in problem and 'largest that passed is 1500 bytes (payload 1472), 2000 bytes did not' in problem


def test_win_system_profile_builds_the_table():
    cim = ('### Win32_Processor\n' + fixture('windows', 'cim-processor-acer.txt') + '\n### Win32_OperatingSystem\n' +
           fixture('windows', 'cim-operatingsystem-acer.txt'))
    remote = Remote(PROFILE_PS=lambda p: {'cim': cim, 'file_system': 'NTFS', 'mtu': None})
    result = win_system_profile.profile({'config': 'Windows 2019 stock', 'run_id': 'r1'}, remote, 'win1')
    system = result['perflab_system']
    assert system['host'] == 'win1' and system['schema'] == 'perflab.system/1' and system['run_id'] == 'r1'
    assert system['table']['Processor'] == '12th Gen Intel Core i7-1260P (12 Cores / 16 Threads)'
    assert system['table']['OS'] == 'Microsoft Windows 11 Home Single Language'
    assert system['table']['File-System'] == 'NTFS'
    assert remote.calls == [('PROFILE_PS', {'Adapter': ''})]


class Shell(object):
    def __init__(self, family):
        self.SHELL_FAMILY = family
        self.tmpdir = 'set'


class Connection(object):
    def __init__(self, family):
        self._shell = Shell(family)


def action(module, family, args):
    from unittest import mock
    task = mock.MagicMock(args=args, async_val=0, action='perflab.network.bench_test')
    play_context = mock.MagicMock(check_mode=False)
    return module.ActionModule(task, Connection(family), play_context, None, None, None)


def test_linux_and_freebsd_run_the_module_as_always(monkeypatch):
    from ansible.plugins.action import normal
    monkeypatch.setattr(normal.ActionModule, 'run', lambda self, tmp=None, task_vars=None: {'normal': True})
    for module in (win_bench_test, win_bench_server, win_bench_preflight, win_system_profile):
        assert action(module, 'sh', {}).run(task_vars={}) == {'normal': True}


def test_windows_runs_the_windows_side(monkeypatch):
    from ansible.plugins.action import normal
    monkeypatch.setattr(normal.ActionModule, 'run', lambda self, tmp=None, task_vars=None: {'normal': True})
    seen = []
    monkeypatch.setattr(win_bench_test, 'run_windows_test', lambda args, check, execute: seen.append(args) or {'x': 1})
    result = action(win_bench_test, 'powershell', {'tool': 'iperf3', 'server': '10.0.1.1'}).run(task_vars={})
    assert result['x'] == 1 and 'normal' not in result and seen == [{'tool': 'iperf3', 'server': '10.0.1.1'}]


def test_win_bench_server_says_the_server_side_is_not_sampled():
    remote = Remote(WHICH_PS=lambda p: {'path': IPERF3},
                    SERVER_STOP_PS=lambda p: {'pid': None, 'alive': False, 'left': False},
                    RUN_PS=lambda p: ran(stdout=fixture('windows', 'netstat-ano-citrix.txt')))
    result = win_bench_server.manage({'tool': 'iperf3', 'port': 5201, 'sample_interface': 'Ethernet 2'}, True, remote)
    assert result['sampled']['interface'] == 'Ethernet 2'
    assert result['sampled']['not_sampled'][0].startswith('Windows: the server side is not sampled (its per-core CPU')
    assert 'sampled' not in win_bench_server.manage({'tool': 'iperf3', 'port': 5201}, True, remote)
