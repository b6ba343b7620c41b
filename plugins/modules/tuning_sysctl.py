#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

DOCUMENTATION = r'''
---
module: tuning_sysctl
short_description: Apply Linux sysctls with a stock snapshot, read-back verification and exact restore
version_added: 0.1.0
description:
  - Brings runtime sysctls (C(/proc/sys)) to the wanted values and reports each key as
    C(applied), C(unchanged), C(skipped) (with the reason) or C(failed).
  - Before the first write on a host it records the current value of every key it will touch
    in a snapshot file. Entries are only ever added, never overwritten while the file exists,
    so O(state=stock) restores the stock values even after an interrupted or repeated run.
  - Every write is verified by reading the value back. Inside a child network namespace
    (a lab host) some keys are read-only while writing them still "succeeds" (C(sysctl -w)
    exits 0), some do not exist, and keys outside C(net.*) are machine-wide; such keys are
    skipped with a reason and never written.
  - Runtime only; persisting the values (C(/etc/sysctl.d), tuned) is the role's job.
  - The snapshot is not deleted by this module; use M(perflab.network.host_snapshot) with
    O(perflab.network.host_snapshot#module:state=restored) (and O(perflab.network.host_snapshot#module:forget))
    or O(perflab.network.host_snapshot#module:state=absent).
extends_documentation_fragment:
  - perflab.network.host_snapshot.tuned_stock
  - perflab.network.attributes
options:
  settings:
    description:
      - Wanted sysctl values, name to value. A list value is joined with single spaces
        (C([4096, 131072, 134217728]) for C(net.ipv4.tcp_rmem)); a boolean becomes C(1)/C(0).
      - Names use dots; as with C(sysctl), a C(/) stands for a dot inside one component
        (C(net.ipv4.conf.eth0/100.rp_filter)).
      - Ignored with O(state=stock).
    type: dict
    default: {}
  sysfs:
    description:
      - Wanted values of sysfs attributes, absolute path to value, handled like O(settings)
        (recorded, written, read back, restored). Meant for the CPU frequency governor
        (C(/sys/devices/system/cpu/cpufreq/policy0/scaling_governor)); a governor missing from
        C(scaling_available_governors) is skipped.
      - Always machine-wide, so always skipped on a network-namespaced host.
    type: dict
    default: {}
  optional:
    description:
      - Keys of O(settings) this kernel may lack (a profile's keys, for example C(kernel.numa_balancing) on a
        kernel without NUMA balancing) - skipped with the reason when missing. Any other missing key is refused
        (a typo); sysfs keys are always optional.
    type: list
    elements: str
    default: []
  cpu_governor:
    description:
      - CPU frequency governor for every policy of C(/sys/devices/system/cpu/cpufreq), handled like
        O(sysfs) (recorded, written, read back, restored); empty leaves it alone.
      - Without a cpufreq driver (a VM) or on a network-namespaced host it is reported as skipped
        (key C(cpu_governor)) with the reason.
    type: str
    default: ""
  transparent_hugepages:
    description:
      - Transparent hugepages mode (C(/sys/kernel/mm/transparent_hugepage/enabled)); the selected
        choice (the bracketed word) is what is compared, recorded and restored. Empty leaves it alone.
    type: str
    choices: ["", always, madvise, never]
    default: ""
  cpu_dma_latency:
    description:
      - Microseconds the C-states must wake up within (the PM QoS request held by keeping
        C(/dev/cpu_dma_latency) open). This module holds nothing; it says whether this host can
        (RV(cpu_dma_latency)) and, when it cannot, reports the key C(cpu_dma_latency) as skipped
        with the reason. The role then installs the holding service or tuned's C(force_latency).
    type: int
  cpu_dma_latency_by:
    description: What will hold O(cpu_dma_latency) - V(service) (a systemd unit; needs systemd running) or V(tuned).
    type: str
    choices: [service, tuned]
    default: service
  lab_host:
    description:
      - The host is a lab host (a network namespace on a shared kernel). Keys outside C(net.*)
        are never written and a read-only or missing key is reported as skipped, not failed.
      - The module also detects a child network namespace by itself (C(net.core.netdev_max_backlog)
        missing or C(net.core.rmem_max) read-only) and then behaves the same way.
    type: bool
    default: false
  restore_unlisted:
    description:
      - With O(state=tuned), keys recorded in the snapshot but absent from O(settings) (a profile
        applied earlier) are written back to their stock value, so the host holds exactly the
        wanted profile.
    type: bool
    default: true
notes:
  - Writes C(/proc/sys) directly rather than running C(sysctl -w), whose exit status does not
    tell whether the kernel kept the value.
seealso:
  - module: perflab.network.host_snapshot
  - module: ansible.posix.sysctl
'''

