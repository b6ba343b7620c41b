# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""bench_lock: take, refuse, take over and give back the run lock (a real file in a temporary directory)."""
from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json

import pytest

from ansible.module_utils.testing import patch_module_args

from ansible_collections.perflab.network.plugins.modules import bench_lock

A = {'controller': 'ctl', 'pid': 11, 'token': 'ctl:11:5'}
B = {'controller': 'ctl', 'pid': 12, 'token': 'ctl:12:6'}


def run(args, capsys, check_mode=False):
    args = dict(args)
    if check_mode:
        args['_ansible_check_mode'] = True
    with patch_module_args(args):
        with pytest.raises(SystemExit):
            bench_lock.main()
    return json.loads(capsys.readouterr().out)


def test_take_refuse_take_over_release(tmp_path, capsys):
    path = str(tmp_path / 'run' / 'run.lock')
    assert run({'run_id': 'a', 'owner': A, 'path': path}, capsys, check_mode=True)['acquired'] is True
    assert not (tmp_path / 'run').exists()
    first = run({'run_id': 'a', 'owner': A, 'path': path, 'hold': 60}, capsys)
    assert (first['changed'], first['acquired'], first['holder']['run_id']) == (True, True, 'a')
    again = run({'run_id': 'a', 'owner': A, 'path': path}, capsys)
    assert (again['changed'], again['acquired']) == (False, True)
    other = run({'run_id': 'b', 'owner': B, 'path': path}, capsys)
    assert (other['changed'], other['acquired'], other['holder']['token']) == (False, False, 'ctl:11:5')
    assert 'failed' not in other
    assert run({'state': 'released', 'owner': B, 'path': path}, capsys)['changed'] is False
    taken = run({'run_id': 'b', 'owner': B, 'path': path, 'replace': 'ctl:11:5'}, capsys)
    assert (taken['changed'], taken['acquired'], taken['holder']['run_id']) == (True, True, 'b')
    gone = run({'state': 'released', 'owner': B, 'path': path}, capsys)
    assert gone['changed'] is True and not (tmp_path / 'run' / 'run.lock').exists()


def test_a_run_id_is_needed_to_take_it(tmp_path, capsys):
    result = run({'owner': A, 'path': str(tmp_path / 'l')}, capsys)
    assert result['failed'] and 'run_id' in result['msg']
