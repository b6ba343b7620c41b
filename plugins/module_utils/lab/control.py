# -*- coding: utf-8 -*-
# Copyright: perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The local lab: N lab hosts on this machine, each a network namespace with
a private overlay root, its own hostname and pid namespace, and an sshd that
the control node reaches over a management bridge.

Layout of one lab named NAME (all names derive from it):
  root namespace   bridge NAME-br (management gateway), veth NAME-m<i> per host,
                   nftables table ip perflab_NAME (masquerade for package installs)
  NAME-sw          the data "switch": bridge br0, port p<i> per host
  NAME-<host>      a lab host: mgmt0 (management), data0 (data link)
  /var/lib/perflab/NAME/         state: ssh key, inventory, per host upper/work/root
  /var/cache/perflab/rootfs-*/   the Debian base made once with debootstrap (a cache)

Every lab host runs in its own mount, UTS, IPC and pid namespace; its pid 1 is
sshd. Killing the `unshare` parent kills the whole pid namespace (--kill-child),
which also drops the namespace's mounts: nothing of a host outlives its stop.

This file brings a lab up, down and reports its status; the parts (this package), by concern:
  spec       the spec, its names and addresses, its own checks, the saved spec
  preflight  every problem with the spec and with this machine, before any change
  base       the Debian base (debootstrap, cached)
  mgmt       management bridge, masquerade, IPv4 forwarding
  links      data switch, port shaping and offloads
  hosts      one lab host's start and stop (namespace, overlay root, sshd), the SSH key
  util       running commands, LabError, small probes of this machine
  vm         the other kind of lab host: QEMU VMs with Debian's own kernel (vm_image: their image)
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json
import os
import re

from ansible_collections.perflab.network.plugins.module_utils.lab.base import ensure_base
from ansible_collections.perflab.network.plugins.module_utils.lab.hosts import apply_firewall, ensure_key, host_running, start_host, stop_host
from ansible_collections.perflab.network.plugins.module_utils.lab.links import ensure_switch, shape_port
from ansible_collections.perflab.network.plugins.module_utils.lab.mgmt import ensure_mgmt, remove_mgmt
from ansible_collections.perflab.network.plugins.module_utils.lab.spec import saved_spec, spec_summary
from ansible_collections.perflab.network.plugins.module_utils.lab import vm as lab_vm
from ansible_collections.perflab.network.plugins.module_utils.lab.util import LabError, _rmtree_retry, _write, netns_list, run


def _check_same_lab(spec, old):
    if old and old.get('kind', 'netns') != spec.kind:
        raise LabError('lab %s is up as a %s lab: bring it down first (or give this one another lab_name)'
                       % (spec.name, old.get('kind', 'netns')))


def up(spec, log=lambda msg: None):
    """Bring the lab to the spec; returns (changed, hosts)."""
    old = saved_spec(spec)
    _check_same_lab(spec, old)
    if spec.kind == 'vm':
        return _up_vm(spec, old, log)
    changed = ensure_base(spec, log)
    if old and (old.get('mgmt_subnet'), old.get('data_subnet'), old.get('host_prefix')) != \
            (spec.mgmt_subnet, spec.data_subnet, spec.host_prefix):
        raise LabError('lab %s is up with other subnets or host names (%s, %s, %s): bring it down first'
                       % (spec.name, old.get('mgmt_subnet'), old.get('data_subnet'), old.get('host_prefix')))
    os.makedirs(spec.state_dir, exist_ok=True)
    pubkey = ensure_key(spec)
    changed |= ensure_mgmt(spec)
    changed |= ensure_switch(spec)
    reshape = old is not None and any(old.get(k) != v for k, v in
                                      (('rate_mbit', spec.rate_mbit), ('shaper', spec.shaper)))
    refirewall = old is not None and old.get('firewall', 'none') != spec.firewall
    hosts = []
    for i in range(1, spec.count + 1):
        h = spec.host(i)
        if not host_running(spec, h):
            start_host(spec, h, pubkey)
            changed = True
        else:
            if reshape:
                shape_port(spec, h['switch_port'])
                changed = True
            if refirewall:
                apply_firewall(spec, h)
                changed = True
        hosts.append(h)
    # hosts beyond the asked count (the lab shrank)
    i = spec.count + 1
    while old and i <= old.get('hosts', 0):
        changed |= stop_host(spec, spec.host(i))
        i += 1
    summary = spec_summary(spec)
    if summary != old:
        _write(os.path.join(spec.state_dir, 'lab.json'), json.dumps(summary, indent=1, sort_keys=True) + '\n')
    return changed, hosts


def _up_vm(spec, old, log):
    if old and (old.get('data_subnet'), old.get('host_prefix'), old.get('hosts'), old.get('vm_links')) != \
            (spec.data_subnet, spec.host_prefix, spec.count, spec.vm_links):
        raise LabError('VM lab %s is up with another data subnet, host names, host count or links (%s, %s, %s, %s): '
                       'bring it down first' % (spec.name, old.get('data_subnet'), old.get('host_prefix'),
                                                old.get('hosts'), old.get('vm_links')))
    os.makedirs(spec.state_dir, exist_ok=True)
    pubkey = ensure_key(spec)
    try:
        changed, hosts, state = lab_vm.up(spec, old, pubkey, log)
    except BaseException:
        # nothing of a lab that did not come up stays behind (a VM that did not boot, say)
        if not old:
            down(spec)
        raise
    summary = spec_summary(spec)
    summary.update(state)
    if summary != old:
        _write(os.path.join(spec.state_dir, 'lab.json'), json.dumps(summary, indent=1, sort_keys=True) + '\n')
    return changed, hosts


def down(spec):
    """Remove everything the lab made; the base cache stays unless purged."""
    changed = False
    old = saved_spec(spec) or {}
    if old.get('kind') == 'vm' or (not old and spec.kind == 'vm'):
        changed = lab_vm.down(spec, old)
        if os.path.isdir(spec.state_dir):
            _rmtree_retry(spec.state_dir)
            changed = True
        return changed
    count = max(old.get('hosts', 0), spec.count)
    prefix = old.get('host_prefix', spec.host_prefix)
    spec.host_prefix = prefix
    for i in range(1, count + 1):
        changed |= stop_host(spec, spec.host(i))
    # stray host namespaces of this lab (a count we no longer know)
    stray = re.compile(r'^%s-%s[0-9]+$' % (re.escape(spec.name), re.escape(prefix)))
    for ns in netns_list():
        if stray.match(ns):
            run(['ip', 'netns', 'del', ns])
            changed = True
    if spec.switch_ns in netns_list():
        run(['ip', 'netns', 'del', spec.switch_ns])
        changed = True
    if os.path.isdir(spec.state_dir):
        _rmtree_retry(spec.state_dir)
        changed = True
    changed |= remove_mgmt(spec)
    return changed


def status(spec):
    if spec.kind == 'vm':
        return lab_vm.status(spec, saved_spec(spec))
    hosts = []
    for i in range(1, spec.count + 1):
        h = spec.host(i)
        h['running'] = host_running(spec, h)
        hosts.append(h)
    return hosts
