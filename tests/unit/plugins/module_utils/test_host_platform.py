# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""host_platform: one interface, a Linux and a FreeBSD implementation; FreeBSD's parsers on real output."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os
import time

import pytest

from ansible_collections.perflab.network.plugins.module_utils.host import freebsd as bsd
from ansible_collections.perflab.network.plugins.module_utils.host import platform as host_platform
from ansible_collections.perflab.network.plugins.module_utils.host import nic
from ansible_collections.perflab.network.plugins.module_utils.host import process
from ansible_collections.perflab.network.plugins.module_utils.host.process import ProcessResult

FIXTURES = os.path.join(os.path.dirname(__file__), '..', '..', 'fixtures', 'freebsd')


def fixture(name):
    with open(os.path.join(FIXTURES, name)) as handle:
        return handle.read()


# ---------------------------------------------------------------- argv per OS

def test_ping_argv_per_os():
    assert host_platform.LinuxHost.ping_argv('10.0.1.2', 3) == ['ping', '-c', '1', '-W', '3', '10.0.1.2']
    assert host_platform.FreeBSDHost.ping_argv('10.0.1.2', 3) == ['ping', '-c', '1', '-t', '3', '10.0.1.2']
    assert host_platform.FreeBSDHost.ping_argv('fd00::2', 5) == ['ping6', '-c', '1', '-X', '5', 'fd00::2']


def test_dont_fragment_probe_argv_per_os():
    # issue 29.11: the path MTU probe, a packet of the interface's MTU that may not be fragmented
    assert host_platform.LinuxHost.ping_argv('10.0.1.2', 3, 8972) == \
        ['ping', '-c', '1', '-W', '3', '-M', 'do', '-s', '8972', '10.0.1.2']
    assert host_platform.LinuxHost.ping_argv('fd00::2', 3, 8952) == \
        ['ping', '-c', '1', '-W', '3', '-M', 'do', '-s', '8952', 'fd00::2']
    assert host_platform.FreeBSDHost.ping_argv('10.0.1.2', 3, 1472) == \
        ['ping', '-c', '1', '-t', '3', '-D', '-s', '1472', '10.0.1.2']
    assert host_platform.FreeBSDHost.ping_argv('fd00::2', 3, 1452) == \
        ['ping6', '-c', '1', '-X', '3', '-m', '-s', '1452', 'fd00::2']


def test_freebsd_command_argvs():
    assert bsd.netstat_argv('igb0') == ['netstat', '-ibn', '-I', 'igb0']
    assert bsd.sockstat_argv() == ['sockstat', '-46l']
    assert bsd.ps_state_argv(42) == ['ps', '-o', 'pid,state', '-p', '42']
    assert bsd.ps_args_argv(42) == ['ps', '-ww', '-o', 'args=', '-p', '42']
    assert bsd.procstat_all_argv() == ['procstat', '-a']
    assert bsd.sysctl_argv() == ['sysctl', 'hw.model', 'hw.ncpu', 'hw.physmem', 'hw.machine']


def test_current_picks_the_os(monkeypatch):
    monkeypatch.setattr(host_platform.platform, 'system', lambda: 'Linux')
    assert isinstance(host_platform.current(), host_platform.LinuxHost)
    monkeypatch.setattr(host_platform.platform, 'system', lambda: 'FreeBSD')
    assert isinstance(host_platform.current(), host_platform.FreeBSDHost)
    monkeypatch.setattr(host_platform.platform, 'system', lambda: 'Windows')
    with pytest.raises(ValueError, match='the benchmark modules run on FreeBSD and Linux, not on Windows'):
        host_platform.current()


def test_linux_host_is_what_the_modules_always_used():
    linux = host_platform.LinuxHost()
    assert linux.interface_exists('lo') is True and nic.interface_exists('lo') is True
    assert linux.interface_mtu('lo') == nic.interface_mtu('lo')
    assert linux.listening_ports() == process.listening_ports()
    assert linux.pid_alive(os.getpid()) is True
    assert linux.process_cmdline(os.getpid()) == process.process_cmdline(os.getpid())
    assert linux.nic_sampler('lo').__class__ is nic.NicSampler


