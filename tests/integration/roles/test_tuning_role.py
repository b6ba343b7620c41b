# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The tuning role, run for real with ansible-playbook.

Anything that could get past the preflight runs inside a network namespace made
for the test (``ip netns exec`` also gives it a private mount namespace, where
/etc/sysctl.d and /etc/tmpfiles.d are bind-mounted from tmp_path): the host's
own sysctls and files are never touched.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
BIN = Path(sys.executable).parent
NEEDS_NETNS = pytest.mark.skipif(os.geteuid() != 0 or not shutil.which('ip') or not shutil.which('ethtool'),
                                 reason='needs root, iproute2 and ethtool to make a network namespace')


class Run(object):
    def __init__(self, proc):
        self.rc = proc.returncode
        self.stdout = proc.stdout
        self.stderr = proc.stderr
        start = proc.stdout.find('{')
        doc = json.JSONDecoder().raw_decode(proc.stdout[start:])[0] if start >= 0 else {}
        self.stats = doc.get('stats', {})
        self.plays = doc.get('plays', [])

    @property
    def changed(self):
        return self.stats['localhost']['changed']

    def task(self, name):
        """The last result of the task with this name."""
        found = None
        for play in self.plays:
            for task in play['tasks']:
                # the json callback may prefix the role ("perflab.network.tuning : ...")
                if task['task']['name'].split(' : ')[-1] == name and 'localhost' in task['hosts']:
                    found = task['hosts']['localhost']
        if found is None:
            raise KeyError(name)
        return found

    def failure(self):
        for play in self.plays:
            for task in play['tasks']:
                res = task['hosts'].get('localhost', {})
                if res.get('failed') and not res.get('ignore_errors'):
                    return res.get('msg', '')
        return self.stderr


def write_playbook(tmp_path, role='perflab.network.tuning'):
    path = tmp_path / 'play.yml'
    path.write_text('- hosts: localhost\n  connection: local\n  gather_facts: false\n'
                    '  vars:\n    ansible_python_interpreter: %s\n  roles:\n    - role: %s\n' % (sys.executable, role))
    return str(path)


def run_role(tmp_path, extra_vars, netns=None, binds=(), check=False, diff=False, role='perflab.network.tuning'):
    argv = [str(BIN / 'ansible-playbook'), '-i', 'localhost,', write_playbook(tmp_path, role), '-e', json.dumps(extra_vars)]
    if check:
        argv.append('--check')
    if diff:
        argv.append('--diff')
    if netns:
        mounts = ' && '.join('mount --bind %s %s' % (src, dst) for src, dst in binds) or 'true'
        argv = ['ip', 'netns', 'exec', netns, 'sh', '-c', mounts + ' && exec "$@"', 'sh'] + argv
    env = dict(os.environ, ANSIBLE_CONFIG=str(ROOT / 'ansible.cfg'), ANSIBLE_STDOUT_CALLBACK='ansible.posix.json',
               ANSIBLE_LOCALHOST_WARNING='false', ANSIBLE_INVENTORY_UNPARSED_WARNING='false', ANSIBLE_FORCE_COLOR='0',
               PATH='%s:%s' % (BIN, os.environ.get('PATH', '')))
    proc = subprocess.run(argv, cwd=str(ROOT), env=env, capture_output=True, text=True, timeout=600, check=False)
    return Run(proc)


@pytest.fixture
def netns():
    name = 'h5rt%d' % os.getpid()
    subprocess.run(['ip', 'netns', 'add', name], check=True)
    ipn = ['ip', '-n', name]
    subprocess.run(ipn + ['link', 'set', 'lo', 'up'], check=True)
    subprocess.run(ipn + ['link', 'add', 'h5d0', 'type', 'veth', 'peer', 'name', 'h5d1'], check=True)
    subprocess.run(ipn + ['addr', 'add', '10.205.1.200/24', 'dev', 'h5d0'], check=True)
    subprocess.run(ipn + ['link', 'set', 'h5d0', 'up'], check=True)
    subprocess.run(ipn + ['link', 'set', 'h5d1', 'up'], check=True)
    try:
        yield name
    finally:
        subprocess.run(['ip', 'netns', 'del', name], check=True)


