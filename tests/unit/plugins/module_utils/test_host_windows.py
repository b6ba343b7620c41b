# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""host_windows: the argv and PowerShell parameters sent to Windows, the parsers on real Windows output."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import io
import os

import pytest

from ansible_collections.perflab.network.plugins.module_utils.host import windows as win

FIXTURES = os.path.join(os.path.dirname(__file__), '..', '..', 'fixtures', 'windows')


def fixture(name):
    with io.open(os.path.join(FIXTURES, name), encoding='utf-8') as handle:
        return handle.read()


def test_ping_argv_and_answer():
    assert win.ping_argv('10.0.1.2', 3) == ['ping', '-n', '1', '-w', '3000', '10.0.1.2']
    assert win.ping_argv('fd00::2', 2) == ['ping', '-6', '-n', '1', '-w', '2000', 'fd00::2']
    assert win.ping_argv('10.0.1.2', 3, 8972) == ['ping', '-n', '1', '-w', '3000', '-f', '-l', '8972', '10.0.1.2']
    with pytest.raises(ValueError, match='IPv6'):   # ping.exe has no don't-fragment for IPv6
        win.ping_argv('fd00::2', 3, 1452)
    assert win.ping_answered(0, 'Reply from 10.0.1.2: bytes=32 time<1ms TTL=64', '10.0.1.2') is True
    assert win.ping_answered(0, 'Reply from 10.0.1.1: Destination host unreachable.', '10.0.1.2') is False
    assert win.ping_answered(1, '', '10.0.1.2') is False


def test_client_command_line_quoting():
    # the C runtime's rules: a space-free token stays bare, one with a space is quoted
    assert win.command_line(['-c', '10.0.1.1', '-p', 5201, '-J']) == '-c 10.0.1.1 -p 5201 -J'
    assert win.command_line(['-o', 'C:\\perf lab\\out.json']) == '-o "C:\\perf lab\\out.json"'
    argv = ['C:\\ProgramData\\chocolatey\\bin\\iperf3.exe', '-c', '10.0.1.1', '-p', '5201', '-J']
    assert win.run_parameters(argv, 25, 'Ethernet 2') == {
        'FilePath': 'C:\\ProgramData\\chocolatey\\bin\\iperf3.exe', 'Arguments': '-c 10.0.1.1 -p 5201 -J',
        'TimeoutSeconds': 25, 'Adapter': 'Ethernet 2'}


def test_adapter_names():
    assert win.valid_adapter_name('Ethernet 2') and win.valid_adapter_name('vEthernet (Default Switch)')
    assert not win.valid_adapter_name('Ethernet"; Remove-Item C:\\')
    assert not win.valid_adapter_name('')


def test_adapter_statistics_real_table():
    text = fixture('get-netadapterstatistics-pastebin.txt')
    assert win.parse_adapter_statistics(text, 'Ethernet 2') == {
        'rx_bytes': 5399113933, 'tx_bytes': 360739612, 'rx_packets': 81994, 'tx_packets': 3270272}
    assert win.parse_adapter_statistics(text, 'Ethernet') is None   # not a prefix match


def test_netstat_ano_listeners_real():
    sockets = win.parse_netstat_ano(fixture('netstat-ano-citrix.txt'))
    ports = win.listening_ports(sockets)
    assert ports['tcp'] == [135, 139, 445, 1494, 2598, 3389, 5985, 8081, 19080, 47001, 49152, 49153, 49154,
                            49361, 49384, 51139]
    assert ports['udp'] == []
    assert {'proto': 'tcp', 'address': '10.229.34.174', 'port': 139, 'pid': 4} in sockets


def test_format_list_real_cim_output():
    cpu = win.parse_format_list(fixture('cim-processor-acer.txt'))
    assert cpu == [{'Name': '12th Gen Intel(R) Core(TM) i7-1260P', 'NumberOfCores': '12',
                    'NumberOfLogicalProcessors': '16'}]
    adapters = win.parse_format_list(fixture('wmic-networkadapter-i219v.txt'))
    assert len(adapters) == 3 and adapters[1]['Speed'] == '1000000000' and adapters[0]['Speed'] == ''


