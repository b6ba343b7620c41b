# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The one rule for a string that becomes part of a file name (run id, suite name), and the one
rule for a path the user gives (resolved once, against the directory the user ran from).

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