def in_ns(ns, argv):
    return subprocess.run(['ip', 'netns', 'exec', ns] + argv, capture_output=True, text=True, check=True).stdout


def dump_net(ns):
    """Every readable /proc/sys/net value and the offload state, as seen in the namespace."""
    script = ('find /proc/sys/net -type f -readable | sort | while read f; do '
              'printf "%s=%s\\n" "$f" "$(tr "\\t" " " < "$f" 2>/dev/null)"; done; ethtool -k h5d0')
    return in_ns(ns, ['sh', '-c', script])


def test_argument_spec_rejects_a_bad_profile(tmp_path):
    res = run_role(tmp_path, {'tuning_profile': 'fast'})
    assert res.rc != 0
    assert "value of tuning_profile must be one of: throughput, latency, none, got: fast" in res.failure()


@NEEDS_NETNS
def test_preflight_rejects_bad_names_before_any_change(tmp_path, netns):
    snap = tmp_path / 'snap' / 'stock.json'
    res = run_role(tmp_path, {'tuning_lab_host': True, 'tuning_snapshot_path': str(snap),
                              'tuning_sysctls': {'net..core': 1}, 'tuning_ethtool': [{'interface': 'nosuch0'}]}, netns=netns)
    assert res.rc != 0 and "bad names: ['net..core']" in res.failure()
    assert 'tuning_management_check_timeout' not in res.failure()  # only what is wrong
    res = run_role(tmp_path, {'tuning_lab_host': True, 'tuning_snapshot_path': str(snap),
                              'tuning_ethtool': [{'interface': 'nosuch0', 'features': {'tso': False}}]}, netns=netns)
    assert res.rc != 0 and 'tuning_ethtool names interfaces this host does not have: nosuch0' in res.failure()
    assert not snap.exists()


@NEEDS_NETNS
def test_management_interface_is_refused(tmp_path, netns):
    snap = tmp_path / 'snap' / 'stock.json'
    # connection local: the host is "reached" at ansible_host, which h5d0 holds
    res = run_role(tmp_path, {'ansible_host': '10.205.1.200', 'tuning_lab_host': True, 'tuning_snapshot_path': str(snap),
                              'tuning_ethtool': [{'interface': 'h5d0', 'features': {'tso': False}}]}, netns=netns)
    assert res.rc != 0
    assert res.failure().startswith('tuning: refusing to change ethtool settings of h5d0 on localhost: it holds 10.205.1.200')
    assert not snap.exists()
    assert 'tcp-segmentation-offload: on' in in_ns(netns, ['ethtool', '-k', 'h5d0'])


