# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The action plugins' one ActionModule for the modules with a Windows side (controller code: it imports
Ansible's action classes, which module_utils may not)."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

from ansible.plugins.action import ActionBase
from ansible.plugins.action.normal import ActionModule as NormalAction

from ansible_collections.perflab.network.plugins.module_utils.bench.win_action import executor, is_windows


def action_module(windows_side):
    """The ActionModule class of a module with a Windows side: on Linux and FreeBSD the module runs as Ansible's
    normal action runs it; on a Windows host the task's result is ``windows_side(args, check_mode, execute,
    task_vars)`` (``execute``: ``win_action.executor``)."""

    class ActionModule(NormalAction):
        def run(self, tmp=None, task_vars=None):
            if not is_windows(self._connection):
                return super(ActionModule, self).run(tmp, task_vars)
            result = ActionBase.run(self, tmp, task_vars)
            result.update(windows_side(dict(self._task.args), self._play_context.check_mode,
                                       executor(self._execute_module, task_vars), task_vars))
            result.setdefault('changed', False)
            return result
    return ActionModule