# ---------------------------------------------------------------- NIC counters

def test_netstat_link_row_ohai_with_drop_column():
    # netstat -ibdn: a Drop column after Coll; the address rows must not be taken
    # with the drop and error columns limits.py reads (Drop: the output drops)
    drops = {'rx_errors': 0, 'rx_dropped': 0, 'tx_errors': 0, 'tx_dropped': 0}
    assert bsd.parse_netstat_link(fixture('netstat-ibdn-ohai-vtnet0.txt'), 'vtnet0') == dict(
        drops, rx_bytes=46746, tx_bytes=26242, rx_packets=579, tx_packets=210)
    assert bsd.parse_netstat_link(fixture('netstat-ibdn-ohai-vtnet0.txt'), 'lo0') == dict(
        drops, rx_bytes=0, tx_bytes=0, rx_packets=0, tx_packets=0)


def test_netstat_link_row_freebsd_14():
    assert bsd.parse_netstat_link(fixture('netstat-ibn-14.4-re0.txt'), 're0') == {
        'rx_bytes': 10224076134, 'tx_bytes': 9129830082, 'rx_packets': 43398306, 'tx_packets': 30686081,
        'rx_errors': 0, 'rx_dropped': 0, 'tx_errors': 0}   # no Drop column without -d
    assert bsd.parse_netstat_link(fixture('netstat-ibn-14.4-re0.txt'), 'igb0') is None
    assert bsd.parse_netstat_link('', 're0') is None


class FakeRun(object):
    """process.run stand-in: argv -> stdout of a fixture (the argv is what is asserted)."""

    def __init__(self, outputs):
        self.outputs = outputs
        self.calls = []

    def __call__(self, argv, timeout=None):
        self.calls.append(list(argv))
        key = tuple(os.path.basename(argv[0]) if i == 0 else arg for i, arg in enumerate(argv))
        if key not in self.outputs:
            return ProcessResult(argv, rc=1, stdout='', stderr='not in the fixtures')
        return ProcessResult(argv, rc=0, stdout=self.outputs[key])


@pytest.fixture
def all_tools(monkeypatch):
    monkeypatch.setattr(process, 'which', lambda name: '/usr/bin/' + name)


def test_freebsd_nic_sampler_reads_netstat(all_tools):
    run = FakeRun({('netstat', '-ibn', '-I', 're0'): fixture('netstat-ibn-14.4-re0.txt')})
    host = host_platform.FreeBSDHost(run=run)
    with host.nic_sampler('re0', interval=0.05) as sampler:
        time.sleep(0.12)   # a few samples at distinct times
    result = sampler.result()
    assert result['interface'] == 're0'
    assert len(result['samples']) >= 2
    assert result['samples'][0]['rx_bytes'] == 10224076134
    assert result['rx_mbps'] == 0.0   # the same counters every time: no traffic
    assert run.calls[0] == ['/usr/bin/netstat', '-ibn', '-I', 're0']


def test_freebsd_nic_sampler_refuses_a_missing_interface(all_tools):
    host = host_platform.FreeBSDHost(run=FakeRun({('netstat', '-ibn', '-I', 'igb7'): fixture('netstat-ibn-14.4-re0.txt')}))
    with pytest.raises(ValueError, match='interface igb7 does not exist on this host'):
        host.nic_sampler('igb7')


def test_freebsd_interface_facts_from_ifconfig(all_tools):
    run = FakeRun({('ifconfig', 'vtnet0'): fixture('ifconfig-ohai-vtnet0.txt'), ('ifconfig', '-l'): 'vtnet0 lo0\n'})
    host = host_platform.FreeBSDHost(run=run)
    assert host.interface_mtu('vtnet0') == 1500
    assert host.interface_exists('vtnet0') is True
    assert host.interface_exists('igb0') is False
    assert host.existing_interfaces() == ['lo0', 'vtnet0']
    assert host.interface_exists('../etc') is False


# ---------------------------------------------------------------- listeners

