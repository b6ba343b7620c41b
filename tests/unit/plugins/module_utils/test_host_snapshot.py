# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json
import os

import pytest

from ansible_collections.perflab.network.plugins.module_utils import host_snapshot as snapshots
from ansible_collections.perflab.network.plugins.module_utils import tuning_snapshot


def test_the_old_module_utils_name_is_the_same_code():
    assert tuning_snapshot.load is snapshots.load
    assert tuning_snapshot.capture_file is snapshots.capture_file


def test_default_path_per_namespace():
    assert snapshots.default_path('mtu') == '/var/lib/perflab/mtu/stock.json'
    assert snapshots.default_path('firewall', '/srv') == '/srv/firewall/stock.json'
    for bad in ('', '../etc', 'Tuning', 'a/b'):
        with pytest.raises(snapshots.SnapshotError, match='not a snapshot namespace'):
            snapshots.default_path(bad)


def test_records_are_settable_values_are_not():
    snap = snapshots.new_snapshot('firewall')
    assert snapshots.record(snap, 'values', 'ufw', 'active')
    assert not snapshots.record(snap, 'values', 'ufw', 'inactive')
    assert snapshots.set_entry(snap, 'records', 'ufw-rules', [1])
    assert not snapshots.set_entry(snap, 'records', 'ufw-rules', [1])
    assert snapshots.set_entry(snap, 'records', 'ufw-rules', [1, 2])
    assert snap['records'] == {'ufw-rules': [1, 2]} and snap['values'] == {'ufw': 'active'}
    assert snapshots.set_entry(snap, 'records', 'ufw-rules', None)
    assert not snapshots.set_entry(snap, 'records', 'ufw-rules', None)
    assert snapshots.left(snap) == {'values': ['ufw']}


def test_forget_and_left():
    snap = snapshots.new_snapshot('tuning')
    snap['sysctls'] = {'net.core.busy_poll': None, 'net.ipv4.tcp_rmem': '4096'}
    snap['values'] = {'tuned_profile': ''}
    assert not snapshots.is_empty(snap)
    # a null value (the key did not exist) is an entry too
    assert snapshots.forget(snap, 'sysctls', ['net.core.busy_poll', 'nope']) == ['net.core.busy_poll']
    assert snapshots.left(snap) == {'sysctls': ['net.ipv4.tcp_rmem'], 'values': ['tuned_profile']}
    assert snapshots.forget(snap, 'sysctls', ['*']) == ['net.ipv4.tcp_rmem']
    assert snapshots.forget(snap, 'values', ['*']) == ['tuned_profile']
    assert snapshots.is_empty(snap) and snapshots.left(None) == {}
    with pytest.raises(snapshots.SnapshotError, match='not a snapshot section'):
        snapshots.forget(snap, 'bogus', ['*'])


def test_load_reads_a_snapshot_written_before_records_existed(tmp_path):
    # as tuning_snapshot 0.1 wrote it
    old = {'schema': 'perflab.snapshot/1', 'role': 'tuning', 'created_at': '2025-01-01T12:00:00Z',
           'sysctls': {'net.ipv4.tcp_rmem': '4096 131072 6291456'}, 'files': {'/nonexistent/x': {'exists': False}},
           'ethtool': {}, 'values': {'tuned_profile': 'virtual-guest'}}
    path = tmp_path / 'stock.json'
    path.write_text(json.dumps(old))
    snap = snapshots.load(str(path))
    assert snap['records'] == {} and snap['sysctls'] == old['sysctls']
    assert snapshots.left(snap) == {'files': ['/nonexistent/x'], 'sysctls': ['net.ipv4.tcp_rmem'], 'values': ['tuned_profile']}


