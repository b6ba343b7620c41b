# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json
import os
import stat

import pytest

from ansible_collections.perflab.network.plugins.module_utils.host import tuning_snapshot as snapshots


def test_save_load_and_add_only(tmp_path):
    path = str(tmp_path / 'state' / 'tuning' / 'stock.json')
    snap = snapshots.new_snapshot('tuning')
    assert snapshots.record(snap, 'sysctls', 'net.ipv4.tcp_rmem', '4096 131072 6291456')
    assert not snapshots.record(snap, 'sysctls', 'net.ipv4.tcp_rmem', '4096 131072 134217728')
    snapshots.save(path, snap)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    loaded = snapshots.load(path)
    assert loaded['sysctls'] == {'net.ipv4.tcp_rmem': '4096 131072 6291456'}
    assert loaded['schema'] == 'perflab.snapshot/1'
    assert loaded['created_dirs'] == [str(tmp_path / 'state' / 'tuning'), str(tmp_path / 'state')]
    assert os.listdir(os.path.dirname(path)) == ['stock.json']  # no temp file left
    assert snapshots.remove(path, loaded)
    assert not os.path.exists(str(tmp_path / 'state'))
    assert snapshots.load(path) is None
    assert not snapshots.remove(path)


def test_remove_keeps_directories_that_hold_other_files(tmp_path):
    path = str(tmp_path / 'state' / 'stock.json')
    snap = snapshots.new_snapshot('mtu')
    snapshots.save(path, snap)
    (tmp_path / 'state' / 'rollback.armed').write_text('x')
    snapshots.remove(path, snap)
    assert os.listdir(str(tmp_path / 'state')) == ['rollback.armed']


def test_load_refuses_a_foreign_or_broken_file(tmp_path):
    path = tmp_path / 'stock.json'
    path.write_text('{not json')
    with pytest.raises(snapshots.SnapshotError, match='not valid JSON'):
        snapshots.load(str(path))
    path.write_text(json.dumps({'schema': 'something/9'}))
    with pytest.raises(snapshots.SnapshotError, match='is not a perflab.snapshot/1 snapshot'):
        snapshots.load(str(path))


def test_file_capture_and_exact_restore(tmp_path):
    conf = tmp_path / '90-perflab-tuning.conf'
    conf.write_bytes(b'# stock\nnet.core.somaxconn = 1024\n')
    os.chmod(str(conf), 0o640)
    entry = snapshots.capture_file(str(conf))
    assert entry['exists'] and entry['type'] == 'file' and entry['mode'] == '0640'
    assert snapshots.file_matches(str(conf), entry)
    assert snapshots.restore_file(str(conf), entry) is None  # nothing to do
    conf.write_text('changed\n')
    os.chmod(str(conf), 0o644)
    assert not snapshots.file_matches(str(conf), entry)
    assert snapshots.restore_file(str(conf), entry) == 'restored %s' % conf
    assert conf.read_bytes() == b'# stock\nnet.core.somaxconn = 1024\n'
    assert stat.S_IMODE(os.stat(str(conf)).st_mode) == 0o640


def test_a_file_that_did_not_exist_is_removed(tmp_path):
    conf = tmp_path / 'sysctl.d' / '90-perflab-tuning.conf'
    entry = snapshots.capture_file(str(conf))
    assert entry == {'exists': False}
    conf.parent.mkdir()
    conf.write_text('net.core.somaxconn = 8192\n')
    assert snapshots.restore_file(str(conf), entry) == 'removed %s' % conf
    assert not conf.exists()


def test_directories(tmp_path):
    profile = tmp_path / 'tuned' / 'perflab'
    entry = snapshots.capture_file(str(profile))
    profile.mkdir(parents=True)
    (profile / 'tuned.conf').write_text('[main]\n')
    assert snapshots.restore_file(str(profile), entry) == 'kept directory %s: not empty' % profile
    (profile / 'tuned.conf').unlink()
    assert snapshots.restore_file(str(profile), entry) == 'removed directory %s' % profile
    existing = snapshots.capture_file(str(tmp_path))
    assert existing['type'] == 'directory' and 'content' not in existing


def test_large_files_are_refused(tmp_path):
    big = tmp_path / 'big'
    big.write_bytes(b'x' * (snapshots.MAX_FILE_BYTES + 1))
    with pytest.raises(snapshots.SnapshotError, match='larger than'):
        snapshots.capture_file(str(big))


def test_describe_leaves_out_contents(tmp_path):
    conf = tmp_path / 'a.conf'
    conf.write_text('secret-ish\n')
    snap = snapshots.new_snapshot('tuning')
    snap['files'][str(conf)] = snapshots.capture_file(str(conf))
    described = snapshots.describe(snap)
    assert 'content' not in described['files'][str(conf)]
    assert 'content' in snap['files'][str(conf)]
