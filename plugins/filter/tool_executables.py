# -*- coding: utf-8 -*-
# Copyright: perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

DOCUMENTATION = r'''
name: tool_executables
short_description: The client and server executables of the benchmark tools, from the tool registry
version_added: 0.2.0
description:
  - Returns the names of the client and the server executable of each named tool (of every tool of the
    registry when the input is empty), each name once, as the tools' registry files
    (C(plugins/module_utils/tools/)) give them, for example C(iperf3), C(iperf), C(netperf), C(netserver).
  - The benchmark role looks for these on each host to tell which tools it has.
author:
  - perflab.network maintainers (@perflab)
options:
  _input:
    description: Tool names; empty for every tool of the registry.
    type: list
    elements: str
    required: true
'''

EXAMPLES = r'''
- name: Which of the tools' executables this host has
  ansible.builtin.command:
    argv: "{{ ['which'] + ([] | perflab.network.tool_executables) }}"
  register: found
  failed_when: found.rc not in [0, 1]
'''

RETURN = r'''
_value:
  description: Executable names, in the tools' order.
  type: list
  elements: str
'''

from ansible.errors import AnsibleFilterError

from ansible_collections.perflab.network.plugins.module_utils.tools import registry


def tool_executables(tools=None):
    """The client and server executables of ``tools`` (all the registry's when empty), each once."""
    names = list(tools) if tools else list(registry.NAMES)
    unknown = registry.unknown_problem(names, 'tool_executables')
    if unknown:
        raise AnsibleFilterError(unknown)
    out = []
    for name in names:
        for executable in (registry.get(name).client_executable, registry.get(name).server_executable):
            if executable not in out:
                out.append(executable)
    return out


class FilterModule(object):
    def filters(self):
        return {'tool_executables': tool_executables}
