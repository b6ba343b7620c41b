# -*- coding: utf-8 -*-
# Copyright: perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The VM lab's disk image: Debian's own kernel and a full systemd userland,
made without loop mounts (debootstrap into a folder, then ``mke2fs -d``), cached
outside the checkout and keyed by suite and package list.

The image is the same for every VM and every lab: a VM's identity (host name,
SSH key, data addresses) arrives on its kernel command line and is applied at
boot by ``perflab-lab-init`` (below), so one cached image serves any lab."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import fcntl
import glob
import hashlib
import json
import os
import shutil
import time

from ansible_collections.perflab.network.plugins.module_utils.lab.base import debian_mirror
from ansible_collections.perflab.network.plugins.module_utils.lab.spec import BASE_PACKAGES, STATE_ROOT
from ansible_collections.perflab.network.plugins.module_utils.lab.util import LabError, _write, run

SUITES = ('bullseye', 'bookworm', 'trixie')
# What a real server of ours has: the kernel, systemd, every network stack the
# roles drive (ifupdown, NetworkManager, systemd-networkd is part of systemd),
# firewalld and tuned (installed, disabled at boot: a test enables what it needs),
# and the tools (the packages of the tool files' install[Debian], which the lab module passes in: VmImage's
# tool_packages), so that the tools role finds them installed instead of running apt under emulation (minutes a
# package).
VM_PACKAGES = BASE_PACKAGES + [
    'linux-image-amd64', 'initramfs-tools', 'systemd-sysv', 'udev', 'dbus', 'ifupdown', 'ifenslave', 'less',
    # /etc/protocols and /etc/services: minbase leaves them out, and firewalld exits at start
    # without them ("INVALID_PROTOCOL: esp" while it loads its stock services)
    'netbase',
]
# Installed with apt in the bootstrapped system (with /proc mounted): their maintainer
# scripts (polkitd's) fail inside debootstrap's own configure step. netplan.io and ufw stand in for
# Ubuntu's stacks, iptables for firewalld's iptables backend (CentOS 7's): Debian's builds of the
# same software (docs/lab.md), none of them active at boot (no netplan file, ufw ENABLED=no).
VM_SERVICE_PACKAGES = ['network-manager', 'firewalld', 'tuned', 'netplan.io', 'ufw', 'iptables']
# Services installed with their packages that a stock lab host does not run.
VM_DISABLED_UNITS = ['NetworkManager.service', 'NetworkManager-wait-online.service', 'firewalld.service',
                     'tuned.service', 'iperf3.service', 'netperf.service', 'apt-daily.timer',
                     'apt-daily-upgrade.timer', 'fstrim.timer']
# e2scrub_reap costs 25 s of every boot under emulation
VM_MASKED_UNITS = ['e2scrub_reap.service', 'e2scrub_all.timer', 'systemd-networkd-wait-online.service']
IMAGE_SIZE = '3G'
INITRAMFS_MODULES = ['virtio_pci', 'virtio_blk', 'virtio_net', 'ext4']

# Applied at every boot from the kernel command line (perflab.*=...): the host
# name, root's SSH key, the data addresses. Values are checked by the lab before
# they are put there; the script still quotes every one of them.
LAB_INIT = r'''#!/bin/sh
# perflab lab VM: identity from the kernel command line (written by perflab.network.lab)
set -e
for arg in $(cat /proc/cmdline); do
  case "$arg" in
    perflab.hostname=*) name="${arg#perflab.hostname=}" ;;
    perflab.key=*) key="ssh-ed25519 ${arg#perflab.key=} perflab-lab" ;;
    perflab.addr=*) addrs="$addrs ${arg#perflab.addr=}" ;;
  esac
done
[ -n "$name" ] && hostname "$name" && echo "$name" > /etc/hostname
if [ -n "$key" ]; then
  mkdir -p -m 700 /root/.ssh
  printf '%s\n' "$key" > /root/.ssh/authorized_keys
  chmod 600 /root/.ssh/authorized_keys
fi
# ed25519 only: an RSA host key takes 20 s to make under emulation
[ -e /etc/ssh/ssh_host_ed25519_key ] || ssh-keygen -q -t ed25519 -N '' -f /etc/ssh/ssh_host_ed25519_key
# perflab.addr=eth1,10.0.0.1/24: the stock data address, set at run time (no
# configuration file holds it, so any network stack may take the interface over)
for a in $addrs; do
  dev="${a%%,*}"; cidr="${a#*,}"
  ip link set dev "$dev" up
  if [ -n "$cidr" ]; then
    ip addr replace "$cidr" dev "$dev"
  fi
done
'''