def test_sockstat_listeners_ns1():
    sockets = bsd.parse_sockstat(fixture('sockstat-ns1.txt'))
    # the connected sshd socket and the unix stream socket are not listeners
    assert bsd.listening_ports(sockets) == {'tcp': [22, 53, 853, 9050], 'udp': [53, 514, 853, 9053]}
    assert bsd.tcp_listeners(sockets, 22) == [
        {'address': '0.0.0.0', 'port': 22, 'pid': 815, 'comm': 'sshd'},
        {'address': '::', 'port': 22, 'pid': 815, 'comm': 'sshd'}]
    assert bsd.tcp_listeners(sockets, 53) == [{'address': '192.168.5.2', 'port': 53, 'pid': 760, 'comm': 'unbound'}]
    assert bsd.tcp_listeners(sockets, 5201) == []


def test_sockstat_listeners_several_processes_one_port(all_tools):
    run = FakeRun({('sockstat', '-46l'): fixture('sockstat-4l-gitlab.txt')})
    host = host_platform.FreeBSDHost(run=run)
    assert [item['pid'] for item in host.tcp_listeners(8080)] == [36244, 36248, 36249]
    assert host.listening_ports() == {'tcp': [5432, 8080], 'udp': []}
    assert run.calls[-1] == ['/usr/bin/sockstat', '-46l']


# ---------------------------------------------------------------- processes

def test_procstat_group_members():
    text = fixture('procstat-a-14.4.txt')
    assert bsd.group_members(text, 35870) == [35870, 35871]
    assert bsd.group_members(text, 34179) == [34179]
    assert bsd.group_members(text, 1) == []


def test_ps_state():
    text = fixture('ps-axo-14.4.txt')
    assert bsd.parse_ps_state(text, 34179) == 'Ss'
    assert bsd.parse_ps_state(text, 35807) == 'SC+'
    assert bsd.parse_ps_state(text, 99999) is None


def test_freebsd_kill_group_uses_procstat(all_tools, monkeypatch):
    signals = []
    monkeypatch.setattr(process, 'signal_group', lambda pgid, sig: signals.append((pgid, sig)))
    run = FakeRun({('procstat', '-a'): fixture('procstat-a-14.4.txt')})
    host = host_platform.FreeBSDHost(run=run)
    assert host.group_members(35870) == [35870, 35871]
    assert host.kill_group(1) is True and signals == []   # no member: nothing signalled
    assert run.calls == [['/usr/bin/procstat', '-a']] * 2


# ---------------------------------------------------------------- system table

def test_freebsd_sysctl_kenv_pciconf_geom_mount():
    hw = bsd.parse_sysctl(fixture('sysctl-hw-14.4.txt'))
    assert hw['hw.model'] == 'Intel(R) Atom(TM) CPU D525   @ 1.80GHz'
    assert hw['hw.ncpu'] == '4' and hw['hw.physmem'] == '4248858624'
    kenv = bsd.parse_kenv(fixture('kenv-virtualbox-smbios.txt'))
    assert kenv['smbios.planar.maker'] == 'Oracle Corporation' and kenv['smbios.planar.product'] == 'VirtualBox'
    pci = bsd.parse_pciconf(fixture('pciconf-lv-bsdrp-c2758.txt'))
    assert [(d['device'], d['class_id'], d['name']) for d in pci] == [
        ('hostb0', '060000', 'Atom processor C2000 SoC Transaction Router'),
        ('pcib1', '060400', 'Atom processor C2000 PCIe Root Port 1'),
        ('igb0', '020000', 'Ethernet Connection I354')]
    assert bsd.parse_geom_disks(fixture('geom-disk-list-14.4.txt')) == [
        {'name': 'ada0', 'model': 'WDC WD1002FAEX-00Z3A0', 'size_bytes': 1000204886016},
        {'name': 'ada1', 'model': 'WDC WD1001FALS-00E8B0', 'size_bytes': 1000204886016}]
    assert bsd.parse_mount_p(fixture('mount-p-14.4.txt')) == 'ufs'
    assert bsd.parse_mount_p('zroot/ROOT/default\t/\tzfs\trw\t0 0\n') == 'zfs (pool zroot)'
    assert bsd.parse_route_interface(fixture('route-get-default-ohai.txt')) == 'vtnet0'


