# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import errno
import json
import os
import shutil
import subprocess
import sys

import pytest

from ansible_collections.perflab.network.plugins.module_utils.host import tuning_sysctl_utils as su
from ansible_collections.perflab.network.plugins.module_utils.host.tuning_sysctl_utils import (
    ProcSys, apply_key, detect_netns, is_machine_wide, key_to_relpath, normalize, restore_key, summarize,
)

COLLECTIONS = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', '..', '..', '.collections'))


def make_root(tmp_path, values):
    root = tmp_path / 'proc-sys'
    for key, value in values.items():
        path = root / key_to_relpath(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(value + '\n')
    return ProcSys(root=str(root), sys_root=str(tmp_path / 'sys'))


class NamespaceLikeFS(ProcSys):
    """Emulates a child network namespace as seen on kernel 6.18: read-only keys
    refuse access(W_OK); ``ignored`` keys accept the write and keep their value."""

    def __init__(self, root, read_only=(), ignored=()):
        ProcSys.__init__(self, root)
        self.read_only = set(read_only)
        self.ignored = set(ignored)
        self.writes = []

    def writable(self, key):
        return key not in self.read_only

    def write(self, key, value):
        self.writes.append((key, value))
        if key not in self.ignored:
            ProcSys.write(self, key, value)


def test_normalize():
    assert normalize('4096\t131072\t6291456\n') == '4096 131072 6291456'
    assert normalize([4096, 87380, 134217728]) == '4096 87380 134217728'
    assert normalize(250000) == '250000'
    assert normalize(True) == '1'
    assert normalize(None) is None


def test_key_paths_and_classes():
    assert key_to_relpath('net.ipv4.tcp_rmem') == 'net/ipv4/tcp_rmem'
    assert key_to_relpath('net.ipv4.conf.eth0/100.rp_filter') == 'net/ipv4/conf/eth0.100/rp_filter'
    for bad in ('net..x', '../etc/passwd', 'net.ipv4.tcp rmem', 'net', '/sys/../etc/x'):
        with pytest.raises(ValueError):
            key_to_relpath(bad) if not bad.startswith('/') else su.validate_key(bad)
    assert is_machine_wide('kernel.numa_balancing')
    assert is_machine_wide('vm.swappiness')
    assert is_machine_wide('/sys/devices/system/cpu/cpufreq/policy0/scaling_governor')
    assert not is_machine_wide('net.core.rmem_max')


def test_apply_and_restore_on_a_plain_root(tmp_path):
    fs = make_root(tmp_path, {'net.ipv4.tcp_rmem': '4096\t131072\t6291456', 'net.core.netdev_max_backlog': '1000',
                              'net.ipv4.tcp_available_congestion_control': 'reno cubic',
                              'net.ipv4.tcp_congestion_control': 'cubic'})
    res = apply_key(fs, 'net.ipv4.tcp_rmem', '4096 131072 134217728')
    assert res == {'key': 'net.ipv4.tcp_rmem', 'status': 'applied', 'wanted': '4096 131072 134217728',
                   'before': '4096 131072 6291456', 'after': '4096 131072 134217728', 'reason': None}
    assert apply_key(fs, 'net.ipv4.tcp_rmem', [4096, 131072, 134217728])['status'] == 'unchanged'
    missing = apply_key(fs, 'net.core.busy_poll', 50)
    # not in a namespace: a key the kernel does not have is a typo, refused (failed), never skipped
    assert (missing['status'], missing['reason']) == ('failed', 'no such sysctl on this kernel '
                                                      '(/proc/sys/net/core/busy_poll): a typo?')
    back = restore_key(fs, 'net.ipv4.tcp_rmem', '4096 131072 6291456')
    assert (back['status'], back['after']) == ('restored', '4096 131072 6291456')
    assert restore_key(fs, 'net.core.busy_poll', None)['status'] == 'skipped'
    summary = summarize([res, missing, back])
    assert summary == {'applied': ['net.ipv4.tcp_rmem'], 'unchanged': [], 'restored': ['net.ipv4.tcp_rmem'],
                       'skipped': {},
                       'failed': {'net.core.busy_poll': 'no such sysctl on this kernel (/proc/sys/net/core/busy_poll): a typo?'}}


def test_check_mode_writes_nothing(tmp_path):
    fs = make_root(tmp_path, {'net.core.somaxconn': '4096'})
    res = apply_key(fs, 'net.core.somaxconn', 8192, check_mode=True)
    assert (res['status'], res['after']) == ('applied', '8192')
    assert fs.read('net.core.somaxconn') == '4096'


def test_namespaced_host_never_writes_machine_wide_keys(tmp_path):
    fs = NamespaceLikeFS(str(make_root(tmp_path, {'kernel.numa_balancing': '1'}).root))
    res = apply_key(fs, 'kernel.numa_balancing', 0, namespaced=True, ns_reason='lab_host is true')
    assert res['status'] == 'skipped' and 'machine-wide' in res['reason'] and 'lab_host is true' in res['reason']
    assert restore_key(fs, 'kernel.numa_balancing', '1', namespaced=True)['status'] == 'skipped'
    assert fs.writes == []


def test_read_only_key_in_namespace_is_skipped_without_writing(tmp_path):
    root = make_root(tmp_path, {'net.core.rmem_max': '4194304'}).root
    fs = NamespaceLikeFS(root, read_only=['net.core.rmem_max'])
    res = apply_key(fs, 'net.core.rmem_max', 134217728, namespaced=True)
    assert res['status'] == 'skipped'
    assert res['reason'] == 'read-only in this network namespace (a machine-wide setting)'
    assert fs.writes == []
    # The same key on a real server that refuses it is a failure, not a skip.
    assert apply_key(fs, 'net.core.rmem_max', 134217728)['status'] == 'failed'


def test_write_that_succeeds_but_is_ignored(tmp_path):
    # The trap: "sysctl -w" exits 0 and the value does not change.
    root = make_root(tmp_path, {'net.core.wmem_max': '212992'}).root
    fs = NamespaceLikeFS(root, ignored=['net.core.wmem_max'])
    res = apply_key(fs, 'net.core.wmem_max', 134217728, namespaced=True)
    assert res['status'] == 'skipped'
    assert res['reason'] == 'write ignored in this network namespace: read back 212992'
    assert fs.writes == [('net.core.wmem_max', '134217728')]
    res = apply_key(fs, 'net.core.wmem_max', 134217728)
    assert (res['status'], res['reason']) == ('failed', 'read back 212992 after writing 134217728')


def test_congestion_control_not_loaded_on_a_lab_host(tmp_path):
    fs = make_root(tmp_path, {'net.ipv4.tcp_available_congestion_control': 'reno cubic',
                              'net.ipv4.tcp_congestion_control': 'cubic'})
    res = apply_key(fs, 'net.ipv4.tcp_congestion_control', 'bbr', namespaced=True)
    assert res['status'] == 'skipped'
    assert 'bbr is not loaded (available: reno cubic)' in res['reason']
    assert fs.read('net.ipv4.tcp_congestion_control') == 'cubic'


def test_congestion_control_unknown_to_the_kernel(tmp_path):
    class NoBbr(ProcSys):
        def write(self, key, value):
            raise OSError(errno.ENOENT, 'No such file or directory')
    base = make_root(tmp_path, {'net.ipv4.tcp_available_congestion_control': 'reno cubic',
                                'net.ipv4.tcp_congestion_control': 'cubic'})
    res = apply_key(NoBbr(base.root), 'net.ipv4.tcp_congestion_control', 'bbr')
    assert (res['status'], res['reason']) == ('skipped', 'congestion control bbr is not available on this kernel')


def test_governor_must_be_available(tmp_path):
    fs = make_root(tmp_path, {})
    policy = tmp_path / 'sys' / 'devices' / 'system' / 'cpu' / 'cpufreq' / 'policy0'
    policy.mkdir(parents=True)
    (policy / 'scaling_governor').write_text('schedutil\n')
    (policy / 'scaling_available_governors').write_text('performance schedutil\n')
    key = '/sys/devices/system/cpu/cpufreq/policy0/scaling_governor'
    assert apply_key(fs, key, 'ondemand')['status'] == 'skipped'
    assert apply_key(fs, key, 'performance')['status'] == 'applied'
    assert (policy / 'scaling_governor').read_text() == 'performance\n'
    assert apply_key(fs, key, 'schedutil', namespaced=True)['status'] == 'skipped'


def test_detect_netns_on_fake_roots(tmp_path):
    plain = make_root(tmp_path / 'a', {'net.core.netdev_max_backlog': '1000', 'net.ipv4.tcp_rmem': '1 2 3',
                                       'net.core.rmem_max': '5'})
    assert detect_netns(plain) == (False, None)
    found, why = detect_netns(make_root(tmp_path / 'b', {'net.ipv4.tcp_rmem': '1 2 3'}))
    assert found and 'netdev_max_backlog does not exist' in why


# --- the real kernel: a network namespace made for this test ------------------------------

NETNS_SCRIPT = r'''
import json, sys
from ansible_collections.perflab.network.plugins.module_utils.host.tuning_sysctl_utils import *
fs = ProcSys()
out = {'detect': detect_netns(fs)}
out['rmem_max'] = apply_key(fs, 'net.core.rmem_max', 134217728, namespaced=True)
out['backlog'] = apply_key(fs, 'net.core.netdev_max_backlog', 250000, namespaced=True)
out['tcp_mem'] = apply_key(fs, 'net.ipv4.tcp_mem', '1 2 3', namespaced=True)
before = fs.read('net.ipv4.tcp_wmem')
out['tcp_wmem'] = apply_key(fs, 'net.ipv4.tcp_wmem', '4096 65536 8388608', namespaced=True)
out['restore'] = restore_key(fs, 'net.ipv4.tcp_wmem', before, namespaced=True)
out['final'] = fs.read('net.ipv4.tcp_wmem') == before
print(json.dumps(out))
'''


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which('ip'), reason='needs root and iproute2 to make a network namespace')
def test_in_a_real_network_namespace():
    ns = 'h5ut%d' % os.getpid()
    host_rmem_max = open('/proc/sys/net/core/rmem_max').read()
    subprocess.run(['ip', 'netns', 'add', ns], check=True)
    try:
        proc = subprocess.run(['ip', 'netns', 'exec', ns, sys.executable, '-c', NETNS_SCRIPT], capture_output=True,
                              text=True, env=dict(os.environ, PYTHONPATH=COLLECTIONS), timeout=60, check=False)
        assert proc.returncode == 0, proc.stderr
        out = json.loads(proc.stdout)
    finally:
        subprocess.run(['ip', 'netns', 'del', ns], check=True)
    assert out['detect'][0] is True
    assert out['rmem_max']['status'] == 'skipped'
    assert out['rmem_max']['reason'] == 'read-only in this network namespace (a machine-wide setting)'
    assert out['backlog'] == {'key': 'net.core.netdev_max_backlog', 'status': 'skipped', 'wanted': '250000',
                              'before': None, 'after': None, 'reason': 'does not exist in this network namespace (only in the initial one)'}
    assert out['tcp_mem']['status'] == 'skipped'
    assert out['tcp_wmem']['status'] == 'applied' and out['tcp_wmem']['after'] == '4096 65536 8388608'
    assert out['restore']['status'] == 'restored' and out['final'] is True
    assert open('/proc/sys/net/core/rmem_max').read() == host_rmem_max


