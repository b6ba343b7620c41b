# -*- coding: utf-8 -*-
# Copyright: perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

DOCUMENTATION = r'''
name: management_windows
short_description: The management interface of a Windows host, from its setup facts
version_added: 0.3.0
description:
  - The Windows side of C(perflab.network.host_safety)'s C(detect) entry point; Linux and FreeBSD hosts
    run C(perflab.network.host_network_info), which applies the same rules on the host.
  - Reads the setup facts' C(interfaces) list (C(connection_name), C(ipv4.address), C(ipv6.address),
    C(default_gateway)); runs nothing on the host.
  - Rules in order - C(ssh_connection) (the server address of C($SSH_CONNECTION), Win32-OpenSSH sets it),
    C(ansible_host) (when it is an address the host holds), then, with O(gateway_fallback) and only
    when neither found one, C(default_route) the only interface with a default gateway.
author:
  - perflab.network maintainers (@perflab)
options:
  _input:
    description: The setup facts' C(interfaces) list of a Windows host.
    type: list
    elements: dict
    required: true
  ansible_host:
    description: The address Ansible connects to (ignored unless it is an address).
    type: str
    default: ""
  ssh_connection:
    description: C($SSH_CONNECTION) on the host (C(ansible_facts.env.SSH_CONNECTION)), empty over WinRM.
    type: str
    default: ""
  gateway_fallback:
    description: Name the interface with the default gateway when no connection address is held.
    type: bool
    default: false
'''

EXAMPLES = r'''
- name: The management interface of a Windows host
  ansible.builtin.debug:
    msg: "{{ ansible_facts.interfaces | perflab.network.management_windows(ansible_host=ansible_host) }}"
'''

RETURN = r'''
_value:
  description: The C(management) mapping of C(perflab.network.host_network_info) (interface, interfaces,
    address, addresses, rule, rules, reason) plus C(interfaces_all), every interface's name.
  type: dict
'''

from ansible_collections.perflab.network.plugins.module_utils.host import network as host_network


def management_windows(facts_interfaces, ansible_host='', ssh_connection='', gateway_fallback=False):
    return host_network.management_windows(facts_interfaces, ansible_host=ansible_host or '',
                                           ssh_connection=ssh_connection or '', gateway_fallback=gateway_fallback)


class FilterModule(object):
    def filters(self):
        return {'management_windows': management_windows}
