#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

DOCUMENTATION = r'''
---
module: tuning_ethtool
short_description: Set NIC offloads, ring sizes and interrupt coalescing with ethtool, snapshot first, restore exactly
version_added: 0.1.0
description:
  - Sets offload features (C(ethtool -K)), ring sizes (C(ethtool -G)) and interrupt coalescing
    (C(ethtool -C)) of one interface, reads them back and reports each setting as C(applied),
    C(unchanged), C(skipped) (the driver does not support it, or the feature is fixed) or C(failed).
  - Before the first change it records the stock state in the snapshot file shared with
    M(perflab.network.tuning_sysctl) - all non-fixed offload features of the interface (so that
    feature dependencies are restored too), and the ring and coalescing values it changes.
    Entries are only ever added.
  - O(state=stock) puts every recorded interface back and verifies it by reading it back.
extends_documentation_fragment:
  - perflab.network.host_snapshot.tuned_stock
  - perflab.network.attributes
requirements:
  - ethtool on the host
options:
  interface:
    description:
      - The interface to change. Required with O(state=tuned).
      - With O(state=stock), restore only this interface; all recorded interfaces when omitted.
    type: str
  features:
    description:
      - Offload features, name to on (V(true)) or off (V(false)). Both the names C(ethtool -k)
        prints (C(tcp-segmentation-offload)) and the short names (C(tso), C(gso), C(gro), C(lro),
        C(sg), C(rx), C(tx), C(rxvlan), C(txvlan), C(ntuple), C(rxhash)) are accepted.
    type: dict
    default: {}
  rings:
    description:
      - Ring sizes, one of C(rx), C(tx), C(rx-mini), C(rx-jumbo) to a number of descriptors or
        V(max) (the driver's pre-set maximum).
    type: dict
    default: {}
  coalesce:
    description:
      - Interrupt coalescing parameters as C(ethtool -C) names them (C(adaptive-rx), C(rx-usecs),
        C(tx-frames), ...) to a number, or to V(true)/V(false) for C(adaptive-rx), C(adaptive-tx),
        C(cqe-mode-rx), C(cqe-mode-tx).
    type: dict
    default: {}
notes:
  - Turning a feature off can turn dependent ones off too (C(sg off) turns C(gso) off); the
    restore sets all recorded features in one call and repeats once for what the kernel only
    re-enables after its dependency is back.
seealso:
  - module: perflab.network.tuning_sysctl
  - module: perflab.network.host_snapshot
'''

EXAMPLES = r'''
- name: Offloads off so that the MTU matters, rings to the maximum
  perflab.network.tuning_ethtool:
    interface: data0
    features: {tso: false, gso: false, gro: false}
    rings: {rx: max, tx: max}

- name: Back to stock
  perflab.network.tuning_ethtool:
    state: stock
'''

RETURN = r'''
interfaces:
  description: Per interface, what happened to each setting.
  returned: always
  type: list
  elements: dict
  contains:
    interface:
      description: Interface name.
      type: str
      sample: data0
    driver:
      description: Driver name from C(ethtool -i) (null when not reported).
      type: str
      sample: veth
    settings:
      description: One entry per setting.
      type: list
      elements: dict
      sample:
        - {kind: features, name: tcp-segmentation-offload, status: applied, before: true, after: false, wanted: false, reason: null}
        - {kind: rings, name: rx, status: skipped, before: null, after: null, wanted: max,
           reason: "ring sizes are not supported by driver veth: netlink error: Operation not supported"}
  sample:
    - interface: data0
      driver: veth
      settings:
        - {kind: features, name: tcp-segmentation-offload, status: applied, before: true, after: false, wanted: false, reason: null}
summary:
  description: Settings grouped by status as C(<interface>/<kind>/<name>); skipped and failed map to the reason.
  returned: always
  type: dict
  sample:
    applied: [data0/features/tcp-segmentation-offload]
    unchanged: []
    restored: []
    skipped: {data0/rings/rx: "ring sizes are not supported by driver veth: netlink error: Operation not supported"}
    failed: {}
commands:
  description: The ethtool command lines run (or that would run in check mode) to change something.
  returned: always
  type: list
  elements: list
  sample: [[ethtool, -K, data0, tcp-segmentation-offload, "off"]]
rollback_commands:
  description:
    - With O(state=tuned), ethtool command lines that put back what this run changes (the values
      read before it). The role runs them from a rollback timer armed before a change to the
      management interface; run in check mode to get them before changing anything.
  returned: always
  type: list
  elements: list
  sample: [[ethtool, -K, data0, tx-tcp-segmentation, "on", generic-segmentation-offload, "on"]]
'''