# --- the latency profile's machine knobs -----------------------------------------------------

FIXTURES = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', 'fixtures', 'sysfs'))


def fixture(name):
    with open(os.path.join(FIXTURES, name)) as handle:
        return handle.read()


def test_a_sysfs_choice_file_reads_as_its_bracketed_word(tmp_path):
    fs = make_root(tmp_path, {})
    thp = tmp_path / 'sys' / 'kernel' / 'mm' / 'transparent_hugepage'
    thp.mkdir(parents=True)
    (thp / 'enabled').write_text(fixture('transparent_hugepage_enabled.txt'))
    assert fixture('transparent_hugepage_enabled.txt').strip() == 'always [madvise] never'
    assert su.selected_choice(normalize(fixture('transparent_hugepage_defrag.txt'))) == 'madvise'
    assert fs.read(su.THP_KEY) == 'madvise'
    res = apply_key(fs, su.THP_KEY, 'never')
    assert (res['status'], res['before'], res['after']) == ('applied', 'madvise', 'never')
    # a plain file stands in for the kernel: what was written is what is read back
    assert (thp / 'enabled').read_text() == 'never\n'
    assert restore_key(fs, su.THP_KEY, 'madvise')['status'] == 'restored'
    assert apply_key(fs, su.THP_KEY, 'never', namespaced=True, ns_reason='lab_host is true')['reason'] == \
        'machine-wide setting: never changed on a network-namespaced host (lab_host is true)'


