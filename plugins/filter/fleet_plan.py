# -*- coding: utf-8 -*-
# Copyright: perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

DOCUMENTATION = r'''
name: fleet_plan
short_description: A fleet's schedule in rounds in which no host takes part in two tests
version_added: 0.3.0
description:
  - Returns the plan of a fleet schedule over the input's hosts (module_utils/plan/fleet.py), C({schedule, stress, hub,
    hosts, rounds, tests, skipped, left_out, expected_s, slice, summary}). C(rounds) is a list of C({round, tests}),
    a test C({client, server}); C(skipped) the tests of hosts left out, C({client, server, reason}).
  - V(mesh) is a round-robin tournament (circle method) - N-1 pairings of N/2 pairs for even N, N pairings with one
    host idle for odd N - and each pairing runs twice, once each way; V(ring) pairs each host with its neighbours,
    both ways; V(one_to_many) and V(many_to_one) send from or to O(hub), one test a round. O(stress=true) puts every
    test in one round.
  - The benchmark role plans the same through M(perflab.network.benchmark_plan)'s O(perflab.network.benchmark_plan#module:fleet).
author:
  - perflab.network maintainers (@perflab)
options:
  _input:
    description: The hosts of the fleet, in the order the schedule uses.
    type: list
    elements: str
    required: true
  schedule:
    description: V(mesh), V(one_to_many), V(many_to_one) or V(ring).
    type: str
    default: mesh
  hub:
    description: The hub of V(one_to_many) and V(many_to_one).
    type: str
  stress:
    description: Every test in one round (every link at once).
    type: bool
    default: false
  left_out:
    description: Hosts left out (unreachable, failed preflight), host to reason; their tests are returned skipped.
    type: dict
    default: {}
  test_seconds:
    description: What one round costs in seconds, for C(expected_s).
    type: int
    default: 0
  slice_number:
    description: The AWX job slice this run is (1-based), with O(slice_count) and O(fleet).
    type: int
  slice_count:
    description: How many slices the job has.
    type: int
  fleet:
    description: Every host of the fleet (a slice's inventory holds only its own).
    type: list
    elements: str
  slice_scope:
    description: V(refuse) a schedule with tests between slices, or make it V(inside) the slice.
    type: str
    default: refuse
'''

EXAMPLES = r'''
- name: Show the rounds of a full mesh
  ansible.builtin.debug:
    msg: "{{ (groups.perflab_fleet | perflab.network.fleet_plan(schedule='mesh', test_seconds=4)).summary }}"
'''

RETURN = r'''
_value:
  description: The plan (see the description).
  type: dict
'''

from ansible.errors import AnsibleFilterError

from ansible_collections.perflab.network.plugins.module_utils.plan import fleet as fleets


def fleet_plan(hosts, schedule='mesh', hub=None, stress=False, left_out=None, test_seconds=0, slice_number=None,
               slice_count=None, fleet=None, slice_scope='refuse'):
    try:
        return fleets.plan_fleet(list(hosts or []), schedule=schedule, hub=hub, stress=bool(stress), left_out=left_out,
                                 test_seconds=int(test_seconds or 0), slice_number=slice_number,
                                 slice_count=slice_count, fleet=fleet or [], slice_scope=slice_scope)
    except (fleets.FleetError, TypeError, ValueError) as exc:
        raise AnsibleFilterError('fleet plan refused: %s' % exc)


class FilterModule(object):
    def filters(self):
        return {'fleet_plan': fleet_plan}
