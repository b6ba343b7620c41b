# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The one "stock" snapshot the config roles (tuning, mtu, bonding, firewall) keep on each host.

One JSON file per role namespace and host, by default
``/var/lib/perflab/<namespace>/stock.json`` (the bonding role keeps one per bond).
Entries of ``sysctls``, ``files``, ``ethtool`` and ``values`` are only ever
ADDED: a value already recorded is the stock value and is never overwritten
while the file exists, so a role that is interrupted between two changes (or
re-run with another profile) still restores stock. ``records`` is the one
settable section, for what changes over time (the firewall role's record of the
rules it added).

Restoring puts the files back and drops from the snapshot every entry that is
stock again; the snapshot file goes only once nothing is left (a partial
restore keeps what is left and says so).

Files earlier versions wrote (the firewall role's ``*.state`` and ``*-rules.json``,
the bonding role's ifcfg ``.orig``/``.none`` copies) are adopted: read into the
snapshot as the entry they stand for, and removed once the snapshot holding
them is on disk (see :func:`adopt`).

Layout::

    {"schema": "perflab.snapshot/1", "role": "tuning", "created_at": "...",
     "sysctls": {"net.ipv4.tcp_rmem": "4096 131072 6291456",
                 "net.core.busy_poll": null},            # null: key absent
     "files": {"/etc/sysctl.d/90-perflab-tuning.conf": {"exists": false}},
     "ethtool": {"eth0": {"features": {...}, "rings": {...}, "coalesce": {...}}},
     "values": {"tuned_profile": "virtual-guest"},
     "records": {"ufw-rules": [...]}}
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import base64
import datetime
import json
import os
import re
import stat
import tempfile
import traceback

SCHEMA = 'perflab.snapshot/1'
SECTIONS = ('sysctls', 'files', 'ethtool', 'values', 'records')
# Sections restored by the roles with their own tools (everything but files).
VALUE_SECTIONS = ('sysctls', 'ethtool', 'values', 'records')
NAMESPACES = ('tuning', 'mtu', 'bonding', 'firewall')
NAMESPACE_RE = re.compile(r'^[a-z][a-z0-9_-]*$')
BASE_DIR = '/var/lib/perflab'
LEGACY_FORMATS = ('text', 'json', 'file', 'none')
# Config files the roles manage are small; refuse to snapshot anything large
# rather than silently keeping a partial copy.
MAX_FILE_BYTES = 1024 * 1024


_MISSING = object()


class SnapshotError(Exception):
    pass


# the options tuning_sysctl and tuning_ethtool share (their docs: the host_snapshot fragment's TUNED_STOCK)
TUNED_STOCK_ARGS = dict(
    state=dict(type='str', choices=['tuned', 'stock'], default='tuned'),
    snapshot=dict(type='path', default='/var/lib/perflab/tuning/stock.json'),
)


def _now():
    return datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%dT%H:%M:%SZ')


def default_path(namespace, base=BASE_DIR):
    """Where the snapshot of a role namespace lives: <base>/<namespace>/stock.json."""
    if not isinstance(namespace, str) or not NAMESPACE_RE.match(namespace):
        raise SnapshotError('%r is not a snapshot namespace (lower case letters, digits, - and _)' % (namespace,))
    return os.path.join(base, namespace, 'stock.json')


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
    write_private(path, (json.dumps(snap, indent=2, sort_keys=True) + '\n').encode('utf-8'), '.stock-')


def write_private(path, data, prefix):
    """Write ``data`` (bytes) to ``path`` atomically, mode 0600: a temporary file (``prefix``) in the same
    folder, fsync, rename, fsync of the folder. The snapshot and the firewall's ruleset files are written so."""
    directory = os.path.dirname(path) or '.'
    fd, tmp = tempfile.mkstemp(prefix=prefix, dir=directory)
    try:
        with os.fdopen(fd, 'wb') as handle:
            handle.write(data)
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


def set_entry(snap, section, key, value):
    """Set one entry of a settable section (``records``); None removes it.
    Returns True when the snapshot changed."""
    entries = snap.setdefault(section, {})
    if value is None:
        return entries.pop(key, _MISSING) is not _MISSING
    if entries.get(key, _MISSING) == value:
        return False
    entries[key] = value
    return True


def forget(snap, section, keys):
    """Drop entries the caller has put back itself; returns the keys dropped.
    ``keys`` may be ['*'] for the whole section."""
    if section not in SECTIONS:
        raise SnapshotError('%s is not a snapshot section (%s)' % (section, ', '.join(SECTIONS)))
    entries = snap.setdefault(section, {})
    if list(keys) == ['*']:
        keys = list(entries)
    return [key for key in keys if entries.pop(key, _MISSING) is not _MISSING]


def left(snap):
    """What is still recorded: section -> sorted keys (empty sections left out)."""
    if snap is None:
        return {}
    return dict((section, sorted(snap.get(section) or {})) for section in SECTIONS if snap.get(section))


def is_empty(snap):
    return not left(snap)


def _legacy_entry(spec):
    """The snapshot entry an old-format file stands for, or None when it is not there."""
    path, fmt = spec['path'], spec.get('format') or 'text'
    if fmt not in LEGACY_FORMATS:
        raise SnapshotError('legacy %s: format %s is not one of %s' % (path, fmt, ', '.join(LEGACY_FORMATS)))
    try:
        info = os.stat(path)
    except OSError as exc:
        if exc.errno == 2:
            return None
        raise SnapshotError('cannot stat %s: %s' % (path, exc))
    if fmt == 'none':
        return {'exists': False}
    if info.st_size > MAX_FILE_BYTES:
        raise SnapshotError('%s is larger than %d bytes: not adopting it' % (path, MAX_FILE_BYTES))
    with open(path, 'rb') as handle:
        content = handle.read()
    if fmt == 'file':
        # The copy kept the content; the mode is what the earlier version restored with.
        return {'exists': True, 'type': 'file', 'content': base64.b64encode(content).decode('ascii'),
                'mode': spec.get('mode') or '0644', 'uid': info.st_uid, 'gid': info.st_gid}
    text = content.decode('utf-8')
    if fmt == 'json':
        try:
            return json.loads(text)
        except ValueError as exc:
            raise SnapshotError('legacy %s is not valid JSON (%s)' % (path, exc))
    return text.strip()


def adopt(snap, legacy):
    """Take the files earlier versions wrote into the snapshot.

    ``legacy`` is a list of ``{path, section, key, format[, mode]}``: format
    ``text`` (the stripped content is the value), ``json`` (the parsed content),
    ``file`` (the file is a copy of the file ``key`` as it was) or ``none`` (the
    file's presence says the file ``key`` did not exist). An entry already in
    the snapshot wins. Returns (paths found, keys adopted as "section:key");
    the caller removes the paths once the snapshot is saved."""
    found, adopted = [], []
    for spec in legacy or []:
        section, key = spec.get('section'), spec.get('key')
        if section not in SECTIONS or not key:
            raise SnapshotError('legacy %s needs a section (%s) and a key' % (spec.get('path'), ', '.join(SECTIONS)))
        if spec.get('format') in ('file', 'none') and section != 'files':
            raise SnapshotError('legacy %s: format %s belongs to the files section' % (spec['path'], spec['format']))
        entry = _legacy_entry(spec)
        if entry is None:
            continue
        found.append(spec['path'])
        if key not in snap.setdefault(section, {}):
            snap[section][key] = entry
            adopted.append('%s:%s' % (section, key))
    return found, adopted


def remove_legacy(paths):
    """Delete adopted old-format files (their directories are the roles' own)."""
    for path in paths:
        try:
            os.unlink(path)
        except OSError as exc:
            if exc.errno != 2:
                raise


def _failure(exc):
    """Why a file could not be put back, in the host's own words ([Errno 1] Operation not permitted...)."""
    if isinstance(exc, (IOError, OSError)) and exc.strerror:
        return '[Errno %s] %s' % (exc.errno, exc.strerror)
    return str(exc)


def restore_files(snap, wanted, check_mode=False):
    """Put the recorded files in ``wanted`` back (all recorded files when empty).

    Every file is tried: one that cannot be put back (an immutable file, a read-only
    file system) does not stop the others. Returns (lines, stock, failed): one line per
    file changed, the paths that are as recorded afterwards (would be, in check mode),
    and path -> why it could not be put back (those stay in the snapshot)."""
    wanted = list(wanted or snap['files'])
    for path in wanted:
        if path not in snap['files']:
            raise SnapshotError('%s is not recorded in the snapshot' % path)
    lines, stock, failed = [], [], {}
    # Children before parents when removing, parents before children when creating.
    order = ([p for p in sorted(wanted, key=len, reverse=True) if not snap['files'][p].get('exists')]
             + [p for p in sorted(wanted, key=len) if snap['files'][p].get('exists')])
    for path in order:
        entry = snap['files'][path]
        try:
            line = None
            if not file_matches(path, entry):
                if check_mode:
                    line = ('restored %s' if entry.get('exists') else 'removed %s') % path
                else:
                    line = restore_file(path, entry)
        except (IOError, OSError, SnapshotError) as exc:
            failed[path] = _failure(exc)
            continue
        if line:
            lines.append(line)
        if check_mode or not (line or '').startswith('kept '):
            stock.append(path)
    return lines, stock, failed


def unrestored_text(unrestored):
    """One line for the entries that could not be put back: 'files:/etc/x ([Errno 1] ...); ...'."""
    return '; '.join('%s (%s)' % (key, why) for key, why in sorted(unrestored.items()))


# ------------------------------------------------------------- leftovers
# What an earlier run left on a host: every role's snapshot (and the firewall switched off),
# found by the study's preflight before anything changes (playbooks/stages/preflight.yml).
LEFTOVER_BASES = (BASE_DIR, '/var/db/perflab')   # Linux; FreeBSD's bonding and firewall
SNAPSHOT_NAME_RE = re.compile(r'^stock(-[A-Za-z0-9_.:@-]+)?\.json$')
FIREWALL_DISABLED = 'disabled-backend'   # the firewall role's marker of a firewall it switched off


def _some(items, limit=4):
    items = list(items)
    text = ', '.join(str(item) for item in items[:limit])
    return text + (', ... (%d in all)' % len(items) if len(items) > limit else '')


def leftover_text(entry):
    """What one leftover holds, in a line: 'tuning snapshot /var/lib/perflab/tuning/stock.json
    (since ...): sysctls net.core.rmem_max, ...; files /etc/sysctl.d/90-perflab-tuning.conf'."""
    if entry.get('disabled'):
        return 'firewall: the %s firewall switched off (%s)' % (entry['disabled'], entry['path'])
    if entry.get('error'):
        return '%s snapshot %s: %s' % (entry['role'], entry['path'], entry['error'])
    parts = []
    for section, keys in sorted(entry['left'].items()):
        if section == 'values':
            keys = ['%s=%s' % (key, entry['values'][key]) for key in keys]
        parts.append('%s %s' % (section, _some(keys)))
    return '%s snapshot %s (since %s): %s' % (entry['role'], entry['path'], entry.get('created_at') or '?',
                                              '; '.join(parts) or 'empty')


def find_leftovers(bases=LEFTOVER_BASES, namespaces=NAMESPACES):
    """Every snapshot of the config roles on this host and the firewall switched off, as
    [{role, path, created_at, left, values, text}] (``disabled``: the backend switched off;
    ``error``: a snapshot that cannot be read, a leftover all the same)."""
    found = []
    for base in bases:
        for namespace in namespaces:
            directory = os.path.join(base, namespace)
            try:
                names = sorted(os.listdir(directory))
            except OSError as exc:
                if exc.errno in (2, 20):
                    continue
                raise SnapshotError('cannot list %s: %s' % (directory, _failure(exc)))
            for name in names:
                path = os.path.join(directory, name)
                entry = {'role': namespace, 'path': path}
                if namespace == 'firewall' and name == FIREWALL_DISABLED:
                    try:
                        with open(path) as handle:
                            entry['disabled'] = handle.read().strip() or 'unknown'
                    except (IOError, OSError) as exc:
                        entry['disabled'] = 'unknown (%s)' % _failure(exc)
                elif SNAPSHOT_NAME_RE.match(name):
                    try:
                        snap = load(path)
                    except SnapshotError as exc:
                        entry['error'] = str(exc)
                    else:
                        if snap is None or is_empty(snap):
                            continue
                        entry.update(created_at=snap.get('created_at'), left=left(snap),
                                     values=dict(snap.get('values') or {}))
                else:
                    continue
                entry['text'] = leftover_text(entry)
                found.append(entry)
    return found


# ---------------------------------------------------------------- the modules
# host_snapshot and its alias tuning_snapshot run this (they only differ in
# their defaults: tuning_snapshot keeps the tuning role's path and `role`).

def argument_spec(alias=False):
    spec = dict(
        name=dict(type='str', aliases=['role']),
        snapshot=dict(type='path'),
        state=dict(type='str', choices=['present', 'restored', 'absent', 'query', 'leftovers'], default='present'),
        expected=dict(type='list', elements='str', default=[], choices=list(NAMESPACES)),
        files=dict(type='list', elements='path', default=[]),
        values=dict(type='dict', default={}),
        records=dict(type='dict', default={}),
        forget=dict(type='dict', default={}),
        unrestored_ok=dict(type='bool', default=False),
        legacy=dict(type='list', elements='dict', default=[], options=dict(
            path=dict(type='path', required=True),
            section=dict(type='str', required=True, choices=list(SECTIONS)),
            key=dict(type='str', required=True, no_log=False),
            format=dict(type='str', default='text', choices=list(LEGACY_FORMATS)),
            mode=dict(type='str', default='0644'),
        )),
    )
    if alias:
        spec['name']['default'] = 'tuning'
        spec['snapshot']['default'] = default_path('tuning')
    return spec


def required_if(alias=False):
    """name is needed by every state but leftovers (which looks at every namespace)."""
    if alias:
        return []
    return [('state', state, ['name']) for state in ('present', 'restored', 'absent', 'query')]


def _empty_recorded(params=None):
    recorded = {'files': [], 'values': []}
    if params and params.get('records'):
        recorded['records'] = []
    return recorded


def _present(params, snap, check_mode):
    if snap is None:
        snap = new_snapshot(params['name'])
    recorded = _empty_recorded(params)
    for path in params['files']:
        if path not in snap['files']:
            snap['files'][path] = capture_file(path)
            recorded['files'].append(path)
    for key, value in params['values'].items():
        if record(snap, 'values', key, value):
            recorded['values'].append(key)
    for key, value in params['records'].items():
        if set_entry(snap, 'records', key, value):
            recorded['records'].append(key)
    return snap, recorded


def run(module):
    """The whole module: one snapshot, per state."""
    params = module.params
    check = module.check_mode
    if params['state'] == 'leftovers':
        leftovers(module)
        return
    try:
        path = params['snapshot'] or default_path(params['name'])
        if not NAMESPACE_RE.match(params['name']):
            raise SnapshotError('%r is not a snapshot namespace (lower case letters, digits, - and _)' % (params['name'],))
        state = params['state']
        snap = load(path)
        existed = snap is not None
        # Files of earlier versions: taken in (in memory until the snapshot is written).
        candidate = snap if existed else new_snapshot(params['name'])
        legacy_found, adopted = adopt(candidate, params['legacy'])
        if legacy_found:
            snap = candidate
        recorded, restored, forgotten, unrestored, msg = _empty_recorded(), [], [], {}, ''
        changed = bool(legacy_found) and state in ('present', 'restored', 'absent')
        if state == 'present':
            snap, recorded = _present(params, snap, check)
            changed = changed or any(recorded.values())
            if is_empty(snap):
                # nothing to restore: no snapshot (an emptied one goes)
                changed = changed or existed
                if not check:
                    remove(path, snap)
                    remove_legacy(legacy_found)
                snap, exists = None, False
            else:
                if changed and not check:
                    save(path, snap)
                    remove_legacy(legacy_found)
                exists = True
        elif state == 'restored':
            if snap is None:
                exists = False
            else:
                for key in params['files']:
                    if key not in snap['files']:
                        raise SnapshotError('%s is not recorded in the snapshot %s' % (key, path))
                restored, stock, failed = restore_files(snap, params['files'], check)
                for key in stock:
                    del snap['files'][key]
                unrestored = dict(('files:%s' % key, why) for key, why in failed.items())
                for section, keys in params['forget'].items():
                    forgotten.extend('%s:%s' % (section, key) for key in forget(snap, section, keys or []))
                changed = changed or bool(restored or stock or forgotten)
                exists = not is_empty(snap)
                if not check:
                    if not exists:
                        remove(path, snap)
                    elif changed:
                        save(path, snap)
                    remove_legacy(legacy_found)
                if exists:
                    msg = 'partial restore: %s kept with what is left to restore (%s)' % (
                        path, '; '.join('%s: %s' % (section, ', '.join(keys)) for section, keys in sorted(left(snap).items())))
                    if unrestored:
                        msg += '; could not be restored: %s' % unrestored_text(unrestored)
                else:
                    msg = 'restored: %s removed (the host is stock again)' % path
                    snap = None
        elif state == 'absent':
            changed = changed or existed
            if not check:
                if existed:
                    remove(path, snap)
                remove_legacy(legacy_found)
            snap, exists = None, False
        else:
            exists = snap is not None
    except SnapshotError as exc:
        module.fail_json(msg=str(exc))
    except (IOError, OSError) as exc:
        module.fail_json(msg='snapshot %s: %s' % (path, exc), exception=traceback.format_exc())

    remaining = left(snap) if exists else {}
    result = dict(changed=changed, path=path, exists=exists, snapshot=describe(snap), recorded=recorded,
                  restored=restored, forgotten=forgotten, adopted=adopted, left=remaining, unrestored=unrestored,
                  complete=not exists, msg=msg)
    if module._diff and changed:
        if state == 'absent':
            result['diff'] = dict(before_header=path, after_header=path, before='snapshot present\n', after='')
        elif state == 'restored':
            result['diff'] = dict(before_header=path, after_header=path, before='',
                                  after=''.join(line + '\n' for line in restored + ['forgot %s' % k for k in forgotten]))
        else:
            result['diff'] = dict(before_header=path, after_header=path, before='', after=''.join(
                'recorded %s\n' % name for name in sum(recorded.values(), []) + adopted))
    if unrestored and not params['unrestored_ok']:
        # everything else is restored and the snapshot keeps these: fail naming them
        module.fail_json(**dict(result, msg='could not restore %s; %s' % (unrestored_text(unrestored), msg)))
    module.exit_json(**result)


def leftovers(module):
    """state=leftovers: what earlier runs left on this host (read only); ``expected`` names the
    roles the caller applies itself over their snapshot, the others are ``unexpected``."""
    try:
        found = find_leftovers()
    except SnapshotError as exc:
        module.fail_json(msg=str(exc))
    expected = module.params['expected']
    unexpected = [entry['text'] for entry in found if entry.get('disabled') or entry['role'] not in expected]
    msg = ('; '.join(entry['text'] for entry in found) if found else 'nothing left by an earlier run')
    module.exit_json(changed=False, leftovers=found, unexpected=unexpected, msg=msg)


def main(alias=False):
    from ansible.module_utils.basic import AnsibleModule
    module = AnsibleModule(argument_spec=argument_spec(alias), required_if=required_if(alias), supports_check_mode=True)
    run(module)