def test_transparent_hugepages_missing_from_the_kernel_is_skipped(tmp_path):
    res = apply_key(make_root(tmp_path, {}), su.THP_KEY, 'never')
    assert (res['status'], res['reason']) == ('skipped', 'does not exist on this kernel (/sys/kernel/mm/transparent_hugepage/enabled)')
    res = apply_key(make_root(tmp_path, {}), 'kernel.numa_balancing', 0, optional=True)
    assert (res['status'], res['reason']) == ('skipped', 'does not exist on this kernel (/proc/sys/kernel/numa_balancing)')
    assert apply_key(make_root(tmp_path, {}), 'kernel.numa_balancing', 0)['status'] == 'failed'


def test_a_read_only_sys_is_skipped_not_failed(tmp_path):
    class ReadOnlySys(ProcSys):
        def writable(self, key):
            return not su.is_sysfs(key)
    base = make_root(tmp_path, {})
    thp = tmp_path / 'sys' / 'kernel' / 'mm' / 'transparent_hugepage'
    thp.mkdir(parents=True)
    (thp / 'enabled').write_text('[always] madvise never\n')
    res = apply_key(ReadOnlySys(base.root, base.sys_root), su.THP_KEY, 'never')
    assert (res['status'], res['reason']) == ('skipped', 'read-only on this host (/sys is mounted read-only, e.g. in a container)')


