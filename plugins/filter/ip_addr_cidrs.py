# -*- coding: utf-8 -*-
# Copyright: perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

DOCUMENTATION = r'''
name: ip_addr_cidrs
short_description: The addresses of interfaces, from the results of C(ip -j addr show dev IFACE) commands
version_added: 0.3.0
description:
  - Takes the registered results of a looped C(ip -j addr show dev IFACE) command (each result holding the
    loop item under O(loop_var) and the JSON on C(stdout)) and returns a mapping of each interface to
    whether it is up (administratively, the C(UP) flag) and its addresses as C(address/prefix) strings, in
    the order C(ip) lists them.
  - The bonding role records a member's own run-time addresses with it before the member joins a bond, and
    puts them back when the bond goes.
author:
  - perflab.network maintainers (@perflab)
options:
  _input:
    description: The C(results) list of the registered loop.
    type: list
    elements: dict
    required: true
  loop_var:
    description: The loop variable that names each result's interface.
    type: str
    default: __bonding_member
'''

EXAMPLES = r'''
- name: Read the members' own addresses
  ansible.builtin.command:
    argv: [ip, -j, addr, show, dev, "{{ __bonding_member }}", scope, global]
  loop: [eth1, eth2]
  loop_control:
    loop_var: __bonding_member
  register: member_addr
  changed_when: false

- name: "{eth1: {up: true, addresses: ['10.224.1.11/24']}, eth2: {up: false, addresses: []}}"
  ansible.builtin.debug:
    msg: "{{ member_addr.results | perflab.network.ip_addr_cidrs }}"
'''

RETURN = r'''
_value:
  description: Interface name to C(up) (bool) and C(addresses) (C(address/prefix), empty for none).
  type: dict
'''

import json

from ansible.errors import AnsibleFilterError


def ip_addr_cidrs(results, loop_var='__bonding_member'):
    out = {}
    for res in results or []:
        if res.get('skipped'):
            continue
        name = res.get(loop_var)
        try:
            links = json.loads(res.get('stdout') or '[]')
        except ValueError:
            raise AnsibleFilterError('ip_addr_cidrs: the output for %s is not the JSON of ip -j addr: %r'
                                     % (name, (res.get('stdout') or '')[:200]))
        cidrs = []
        up = False
        for link in links:
            up = up or 'UP' in (link.get('flags') or [])
            for addr in link.get('addr_info', []):
                if addr.get('local') and addr.get('prefixlen') is not None:
                    cidrs.append('%s/%d' % (addr['local'], int(addr['prefixlen'])))
        out[name] = {'up': up, 'addresses': cidrs}
    return out


class FilterModule(object):
    def filters(self):
        return {'ip_addr_cidrs': ip_addr_cidrs}
