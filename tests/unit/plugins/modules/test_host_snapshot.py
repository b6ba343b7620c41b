# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json
import os

import pytest

from ansible.module_utils.testing import patch_module_args

from ansible_collections.perflab.network.plugins.modules import host_snapshot, tuning_snapshot


def run_module(args, capsys, check_mode=False, diff=False, module=host_snapshot):
    args = dict(args)
    if check_mode:
        args['_ansible_check_mode'] = True
    if diff:
        args['_ansible_diff'] = True
    with patch_module_args(args):
        with pytest.raises(SystemExit):
            module.main()
    return json.loads(capsys.readouterr().out)


def test_restore_removes_the_snapshot_only_when_everything_is_back(tmp_path, capsys):
    snap = str(tmp_path / 'mtu' / 'stock.json')
    conf = tmp_path / 'ifcfg-data0'
    conf.write_text('MTU=1500\n')
    base = {'name': 'mtu', 'snapshot': snap}
    run_module(dict(base, files=[str(conf)], values={'mtu:data0': 1500, 'stack': 'ifcfg'}), capsys)
    conf.write_text('MTU=9000\n')

    # files back, the MTUs not yet: partial, and it says so
    partial = run_module(dict(base, state='restored'), capsys, diff=True)
    assert partial['changed'] is True and partial['restored'] == ['restored %s' % conf]
    assert partial['exists'] is True and partial['complete'] is False
    assert partial['left'] == {'values': ['mtu:data0', 'stack']}
    assert partial['msg'].startswith('partial restore: %s kept' % snap)
    assert conf.read_text() == 'MTU=1500\n'
    assert json.load(open(snap))['files'] == {}

    # check mode: would be complete, nothing written
    check = run_module(dict(base, state='restored', forget={'values': ['*']}), capsys, check_mode=True)
    assert check['changed'] is True and check['complete'] is True and os.path.exists(snap)

    # one MTU put back by the role: still partial
    one = run_module(dict(base, state='restored', forget={'values': ['mtu:data0']}), capsys)
    assert one['forgotten'] == ['values:mtu:data0'] and one['left'] == {'values': ['stack']}
    done = run_module(dict(base, state='restored', forget={'values': ['*']}), capsys, diff=True)
    assert done['complete'] is True and done['exists'] is False and done['left'] == {}
    assert done['msg'] == 'restored: %s removed (the host is stock again)' % snap
    assert not os.path.exists(str(tmp_path / 'mtu'))
    again = run_module(dict(base, state='restored', forget={'values': ['*']}), capsys)
    assert again['changed'] is False and again['complete'] is True


def test_records_replace_and_an_emptied_snapshot_goes(tmp_path, capsys):
    snap = tmp_path / 'stock.json'
    base = {'name': 'firewall', 'snapshot': str(snap)}
    first = run_module(dict(base, records={'ufw-rules': [{'to_port': '5201'}]}), capsys, diff=True)
    assert first['changed'] is True and first['recorded']['records'] == ['ufw-rules']
    second = run_module(dict(base, records={'ufw-rules': [{'to_port': '5202'}]}), capsys)
    assert second['snapshot']['records'] == {'ufw-rules': [{'to_port': '5202'}]}
    same = run_module(dict(base, records={'ufw-rules': [{'to_port': '5202'}]}), capsys)
    assert same['changed'] is False
    gone = run_module(dict(base, records={'ufw-rules': None}), capsys)
    assert gone['changed'] is True and gone['exists'] is False and not snap.exists()
    nothing = run_module(dict(base, records={'ufw-rules': None}), capsys)
    assert nothing['changed'] is False and nothing['exists'] is False


