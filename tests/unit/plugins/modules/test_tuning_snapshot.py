# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json
import os

import pytest

from ansible.module_utils.testing import patch_module_args

from ansible_collections.perflab.network.plugins.modules import tuning_snapshot


def run_module(args, capsys, check_mode=False, diff=False):
    args = dict(args)
    if check_mode:
        args['_ansible_check_mode'] = True
    if diff:
        args['_ansible_diff'] = True
    with patch_module_args(args):
        with pytest.raises(SystemExit):
            tuning_snapshot.main()
    return json.loads(capsys.readouterr().out)


def test_record_restore_forget(tmp_path, capsys):
    snap = str(tmp_path / 'var' / 'mtu' / 'stock.json')
    present = tmp_path / 'interfaces.d' / '90-perflab-mtu'
    absent = tmp_path / 'netplan' / '90-perflab-mtu.yaml'
    present.parent.mkdir()
    present.write_text('# stock\n')
    args = {'snapshot': snap, 'role': 'mtu', 'files': [str(present), str(absent)], 'values': {'mtu:data0': 1500}}
    result = run_module(args, capsys)
    assert result['changed'] is True
    assert result['recorded'] == {'files': [str(present), str(absent)], 'values': ['mtu:data0']}
    assert result['snapshot']['files'][str(absent)] == {'exists': False}
    assert 'content' not in result['snapshot']['files'][str(present)]
    assert result['snapshot']['role'] == 'mtu'
    # add-only: the same call again records nothing; a new value is not taken
    again = run_module(dict(args, values={'mtu:data0': 9000}), capsys)
    assert again['changed'] is False and again['snapshot']['values'] == {'mtu:data0': 1500}

    present.write_text('iface data0 inet manual\n    mtu 9000\n')
    absent.parent.mkdir()
    absent.write_text('network: {}\n')
    check = run_module({'snapshot': snap, 'state': 'restored'}, capsys, check_mode=True)
    assert check['changed'] is True and absent.exists()
    restored = run_module({'snapshot': snap, 'state': 'restored'}, capsys, diff=True)
    assert sorted(restored['restored']) == ['removed %s' % absent, 'restored %s' % present]
    assert present.read_text() == '# stock\n' and not absent.exists()
    assert run_module({'snapshot': snap, 'state': 'restored'}, capsys)['changed'] is False

    query = run_module({'snapshot': snap, 'state': 'query'}, capsys)
    assert query['exists'] is True and query['changed'] is False
    gone = run_module({'snapshot': snap, 'state': 'absent'}, capsys)
    assert gone['changed'] is True and gone['exists'] is False
    # the directories made for the snapshot go too
    assert not os.path.exists(str(tmp_path / 'var'))
    assert run_module({'snapshot': snap, 'state': 'absent'}, capsys)['changed'] is False
    assert run_module({'snapshot': snap, 'state': 'query'}, capsys)['snapshot'] is None


def test_check_mode_records_nothing(tmp_path, capsys):
    snap = tmp_path / 'stock.json'
    result = run_module({'snapshot': str(snap), 'values': {'tuned_profile': 'virtual-guest'}}, capsys, check_mode=True)
    assert result['changed'] is True and not snap.exists()


def test_restoring_a_file_that_was_never_recorded_fails(tmp_path, capsys):
    snap = str(tmp_path / 'stock.json')
    run_module({'snapshot': snap, 'values': {'a': 1}}, capsys)
    result = run_module({'snapshot': snap, 'state': 'restored', 'files': ['/etc/hostname']}, capsys)
    assert result['failed'] is True and result['msg'] == '/etc/hostname is not recorded in the snapshot %s' % snap