def test_adopt_the_files_earlier_versions_wrote(tmp_path):
    state = tmp_path / 'firewall'
    state.mkdir()
    (state / 'ufw.state').write_text('active\n')
    (state / 'ufw-rules.json').write_text('[\n    {"from_ip": "10.249.0.2", "proto": "tcp", "to_port": "5201"}\n]\n')
    kept = tmp_path / 'bonding' / 'ifcfg-bond0'
    kept.mkdir(parents=True)
    (kept / 'ifcfg-m0.orig').write_text('DEVICE=m0\n')
    os.chmod(str(kept / 'ifcfg-m0.orig'), 0o600)
    (kept / 'ifcfg-m1.none').write_text('')
    legacy = [
        {'path': str(state / 'ufw.state'), 'section': 'values', 'key': 'ufw', 'format': 'text'},
        {'path': str(state / 'pf.state'), 'section': 'values', 'key': 'pf', 'format': 'text'},
        {'path': str(state / 'ufw-rules.json'), 'section': 'records', 'key': 'ufw-rules', 'format': 'json'},
        {'path': str(kept / 'ifcfg-m0.orig'), 'section': 'files', 'key': '/etc/ifcfg-m0', 'format': 'file', 'mode': '0644'},
        {'path': str(kept / 'ifcfg-m1.none'), 'section': 'files', 'key': '/etc/ifcfg-m1', 'format': 'none'},
    ]
    snap = snapshots.new_snapshot('firewall')
    snap['values']['ufw'] = 'inactive'  # recorded in the snapshot already: it wins
    found, adopted = snapshots.adopt(snap, legacy)
    assert found == [spec['path'] for spec in legacy if spec['key'] != 'pf']
    assert adopted == ['records:ufw-rules', 'files:/etc/ifcfg-m0', 'files:/etc/ifcfg-m1']
    assert snap['values'] == {'ufw': 'inactive'}
    assert snap['records']['ufw-rules'] == [{'from_ip': '10.249.0.2', 'proto': 'tcp', 'to_port': '5201'}]
    assert snapshots.file_content(snap['files']['/etc/ifcfg-m0']) == b'DEVICE=m0\n'
    assert snap['files']['/etc/ifcfg-m0']['mode'] == '0644'
    assert snap['files']['/etc/ifcfg-m1'] == {'exists': False}
    snapshots.remove_legacy(found)
    assert os.listdir(str(state)) == [] and os.listdir(str(kept)) == []


def test_adopt_refuses_mixed_up_specs(tmp_path):
    (tmp_path / 'x').write_text('{')
    snap = snapshots.new_snapshot('firewall')
    with pytest.raises(snapshots.SnapshotError, match='not valid JSON'):
        snapshots.adopt(snap, [{'path': str(tmp_path / 'x'), 'section': 'records', 'key': 'k', 'format': 'json'}])
    with pytest.raises(snapshots.SnapshotError, match='belongs to the files section'):
        snapshots.adopt(snap, [{'path': str(tmp_path / 'x'), 'section': 'values', 'key': 'k', 'format': 'none'}])


def test_restore_files_says_which_are_stock(tmp_path):
    conf = tmp_path / 'a.conf'
    conf.write_text('stock\n')
    made = tmp_path / 'made'
    snap = snapshots.new_snapshot('mtu')
    snap['files'] = {str(conf): snapshots.capture_file(str(conf)), str(made): snapshots.capture_file(str(made)),
                     str(made / 'f'): snapshots.capture_file(str(made / 'f'))}
    conf.write_text('changed\n')
    made.mkdir()
    (made / 'f').write_text('x')
    (made / 'operator').write_text('x')
    lines, stock = snapshots.restore_files(snap, [], check_mode=True)
    assert conf.read_text() == 'changed\n' and sorted(stock) == sorted(snap['files'])
    lines, stock = snapshots.restore_files(snap, [])
    assert conf.read_text() == 'stock\n' and not (made / 'f').exists()
    # the directory holds a file of the operator: kept, and so still to restore
    assert 'kept directory %s: not empty' % made in lines
    assert sorted(stock) == sorted([str(conf), str(made / 'f')])
    with pytest.raises(snapshots.SnapshotError, match='not recorded'):
        snapshots.restore_files(snap, ['/etc/hostname'])
