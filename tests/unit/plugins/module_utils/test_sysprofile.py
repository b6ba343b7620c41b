# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os

import pytest

from ansible_collections.perflab.network.plugins.module_utils.host import sysprofile

FIXTURES = os.path.join(os.path.dirname(__file__), '..', '..', 'fixtures', 'sysprofile')


def fixture(name):
    with open(os.path.join(FIXTURES, name)) as handle:
        return handle.read()


def test_cpuinfo_vm():
    info = sysprofile.parse_cpuinfo(fixture('debian12-vm/proc-cpuinfo.txt'))
    assert info == {'model': 'Intel(R) Xeon(R) Processor', 'sockets': 1, 'cores': 2, 'threads': 2, 'mhz': 2100.0}
    assert sysprofile.format_processor(info) == 'Intel Xeon Processor @ 2.10GHz (2 Cores / 2 Threads)'


def test_cpuinfo_two_sockets_with_hyperthreads():
    info = sysprofile.parse_cpuinfo(fixture('from-docs/proc-cpuinfo-2socket-from-docs.txt'))
    assert (info['sockets'], info['cores'], info['threads']) == (2, 2, 4)
    info['mhz'] = 3700.0
    assert sysprofile.format_processor(info) == '2 x Intel Xeon Gold 6138 @ 3.70GHz (2 Cores / 4 Threads)'


def test_cpuinfo_arm64():
    info = sysprofile.parse_cpuinfo(fixture('from-docs/proc-cpuinfo-arm64-from-docs.txt'))
    assert info['model'] == 'ARM implementer 0x41 part 0xd0c'
    assert (info['sockets'], info['cores'], info['threads'], info['mhz']) == (None, None, 2, None)
    assert sysprofile.format_processor(info) == 'ARM implementer 0x41 part 0xd0c (2 Threads)'


@pytest.mark.parametrize('model, expected', [
    ('AMD EPYC 7742 64-Core Processor', 'AMD EPYC 7742'),
    ('Intel(R) Core(TM) i9-9900K CPU @ 3.60GHz', 'Intel Core i9-9900K'),
    ('Intel(R) Xeon(R) Processor', 'Intel Xeon Processor'),
])
def test_clean_cpu_model(model, expected):
    assert sysprofile.clean_cpu_model(model) == expected


def test_cpuinfo_empty():
    assert sysprofile.format_processor(sysprofile.parse_cpuinfo('')) == 'unknown'


def test_memory_from_meminfo():
    total = sysprofile.parse_meminfo(fixture('debian12-vm/proc-meminfo.txt'))
    assert total == 24684092
    assert sysprofile.format_memory(total) == '24GB'
    assert sysprofile.format_memory(None) == 'unknown'


def test_memory_from_dmidecode_3x():
    modules = sysprofile.parse_dmidecode_memory(fixture('from-docs/dmidecode-t17-3.x-from-docs.txt'))
    # the empty slot is skipped
    assert len(modules) == 2
    assert modules[0] == {'size_mb': 16384, 'type': 'DDR4', 'speed_mts': 2666, 'manufacturer': 'Samsung',
                          'part': 'M393A2K40CB2-CTD'}
    assert sysprofile.format_memory(24684092, modules) == '2 x 16 GB DDR4-2666MT/s Samsung M393A2K40CB2-CTD'


def test_memory_from_dmidecode_2x():
    modules = sysprofile.parse_dmidecode_memory(fixture('from-docs/dmidecode-t17-2.x-from-docs.txt'))
    # configured clock speed wins over the rated speed
    assert modules == [{'size_mb': 8192, 'type': 'DDR3', 'speed_mts': 1333, 'manufacturer': '00CE00B300CE',
                        'part': 'M393B1K70DH0-YK0'}]
    assert sysprofile.format_memory(0, modules) == '8 GB DDR3-1333MT/s 00CE00B300CE M393B1K70DH0-YK0'


def test_dmidecode_without_dmi_gives_nothing():
    assert sysprofile.parse_dmidecode_memory(fixture('debian12-vm/dmidecode-baseboard.stdout.txt')) == []


def test_lsblk_skips_zram():
    disks = sysprofile.parse_lsblk(fixture('debian12-vm/lsblk.json'))
    assert [disk['name'] for disk in disks] == ['vda']
    assert sysprofile.format_disks(disks) == '275GB vda'
    assert sysprofile.parse_lsblk('not json') == []
    assert sysprofile.format_disks([]) == 'unknown'


