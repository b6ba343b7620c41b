# -*- coding: utf-8 -*-
# Copyright: perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

DOCUMENTATION = r'''
name: study_bond
short_description: One host's part of the jumbo-bond study - its bond, the tuned MTU and the labels' states
version_added: 0.3.0
description:
  - The jumbo-bond study (C(playbooks/studies/jumbo-bond.yml)) compares two configurations that differ in what
    O(change) names. V(mtu) (the default, the seed's comparison) - the bond in both configurations, at the stock
    MTU, then at the jumbo MTU. V(link_and_mtu) - one link at the stock MTU against the bond at the jumbo MTU.
  - Returns C(bond) (the host's C(perflab_bond) with C(apply) and C(mtu) set for the study, or none for a host
    without one), C(tuned_mtu), C(states) (C(stock) and C(tuned) state words of the labels, saying what differs,
    for example C(bond MTU 1500) and C(bond MTU 9000)) and C(configurations) (interface, links and MTU of each).
author:
  - perflab.network maintainers (@perflab)
options:
  _input:
    description: The host's C(perflab_bond), or none.
    type: raw
    required: true
  change:
    description: What the two configurations differ in.
    type: str
    default: mtu
    choices: [mtu, link_and_mtu]
  stock_mtu:
    description: The stock MTU of the data link.
    type: int
    default: 1500
  jumbo_mtu:
    description: The MTU of the tuned configuration.
    type: int
    default: 9000
  data_interface:
    description: The host's stock data interface (C(perflab_data_interface)).
    type: str
    default: ""
'''

EXAMPLES = r'''
- name: The bond of this host in the jumbo-bond study
  ansible.builtin.set_fact:
    perflab_bond: "{{ (perflab_bond | default(none)) | perflab.network.study_bond(change='mtu').bond }}"
'''

RETURN = r'''
_value:
  description: C(bond), C(tuned_mtu), C(states) and C(configurations) (see the description).
  type: dict
'''

from ansible.errors import AnsibleFilterError

from ansible_collections.perflab.network.plugins.module_utils.plan import study


def study_bond(bond, change=study.DEFAULT_BOND_CHANGE, stock_mtu=1500, jumbo_mtu=9000, data_interface=''):
    def as_int(value):
        return int(value) if isinstance(value, str) and value.strip().isdigit() else value
    try:
        return study.bond_study(bond or None, change, as_int(stock_mtu), as_int(jumbo_mtu), data_interface or '')
    except ValueError as exc:
        raise AnsibleFilterError('jumbo-bond study: %s' % exc)


class FilterModule(object):
    def filters(self):
        return {'study_bond': study_bond}
