# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json

import pytest

from ansible.module_utils.testing import patch_module_args

from ansible_collections.perflab.network.plugins.module_utils.host import tuning_snapshot as snapshots
from ansible_collections.perflab.network.plugins.module_utils.host.tuning_sysctl_utils import ProcSys, key_to_relpath
from ansible_collections.perflab.network.plugins.modules import tuning_sysctl

STOCK = {
    'net.core.rmem_max': '212992',
    'net.core.netdev_max_backlog': '1000',
    'net.ipv4.tcp_rmem': '4096\t131072\t6291456',
    'net.ipv4.tcp_available_congestion_control': 'reno cubic bbr',
    'net.ipv4.tcp_congestion_control': 'cubic',
    'kernel.numa_balancing': '1',
}


@pytest.fixture
def proc(tmp_path, monkeypatch):
    root = tmp_path / 'proc-sys'
    for key, value in STOCK.items():
        path = root / key_to_relpath(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(value + '\n')
    monkeypatch.setattr(tuning_sysctl, 'ProcSys', lambda: ProcSys(root=str(root)))
    return root


def read(root, key):
    return (root / key_to_relpath(key)).read_text().strip()


def run_module(args, capsys, check_mode=False, diff=False):
    args = dict(args)
    if check_mode:
        args['_ansible_check_mode'] = True
    if diff:
        args['_ansible_diff'] = True
    with patch_module_args(args):
        with pytest.raises(SystemExit):
            tuning_sysctl.main()
    return json.loads(capsys.readouterr().out)


def test_apply_is_verified_and_idempotent(proc, tmp_path, capsys):
    snap = str(tmp_path / 'stock.json')
    args = {'snapshot': snap, 'settings': {'net.core.rmem_max': 134217728, 'net.ipv4.tcp_rmem': [4096, 131072, 134217728],
                                           'net.ipv4.tcp_congestion_control': 'bbr'}}
    result = run_module(args, capsys, diff=True)
    assert result['changed'] is True
    assert result['namespaced'] is False
    assert result['summary']['applied'] == ['net.core.rmem_max', 'net.ipv4.tcp_rmem', 'net.ipv4.tcp_congestion_control']
    assert result['effective'] == {'net.core.rmem_max': '134217728', 'net.ipv4.tcp_rmem': '4096 131072 134217728',
                                   'net.ipv4.tcp_congestion_control': 'bbr'}
    assert read(proc, 'net.ipv4.tcp_rmem') == '4096 131072 134217728'
    assert result['snapshot_recorded'] == {'net.core.rmem_max': '212992', 'net.ipv4.tcp_rmem': '4096 131072 6291456',
                                           'net.ipv4.tcp_congestion_control': 'cubic'}
    assert 'net.ipv4.tcp_rmem = 4096 131072 6291456' in result['diff']['before']
    again = run_module(args, capsys)
    assert again['changed'] is False
    assert again['summary']['unchanged'] == ['net.core.rmem_max', 'net.ipv4.tcp_rmem', 'net.ipv4.tcp_congestion_control']


def test_snapshot_is_written_before_the_first_write_and_never_overwritten(proc, tmp_path, capsys, monkeypatch):
    snap = str(tmp_path / 'stock.json')
    calls = []

    class Crashing(ProcSys):
        def write(self, key, value):
            # The snapshot must already hold every key when the first write happens.
            calls.append(sorted(snapshots.load(snap)['sysctls']))
            raise IOError(5, 'Input/output error')
    monkeypatch.setattr(tuning_sysctl, 'ProcSys', lambda: Crashing(root=str(proc)))
    result = run_module({'snapshot': snap, 'settings': {'net.ipv4.tcp_rmem': '1 2 3', 'net.core.rmem_max': 5}}, capsys)
    assert result['failed'] is True
    assert calls[0] == ['net.core.rmem_max', 'net.ipv4.tcp_rmem']
    assert 'net.ipv4.tcp_rmem: writing failed: Input/output error' in result['msg']
    # A later run with a different value keeps the stock value recorded first.
    monkeypatch.setattr(tuning_sysctl, 'ProcSys', lambda: ProcSys(root=str(proc)))
    run_module({'snapshot': snap, 'settings': {'net.ipv4.tcp_rmem': '4096 1 2'}}, capsys)
    run_module({'snapshot': snap, 'settings': {'net.ipv4.tcp_rmem': '4096 3 4'}}, capsys)
    assert snapshots.load(snap)['sysctls']['net.ipv4.tcp_rmem'] == '4096 131072 6291456'


def test_stock_restores_everything_recorded(proc, tmp_path, capsys):
    snap = str(tmp_path / 'stock.json')
    # a lab host: busy_poll exists only in the initial network namespace, skipped and not kept in the snapshot
    run_module({'snapshot': snap, 'lab_host': True,
                'settings': {'net.ipv4.tcp_rmem': '4096 1 2', 'net.core.busy_poll': 50}}, capsys)
    run_module({'snapshot': snap, 'settings': {'net.core.rmem_max': 999999}}, capsys)
    # The second profile no longer lists tcp_rmem: it went back to stock (restore_unlisted).
    assert read(proc, 'net.ipv4.tcp_rmem') == '4096 131072 6291456'
    result = run_module({'snapshot': snap, 'state': 'stock'}, capsys)
    assert result['summary']['restored'] == ['net.core.rmem_max']
    assert result['summary']['skipped'] == {}
    assert read(proc, 'net.core.rmem_max') == '212992'
    assert run_module({'snapshot': snap, 'state': 'stock'}, capsys)['changed'] is False


def test_check_mode_changes_nothing(proc, tmp_path, capsys):
    snap = tmp_path / 'stock.json'
    result = run_module({'snapshot': str(snap), 'settings': {'net.ipv4.tcp_rmem': '4096 1 2'}}, capsys, check_mode=True)
    assert result['changed'] is True
    assert result['sysctls'][0]['reason'] == 'check mode: not written'
    assert not snap.exists()
    assert read(proc, 'net.ipv4.tcp_rmem') == '4096\t131072\t6291456'


def test_lab_host_skips_machine_wide_keys(proc, tmp_path, capsys):
    result = run_module({'snapshot': str(tmp_path / 's.json'), 'lab_host': True,
                         'settings': {'kernel.numa_balancing': 0, 'net.ipv4.tcp_rmem': '4096 1 2'}}, capsys)
    assert result['namespaced'] is True and result['namespace_evidence'] == 'lab_host is true'
    assert list(result['summary']['skipped']) == ['kernel.numa_balancing']
    assert read(proc, 'kernel.numa_balancing') == '1'
    assert result['summary']['applied'] == ['net.ipv4.tcp_rmem']


def test_detected_namespace_counts_even_without_lab_host(proc, tmp_path, capsys):
    (proc / 'net' / 'core' / 'netdev_max_backlog').unlink()
    result = run_module({'snapshot': str(tmp_path / 's.json'), 'settings': {'kernel.numa_balancing': 0}}, capsys)
    assert result['namespaced'] is True
    assert 'netdev_max_backlog does not exist' in result['namespace_evidence']
    assert result['summary']['skipped']['kernel.numa_balancing'].startswith('machine-wide setting')


@pytest.mark.parametrize('settings, message', [
    ({'net..bad': 1}, "settings: 'net..bad' is not a sysctl name"),
    ({'net.core.somaxconn': {'a': 1}}, 'needs a number, a string or a list'),
])
def test_bad_input_fails_before_anything(proc, tmp_path, capsys, settings, message):
    result = run_module({'snapshot': str(tmp_path / 's.json'), 'settings': settings}, capsys)
    assert result['failed'] is True and message in result['msg']
    assert not (tmp_path / 's.json').exists()


def test_sysfs_paths_must_be_under_sys(proc, tmp_path, capsys):
    result = run_module({'snapshot': str(tmp_path / 's.json'), 'sysfs': {'/etc/passwd': 'x'}}, capsys)
    assert result['failed'] is True and result['msg'] == 'sysfs: /etc/passwd is not a path under /sys'


def test_a_key_the_kernel_lacks_is_refused_and_leaves_no_snapshot(proc, tmp_path, capsys):
    snap = tmp_path / 'stock.json'
    result = run_module({'snapshot': str(snap), 'settings': {'net.ipv4.tcp_rmme': '4096 1 2'}}, capsys)
    assert result['failed'] and result['msg'] == \
        'sysctls failed: net.ipv4.tcp_rmme: no such sysctl on this kernel (/proc/sys/net/ipv4/tcp_rmme): a typo?'
    assert not snap.exists()


def test_a_namespace_only_skip_leaves_no_snapshot(proc, tmp_path, capsys):
    snap = tmp_path / 'stock.json'
    result = run_module({'snapshot': str(snap), 'lab_host': True, 'settings': {'net.core.busy_read': 50}}, capsys)
    assert result['summary']['skipped'] == {
        'net.core.busy_read': 'does not exist in this network namespace (only in the initial one)'}
    assert result['changed'] is False and not snap.exists() and result['snapshot_exists'] is False


def test_latency_knobs_record_apply_restore_and_skip_with_the_reason(tmp_path, capsys, monkeypatch):
    """The governor and transparent hugepages are recorded, written, read back and restored; the C-state
    holder is only judged here (the role installs it); what the host cannot take is skipped with why."""
    root = tmp_path / 'proc-sys'
    for key, value in STOCK.items():
        path = root / key_to_relpath(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(value + '\n')
    sys_root, dev, run = tmp_path / 'sys', tmp_path / 'dev', tmp_path / 'run'
    thp = sys_root / 'kernel' / 'mm' / 'transparent_hugepage'
    thp.mkdir(parents=True)
    (thp / 'enabled').write_text('always [madvise] never\n')
    dev.mkdir()
    (run / 'systemd' / 'system').mkdir(parents=True)
    monkeypatch.setattr(tuning_sysctl, 'ProcSys',
                        lambda: ProcSys(root=str(root), sys_root=str(sys_root), dev_root=str(dev), run_root=str(run)))
    snap = str(tmp_path / 'stock.json')
    args = {'snapshot': snap, 'settings': {}, 'cpu_governor': 'performance', 'transparent_hugepages': 'never',
            'cpu_dma_latency': 1}
    result = run_module(args, capsys)
    assert result['summary']['applied'] == ['/sys/kernel/mm/transparent_hugepage/enabled']
    assert result['summary']['skipped'] == {
        'cpu_governor': 'no CPU frequency scaling here: /sys/devices/system/cpu/cpufreq has no policy (no cpufreq driver, e.g. a VM)',
        'cpu_dma_latency': '/dev/cpu_dma_latency does not exist on this kernel (no PM QoS)'}
    assert result['cpu_dma_latency'] == {'hold': False, 'text': '0x00000001',
                                         'reason': '/dev/cpu_dma_latency does not exist on this kernel (no PM QoS)'}
    assert result['effective'] == {'/sys/kernel/mm/transparent_hugepage/enabled': 'never'}
    assert (thp / 'enabled').read_text() == 'never\n'

    policy = sys_root / 'devices' / 'system' / 'cpu' / 'cpufreq' / 'policy0'
    policy.mkdir(parents=True)
    (policy / 'scaling_governor').write_text('powersave\n')
    (dev / 'cpu_dma_latency').write_text('')
    result = run_module(args, capsys)
    assert result['summary']['applied'] == ['/sys/devices/system/cpu/cpufreq/policy0/scaling_governor']
    assert result['summary']['unchanged'] == ['/sys/kernel/mm/transparent_hugepage/enabled']
    assert result['cpu_dma_latency'] == {'hold': True, 'text': '0x00000001', 'reason': None}

    result = run_module({'snapshot': snap, 'state': 'stock'}, capsys)
    assert sorted(result['summary']['restored']) == ['/sys/devices/system/cpu/cpufreq/policy0/scaling_governor',
                                                     '/sys/kernel/mm/transparent_hugepage/enabled']
    assert (thp / 'enabled').read_text() == 'madvise\n' and (policy / 'scaling_governor').read_text() == 'powersave\n'


def test_lab_host_skips_every_machine_knob(proc, tmp_path, capsys):
    result = run_module({'snapshot': str(tmp_path / 'stock.json'), 'lab_host': True, 'cpu_governor': 'performance',
                         'transparent_hugepages': 'never', 'cpu_dma_latency': 1}, capsys)
    reason = 'machine-wide setting: never changed on a network-namespaced host (lab_host is true)'
    assert result['summary']['skipped'] == {'cpu_governor': reason, 'cpu_dma_latency': reason,
                                            '/sys/kernel/mm/transparent_hugepage/enabled': reason}
    assert result['cpu_dma_latency']['hold'] is False