def test_os_release():
    values = sysprofile.parse_os_release(fixture('debian12-vm/os-release.txt'))
    assert values['ID'] == 'debian'
    assert sysprofile.format_os(values) == 'Debian GNU/Linux 12'
    assert sysprofile.format_os({'PRETTY_NAME': 'Debian GNU/Linux trixie/sid'}) == 'Debian GNU/Linux trixie/sid'
    assert sysprofile.format_os({}) == 'unknown'


def test_kernel():
    release, machine = fixture('debian12-vm/uname-srm.txt').split()[1:3]
    assert sysprofile.format_kernel(release, machine) == '6.18.44-fc-v657 (x86_64)'
    assert sysprofile.format_kernel(None, None) == 'unknown'


@pytest.mark.parametrize('text, expected', [
    (None, None),
    ('', None),
    ('Ubuntu clang version 14.0.0-1ubuntu1.1\nTarget: x86_64-pc-linux-gnu\n', 'Clang 14.0.0'),
    ('gcc (GCC) 8.5.0 20210514 (Red Hat 8.5.0-18)\n', 'GCC 8.5.0'),
    ('bash: gcc: command not found', None),
])
def test_compiler_versions(text, expected):
    assert sysprofile.parse_compiler_version(text) == expected


def test_gcc_version_real():
    assert sysprofile.parse_compiler_version(fixture('debian12-vm/gcc-version.txt')) == 'GCC 12.2.0'


def test_root_filesystem():
    assert sysprofile.parse_mounts(fixture('debian12-vm/proc-mounts.txt')) == 'ext4'
    assert sysprofile.parse_mounts('overlay / overlay rw 0 0\n/dev/vda / ext4 rw 0 0\n') == 'ext4'
    assert sysprofile.parse_mounts('') is None


def test_ethtool_driver():
    assert sysprofile.parse_ethtool_driver(fixture('debian12-vm/ethtool-i-virtio_net.txt')) == {
        'driver': 'virtio_net', 'version': '1.0.0', 'firmware_version': None, 'bus_info': '0000:00:03.0'}
    assert sysprofile.parse_ethtool_driver(fixture('netns-veth/ethtool-i-veth.txt'))['bus_info'] is None


def test_ethtool_features():
    features = sysprofile.parse_ethtool_features(fixture('debian12-vm/ethtool-k-virtio_net.txt'))
    # every feature line of `ethtool -k`, "[fixed]" dropped
    assert len(features) == len(fixture('debian12-vm/ethtool-k-virtio_net.txt').splitlines()) - 1
    assert features['rx-checksumming'] is True            # "on [fixed]"
    assert features['tcp-segmentation-offload'] is True
    assert features['large-receive-offload'] is False     # "off [fixed]"
    assert features['tx-checksum-ipv4'] is False
    veth = sysprofile.parse_ethtool_features(fixture('netns-veth/ethtool-k-veth.txt'))
    assert veth['generic-receive-offload'] is False
    assert veth['tcp-segmentation-offload'] is True


def test_ethtool_speed():
    assert sysprofile.parse_ethtool_speed(fixture('debian12-vm/ethtool-virtio_net.txt')) is None
    assert sysprofile.parse_ethtool_speed(fixture('netns-veth/ethtool-veth.txt')) == 10000


@pytest.mark.parametrize('name, expected', [
    ('debian12-vm/tc-qdisc-eth0.txt', 'pfifo_fast'),
    ('netns-veth/tc-qdisc-veth.txt', 'noqueue'),
    ('netns-veth/tc-qdisc-veth-mq.txt', 'mq (pfifo_fast)'),
    ('netns-veth/tc-qdisc-veth-tbf.txt', 'tbf'),
])
def test_qdisc(name, expected):
    assert sysprofile.parse_tc_qdisc(fixture(name)) == expected


def test_lspci_chipset_and_nic():
    devices = sysprofile.parse_lspci(fixture('debian12-vm/lspci-mm-nn.txt'))
    assert len(devices) == 6
    assert devices[0] == {'slot': '00:00.0', 'class': 'Host bridge', 'class_id': '0600',
                          'vendor': 'Intel Corporation', 'vendor_id': '8086', 'device': 'Device', 'device_id': '0d57'}
    assert sysprofile.chipset(devices) == 'Intel Device 0d57'
    nic = sysprofile.find_pci(devices, '0000:00:03.0')
    assert sysprofile.pci_name(nic) == 'Red Hat Virtio 1.0 network device'
    assert sysprofile.find_pci(devices, '0000:00:09.0') is None


