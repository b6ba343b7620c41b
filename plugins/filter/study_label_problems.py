# -*- coding: utf-8 -*-
# Copyright: perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

DOCUMENTATION = r'''
name: study_label_problems
short_description: Configuration labels that two different systems of a study would share
version_added: 0.3.0
description:
  - Given each host's label and identity (P(perflab.network.study_label#filter) with C(part=identity)), returns
    one message per label carried by hosts that are different systems (another OS version, profile or
    C(perflab_system_label)) - their results would pool in one column of the report.
  - The study playbooks refuse such a study in their validate stage, before anything changes.
author:
  - perflab.network maintainers (@perflab)
options:
  _input:
    description: Host name to C({label, identity}).
    type: dict
    required: true
'''

EXAMPLES = r'''
- name: Refuse labels shared by different systems
  ansible.builtin.assert:
    that: hosts | perflab.network.study_label_problems | length == 0
    fail_msg: "{{ hosts | perflab.network.study_label_problems | join('; ') }}"
'''

RETURN = r'''
_value:
  description: One message per shared label (empty when every label names one system).
  type: list
  elements: str
'''

from ansible.errors import AnsibleFilterError

from ansible_collections.perflab.network.plugins.module_utils.plan import study


def study_label_problems(hosts):
    if not isinstance(hosts, dict) or not all(isinstance(entry, dict) and 'label' in entry and 'identity' in entry
                                              for entry in hosts.values()):
        raise AnsibleFilterError('study_label_problems: the input must map host names to {label, identity}')
    return study.label_problems(hosts)


class FilterModule(object):
    def filters(self):
        return {'study_label_problems': study_label_problems}
