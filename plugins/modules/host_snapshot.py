#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

DOCUMENTATION = r'''
---
module: host_snapshot
short_description: The one stock snapshot of the config roles (tuning, mtu, bonding, firewall)
version_added: 0.2.0
description:
  - Keeps the "stock" state of a host, per role namespace, as one JSON file (by default
    C(/var/lib/perflab/<name>/stock.json)). The config roles record what they are about to change
    before their first change, and restore it later.
  - Recorded values (C(sysctls), C(ethtool), C(values)) and files are only ever added. A value already
    recorded is the stock value and is never overwritten while the file exists, so a run interrupted
    between two changes, or repeated with other settings, still restores stock.
  - The C(records) section is settable (O(records)), for what changes over time such as the firewall
    role's record of the rules it added.
  - O(state=restored) puts the recorded files back exactly (content, mode, owner; a file that did not
    exist is removed) and drops what is stock again; values are returned for the role to restore with
    the right tool, which then names them in O(forget). The snapshot is removed only once nothing is
    left in it.
  - Sysctls and ethtool settings are recorded in the same file by M(perflab.network.tuning_sysctl) and
    M(perflab.network.tuning_ethtool).
  - M(perflab.network.tuning_snapshot) is the earlier name of this module (an alias with the tuning
    role's defaults).
extends_documentation_fragment:
  - perflab.network.host_snapshot
  - perflab.network.attributes
attributes:
  diff_mode:
    support: full
options:
  name:
    description:
      - The role namespace (V(tuning), V(mtu), V(bonding), V(firewall)), the label stored in a new
        snapshot and the directory of its default path.
      - Required, but with O(state=leftovers).
    type: str
    aliases: [role]
seealso:
  - module: perflab.network.tuning_snapshot
  - module: perflab.network.tuning_sysctl
  - module: perflab.network.host_guard
'''

EXAMPLES = r'''
- name: Record the MTU of data0 and the file about to be written
  perflab.network.host_snapshot:
    name: mtu
    files: [/etc/network/interfaces.d/90-perflab-mtu]
    values:
      "mtu:data0": 1500

- name: Keep the record of the rules added (replaces the earlier record)
  perflab.network.host_snapshot:
    name: firewall
    records:
      ufw-rules: [{from_ip: 10.249.0.2, proto: tcp, to_port: "5201"}]

- name: Take over the file an earlier version of the firewall role wrote
  perflab.network.host_snapshot:
    name: firewall
    state: query
    legacy:
      - {path: /var/lib/perflab/firewall/ufw.state, section: values, key: ufw}

- name: Put the files back and drop the MTUs the role has set back itself; the snapshot goes when empty
  perflab.network.host_snapshot:
    name: mtu
    state: restored
    forget:
      values: ['*']
  register: mtu_restore

- name: Find what an earlier run left (every role's snapshot, a firewall switched off)
  perflab.network.host_snapshot:
    state: leftovers
    expected: [tuning]
  register: leftovers

- name: Forget the snapshot whatever it holds
  perflab.network.host_snapshot:
    name: mtu
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
  description:
    - With O(state=restored), the entries that could not be put back, as C(section:key) to the reason
      (they stay in the snapshot; the others were restored).
  returned: always
  type: dict
  sample: {"files:/etc/sysctl.d/90-perflab-tuning.conf": "[Errno 1] Operation not permitted"}
leftovers:
  description:
    - With O(state=leftovers), what earlier runs left on the host, one entry per snapshot (C(role), C(path),
      C(created_at), C(left), C(values), C(text)) or firewall switched off (C(role), C(path), C(disabled) the
      backend, C(text)); C(error) when a snapshot cannot be read.
  returned: when O(state=leftovers)
  type: list
  elements: dict
  sample:
    - role: mtu
      path: /var/lib/perflab/mtu/stock.json
      created_at: "2025-01-01T12:00:00Z"
      left: {values: ["mtu:data0", stack]}
      values: {"mtu:data0": 1500, stack: ifupdown}
      text: "mtu snapshot /var/lib/perflab/mtu/stock.json (since 2025-01-01T12:00:00Z): values mtu:data0=1500, stack=ifupdown"
unexpected:
  description: With O(state=leftovers), the text of each leftover of a role not in O(expected) (and of a firewall switched off).
  returned: when O(state=leftovers)
  type: list
  elements: str
  sample: ["firewall: the nftables firewall switched off (/var/lib/perflab/firewall/disabled-backend)"]
msg:
  description: With O(state=restored), whether the snapshot went or what is left in it; with O(state=leftovers), the leftovers.
  returned: always
  type: str
  sample: "partial restore: /var/lib/perflab/tuning/stock.json kept with what is left to restore (sysctls: net.ipv4.tcp_rmem)"
'''

from ansible_collections.perflab.network.plugins.module_utils.host import snapshot as host_snapshot


def main():
    host_snapshot.main()


if __name__ == '__main__':
    main()
