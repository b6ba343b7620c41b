# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""What the action plugins of bench_test, bench_server, bench_preflight and system_profile share: running a script through win_powershell, and a
module stand-in so that the runner (which exits a module) can run inside an action plugin."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

WIN_POWERSHELL = 'ansible.windows.win_powershell'


class ActionExit(Exception):
    """Raised by ModuleShim.exit_json/fail_json: the action plugin returns ``result``."""

    def __init__(self, result):
        Exception.__init__(self, result.get('msg') or 'done')
        self.result = result


class ModuleShim(object):
    """The part of AnsibleModule the runner uses (check_mode, params, exit_json, fail_json)."""

    def __init__(self, params, check_mode):
        self.params = params
        self.check_mode = check_mode

    @staticmethod
    def exit_json(**result):
        raise ActionExit(dict(result, failed=False))

    @staticmethod
    def fail_json(msg, **result):
        raise ActionExit(dict(result, failed=True, msg=msg))


class PowerShellError(Exception):
    pass


def executor(execute_module, task_vars):
    """``execute(script, parameters)`` -> win_powershell's result; PowerShellError when the script failed.

    ``execute_module``: the action plugin's ``_execute_module``.
    """
    def execute(script, parameters):
        result = execute_module(module_name=WIN_POWERSHELL, module_args={'script': script, 'parameters': parameters},
                                task_vars=task_vars)
        if result.get('failed') or result.get('error'):
            errors = [str(item.get('exception', {}).get('message') or item.get('output') or item)
                      for item in result.get('error') or []]
            raise PowerShellError(result.get('msg') or '; '.join(errors) or 'win_powershell failed')
        return result
    return execute


def is_windows(connection):
    """True when the task's connection speaks PowerShell (a Windows host: winrm, psrp, or ssh to PowerShell)."""
    return getattr(getattr(connection, '_shell', None), 'SHELL_FAMILY', '') == 'powershell'
