# -*- coding: utf-8 -*-
# Copyright: perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

DOCUMENTATION = r'''
name: tool_version
short_description: A benchmark tool's version from its version output, as the test records give it
version_added: 0.2.0
description:
  - Reads the version out of what a tool prints when asked for it (C(iperf3 --version), C(iperf -v), C(netperf -V),
    C(nuttcp -V), C(ethr -h)) with the tool's own registry file (C(plugins/module_utils/tools/<tool>/tool.py)
    C(parse_version)), the one reading the test modules record as C(tool_version) and the reports put in their
    titles - so that the tools role's C(perflab_tools) and the records say the same (ethr C(1.0.0), not C(v1.0.0)).
author:
  - perflab.network maintainers (@perflab)
options:
  _input:
    description: The tool's output (stdout and stderr).
    type: str
    required: true
  tool:
    description: The tool (a name of the registry).
    type: str
    required: true
'''

EXAMPLES = r'''
- name: ethr's version
  ansible.builtin.debug:
    msg: "{{ 'Ethr (Version: v1.0.0)' | perflab.network.tool_version('ethr') }}"
'''

RETURN = r'''
_value:
  description: The version (C(3.12), C(1.0.0)), or null when the output names none.
  type: str
'''

from ansible.errors import AnsibleFilterError

from ansible_collections.perflab.network.plugins.module_utils.tools import registry


def tool_version(text, tool):
    if tool not in registry.TOOLS:
        raise AnsibleFilterError('tool_version: unknown tool %r (known: %s)' % (tool, ', '.join(registry.NAMES)))
    return registry.get(tool).parse_version(text or '') or None


class FilterModule(object):
    def filters(self):
        return {'tool_version': tool_version}
