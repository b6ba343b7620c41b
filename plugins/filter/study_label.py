# -*- coding: utf-8 -*-
# Copyright: perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

DOCUMENTATION = r'''
name: study_label
short_description: A host's default configuration label, or what makes it a system, from its facts
version_added: 0.3.0
description:
  - Returns C([<system_label> ]<distribution> <distribution_version> <state>), the state being C(stock) or
    C(tuned-<profile>), for example C(Ubuntu 18.04 stock) or C(Server 1 CentOS 7.9 tuned-latency). The full
    version keeps Ubuntu 18.04 and 18.10 apart; the profile keeps two tuning profiles apart.
  - With O(part=base), the label without the state; with O(part=identity), the mapping that tells one system
    from another (what the label names), which the P(perflab.network.study_label_problems#filter) filter compares.
author:
  - perflab.network maintainers (@perflab)
options:
  _input:
    description: The host's facts (C(ansible_facts)); C(distribution) and C(distribution_version) are used.
    type: dict
    required: true
  system_label:
    description: The host group's label (C(perflab_system_label)), for example C(Server 1) or C(ConnectX).
    type: str
    default: ""
  vcpus:
    description:
      - The system's vCPU count (C(perflab_system_vcpus)), named in the label after the OS version (C(OSv 0.57 1 vCPU stock)),
        as in the OSv seed's 1-vCPU and 4-vCPU runs. Empty, not named.
    type: raw
  tuned:
    description: Whether the host is tuned in this configuration.
    type: bool
    default: false
  profile:
    description: The tuning profile, when tuned.
    type: str
    default: throughput
  part:
    description: V(label), V(base) (without the state) or V(identity).
    type: str
    default: label
    choices: [label, base, identity]
'''

EXAMPLES = r'''
- name: This host's label in the tuned half of a study
  ansible.builtin.debug:
    msg: "{{ ansible_facts | perflab.network.study_label(system_label=perflab_system_label | default(''), tuned=true, profile='latency') }}"
'''

RETURN = r'''
_value:
  description: >-
    The label (a string), or with O(part=identity) a mapping of C(system_label), C(distribution), C(version), C(vcpus),
    C(profile).
  type: raw
'''

from ansible.errors import AnsibleFilterError

from ansible_collections.perflab.network.plugins.module_utils.plan import study


def study_label(facts, system_label='', tuned=False, profile='throughput', part='label', vcpus=None):
    if not isinstance(facts, dict):
        raise AnsibleFilterError('study_label: the input must be the host facts (a mapping), got %r' % (facts,))
    facts = dict((key[len('ansible_'):] if key.startswith('ansible_') else key, value) for key, value in facts.items())
    try:
        study.vcpus_value(vcpus)
    except ValueError as exc:
        raise AnsibleFilterError('study_label: %s' % exc)
    if part == 'identity':
        return study.identity(facts, system_label, bool(tuned), profile, vcpus=vcpus)
    if part == 'base':
        return study.base_label(facts, system_label, vcpus)
    if part != 'label':
        raise AnsibleFilterError('study_label: part must be label, base or identity, got %r' % (part,))
    return study.default_label(facts, system_label, bool(tuned), profile, vcpus)


class FilterModule(object):
    def filters(self):
        return {'study_label': study_label}
