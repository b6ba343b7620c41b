# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""benchmark_plan: a fleet's first plan and its second one after the preflight left a host and a link out."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json

import pytest
import yaml

from ansible.module_utils.testing import patch_module_args

from ansible_collections.perflab.network.plugins.modules import benchmark_plan

HOSTS = ['lab1', 'lab2', 'lab3', 'lab4', 'lab5']


def run_module(args, capsys):
    with patch_module_args(args):
        with pytest.raises(SystemExit):
            benchmark_plan.main()
    return json.loads(capsys.readouterr().out)


def plan_args(tmp_path, **more):
    suite = tmp_path / 'fleet.yml'
    suite.write_text(yaml.safe_dump({'name': 'fleet', 'defaults': {'duration': 1, 'repetitions': 1},
                                     'tests': [{'tool': 'iperf3', 'test': 'tcp_stream'}]}))
    hosts = dict((h, {'data_address': '10.9.1.%d' % (i + 1), 'data_interface': 'data0', 'os_family': 'Debian'})
                 for i, h in enumerate(HOSTS))
    return dict(dict(suite=str(suite), hosts=hosts, inventory=HOSTS, run_id='20261204T020000Z-ab12',
                     results_dir=str(tmp_path), fleet={'schedule': 'mesh'},
                     labels=dict((h, 'Debian 12 stock') for h in HOSTS)), **more)


def pairs_of(result):
    return sorted((t['client'], t['server']) for t in result['fleet']['tests'])


def test_the_second_plan_leaves_out_and_records_only_what_the_preflight_found(tmp_path, capsys):
    first = run_module(plan_args(tmp_path, failed_hosts={'lab5': ''}), capsys)
    assert len(first['fleet']['tests']) == 12 and first['skipped_tests'] == 8 and len(first['perflab_result']) == 8
    # the results callback stored the first plan's records: the second plan reads them back as the run's
    (tmp_path / (first['run_id'] + '.jsonl')).write_text(''.join(json.dumps(r) + '\n' for r in first['perflab_result']))
    left_out = {'hosts': {'lab2': 'failed the preflight: its data path failed with 3 of its 3 peers (lab1, lab3, lab4); x'},
                'pairs': [{'client': 'lab3', 'server': 'lab4', 'reason': 'the preflight of lab3->lab4 failed: y'}]}
    second = run_module(plan_args(tmp_path, failed_hosts={'lab5': ''}, preflight_left_out=left_out), capsys)
    assert pairs_of(second) == [('lab1', 'lab3'), ('lab1', 'lab4'), ('lab3', 'lab1'), ('lab4', 'lab1'), ('lab4', 'lab3')]
    assert sorted((p['client'], p['server']) for p in second['pairs']) == pairs_of(second)
    # lab2's 6 tests with lab1, lab3, lab4 and the one link: the first plan recorded lab5's
    records = second['perflab_result']
    assert len(records) == 7 and all(r['status'] == 'skipped' for r in records)
    assert sorted((r['client']['name'], r['server']['name']) for r in records) == \
        [('lab1', 'lab2'), ('lab2', 'lab1'), ('lab2', 'lab3'), ('lab2', 'lab4'), ('lab3', 'lab2'), ('lab3', 'lab4'),
         ('lab4', 'lab2')]
    assert [r['error'] for r in records if r['client']['name'] == 'lab3' and r['server']['name'] == 'lab4'] == \
        ['the preflight of lab3->lab4 failed: y']
    assert all(r['error'] == 'lab2 left out of the fleet: ' + left_out['hosts']['lab2'] for r in records
               if 'lab2' in (r['client']['name'], r['server']['name']))
    # every skipped test of both plans counted: 8 of lab5, 6 more of lab2, the link
    assert second['skipped_tests'] == 15
    assert 'skipped lab3->lab4: the preflight of lab3->lab4 failed: y' in second['summary']


def test_a_second_plan_is_a_fleets_only(tmp_path, capsys):
    args = plan_args(tmp_path, preflight_left_out={'hosts': {'lab2': 'x'}})
    del args['fleet']
    result = run_module(args, capsys)
    assert result['failed'] and "preflight_left_out is a fleet's second plan" in result['msg']
