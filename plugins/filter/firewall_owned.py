# -*- coding: utf-8 -*-
# Copyright: perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

DOCUMENTATION = r'''
name: firewall_owned
short_description: Which firewall rules the firewall role may add, record and remove
version_added: 0.3.0
description:
  - For the backends whose added rules the C(perflab.network.firewall) role records (firewalld, ufw). A wanted rule the
    host already had before the role added it (a user's own rule) is neither added, recorded nor ever removed; only
    recorded rules that are no longer wanted are removed.
  - Returns C(add), C(remove), C(record_first) (the record before the change), C(record) (after it) and C(users)
    (the wanted rules the host had of its own).
  - With O(present) a string, it is C(ufw show added) output and is parsed into the role's ufw record form.
  - The filter C(ipfw_owned) (input the lines of C(ipfw -S list), then the set and the tag) returns the numbers and comments
    of the role's ipfw rules (in its set, commented exactly C(<tag>:<12 hex digits>)), so that removal deletes those
    numbers, not the whole set.
  - The filter C(firewall_covering) (input C(firewall_ports) / C(firewall_openings) entries, then a port and a protocol,
    default C(tcp)) returns the entries whose range holds that port - the role's check of the management port.
author:
  - perflab.network maintainers (@perflab)
options:
  _input:
    description: The wanted rules (rich rule strings, or ufw mappings C(from_ip), C(proto), C(to_port)).
    type: list
    required: true
  recorded:
    description: The rules the role recorded adding earlier.
    type: list
    required: true
  present:
    description: The rules in place on the host now (a list, or the text of C(ufw show added)).
    type: raw
    required: true
'''

EXAMPLES = r'''
- name: What to add and remove
  ansible.builtin.set_fact:
    owned: "{{ wanted | perflab.network.firewall_owned(recorded, listed.stdout_lines) }}"
'''

RETURN = r'''
_value:
  description: "C({add: list, remove: list, record_first: list, record: list, users: list})."
  type: dict
'''

from ansible.module_utils.six import string_types

from ansible_collections.perflab.network.plugins.module_utils.host import firewall_owned as owned


def firewall_owned(wanted, recorded, present):
    if isinstance(present, string_types):
        present = owned.ufw_added(present)
    return owned.owned_plan(list(wanted or []), recorded, present)


def ipfw_owned(lines, rule_set, tag):
    return [{'number': number, 'comment': comment} for number, comment in owned.ipfw_owned(lines, rule_set, tag)]


def firewall_covering(entries, port, protocol='tcp'):
    return owned.covering(entries, port, protocol)


class FilterModule(object):
    def filters(self):
        return {'firewall_owned': firewall_owned, 'ipfw_owned': ipfw_owned, 'firewall_covering': firewall_covering}
