# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Host safety in one place (roles/host_safety): no role reads another role's private (__) variables
or includes another role's task files, and the management interface is found only through
host_safety's detect (no role runs host_network_info, Get-NetIPAddress or matches addresses in Jinja)."""
from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os
import re

import pytest
import yaml

from ansible_collections.perflab.network.plugins.module_utils.host import firewall_owned

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', '..'))
ROLES = sorted(os.listdir(os.path.join(ROOT, 'roles')))


def task_files(role):
    base = os.path.join(ROOT, 'roles', role, 'tasks')
    for name in sorted(os.listdir(base)):
        with open(os.path.join(base, name)) as handle:
            yield name, handle.read()


@pytest.mark.parametrize('role', ROLES)
def test_no_role_reads_another_roles_private_variables(role):
    others = [r for r in ROLES if r != role]
    found = []
    for name, text in task_files(role):
        for other in others:
            if re.search(r'\b__%s_' % other, text):
                found.append('%s: __%s_' % (name, other))
        for other in re.findall(r'name: perflab\.network\.(\w+)\s*\n\s*tasks_from', text):
            if other not in (role, 'host_safety'):
                found.append('%s: includes tasks of %s' % (name, other))
    assert not found, 'roles/%s: %s' % (role, '; '.join(found))


@pytest.mark.parametrize('role', [r for r in ROLES if r != 'host_safety'])
def test_management_interface_only_through_detect(role):
    for name, text in task_files(role):
        assert 'perflab.network.host_network_info' not in text, 'roles/%s/tasks/%s runs host_network_info' % (role, name)
        assert 'Get-NetIPAddress' not in text, 'roles/%s/tasks/%s: Windows detection of its own' % (role, name)
        assert not re.search(r"selectattr\('ipv4", text), 'roles/%s/tasks/%s: address matching in Jinja' % (role, name)


def test_every_entry_point_has_its_spec_and_tasks():
    with open(os.path.join(ROOT, 'roles', 'host_safety', 'meta', 'argument_specs.yml')) as handle:
        specs = yaml.safe_load(handle)['argument_specs']
    tasks = {name[:-4] for name, _text in task_files('host_safety')}
    assert set(specs) == tasks == {'detect', 'guard_start', 'guard_confirm', 'guard_recover', 'check_connection', 'snapshot'}
    # what each task file reads of the public interface is declared in its entry point's spec
    for name, text in task_files('host_safety'):
        used = set(re.findall(r'\b(host_safety_(?:guard|detect|check|snapshot)_\w+)', text)) - {'host_safety_network'}
        declared = set(specs[name[:-4]]['options'])
        if name == 'guard_confirm.yml':
            declared |= {'host_safety_check_timeout', 'host_safety_check_what'}
        assert used <= declared, '%s reads %s outside its spec' % (name, sorted(used - declared))


def test_firewall_management_port_is_found_in_ranges_and_protocols():
    entries = [{'port': 5201, 'protocol': 'tcp'}, {'port': 20, 'end_port': 30, 'protocol': 'tcp'},
               {'port': 22, 'protocol': 'udp'}, {'peer': '10.0.0.2', 'port': 22, 'end_port': None, 'protocol': 'tcp'}]
    assert firewall_owned.covering(entries, 22) == [entries[1], entries[3]]
    assert firewall_owned.covering(entries, '22', 'udp') == [entries[2]]
    assert firewall_owned.covering(entries, 2222) == []
    assert firewall_owned.covering([], 22) == []


@pytest.mark.parametrize('role', [r for r in ROLES if r != 'host_safety'])
def test_windows_snapshots_only_through_the_one_script(role):
    for name, text in task_files(role):
        assert 'ConvertTo-Json' not in text, 'roles/%s/tasks/%s writes a snapshot of its own' % (role, name)


def test_the_snapshot_script_takes_what_the_entry_point_passes():
    base = os.path.join(ROOT, 'roles', 'host_safety')
    with open(os.path.join(base, 'files', 'snapshot-windows.ps1')) as handle:
        script = handle.read()
    with open(os.path.join(base, 'tasks', 'snapshot.yml')) as handle:
        task = yaml.safe_load(handle)[0]['ansible.windows.win_powershell']
    params = re.search(r'^param\((.*)\)$', script, re.M).group(1)
    assert re.findall(r'\$(\w+)', params) == list(task['parameters']) == ['Path', 'Values', 'Header']
    # add-only: an existing key is never overwritten, and nothing is written in check mode
    assert 'if (-not $stock.Contains($key))' in script and 'if (-not $Ansible.CheckMode)' in script
