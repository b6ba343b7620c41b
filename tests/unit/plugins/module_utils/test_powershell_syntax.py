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

from ansible_collections.perflab.network.plugins.module_utils.host import windows as win

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


FIREWALL_PS1 = __import__('pathlib').Path(__file__).resolve().parents[4] / 'roles' / 'firewall' / 'files' / 'windows-firewall.ps1'


def test_the_firewall_roles_script_parses_and_touches_only_its_own_rules():
    """Issue 29 point 14 on Windows: a rule is the role's only in its group AND with its description;
    every rule the script lists (to keep, replace or remove) comes from Get-OurRule."""
    text = FIREWALL_PS1.read_text()
    assert errors_of(text) == []
    listing = [line.strip() for line in text.splitlines() if 'Get-NetFirewallRule' in line]
    assert listing == ['@(Get-NetFirewallRule -Group $Group -ErrorAction SilentlyContinue | '
                       'Where-Object { $_.Description -eq $Marker })'], listing
    assert 'New-NetFirewallRule -DisplayName $rule.name -Group $Group -Description $Marker' in text
    assert [line.strip() for line in text.splitlines() if 'Remove-NetFirewallRule' in line and '|' in line] == [
        '$existing | Remove-NetFirewallRule', '$existing | Remove-NetFirewallRule']
    assert text.count('(Get-OurRule)') + text.count('= Get-OurRule') == 2
