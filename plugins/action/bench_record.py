# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""bench_record in the controller's worker process: the module is pure and runs on the controller anyway, and
starting it as a module (a Python interpreter and its imports) cost more than its work. The benchmark role
calls it two or three times per client and round: on a fleet of 32 hosts, 32 to 48 module starts a round."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import copy

from ansible.module_utils.common.arg_spec import ArgumentSpecValidator
from ansible.plugins.action import ActionBase

from ansible_collections.perflab.network.plugins.module_utils.plan import records as plan_records


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _requires_connection = False

    def run(self, tmp=None, task_vars=None):
        result = super(ActionModule, self).run(tmp, task_vars)
        validated = ArgumentSpecValidator(plan_records.finish_argument_spec()).validate(self._task.args)
        if validated.error_messages:
            result.update(failed=True, msg='bench_record: ' + '; '.join(validated.error_messages))
            return result
        # the records are the role's registered results: finish works on its own copies
        result.update(plan_records.finish_result(copy.deepcopy(validated.validated_parameters)))
        return result