def test_governor_paths_and_the_reason_when_there_is_no_cpufreq(tmp_path):
    fs = make_root(tmp_path, {})
    assert fs.governor_paths() == []
    assert su.governor_skip_reason(fs) == ('no CPU frequency scaling here: /sys/devices/system/cpu/cpufreq has no policy '
                                           '(no cpufreq driver, e.g. a VM)')
    assert su.governor_skip_reason(fs, namespaced=True, ns_reason='lab_host is true') == \
        'machine-wide setting: never changed on a network-namespaced host (lab_host is true)'
    base = tmp_path / 'sys' / 'devices' / 'system' / 'cpu' / 'cpufreq'
    for name in ('policy0', 'policy2', 'boost'):
        (base / name).mkdir(parents=True)
    (base / 'policy0' / 'scaling_governor').write_text('schedutil\n')
    (base / 'policy2' / 'scaling_governor').write_text('schedutil\n')
    assert fs.governor_paths() == ['/sys/devices/system/cpu/cpufreq/policy0/scaling_governor',
                                   '/sys/devices/system/cpu/cpufreq/policy2/scaling_governor']
    assert su.governor_skip_reason(fs) is None


def test_cpu_dma_latency_problems_and_text(tmp_path):
    dev, run = tmp_path / 'dev', tmp_path / 'run'
    dev.mkdir()
    run.mkdir()
    fs = ProcSys(root=str(tmp_path / 'p'), sys_root=str(tmp_path / 'sys'), dev_root=str(dev), run_root=str(run))
    assert su.cpu_dma_latency_problem(fs) == '/dev/cpu_dma_latency does not exist on this kernel (no PM QoS)'
    (dev / 'cpu_dma_latency').write_text('')
    assert su.cpu_dma_latency_problem(fs) == ('systemd is not running (/run/systemd/system is missing): '
                                              'no service can hold /dev/cpu_dma_latency open')
    assert su.cpu_dma_latency_problem(fs, by='tuned') is None
    (run / 'systemd' / 'system').mkdir(parents=True)
    assert su.cpu_dma_latency_problem(fs) is None
    assert su.cpu_dma_latency_problem(fs, namespaced=True, ns_reason='lab_host is true').startswith('machine-wide setting')
    # 10 bytes whatever the value: a 4-byte write would be read as a binary number
    assert [su.cpu_dma_latency_text(v) for v in (0, 1, 256, 4096)] == ['0x00000000', '0x00000001', '0x00000100', '0x00001000']
    with pytest.raises(ValueError):
        su.cpu_dma_latency_text(-1)
