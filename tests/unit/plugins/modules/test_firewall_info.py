# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""firewall_info: parsers on real nft/iptables output, and the backend choice."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import copy
from pathlib import Path

from ansible_collections.perflab.network.plugins.modules import firewall_info as fi

FIXTURES = Path(__file__).resolve().parents[2] / 'fixtures'


def test_nft_input_chains_of_a_real_ruleset():
    text = (FIXTURES / 'nftables' / '1.0.6' / 'default-drop.json').read_text()
    chains, drops = fi.parse_nft_input_chains(text)
    assert chains == ['inet filter input', 'ip6 my-t in-6']
    assert drops == ['inet filter input']
    assert fi.parse_nft_input_chains('') == ([], [])


def test_iptables_input_of_real_output_does_not_count_our_jump():
    text = (FIXTURES / 'iptables' / '1.8.9' / 'iptables-S-INPUT-drop.txt').read_text()
    assert fi.parse_iptables_input(text, 'PERFLAB-INPUT') == ('DROP', 2)
    assert fi.parse_iptables_input('-P INPUT ACCEPT\n', 'PERFLAB-INPUT') == ('ACCEPT', 0)


def test_iptables_variant_of_real_output():
    assert fi.parse_iptables_variant((FIXTURES / 'iptables' / '1.8.9' / 'iptables-V.txt').read_text()) == 'nf_tables'
    assert fi.parse_iptables_variant('iptables v1.8.7 (legacy)') == 'legacy'
    assert fi.parse_iptables_variant('iptables v1.4.21') == ''


NOTHING = dict(
    firewalld=dict(installed=False, running=False),
    ufw=dict(installed=False, active=False),
    nftables=dict(installed=False, input_chains=[], drop_policy_chains=[]),
    iptables=dict(installed=False, variant='', input_policy='', input_rules=0),
    pf=dict(installed=False, enabled=False, anchor_hooked=False),
    ipfw=dict(installed=False, enabled=False),
)


def with_(**changes):
    info = copy.deepcopy(NOTHING)
    for key, value in changes.items():
        info[key].update(value)
    return info


def test_backend_choice_order():
    assert fi.choose_backend(NOTHING)[0] == 'none'
    assert fi.choose_backend(with_(nftables={'installed': True}))[0] == 'nftables'
    # a filtering iptables wins over nft (its tables would be changed behind its back)
    assert fi.choose_backend(with_(nftables={'installed': True},
                                   iptables={'installed': True, 'input_policy': 'DROP'}))[0] == 'iptables'
    assert fi.choose_backend(with_(nftables={'installed': True},
                                   iptables={'installed': True, 'input_policy': 'ACCEPT'}))[0] == 'nftables'
    assert fi.choose_backend(with_(ufw={'installed': True, 'active': True}, nftables={'installed': True}))[0] == 'ufw'
    assert fi.choose_backend(with_(firewalld={'installed': True, 'running': True},
                                   ufw={'installed': True, 'active': True}))[0] == 'firewalld'
    # an installed but stopped firewalld is not the firewall
    assert fi.choose_backend(with_(firewalld={'installed': True}, nftables={'installed': True}))[0] == 'nftables'
    assert fi.choose_backend(with_(pf={'installed': True}, ipfw={'installed': True, 'enabled': True}))[0] == 'ipfw'
    assert fi.choose_backend(with_(pf={'installed': True, 'enabled': True}, ipfw={'installed': True, 'enabled': True}))[0] == 'pf'
