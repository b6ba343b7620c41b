# -*- coding: utf-8 -*-
# Copyright: perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The lab's commands and small probes of this machine: run a command, list
namespaces and links, read a host's pid file, wait for a port."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import errno
import json
import os
import shutil
import socket
import subprocess
import time


class LabError(Exception):
    """A problem that stops the lab before (or instead of) any change."""


def run(argv, check=True, input_text=None, timeout=120):
    proc = subprocess.run(argv, input=input_text, check=False, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, timeout=timeout)
    if check and proc.returncode != 0:
        raise LabError('%s failed (exit %d): %s' % (' '.join(argv), proc.returncode,
                                                    (proc.stderr or proc.stdout).strip()))
    return proc


def netns_list():
    out = run(['ip', '-j', 'netns', 'list'], check=False).stdout.strip()
    return set(n['name'] for n in json.loads(out or '[]'))


def link_exists(name, netns=None):
    argv = ['ip'] + (['-n', netns] if netns else []) + ['link', 'show', 'dev', name]
    return run(argv, check=False).returncode == 0


def ip(netns, *args):
    return run(['ip'] + (['-n', netns] if netns else []) + list(args))


def read_pid(path):
    try:
        with open(path) as f:
            pid = int(f.read().strip())
    except (IOError, ValueError):
        return None
    try:
        with open('/proc/%d/cmdline' % pid, 'rb') as f:
            cmd = f.read().split(b'\0')
    except IOError:
        return None
    return pid if cmd and os.path.basename(cmd[0]) in (b'unshare', b'nsenter') else None


def port_open(address, port, timeout=0.5):
    try:
        with socket.create_connection((address, port), timeout=timeout) as s:
            return s.recv(4).startswith(b'SSH')
    except (OSError, socket.timeout):
        return False


def wait_for(predicate, timeout, interval=0.1):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if predicate():
            return True
        time.sleep(interval)
    return predicate()


def _rmtree_retry(path):
    for dummy in range(20):
        try:
            shutil.rmtree(path)
            return
        except OSError as exc:
            if exc.errno not in (errno.EBUSY, errno.ENOTEMPTY):
                raise
            time.sleep(0.2)
    shutil.rmtree(path)


def _write(path, text, mode=0o644):
    d = os.path.dirname(path)
    if not os.path.isdir(d):
        os.makedirs(d)
    with open(path, 'w') as f:
        f.write(text)
    os.chmod(path, mode)
