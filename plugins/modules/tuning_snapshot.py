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
short_description: Earlier name of host_snapshot, with the tuning role's defaults
version_added: 0.1.0
description:
  - An alias of M(perflab.network.host_snapshot), kept so that existing playbooks keep working. The
    same code, the same snapshot file format and the same options, with the defaults of the tuning
    role (O(role=tuning), O(snapshot=/var/lib/perflab/tuning/stock.json)).
  - Keeps the "stock" snapshot of a host as one JSON file. The config roles record what they are
    about to change before their first change, and restore it later.
  - Entries are only ever added (the C(records) section excepted). A value already recorded is the
    stock value and is never overwritten while the file exists, so a run interrupted between two
    changes, or repeated with other settings, still restores stock.
  - O(state=present) records files (content, mode, owner, or the fact that a file does not exist)
    and free-form values (for example the active tuned profile or an interface MTU).
  - O(state=restored) puts recorded files back exactly; a file that did not exist is removed.
    Values are returned for the role to restore with the right tool.
  - O(state=absent) deletes the snapshot (the host is stock again), and the directories that were
    created for it when they are empty. O(state=query) only reads it.
  - Sysctls and ethtool settings are recorded in the same file by
    M(perflab.network.tuning_sysctl) and M(perflab.network.tuning_ethtool).
extends_documentation_fragment:
  - perflab.network.host_snapshot
  - perflab.network.attributes
attributes:
  diff_mode:
    support: full
options:
  name:
    description: Label stored in a new snapshot (which role owns it).
    type: str
    default: tuning
    aliases: [role]
  snapshot:
    default: /var/lib/perflab/tuning/stock.json
seealso:
  - module: perflab.network.host_snapshot
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
path:
  description: The snapshot file.
  returned: always
  type: str
  sample: /var/lib/perflab/mtu/stock.json
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
    records: {}
recorded:
  description: What this run added to the snapshot (C(records) only when O(records) is given).
  returned: always
  type: dict
  sample: {files: [/etc/sysctl.d/90-perflab-tuning.conf], values: [tuned_profile]}
restored:
  description: What O(state=restored) did, one line per file changed.
  returned: always
  type: list
  elements: str
  sample: [removed /etc/sysctl.d/90-perflab-tuning.conf]
forgotten:
  description: The entries O(forget) dropped, as C(section:key).
  returned: always
  type: list
  elements: str
  sample: ["values:mtu:data0"]
adopted:
  description: The entries taken from files of earlier versions (O(legacy)), as C(section:key).
  returned: always
  type: list
  elements: str
  sample: ["values:ufw"]
left:
  description: What is still recorded, section to keys (empty once all of it was restored).
  returned: always
  type: dict
  sample: {sysctls: [net.ipv4.tcp_rmem]}
complete:
  description: True when no snapshot is left (everything was restored, or there was nothing to restore).
  returned: always
  type: bool
  sample: false
unrestored:
  description: With O(state=restored), the entries that could not be put back, as C(section:key) to the reason (kept in the snapshot).
  returned: always
  type: dict
  sample: {"files:/etc/sysctl.d/90-perflab-tuning.conf": "[Errno 1] Operation not permitted"}
msg:
  description: With O(state=restored), whether the snapshot went or what is left in it.
  returned: always
  type: str
  sample: "partial restore: /var/lib/perflab/tuning/stock.json kept with what is left to restore (sysctls: net.ipv4.tcp_rmem)"
'''

from ansible_collections.perflab.network.plugins.module_utils.host import snapshot as host_snapshot


def main():
    host_snapshot.main(alias=True)


if __name__ == '__main__':
    main()
