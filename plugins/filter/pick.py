# -*- coding: utf-8 -*-
# Copyright: perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

DOCUMENTATION = r'''
name: pick
short_description: Pick variables from a mapping under new names
version_added: 0.1.0
description:
  - Returns a new dictionary with one key per entry of O(mapping), holding the value of the variable the
    entry names in the input (for example one host's C(hostvars)), or C(None) where it is not defined.
  - Used to hand a module a small, plain view of the inventory, without the lazy C(hostvars) objects.
author:
  - perflab.network maintainers (@perflab)
options:
  _input:
    description: A mapping, such as C(hostvars[host]).
    type: dict
    required: true
  mapping:
    description: New key to the name of the variable to read.
    type: dict
    required: true
'''

EXAMPLES = r'''
- name: Each host's data address and peer
  ansible.builtin.debug:
    msg: "{{ groups.all | map('extract', hostvars) | map('perflab.network.pick', {'address': 'perflab_data_address'}) }}"
'''

RETURN = r'''
_value:
  description: The picked values under their new names.
  type: dict
'''

from ansible.errors import AnsibleFilterError
from ansible.module_utils.common.collections import is_string

from ansible.module_utils.six.moves.collections_abc import Mapping


def pick(data, mapping):
    if not isinstance(data, Mapping):
        raise AnsibleFilterError('pick: the input must be a mapping, got %s' % type(data).__name__)
    if not isinstance(mapping, Mapping) or not all(is_string(v) for v in mapping.values()):
        raise AnsibleFilterError('pick: mapping must map new keys to variable names')
    return dict((key, data[name] if name in data else None) for key, name in mapping.items())


class FilterModule(object):
    def filters(self):
        return {'pick': pick}