@NEEDS_NETNS
def test_tuned_then_stock_in_a_namespace(tmp_path, netns):
    sysctl_d = tmp_path / 'sysctl.d'
    tmpfiles_d = tmp_path / 'tmpfiles.d'
    sysctl_d.mkdir()
    tmpfiles_d.mkdir()
    # a file we will overwrite: it must come back byte for byte, mode included
    ours = sysctl_d / '90-perflab-tuning.conf'
    ours.write_text('# left here by the operator\nnet.core.somaxconn = 1024\n')
    os.chmod(str(ours), 0o640)
    binds = [(sysctl_d, '/etc/sysctl.d'), (tmpfiles_d, '/etc/tmpfiles.d')]
    snap = tmp_path / 'state' / 'tuning' / 'stock.json'
    ev = {'tuning_lab_host': True, 'tuning_snapshot_path': str(snap), 'tuning_cpu_governor': 'performance',
          'tuning_sysctls': {'net.core.somaxconn': 8192, 'kernel.numa_balancing': 0},
          'tuning_ethtool': [{'interface': 'h5d0', 'features': {'tso': False, 'gso': False}, 'rings': {'rx': 'max'}}]}
    before = dump_net(netns)

    first = run_role(tmp_path, ev, netns=netns, binds=binds)
    assert first.rc == 0, first.failure()
    report = first.task('Report per key (applied / unchanged / skipped with the reason)')['tuning_report']
    sysctls = report['sysctls']
    assert sysctls['applied'] == ['net.ipv4.tcp_rmem', 'net.ipv4.tcp_wmem', 'net.ipv4.tcp_mtu_probing', 'net.core.somaxconn']
    assert sysctls['skipped']['net.core.rmem_max'] == 'read-only in this network namespace (a machine-wide setting)'
    assert sysctls['skipped']['net.core.netdev_max_backlog'] == 'does not exist in this network namespace (only in the initial one)'
    assert sysctls['skipped']['net.core.default_qdisc'] == 'does not exist in this network namespace (only in the initial one)'
    assert sysctls['skipped']['kernel.numa_balancing'].startswith('machine-wide setting: never changed')
    assert report['namespaced'] is True
    nic = report['ethtool']['h5d0']
    assert nic['applied'] == ['h5d0/features/tcp-segmentation-offload', 'h5d0/features/generic-segmentation-offload']
    assert nic['skipped']['h5d0/rings/rx'].startswith('ring sizes are not supported by driver veth')
    assert in_ns(netns, ['cat', '/proc/sys/net/ipv4/tcp_rmem']).split() == ['4096', '131072', '134217728']
    assert ours.read_text().splitlines()[-5:] == [
        'net.core.somaxconn = 8192', 'net.ipv4.tcp_congestion_control = bbr', 'net.ipv4.tcp_mtu_probing = 1',
        'net.ipv4.tcp_rmem = 4096 131072 134217728', 'net.ipv4.tcp_wmem = 4096 65536 134217728']
    assert list(tmpfiles_d.iterdir()) == []  # no governor on a lab host (and no cpufreq here)

    second = run_role(tmp_path, ev, netns=netns, binds=binds)
    assert second.rc == 0 and second.changed == 0
    check = run_role(tmp_path, ev, netns=netns, binds=binds, check=True, diff=True)
    assert check.rc == 0 and check.changed == 0

    dry = run_role(tmp_path, dict(ev, tuning_state='stock'), netns=netns, binds=binds, check=True)
    assert dry.rc == 0 and dry.changed > 0 and snap.exists()
    stock = run_role(tmp_path, dict(ev, tuning_state='stock'), netns=netns, binds=binds)
    assert stock.rc == 0, stock.failure()
    assert dump_net(netns) == before
    assert ours.read_text() == '# left here by the operator\nnet.core.somaxconn = 1024\n'
    assert oct(os.stat(str(ours)).st_mode & 0o777) == '0o640'
    assert not (tmp_path / 'state').exists()
    again = run_role(tmp_path, dict(ev, tuning_state='stock'), netns=netns, binds=binds)
    assert again.rc == 0 and again.changed == 0


@NEEDS_NETNS
def test_a_setting_that_fails_half_way_puts_stock_back(tmp_path, netns):
    """tcp_rmem and tcp_wmem are written, then the kernel refuses a port range whose low end is above its high end (EINVAL):
    the role puts both back and fails naming the key."""
    sysctl_d = tmp_path / 'sysctl.d'
    sysctl_d.mkdir()
    snap = tmp_path / 'state' / 'tuning' / 'stock.json'
    before = dump_net(netns)
    res = run_role(tmp_path, {'tuning_lab_host': True, 'tuning_snapshot_path': str(snap),
                              'tuning_sysctls': {'net.ipv4.ip_local_port_range': '2000 1000'}},
                   netns=netns, binds=[(sysctl_d, '/etc/sysctl.d')])
    assert res.rc != 0
    message = res.task('Fail with what went wrong')['msg']
    assert message.startswith('tuning: sysctls failed: net.ipv4.ip_local_port_range') and 'put back to stock' in message, message
    applied = res.task('Apply the sysctls and the machine knobs, read each back and say what happened per key')
    assert {'net.ipv4.tcp_rmem', 'net.ipv4.tcp_wmem'} <= set(r['key'] for r in applied['sysctls'] if r['status'] == 'applied')
    assert dump_net(netns) == before
    assert list(sysctl_d.iterdir()) == [] and not snap.exists()


