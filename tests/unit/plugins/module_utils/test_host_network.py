# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""host_network: the management interface on real ``ip -j`` output (iproute2 6.1.0, see
tests/unit/fixtures/iproute2/6.1.0/README.md) and the one stack order."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json
from pathlib import Path

import pytest

from ansible_collections.perflab.network.plugins.module_utils.host import network as hn

FIXTURES = Path(__file__).resolve().parents[2] / 'fixtures' / 'iproute2' / '6.1.0'


def fixture(name):
    return json.loads((FIXTURES / name).read_text())


@pytest.fixture
def links():
    return fixture('ip-j-addr-two-nets.json')


def test_address_forms():
    assert hn.normalize_address('fe80::1%hc0') == 'fe80::1'
    assert hn.normalize_address('::ffff:10.250.1.10') == '10.250.1.10'
    assert hn.normalize_address('[fd00:250::10]') == 'fd00:250::10'
    assert hn.looks_like_address('10.250.1.10') and hn.looks_like_address('fd00:250::10')
    assert not hn.looks_like_address('localhost') and not hn.looks_like_address('lab-a.example')
    assert hn.ssh_server_address('10.250.1.1 50022 10.250.1.10 22') == '10.250.1.10'
    assert hn.ssh_server_address('') == '' and hn.ssh_server_address('garbage') == ''


def test_interface_of_address_on_real_output(links):
    assert hn.interfaces_of_address(links, '10.250.2.10') == ['hc2']
    assert hn.interfaces_of_address(links, 'fd00:250::10') == ['hc0']
    assert hn.interfaces_of_address(links, '127.0.0.1') == ['lo']
    assert hn.interfaces_of_address(links, '10.250.9.9') == []
    # the older fixture, as a string (what ip prints)
    text = (FIXTURES / 'ip-j-addr.json').read_text()
    assert hn.interface_of_address(text, '10.206.1.60') == 'h6m0'
    assert hn.interface_of_address(text, '') == ''
    # ip -d adds the MTU limits, the addresses are the same
    detailed = fixture('ip-d-j-addr-two-nets.json')
    assert hn.interfaces_of_address(detailed, '10.250.1.10') == ['hc0']
    assert 'max_mtu' in [link for link in detailed if link['ifname'] == 'hc0'][0]


def test_default_route_on_real_output():
    assert hn.default_route_interface(fixture('ip-j-route-default.json')) == 'hc2'
    assert hn.default_route_interface(fixture('ip-j-6-route-default.json')) == 'hc0'
    # the full table: only the default route counts
    assert hn.default_route_interface(fixture('ip-j-route.json')) == 'hc2'
    assert hn.default_route_interface([]) == ''
    # the lowest metric wins, then the first
    routes = [{'dst': 'default', 'dev': 'a', 'metric': 600}, {'dst': 'default', 'dev': 'b', 'metric': 100},
              {'dst': 'default', 'dev': 'c', 'metric': 100}]
    assert hn.default_route_interface(routes) == 'b'
    assert hn.default_route_interface_freebsd('   route to: default\n  gateway: 10.0.0.1\n  interface: vtnet0\n') == 'vtnet0'


def test_management_rules_in_order(links):
    # the SSH server address is the address as seen on the host (NAT: ansible_host is elsewhere)
    found = hn.management(links, ansible_host='192.0.2.7', ssh_connection='10.250.1.1 5000 10.250.1.10 22',
                          default_route_dev='hc2')
    assert found['interfaces'] == ['hc0'] and found['rule'] == 'ssh_connection'
    assert found['addresses'] == ['10.250.1.10', '192.0.2.7']
    assert '192.0.2.7 is not an address of this host' in found['reason']
    # both rules count: the SSH address on hc0, ansible_host on hc2
    found = hn.management(links, ansible_host='10.250.2.10', ssh_connection='10.250.1.1 5000 10.250.1.10 22')
    assert found['interfaces'] == ['hc0', 'hc2'] and found['rules'] == {'hc0': 'ssh_connection', 'hc2': 'ansible_host'}
    # ansible_host alone (a local connection has no $SSH_CONNECTION)
    found = hn.management(links, ansible_host='fd00:250::10')
    assert found['interface'] == 'hc0' and found['rule'] == 'ansible_host'
    # a host name is not looked up: $SSH_CONNECTION covers it
    found = hn.management(links, ansible_host='localhost', default_route_dev='hc2', use_default_route=False)
    assert found['interfaces'] == [] and found['rule'] == 'none' and found['addresses'] == []


