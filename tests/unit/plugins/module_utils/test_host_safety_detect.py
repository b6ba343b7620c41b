# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The management interface per OS, by host_network's one set of rules (roles/host_safety detect):
Linux (ip -j addr, tested in test_host_network.py), FreeBSD (ifconfig -a, route -n get default)
and Windows (the setup facts), each on real output."""
from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json
from pathlib import Path

from ansible_collections.perflab.network.plugins.module_utils.host import network as hn
from ansible_collections.perflab.network.plugins.filter.management_windows import FilterModule

FIXTURES = Path(__file__).resolve().parents[2] / 'fixtures'


def windows(name):
    return json.loads((FIXTURES / 'windows' / name).read_text())['ansible_interfaces']


def freebsd(name):
    return (FIXTURES / 'freebsd' / name).read_text()


def test_freebsd_management_by_ansible_host_on_real_ifconfig():
    text = freebsd('ifconfig-ohai-vtnet0.txt')
    found = hn.management(lambda a: hn.interfaces_of_address_freebsd(text, a), ansible_host='140.211.10.91')
    assert (found['interfaces'], found['rule'], found['addresses']) == (['vtnet0'], 'ansible_host', ['140.211.10.91'])


def test_freebsd_management_by_ssh_connection_ipv6_on_real_ifconfig():
    text = freebsd('ifconfig-ohai-vtnet0.txt')
    found = hn.management(lambda a: hn.interfaces_of_address_freebsd(text, a), ansible_host='freebsd1.example',
                          ssh_connection='2001:db8::9 50022 2605:bc80:3010:506:f816:3eff:feba:3e25 22')
    assert (found['interface'], found['rule']) == ('vtnet0', 'ssh_connection')


def test_freebsd_default_route_only_when_no_address_is_held():
    text, route = freebsd('ifconfig-ohai-vtnet0.txt'), freebsd('route-get-default-ohai.txt')
    dev = hn.default_route_interface_freebsd(route)
    assert dev == 'vtnet0'
    # behind a port forward: the inventory's address is not on the host
    found = hn.management(lambda a: hn.interfaces_of_address_freebsd(text, a), ansible_host='127.0.0.1',
                          default_route_dev=dev)
    assert (found['interface'], found['rule']) == ('lo0', 'ansible_host')
    found = hn.management(lambda a: hn.interfaces_of_address_freebsd(text, a), ansible_host='192.0.2.1',
                          default_route_dev=dev)
    assert (found['interface'], found['rule']) == ('vtnet0', 'default_route')
    found = hn.management(lambda a: hn.interfaces_of_address_freebsd(text, a), ansible_host='192.0.2.1',
                          default_route_dev=dev, use_default_route=False)
    assert found['interfaces'] == [] and found['rule'] == 'none'


def test_windows_management_by_ansible_host_on_real_facts():
    facts = windows('setup-interfaces-server2019.json')
    found = hn.management_windows(facts, ansible_host='192.168.1.25')
    assert (found['interfaces'], found['rule'], found['interfaces_all']) == (['Ethernet0'], 'ansible_host', ['Ethernet0'])


def test_windows_management_by_ssh_connection_with_the_ipv6_zone():
    facts = windows('setup-interfaces-server2019.json')
    # Win32-OpenSSH sets $SSH_CONNECTION; the facts' IPv6 address carries its zone (%12)
    found = hn.management_windows(facts, ansible_host='win1.example',
                                  ssh_connection='fe80::1%12 50000 fe80::924b:b8c0:f411:ba66 22')
    assert (found['interface'], found['rule']) == ('Ethernet0', 'ssh_connection')


def test_windows_address_not_held_finds_nothing_without_the_gateway_rule():
    facts = windows('setup-interfaces-server2019.json')
    found = hn.management_windows(facts, ansible_host='192.168.1.99')
    assert found['interfaces'] == [] and found['rule'] == 'none'
    found = hn.management_windows(facts, ansible_host='192.168.1.99', gateway_fallback=True)
    assert (found['interface'], found['rule']) == ('Ethernet0', 'default_route')


def test_windows_older_facts_without_addresses_per_interface():
    facts = windows('setup-interfaces-surface.json')
    found = hn.management_windows(facts, ansible_host='172.24.1.244')
    # the address is the host's (ansible_ip_addresses) but no interface says it holds it: nothing is guessed
    assert found['interfaces'] == [] and 'is not an address of this host' in found['reason']
    assert found['interfaces_all'] == ['vEthernet (DockerNAT)', 'Ethernet 3']


def test_the_filter_is_the_module_utils_function():
    filt = FilterModule().filters()['management_windows']
    facts = windows('setup-interfaces-server2019.json')
    assert filt(facts, ansible_host='192.168.1.25') == hn.management_windows(facts, ansible_host='192.168.1.25')
    assert filt(facts, ansible_host=None)['interfaces'] == []
