# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
name: fault_witness
type: aggregate
short_description: Test-only witness of every perflab_result a run reports (tests/integration/test_battery_faults.py)
description:
  - Writes one JSON line per C(perflab_result) record that a task or a loop item returns, and one line per
    started task, to the file named by E(PERFLAB_WITNESS), flushed at once. An independent account of what
    the run reported, compared with the results callback's JSON lines to count lost records.
version_added: 0.1.0
author: perflab.network contributors (@perflab)
"""

import json
import os

from ansible.plugins.callback import CallbackBase


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = 'aggregate'
    CALLBACK_NAME = 'fault_witness'
    CALLBACK_NEEDS_ENABLED = True

    def _write(self, entry):
        path = os.environ.get('PERFLAB_WITNESS')
        if not path:
            return
        with open(path, 'a') as handle:
            handle.write(json.dumps(entry, sort_keys=True) + '\n')
            handle.flush()
            os.fsync(handle.fileno())

    def _collect(self, result, event):
        data = getattr(result, '_result', None)
        if not isinstance(data, dict):
            return
        host = result._host.get_name() if getattr(result, '_host', None) else None
        records = data.get('perflab_result')
        if isinstance(records, dict):
            records = [records]
        for record in records if isinstance(records, list) else []:
            if isinstance(record, dict) and record.get('schema') == 'perflab.result/2':
                self._write({'event': event, 'host': host, 'run_id': record.get('run_id'),
                             'test_id': record.get('test_id'), 'repetition': record.get('repetition'),
                             'started_at': record.get('started_at'), 'status': record.get('status'),
                             'error': record.get('error')})

    def v2_playbook_on_task_start(self, task, is_conditional):
        self._write({'event': 'task', 'name': task.get_name()})

    def v2_runner_on_ok(self, result):
        self._collect(result, 'ok')

    def v2_runner_on_failed(self, result, ignore_errors=False):
        self._collect(result, 'failed')

    def v2_runner_item_on_ok(self, result):
        self._collect(result, 'item_ok')

    def v2_runner_item_on_failed(self, result):
        self._collect(result, 'item_failed')
        data = getattr(result, '_result', None) or {}
        if data.get('unreachable'):
            # one item of a loop lost the connection: Ansible reports the task as failed (and,
            # with ignore_errors, ignored) when other items got through, but the host was unreachable
            host = result._host.get_name() if getattr(result, '_host', None) else None
            self._write({'event': 'unreachable', 'host': host, 'msg': data.get('msg')})

    def v2_runner_on_unreachable(self, result):
        host = result._host.get_name() if getattr(result, '_host', None) else None
        data = getattr(result, '_result', None) or {}
        msg = data.get('msg')
        items = [item for item in data.get('results') or [] if isinstance(item, dict) and item.get('unreachable')]
        if items:   # a loop: the item that lost the connection says why
            msg = items[-1].get('msg') or msg
        self._write({'event': 'unreachable', 'host': host, 'msg': msg})
