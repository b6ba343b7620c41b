# -*- coding: utf-8 -*-
# Copyright: perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

DOCUMENTATION = r'''
name: user_path
short_description: A path the user gave, made absolute against the directory ansible-playbook was started from
version_added: 0.3.0
description:
  - Expands C(~) and resolves a relative path against the working directory of the controller's
    C(ansible-playbook) (the directory the user ran it from), not against a playbook's or a role's folder.
  - The study playbooks resolve C(perflab_results_dir) with it once, so the plan's resume, the results
    callback and the published file names all mean the same directory.
author:
  - perflab.network maintainers (@perflab)
options:
  _input:
    description: A path; empty stays empty.
    type: path
    required: true
'''

EXAMPLES = r'''
- name: Where the results go
  ansible.builtin.debug:
    msg: "{{ perflab_results_dir | default('results') | perflab.network.user_path }}"
'''

RETURN = r'''
_value:
  description: The absolute, normalized path.
  type: path
'''

from ansible_collections.perflab.network.plugins.module_utils.core.names import user_path


class FilterModule(object):
    def filters(self):
        return {'user_path': user_path}
