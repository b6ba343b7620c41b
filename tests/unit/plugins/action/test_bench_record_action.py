# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""bench_record's action plugin: the module's code in the controller's worker, the same result as the module, the
role's registered results left as they were, bad options refused as the module refuses them."""
from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import copy
from unittest import mock

from ansible_collections.perflab.network.plugins.action import bench_record
from ansible_collections.perflab.network.plugins.module_utils.plan import records as plan_records
from ansible_collections.perflab.network.plugins.module_utils.plan import suite

HOSTS = {'lab1': {'data_address': '10.0.1.11', 'data_interface': 'data0'},
         'lab2': {'data_address': '10.0.1.12', 'data_interface': 'data0', 'peer': 'lab1'}}


def run(args):
    task = mock.MagicMock(args=args, async_val=0, action='perflab.network.bench_record')
    action = bench_record.ActionModule(task, mock.MagicMock(), mock.MagicMock(check_mode=False), None, None, None)
    return action.run(task_vars={})


def planned():
    pairs = suite.make_pairs(HOSTS, servers=['lab1'], clients=['lab2'])
    items, dummy = suite.build_plan(suite.expand_suite({'name': 'x', 'tests': [{'tool': 'iperf3', 'test': 'tcp_stream'}]}),
                                    pairs, {'lab2': 'Debian 12 stock'})
    for item in items:
        item.update(run_id='r1', suite='x')
    return items


def test_the_action_returns_what_the_module_returns_and_changes_no_argument():
    items = planned()
    ran = plan_records.planned_record(items[0], 'ok', '')
    results = [{'item': items[0], 'changed': True, 'perflab_result': [ran]}]
    args = {'results': results}
    before = copy.deepcopy(args)
    out = run(args)
    assert not out.get('failed'), out
    new, finished = plan_records.finish(results=copy.deepcopy(results))
    assert out['perflab_result'] == new == []
    assert out['perflab_finished'] == finished and len(finished) == 1
    assert args == before


def test_the_action_refuses_an_unknown_or_mistyped_option():
    out = run({'results': 'not a list of results', 'bogus': 1})
    assert out['failed'] and out['msg'].startswith('bench_record: ') and 'bogus' in out['msg']


def test_a_record_that_lacks_what_a_record_needs_fails_with_the_modules_message():
    out = plan_records.finish_result({'items': [{'no': 'test'}], 'reason': 'x', 'done': [], 'records': [], 'servers': [],
                                      'server_error': None, 'results': [], 'sampled': {}, 'amend': False})
    assert out['failed'] and out['msg'].startswith('bench_record: an item or record lacks what a record needs')
