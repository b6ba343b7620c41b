# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The "stock" snapshot the config roles (tuning, mtu) keep on each host.

One JSON file per role and host (for example /var/lib/perflab/tuning/stock.json).
Entries are only ever ADDED: a value already recorded is the stock value and
is never overwritten while the file exists, so a role that is interrupted
between two changes (or re-run with another profile) still restores stock.

Layout::

    {"schema": "perflab.snapshot/1", "role": "tuning", "created_at": "...",
     "sysctls": {"net.ipv4.tcp_rmem": "4096 131072 6291456",
                 "net.core.busy_poll": null},            # null: key absent
     "files": {"/etc/sysctl.d/90-perflab-tuning.conf": {"exists": false}},
     "ethtool": {"eth0": {"features": {...}, "rings": {...}, "coalesce": {...}}},
     "values": {"tuned_profile": "virtual-guest"}}
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import base64
import datetime
import json
import os
import stat
import tempfile

SCHEMA = 'perflab.snapshot/1'
SECTIONS = ('sysctls', 'files', 'ethtool', 'values')
# Config files the roles manage are small; refuse to snapshot anything large
# rather than silently keeping a partial copy.
MAX_FILE_BYTES = 1024 * 1024


class SnapshotError(Exception):
    pass


def _now():
    return datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%dT%H:%M:%SZ')


def new_snapshot(role):
    snap = {'schema': SCHEMA, 'role': role, 'created_at': _now()}
    for section in SECTIONS:
        snap[section] = {}
    return snap


def load(path):
    """Return the snapshot stored at path, or None when there is none."""
    try:
        with open(path, 'rb') as handle:
            raw = handle.read()
    except (IOError, OSError) as exc:
        if getattr(exc, 'errno', None) == 2:
            return None
        raise SnapshotError('cannot read snapshot %s: %s' % (path, exc))
    try:
        snap = json.loads(raw.decode('utf-8'))
    except ValueError as exc:
        raise SnapshotError('snapshot %s is not valid JSON (%s): move it away only if you know the stock values' % (path, exc))
    if not isinstance(snap, dict) or snap.get('schema') != SCHEMA:
        raise SnapshotError('%s is not a %s snapshot' % (path, SCHEMA))
    for section in SECTIONS:
        snap.setdefault(section, {})
    return snap


def save(path, snap):
    """Write the snapshot atomically (temp file + fsync + rename), mode 0600."""
    directory = os.path.dirname(path) or '.'
    if not os.path.isdir(directory):
        # Remember what we create, so that remove() leaves the host as it was.
        created = []
        probe = os.path.abspath(directory)
        while probe and not os.path.isdir(probe):
            created.append(probe)
            probe = os.path.dirname(probe)
        os.makedirs(directory, 0o700)
        snap.setdefault('created_dirs', created)
    fd, tmp = tempfile.mkstemp(prefix='.stock-', dir=directory)
    try:
        with os.fdopen(fd, 'wb') as handle:
            handle.write(json.dumps(snap, indent=2, sort_keys=True).encode('utf-8'))
            handle.write(b'\n')
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o600)
        os.rename(tmp, path)
    except Exception:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    # The rename is only durable once the directory entry is on disk.
    try:
        dir_fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
    except OSError:
        pass


def remove(path, snap=None):
    """Delete the snapshot (and the directories save() created for it, when
    empty); True when a file was removed."""
    try:
        os.unlink(path)
    except OSError as exc:
        if exc.errno == 2:
            return False
        raise
    for directory in (snap or {}).get('created_dirs', []):
        try:
            os.rmdir(directory)
        except OSError:
            break
    return True


def record(snap, section, key, value):
    """Add one entry (add-only). Returns True when the entry is new."""
    entries = snap.setdefault(section, {})
    if key in entries:
        return False
    entries[key] = value
    return True


def capture_file(path):
    """Describe path as it is now: enough to put it back exactly."""
    try:
        info = os.lstat(path)
    except OSError as exc:
        if exc.errno == 2:
            return {'exists': False}
        raise SnapshotError('cannot stat %s: %s' % (path, exc))
    entry = {
        'exists': True,
        'mode': '%04o' % stat.S_IMODE(info.st_mode),
        'uid': info.st_uid,
        'gid': info.st_gid,
    }
    if stat.S_ISDIR(info.st_mode):
        entry['type'] = 'directory'
        return entry
    if stat.S_ISLNK(info.st_mode):
        entry['type'] = 'link'
        entry['target'] = os.readlink(path)
        return entry
    if not stat.S_ISREG(info.st_mode):
        raise SnapshotError('%s is neither a file, a directory nor a symbolic link' % path)
    if info.st_size > MAX_FILE_BYTES:
        raise SnapshotError('%s is larger than %d bytes: not snapshotting it' % (path, MAX_FILE_BYTES))
    with open(path, 'rb') as handle:
        content = handle.read()
    entry['type'] = 'file'
    entry['content'] = base64.b64encode(content).decode('ascii')
    return entry


def file_content(entry):
    """The bytes a recorded regular file held (None for anything else)."""
    if not entry.get('exists') or entry.get('type') != 'file':
        return None
    return base64.b64decode(entry['content'])


def file_matches(path, entry):
    """True when path is already as recorded (content, mode and owner)."""
    now = capture_file(path)
    if not entry.get('exists'):
        return not now['exists']
    if not now['exists'] or now.get('type') != entry.get('type'):
        return False
    if entry.get('type') == 'link':
        return now.get('target') == entry.get('target')
    same_meta = (now['mode'], now['uid'], now['gid']) == (entry['mode'], entry['uid'], entry['gid'])
    if entry.get('type') == 'directory':
        return same_meta
    return same_meta and now.get('content') == entry.get('content')


def restore_file(path, entry):
    """Put path back as recorded. Returns a short text of what was done.

    A path that did not exist is removed (a directory only when empty: it may
    hold files the operator put there since).
    """
    if file_matches(path, entry):
        return None
    if not entry.get('exists'):
        if os.path.isdir(path) and not os.path.islink(path):
            if os.listdir(path):
                return 'kept directory %s: not empty' % path
            os.rmdir(path)
            return 'removed directory %s' % path
        os.unlink(path)
        return 'removed %s' % path
    kind = entry.get('type')
    if kind == 'directory':
        if not os.path.isdir(path):
            os.makedirs(path)
    elif kind == 'link':
        if os.path.lexists(path):
            os.unlink(path)
        os.symlink(entry['target'], path)
        return 'restored link %s' % path
    else:
        directory = os.path.dirname(path) or '.'
        if not os.path.isdir(directory):
            os.makedirs(directory, 0o755)
        fd, tmp = tempfile.mkstemp(prefix='.perflab-', dir=directory)
        try:
            with os.fdopen(fd, 'wb') as handle:
                handle.write(file_content(entry))
            os.rename(tmp, path)
        except Exception:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise
    os.chmod(path, int(entry['mode'], 8))
    os.chown(path, entry['uid'], entry['gid'])
    return 'restored %s' % path


def describe(snap):
    """The snapshot without file contents (for module results)."""
    if snap is None:
        return None
    out = dict(snap)
    out['files'] = dict(
        (path, dict((k, v) for k, v in entry.items() if k != 'content'))
        for path, entry in snap.get('files', {}).items()
    )
    return out