def test_default_route_is_only_the_fallback(links):
    found = hn.management(links, ansible_host='192.0.2.7', default_route_dev='hc2')
    assert found['interfaces'] == ['hc2'] and found['rule'] == 'default_route'
    assert 'default route leaves through hc2' in found['reason']
    found = hn.management(links, ansible_host='10.250.1.10', default_route_dev='hc2')
    assert found['interfaces'] == ['hc0'] and found['rule'] == 'ansible_host'
    found = hn.management(links, ansible_host='192.0.2.7', default_route_dev='hc2', use_default_route=False)
    assert found['interfaces'] == []


def test_management_on_freebsd_ifconfig():
    text = ('vtnet0: flags=8863<UP,BROADCAST,RUNNING,SIMPLEX,MULTICAST> metric 0 mtu 1500\n'
            '\tinet 10.250.3.5 netmask 0xffffff00 broadcast 10.250.3.255\n'
            '\tinet6 fe80::1%vtnet0 prefixlen 64 scopeid 0x1\n'
            'lo0: flags=8049<UP,LOOPBACK,RUNNING,MULTICAST> metric 0 mtu 16384\n\tinet 127.0.0.1 netmask 0xff000000\n')
    assert hn.interface_of_address_freebsd(text, '10.250.3.5') == 'vtnet0'
    assert hn.interface_of_address_freebsd(text, 'fe80::1') == 'vtnet0'
    found = hn.management(lambda a: hn.interfaces_of_address_freebsd(text, a), ssh_connection='10.250.3.1 1 10.250.3.5 22')
    assert found['interface'] == 'vtnet0' and found['rule'] == 'ssh_connection'


EVIDENCE = {
    'netplan': {'installed': True, 'configs': []},
    'networkmanager': {'installed': True, 'running': True,
                       'interfaces': {'eth1': {'connection': 'Wired connection 1'}, 'eth2': {'connection': ''}}},
    'networkd': {'running': True, 'interfaces': {'eth1': {'network_file': ''},
                                                 'eth2': {'network_file': '/etc/systemd/network/20-eth2.network'}}},
    'ifupdown': {'installed': False, 'interfaces_file': True, 'sources_dir': True},
    'ifcfg': {'directory': True, 'interfaces': {'eth1': {'ifcfg_file': '/etc/sysconfig/network-scripts/ifcfg-eth1'},
                                                'eth2': {'ifcfg_file': ''}}},
    'freebsd': {'system': 'Linux'},
    'windows': {'system': 'Linux'},
}


def test_one_stack_order():
    assert hn.STACK_ORDER == ('netplan', 'networkmanager', 'networkd', 'ifupdown', 'ifcfg', 'freebsd', 'windows')
    # the order is the module's, whatever order the caller lists
    assert hn.ordered(['ifcfg', 'networkmanager', 'bogus']) == ['networkmanager', 'ifcfg']
    # netplan without configuration files does not manage anything
    assert hn.choose_stack(EVIDENCE) == ('networkmanager', 'NetworkManager is running')
    with_netplan = dict(EVIDENCE, netplan={'installed': True, 'configs': ['50-cloud-init.yaml']})
    assert hn.choose_stack(with_netplan)[0] == 'netplan'
    # installed is needed host wide
    assert hn.choose_stack(dict(with_netplan, netplan={'installed': False, 'configs': ['a.yaml']}))[0] == 'networkmanager'
    assert hn.choose_stack(EVIDENCE, ['networkd', 'ifcfg']) == ('networkd', 'systemd-networkd is running')
    assert hn.choose_stack(EVIDENCE, ['ifupdown'])[0] == 'unknown'  # ifup is not installed
    assert hn.choose_stack({'freebsd': {'system': 'FreeBSD'}}) == ('freebsd', 'FreeBSD configures interfaces in rc.conf')
    assert hn.choose_stack({'windows': {'system': 'Windows'}})[0] == 'windows'
    assert hn.choose_stack({})[0] == 'unknown'