LAB_INIT_UNIT = '''[Unit]
Description=perflab lab VM identity (host name, SSH key, data addresses)
DefaultDependencies=no
After=systemd-remount-fs.service systemd-udev-settle.service systemd-udevd.service
Before=ssh.service network-pre.target
Wants=network-pre.target

[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=/usr/local/sbin/perflab-lab-init

[Install]
WantedBy=multi-user.target
'''

# QEMU user networking's fixed addresses: the guest, its gateway (this machine) and DNS
INTERFACES = '''# perflab lab VM: the management link (QEMU user networking) only; the data
# interfaces get their stock address from perflab-lab-init, at run time.
# Static: minbase has no DHCP client, and QEMU's user network always hands out these.
auto lo
iface lo inet loopback

auto eth0
iface eth0 inet static
    address 10.0.2.15/24
    gateway 10.0.2.2
source /etc/network/interfaces.d/*
'''
RESOLV_CONF = 'nameserver 10.0.2.3\n'
SSHD_CONFIG = ('# perflab lab VM\nUseDNS no\nPermitRootLogin prohibit-password\nPasswordAuthentication no\n'
               'HostKey /etc/ssh/ssh_host_ed25519_key\n')


def image_tag(suite, packages):
    """The suite, the packages and what _customize writes: any change makes a new image."""
    made = [LAB_INIT, LAB_INIT_UNIT, INTERFACES, RESOLV_CONF, SSHD_CONFIG, IMAGE_SIZE] + VM_DISABLED_UNITS + VM_MASKED_UNITS + INITRAMFS_MODULES
    text = '\n'.join([suite, ','.join(sorted(packages))] + made)
    return hashlib.sha1(text.encode('utf-8')).hexdigest()[:8]


class VmImage(object):
    """The cached image of one suite and package list: a qcow2 base, its kernel and initrd."""

    def __init__(self, cache_root, suite, extra_packages=None, mirror=None, tool_packages=None):
        self.suite = suite
        self.mirror = mirror
        self.packages = VM_PACKAGES + list(tool_packages or []) + list(extra_packages or [])
        self.service_packages = list(VM_SERVICE_PACKAGES)
        self.dir = os.path.join(cache_root, 'vm-%s-%s' % (suite, image_tag(suite, self.packages + self.service_packages)))
        self.cache_root = cache_root

    @property
    def disk(self):
        return os.path.join(self.dir, 'disk.qcow2')

    @property
    def kernel(self):
        return os.path.join(self.dir, 'vmlinuz')

    @property
    def initrd(self):
        return os.path.join(self.dir, 'initrd.img')

    def ready(self):
        return os.path.exists(os.path.join(self.dir, '.perflab-complete'))


def _chroot(root, *argv, **kw):
    return run(['chroot', root, 'env', 'DEBIAN_FRONTEND=noninteractive', 'LC_ALL=C.UTF-8'] + list(argv),
               timeout=kw.get('timeout', 600))


def _install_services(root, packages):
    """apt-get install in the chroot with /proc mounted and no service started."""
    policy = os.path.join(root, 'usr', 'sbin', 'policy-rc.d')
    _write(policy, '#!/bin/sh\nexit 101\n', 0o755)
    proc_dir = os.path.join(root, 'proc')
    run(['mount', '-t', 'proc', 'proc', proc_dir])
    try:
        _chroot(root, 'apt-get', 'install', '-y', '-q', '--no-install-recommends', *packages, timeout=1800)
    finally:
        run(['umount', '-l', proc_dir], check=False)
        os.unlink(policy)


def _customize(root):
    """Make the bootstrapped folder a bootable lab VM (no loop mount needed)."""
    _write(os.path.join(root, 'etc', 'fstab'), '/dev/vda / ext4 defaults,noatime 0 0\n')
    _write(os.path.join(root, 'etc', 'hostname'), 'perflab\n')
    _write(os.path.join(root, 'etc', 'network', 'interfaces'), INTERFACES)
    os.makedirs(os.path.join(root, 'etc', 'network', 'interfaces.d'), exist_ok=True)
    _write(os.path.join(root, 'usr', 'local', 'sbin', 'perflab-lab-init'), LAB_INIT, 0o755)
    _write(os.path.join(root, 'etc', 'systemd', 'system', 'perflab-lab-init.service'), LAB_INIT_UNIT)
    _write(os.path.join(root, 'etc', 'ssh', 'sshd_config.d', 'perflab-lab.conf'), SSHD_CONFIG)
    if os.path.islink(os.path.join(root, 'etc', 'resolv.conf')):
        os.unlink(os.path.join(root, 'etc', 'resolv.conf'))
    _write(os.path.join(root, 'etc', 'resolv.conf'), RESOLV_CONF)
    for f in glob.glob(os.path.join(root, 'etc', 'ssh', 'ssh_host_*')):
        os.unlink(f)  # every VM makes its own at its first boot
    # a small initramfs with just what a virtio disk needs (6.5 MB, 2 s instead of 30 MB)
    _write(os.path.join(root, 'etc', 'initramfs-tools', 'conf.d', 'perflab-vm'), 'MODULES=list\nCOMPRESS=gzip\n')
    _write(os.path.join(root, 'etc', 'initramfs-tools', 'modules'), '\n'.join(INITRAMFS_MODULES) + '\n')
    _chroot(root, 'update-initramfs', '-u', '-k', 'all')
    _chroot(root, 'systemctl', 'enable', 'perflab-lab-init.service')
    for unit in VM_DISABLED_UNITS:
        run(['chroot', root, 'systemctl', 'disable', unit], check=False)
    run(['chroot', root, 'systemctl', 'mask'] + VM_MASKED_UNITS, check=False)
    # the serial console is where a boot problem shows (the lab quotes its last lines)
    _chroot(root, 'systemctl', 'enable', 'serial-getty@ttyS0.service')
    _write(os.path.join(root, 'etc', 'default', 'locale'), 'LANG=C.UTF-8\n')
    run(['chroot', root, 'apt-get', 'clean'], check=False)


