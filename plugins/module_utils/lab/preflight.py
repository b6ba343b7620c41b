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

from ansible.module_utils.six.moves.urllib import error as urllib_error
from ansible.module_utils.urls import open_url

from ansible_collections.perflab.network.plugins.module_utils.lab.base import debian_mirror
from ansible_collections.perflab.network.plugins.module_utils.lab.spec import saved_spec, spec_problems
from ansible_collections.perflab.network.plugins.module_utils.lab.util import LabError, link_exists, run


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
    if spec.kind == 'vm':
        return vm_preflight(spec)
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


def _free_bytes(path):
    while not os.path.exists(path):
        path = os.path.dirname(path)
    st = os.statvfs(path)
    return st.f_bavail * st.f_frsize


def _mem_available_mb():
    try:
        with open('/proc/meminfo') as f:
            for line in f:
                if line.startswith('MemAvailable:'):
                    return int(line.split()[1]) // 1024
    except (IOError, ValueError):
        pass
    return None


def suite_problem(mirror, suite, timeout=20):
    """The archive must have the suite (its Release file), before minutes of debootstrap."""
    url = '%s/dists/%s/Release' % (mirror.rstrip('/'), suite)
    try:
        open_url(url, method='HEAD', timeout=timeout).close()
    except urllib_error.HTTPError as exc:
        return 'the Debian archive %s has no suite %s (HTTP %d for dists/%s/Release)' % (mirror, suite, exc.code, suite)
    except (urllib_error.URLError, OSError) as exc:
        return 'cannot reach the Debian archive %s to build the VM image: %s' % (mirror, getattr(exc, 'reason', exc))
    return None


def vm_preflight(spec):
    """Every problem with a VM lab and this machine, before anything is created or downloaded."""
    from ansible_collections.perflab.network.plugins.module_utils.lab import vm as lab_vm
    errors = []
    if os.geteuid() != 0:
        errors.append('the VM lab must be built as root (tap devices and a bridge for the data links)')
    spec_errors, dummy = spec_problems(spec)
    errors.extend(spec_errors)
    if spec_errors:
        return errors
    image = lab_vm.image_for(spec)
    tools = [lab_vm.QEMU, 'qemu-img', 'ssh', 'ssh-keygen', 'ip']
    if not image.ready():
        tools += ['debootstrap', 'mke2fs', 'chroot']
    for tool in tools:
        if not shutil.which(tool):
            hint = ' (Debian package qemu-system-x86; make bootstrap installs it)' if tool.startswith('qemu') else \
                ' (make bootstrap installs it)'
            errors.append('command %s is missing on the control node%s' % (tool, hint))
    if spec.vm_links == 'bridge' and not os.path.exists('/dev/net/tun'):
        errors.append("/dev/net/tun is missing: the VM lab's data links are tap devices")
    gib = 1024 ** 3
    if not image.ready():
        free = _free_bytes(spec.cache_root)
        if free < 6 * gib:
            errors.append('the VM image needs about 6 GB free while it is built in %s (cached there); %.1f GB are free'
                          % (spec.cache_root, free / float(gib)))
    free = _free_bytes(spec.state_dir)
    if free < spec.count * gib:
        errors.append("the VMs' disks and snapshots need about 1 GB each in %s; %.1f GB are free"
                      % (os.path.dirname(spec.state_dir), free / float(gib)))
    avail = _mem_available_mb()
    need = spec.count * (spec.vm_memory_mb + 150)
    if avail is not None and avail < need:
        errors.append('%d VMs of %d MB need about %d MB of memory; %d MB are available'
                      % (spec.count, spec.vm_memory_mb, need, avail))
    if not saved_spec(spec):
        # links of that name without a lab of that name: another lab, or a lab's leftovers
        names = [lab_vm.bridge_name(spec)]
        for i in range(1, spec.count + 1):
            names.extend(lab_vm.tap_names(spec, spec.host(i)))
        taken = [d for d in names if link_exists(d)]
        if taken:
            errors.append('interfaces %s exist already but no lab %s is up: another lab uses these names '
                          '(give another lab_name) or a lab was left behind (make lab-down LAB_NAME=%s LAB_KIND=vm)'
                          % (', '.join(taken), spec.name, spec.name))
    if not errors and not image.ready():
        try:
            problem = suite_problem(spec.mirror or debian_mirror(), spec.suite)
        except LabError as exc:
            problem = str(exc)
        if problem:
            errors.append(problem)
    return errors