def test_stack_per_interface():
    per = hn.interface_stacks(EVIDENCE, ['eth1', 'eth2'])
    assert per['eth1'] == {'stack': 'networkmanager', 'reason': 'NetworkManager connection Wired connection 1',
                           'managed_by': ['networkmanager', 'ifupdown', 'ifcfg']}
    assert per['eth2']['stack'] == 'networkd' and per['eth2']['managed_by'] == ['networkd', 'ifupdown']
    # every interface must be managed by the stack chosen for them all
    assert hn.choose_interface_stack(EVIDENCE, ['eth1', 'eth2']) == ('ifupdown', '/etc/network/interfaces exists')
    assert hn.choose_interface_stack(EVIDENCE, ['eth1'], ['ifcfg', 'networkd'])[0] == 'ifcfg'
    assert hn.choose_interface_stack(EVIDENCE, ['eth2'], ['ifcfg'])[0] == 'unknown'
    assert hn.choose_interface_stack(EVIDENCE, [])[0] == 'unknown'


def test_probe_outputs():
    # real `LC_ALL=C nmcli -g GENERAL.STATE,GENERAL.CONNECTION device show IF` (NetworkManager 1.52)
    assert hn.nm_device(0, '100 (connected)\nWired connection 1\n') == \
        {'connection': 'Wired connection 1', 'external': False}
    assert hn.nm_device(0, '100 (connected (externally))\neth1\n') == {'connection': 'eth1', 'external': True}
    assert hn.nm_device(0, '30 (disconnected)\n\n') == {'connection': '', 'external': False}
    assert hn.nm_device(0, '10 (unmanaged)\n\n') == {'connection': '', 'external': False}
    assert hn.nm_device(10, "Error: Device 'nosuch' not found.\n") == {'connection': '', 'external': False}
    # an address NetworkManager only found there is not its configuration
    evidence = {'networkmanager': {'interfaces': {'eth1': {'connection': 'eth1', 'external': True},
                                                  'eth2': {'connection': 'Wired connection 2', 'external': False}}}}
    assert hn.interface_stack_reason('networkmanager', evidence, 'eth1') == ''
    assert hn.interface_stack_reason('networkmanager', evidence, 'eth2') == 'NetworkManager connection Wired connection 2'
    status = ('\u25cf 2: eth2\n             Link File: /usr/lib/systemd/network/99-default.link\n'
              '          Network File: /etc/systemd/network/20-eth2.network\n                 State: routable\n')
    assert hn.networkd_file(0, status) == '/etc/systemd/network/20-eth2.network'
    assert hn.networkd_file(0, status.replace('Network File: /etc', 'Network File: n/a #')) == ''
    assert hn.networkd_file(1, status) == ''
    assert hn.ifupdown_sources_dir('auto lo\nsource /etc/network/interfaces.d/*\n')
    assert hn.ifupdown_sources_dir('  source-directory /etc/network/interfaces.d\n')
    assert not hn.ifupdown_sources_dir('auto lo\n# source /etc/network/interfaces.d/*\n')
    assert hn.netplan_configs(['50-cloud-init.yaml', '90-perflab-mtu.yaml', 'old.yml', 'README'], 'perflab-mtu') == \
        ['50-cloud-init.yaml']
    assert hn.is_own('ifcfg-perflab-bond0', 'perflab') and hn.is_own('60-perflab-bond0.yaml', 'perflab')
    assert not hn.is_own('50-cloud-init.yaml', 'perflab') and not hn.is_own('x', '')


