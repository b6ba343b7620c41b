# -*- coding: utf-8 -*-
# Copyright: perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

DOCUMENTATION = r'''
name: fleet_preflight
short_description: What a fleet leaves out after its preflight - the hosts and the links that failed it
version_added: 0.3.0
description:
  - Reads each client's M(perflab.network.bench_preflight) result and returns C(hosts) and C(pairs) for
    M(perflab.network.benchmark_plan)'s O(perflab.network.benchmark_plan#module:preflight_left_out) (module_utils/plan/fleet.py).
  - C(hosts) maps a host to the reason it is left out - its own data address or routes are wrong, or its data path
    failed with most of its peers (at least two, more than half - a bad cable, NIC or switch port fails with every
    peer, each of its peers with one); the host that failed with the largest share goes first, then the shares are
    counted again without it.
  - C(pairs) lists the single links that failed between hosts that are fine otherwise (C(client), C(server),
    C(reason)), which are skipped alone.
  - A link fails when its ping over the data link gets no answer, when its path drops packets of the data
    interface's MTU, or (O(connect)) when a firewall drops a planned port.
author:
  - perflab.network maintainers (@perflab)
options:
  _input:
    description: Each client's registered M(perflab.network.bench_preflight) result, host name to result.
    type: dict
    required: true
  plan:
    description: The fleet's plan (M(perflab.network.benchmark_plan)'s result) - its C(pairs) and C(fleet.tests).
    type: dict
    required: true
  connect:
    description: Count the planned ports a firewall drops (not in check mode, which applies no firewall opening).
    type: bool
    default: true
'''

EXAMPLES = r'''
- name: Leave out of the fleet what failed the preflight
  ansible.builtin.set_fact:
    fleet_left_out: >-
      {{ dict(ansible_play_hosts | zip(ansible_play_hosts | map('extract', hostvars, 'preflight')))
         | perflab.network.fleet_preflight(plan, connect=not ansible_check_mode) }}
  run_once: true
'''

RETURN = r'''
_value:
  description: C(hosts) (host name to reason) and C(pairs) (C(client), C(server), C(reason)); both empty when every check passed.
  type: dict
'''

from ansible.errors import AnsibleFilterError

from ansible_collections.perflab.network.plugins.module_utils.plan import fleet as fleets


def fleet_preflight(preflights, plan, connect=True):
    try:
        tests = [(t['client'], t['server']) for t in ((plan or {}).get('fleet') or {}).get('tests') or ()]
        checks = fleets.preflight_checks(preflights or {}, (plan or {}).get('pairs') or [], connect=bool(connect))
        return fleets.preflight_left_out(checks, tests)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise AnsibleFilterError('fleet_preflight: %s' % exc)


class FilterModule(object):
    def filters(self):
        return {'fleet_preflight': fleet_preflight}
