# -*- coding: utf-8 -*-
# Copyright: perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

DOCUMENTATION = r'''
name: tool_ports
short_description: The firewall openings the benchmark tools' servers need, from the tool registry
version_added: 0.2.0
description:
  - Returns the ports (first, last, protocol) that the servers of the named tools listen on with
    their default ports, as each tool's registry file (C(plugins/module_utils/tools/)) describes them.
  - The C(perflab.network.firewall) role opens these when it is given tools rather than a plan's
    openings (the plan's openings come from M(perflab.network.benchmark_plan) RV(perflab.network.benchmark_plan#module:firewall)).
author:
  - perflab.network maintainers (@perflab)
options:
  _input:
    description: Tool names, in the order their openings are wanted.
    type: list
    elements: str
    required: true
  iperf3_ports:
    description:
      - How many iperf3 servers, on consecutive ports from 5201 (1-64).
      - This and the other settings are the tool files' C(firewall_settings) (C(plugins/module_utils/tools/<tool>/tool.py));
        each has its default and range there; the firewall role passes its C(firewall_<setting>) variables.
    type: int
    default: 1
  netperf_data_ports:
    description: The netperf data ports the tests pin (C(-- -P ,port)), beside the control port.
    type: list
    elements: int
    default: [12866]
  nuttcp_streams:
    description: How many consecutive nuttcp data ports from each of nuttcp's default data ports (1-64).
    type: int
    default: 1
'''

EXAMPLES = r'''
- name: What the firewall role opens for iperf3 (4 servers) and netperf
  ansible.builtin.debug:
    msg: "{{ ['iperf3', 'netperf'] | perflab.network.tool_ports(iperf3_ports=4) }}"
'''

RETURN = r'''
_value:
  description: One C({port, end_port, protocol}) per opening, in the tools' order, each once (iperf2's default port
    5001 is also nuttcp's first data port).
  type: list
  elements: dict
'''

from ansible.errors import AnsibleFilterError

from ansible_collections.perflab.network.plugins.module_utils.tools import registry


def tool_ports(tools, **settings):
    try:
        values, problems = registry.firewall_setting_values(settings)
    except KeyError as exc:
        raise AnsibleFilterError('tool_ports: %s' % exc.args[0])
    if problems:
        raise AnsibleFilterError('tool_ports: %s' % '; '.join(problems))
    unknown = registry.unknown_problem(tools or [], 'tool_ports')
    if unknown:
        raise AnsibleFilterError(unknown)
    out = []
    for name in tools or []:
        for first, last, protocol in registry.get(name).standalone_openings(values):
            opening = {'port': first, 'end_port': last, 'protocol': protocol}
            # each opening once: iperf2's own port is nuttcp's first data port
            if opening not in out:
                out.append(opening)
    return out


class FilterModule(object):
    def filters(self):
        return {'tool_ports': tool_ports}