class FakeModule(object):
    """run_command / get_bin_path answering from a table (argv tuple -> (rc, out, err))."""

    def __init__(self, answers, bins):
        self.answers, self.bins, self.calls = answers, bins, []

    def get_bin_path(self, name):
        return '/usr/bin/' + name if name in self.bins else None

    def run_command(self, argv, environ_update=None):
        argv = [a.replace('/usr/bin/', '') for a in argv]
        self.calls.append(argv)
        self.environ = environ_update
        return self.answers.get(tuple(argv), (1, '', 'not faked'))


def test_probe_only_runs_what_is_asked(tmp_path):
    (tmp_path / 'etc/netplan').mkdir(parents=True)
    (tmp_path / 'etc/netplan/50-cloud-init.yaml').write_text('network: {version: 2}\n')
    (tmp_path / 'etc/network').mkdir()
    (tmp_path / 'etc/network/interfaces').write_text('source /etc/network/interfaces.d/*\n')
    module = FakeModule({
        ('ip', '-j', 'addr', 'show'): (0, (FIXTURES / 'ip-j-addr-two-nets.json').read_text(), ''),
        ('ip', '-4', '-j', 'route', 'show', 'default'): (0, (FIXTURES / 'ip-j-route-default.json').read_text(), ''),
        ('nmcli', '-t', '-f', 'RUNNING', 'general'): (0, 'running\n', ''),
        ('nmcli', '-g', 'GENERAL.STATE,GENERAL.CONNECTION', 'device', 'show', 'hc0'): (0, '100 (connected)\ndata\n', ''),
    }, bins={'ip', 'nmcli', 'netplan'})
    probe = hn.HostProbe(module, root=str(tmp_path), system='Linux')
    links = probe.links()
    assert probe.interfaces(links) == ['hc0', 'hc1', 'hc2', 'hc3', 'lo']
    assert probe.management(links, ansible_host='192.0.2.1')['interfaces'] == ['hc2']  # the default route
    assert probe.management(links, ansible_host='192.0.2.1', use_default_route=False)['interfaces'] == []
    evidence = probe.stack_evidence(['networkmanager', 'ifupdown'], ['hc0'])
    assert set(evidence) == {'networkmanager', 'ifupdown'}
    assert evidence['networkmanager']['interfaces'] == {'hc0': {'connection': 'data', 'external': False}}
    assert evidence['ifupdown'] == {'installed': False, 'interfaces_file': True, 'sources_dir': True}
    assert not [c for c in module.calls if c[0] in ('networkctl', 'netplan')]
    evidence = probe.stack_evidence(list(hn.STACK_ORDER), ['hc0'])
    assert hn.choose_stack(evidence)[0] == 'netplan'
    assert hn.choose_interface_stack(evidence, ['hc0'], ['networkmanager', 'networkd', 'ifcfg'])[0] == 'networkmanager'


def test_behind_a_port_forward_the_ssh_connection_names_the_management_nic():
    """A VM lab host is reached at 127.0.0.1:PORT (QEMU's forward): the inventory's address is the
    host's loopback, and only $SSH_CONNECTION's server address names the NIC that carries SSH."""
    links = [{'ifname': 'lo', 'addr_info': [{'family': 'inet', 'local': '127.0.0.1', 'prefixlen': 8}]},
             {'ifname': 'eth0', 'addr_info': [{'family': 'inet', 'local': '10.0.2.15', 'prefixlen': 24}]},
             {'ifname': 'eth1', 'addr_info': [{'family': 'inet', 'local': '10.224.1.11', 'prefixlen': 24}]}]
    found = hn.management(links, ansible_host='127.0.0.1', ssh_connection='10.0.2.2 40022 10.0.2.15 22')
    assert (found['interface'], found['rule']) == ('eth0', 'ssh_connection')
    assert 'eth1' not in found['interfaces']
