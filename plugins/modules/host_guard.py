#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

DOCUMENTATION = r'''
module: host_guard
short_description: Arm, confirm or cancel the rollback timer guarding a change of the management interface
version_added: 0.1.0
description:
  - The one rollback guard of the configuration roles (C(perflab.network.tuning) ethtool changes,
    C(perflab.network.mtu), C(perflab.network.bonding)), commit-confirm style. The roles use it through
    the task files C(guard-start.yml), C(guard-confirm.yml) and C(guard-recover.yml) of
    C(perflab.network.bonding) (C(include_role) with C(tasks_from)).
  - O(state=armed), before the change - copies O(files) as they are (a file that does not exist is
    noted by having no copy), writes the timer to C(O(state_dir)/rollback-O(name).sh) and starts it
    detached from the connection. After O(delay) seconds, unless disarmed, it puts the files back
    (removes those that did not exist), runs O(commands) and O(script_lines), and records the time in
    C(rolled-back-O(name)).
  - O(state=confirmed), after a fresh connection worked - disarms the timer and records
    C(confirmed-O(name)). Fails when the timer acted already (the confirmation came too late).
  - O(state=cancelled) - disarms without confirming (the role undoes the change itself).
    O(state=absent) - disarms and removes the timer, the copies and the records (the role is back to
    stock). O(state=query) only reads.
  - Each arm has a token of its own (in C(armed-O(name))), so a timer left from an earlier run never acts on a newer change.
extends_documentation_fragment:
  - perflab.network.attributes
attributes:
  check_mode:
    details: In check mode nothing is armed, confirmed or cancelled.
options:
  name:
    description: The guard's name (one timer per name), for example C(mtu) or C(bond0).
    type: str
    required: true
  state_dir:
    description: Directory of the timer, its marker and the copies (made mode 0700 if missing).
    type: path
    required: true
  state:
    description: What to do.
    type: str
    choices: [armed, confirmed, cancelled, absent, query]
    default: query
  delay:
    description: With O(state=armed), seconds (1-3600) after which the timer acts unless disarmed.
    type: int
    default: 120
  files:
    description: With O(state=armed), files to put back as they are now (removed if they do not exist now).
    type: list
    elements: path
    default: []
  commands:
    description: With O(state=armed), commands (argument lists) the timer runs after putting the files back, in order; a failing one does not stop the next.
    type: list
    elements: list
    default: []
  script_lines:
    description: With O(state=armed), shell lines the timer runs after O(commands) (for loops over what the stack needs).
    type: str
    default: ""
  rulesets:
    description:
      - With O(state=armed), the kernel packet filter's rulesets to save now (in C(before-NAME/)) and that the timer
        puts back after the files, before O(commands) - V(nftables) (C(nft list ruleset), put back by C(nft -f) of a
        file that flushes first, one transaction; iptables-nft rules are in it too), V(iptables) (C(iptables-save) and
        C(ip6tables-save), put back by C(iptables-restore) and C(ip6tables-restore)). The firewall role's guard.
      - Fails before the timer is armed when a save command fails.
    type: list
    elements: str
    choices: [iptables, nftables]
    default: []
'''

EXAMPLES = r'''
- name: Arm the timer that puts the old MTU back
  perflab.network.host_guard:
    name: mtu
    state_dir: /var/lib/perflab/mtu
    state: armed
    delay: 120
    commands:
      - [ip, link, set, dev, eth0, mtu, "1500"]

- name: Confirm after a fresh connection worked
  perflab.network.host_guard:
    name: mtu
    state_dir: /var/lib/perflab/mtu
    state: confirmed
'''

RETURN = r'''
armed:
  description: Whether a timer is armed after the task.
  returned: always
  type: bool
  sample: true
token:
  description: The token of the armed timer (empty when none).
  returned: always
  type: str
  sample: 3f2a9c0d11e4b7a8
rolled_back:
  description: When the timer acted (empty when it has not).
  returned: always
  type: str
  sample: Tue Mar  4 10:12:00 UTC 2025
confirmed:
  description: When the change was confirmed, and the token confirmed (empty when it was not).
  returned: always
  type: str
  sample: 2025-03-04T10:10:31 3f2a9c0d11e4b7a8
rollback_log:
  description:
    - What the timer's commands printed when it acted (each command traced, C(set -x)); empty when it has not.
    - The log stays in O(state_dir) until O(state=absent), for a rollback that did not bring the host back.
  returned: always
  type: str
  sample: "+ ip link delete bond0\n+ ifup eth0\n"
script:
  description: Path of the timer's script.
  returned: always
  type: str
  sample: /var/lib/perflab/mtu/rollback-mtu.sh
'''

import os
import traceback

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.perflab.network.plugins.module_utils.host import guard as host_guard


def _run(module, argv):
    binary = module.get_bin_path(argv[0], required=True)
    return module.run_command([binary] + list(argv[1:]))


def main():
    module = AnsibleModule(
        argument_spec=dict(
            name=dict(type='str', required=True),
            state_dir=dict(type='path', required=True),
            state=dict(type='str', choices=['armed', 'confirmed', 'cancelled', 'absent', 'query'], default='query'),
            delay=dict(type='int', default=120),
            files=dict(type='list', elements='path', default=[]),
            commands=dict(type='list', elements='list', default=[]),
            script_lines=dict(type='str', default=''),
            rulesets=dict(type='list', elements='str', choices=sorted(host_guard.RULESETS), default=[]),
        ),
        supports_check_mode=True,
    )
    params = module.params
    name, state_dir, state = params['name'], params['state_dir'], params['state']
    if not host_guard.OK_NAME.match(name):
        module.fail_json(msg='name must be 1-64 of A-Za-z0-9_.@- (got %s)' % name)
    changed = False
    try:
        if state == 'armed':
            if not 1 <= params['delay'] <= 3600:
                module.fail_json(msg='delay must be 1-3600 (got %s)' % params['delay'])
            changed = True
            if not module.check_mode:
                host_guard.arm(state_dir, name, params['delay'], params['files'], params['commands'], params['script_lines'],
                               rulesets=params['rulesets'], run=lambda argv: _run(module, argv))
        elif state == 'confirmed':
            if module.check_mode:
                changed = host_guard.status(state_dir, name)['armed']
            else:
                changed, error = host_guard.confirm(state_dir, name)
                if error:
                    module.fail_json(msg=error, **host_guard.status(state_dir, name))
        elif state == 'cancelled':
            changed = host_guard.status(state_dir, name)['armed']
            if changed and not module.check_mode:
                host_guard.cancel(state_dir, name)
        elif state == 'absent':
            found = host_guard.status(state_dir, name)
            changed = bool(found['armed'] or found['confirmed'] or found['rolled_back'] or found['log']
                           or os.path.exists(found['paths']['script']) or os.path.isdir(found['paths']['before']))
            if changed and not module.check_mode:
                host_guard.forget(state_dir, name)
    except (IOError, OSError) as exc:
        module.fail_json(msg='host_guard %s: %s' % (name, exc), exception=traceback.format_exc())
    found = host_guard.status(state_dir, name)
    module.exit_json(changed=changed, armed=found['armed'], token=found['token'], rolled_back=found['rolled_back'],
                     confirmed=found['confirmed'], rollback_log=found['log'], script=found['paths']['script'])


if __name__ == '__main__':
    main()