def build_image(image, log):
    """Build the image once, atomically, under a lock; returns True when it was built."""
    if image.ready():
        return False
    os.makedirs(image.cache_root, exist_ok=True)
    with open(os.path.join(image.cache_root, '.lock-vm'), 'w') as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if image.ready():
            return False
        tmp = image.dir + '.partial'
        shutil.rmtree(tmp, ignore_errors=True)
        os.makedirs(tmp)
        root = os.path.join(tmp, 'root')
        mirror = image.mirror or debian_mirror()
        started = time.time()
        try:
            log('building the VM image: debootstrap %s with a kernel, systemd, NetworkManager, firewalld, tuned '
                'and the tools (3 to 5 minutes, cached in %s)' % (image.suite, image.dir))
            proc = run(['debootstrap', '--variant=minbase', '--components=main,non-free',
                        '--include=' + ','.join(image.packages), image.suite, root, mirror],
                       check=False, timeout=3600)
            if proc.returncode != 0:
                raise LabError('debootstrap of %s failed (exit %d): %s'
                               % (image.suite, proc.returncode, (proc.stdout + proc.stderr)[-2000:]))
            log('VM image: debootstrap done in %d s; installing %s' % (time.time() - started, ', '.join(image.service_packages)))
            _install_services(root, image.service_packages)
            log('VM image: configuring it (%d s)' % (time.time() - started))
            _customize(root)
            kernels = sorted(glob.glob(os.path.join(root, 'boot', 'vmlinuz-*')))
            initrds = sorted(glob.glob(os.path.join(root, 'boot', 'initrd.img-*')))
            if not kernels or not initrds:
                raise LabError('the VM image of %s has no kernel or initrd in /boot' % image.suite)
            shutil.copy(kernels[-1], os.path.join(tmp, 'vmlinuz'))
            shutil.copy(initrds[-1], os.path.join(tmp, 'initrd.img'))
            raw = os.path.join(tmp, 'disk.raw')
            log('VM image: writing the ext4 file system (mke2fs -d) and the qcow2 base')
            run(['mke2fs', '-q', '-F', '-t', 'ext4', '-L', 'perflab', '-d', root, raw, IMAGE_SIZE], timeout=1200)
            run(['qemu-img', 'convert', '-O', 'qcow2', raw, os.path.join(tmp, 'disk.qcow2')], timeout=1200)
            os.unlink(raw)
            shutil.rmtree(root)
            with open(os.path.join(tmp, '.perflab-complete'), 'w') as f:
                f.write('%s %s\nbuilt in %d s\n' % (image.suite, ','.join(image.packages), time.time() - started))
            os.rename(tmp, image.dir)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        log('VM image ready in %d s' % (time.time() - started))
        pruned = prune_images(image)
        if pruned:
            log('removed older VM images of %s that no lab uses: %s' % (image.suite, ', '.join(pruned)))
    return True


def images_in_use(state_root):
    """The images that the labs under state_root were started from (their lab.json)."""
    used = set()
    for path in glob.glob(os.path.join(state_root, '*', 'lab.json')):
        try:
            with open(path) as f:
                used.add(json.load(f).get('vm_image'))
        except (IOError, ValueError):
            continue
    return used


def prune_images(image, state_root=STATE_ROOT):
    """Older images of the same suite (an earlier package list or layout) that no lab uses."""
    used = images_in_use(state_root)
    pruned = []
    for d in sorted(glob.glob(os.path.join(image.cache_root, 'vm-%s-*' % image.suite))):
        if d != image.dir and not d.endswith('.partial') and d not in used and os.path.isdir(d):
            shutil.rmtree(d, ignore_errors=True)
            pruned.append(os.path.basename(d))
    return pruned
