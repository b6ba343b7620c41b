# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The per-host run lock: one study run at a time on a host.

The lock file (``/run/perflab/run.lock``, gone at reboot) holds the run id, the controller (its host
name and the pid and start time of its ansible-playbook), when it was taken and when it expires.
Taking it is atomic (O_EXCL); the controller judges whether a lock another run holds is stale
(``owner``/``stale`` below run there: its ansible-playbook is gone, or the lock expired), and only
then the module replaces it, naming the token it replaces (so two runs cannot both take it over).
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json
import multiprocessing
import os
import socket
import time

LOCK_PATH = '/run/perflab/run.lock'
# a lock outlives its expected end by this much before another controller may call it stale
HOLD_MARGIN_S = 1800


def _start_time(pid, proc='/proc'):
    """The start time of ``pid`` (clock ticks since boot, /proc/PID/stat field 22), '' when gone."""
    try:
        with open('%s/%d/stat' % (proc, pid)) as handle:
            return handle.read().rsplit(')', 1)[1].split()[19]
    except (IOError, OSError, IndexError, ValueError):
        return ''


def controller_pid():
    """The pid of ansible-playbook: a filter runs in one of its forked workers (multiprocessing)."""
    parent = multiprocessing.parent_process() if hasattr(multiprocessing, 'parent_process') else None
    return parent.pid if parent is not None else os.getpid()


def owner():
    """This controller's identity as a lock owner: {controller, pid, token}."""
    pid = controller_pid()
    host = socket.gethostname()
    return {'controller': host, 'pid': pid, 'token': '%s:%d:%s' % (host, pid, _start_time(pid))}


def stale(holder, now=None, me=None, start_time=_start_time):
    """Why the lock ``holder`` (what the lock file holds) is stale, or '' while its run may still go on."""
    if not holder:
        return ''
    me = me or owner()
    now = time.time() if now is None else now
    try:
        expires = float(holder.get('expires_at') or 0)
    except (TypeError, ValueError):
        expires = 0
    if expires and now > expires:
        return 'it expired at %s' % time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime(expires))
    if holder.get('controller') == me['controller']:
        try:
            pid = int(holder.get('pid'))
        except (TypeError, ValueError):
            return 'it names no controller process'
        token = '%s:%d:%s' % (holder.get('controller'), pid, start_time(pid))
        if token != holder.get('token'):
            return 'its ansible-playbook (pid %d on %s) is gone' % (pid, holder.get('controller'))
    return ''


def describe(holder, path=LOCK_PATH):
    return ('run %s from %s (ansible-playbook pid %s) since %s' % (
        holder.get('run_id', '?'), holder.get('controller', '?'), holder.get('pid', '?'), holder.get('started', '?')))


def read(path=LOCK_PATH):
    """The lock's content ({} when there is none; a torn file reads as a lock of unknown owner)."""
    try:
        with open(path) as handle:
            text = handle.read()
    except (IOError, OSError):
        return {}
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    return data if isinstance(data, dict) else {'token': 'unreadable', 'run_id': '?'}


def content(run_id, me, hold_s, now=None):
    now = time.time() if now is None else now
    return dict(me, run_id=run_id, started=time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime(now)),
                expires_at=int(now + hold_s + HOLD_MARGIN_S), host=socket.gethostname())


def acquire(run_id, me, hold_s, path=LOCK_PATH, replace=None):
    """(taken, changed, holder): taken when the lock is ours now; ``replace``: the token of a stale lock."""
    directory = os.path.dirname(path)
    if not os.path.isdir(directory):
        os.makedirs(directory, 0o755)
    data = json.dumps(content(run_id, me, hold_s)) + '\n'
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except OSError:
        holder = read(path)
        if holder.get('token') == me['token']:
            return True, False, holder
        if not replace or holder.get('token') != replace:
            return False, False, holder
        tmp = '%s.%d' % (path, os.getpid())
        with open(tmp, 'w') as handle:
            handle.write(data)
        os.rename(tmp, path)
        return True, True, json.loads(data)
    with os.fdopen(fd, 'w') as handle:
        handle.write(data)
    return True, True, json.loads(data)


def release(me, path=LOCK_PATH, replace=None):
    """(changed, holder): remove the lock when it is ours (or the stale one of token ``replace``)."""
    holder = read(path)
    if holder and holder.get('token') in (me.get('token'), replace or object()):
        os.unlink(path)
        return True, holder
    return False, holder
