# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The one rollback guard of a change that could cut the management connection
(tuning ethtool, mtu, bonding): commit-confirm with a timer on the host.

Layout in the state directory, per guard NAME::

    rollback-NAME.sh   the timer (written for inspection; run from memory, see arm())
    armed-NAME         the token of the armed timer: the timer acts only while it holds its token
    before-NAME/       copies of the files as they were before the change ('/' -> '_'); a file
                       without a copy did not exist and is removed by a rollback
    confirmed-NAME     written by confirm(): when, and the token confirmed
    rolled-back-NAME   written by the timer when it acted: when
    rollback-NAME.log  what the timer's commands printed when it acted (a rollback that did not
                       bring the host back is read here once the host answers again)

What each earlier copy did, kept here: the file copies, the script on disk and the
rolled-back record (bonding); the runtime undo commands (tuning, mtu); disarming by a
marker the timer checks (tuning, mtu) - made a per-arm token, so that a timer left from an
earlier run can never act on a newer change.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import binascii
import datetime
import os
import re
import shutil
import subprocess

try:
    from shlex import quote
except ImportError:  # pragma: no cover - Python 2
    from pipes import quote

OK_NAME = re.compile(r'^[A-Za-z0-9_.@-]{1,64}$')


def paths(state_dir, name):
    return dict(
        script=os.path.join(state_dir, 'rollback-%s.sh' % name),
        armed=os.path.join(state_dir, 'armed-%s' % name),
        before=os.path.join(state_dir, 'before-%s' % name),
        confirmed=os.path.join(state_dir, 'confirmed-%s' % name),
        rolled_back=os.path.join(state_dir, 'rolled-back-%s' % name),
        log=os.path.join(state_dir, 'rollback-%s.log' % name),
    )


def copy_name(path):
    """The name of the copy of ``path`` in before-NAME/."""
    return path.replace('/', '_')


def timing_problems(check_timeout, delay, prefix=''):
    """The check must end well before the timer acts: 5 <= check_timeout < delay <= 3600."""
    problems = []
    if not 5 <= int(check_timeout) <= 600:
        problems.append('%smanagement_check_timeout must be 5-600 (got %s)' % (prefix, check_timeout))
    if not int(check_timeout) < int(delay) <= 3600:
        problems.append('%srollback_delay must be larger than %smanagement_check_timeout and at most 3600 (got %s)'
                        % (prefix, prefix, delay))
    return problems


def decide(changing, management, allow):
    """What to do with a change of the interfaces ``changing``: ('plain'|'guarded'|'refused', the management ones)."""
    touched = [name for name in changing if name in management]
    if not touched:
        return 'plain', []
    return ('guarded' if allow else 'refused'), touched


def script(name, token, delay, state_dir, files=(), commands=(), shell=''):
    """The timer: sleep, act unless disarmed (armed-NAME no longer holds ``token``), record it."""
    p = paths(state_dir, name)
    lines = [
        '#!/bin/sh',
        '# perflab.network host_guard %s: undoes the change unless it is confirmed within %d s' % (name, int(delay)),
        'sleep %d' % int(delay),
        '[ "$(cat %s 2>/dev/null)" = %s ] || exit 0' % (quote(p['armed']), quote(token)),
        '# acting: everything below prints into the log',
        'exec >%s 2>&1' % quote(p['log']),
        'set -x',
        'before=%s' % quote(p['before']),
        '# put a file back as it was before the change, or remove it if there was none',
        'restore() {',
        '    if [ -e "$before/$2" ]; then cp -p "$before/$2" "$1"; else rm -f "$1"; fi',
        '}',
    ]
    lines += ['restore %s %s' % (quote(f), quote(copy_name(f))) for f in files]
    lines += [' '.join(quote(str(a)) for a in argv) for argv in commands]
    if shell:
        lines += [shell.rstrip('\n')]
    lines += ['rm -f %s' % quote(p['armed']), 'date > %s' % quote(p['rolled_back'])]
    return '\n'.join(lines) + '\n'


# The kernel packet filter's rulesets a guard saves before a firewall change and its timer puts
# back: per kind, (save argv, file in before-NAME/, text put before the saved output, restore argv).
# nftables: one file that flushes and loads in one transaction (iptables-nft rules are in it too).
RULESETS = {
    'nftables': [(('nft', 'list', 'ruleset'), 'ruleset.nft', 'flush ruleset\n', ('nft', '-f'))],
    'iptables': [(('iptables-save',), 'iptables.rules', '', ('iptables-restore',)),
                 (('ip6tables-save',), 'ip6tables.rules', '', ('ip6tables-restore',))],
}


