# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Every description in the plugins' DOCUMENTATION and RETURN is text: a list item with ": " in it is a mapping
to YAML, which ansible-doc refuses ("Expected string in description of ...") although the module still runs."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import glob
import os
import re

import yaml

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', '..', '..'))


def walk(where, node, problems):
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ('description', 'short_description', 'notes'):
                items = value if isinstance(value, list) else [value]
                for index, item in enumerate(items):
                    if not isinstance(item, str):
                        problems.append('%s: %s item %d is %s, not text (quote it, or avoid ": ")'
                                        % (where, key, index, type(item).__name__))
            else:
                walk('%s.%s' % (where, key), value, problems)
    elif isinstance(node, list):
        for index, item in enumerate(node):
            walk('%s[%d]' % (where, index), item, problems)


def test_every_description_is_text():
    problems = []
    paths = glob.glob(os.path.join(ROOT, 'plugins', '*', '*.py'))
    for path in sorted(paths):
        with open(path) as handle:
            text = handle.read()
        for block in ('DOCUMENTATION', 'RETURN'):
            match = re.search(r"^%s = r?'''(.*?)'''" % block, text, flags=re.S | re.M)
            if match:
                walk('%s %s' % (os.path.relpath(path, ROOT), block), yaml.safe_load(match.group(1)), problems)
    assert not problems, '\n'.join(problems)
