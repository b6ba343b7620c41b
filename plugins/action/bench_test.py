# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""bench_test: the module on Linux and FreeBSD; on a Windows host the test runs through win_powershell,
parsed on the controller by the same runner and parsers."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

from ansible.module_utils.common.arg_spec import ArgumentSpecValidator

from ansible_collections.perflab.network.plugins.module_utils.tools import registry
from ansible_collections.perflab.network.plugins.module_utils.bench import runner
from ansible_collections.perflab.network.plugins.module_utils.bench import win_action
from ansible_collections.perflab.network.plugins.plugin_utils.windows_action import action_module
from ansible_collections.perflab.network.plugins.module_utils.host.windows import WindowsHost


def run_windows_test(args, check_mode, execute):
    """The task's result: bench_test's arguments checked, the test run through ``execute``."""
    validated = ArgumentSpecValidator(runner.bench_test_argument_spec(), **runner.BENCH_TEST_RULES).validate(args)
    if validated.error_messages:
        return {'failed': True, 'msg': '; '.join(validated.error_messages)}
    params, errors = runner.bench_test_arguments(validated.validated_parameters)
    if errors:
        return {'failed': True, 'msg': '; '.join(errors)}
    tool = registry.get(params['tool'])
    tool_params, errors = runner.bench_test_params(tool, params)
    annotate, auto_errors = runner.bench_test_annotator(params)
    errors += auto_errors
    if errors:
        return {'failed': True, 'msg': '; '.join(errors)}
    if (tool_params.get('processes') or 1) > 1:
        return {'failed': True, 'msg': 'processes > 1 is not supported on Windows hosts (one client process per '
                                       'test): give this test processes 1'}
    shim = win_action.ModuleShim(tool_params, check_mode)
    try:
        runner.run_test(shim, tool, tool_params, result_key='perflab_held' if params['hold'] else 'perflab_result',
                        host=WindowsHost(execute), annotate=annotate)
    except win_action.ActionExit as done:
        return done.result
    except win_action.PowerShellError as exc:
        return {'failed': True, 'msg': 'bench_test (Windows): %s' % exc}
    return {'failed': True, 'msg': 'bench_test (Windows): the runner returned no result'}


# the module as always on Linux and FreeBSD (Ansible's normal action); on a Windows host, the above
ActionModule = action_module(lambda args, check_mode, execute, task_vars: run_windows_test(args, check_mode, execute))
