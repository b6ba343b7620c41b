# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The PowerShell the Windows action plugins send parses (tree-sitter's PowerShell grammar).

This is a syntax check with tree-sitter-powershell (requirements-dev.txt), not PowerShell's own
parser: no PowerShell runs here. It catches unbalanced braces, broken strings and the like.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import pytest

from ansible_collections.perflab.network.plugins.module_utils import host_windows as win

tree_sitter = pytest.importorskip('tree_sitter', reason='tree-sitter is in requirements-dev.txt')
grammar = pytest.importorskip('tree_sitter_powershell', reason='tree-sitter-powershell is in requirements-dev.txt')

SCRIPTS = sorted(name for name in dir(win) if name.endswith('_PS'))


def errors_of(text):
    parser = tree_sitter.Parser(tree_sitter.Language(grammar.language()))
    tree = parser.parse(text.encode('utf-8'))
    found = []

    def walk(node):
        if node.type == 'ERROR' or node.is_missing:
            found.append('%s at line %d: %r' % (node.type if not node.is_missing else 'missing ' + node.type,
                                                node.start_point[0] + 1, node.text[:60]))
        for child in node.children:
            walk(child)
    walk(tree.root_node)
    return found


def test_every_script_is_checked():
    assert SCRIPTS == ['ADAPTERS_PS', 'PIDFILES_PS', 'PROFILE_PS', 'RUN_PS', 'SERVER_START_PS', 'SERVER_STOP_PS',
                       'WHICH_PS']


@pytest.mark.parametrize('name', SCRIPTS)
def test_script_parses(name):
    assert errors_of(getattr(win, name)) == []


def test_the_check_finds_a_broken_script():
    assert errors_of(win.RUN_PS.replace('$Ansible.Result = @{', '$Ansible.Result = @{ (', 1))