def test_windows_table_from_real_cim_output():
    sections = {
        'Win32_Processor': win.parse_format_list(fixture('cim-processor-i9-13950hx.txt')),
        'Win32_PhysicalMemory': win.parse_format_list(fixture('cim-physicalmemory-kingston.txt')),
        'Win32_NetworkAdapter': win.parse_format_list(fixture('wmic-networkadapter-i219v.txt')),
        'Win32_OperatingSystem': win.parse_format_list(fixture('cim-operatingsystem-acer.txt')),
    }
    profile = win.windows_table(sections, adapter='Ethernet', file_system='NTFS', mtu=1500)
    assert profile['table'] == {
        'Processor': '13th Gen Intel Core i9-13950HX @ 2.20GHz (24 Cores / 32 Threads)',
        'Motherboard': 'unknown',
        'Chipset': 'unknown',
        'Memory': '32 GB Kingston KF560C36-32',
        'Disk': 'unknown',
        'Network': 'Intel(R) Ethernet Connection (7) I219-V (1000 Mb/s)',
        'OS': 'Microsoft Windows 11 Home Single Language',
        'Kernel': '10.0.26200 (64-bit)',
        'Compiler': 'unknown',
        'File-System': 'NTFS',
    }
    assert profile['network']['speed_mbps'] == 1000 and profile['network']['mtu'] == 1500


def test_profile_script_names_the_cim_classes():
    for name in ('Win32_Processor', 'Win32_BaseBoard', 'Win32_PhysicalMemory', 'Win32_DiskDrive',
                 'Win32_NetworkAdapter', 'Win32_OperatingSystem'):
        assert "'%s' = @(" % name in win.PROFILE_PS
    text = '### Win32_Processor\n' + fixture('cim-processor-acer.txt') + '\n### Win32_OperatingSystem\n' + \
        fixture('cim-operatingsystem-acer.txt')
    sections = win.split_sections(text)
    assert sections['Win32_Processor'][0]['NumberOfCores'] == '12'
    assert sections['Win32_OperatingSystem'][0]['Caption'] == 'Microsoft Windows 11 Home Single Language'


class FakeExecute(object):
    """win_powershell stand-in: records (script, parameters), returns canned $Ansible.Result values."""

    def __init__(self, results):
        self.results = results
        self.calls = []

    def __call__(self, script, parameters):
        self.calls.append((script, parameters))
        return {'result': self.results[script](parameters) if callable(self.results[script]) else self.results[script]}


def test_windows_host_runs_and_samples_in_one_script():
    stats = fixture('get-netadapterstatistics-pastebin.txt')
    after = stats.replace('5399113933', '6649113933').replace('360739612', '385739612')
    execute = FakeExecute({
        win.RUN_PS: {'rc': 0, 'stdout': '{}', 'stderr': '', 'timed_out': False, 'started_at': '2026-12-01T10:00:00.000Z',
                     'ended_at': '2026-12-01T10:00:10.000Z', 'elapsed_s': 10.0, 'pid': 4242,
                     'counters_before': stats, 'counters_after': after},
        win.ADAPTERS_PS: {'names': ['Ethernet 2'], 'mtu': 1500},
    })
    host = win.WindowsHost(execute)
    assert host.interface_exists('Ethernet 2') and not host.interface_exists('Ethernet 3')
    with host.nic_sampler('Ethernet 2') as sampler:
        proc = host.run(['C:\\bin\\iperf3.exe', '-c', '10.0.1.1'], 25)
    assert proc.rc == 0 and proc.argv == ['C:\\bin\\iperf3.exe', '-c', '10.0.1.1'] and proc.elapsed_s == 10.0
    assert execute.calls[-1] == (win.RUN_PS, {'FilePath': 'C:\\bin\\iperf3.exe', 'Arguments': '-c 10.0.1.1',
                                              'TimeoutSeconds': 25, 'Adapter': 'Ethernet 2'})
    result = sampler.result()
    assert result['rx_mbps'] == 1000.0 and result['tx_mbps'] == 20.0 and sampler.elapsed() == 10.0
    with pytest.raises(ValueError, match='processes > 1 is not supported on Windows'):
        host.run_many([['a'], ['b']], 5)
