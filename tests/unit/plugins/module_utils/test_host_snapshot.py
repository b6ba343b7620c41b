# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json
import os
import subprocess

import pytest

from ansible_collections.perflab.network.plugins.module_utils.host import snapshot as snapshots
from ansible_collections.perflab.network.plugins.module_utils.host import tuning_snapshot


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
    lines, stock, failed = snapshots.restore_files(snap, [], check_mode=True)
    assert conf.read_text() == 'changed\n' and sorted(stock) == sorted(snap['files'])
    lines, stock, failed = snapshots.restore_files(snap, [])
    assert conf.read_text() == 'stock\n' and not (made / 'f').exists()
    # the directory holds a file of the operator: kept, and so still to restore
    assert 'kept directory %s: not empty' % made in lines
    assert sorted(stock) == sorted([str(conf), str(made / 'f')])
    with pytest.raises(snapshots.SnapshotError, match='not recorded'):
        snapshots.restore_files(snap, ['/etc/hostname'])


@pytest.fixture
def immutable():
    """chattr +i on a real file (ext4 under pytest's tmp_path), undone after the test."""
    made = []

    def make(path):
        if subprocess.run(['chattr', '+i', str(path)], capture_output=True, check=False).returncode != 0:
            pytest.skip('chattr +i does not work on %s' % path)
        made.append(path)
    yield make
    for path in made:
        subprocess.run(['chattr', '-i', str(path)], check=False)


def test_restore_files_goes_on_past_a_file_it_cannot_put_back(tmp_path, immutable):
    stuck, other, made = tmp_path / '90-perflab.conf', tmp_path / 'other.conf', tmp_path / 'new.conf'
    other.write_text('stock\n')
    snap = snapshots.new_snapshot('tuning')
    snap['files'] = dict((str(p), snapshots.capture_file(str(p))) for p in (stuck, other, made))
    stuck.write_text('tuned\n')
    other.write_text('tuned\n')
    made.write_text('tuned\n')
    immutable(stuck)
    lines, stock, failed = snapshots.restore_files(snap, [])
    # the others are back, the immutable one is said with the host's reason and is not stock
    assert other.read_text() == 'stock\n' and not made.exists()
    assert sorted(stock) == sorted([str(other), str(made)])
    assert failed == {str(stuck): '[Errno 1] Operation not permitted'}
    assert stuck.read_text() == 'tuned\n'


def test_a_partial_restore_keeps_what_failed_and_says_why(tmp_path, immutable):
    stuck, other = tmp_path / '90-perflab.conf', tmp_path / 'other.conf'
    other.write_text('stock\n')
    path = str(tmp_path / 'state' / 'stock.json')
    snap = snapshots.new_snapshot('tuning')
    snap['files'] = dict((str(p), snapshots.capture_file(str(p))) for p in (stuck, other))
    snap['sysctls'] = {'net.core.rmem_max': '212992'}
    snapshots.save(path, snap)
    stuck.write_text('tuned\n')
    other.write_text('tuned\n')
    immutable(stuck)
    result = run_module(path, state='restored', forget={'sysctls': ['*']}, unrestored_ok=True)
    assert not result.get('failed'), result
    assert result['unrestored'] == {'files:%s' % stuck: '[Errno 1] Operation not permitted'}
    assert result['left'] == {'files': [str(stuck)]} and result['exists'] and not result['complete']
    assert 'could not be restored: files:%s ([Errno 1] Operation not permitted)' % stuck in result['msg']
    assert list(snapshots.load(path)['files']) == [str(stuck)]
    assert other.read_text() == 'stock\n'
    # without unrestored_ok (a caller that does not look), the module fails naming it, the snapshot kept
    failed = run_module(path, state='restored')
    assert failed['failed'] and failed['msg'].startswith('could not restore files:%s ([Errno 1] Operation not permitted)' % stuck)
    assert list(snapshots.load(path)['files']) == [str(stuck)]
    # once the cause is gone, the same restore completes and the snapshot goes
    subprocess.run(['chattr', '-i', str(stuck)], check=True)
    result = run_module(path, state='restored')
    assert result['complete'] and result['unrestored'] == {} and not os.path.exists(path)
    assert not stuck.exists()


class _Module(object):
    """The module object run() needs (its params, check mode, exit and fail)."""

    def __init__(self, params):
        self.params, self.check_mode, self._diff = params, False, False

    def exit_json(self, **result):
        raise _Done(result)

    def fail_json(self, **result):
        raise _Done(dict(result, failed=True))


class _Done(Exception):
    def __init__(self, result):
        Exception.__init__(self)
        self.result = result


def run_module(path, **params):
    args = dict(name='tuning', snapshot=path, state='present', files=[], values={}, records={}, forget={},
                legacy=[], expected=[], unrestored_ok=False)
    args.update(params)
    with pytest.raises(_Done) as done:
        snapshots.run(_Module(args))
    return done.value.result


def test_leftovers_found_per_role_with_what_they_hold(tmp_path):
    base = tmp_path / 'perflab'
    tuning = snapshots.new_snapshot('tuning')
    tuning['sysctls'] = dict(('net.k%d' % i, '1') for i in range(6))
    tuning['files'] = {'/etc/sysctl.d/90-perflab-tuning.conf': {'exists': False}}
    snapshots.save(str(base / 'tuning' / 'stock.json'), tuning)
    mtu = snapshots.new_snapshot('mtu')
    mtu['values'] = {'mtu:data0': 1500, 'stack': 'ifupdown'}
    snapshots.save(str(base / 'mtu' / 'stock.json'), mtu)
    snapshots.save(str(base / 'bonding' / 'stock-bond0.json'), snapshots.new_snapshot('bonding'))  # empty: nothing left
    (base / 'firewall').mkdir()
    (base / 'firewall' / 'disabled-backend').write_text('nftables\n')
    (base / 'firewall' / 'nftables.ruleset.restored').write_text('')   # an earlier restore's copy: not a leftover
    (base / 'tuning' / 'guard.json').write_text('{}')                    # not a snapshot
    found = snapshots.find_leftovers(bases=[str(base), str(tmp_path / 'none')])
    assert [(e['role'], os.path.basename(e['path'])) for e in found] == [
        ('tuning', 'stock.json'), ('mtu', 'stock.json'), ('firewall', 'disabled-backend')]
    texts = [e['text'] for e in found]
    assert texts[0].startswith('tuning snapshot %s (since ' % (base / 'tuning' / 'stock.json'))
    assert 'files /etc/sysctl.d/90-perflab-tuning.conf; sysctls net.k0, net.k1, net.k2, net.k3, ... (6 in all)' in texts[0]
    assert texts[1].endswith('values mtu:data0=1500, stack=ifupdown')
    assert texts[2] == 'firewall: the nftables firewall switched off (%s)' % (base / 'firewall' / 'disabled-backend')
    (base / 'mtu' / 'stock.json').write_text('{')
    broken = snapshots.find_leftovers(bases=[str(base)])[1]
    assert broken['role'] == 'mtu' and 'not valid JSON' in broken['text']