EXAMPLES = r'''
- name: Apply the throughput sysctls and say per key what happened
  perflab.network.tuning_sysctl:
    settings:
      net.core.rmem_max: 134217728
      net.ipv4.tcp_rmem: [4096, 131072, 134217728]
      net.ipv4.tcp_congestion_control: bbr
    lab_host: "{{ perflab_lab_host | default(false) }}"
  register: tuning_sysctl_result

- name: The latency knobs; each one this host cannot take is reported as skipped with the reason
  perflab.network.tuning_sysctl:
    settings: {net.core.busy_read: 50, net.core.busy_poll: 50}
    cpu_governor: performance
    transparent_hugepages: never
    cpu_dma_latency: 1

- name: Put the stock values back
  perflab.network.tuning_sysctl:
    state: stock
'''

RETURN = r'''
sysctls:
  description: One entry per key handled, in order.
  returned: always
  type: list
  elements: dict
  contains:
    key:
      description: The sysctl name.
      type: str
      sample: net.ipv4.tcp_rmem
    status:
      description: C(applied), C(unchanged), C(restored), C(skipped) or C(failed).
      type: str
      sample: applied
    wanted:
      description: The value asked for, normalized to single spaces.
      type: str
      sample: 4096 131072 134217728
    before:
      description: Value before the module ran (null when the key does not exist or was not read).
      type: str
      sample: 4096 131072 6291456
    after:
      description: Value read back afterwards (the wanted value in check mode).
      type: str
      sample: 4096 131072 134217728
    reason:
      description: Why the key was skipped or failed; null otherwise.
      type: str
      sample: read-only in this network namespace (a machine-wide setting)
  sample:
    - key: net.core.rmem_max
      status: skipped
      wanted: "134217728"
      before: "212992"
      after: "212992"
      reason: read-only in this network namespace (a machine-wide setting)
summary:
  description: Keys grouped by status; skipped and failed map each key to its reason.
  returned: always
  type: dict
  sample:
    applied: [net.ipv4.tcp_rmem]
    unchanged: []
    restored: []
    skipped: {net.core.netdev_max_backlog: does not exist in this network namespace (only in the initial one)}
    failed: {}
effective:
  description: Keys that now hold the wanted value (applied or unchanged), name to value. What a persistent file should carry.
  returned: when O(state=tuned)
  type: dict
  sample: {net.ipv4.tcp_rmem: 4096 131072 134217728}
namespaced:
  description: Whether the host was handled as a network-namespaced (lab) host.
  returned: always
  type: bool
  sample: true
namespace_evidence:
  description: Why the host counts as namespaced (lab_host and/or what was detected); null when it does not.
  returned: always
  type: str
  sample: "lab_host is true; net.core.netdev_max_backlog does not exist (it exists only in the initial network namespace)"
snapshot_recorded:
  description: Keys newly recorded in the snapshot by this run (their stock values).
  returned: always
  type: dict
  sample: {net.ipv4.tcp_rmem: 4096 131072 6291456}
cpu_dma_latency:
  description:
    - Whether this host can hold O(cpu_dma_latency) (C(hold)), the text to write to C(/dev/cpu_dma_latency)
      (C(text), always 10 bytes), and why not (C(reason), null when it can).
  returned: when O(cpu_dma_latency) is set and O(state=tuned)
  type: dict
  sample: {hold: false, text: "0x00000001", reason: "machine-wide setting: never changed on a network-namespaced host (lab_host is true)"}
snapshot_exists:
  description: Whether a snapshot file exists after the run.
  returned: always
  type: bool
  sample: true
'''

import os
import traceback

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.perflab.network.plugins.module_utils.host import snapshot as snapshots
from ansible_collections.perflab.network.plugins.module_utils.host.tuning_sysctl_utils import (
    ProcSys, apply_key, cpu_dma_latency_problem, cpu_dma_latency_text, detect_netns, governor_skip_reason,
    normalize, restore_key, skipped, summarize, validate_key,
    CPU_DMA_LATENCY_KEY, GOVERNOR_KEY, THP_KEY, STATUS_APPLIED, STATUS_RESTORED, STATUS_UNCHANGED,
)


