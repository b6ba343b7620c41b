# -*- coding: utf-8 -*-
# Copyright: perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

DOCUMENTATION = r'''
name: file_name_problem
short_description: Why a string cannot be part of a file name (run id, suite name), or an empty string
version_added: 0.3.0
description:
  - The one rule of the collection for a string that becomes part of a file name (C(<run_id>.jsonl),
    C(<run_id>.xlsx)) - 1 to 64 letters, digits, C(_ . -), starting with a letter or a digit (no hidden
    file, nothing longer than a file name can be). The results callback and C(benchmark_plan) use the same rule.
  - Returns an empty string when the value is allowed, else one message naming O(field) and the rule.
author:
  - perflab.network maintainers (@perflab)
options:
  _input:
    description: The value.
    type: raw
    required: true
  field:
    description: The variable's name, for the message.
    type: str
    required: true
'''

EXAMPLES = r'''
- name: Refuse a run id that cannot name a file
  ansible.builtin.assert:
    that: perflab_run_id | perflab.network.file_name_problem('perflab_run_id') == ''
    fail_msg: "{{ perflab_run_id | perflab.network.file_name_problem('perflab_run_id') }}"
'''

RETURN = r'''
_value:
  description: The problem, or an empty string.
  type: str
'''

from ansible_collections.perflab.network.plugins.module_utils.core.names import name_problem


def file_name_problem(value, field):
    return name_problem(field, value) or ''


class FilterModule(object):
    def filters(self):
        return {'file_name_problem': file_name_problem}
