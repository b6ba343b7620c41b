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
  links:
    description:
      - The C(results) of a looped C(ip -j -d link show dev IFACE) over the same interfaces. When given, C(up)
        comes from the link itself (an interface without an address of that scope is still seen up) and each
        interface gets C(addr_gen_mode), its IPv6 address generation mode (V(eui64), V(none), V(stable_secret),
        V(random)), which a network stack may change (systemd-networkd's C(LinkLocalAddressing=no) sets V(none)).
    type: list
    elements: dict
    default: []
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
  description: >-
    Interface name to C(up) (bool), C(addresses) (C(address/prefix), empty for none) and, with O(links),
    C(addr_gen_mode).
  type: dict
'''

import json

from ansible.errors import AnsibleFilterError


def _json(res, name, what):
    try:
        return json.loads(res.get('stdout') or '[]')
    except ValueError:
        raise AnsibleFilterError('ip_addr_cidrs: the output for %s is not the JSON of %s: %r'
                                 % (name, what, (res.get('stdout') or '')[:200]))


def ip_addr_cidrs(results, loop_var='__bonding_member', links=None):
    out = {}
    for res in results or []:
        if res.get('skipped'):
            continue
        name = res.get(loop_var)
        cidrs = []
        up = False
        for link in _json(res, name, 'ip -j addr'):
            up = up or 'UP' in (link.get('flags') or [])
            for addr in link.get('addr_info', []):
                if addr.get('local') and addr.get('prefixlen') is not None:
                    cidrs.append('%s/%d' % (addr['local'], int(addr['prefixlen'])))
        out[name] = {'up': up, 'addresses': cidrs}
    for res in links or []:
        name = res.get(loop_var)
        if res.get('skipped') or name not in out:
            continue
        for link in _json(res, name, 'ip -j -d link'):
            # `ip addr show ... scope global` lists no link at all for an interface without such an address
            out[name]['up'] = 'UP' in (link.get('flags') or [])
            if link.get('inet6_addr_gen_mode'):
                out[name]['addr_gen_mode'] = link['inet6_addr_gen_mode']
    return out


class FilterModule(object):
    def filters(self):
        return {'ip_addr_cidrs': ip_addr_cidrs}
