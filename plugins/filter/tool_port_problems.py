# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

DOCUMENTATION = r'''
name: tool_port_problems
short_description: What is wrong with the firewall role's tool settings, from the tool registry
version_added: 0.3.0
description:
  - Checks the firewall role's settings of the tools' openings outside a plan (C(firewall_iperf3_ports),
    C(firewall_netperf_data_ports), C(firewall_nuttcp_streams)) against the ranges the tool files declare
    (C(plugins/module_utils/tools/<tool>/tool.py) C(firewall_settings)), and returns one message per setting out of
    range, naming the role's variable; an empty list when all are right.
  - The C(perflab.network.firewall) role's preflight refuses these before it changes anything.
author:
  - perflab.network maintainers (@perflab)
options:
  _input:
    description: Setting (without the C(firewall_) prefix) -> value; a setting left out takes its default.
    type: dict
    required: true
  tools:
    description:
      - The role's C(firewall_tools); a name the registry does not know adds a message naming C(firewall_tools)
        and the known tools.
    type: list
    elements: str
'''

EXAMPLES = r'''
- name: What is wrong with 0 iperf3 ports
  ansible.builtin.debug:
    msg: "{{ {'iperf3_ports': 0} | perflab.network.tool_port_problems }}"

- name: What is wrong with the firewall role's settings and its list of tools
  ansible.builtin.debug:
    msg: "{{ {'iperf3_ports': 4} | perflab.network.tool_port_problems(tools=['iperf3', 'iperf9']) }}"
'''

RETURN = r'''
_value:
  description:
    - >-
      One message per setting out of range (C(firewall_iperf3_ports must be 1-64 (got 0))), and one for the
      unknown names of O(tools) (C(firewall_tools: unknown tool iperf9 (known: ...))).
  type: list
  elements: str
'''

from ansible.errors import AnsibleFilterError

from ansible_collections.perflab.network.plugins.module_utils.tools import registry


def tool_port_problems(settings, tools=None):
    try:
        problems = ['firewall_' + problem for problem in registry.firewall_setting_values(settings or {})[1]]
    except KeyError as exc:
        raise AnsibleFilterError('tool_port_problems: %s' % exc.args[0])
    # the firewall role's list of tools, checked here so that its preflight names the variable
    unknown = registry.unknown_problem(tools or [], 'firewall_tools') if tools is not None else ''
    return problems + ([unknown] if unknown else [])


class FilterModule(object):
    def filters(self):
        return {'tool_port_problems': tool_port_problems}
