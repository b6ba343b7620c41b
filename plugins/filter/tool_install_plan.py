# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

DOCUMENTATION = r'''
name: tool_install_plan
short_description: How the tools role installs every tool on an OS family, from the tool registry
version_added: 0.3.0
description:
  - Returns, for every tool of the collection's registry in the registry's order, how the
    C(perflab.network.tools) role installs it on the install family given (C(Debian), C(Ubuntu), C(RedHat),
    C(Fedora), C(ClearLinux), C(FreeBSD), C(Windows)), as the tool's registry file
    (C(plugins/module_utils/tools/<tool>/tool.py) C(install)) says it, C({method, packages, apt_component, repo,
    asset, binary, reason}).
  - The role's per-OS vars files name their family (C(__tools_install_family)) and hold no tool names; the
    role's plan (M(perflab.network.tools_plan)) reads this table.
author:
  - perflab.network maintainers (@perflab)
options:
  _input:
    description: The install family; an empty one (an OS without a vars file of the role) gives V({}).
    type: str
    required: true
'''

EXAMPLES = r'''
- name: How Ubuntu gets each tool
  ansible.builtin.debug:
    msg: "{{ 'Ubuntu' | perflab.network.tool_install_plan }}"
'''

RETURN = r'''
_value:
  description: Tool name -> its install entry (C(method) always; C(packages) for a package, C(reason) when unavailable).
  type: dict
'''

from ansible.errors import AnsibleFilterError

from ansible_collections.perflab.network.plugins.module_utils.tools import registry


def tool_install_plan(family):
    if not family:
        return {}
    try:
        return registry.install_plan(family)
    except KeyError as exc:
        raise AnsibleFilterError('tool_install_plan: %s' % exc.args[0])


class FilterModule(object):
    def filters(self):
        return {'tool_install_plan': tool_install_plan}
