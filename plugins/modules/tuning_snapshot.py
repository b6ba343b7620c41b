#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

DOCUMENTATION = r'''
---
module: tuning_snapshot
short_description: Record and restore the stock state of files and values before a config role changes them
version_added: 0.1.0
description:
  - Keeps the "stock" snapshot of a host as one JSON file (for example
    C(/var/lib/perflab/tuning/stock.json)). The config roles (tuning, mtu) record what they are
    about to change before their first change, and restore it later.
  - Entries are only ever added. A value already recorded is the stock value and is never
    overwritten while the file exists, so a run interrupted between two changes, or repeated
    with other settings, still restores stock.
  - O(state=present) records files (content, mode, owner, or the fact that a file does not exist)
    and free-form values (for example the active tuned profile or an interface MTU).
  - O(state=restored) puts recorded files back exactly; a file that did not exist is removed.
    Values are returned for the role to restore with the right tool.
  - O(state=absent) deletes the snapshot (the host is stock again), and the directories that were
    created for it when they are empty. O(state=query) only reads it.
  - Sysctls and ethtool settings are recorded in the same file by
    M(perflab.network.tuning_sysctl) and M(perflab.network.tuning_ethtool).
author:
  - perflab.network contributors (@perflab)
attributes:
  check_mode:
    description: Can run in check_mode and return changed status prediction without modifying target.
    support: full
  diff_mode:
    description: Will return details on what has changed (or possibly needs changing in check_mode), when in diff mode.
    support: full
  platform:
    description: Target OS/families that can be operated against.
    support: full
    platforms: posix
options:
  snapshot:
    description: Path of the snapshot file on the host.
    type: path
    default: /var/lib/perflab/tuning/stock.json
  role:
    description: Label stored in a new snapshot (which role owns it).
    type: str
    default: tuning
  state:
    description: What to do with the snapshot.
    type: str
    choices: [present, restored, absent, query]
    default: present
  files:
    description:
      - With O(state=present), files (or directories) to record before they are changed.
      - With O(state=restored), the recorded files to restore; all recorded files when empty.
    type: list
    elements: path
    default: []
  values:
    description: With O(state=present), values to record, name to any JSON value (add-only).
    type: dict
    default: {}
'''

EXAMPLES = r'''
- name: Record the persistent file before writing it
  perflab.network.tuning_snapshot:
    files: [/etc/sysctl.d/90-perflab-tuning.conf]

- name: Record the MTU of data0 before changing it
  perflab.network.tuning_snapshot:
    snapshot: /var/lib/perflab/mtu/stock.json
    role: mtu
    values:
      mtu_data0: 1500

- name: Put the files back (a file that did not exist is removed)
  perflab.network.tuning_snapshot:
    state: restored

- name: Forget the snapshot once everything is stock again
  perflab.network.tuning_snapshot:
    state: absent
'''

RETURN = r'''
exists:
  description: Whether the snapshot file exists after the task (would exist, in check mode).
  returned: always
  type: bool
  sample: true
snapshot:
  description: The snapshot (file contents left out), or null when there is none.
  returned: always
  type: dict
  sample:
    schema: perflab.snapshot/1
    role: tuning
    created_at: "2025-01-01T12:00:00Z"
    sysctls: {net.ipv4.tcp_rmem: 4096 131072 6291456}
    files: {/etc/sysctl.d/90-perflab-tuning.conf: {exists: false}}
    ethtool: {}
    values: {tuned_profile: virtual-guest}
recorded:
  description: What this run added to the snapshot.
  returned: always
  type: dict
  sample: {files: [/etc/sysctl.d/90-perflab-tuning.conf], values: [tuned_profile]}
restored:
  description: What O(state=restored) did, one line per file changed.
  returned: always
  type: list
  elements: str
  sample: [removed /etc/sysctl.d/90-perflab-tuning.conf]
'''

import traceback

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.perflab.network.plugins.module_utils import tuning_snapshot as snapshots


def do_present(module, snap):
    params = module.params
    if snap is None:
        snap = snapshots.new_snapshot(params['role'])
    recorded = {'files': [], 'values': []}
    for path in params['files']:
        if path not in snap['files']:
            snap['files'][path] = snapshots.capture_file(path)
            recorded['files'].append(path)
    for name, value in params['values'].items():
        if snapshots.record(snap, 'values', name, value):
            recorded['values'].append(name)
    changed = bool(recorded['files'] or recorded['values'])
    if changed and not module.check_mode:
        snapshots.save(params['snapshot'], snap)
    return changed, snap, recorded, []


def do_restored(module, snap):
    restored = []
    if snap is None:
        return False, snap, {'files': [], 'values': []}, restored
    wanted = module.params['files'] or list(snap['files'])
    # Parents before children when creating, children before parents when removing.
    for path in sorted(wanted, key=len, reverse=True):
        entry = snap['files'].get(path)
        if entry is None:
            module.fail_json(msg='%s is not recorded in the snapshot %s' % (path, module.params['snapshot']))
        if entry.get('exists'):
            continue
        if not snapshots.file_matches(path, entry):
            restored.append('removed %s' % path if module.check_mode else snapshots.restore_file(path, entry))
    for path in sorted(wanted, key=len):
        entry = snap['files'][path]
        if entry.get('exists') and not snapshots.file_matches(path, entry):
            restored.append('restored %s' % path if module.check_mode else snapshots.restore_file(path, entry))
    restored = [line for line in restored if line]
    return bool(restored), snap, {'files': [], 'values': []}, restored


def main():
    module = AnsibleModule(
        argument_spec=dict(
            snapshot=dict(type='path', default='/var/lib/perflab/tuning/stock.json'),
            role=dict(type='str', default='tuning'),
            state=dict(type='str', choices=['present', 'restored', 'absent', 'query'], default='present'),
            files=dict(type='list', elements='path', default=[]),
            values=dict(type='dict', default={}),
        ),
        supports_check_mode=True,
    )
    path = module.params['snapshot']
    state = module.params['state']
    try:
        snap = snapshots.load(path)
        if state == 'present':
            changed, snap, recorded, restored = do_present(module, snap)
            exists = True
        elif state == 'restored':
            changed, snap, recorded, restored = do_restored(module, snap)
            exists = snap is not None
        elif state == 'absent':
            changed = snap is not None
            if changed and not module.check_mode:
                snapshots.remove(path, snap)
            recorded, restored, exists = {'files': [], 'values': []}, [], False
        else:
            changed, recorded, restored, exists = False, {'files': [], 'values': []}, [], snap is not None
    except snapshots.SnapshotError as exc:
        module.fail_json(msg=str(exc))
    except (IOError, OSError) as exc:
        module.fail_json(msg='snapshot %s: %s' % (path, exc), exception=traceback.format_exc())

    result = dict(changed=changed, exists=exists, snapshot=snapshots.describe(snap), recorded=recorded, restored=restored)
    if module._diff and changed:
        if state == 'absent':
            result['diff'] = dict(before_header=path, after_header=path, before='snapshot present\n', after='')
        elif state == 'restored':
            result['diff'] = dict(before='', after=''.join(line + '\n' for line in restored))
        else:
            result['diff'] = dict(before='', after=''.join('recorded %s\n' % name for name in recorded['files'] + recorded['values']))
    module.exit_json(**result)


if __name__ == '__main__':
    main()
