# -*- coding: utf-8 -*-
# Copyright: perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

DOCUMENTATION = r'''
name: tool_version_probes
short_description: Every tool of the registry and how to ask it its version, from the tool registry
version_added: 0.3.0
description:
  - Returns, for every tool of the collection's registry in the registry's order, the executable the tool's
    client runs (C(binary), for example C(iperf3), C(iperf), C(netperf), C(nuttcp), C(ethr)) and the arguments that
    make it print its version (C(args)), as the tool's registry file (C(plugins/module_utils/tools/<tool>/tool.py)
    C(client_executable) and C(version_argv)) gives them, the probe the test modules run before each test.
  - The C(perflab.network.tools) role finds and asks the tools with it; its keys are the role's list of every
    tool. The answer is read with P(perflab.network.tool_version#filter).
author:
  - perflab.network maintainers (@perflab)
options:
  _input:
    description: Ignored (give V([])).
    type: raw
    required: true
'''

EXAMPLES = r'''
- name: Ask iperf2 its version as the test modules do
  ansible.builtin.command:
    argv: "{{ ['iperf'] + ([] | perflab.network.tool_version_probes)['iperf2'].args }}"
  register: iperf2_version
  changed_when: false
  failed_when: false
'''

RETURN = r'''
_value:
  description:
    - Tool name -> C({binary, args, server}), in the registry's order; C(server) is the executable of the tool's
      server where it is not C(binary) (C(netserver) for netperf), else null.
  type: dict
'''

from ansible_collections.perflab.network.plugins.module_utils.tools import registry


def tool_version_probes(_ignored=None):
    out = {}
    for name, tool in registry.TOOLS.items():
        argv = tool.version_argv(tool.client_executable)
        out[name] = {'binary': tool.client_executable, 'args': list(argv[1:]),
                     # the server's binary where it is another one (netperf's netserver), else None
                     'server': tool.server_executable if tool.server_executable != tool.client_executable else None}
    return out


class FilterModule(object):
    def filters(self):
        return {'tool_version_probes': tool_version_probes}
