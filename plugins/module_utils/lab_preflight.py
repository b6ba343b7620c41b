# -*- coding: utf-8 -*-
# Copyright: perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The preflight: every problem with a lab spec and with this machine (root,
routes, tools, kernel features), before anything is created."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import ipaddress
import json
import os
import shutil

from ansible_collections.perflab.network.plugins.module_utils.lab_spec import spec_problems
from ansible_collections.perflab.network.plugins.module_utils.lab_util import run


def _routes():
    out = run(['ip', '-j', 'route', 'show', 'table', 'all'], check=False).stdout or '[]'
    routes = []
    for r in json.loads(out):
        dst = r.get('dst')
        if not dst or dst == 'default' or r.get('type') in ('local', 'broadcast', 'multicast'):
            continue
        try:
            routes.append((ipaddress.ip_network(dst, strict=False), r.get('dev')))
        except ValueError:
            continue
    return routes


def preflight(spec, need_base):
    """Every problem with the plan, before anything is created."""
    errors = []
    if os.geteuid() != 0:
        errors.append('the lab must be built as root (network namespaces, mounts, bridges); run it with sudo or as root')
    spec_errors, nets = spec_problems(spec)
    errors.extend(spec_errors)
    for field, net in nets.items():
        for route, dev in _routes():
            if dev == spec.bridge:
                continue  # our own management bridge, from an earlier `up`
            if route.version == 4 and route.overlaps(net):
                errors.append('%s %s overlaps this machine\'s route %s (dev %s): choose another subnet'
                              % (field, net, route, dev))
    tools = ['ip', 'unshare', 'nsenter', 'chroot', 'mount', 'nft', 'ssh-keygen', 'sysctl']
    if spec.rate_mbit:
        tools.append('tc')
    if not spec.offloads:
        tools.append('ethtool')
    if need_base:
        tools.append('debootstrap')
    for tool in tools:
        if not shutil.which(tool):
            errors.append('command %s is missing on the control node (make bootstrap installs it)' % tool)
    errors.extend(kernel_problems())
    return errors


def kernel_problems():
    problems = []
    if not os.path.exists('/proc/self/ns/net'):
        problems.append('the kernel has no network namespaces')
    if not os.path.exists('/proc/self/ns/pid'):
        problems.append('the kernel has no pid namespaces')
    with open('/proc/filesystems') as f:
        filesystems = f.read()
    if 'overlay' not in filesystems and run(['modprobe', 'overlay'], check=False).returncode != 0:
        problems.append('the kernel has no overlay filesystem (modprobe overlay failed)')
    if problems:
        return problems
    # veth and bridge: try them in a throwaway namespace
    probe = 'perflab-probe-%d' % os.getpid()
    if run(['ip', 'netns', 'add', probe], check=False).returncode != 0:
        return ['cannot create a network namespace (ip netns add failed)']
    try:
        if run(['ip', '-n', probe, 'link', 'add', 'plprobe0', 'type', 'veth', 'peer', 'name', 'plprobe1'], check=False).returncode:
            problems.append('the kernel has no veth support')
        if run(['ip', '-n', probe, 'link', 'add', 'plprobebr', 'type', 'bridge'], check=False).returncode:
            problems.append('the kernel has no bridge support')
    finally:
        run(['ip', 'netns', 'del', probe], check=False)
    return problems