def test_pci_ids_lookup():
    text = ('# comment\n8086  Intel Corporation\n\t0d57  Some Host Bridge\n\t\t1af4 1100  Subsystem\n'
            '1af4  Red Hat, Inc.\n\t1041  Virtio 1.0 network device\n')
    assert sysprofile.parse_pci_ids(text, '1af4', '1041') == ('Red Hat, Inc.', 'Virtio 1.0 network device')
    assert sysprofile.parse_pci_ids(text, '8086', '0d57') == ('Intel Corporation', 'Some Host Bridge')
    assert sysprofile.parse_pci_ids(text, '10de', '0001') == (None, None)


def test_pci_address_from_device_path():
    assert sysprofile.pci_address_from_path('/sys/devices/pci0000:00/0000:00:03.0/virtio2') == '0000:00:03.0'
    assert sysprofile.pci_address_from_path('/sys/devices/virtual/net/h2-vb') is None


def test_default_route_interface():
    assert sysprofile.parse_default_route_interface(fixture('debian12-vm/proc-net-route.txt')) == 'eth0'
    assert sysprofile.parse_default_route_interface(fixture('netns-veth/proc-net-route.txt')) is None


def test_format_network():
    assert sysprofile.format_network('Red Hat Virtio 1.0 network device', 'virtio_net', None) == \
        'Red Hat Virtio 1.0 network device (virtio_net, speed unknown)'
    assert sysprofile.format_network(None, 'veth', 10000) == 'veth (virtual, 10000 Mb/s)'
    assert sysprofile.format_network(None, None, None) == 'unknown'


# ------------------------------------------------------------ collect() on a fake host

def _write(root, path, text):
    full = os.path.join(str(root), path.lstrip('/'))
    if not os.path.isdir(os.path.dirname(full)):
        os.makedirs(os.path.dirname(full))
    with open(full, 'w') as handle:
        handle.write(text)


NETNS_SYSCTLS = dict(line.split(' = ', 1) for line in fixture('netns-veth/sysctls-netns.txt').splitlines()
                     if ' = ' in line)


@pytest.fixture
def fake_vm(tmp_path):
    """A root tree with this VM's /proc, /etc and /sys files and a veth data interface in a namespace."""
    root = tmp_path / 'root'
    for source, target in (('debian12-vm/proc-cpuinfo.txt', '/proc/cpuinfo'),
                           ('debian12-vm/proc-meminfo.txt', '/proc/meminfo'),
                           ('debian12-vm/proc-mounts.txt', '/proc/mounts'),
                           ('debian12-vm/proc-net-route.txt', '/proc/net/route'),
                           ('debian12-vm/os-release.txt', '/etc/os-release')):
        _write(root, target, fixture(source))
    for name, value in NETNS_SYSCTLS.items():
        _write(root, sysprofile.sysctl_path(name, '/proc/sys'), value.replace(' ', '\t') + '\n')
    _write(root, '/sys/class/net/h2-vb/mtu', '9000\n')
    _write(root, '/sys/class/net/h2-vb/speed', '10000\n')
    _write(root, '/sys/class/net/eth0/mtu', '1400\n')
    _write(root, '/sys/class/net/eth0/speed', '-1\n')
    os.makedirs(str(root / 'sys/devices/pci0000:00/0000:00:03.0/virtio2'))
    os.symlink('../../../devices/pci0000:00/0000:00:03.0/virtio2', str(root / 'sys/class/net/eth0/device'))
    _write(root, '/sys/bus/pci/devices/0000:00:00.0/class', '0x060000\n')
    _write(root, '/sys/bus/pci/devices/0000:00:00.0/vendor', '0x8086\n')
    _write(root, '/sys/bus/pci/devices/0000:00:00.0/device', '0x0d57\n')
    _write(root, '/sys/bus/pci/devices/0000:00:03.0/vendor', '0x1af4\n')
    _write(root, '/sys/bus/pci/devices/0000:00:03.0/device', '0x1041\n')
    _write(root, '/sys/block/vda/size', '536870912\n')
    _write(root, '/sys/block/zram0/size', '0\n')
    return root


