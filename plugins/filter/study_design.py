# -*- coding: utf-8 -*-
# Copyright: perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

DOCUMENTATION = r'''
name: study_design
short_description: The blocks of a study of two configurations, interleaved (ABBA or seeded random) or sequential
version_added: 0.3.0
description:
  - Returns one mapping per block, in the order the blocks run. Each has C(block) (1-based), C(state) (one of
    the input's states), C(repetition) (the n-th block of a state runs repetition n of every test; 0 in a
    sequential design, every repetition), C(design), C(order) (the states of every block), C(order_name) and
    C(seed) (a random order's seed, kept in the records so that the order can be made again).
  - With O(problems=true), returns the list of problems of the design variables instead (empty when valid).
author:
  - perflab.network maintainers (@perflab)
options:
  _input:
    description: The states of the study's configurations, in order (C([stock, tuned])).
    type: list
    elements: str
    required: true
  repetitions:
    description: The repetitions of each configuration (the most any test of the suite asks for).
    type: raw
    default: 1
  design:
    description: C(interleaved) or C(sequential).
    type: str
    default: interleaved
  order:
    description: C(abba) or C(random) (an interleaved design's order).
    type: str
    default: abba
  seed:
    description: The seed of a C(random) order.
    type: raw
  problems:
    description: Return the problems of the variables (design, order, seed, repetitions) instead of the blocks.
    type: bool
    default: false
'''

EXAMPLES = r'''
- name: The blocks of the study (A B B A for two repetitions)
  ansible.builtin.set_fact:
    __blocks: "{{ ['stock', 'tuned'] | perflab.network.study_design(repetitions=2) }}"
'''

RETURN = r'''
_value:
  description: The blocks (see the description), or the problems with O(problems=true).
  type: list
  elements: raw
'''

from ansible.errors import AnsibleFilterError

from ansible_collections.perflab.network.plugins.module_utils.plan import study


def study_design(states, repetitions=1, design=None, order=None, seed=None, problems=False):
    if problems:
        return study.design_problems(design, order, seed, repetitions)
    found = study.design_problems(design, order, seed)
    if found:
        raise AnsibleFilterError('; '.join(found))
    try:
        return study.design_blocks(states or [], int(repetitions or 1), design=design or None,
                                   order=order or None, seed=seed if seed not in (None, '') else None)
    except (TypeError, ValueError) as exc:
        raise AnsibleFilterError('study design: %s' % exc)


class FilterModule(object):
    def filters(self):
        return {'study_design': study_design}
