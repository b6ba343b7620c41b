# -*- coding: utf-8 -*-
# Copyright: perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

DOCUMENTATION = r'''
name: run_lock
short_description: This controller as a run lock owner, and whether another run's lock is stale
version_added: 0.3.0
description:
  - Runs on the controller. Returns C(owner) (this controller's host name, the pid of its C(ansible-playbook)
    and a token made of both and the process' start time), C(stale) (why the lock of the input is stale, or an
    empty string) and C(holder) (a sentence naming the input lock's run, controller and start, for messages).
  - A lock is stale when it expired, or when it names this controller and its C(ansible-playbook) is gone
    (no such pid, or a pid reused by another process). The lock of a live run, or of a run of another
    controller that has not expired, is not.
  - Used with the C(perflab.network.bench_lock) module by the C(perflab.network.benchmark) role.
author:
  - perflab.network maintainers (@perflab)
options:
  _input:
    description: What the lock file holds (C(holder) of C(perflab.network.bench_lock)), or an empty mapping.
    type: dict
    required: true
'''

EXAMPLES = r'''
- name: Is the lock another run holds stale?
  ansible.builtin.debug:
    msg: "{{ (lock.holder | perflab.network.run_lock).stale }}"
'''

RETURN = r'''
_value:
  description: "C({owner: {controller, pid, token}, stale: str, holder: str})."
  type: dict
'''

from ansible_collections.perflab.network.plugins.module_utils.host import run_lock as locks


def run_lock(holder):
    holder = dict(holder or {})
    me = locks.owner()
    return {'owner': me, 'stale': locks.stale(holder, me=me) if holder else '',
            'holder': locks.describe(holder) if holder else ''}


class FilterModule(object):
    def filters(self):
        return {'run_lock': run_lock}
