# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The VM lab's pure parts: its spec checks, the QEMU command line, the kernel
command line that carries a VM's identity, the links, the accelerator choice."""
from __future__ import annotations

import subprocess

import pytest

from ansible_collections.perflab.network.plugins.module_utils.lab import vm as lab_vm
from ansible_collections.perflab.network.plugins.module_utils.lab.spec import LabSpec, spec_problems
from ansible_collections.perflab.network.plugins.module_utils.lab.vm_image import LAB_INIT, VmImage, image_tag

KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGx0Y2V0ZXN0a2V5a2V5a2V5a2V5a2V5a2V5a2V5a2V5 perflab-lab-t'


def vm_spec(**kw):
    args = dict(name='vt', hosts=2, kind='vm', state_root='/tmp/perflab-unit-state', cache_root='/tmp/perflab-unit-cache')
    args.update(kw)
    return LabSpec(**args)


@pytest.mark.parametrize('kw, message', [
    (dict(suite='buster'), "VM lab hosts boot bullseye, bookworm or trixie, got debian_suite 'buster'"),
    (dict(vm_links='p2p', hosts=3), 'vm_links p2p joins exactly two VMs (eth1 to eth1, eth2 to eth2), got hosts 3'),
    (dict(hosts=9), 'a VM lab has 1 to 8 hosts (each VM takes about 350 MB and one emulated CPU), got 9'),
    (dict(vm_memory_mb=128), 'vm_memory_mb must be between 256 and 8192, got 128'),
    (dict(vm_boot_timeout=5), 'vm_boot_timeout must be between 30 and 3600 seconds, got 5'),
    (dict(rate_mbit=1000), "rate_mbit shapes the namespace lab's switch ports; a VM lab is not shaped (give 0)"),
    (dict(kind='lxc'), "kind must be one of netns, vm, got 'lxc'"),
])
def test_vm_spec_problems_say_what_is_wrong(kw, message):
    errors, dummy = spec_problems(vm_spec(**kw))
    assert message in errors


def test_a_good_vm_spec_has_no_problem():
    assert spec_problems(vm_spec())[0] == []
    assert spec_problems(vm_spec(suite='trixie', vm_links='p2p'))[0] == []


def test_bridge_links_are_two_taps_per_vm_on_one_bridge():
    spec = vm_spec()
    hosts, ports = lab_vm.plan_hosts(spec, {'vm_ports': {'lab1': {'ssh': 40001, 'udp': [41001, 41002]},
                                                         'lab2': {'ssh': 40002, 'udp': [41003, 41004]}}})
    assert [h['links'] for h in hosts] == [[{'type': 'tap', 'tap': 'vt-t1a'}, {'type': 'tap', 'tap': 'vt-t1b'}],
                                           [{'type': 'tap', 'tap': 'vt-t2a'}, {'type': 'tap', 'tap': 'vt-t2b'}]]
    assert lab_vm.bridge_name(spec) == 'vt-vbr'
    assert all(len(t) <= 15 for t in lab_vm.tap_names(vm_spec(name='abcdefgh'), hosts[1]))
    assert [(h['mgmt_address'], h['ssh_port'], h['data_interface'], h['data_interfaces']) for h in hosts] == [
        ('127.0.0.1', 40001, 'eth1', ['eth1', 'eth2']), ('127.0.0.1', 40002, 'eth1', ['eth1', 'eth2'])]


def test_p2p_links_cross_the_two_vms_udp_ports():
    hosts, dummy = lab_vm.plan_hosts(vm_spec(vm_links='p2p'), {'vm_ports': {
        'lab1': {'ssh': 40001, 'udp': [41001, 41002]}, 'lab2': {'ssh': 40002, 'udp': [41003, 41004]}}})
    assert hosts[0]['links'] == [{'type': 'udp', 'local': 41001, 'remote': 41003},
                                 {'type': 'udp', 'local': 41002, 'remote': 41004}]
    assert hosts[1]['links'] == [{'type': 'udp', 'local': 41003, 'remote': 41001},
                                 {'type': 'udp', 'local': 41004, 'remote': 41002}]


def test_new_ports_are_distinct_and_kept_once_saved():
    spec = vm_spec(hosts=3)
    hosts, ports = lab_vm.plan_hosts(spec, None)
    ssh = [h['ssh_port'] for h in hosts]
    assert len(set(ssh)) == 3
    again, dummy = lab_vm.plan_hosts(spec, {'vm_ports': ports})
    assert [h['ssh_port'] for h in again] == ssh


