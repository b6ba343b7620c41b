# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The per-host run lock: one study run at a time on a host.

The lock file (``/run/perflab/run.lock``, gone at reboot) holds the run id, the controller (its host
name and the pid and start time of its ansible-playbook), when it was taken and when it expires.
Taking it is atomic (the file appears with its content, or not at all); the controller judges whether
a lock another run holds is stale (``owner``/``stale`` below run there: its ansible-playbook is gone,
the lock expired, or the file is malformed: empty, not a lock, a directory, unreadable), and only then
the module replaces it, naming the token it replaces (so two runs cannot both take it over).
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import errno
import hashlib
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
    if holder.get('malformed'):
        # no run can be told from it: nothing would ever end it (no run writes such a lock, see acquire)
        return 'the lock file is malformed (%s)' % holder['malformed']
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
    """The lock's holder in words, for messages."""
    if holder.get('malformed'):
        return 'a malformed lock file %s (%s)' % (path, holder['malformed'])
    return ('run %s from %s (ansible-playbook pid %s) since %s' % (
        holder.get('run_id', '?'), holder.get('controller', '?'), holder.get('pid', '?'), holder.get('started', '?')))


def _malformed(what, text=''):
    """A lock file no run wrote: its token names what was found, so that only that is replaced."""
    digest = hashlib.sha1(text.encode('utf-8', 'replace')).hexdigest()[:12]
    return {'malformed': what, 'token': 'malformed:%s' % digest}


# the fields every lock this module writes has (content below)
REQUIRED = ('run_id', 'controller', 'pid', 'token')


def read(path=LOCK_PATH):
    """The lock's content: {} when there is none; a lock no run could have written is
    ``{'malformed': what was found, 'token': ...}`` (empty, not JSON, a directory, unreadable)."""
    if os.path.isdir(path) and not os.path.islink(path):
        return _malformed('a directory, not a file', 'directory')
    try:
        with open(path, 'rb') as handle:
            raw = handle.read(65536)
    except (IOError, OSError) as exc:
        if exc.errno == errno.ENOENT:
            return {}
        return _malformed('cannot be read: %s' % (exc.strerror or exc), 'unreadable')
    text = raw.decode('utf-8', 'replace')
    if not text.strip():
        return _malformed('empty', text)
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    if not isinstance(data, dict):
        # JSON-quoted: control characters shown escaped, and no quote YAML output would double
        return _malformed('not a lock: %s' % json.dumps(text.strip()[:40]), text)
    missing = [field for field in REQUIRED if not isinstance(data.get(field), (str, int)) or data.get(field) in ('', None)]
    if missing:
        return _malformed('a JSON object without %s' % ', '.join(missing), text)
    return data


def content(run_id, me, hold_s, now=None):
    now = time.time() if now is None else now
    return dict(me, run_id=run_id, started=time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime(now)),
                expires_at=int(now + hold_s + HOLD_MARGIN_S), host=socket.gethostname())


class LockError(Exception):
    """The lock cannot be written or removed; the message says where and why."""


def _why(path, exc):
    """Precisely what keeps ``path`` from being written (the OSError ``exc`` and what the path is)."""
    directory = os.path.dirname(path)
    parts = ['%s: %s' % (path, exc.strerror or exc)]
    probe = directory
    while probe and not os.path.lexists(probe):
        probe = os.path.dirname(probe)
    if probe and not os.path.isdir(probe):
        parts = ['%s: %s is not a directory' % (path, probe)]
    elif exc.errno == errno.EROFS:
        parts.append('%s is on a read-only file system' % directory)
    elif os.path.isdir(directory) and not os.access(directory, os.W_OK):
        st = os.stat(directory)
        parts.append('the directory %s (mode %04o, owner uid %d) is not writable by uid %d'
                     % (directory, st.st_mode & 0o7777, st.st_uid, os.geteuid()))
    return '; '.join(parts)


def _remove(path, holder):
    """Remove the lock file (or the empty directory a malformed lock is)."""
    try:
        if holder.get('malformed') and os.path.isdir(path) and not os.path.islink(path):
            os.rmdir(path)
        else:
            os.unlink(path)
    except OSError as exc:
        raise LockError('cannot remove the run lock %s' % _why(path, exc))


def acquire(run_id, me, hold_s, path=LOCK_PATH, replace=None):
    """(taken, changed, holder): taken when the lock is ours now; ``replace``: the token of a stale lock.

    The lock appears with its content in one step (a private file linked to its place, which fails
    when a lock is there): no reader ever sees an empty or torn lock of a live run, so an empty or
    unreadable lock is malformed, never a run in progress. Raises LockError when it cannot be written.
    """
    directory = os.path.dirname(path)
    data = json.dumps(content(run_id, me, hold_s)) + '\n'
    tmp = '%s.%d.tmp' % (path, os.getpid())
    try:
        if not os.path.isdir(directory):
            os.makedirs(directory, 0o755)
        with open(tmp, 'w') as handle:
            handle.write(data)
    except OSError as exc:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise LockError('cannot write the run lock %s' % _why(path, exc))
    try:
        try:
            os.link(tmp, path)
            return True, True, json.loads(data)
        except OSError as exc:
            if exc.errno != errno.EEXIST:
                raise LockError('cannot write the run lock %s' % _why(path, exc))
        holder = read(path)
        if holder.get('token') == me['token']:
            return True, False, holder
        if not replace or holder.get('token') != replace:
            return False, False, holder
        if holder.get('malformed') and os.path.isdir(path):
            _remove(path, holder)
        try:
            os.rename(tmp, path)
        except OSError as exc:
            raise LockError('cannot write the run lock %s' % _why(path, exc))
        return True, True, json.loads(data)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def release(me, path=LOCK_PATH, replace=None):
    """(changed, holder): remove the lock when it is ours (or the stale one of token ``replace``)."""
    holder = read(path)
    if holder and holder.get('token') in (me.get('token'), replace or object()):
        _remove(path, holder)
        return True, holder
    return False, holder
