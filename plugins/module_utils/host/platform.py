# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The host facts the benchmark modules need, behind one interface per OS.

``current()`` is the host the module runs on: ``LinuxHost`` (what the modules always did:
/proc, /sys, ``ping -W``) or ``FreeBSDHost`` (``netstat -ibn``, ``sockstat -46l``, ``ps``,
``procstat``, FreeBSD's ping flags, the system table from ``sysctl``/``kenv``/``pciconf``).
runner.py, bench_server, bench_preflight and system_profile call only this interface:

- ``ping_argv(address, wait, size=None)`` (with ``size``: a don't-fragment probe of that payload)
- ``interface_exists(name)``, ``existing_interfaces()``, ``interface_mtu(name)``, ``nic_sampler(name, peer=None)``
  (with ``peer`` it also samples what limited the test: limits.py), ``rtt_argv(address)``
- ``listening_ports()`` ({tcp: [..], udp: [..]}), ``tcp_listeners(port)`` ([{address, port, pid, comm}])
- ``pid_alive(pid)``, ``process_cmdline(pid)``, ``same_network_namespace(pid)``, ``process_nofile(pid)``,
  ``group_members(pgid)``, ``kill_group(pgid)``
- ``system_profile(interface, runner, machine, release)`` ({table, network}, sysprofile's shape)

Windows has no Python modules: its benchmarks run through the action plugins (docs/architecture.md).
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import errno
import os
import platform

from ansible_collections.perflab.network.plugins.module_utils.core import common_args
from ansible_collections.perflab.network.plugins.module_utils.host import freebsd as bsd
from ansible_collections.perflab.network.plugins.module_utils.core import limits
from ansible_collections.perflab.network.plugins.module_utils.host import nic
from ansible_collections.perflab.network.plugins.module_utils.host import process
from ansible_collections.perflab.network.plugins.module_utils.host import sysprofile

COMMAND_TIMEOUT_S = 10


class LinuxHost(object):
    """Linux: /proc, /sys and iputils' ping (the behaviour the modules had before this interface)."""

    name = 'Linux'

    # the argument checks' names for this OS (common_args.common_errors asks the host it is given)
    interface_name_rule = common_args.INTERFACE_NAME_RULE
    valid_interface_name = staticmethod(common_args.valid_interface_name)
    path_is_absolute = staticmethod(os.path.isabs)

    @staticmethod
    def ping_argv(address, wait, size=None):
        """iputils' ping; with ``size`` (payload bytes) a don't-fragment probe (``-M do``: IPv4's DF bit, and
        no fragmenting by this host for IPv6)."""
        probe = ['-M', 'do', '-s', str(int(size))] if size else []
        return ['ping', '-c', '1', '-W', str(wait)] + probe + [address]

    @staticmethod
    def interface_exists(name):
        return nic.interface_exists(name)

    @staticmethod
    def existing_interfaces():
        return nic.existing_interfaces()

    @staticmethod
    def interface_mtu(name):
        return nic.interface_mtu(name)

    @staticmethod
    def interface_speed_mbps(name):
        """The link speed the kernel reports (/sys/class/net/<name>/speed, ethtool's Speed), None when unknown."""
        return nic.interface_speed_mbps(name)

    @staticmethod
    def nic_sampler(name, interval=1.0, peer=None):
        """The NIC sampler; with ``peer`` also per-core CPU, drops and the TCP state (limits.py)."""
        return nic.NicSampler(name, interval, peer=peer)

    @staticmethod
    def rtt_argv(address):
        """A short ping measuring the path's RTT before a test (two echoes 0.2 s apart: the first may wait for
        ARP, the minimum is the path's)."""
        return ['ping', '-c', '2', '-i', '0.2', '-W', '1', address]

    @staticmethod
    def listening_ports():
        return process.listening_ports()

    @staticmethod
    def tcp_listeners(port):
        return process.tcp_listeners(port)

    @staticmethod
    def pid_alive(pid):
        return process.pid_alive(pid)

    @staticmethod
    def process_cmdline(pid):
        return process.process_cmdline(pid)

    @staticmethod
    def same_network_namespace(pid):
        return process.same_network_namespace(pid)

    @staticmethod
    def process_nofile(pid):
        return process.process_nofile(pid)

    @staticmethod
    def group_members(pgid):
        return process.group_members(pgid)

    @staticmethod
    def kill_group(pgid):
        return process.kill_group(pgid)

    @staticmethod
    def system_profile(interface, runner, machine, release):
        return sysprofile.collect(interface=interface, runner=runner, root='/', machine=machine, release=release)


def _stdout(argv, run=None):
    """stdout of a read-only command (an argv, never a shell), None when it failed or is missing."""
    run = run or process.run
    executable = process.which(argv[0])
    if not executable:
        return None
    result = run([executable] + list(argv[1:]), COMMAND_TIMEOUT_S)
    if result.timed_out or result.rc != 0:
        return None
    return result.stdout


class FreeBSDNicSampler(nic.NicSampler):
    """NicSampler whose counters are ``netstat -ibn -I IF``'s link row (FreeBSD has no /sys)."""

    not_sampled = ('FreeBSD: no ss, the TCP connections\' state is not sampled; kern.cp_times does not split '
                   'soft from hard interrupts (both in irq)',)

    def __init__(self, interface, interval=1.0, read=None, peer=None, cp_times=None):
        # pylint: disable=super-init-not-called
        if not nic.valid_interface_name(interface):
            raise ValueError('invalid interface name: %r' % (interface,))
        self._read = read or (lambda: bsd.parse_netstat_link(_stdout(bsd.netstat_argv(interface)), interface))
        if self._read() is None:
            raise ValueError('interface %s does not exist on this host' % interface)
        if interval <= 0:
            raise ValueError('interval must be > 0')
        nic.NicSampler.__init__(self, interface, interval, sys_class_net=None, check=False, peer=peer)
        self._cp_times = cp_times or (lambda: _stdout(['sysctl', '-n', 'kern.cp_times']))

    def read_cpu(self):
        return limits.parse_kern_cp_times(self._cp_times()) or None

    def read_drops(self):
        counters = self._read() or {}
        return dict((key, value) for key, value in counters.items() if key in limits.DROP_COUNTERS) or None

    def read_host_drops(self):
        return None   # no /proc/net (netstat -s's TCP drops are not sampled): host_drops None

    def read_tcp(self):
        return []   # no ss on FreeBSD (sockstat has no TCP state): not_sampled says so

    def read_counters(self):
        counters = self._read()
        if counters is None:
            raise OSError(errno.ENODEV, 'netstat lists no link row of %s' % self.interface)
        return counters

    def interface_present(self):
        return self._read() is not None


class FreeBSDHost(object):
    """FreeBSD: every fact from its own commands, through ``run`` (process.run; tests pass a fake)."""

    name = 'FreeBSD'

    # the argument checks' names for this OS (common_args.common_errors asks the host it is given)
    interface_name_rule = common_args.INTERFACE_NAME_RULE
    valid_interface_name = staticmethod(common_args.valid_interface_name)
    path_is_absolute = staticmethod(os.path.isabs)

    def __init__(self, run=None):
        self.run = run or process.run

    def _out(self, argv):
        return _stdout(argv, self.run)

    @staticmethod
    def ping_argv(address, wait, size=None):
        return bsd.ping_argv(address, wait, size)

    def interface_exists(self, name):
        return nic.valid_interface_name(name) and self._out(['ifconfig', name]) is not None

    def existing_interfaces(self):
        return sorted((self._out(['ifconfig', '-l']) or '').split())

    def interface_mtu(self, name):
        if not nic.valid_interface_name(name):
            return None
        info = bsd.parse_ifconfig(self._out(['ifconfig', name]), name)
        return info['mtu'] if info else None

    @staticmethod
    def interface_speed_mbps(name):
        """Not read on FreeBSD (ifconfig's media line names no rate for every driver): None, give link_mbps."""
        return None

    def nic_sampler(self, name, interval=1.0, peer=None):
        return FreeBSDNicSampler(name, interval,
                                 read=lambda: bsd.parse_netstat_link(self._out(bsd.netstat_argv(name)), name),
                                 peer=peer, cp_times=lambda: self._out(['sysctl', '-n', 'kern.cp_times']))

    @staticmethod
    def rtt_argv(address):
        """A short ping measuring the path's RTT before a test (FreeBSD's ping; ping6 for IPv6 as ping_argv)."""
        argv = bsd.ping_argv(address, 1)
        return [argv[0], '-c', '2', '-i', '0.2', address]

    def _sockets(self):
        return bsd.parse_sockstat(self._out(bsd.sockstat_argv()))

    def listening_ports(self):
        return bsd.listening_ports(self._sockets())

    def tcp_listeners(self, port):
        return bsd.tcp_listeners(self._sockets(), port)

    def pid_alive(self, pid):
        try:
            os.kill(pid, 0)
        except OSError as exc:
            if exc.errno == errno.ESRCH:
                return False
        state = bsd.parse_ps_state(self._out(bsd.ps_state_argv(pid)), pid)
        return state is not None and not state.startswith('Z')

    def process_cmdline(self, pid):
        return (self._out(bsd.ps_args_argv(pid)) or '').split()

    @staticmethod
    def same_network_namespace(pid):
        # no network namespaces: a jail sees only its own processes (ps, procstat) in the first place
        return True

    @staticmethod
    def process_nofile(pid):
        return None   # not read on FreeBSD (procstat -l's output is not parsed): reported as unknown

    def group_members(self, pgid):
        return bsd.group_members(self._out(bsd.procstat_all_argv()), pgid)

    def kill_group(self, pgid):
        return process.kill_group(pgid, members=self.group_members)

    def system_profile(self, interface, runner, machine, release):
        return freebsd_profile(interface, runner, machine, release)


def _text(runner, argv):
    result = runner(argv)
    if result is None or result[0] != 0:
        return None
    return result[1]


def freebsd_profile(interface, runner, machine, release):
    """The system table and network facts of a FreeBSD host, the Linux profile's fields and shape."""
    table = dict((field, sysprofile.UNKNOWN) for field in sysprofile.TABLE_FIELDS)
    hw = bsd.parse_sysctl(_text(runner, bsd.sysctl_argv()))
    ncpu = int(hw['hw.ncpu']) if hw.get('hw.ncpu', '').isdigit() else None
    table['Processor'] = sysprofile.format_processor(
        {'model': hw.get('hw.model'), 'sockets': None, 'cores': None, 'threads': ncpu, 'mhz': None})
    physmem = hw.get('hw.physmem', '')
    table['Memory'] = sysprofile.format_memory(int(physmem) // 1024 if physmem.isdigit() else None)
    kenv = bsd.parse_kenv(_text(runner, ['kenv']))
    board = ' '.join(part for part in (sysprofile.short_vendor(kenv.get('smbios.planar.maker', '')),
                                       kenv.get('smbios.planar.product', '')) if part)
    if board:
        bios = kenv.get('smbios.bios.version')
        table['Motherboard'] = board + (' (%s BIOS)' % bios if bios else '')
    pci = bsd.parse_pciconf(_text(runner, ['pciconf', '-lv']))
    bridge = next((device for device in pci if device['class_id'].startswith('0600')), None)
    if bridge and bridge['vendor']:
        table['Chipset'] = '%s %s' % (sysprofile.short_vendor(bridge['vendor']), bridge['name'] or '')
    table['Disk'] = sysprofile.format_disks(bsd.parse_geom_disks(_text(runner, ['geom', 'disk', 'list'])))
    table['OS'] = 'FreeBSD %s' % release if release else sysprofile.UNKNOWN
    table['Kernel'] = sysprofile.format_kernel(release, machine)
    compiler = None
    for argv in (['cc', '--version'], ['clang', '--version'], ['gcc', '--version']):
        compiler = sysprofile.parse_compiler_version(_text(runner, argv) or '')
        if compiler:
            break
    table['Compiler'] = compiler or sysprofile.UNKNOWN
    table['File-System'] = bsd.parse_mount_p(_text(runner, ['mount', '-p'])) or sysprofile.UNKNOWN

    if not interface:
        interface = bsd.parse_route_interface(_text(runner, ['route', '-n', 'get', 'default']))
    network = {'interface': interface, 'mtu': None, 'driver': None, 'speed_mbps': None, 'offloads': None,
               'qdisc': None, 'congestion_control': None, 'sysctls': {}}
    sysctls = bsd.parse_sysctl(_text(runner, ['sysctl'] + list(bsd.NETWORK_SYSCTLS)))
    network['sysctls'] = dict((name, sysctls.get(name)) for name in bsd.NETWORK_SYSCTLS)
    network['congestion_control'] = sysctls.get('net.inet.tcp.cc.algorithm')
    if interface:
        info = bsd.parse_ifconfig(_text(runner, ['ifconfig', interface]), interface) or {}
        network['mtu'] = info.get('mtu')
        network['speed_mbps'] = info.get('speed_mbps')
        network['offloads'] = bsd.offloads(info.get('options')) if info else None
        network['driver'] = bsd.driver_of(interface)
        device = next((item for item in pci if item['device'] == interface), None)
        model = '%s %s' % (sysprofile.short_vendor(device['vendor']), device['name']) \
            if device and device['vendor'] else None
        table['Network'] = sysprofile.format_network(model, network['driver'], network['speed_mbps'])
    return {'table': table, 'network': network}


HOSTS = {'Linux': LinuxHost, 'FreeBSD': FreeBSDHost}


def for_system(system):
    """The host class of ``system`` (platform.system()'s name); ValueError for one without benchmark support."""
    if system not in HOSTS:
        raise ValueError('the benchmark modules run on %s, not on %s' % (' and '.join(sorted(HOSTS)), system))
    return HOSTS[system]()


def current():
    """The host this module runs on."""
    return for_system(platform.system())