import os
import traceback

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.perflab.network.plugins.module_utils.host import snapshot as snapshots
from ansible_collections.perflab.network.plugins.module_utils.host.tuning_ethtool_utils import (
    COALESCE_BOOL_PARAMS, COALESCE_PARAMS, RING_PARAMS,
    canonical_feature, coalesce_argv, features_argv, features_diff, first_error_line,
    parse_coalesce, parse_driver, parse_features, parse_rings, rings_argv,
)

SYS_CLASS_NET = '/sys/class/net'
IFNAME_CHARS = frozenset('abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.:@-')


class Ethtool(object):
    """Runs ethtool for one interface (argv lists, no shell)."""

    def __init__(self, module, interface):
        self.module = module
        self.interface = interface
        self.commands = []

    def query(self, flag):
        rc, out, err = self.module.run_command(['ethtool', flag, self.interface])
        return rc, out, err

    def change(self, argv):
        self.commands.append(argv)
        if self.module.check_mode:
            return 0, '', ''
        return self.module.run_command(argv)


def _entry(kind, name, status, wanted=None, before=None, after=None, reason=None):
    return {'kind': kind, 'name': name, 'status': status, 'wanted': wanted,
            'before': before, 'after': after, 'reason': reason}


def _unsupported(label, driver, err):
    return '%s are not supported by driver %s: %s' % (label, driver or 'unknown', first_error_line(err) or 'ethtool failed')