def test_qemu_argv_is_exact():
    spec = vm_spec()
    image = VmImage('/c', 'bookworm')
    hosts, dummy = lab_vm.plan_hosts(spec, {'vm_ports': {'lab1': {'ssh': 40001, 'udp': [41001, 41002]},
                                                         'lab2': {'ssh': 40002, 'udp': [41003, 41004]}}})
    argv = lab_vm.qemu_argv(spec, hosts[0], image, KEY, 'tcg')
    d = '/tmp/perflab-unit-state/vt/vms/lab1'
    mac = lab_vm.mac(spec, hosts[0], 0)[:-5]
    assert argv == [
        'qemu-system-x86_64', '-name', 'perflab-vt-lab1', '-nodefaults', '-display', 'none', '-machine', 'pc',
        '-m', '512', '-smp', '1', '-accel', 'tcg,tb-size=64',
        '-kernel', image.kernel, '-initrd', image.initrd,
        '-append', 'root=/dev/vda rw console=ttyS0 net.ifnames=0 panic=-1 quiet systemd.machine_id=cce3f6fd4d050b098bcf2362ef35dd04 '
                   'perflab.hostname=lab1 '
                   'perflab.key=AAAAC3NzaC1lZDI1NTE5AAAAIGx0Y2V0ZXN0a2V5a2V5a2V5a2V5a2V5a2V5a2V5a2V5 '
                   'perflab.addr=eth1,10.213.1.11/24 perflab.addr=eth2,',
        '-drive', 'file=%s/disk.qcow2,if=virtio,format=qcow2,cache=unsafe' % d,
        '-netdev', 'user,id=mgmt,hostfwd=tcp:127.0.0.1:40001-:22',
        '-device', 'virtio-net-pci,netdev=mgmt,mac=%s01:00' % mac,
        '-serial', 'file:%s/console.log' % d,
        '-monitor', 'unix:%s/monitor.sock,server=on,wait=off' % d,
        '-pidfile', '%s/qemu.pid' % d, '-daemonize', '-no-reboot',
        '-netdev', 'tap,id=data1,ifname=vt-t1a,script=no,downscript=no',
        '-device', 'virtio-net-pci,netdev=data1,mac=%s01:01,speed=10000,duplex=full' % mac,
        '-netdev', 'tap,id=data2,ifname=vt-t1b,script=no,downscript=no',
        '-device', 'virtio-net-pci,netdev=data2,mac=%s01:02,speed=10000,duplex=full' % mac,
    ]
    kvm = lab_vm.qemu_argv(spec, hosts[1], image, KEY, 'kvm', loadvm='base')
    assert kvm[kvm.index('-accel') + 1] == 'kvm' and kvm[-2:] == ['-loadvm', 'base'] and '-cpu' in kvm


def test_each_vm_has_a_machine_id_of_its_own():
    spec = vm_spec()
    hosts = lab_vm.plan_hosts(spec, None)[0]
    ids = [lab_vm.machine_id(spec, h) for h in hosts]
    assert len(set(ids)) == len(hosts) and all(len(i) == 32 and int(i, 16) >= 0 for i in ids)
    assert ids == [lab_vm.machine_id(spec, h) for h in hosts]  # the same at the next boot
    assert 'systemd.machine_id=%s' % ids[0] in lab_vm.kernel_cmdline(spec, hosts[0], KEY).split()


def test_only_a_base64_key_reaches_the_kernel_command_line():
    spec = vm_spec()
    h = lab_vm.plan_hosts(spec, None)[0][0]
    with pytest.raises(ValueError):
        lab_vm.kernel_cmdline(spec, h, 'ssh-ed25519 AAAA$(reboot) x')


def test_the_init_script_applies_the_command_line(tmp_path):
    """The identity script run for real by sh on a fake /proc/cmdline (paths redirected)."""
    script = LAB_INIT.replace('/proc/cmdline', str(tmp_path / 'cmdline')).replace('/etc/', str(tmp_path) + '/') \
        .replace('/root/.ssh', str(tmp_path / 'ssh'))
    script = script.replace('hostname "$name" && ', '').replace('ssh-keygen -A', 'true')
    script = script.replace('ip link set', 'echo ip link set').replace('ip addr replace', 'echo ip addr replace')
    (tmp_path / 'cmdline').write_text('root=/dev/vda perflab.hostname=lab2 perflab.key=AAAAkey '
                                      'perflab.addr=eth1,10.1.1.12/24 perflab.addr=eth2,\n')
    (tmp_path / 'ssh_host_ed25519_key').write_text('')
    out = subprocess.run(['sh', '-c', script], capture_output=True, text=True, check=True).stdout
    assert (tmp_path / 'hostname').read_text() == 'lab2\n'
    assert (tmp_path / 'ssh' / 'authorized_keys').read_text() == 'ssh-ed25519 AAAAkey perflab-lab\n'
    assert out.splitlines() == ['ip link set dev eth1 up', 'ip addr replace 10.1.1.12/24 dev eth1',
                                'ip link set dev eth2 up']


def test_kvm_only_where_the_kernel_has_a_real_one(monkeypatch):
    monkeypatch.setattr(lab_vm.os.path, 'isdir', lambda p: p == '/sys/module/kvm_pvm')
    assert lab_vm.accel_choice('auto') == 'tcg'
    assert lab_vm.accel_choice('kvm') == 'kvm'


def test_image_is_keyed_by_suite_and_packages():
    assert VmImage('/c', 'bookworm').dir != VmImage('/c', 'trixie').dir
    assert VmImage('/c', 'bookworm').dir != VmImage('/c', 'bookworm', ['mtr-tiny']).dir
    assert image_tag('bookworm', ['b', 'a']) == image_tag('bookworm', ['a', 'b'])