def run(module, fs):
    params = module.params
    state = params['state']
    settings = dict(params['settings'] or {})
    for path, value in (params['sysfs'] or {}).items():
        if not str(path).startswith('/sys/'):
            module.fail_json(msg='sysfs: %s is not a path under /sys' % path)
        settings[path] = value
    wanted = {}
    for key, value in settings.items():
        try:
            validate_key(key)
        except ValueError as exc:
            module.fail_json(msg='settings: %s' % exc)
        if value is None or isinstance(value, dict):
            module.fail_json(msg='settings: %s needs a number, a string or a list, got %r' % (key, value))
        wanted[key] = normalize(value)

    detected, evidence = detect_netns(fs)
    reasons = []
    if params['lab_host']:
        reasons.append('lab_host is true')
    if detected:
        reasons.append(evidence)
    namespaced = bool(reasons)
    ns_reason = '; '.join(reasons) or None

    try:
        snap = snapshots.load(params['snapshot'])
    except snapshots.SnapshotError as exc:
        module.fail_json(msg=str(exc))

    results = []
    recorded = {}
    latency = None
    if state == 'tuned':
        # the knobs a host may not have: each one it cannot take is a skipped result with the reason
        if params['cpu_governor']:
            reason = governor_skip_reason(fs, namespaced, ns_reason)
            if reason:
                results.append(skipped(GOVERNOR_KEY, params['cpu_governor'], reason))
            else:
                for path in fs.governor_paths():
                    wanted.setdefault(path, params['cpu_governor'])
        if params['transparent_hugepages']:
            wanted.setdefault(THP_KEY, params['transparent_hugepages'])
        if params['cpu_dma_latency'] is not None:
            try:
                text = cpu_dma_latency_text(params['cpu_dma_latency'])
            except ValueError as exc:
                module.fail_json(msg=str(exc))
            reason = cpu_dma_latency_problem(fs, namespaced, ns_reason, params['cpu_dma_latency_by'])
            latency = dict(hold=reason is None, text=text, reason=reason)
            if reason:
                results.append(skipped(CPU_DMA_LATENCY_KEY, params['cpu_dma_latency'], reason))
        if snap is None:
            snap = snapshots.new_snapshot('tuning')
        existed = os.path.exists(params['snapshot'])
        # Record stock values of every key before the first write.
        for key in wanted:
            value = fs.read(key)
            if snapshots.record(snap, 'sysctls', key, value):
                recorded[key] = value
        if recorded and not module.check_mode:
            snapshots.save(params['snapshot'], snap)
        for key, value in wanted.items():
            results.append(apply_key(fs, key, value, namespaced, ns_reason, module.check_mode,
                                     optional=key in (params['optional'] or [])))
        # what this call recorded but did not change is no stock to put back: nothing is left behind
        # for it (and no snapshot file at all when nothing was changed)
        untouched = [r['key'] for r in results if r['key'] in recorded and r['status'] != STATUS_APPLIED]
        if untouched:
            snapshots.forget(snap, 'sysctls', untouched)
            for key in untouched:
                recorded.pop(key, None)
            if not module.check_mode:
                if snapshots.is_empty(snap) and not existed:
                    snapshots.remove(params['snapshot'], snap)
                    snap = None
                else:
                    snapshots.save(params['snapshot'], snap)
        if params['restore_unlisted'] and snap is not None:
            for key, stock in snap['sysctls'].items():
                if key not in wanted:
                    results.append(restore_key(fs, key, stock, namespaced, ns_reason, module.check_mode))
    elif snap is not None:
        for key, stock in snap['sysctls'].items():
            results.append(restore_key(fs, key, stock, namespaced, ns_reason, module.check_mode))

    changed = bool(recorded) or any(r['status'] in (STATUS_APPLIED, STATUS_RESTORED) for r in results)
    result = dict(
        changed=changed,
        sysctls=results,
        summary=summarize(results),
        namespaced=namespaced,
        namespace_evidence=ns_reason,
        snapshot_recorded=recorded,
        snapshot_exists=snap is not None and (not module.check_mode or snapshots.load(params['snapshot']) is not None),
    )
    if latency is not None:
        result['cpu_dma_latency'] = latency
    if state == 'tuned':
        result['effective'] = dict(
            (r['key'], r['after']) for r in results
            if r['status'] in (STATUS_APPLIED, STATUS_UNCHANGED) and r['key'] in wanted)
    if module._diff:
        touched = [r for r in results if r['status'] in (STATUS_APPLIED, STATUS_RESTORED)]
        result['diff'] = dict(
            before=''.join('%s = %s\n' % (r['key'], r['before']) for r in touched),
            after=''.join('%s = %s\n' % (r['key'], r['after']) for r in touched),
        )
    failed = result['summary']['failed']
    if failed:
        module.fail_json(msg='sysctls failed: %s' % '; '.join('%s: %s' % kv for kv in sorted(failed.items())), **result)
    module.exit_json(**result)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            snapshots.TUNED_STOCK_ARGS,
            settings=dict(type='dict', default={}),
            sysfs=dict(type='dict', default={}),
            optional=dict(type='list', elements='str', default=[]),
            cpu_governor=dict(type='str', default=''),
            transparent_hugepages=dict(type='str', choices=['', 'always', 'madvise', 'never'], default=''),
            cpu_dma_latency=dict(type='int'),
            cpu_dma_latency_by=dict(type='str', choices=['service', 'tuned'], default='service'),
            lab_host=dict(type='bool', default=False),
            restore_unlisted=dict(type='bool', default=True),
        ),
        supports_check_mode=True,
    )
    try:
        run(module, ProcSys())
    except (IOError, OSError) as exc:
        module.fail_json(msg='sysctl access failed: %s' % exc, exception=traceback.format_exc())


if __name__ == '__main__':
    main()