def test_ifconfig_options_media_and_driver():
    info = bsd.parse_ifconfig(fixture('ifconfig-ohai-vtnet0.txt'), 'vtnet0')
    assert info['mtu'] == 1500 and info['speed_mbps'] == 10000
    assert 'TSO4' in info['options'] and 'LRO' in info['options']
    offloads = bsd.offloads(info['options'])
    assert offloads['tcp-segmentation-offload'] is True and offloads['large-receive-offload'] is True
    assert bsd.parse_ifconfig(fixture('ifconfig-ohai-vtnet0.txt'), 'lo0')['mtu'] == 16384
    assert bsd.parse_ifconfig(fixture('ifconfig-ohai-vtnet0.txt'), 'em0') is None
    assert bsd.driver_of('igb0') == 'igb' and bsd.driver_of('vtnet0') == 'vtnet'
    assert bsd.media_speed('Ethernet autoselect (1000baseT <full-duplex,master>)') == 1000


def test_freebsd_profile_has_the_linux_fields():
    outputs = {
        ('sysctl', 'hw.model', 'hw.ncpu', 'hw.physmem', 'hw.machine'): fixture('sysctl-hw-14.4.txt'),
        ('kenv',): fixture('kenv-virtualbox-smbios.txt'),
        ('pciconf', '-lv'): fixture('pciconf-lv-bsdrp-c2758.txt'),
        ('geom', 'disk', 'list'): fixture('geom-disk-list-14.4.txt'),
        ('mount', '-p'): fixture('mount-p-14.4.txt'),
        ('route', '-n', 'get', 'default'): fixture('route-get-default-ohai.txt'),
        ('ifconfig', 'vtnet0'): fixture('ifconfig-ohai-vtnet0.txt'),
    }

    def runner(argv):
        out = outputs.get(tuple(argv))
        return None if out is None else (0, out, '')
    profile = host_platform.freebsd_profile(None, runner, machine='amd64', release='14.4-RELEASE-p10')
    table = profile['table']
    assert sorted(table) == sorted(host_platform.sysprofile.TABLE_FIELDS)
    assert table == {
        'Processor': 'Intel Atom D525 (4 Threads)',
        'Motherboard': 'Oracle VirtualBox (VirtualBox BIOS)',
        'Chipset': 'Intel Atom processor C2000 SoC Transaction Router',
        'Memory': '4GB',
        'Disk': '1000GB WDC WD1002FAEX-00Z3A0 + 1000GB WDC WD1001FALS-00E8B0',
        'Network': 'vtnet (virtual, 10000 Mb/s)',
        'OS': 'FreeBSD 14.4-RELEASE-p10',
        'Kernel': '14.4-RELEASE-p10 (amd64)',
        'Compiler': 'unknown',
        'File-System': 'ufs',
    }
    network = profile['network']
    assert network['interface'] == 'vtnet0' and network['mtu'] == 1500 and network['speed_mbps'] == 10000
    assert network['driver'] == 'vtnet' and network['qdisc'] is None
    assert sorted(network['sysctls']) == sorted(bsd.NETWORK_SYSCTLS)


def test_bench_server_on_freebsd_sees_sockstat_s_listeners(all_tools, monkeypatch):
    """bench_server's port-conflict check through the FreeBSD host (sockstat -46l, real output)."""
    from ansible_collections.perflab.network.plugins.modules import bench_server
    run = FakeRun({('sockstat', '-46l'): fixture('sockstat-ns1.txt')})
    monkeypatch.setattr(host_platform, 'current', lambda: host_platform.FreeBSDHost(run=run))
    assert [item['address'] for item in bench_server.conflicting_listeners(22, '10.0.1.1')] == ['0.0.0.0', '::']
    assert bench_server.conflicting_listeners(53, '10.0.1.1') == []          # unbound holds 192.168.5.2:53 only
    assert len(bench_server.conflicting_listeners(53, '192.168.5.2')) == 1
    assert bench_server.conflicting_listeners(5201, None) == []