@NEEDS_NETNS
def test_a_file_that_did_not_exist_is_removed_on_stock(tmp_path, netns):
    sysctl_d = tmp_path / 'sysctl.d'
    sysctl_d.mkdir()
    binds = [(sysctl_d, '/etc/sysctl.d')]
    ev = {'tuning_lab_host': True, 'tuning_snapshot_path': str(tmp_path / 's' / 'stock.json'), 'tuning_profile': 'latency'}
    res = run_role(tmp_path, ev, netns=netns, binds=binds)
    assert res.rc == 0, res.failure()
    report = res.task('Report per key (applied / unchanged / skipped with the reason)')['tuning_report']
    skipped = report['sysctls']['skipped']
    # every knob of the latency profile that a network namespace cannot take, each with its reason
    assert sorted(skipped) == ['/sys/kernel/mm/transparent_hugepage/enabled', 'cpu_dma_latency', 'cpu_governor',
                               'kernel.numa_balancing', 'kernel.timer_migration', 'net.core.busy_poll',
                               'net.core.busy_read', 'vm.stat_interval']
    machine_wide = 'machine-wide setting: never changed on a network-namespaced host (lab_host is true'
    assert all(skipped[key].startswith(machine_wide) for key in skipped if not key.startswith('net.')), skipped
    assert skipped['net.core.busy_poll'] == 'does not exist in this network namespace (only in the initial one)'
    assert report['cpu_dma_latency'] == skipped['cpu_dma_latency']
    assert (sysctl_d / '90-perflab-tuning.conf').read_text().splitlines()[-1] == 'net.ipv4.tcp_fastopen = 3'
    res = run_role(tmp_path, dict(ev, tuning_state='stock'), netns=netns, binds=binds)
    assert res.rc == 0 and list(sysctl_d.iterdir()) == []


