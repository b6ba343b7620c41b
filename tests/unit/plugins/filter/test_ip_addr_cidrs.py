# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The bonding role's record of its members, from real iproute2 6.1 JSON (tests/unit/fixtures/iproute2/:
a veth made on the development machine, up with 192.0.2.5/24, then down with addrgenmode none)."""
from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os

import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.perflab.network.plugins.filter.ip_addr_cidrs import ip_addr_cidrs

FIXTURES = os.path.join(os.path.dirname(__file__), '..', '..', 'fixtures', 'iproute2')


def result(name, fixture, key='__bonding_member'):
    with open(os.path.join(FIXTURES, fixture)) as handle:
        return {key: name, 'stdout': handle.read()}


def test_addresses_and_up_from_ip_addr():
    out = ip_addr_cidrs([result('eth1', 'ip-j-d-addr-up.json'), result('eth2', 'ip-j-d-addr-down-genmode-none.json')])
    # every address ip lists (the role asks for scope global), and the UP flag
    assert out == {'eth1': {'up': True, 'addresses': ['192.0.2.5/24', 'fe80::589d:10ff:fec4:1e65/64']},
                   'eth2': {'up': False, 'addresses': []}}


def test_links_give_up_and_the_ipv6_address_generation_mode():
    # `ip -j addr show dev X scope global` prints [] for a link without a global address: its link says up
    addrs = [{'__bonding_member': 'eth2', 'stdout': '[]'}, result('eth3', 'ip-j-d-addr-down-genmode-none.json')]
    links = [result('eth2', 'ip-j-d-link-up.json'), result('eth3', 'ip-j-d-link-down-genmode-none.json'),
             {'__bonding_member': 'eth9', 'skipped': True}]
    assert ip_addr_cidrs(addrs, links=links) == {
        'eth2': {'up': True, 'addresses': [], 'addr_gen_mode': 'eui64'},
        'eth3': {'up': False, 'addresses': [], 'addr_gen_mode': 'none'}}


def test_skipped_results_and_bad_json():
    assert ip_addr_cidrs([{'skipped': True}]) == {}
    with pytest.raises(AnsibleFilterError, match='not the JSON of ip -j -d link'):
        ip_addr_cidrs([result('eth1', 'ip-j-d-addr-up.json')], links=[{'__bonding_member': 'eth1', 'stdout': 'oops'}])
