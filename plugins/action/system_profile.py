# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""system_profile: the module on Linux and FreeBSD; on a Windows host, perflab.system/1 from its CIM classes."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

from ansible.module_utils.common.arg_spec import ArgumentSpecValidator

from ansible_collections.perflab.network.plugins.module_utils.host import windows as win
from ansible_collections.perflab.network.plugins.module_utils.host import process
from ansible_collections.perflab.network.plugins.module_utils.host import sysprofile
from ansible_collections.perflab.network.plugins.module_utils.bench import win_action
from ansible_collections.perflab.network.plugins.plugin_utils.windows_action import action_module
from ansible_collections.perflab.network.plugins.module_utils.core.record import new_run_id

SPEC = dict(interface=dict(type='str'), run_id=dict(type='str'), config=dict(type='str', default=''),
            host_name=dict(type='str'))


def profile(args, execute, inventory_name):
    validated = ArgumentSpecValidator(SPEC).validate(args)
    if validated.error_messages:
        return {'failed': True, 'msg': '; '.join(validated.error_messages)}
    params = validated.validated_parameters
    adapter = params.get('interface')
    if adapter is not None and not win.valid_adapter_name(adapter):
        return {'failed': True, 'msg': 'interface must be %s, got %r' % (win.ADAPTER_RULE, adapter)}
    try:
        found = execute(win.PROFILE_PS, {'Adapter': adapter or ''}).get('result') or {}
    except win_action.PowerShellError as exc:
        return {'failed': True, 'msg': 'system_profile (Windows): %s' % exc}
    collected = win.windows_table(win.split_sections(found.get('cim')), adapter, found.get('file_system'),
                                  found.get('mtu'))
    return {'changed': False, 'perflab_system': {
        'schema': sysprofile.SCHEMA, 'run_id': params.get('run_id') or new_run_id(), 'config': params.get('config') or '',
        'host': params.get('host_name') or inventory_name, 'collected_at': process.iso_utc(),
        'table': collected['table'], 'network': collected['network']}}


# the module as always on Linux and FreeBSD (Ansible's normal action); on a Windows host, the above
ActionModule = action_module(lambda args, check_mode, execute, task_vars: profile(args, execute, (task_vars or {}).get('inventory_hostname')))
