# -*- coding: utf-8 -*-
# Copyright: perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The lab's Debian base: one root filesystem made with debootstrap, cached and
shared (read-only, as the overlays' lower layer) by every lab host."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import fcntl
import os
import shutil

from ansible_collections.perflab.network.plugins.module_utils.lab.spec import BASE_PACKAGES
from ansible_collections.perflab.network.plugins.module_utils.lab.util import LabError, run


def debian_mirror():
    """The Debian mirror this machine's apt already uses (we name none ourselves)."""
    candidates = []
    paths = ['/etc/apt/sources.list']
    d = '/etc/apt/sources.list.d'
    if os.path.isdir(d):
        paths += [os.path.join(d, f) for f in sorted(os.listdir(d)) if f.endswith(('.list', '.sources'))]
    for path in paths:
        try:
            with open(path) as f:
                text = f.read()
        except IOError:
            continue
        for line in text.splitlines():
            line = line.strip()
            if line.startswith('URIs:'):
                candidates.extend(line.split()[1:])
            elif line.startswith('deb '):
                parts = [p for p in line.split() if not p.startswith('[')]
                if len(parts) >= 3:
                    candidates.append(parts[1])
    for uri in candidates:
        if uri.rstrip('/').endswith('/debian'):
            return uri
    raise LabError('found no Debian mirror in /etc/apt/sources.list*: set lab_debian_mirror')


def base_ready(spec):
    return os.path.exists(os.path.join(spec.base_dir, '.perflab-complete'))


def ensure_base(spec, log):
    """Build the Debian base once (debootstrap), atomically, under a lock."""
    if base_ready(spec):
        return False
    os.makedirs(spec.cache_root, exist_ok=True)
    with open(os.path.join(spec.cache_root, '.lock'), 'w') as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if base_ready(spec):
            return False
        tmp = spec.base_dir + '.partial'
        shutil.rmtree(tmp, ignore_errors=True)
        mirror = spec.mirror or debian_mirror()
        packages = ','.join(BASE_PACKAGES + spec.extra_packages)
        log('building the lab base system (debootstrap %s, about a minute, cached in %s)' % (spec.suite, spec.base_dir))
        proc = run(['debootstrap', '--variant=minbase', '--include=' + packages, spec.suite, tmp, mirror],
                   check=False, timeout=1800)
        if proc.returncode != 0:
            shutil.rmtree(tmp, ignore_errors=True)
            raise LabError('debootstrap failed (exit %d): %s' % (proc.returncode, (proc.stdout + proc.stderr)[-2000:]))
        # every lab host makes its own host keys at its first start
        for f in os.listdir(os.path.join(tmp, 'etc', 'ssh')):
            if f.startswith('ssh_host_'):
                os.unlink(os.path.join(tmp, 'etc', 'ssh', f))
        with open(os.path.join(tmp, 'etc', 'ssh', 'sshd_config.d', 'perflab-lab.conf'), 'w') as f:
            f.write('# perflab lab host\nUseDNS no\nPermitRootLogin prohibit-password\nPasswordAuthentication no\n')
        run(['apt-get', 'clean'], check=False)
        shutil.rmtree(os.path.join(tmp, 'var', 'cache', 'apt', 'archives'), ignore_errors=True)
        os.makedirs(os.path.join(tmp, 'var', 'cache', 'apt', 'archives', 'partial'), exist_ok=True)
        with open(os.path.join(tmp, '.perflab-complete'), 'w') as f:
            f.write('%s %s\n' % (spec.suite, packages))
        os.rename(tmp, spec.base_dir)
    return True