def ruleset_plan(kinds, before_dir):
    """What saving ``kinds`` (RULESETS keys) runs and what the timer runs to put them back:
    ([(save argv, path, prefix)], [restore argv]), the restore after the files, in order."""
    saves, restores = [], []
    for kind in kinds:
        for save, name, prefix, restore in RULESETS[kind]:
            path = os.path.join(before_dir, name)
            saves.append((list(save), path, prefix))
            restores.append(list(restore) + [path])
    return saves, restores


def new_token():
    return binascii.hexlify(os.urandom(8)).decode('ascii')


def _write(path, text, mode=0o600):
    with open(path, 'w') as handle:
        handle.write(text)
    os.chmod(path, mode)


def _read(path):
    try:
        with open(path) as handle:
            return handle.read().strip()
    except (IOError, OSError):
        return ''


def status(state_dir, name):
    p = paths(state_dir, name)
    return dict(armed=os.path.exists(p['armed']), token=_read(p['armed']),
                rolled_back=_read(p['rolled_back']), confirmed=_read(p['confirmed']), log=_read(p['log'])[-16384:],
                paths=p)


def arm(state_dir, name, delay, files=(), commands=(), shell='', start=True, token=None, rulesets=(), run=None):
    """Copy the files, save the ``rulesets`` (``run(argv) -> (rc, out, err)``), write the timer
    and start it (detached: it outlives the connection).

    Returns (token, script text). The timer runs from memory (sh -c), not from the file:
    a later arm rewriting the file cannot change what an earlier timer does. The rulesets are put
    back after the files and before ``commands``.
    """
    p = paths(state_dir, name)
    if not os.path.isdir(state_dir):
        os.makedirs(state_dir, 0o700)
    token = token or new_token()
    if os.path.isdir(p['before']):
        shutil.rmtree(p['before'])
    os.makedirs(p['before'], 0o700)
    for path in files:
        if os.path.lexists(path):
            shutil.copy2(path, os.path.join(p['before'], copy_name(path)), follow_symlinks=False)
    saves, restores = ruleset_plan(rulesets, p['before'])
    for argv, path, prefix in saves:
        rc, out, err = run(argv)
        if rc != 0:
            raise OSError('%s failed (rc %s): %s' % (' '.join(argv), rc, (err or out).strip()))
        _write(path, prefix + out)
    for stale in (p['confirmed'], p['rolled_back'], p['log']):
        if os.path.exists(stale):
            os.unlink(stale)
    text = script(name, token, delay, state_dir, files, restores + list(commands), shell)
    _write(p['script'], text, 0o700)
    _write(p['armed'], token + '\n')
    if start:
        with open(os.devnull, 'r+b') as null:
            subprocess.Popen(['sh', '-c', text], stdin=null, stdout=null, stderr=null, close_fds=True,
                             start_new_session=True, cwd='/')
    return token, text


def confirm(state_dir, name):
    """Disarm after the check passed. Returns (changed, error): error when the timer acted already."""
    p = paths(state_dir, name)
    token = _read(p['armed'])
    if not token:
        acted = _read(p['rolled_back'])
        if acted:
            return False, 'the rollback timer of %s acted already (%s): the change was undone' % (name, acted)
        return False, None
    os.unlink(p['armed'])
    _write(p['confirmed'], '%s %s\n' % (datetime.datetime.now().strftime('%Y-%m-%dT%H:%M:%S'), token))
    return True, None


def cancel(state_dir, name):
    """Disarm without confirming (the role undoes the change itself). Returns changed."""
    p = paths(state_dir, name)
    if os.path.exists(p['armed']):
        os.unlink(p['armed'])
        return True
    return False


def forget(state_dir, name):
    """Remove everything of the guard (after the role is back to stock). Returns changed."""
    p = paths(state_dir, name)
    changed = cancel(state_dir, name)
    for key in ('script', 'confirmed', 'rolled_back', 'log'):
        if os.path.exists(p[key]):
            os.unlink(p[key])
            changed = True
    if os.path.isdir(p['before']):
        shutil.rmtree(p['before'])
        changed = True
    return changed