TOOL_OUTPUT = {
    ('ethtool', '-i', 'h2-vb'): 'netns-veth/ethtool-i-veth.txt',
    ('ethtool', '-k', 'h2-vb'): 'netns-veth/ethtool-k-veth.txt',
    ('ethtool', 'h2-vb'): 'netns-veth/ethtool-veth.txt',
    ('tc', 'qdisc', 'show', 'dev', 'h2-vb'): 'netns-veth/tc-qdisc-veth.txt',
    ('ethtool', '-i', 'eth0'): 'debian12-vm/ethtool-i-virtio_net.txt',
    ('ethtool', '-k', 'eth0'): 'debian12-vm/ethtool-k-virtio_net.txt',
    ('ethtool', 'eth0'): 'debian12-vm/ethtool-virtio_net.txt',
    ('tc', 'qdisc', 'show', 'dev', 'eth0'): 'debian12-vm/tc-qdisc-eth0.txt',
    ('lspci', '-mm', '-nn'): 'debian12-vm/lspci-mm-nn.txt',
    ('lsblk', '-J', '-b', '-d', '-o', 'NAME,MODEL,VENDOR,SIZE,TYPE,ROTA,TRAN'): 'debian12-vm/lsblk.json',
    ('gcc', '--version'): 'debian12-vm/gcc-version.txt',
}


def all_tools(argv):
    if tuple(argv) == ('dmidecode', '-t', '17'):
        return 1, fixture('debian12-vm/dmidecode-baseboard.stdout.txt'), fixture(
            'debian12-vm/dmidecode-baseboard.stderr.txt')
    name = TOOL_OUTPUT.get(tuple(argv))
    if name is None:
        return None
    return 0, fixture(name), ''


def no_tools(argv):
    return None


def test_collect_with_every_tool(fake_vm):
    profile = sysprofile.collect('h2-vb', all_tools, str(fake_vm), machine='x86_64', release='6.18.44-fc-v657')
    assert profile['table'] == {
        'Processor': 'Intel Xeon Processor @ 2.10GHz (2 Cores / 2 Threads)',
        'Motherboard': 'unknown',
        'Chipset': 'Intel Device 0d57',
        'Memory': '24GB',
        'Disk': '275GB vda',
        # every NIC of the host (lspci's one virtio NIC) and the data interface, a veth without a PCI device
        'Network': 'Red Hat Virtio 1.0 network device + veth (virtual, 10000 Mb/s)',
        'OS': 'Debian GNU/Linux 12',
        'Kernel': '6.18.44-fc-v657 (x86_64)',
        'Compiler': 'GCC 12.2.0',
        'File-System': 'ext4',
    }
    network = profile['network']
    assert network['interface'] == 'h2-vb'
    assert network['mtu'] == 9000
    assert network['driver'] == 'veth'
    assert network['speed_mbps'] == 10000
    assert network['qdisc'] == 'noqueue'
    assert network['offloads']['generic-receive-offload'] is False
    assert network['congestion_control'] == 'bbr'
    sysctls = network['sysctls']
    assert set(sysctls) == set(sysprofile.NETWORK_SYSCTLS)
    # missing inside a network namespace -> null
    for name in ('net.core.netdev_max_backlog', 'net.core.busy_poll', 'net.core.busy_read',
                 'net.core.default_qdisc', 'net.ipv4.tcp_mem', 'net.ipv4.udp_mem', 'net.ipv4.tcp_low_latency'):
        assert sysctls[name] is None, name
    assert sysctls['net.ipv4.tcp_rmem'] == '4096 131072 33554432'
    assert sysctls['net.core.somaxconn'] == '4096'


def test_collect_default_route_interface_and_pci_model(fake_vm):
    profile = sysprofile.collect(None, all_tools, str(fake_vm))
    assert profile['network']['interface'] == 'eth0'
    assert profile['network']['speed_mbps'] is None
    assert profile['table']['Network'] == 'Red Hat Virtio 1.0 network device (virtio_net, speed unknown)'


def test_collect_without_any_tool(fake_vm):
    profile = sysprofile.collect('eth0', no_tools, str(fake_vm), machine='x86_64', release='6.18.44-fc-v657')
    table = profile['table']
    assert table['Compiler'] == 'unknown'
    assert table['Motherboard'] == 'unknown'
    # sysfs fallbacks: PCI ids (no pci.ids in the fake tree), /sys/block sizes, the driver unknown
    assert table['Chipset'] == 'PCI 8086:0d57'
    assert table['Disk'] == '275GB vda'
    assert table['Network'] == 'PCI 1af4:1041 (speed unknown)'
    assert table['Memory'] == '24GB'
    network = profile['network']
    assert network['offloads'] is None
    assert network['qdisc'] is None
    assert network['driver'] is None
    assert network['mtu'] == 1400


