# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The one rule for a string that becomes part of a file name (run id, suite name), and the one
rule for a path the user gives (resolved once, against the directory the user ran from, and never a
system directory: ``system_path_problem``).

The study playbooks (filter ``perflab.network.file_name_problem``), ``benchmark_plan`` and the
results callback all ask this file, so a name one accepts every other accepts too.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os
import re

# 64: <run_id>.jsonl, its fallback in $TMPDIR, <run_id>.xlsx and the exports all fit NAME_MAX (255)
NAME_MAX = 64
NAME_RE = re.compile(r'^[A-Za-z0-9][A-Za-z0-9_.-]{0,%d}$' % (NAME_MAX - 1))
NAME_RULE = '1 to %d letters, digits, _ . -, starting with a letter or a digit' % NAME_MAX


def name_problem(field, value):
    """None when ``value`` may be part of a file name; else one message naming ``field`` and the rule only."""
    text = value if isinstance(value, str) else ('' if value is None else str(value))
    if NAME_RE.match(text):
        return None
    shown = text if len(text) <= 40 else '%s... (%d characters)' % (text[:40], len(text))
    return '%s must be %s (it names files), got %r' % (field, NAME_RULE, shown)


def user_path(path, cwd=None):
    """``path`` made absolute once: ``~`` expanded, a relative path against the directory the user ran from."""
    if path in (None, ''):
        return path
    return os.path.normpath(os.path.join(cwd or os.getcwd(), os.path.expanduser(str(path))))


# Directories the system owns: results written there would mix with (or replace) system files. A user
# path is refused when it is one of these or lies below one of them, after following symbolic links
# (/lib -> /usr/lib on a merged-/usr system, a link in the user's folder pointing into /etc).
SYSTEM_TREES = ('/bin', '/boot', '/dev', '/etc', '/lib', '/lib32', '/lib64', '/libx32', '/proc', '/run',
                '/sbin', '/sys', '/usr', '/var/lib', '/var/cache', '/var/log', '/var/spool', '/var/run')
# Directories the system owns themselves, though a user's folder below them is fine (/home/me/results)
SYSTEM_ROOTS = ('/', '/home', '/media', '/mnt', '/opt', '/srv', '/var')
SYSTEM_RULE = ('not a system directory: not / %s, nor anything below %s'
               % (' '.join(r for r in SYSTEM_ROOTS if r != '/'), ' '.join(SYSTEM_TREES)))


def system_path_problem(field, path):
    """None when the user path ``path`` may hold files we write; else one message naming ``field`` and the rule."""
    if path in (None, ''):
        return None
    given = user_path(path)
    real = os.path.realpath(given)
    for candidate in (given, real):
        inside = [tree for tree in SYSTEM_TREES if candidate == tree or candidate.startswith(tree + '/')]
        if inside or candidate in SYSTEM_ROOTS:
            shown = given if given == real else '%s (%s)' % (given, real)
            return '%s must be %s; got %s' % (field, SYSTEM_RULE, shown)
    return None