class InterfaceRun(object):
    def __init__(self, module, interface, snap):
        self.module = module
        self.interface = interface
        self.snap = snap
        self.tool = Ethtool(module, interface)
        self.entries = []
        self.recorded = False
        # argv lists that put back what this run changes (for a rollback timer).
        self.rollback = []
        rc, out, err = self.tool.query('-i')
        self.driver = parse_driver(out) if rc == 0 else None

    def stock(self):
        return self.snap['ethtool'].setdefault(self.interface, {'features': {}, 'rings': {}, 'coalesce': {}})

    def record(self, kind, name, value):
        if snapshots.record(self.stock(), kind, name, value):
            self.recorded = True

    # -- features -------------------------------------------------------
    def read_features(self):
        rc, out, err = self.tool.query('-k')
        if rc != 0:
            return None, err
        return parse_features(out), err

    def plan_features(self, wanted):
        """Record stock, return {name: bool} to set, adding entries for the rest."""
        current, err = self.read_features()
        if current is None:
            for name, value in wanted.items():
                self.entries.append(_entry('features', name, 'skipped', value,
                                           reason=_unsupported('offload features', self.driver, err)))
            return current, {}
        for name, state in current.items():
            if not state['fixed']:
                self.record('features', name, state['on'])
        todo = {}
        for name, value in wanted.items():
            if name not in current:
                self.entries.append(_entry('features', name, 'failed', value,
                                           reason='ethtool -k %s shows no feature %s' % (self.interface, name)))
            elif current[name]['on'] == value:
                self.entries.append(_entry('features', name, 'unchanged', value, value, value))
            elif current[name]['fixed']:
                self.entries.append(_entry('features', name, 'skipped', value, current[name]['on'], current[name]['on'],
                                           'fixed by driver %s' % (self.driver or 'unknown')))
            else:
                todo[name] = value
        if todo:
            groups = set(state['group'] for state in current.values() if state['group'])
            self.rollback.append(features_argv(self.interface, dict(
                (name, state['on']) for name, state in current.items() if not state['fixed'] and name not in groups)))
        return current, todo

    def set_features(self, before, todo, status, target=None):
        if not todo:
            return
        self.tool.change(features_argv(self.interface, todo))
        after = before
        if not self.module.check_mode:
            after = self.read_features()[0] or {}
            remaining = features_diff(after, target or todo)
            if remaining:
                # Some come back only once the feature they depend on is set.
                self.tool.change(features_argv(self.interface, remaining))
                after = self.read_features()[0] or {}
        for name, value in todo.items():
            now = value if self.module.check_mode else after.get(name, {}).get('on')
            if now == value:
                self.entries.append(_entry('features', name, status, value, before[name]['on'], now))
            else:
                self.entries.append(_entry('features', name, 'failed', value, before[name]['on'], now,
                                           'driver %s kept it %s' % (self.driver or 'unknown', 'on' if now else 'off')))

    # -- rings and coalescing (same shape) ------------------------------
    def read_values(self, kind):
        flag, parse = ('-g', parse_rings) if kind == 'rings' else ('-c', parse_coalesce)
        rc, out, err = self.tool.query(flag)
        if rc != 0:
            return None, err
        return parse(out), err

    def plan_values(self, kind, wanted):
        label = 'ring sizes' if kind == 'rings' else 'interrupt coalescing settings'
        parsed, err = self.read_values(kind)
        if parsed is None:
            for name, value in wanted.items():
                self.entries.append(_entry(kind, name, 'skipped', value, reason=_unsupported(label, self.driver, err)))
            return None, {}
        current = parsed['current'] if kind == 'rings' else parsed
        todo = {}
        for name, value in wanted.items():
            before = current.get(name)
            if before is None:
                self.entries.append(_entry(kind, name, 'skipped', value, reason='%s is not supported by driver %s'
                                           % (name, self.driver or 'unknown')))
                continue
            if kind == 'rings':
                limit = parsed['max'].get(name)
                if value == 'max':
                    if limit is None:
                        self.entries.append(_entry(kind, name, 'skipped', value, before, before,
                                                   'driver %s reports no maximum for %s' % (self.driver or 'unknown', name)))
                        continue
                    value = limit
                elif limit is not None and value > limit:
                    self.entries.append(_entry(kind, name, 'failed', value, before, before,
                                               'larger than the driver maximum %s' % limit))
                    continue
            self.record(kind, name, before)
            if before == value:
                self.entries.append(_entry(kind, name, 'unchanged', value, before, before))
            else:
                todo[name] = value
        if todo:
            argv = rings_argv if kind == 'rings' else coalesce_argv
            self.rollback.append(argv(self.interface, dict((name, current[name]) for name in todo)))
        return current, todo

    def set_values(self, kind, before, todo, status):
        if not todo:
            return
        argv = (rings_argv if kind == 'rings' else coalesce_argv)(self.interface, todo)
        rc, out, err = self.tool.change(argv)
        after = before
        if not self.module.check_mode:
            parsed = self.read_values(kind)[0]
            after = (parsed or {}).get('current', {}) if kind == 'rings' else (parsed or {})
        for name, value in todo.items():
            now = value if self.module.check_mode else after.get(name)
            if now == value:
                self.entries.append(_entry(kind, name, status, value, before.get(name), now))
            else:
                self.entries.append(_entry(kind, name, 'failed', value, before.get(name), now,
                                           first_error_line(err) or 'read back %s' % now))

    # -- restore --------------------------------------------------------
    def restore(self):
        stock = self.snap['ethtool'].get(self.interface, {})
        if stock.get('features'):
            current, err = self.read_features()
            if current is None:
                self.entries.append(_entry('features', '*', 'failed', reason=first_error_line(err)))
            else:
                # Only leaves: setting a group line (tcp-segmentation-offload)
                # would also switch children that were off at stock.
                groups = set(state['group'] for state in current.values() if state['group'])
                leaves = dict((name, on) for name, on in stock['features'].items() if name not in groups)
                todo = features_diff(current, leaves)
                for name in leaves:
                    if name in current and name not in todo:
                        self.entries.append(_entry('features', name, 'unchanged', leaves[name],
                                                   current[name]['on'], current[name]['on']))
                self.set_features(current, todo, 'restored', target=leaves)
        for kind in ('rings', 'coalesce'):
            if not stock.get(kind):
                continue
            current, err = self.read_values(kind)
            if current is None:
                self.entries.append(_entry(kind, '*', 'failed', reason=first_error_line(err)))
                continue
            current = current['current'] if kind == 'rings' else current
            todo = {}
            for name, value in stock[kind].items():
                if current.get(name) == value:
                    self.entries.append(_entry(kind, name, 'unchanged', value, value, value))
                else:
                    todo[name] = value
            self.set_values(kind, current, todo, 'restored')

    def report(self):
        return {'interface': self.interface, 'driver': self.driver, 'settings': self.entries}