def test_tuned_profile_template(tmp_path):
    """The RHEL persistence (tuned) cannot run here: render its profile and check it."""
    play = tmp_path / 'render.yml'
    out = tmp_path / 'tuned.conf'
    play.write_text('''- hosts: localhost
  connection: local
  gather_facts: false
  vars_files: [%(vars)s]
  vars:
    ansible_python_interpreter: %(py)s
    tuning_profile: throughput
    __tuning_governor: performance
    __tuning_tuned_stock: virtual-guest
    __tuning_sysctl_result:
      effective: {net.core.rmem_max: "134217728", net.ipv4.tcp_rmem: "4096 131072 134217728",
                  /sys/devices/system/cpu/cpufreq/policy0/scaling_governor: performance}
  tasks:
    - ansible.builtin.template: {src: %(tpl)s, dest: %(out)s, mode: "0644"}
''' % {'vars': ROOT / 'roles/tuning/vars/main.yml', 'py': sys.executable,
       'tpl': ROOT / 'roles/tuning/templates/tuned.conf.j2', 'out': out})
    env = dict(os.environ, ANSIBLE_CONFIG=str(ROOT / 'ansible.cfg'), ANSIBLE_LOCALHOST_WARNING='false',
               ANSIBLE_INVENTORY_UNPARSED_WARNING='false')
    proc = subprocess.run([str(BIN / 'ansible-playbook'), '-i', 'localhost,', str(play)], cwd=str(ROOT), env=env,
                          capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stdout[-2000:]
    lines = [line for line in out.read_text().splitlines() if line and not line.startswith('#')]
    assert lines == ['[main]', 'summary=perflab.network throughput tuning', 'include=network-throughput',
                     '[sysctl]', 'net.core.rmem_max=134217728', 'net.ipv4.tcp_rmem=4096 131072 134217728',
                     '[cpu]', 'governor=performance',
                     # the bootloader's arguments (a reboot) are left out: the role never reboots
                     '[bootloader]', 'cmdline=', 'cmdline_network_latency=']


@NEEDS_NETNS
def test_allowed_management_change_runs_under_the_timer(tmp_path, netns):
    snap = tmp_path / 'state' / 'stock.json'
    ev = {'ansible_host': '10.205.1.200', 'tuning_lab_host': True, 'tuning_snapshot_path': str(snap),
          'tuning_profile': 'none', 'tuning_persist': False, 'tuning_allow_management_change': True,
          'tuning_management_check_timeout': 5, 'tuning_rollback_delay': 30,
          'tuning_ethtool': [{'interface': 'h5d0', 'features': {'tso': False}}]}
    res = run_role(tmp_path, ev, netns=netns)
    assert res.rc == 0, res.failure()
    check = res.task('Check that a fresh connection still works')
    assert not check.get('failed') and not check.get('skipped') and 'elapsed' in check
    assert not (tmp_path / 'state' / 'rollback.armed').exists()
    # the shared guard (perflab.network.host_guard): disarmed and confirmed, it never acted
    assert (tmp_path / 'state' / 'confirmed-tuning').exists()
    assert not (tmp_path / 'state' / 'armed-tuning').exists()
    assert not (tmp_path / 'state' / 'rolled-back-tuning').exists()
    assert 'tcp-segmentation-offload: off' in in_ns(netns, ['ethtool', '-k', 'h5d0'])
    res = run_role(tmp_path, dict(ev, tuning_state='stock'), netns=netns)
    assert res.rc == 0, res.failure()
    assert 'tcp-segmentation-offload: on' in in_ns(netns, ['ethtool', '-k', 'h5d0'])


@NEEDS_NETNS
@pytest.mark.parametrize('apply, undo', [('present', 'absent'), ('tuned', 'stock')])
def test_present_and_absent_and_their_old_aliases(tmp_path, netns, apply, undo):
    """The collection's state vocabulary: present / absent; tuned / stock still work as aliases."""
    sysctl_d = tmp_path / 'sysctl.d'
    sysctl_d.mkdir()
    binds = [(sysctl_d, '/etc/sysctl.d')]
    ev = {'tuning_lab_host': True, 'tuning_snapshot_path': str(tmp_path / 's' / 'stock.json'), 'tuning_profile': 'none',
          'tuning_sysctls': {'net.ipv4.tcp_fastopen': 3}, 'tuning_state': apply}
    res = run_role(tmp_path, ev, netns=netns, binds=binds)
    assert res.rc == 0, res.failure()
    assert (sysctl_d / '90-perflab-tuning.conf').exists() and (tmp_path / 's' / 'stock.json').exists()
    res = run_role(tmp_path, dict(ev, tuning_state=undo), netns=netns, binds=binds)
    assert res.rc == 0, res.failure()
    assert list(sysctl_d.iterdir()) == [] and not (tmp_path / 's').exists()


def render(tmp_path, template, dest, variables):
    """Render one of the role's templates with its vars/main.yml and these variables (connection local)."""
    play = tmp_path / ('render-%s.yml' % Path(dest).name)
    play.write_text(json.dumps([{
        'hosts': 'localhost', 'connection': 'local', 'gather_facts': False,
        'vars_files': [str(ROOT / 'roles/tuning/vars/main.yml')],
        'vars': dict(variables, ansible_python_interpreter=sys.executable),
        'tasks': [{'ansible.builtin.template': {'src': str(ROOT / 'roles/tuning/templates' / template),
                                                'dest': str(dest), 'mode': '0644'}}]}]))
    env = dict(os.environ, ANSIBLE_CONFIG=str(ROOT / 'ansible.cfg'), ANSIBLE_LOCALHOST_WARNING='false',
               ANSIBLE_INVENTORY_UNPARSED_WARNING='false')
    proc = subprocess.run([str(BIN / 'ansible-playbook'), '-i', 'localhost,', str(play)], cwd=str(ROOT), env=env,
                          capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stdout[-2000:]
    return [line for line in Path(dest).read_text().splitlines() if line and not line.startswith('#')]


LATENCY_RESULT = {'effective': {'net.ipv4.tcp_fastopen': '3', 'net.core.busy_poll': '50',
                                '/sys/kernel/mm/transparent_hugepage/enabled': 'never',
                                '/sys/devices/system/cpu/cpufreq/policy0/scaling_governor': 'performance'},
                  'cpu_dma_latency': {'hold': True, 'text': '0x00000001', 'reason': None}}


def test_latency_tuned_profile_template(tmp_path):
    """Where tuned runs, the latency knobs go in its profile: force_latency, the governor, transparent hugepages."""
    lines = render(tmp_path, 'tuned.conf.j2', tmp_path / 'tuned.conf',
                   {'tuning_profile': 'latency', '__tuning_governor': 'performance', '__tuning_thp': 'never',
                    '__tuning_dma_latency': 1, '__tuning_tuned_stock': '', '__tuning_sysctl_result': LATENCY_RESULT})
    assert lines == ['[main]', 'summary=perflab.network latency tuning', 'include=network-latency',
                     '[sysctl]', 'net.core.busy_poll=50', 'net.ipv4.tcp_fastopen=3',
                     '[cpu]', 'governor=performance', 'force_latency=1', '[vm]', 'transparent_hugepages=never',
                     '[bootloader]', 'cmdline=', 'cmdline_network_latency=']


def test_latency_without_tuned_renders_a_unit_and_tmpfiles_that_systemd_accepts(tmp_path):
    """Without tuned: the unit holding /dev/cpu_dma_latency and the tmpfiles.d lines for the sysfs knobs,
    the unit checked by systemd-analyze verify (systemd 252 here has no tmpfiles dry run: its lines are compared)."""
    variables = {'tuning_profile': 'latency', '__tuning_dma_latency': 1, '__tuning_sysctl_result': LATENCY_RESULT}
    unit = tmp_path / 'perflab-cpu-dma-latency.service'
    lines = render(tmp_path, 'cpu-dma-latency.service.j2', unit, variables)
    assert lines == ['[Unit]', 'Description=perflab.network - hold /dev/cpu_dma_latency at 1 us (limits C-states)',
                     'ConditionPathExists=/dev/cpu_dma_latency', '[Service]', 'Type=simple',
                     "ExecStart=/bin/sh -c 'exec 3>/dev/cpu_dma_latency && printf 0x00000001 >&3 && exec sleep infinity'",
                     'Restart=on-failure', '[Install]', 'WantedBy=multi-user.target']
    tmpfiles = tmp_path / '90-perflab-tuning.conf'
    assert render(tmp_path, 'sysfs-tmpfiles.conf.j2', tmpfiles, variables) == [
        'w /sys/devices/system/cpu/cpufreq/policy0/scaling_governor - - - - performance',
        'w /sys/kernel/mm/transparent_hugepage/enabled - - - - never']
    analyze = shutil.which('systemd-analyze')
    if not analyze:
        pytest.skip('systemd-analyze is not installed: the unit was rendered and compared only')
    proc = subprocess.run([analyze, 'verify', '--man=no', str(unit)], capture_output=True, text=True, timeout=120,
                          check=False)
    assert proc.returncode == 0 and 'perflab-cpu-dma-latency' not in proc.stderr, proc.stdout + proc.stderr
    # the shell line itself: sh parses it (-n) as systemd passes it
    script = lines[5].split("-c '", 1)[1].rstrip("'")
    assert subprocess.run(['sh', '-n', '-c', script], check=False).returncode == 0