def test_collect_a_bond_names_its_mode_and_members(fake_vm):
    """The data interface a bond: the Network row names the mode and the members' NICs, the
    network facts carry the mode and members (sysfs files as the bonding driver writes them)."""
    _write(fake_vm, '/sys/class/net/bond0/mtu', '9000\n')
    _write(fake_vm, '/sys/class/net/bond0/bonding/mode', 'balance-alb 6\n')
    _write(fake_vm, '/sys/class/net/bond0/bonding/slaves', 'eth0 eth1\n')
    os.makedirs(str(fake_vm / 'sys/devices/pci0000:00/0000:00:04.0/virtio3'))
    _write(fake_vm, '/sys/class/net/eth1/mtu', '9000\n')
    os.symlink('../../../devices/pci0000:00/0000:00:04.0/virtio3', str(fake_vm / 'sys/class/net/eth1/device'))
    _write(fake_vm, '/sys/bus/pci/devices/0000:00:04.0/vendor', '0x1af4\n')
    _write(fake_vm, '/sys/bus/pci/devices/0000:00:04.0/device', '0x1041\n')
    profile = sysprofile.collect('bond0', no_tools, str(fake_vm))
    assert profile['network']['bond'] == {'mode': 'balance-alb', 'members': ['eth0', 'eth1']}
    assert profile['network']['mtu'] == 9000
    assert profile['table']['Network'] == 'balance-alb bond of 2 x PCI 1af4:1041 (speed unknown)'
    assert sysprofile.format_bond('802.3ad', ['A (x, 10000 Mb/s)', 'B (y, 1000 Mb/s)']) == \
        '802.3ad bond of A (x, 10000 Mb/s) + B (y, 1000 Mb/s)'
    # not a bond
    assert sysprofile.collect('eth0', no_tools, str(fake_vm))['network']['bond'] is None


def test_collect_on_an_empty_tree(tmp_path):
    profile = sysprofile.collect(None, no_tools, str(tmp_path))
    assert set(profile['table'].values()) == {'unknown'}
    assert profile['network']['interface'] is None
    assert set(profile['network']['sysctls'].values()) == {None}


def test_collect_dmi_board(fake_vm):
    _write(fake_vm, '/sys/class/dmi/id/board_vendor', 'ASUSTeK COMPUTER INC.\n')
    _write(fake_vm, '/sys/class/dmi/id/board_name', 'KRPA-U16 Series\n')
    _write(fake_vm, '/sys/class/dmi/id/bios_version', '0501\n')
    profile = sysprofile.collect('eth0', no_tools, str(fake_vm))
    assert profile['table']['Motherboard'] == 'ASUSTeK COMPUTER INC. KRPA-U16 Series (0501 BIOS)'


def test_host_nics_grouped_like_the_seeds_table():
    # parsed lspci entries (class 02xx are network controllers), counted per model in lspci's order
    def nic(vendor, device, class_id='0200'):
        return {'slot': '', 'class': 'Ethernet controller', 'class_id': class_id, 'vendor': vendor,
                'vendor_id': '', 'device': device, 'device_id': ''}
    devices = [nic('Intel Corporation', 'I210 Gigabit Network Connection'),
               nic('Intel Corporation', 'I210 Gigabit Network Connection'),
               nic('Mellanox Technologies', 'MT26448 [ConnectX EN 10GigE, PCIe 2.0 5GT/s]'),
               nic('Intel Corporation', 'C620 Series Chipset Family SATA Controller', class_id='0106')]
    text = sysprofile.host_nics(devices)
    assert text.startswith('2 x Intel I210 Gigabit Network Connection + Mellanox MT26448')
    assert 'SATA' not in text
    assert sysprofile.host_nics(devices, 'Mellanox MT26448 [ConnectX EN 10GigE, PCIe 2.0 5GT/s]',
                                'Mellanox MT26448 (mlx4_en, 10000 Mb/s)').endswith('+ Mellanox MT26448 (mlx4_en, 10000 Mb/s)')
    assert sysprofile.host_nics([]) == ''