def validate(module):
    params = module.params
    if params['interface'] is not None and (not params['interface'] or not set(params['interface']) <= IFNAME_CHARS
                                            or len(params['interface']) > 15):
        module.fail_json(msg='interface: %r is not an interface name' % params['interface'])
    if params['state'] == 'tuned' and not params['interface']:
        module.fail_json(msg='interface is required with state=tuned')
    features = {}
    for name, value in params['features'].items():
        if not isinstance(value, bool):
            module.fail_json(msg='features: %s must be true or false, got %r' % (name, value))
        features[canonical_feature(name)] = value
    rings = {}
    for name, value in params['rings'].items():
        if name not in RING_PARAMS:
            module.fail_json(msg='rings: %s is not one of %s' % (name, ', '.join(RING_PARAMS)))
        if value != 'max' and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
            module.fail_json(msg='rings: %s must be a positive number or max, got %r' % (name, value))
        rings[name] = value
    coalesce = {}
    for name, value in params['coalesce'].items():
        if name not in COALESCE_PARAMS:
            module.fail_json(msg='coalesce: %s is not one of %s' % (name, ', '.join(COALESCE_PARAMS)))
        if name in COALESCE_BOOL_PARAMS:
            if not isinstance(value, bool):
                module.fail_json(msg='coalesce: %s must be true or false, got %r' % (name, value))
        elif isinstance(value, bool) or not isinstance(value, int) or value < 0:
            module.fail_json(msg='coalesce: %s must be a number >= 0, got %r' % (name, value))
        coalesce[name] = value
    return features, rings, coalesce


def summarize(runs):
    summary = {'applied': [], 'unchanged': [], 'restored': [], 'skipped': {}, 'failed': {}}
    for run in runs:
        for entry in run.entries:
            name = '%s/%s/%s' % (run.interface, entry['kind'], entry['name'])
            if entry['status'] in ('skipped', 'failed'):
                summary[entry['status']][name] = entry['reason']
            else:
                summary[entry['status']].append(name)
    return summary


def main():
    module = AnsibleModule(
        argument_spec=dict(
            snapshots.TUNED_STOCK_ARGS,
            interface=dict(type='str'),
            features=dict(type='dict', default={}),
            rings=dict(type='dict', default={}),
            coalesce=dict(type='dict', default={}),
        ),
        supports_check_mode=True,
    )
    features, rings, coalesce = validate(module)
    params = module.params
    module.get_bin_path('ethtool', required=True)
    try:
        snap = snapshots.load(params['snapshot'])
    except snapshots.SnapshotError as exc:
        module.fail_json(msg=str(exc))

    runs = []
    try:
        if params['state'] == 'tuned':
            if not os.path.exists(os.path.join(SYS_CLASS_NET, params['interface'])):
                module.fail_json(msg='interface %s does not exist on this host' % params['interface'])
            snap = snap or snapshots.new_snapshot('tuning')
            run = InterfaceRun(module, params['interface'], snap)
            runs.append(run)
            plans = []
            if features:
                plans.append(('features',) + run.plan_features(features))
            for kind, wanted in (('rings', rings), ('coalesce', coalesce)):
                if wanted:
                    plans.append((kind,) + run.plan_values(kind, wanted))
            # The snapshot is on disk before the first change.
            if run.recorded and not module.check_mode:
                snapshots.save(params['snapshot'], snap)
            for kind, before, todo in plans:
                if kind == 'features':
                    run.set_features(before, todo, 'applied')
                else:
                    run.set_values(kind, before, todo, 'applied')
        elif snap is not None:
            names = [params['interface']] if params['interface'] else sorted(snap['ethtool'])
            for name in names:
                if name not in snap['ethtool']:
                    continue
                if not os.path.exists(os.path.join(SYS_CLASS_NET, name)):
                    module.warn('interface %s recorded in the snapshot no longer exists: not restored' % name)
                    continue
                run = InterfaceRun(module, name, snap)
                runs.append(run)
                run.restore()
    except (IOError, OSError, snapshots.SnapshotError) as exc:
        module.fail_json(msg='ethtool tuning failed: %s' % exc, exception=traceback.format_exc())

    summary = summarize(runs)
    changed = any(run.recorded for run in runs) or bool(summary['applied'] or summary['restored'])
    commands = [argv for run in runs for argv in run.tool.commands]
    rollback = [argv for run in runs for argv in run.rollback]
    result = dict(changed=changed, interfaces=[run.report() for run in runs], summary=summary, commands=commands,
                  rollback_commands=rollback)
    if module._diff:
        touched = [(run.interface, e) for run in runs for e in run.entries if e['status'] in ('applied', 'restored')]
        result['diff'] = dict(
            before=''.join('%s %s %s = %s\n' % (i, e['kind'], e['name'], e['before']) for i, e in touched),
            after=''.join('%s %s %s = %s\n' % (i, e['kind'], e['name'], e['after']) for i, e in touched),
        )
    if summary['failed']:
        module.fail_json(msg='ethtool settings failed: %s' % '; '.join('%s: %s' % kv for kv in sorted(summary['failed'].items())),
                         **result)
    module.exit_json(**result)


if __name__ == '__main__':
    main()
