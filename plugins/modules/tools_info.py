#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

DOCUMENTATION = r'''
module: tools_info
short_description: Find every benchmark tool of the registry on a host, with its version and its server
version_added: 0.4.0
description:
  - Looks for the client executable of every tool of the collection's registry in O(prefix)C(/bin) first, then in
    the search order of every test module (C(PATH), then the usual folders), asks each one found for its version as
    the test modules do before each test (the tool's registry file's C(version_argv) and C(parse_version)), and
    finds the tool's server executable where it is another one (netperf's C(netserver)).
  - One module run for all the tools; the C(perflab.network.tools) role reports its answer as C(perflab_tools).
  - Changes nothing.
extends_documentation_fragment:
  - perflab.network.attributes
attributes:
  check_mode:
    details: The module only reads, and does the same in check mode.
  platform:
    details: Linux and FreeBSD; the tools role finds the tools of a Windows host with C(ansible.windows) modules.
options:
  prefix:
    description: The tools role's C(tools_prefix); its C(bin) folder is searched first.
    type: path
    default: /opt/perflab
seealso:
  - module: perflab.network.tools_plan
'''

EXAMPLES = r'''
- name: Find the benchmark tools
  perflab.network.tools_info:
    prefix: /opt/perflab
  register: found

- name: Say which iperf3 runs
  ansible.builtin.debug:
    msg: "{{ found.tools.iperf3.path }} {{ found.tools.iperf3.version }}"
  when: "'iperf3' in found.tools"
'''

RETURN = r'''
tools:
  description:
    - Tool -> C(version) (null when its output names none), C(path) (its client executable) and C(server_path)
      (its server's executable, which is C(path) when the client serves too, null when a separate server is
      missing), for each tool found, in the registry's order.
  returned: success
  type: dict
  sample: {iperf3: {version: "3.12", path: /usr/bin/iperf3, server_path: /usr/bin/iperf3},
           netperf: {version: "2.7.0", path: /usr/bin/netperf, server_path: /usr/bin/netserver}}
searched:
  description: The folders searched, in order.
  returned: success
  type: list
  elements: str
  sample: [/opt/perflab/bin, /usr/local/sbin, /usr/local/bin, /usr/sbin, /usr/bin, /sbin, /bin]
'''

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.perflab.network.plugins.module_utils.bench import tool_probe


def main():
    module = AnsibleModule(argument_spec=dict(prefix=dict(type='path', default='/opt/perflab')),
                           supports_check_mode=True)
    dirs = tool_probe.search_dirs(module.params['prefix'])
    module.exit_json(changed=False, tools=tool_probe.probe(dirs), searched=dirs)


if __name__ == '__main__':
    main()
