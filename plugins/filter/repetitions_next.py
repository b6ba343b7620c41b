# -*- coding: utf-8 -*-
# Copyright: perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

DOCUMENTATION = r'''
name: repetitions_next
short_description: Whether the next repetition of a repetitions auto test runs
version_added: 0.3.0
description:
  - For a plan item of M(perflab.network.benchmark_plan) and the records the run stored so far, whether the item
    runs; a test whose repetitions are C(auto) goes on while the rule (at least C(min) runs, at most C(max), until the 95 %
    confidence interval of its primary metric's mean is within C(ci_percent) of the mean) says so, from the values
    a resumed run recorded (the item's C(repetitions_earlier)) and this run's. A fixed test's item always runs.
  - The decision is C(plugins/module_utils/plan/repetitions.py) C(decide), the one the records' C(repetitions_auto) holds.
author:
  - perflab.network maintainers (@perflab)
options:
  _input:
    description: A plan item (an element of C(runs) of M(perflab.network.benchmark_plan)).
    type: dict
    required: true
  records:
    description: The result records stored so far in this run (any tests; the item's are picked by configuration,
      pair and test id).
    type: list
    elements: dict
    required: true
'''

EXAMPLES = r'''
- name: Run the next repetition only while the rule says so
  perflab.network.bench_test:
    tool: "{{ item.tool }}"
    repetitions_auto: "{{ item.repetitions_auto }}"
    repetitions_earlier: "{{ (item | perflab.network.repetitions_next(records_so_far)).earlier }}"
  when: (item | perflab.network.repetitions_next(records_so_far)).run
'''

RETURN = r'''
_value:
  description: C({run, earlier, reason}), C(earlier) the primary values of the test's runs before this one (null for
    a failed run), C(reason) the rule's last word (C(ci 3.1 % <= 5 % after 4 runs)).
  type: dict
'''

from ansible_collections.perflab.network.plugins.module_utils.plan import repetitions


def repetitions_next(item, records):
    return repetitions.next_run(dict(item or {}), list(records or []))


class FilterModule(object):
    def filters(self):
        return {'repetitions_next': repetitions_next}
