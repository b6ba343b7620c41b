#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

DOCUMENTATION = r'''
module: bench_lock
short_description: Take or release a benchmark host's run lock (one study run at a time)
version_added: 0.3.0
description:
  - The C(perflab.network.benchmark) role takes this lock on every host of a run before its preflight
    (which stops leftover servers) and releases it when the run ends, so a second run started on the
    same hosts is refused before it touches the first one's servers.
  - The lock file O(path) holds the run id, the controller (host name, pid and start time of its
    C(ansible-playbook), as the token), when the run started and when the lock expires.
  - O(state=acquired) takes the lock atomically (the file is created exclusively). A lock of the same
    O(owner) is ours already (unchanged). A lock of another owner is returned in RV(holder) with
    RV(acquired=false), without failing - the controller judges with the C(perflab.network.run_lock)
    filter whether it is stale, and only then calls again with O(replace) set to its token.
  - O(state=released) removes the lock when it is ours (or the stale one of token O(replace)); another
    run's lock is left as it is.
  - A lock file no run could have written (empty, not a JSON lock, a directory, unreadable) is returned as
    RV(holder) with C(malformed) saying what was found and a token naming that content; the filter calls it
    stale, so a run (or C(playbooks/revert.yml)) replaces or removes it. A lock that cannot be written fails
    with the path and why (not a directory, not writable by the connection's user, a read-only file system).
extends_documentation_fragment:
  - perflab.network.attributes
attributes:
  check_mode:
    details: Reports whether the lock would be taken or released, and changes nothing.
options:
  state:
    description: Take (V(acquired)) or give back (V(released)) the lock.
    type: str
    choices: [acquired, released]
    default: acquired
  run_id:
    description: The run taking the lock (stored in it, for the refusal of another run).
    type: str
  owner:
    description: The controller, as the C(perflab.network.run_lock) filter returns it under C(owner).
    type: dict
    required: true
    suboptions:
      controller:
        description: The controller's host name.
        type: str
        required: true
      pid:
        description: The pid of its ansible-playbook.
        type: int
        required: true
      token:
        description: C(controller:pid:start time), unique per run.
        type: str
        required: true
  hold:
    description: Seconds the run expects to take; the lock expires that long plus 30 min after it is taken.
    type: int
    default: 3600
  replace:
    description: The token of a lock the controller judged stale, to take over (or release).
    type: str
  path:
    description: The lock file.
    type: path
    default: /run/perflab/run.lock
seealso:
  - module: perflab.network.bench_preflight
'''

EXAMPLES = r'''
- name: Take the run lock
  perflab.network.bench_lock:
    run_id: 20261129T190000Z-3f2a
    owner: "{{ ({} | perflab.network.run_lock).owner }}"
    hold: 600
  register: lock
'''

RETURN = r'''
acquired:
  description: True when the lock is this owner's now (or, released, was and is gone).
  returned: always
  type: bool
holder:
  description:
    - What the lock file holds (or held) - C(run_id), C(controller), C(pid), C(token), C(started), C(expires_at), C(host).
    - A malformed lock file gives C(malformed) (what was found, e.g. C(empty), C(a directory, not a file)) and C(token).
  returned: always
  type: dict
  sample: {run_id: 20261129T190000Z-3f2a, controller: ctl, pid: 4242, token: "ctl:4242:81234", started: "2026-11-29T19:00:00Z"}
'''

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.perflab.network.plugins.module_utils.host import run_lock


def main():
    module = AnsibleModule(argument_spec=dict(
        state=dict(type='str', choices=['acquired', 'released'], default='acquired'),
        run_id=dict(type='str'),
        owner=dict(type='dict', required=True, options=dict(
            controller=dict(type='str', required=True), pid=dict(type='int', required=True),
            token=dict(type='str', required=True, no_log=False))),
        hold=dict(type='int', default=3600),
        replace=dict(type='str'),
        path=dict(type='path', default=run_lock.LOCK_PATH),
    ), required_if=[('state', 'acquired', ('run_id',))], supports_check_mode=True)
    p = module.params
    holder = run_lock.read(p['path'])
    mine = holder.get('token') == p['owner']['token']
    if p['state'] == 'released':
        if module.check_mode:
            gone = mine or (bool(p['replace']) and holder.get('token') == p['replace'])
            module.exit_json(changed=gone, acquired=gone, holder=holder)
        try:
            changed, holder = run_lock.release(p['owner'], p['path'], replace=p['replace'])
        except run_lock.LockError as exc:
            module.fail_json(msg=str(exc), holder=holder)
        module.exit_json(changed=changed, acquired=changed, holder=holder)
    if module.check_mode:
        free = not holder or mine or (bool(p['replace']) and holder.get('token') == p['replace'])
        module.exit_json(changed=free and not mine, acquired=free, holder=holder)
    try:
        taken, changed, holder = run_lock.acquire(p['run_id'], p['owner'], max(0, p['hold']), p['path'],
                                                  replace=p['replace'])
    except run_lock.LockError as exc:
        module.fail_json(msg=str(exc), holder=holder)
    module.exit_json(changed=changed, acquired=taken, holder=holder)


if __name__ == '__main__':
    main()