def test_old_firewall_files_are_adopted_and_restored(tmp_path, capsys):
    state = tmp_path / 'firewall'
    state.mkdir()
    (state / 'ufw.state').write_text('active\n')
    (state / 'ufw-rules.json').write_text('[{"from_ip": "10.249.0.2", "proto": "tcp", "to_port": "5201"}]\n')
    legacy = [{'path': str(state / 'ufw.state'), 'section': 'values', 'key': 'ufw'},
              {'path': str(state / 'ufw-rules.json'), 'section': 'records', 'key': 'ufw-rules', 'format': 'json'}]
    base = {'name': 'firewall', 'snapshot': str(state / 'stock.json'), 'legacy': legacy}
    query = run_module(dict(base, state='query'), capsys)
    # query reads the old files and changes nothing
    assert query['changed'] is False and query['exists'] is True
    assert query['snapshot']['values'] == {'ufw': 'active'} and query['adopted'] == ['values:ufw', 'records:ufw-rules']
    assert sorted(os.listdir(str(state))) == ['ufw-rules.json', 'ufw.state']
    check = run_module(dict(base, records={'ufw-rules': []}), capsys, check_mode=True)
    assert check['changed'] is True and sorted(os.listdir(str(state))) == ['ufw-rules.json', 'ufw.state']
    # written once: the old files go, the snapshot holds them
    present = run_module(base, capsys)
    assert present['changed'] is True and os.listdir(str(state)) == ['stock.json']
    assert present['snapshot']['records']['ufw-rules'][0]['to_port'] == '5201'
    done = run_module(dict(base, state='restored', forget={'values': ['ufw'], 'records': ['*']}), capsys)
    assert done['complete'] is True and os.listdir(str(state)) == []


def test_old_bonding_copies_restore_the_member_files(tmp_path, capsys):
    scripts = tmp_path / 'network-scripts'
    scripts.mkdir()
    kept = tmp_path / 'bonding' / 'ifcfg-bond0'
    kept.mkdir(parents=True)
    (kept / 'ifcfg-m0.orig').write_text('DEVICE=m0\nONBOOT=yes\n')
    (kept / 'ifcfg-m1.none').write_text('')
    (scripts / 'ifcfg-m0').write_text('DEVICE=m0\nMASTER=bond0\n')
    (scripts / 'ifcfg-m1').write_text('DEVICE=m1\nMASTER=bond0\n')
    legacy = [{'path': str(kept / 'ifcfg-m0.orig'), 'section': 'files', 'key': str(scripts / 'ifcfg-m0'),
               'format': 'file', 'mode': '0644'},
              {'path': str(kept / 'ifcfg-m1.none'), 'section': 'files', 'key': str(scripts / 'ifcfg-m1'),
               'format': 'none'}]
    result = run_module({'name': 'bonding', 'snapshot': str(tmp_path / 'bonding' / 'bond0.json'),
                         'state': 'restored', 'legacy': legacy}, capsys)
    assert result['complete'] is True and result['adopted'] == ['files:%s' % (scripts / 'ifcfg-m0'), 'files:%s' % (scripts / 'ifcfg-m1')]
    assert (scripts / 'ifcfg-m0').read_text() == 'DEVICE=m0\nONBOOT=yes\n'
    assert oct(os.stat(str(scripts / 'ifcfg-m0')).st_mode & 0o777) == '0o644'
    assert not (scripts / 'ifcfg-m1').exists()
    assert os.listdir(str(kept)) == [] and os.listdir(str(tmp_path / 'bonding')) == ['ifcfg-bond0']


def test_old_tuning_snapshot_restores_through_both_names(tmp_path, capsys):
    conf = tmp_path / '90-perflab-tuning.conf'
    conf.write_text('net.core.rmem_max = 1\n')
    snap = tmp_path / 'stock.json'
    # as tuning_snapshot 0.1 wrote it (no records section)
    snap.write_text(json.dumps({'schema': 'perflab.snapshot/1', 'role': 'tuning', 'created_at': '2025-01-01T12:00:00Z',
                                'sysctls': {'net.core.rmem_max': '212992'}, 'files': {str(conf): {'exists': False}},
                                'ethtool': {}, 'values': {}}))
    via_alias = run_module({'snapshot': str(snap), 'state': 'restored'}, capsys, module=tuning_snapshot)
    assert via_alias['restored'] == ['removed %s' % conf] and via_alias['left'] == {'sysctls': ['net.core.rmem_max']}
    assert via_alias['snapshot']['role'] == 'tuning'
    done = run_module({'name': 'tuning', 'snapshot': str(snap), 'state': 'restored', 'forget': {'sysctls': ['*']}}, capsys)
    assert done['complete'] is True and not snap.exists()


def test_bad_namespace_and_missing_name(tmp_path, capsys):
    bad = run_module({'name': '../etc', 'snapshot': str(tmp_path / 's.json')}, capsys)
    assert bad['failed'] is True and 'not a snapshot namespace' in bad['msg']
    missing = run_module({'snapshot': str(tmp_path / 's.json')}, capsys)
    assert missing['failed'] is True and 'name' in missing['msg']
