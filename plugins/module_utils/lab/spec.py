# -*- coding: utf-8 -*-
# Copyright: perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What a lab is: its spec (every name and address derived from it), the checks
of the spec itself, and the spec saved in the lab's state directory."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import hashlib
import ipaddress
import json
import os
import re

STATE_ROOT = '/var/lib/perflab'
CACHE_ROOT = '/var/cache/perflab'
NAME_RE = re.compile(r'^[a-z][a-z0-9]{0,7}$')
HOST_PREFIX_RE = re.compile(r'^[a-z][a-z0-9]{0,5}$')
MIN_HOSTS = 1
MAX_HOSTS = 128
SWITCH_PORT_MTU = 9216
BASE_PACKAGES = [
    'openssh-server', 'python3', 'python3-apt', 'iproute2', 'procps', 'ethtool',
    'iputils-ping', 'ca-certificates', 'sudo', 'nftables', 'kmod', 'gnupg',
]
KINDS = ('netns', 'vm')
VM_SUITES = ('bullseye', 'bookworm', 'trixie')
VM_LINKS = ('bridge', 'p2p')
VM_MAX_HOSTS = 8
FORWARD_ORIG = os.path.join(STATE_ROOT, '.ip_forward.orig')


class LabSpec(object):
    """What the user asked for, with every derived name and address."""

    def __init__(self, name='perflab', hosts=2, host_prefix='lab', mgmt_subnet='10.213.0.0/24',
                 data_subnet='10.213.1.0/24', mtu=1500, offloads=False, rate_mbit=0, shaper='tbf',
                 suite='bookworm', mirror=None, extra_packages=None, state_root=STATE_ROOT,
                 cache_root=CACHE_ROOT, firewall='none', kind='netns', vm_links='bridge', vm_memory_mb=512,
                 vm_boot_timeout=300, vm_accel='auto', vm_tool_packages=None):
        self.name = name
        self.count = hosts
        self.host_prefix = host_prefix
        self.mgmt_subnet = mgmt_subnet
        self.data_subnet = data_subnet
        self.mtu = mtu
        self.offloads = offloads
        self.rate_mbit = rate_mbit
        self.shaper = shaper
        # none, or default-deny: each host's inbound traffic dropped but SSH from the management
        # subnet, ICMP and replies (lab_hosts.FIREWALL_DEFAULT_DENY)
        self.firewall = firewall
        self.suite = suite
        self.mirror = mirror
        self.extra_packages = list(extra_packages or [])
        # the benchmark tools' Debian packages a VM image holds (the lab module asks the registry for them)
        self.vm_tool_packages = list(vm_tool_packages or [])
        self.state_dir = os.path.join(state_root, name)
        self.cache_root = cache_root
        # netns: network namespaces on this kernel (lab_hosts); vm: QEMU VMs with Debian's kernel (lab_vm)
        self.kind = kind
        self.vm_links = vm_links
        self.vm_memory_mb = vm_memory_mb
        self.vm_boot_timeout = vm_boot_timeout
        self.vm_accel = vm_accel

    # names -----------------------------------------------------------
    @property
    def bridge(self):
        return '%s-br' % self.name

    @property
    def switch_ns(self):
        return '%s-sw' % self.name

    @property
    def nft_table(self):
        return 'perflab_%s' % self.name

    @property
    def base_dir(self):
        packages = ','.join(sorted(BASE_PACKAGES + self.extra_packages))
        tag = hashlib.sha1(packages.encode('utf-8')).hexdigest()[:8]
        return os.path.join(self.cache_root, 'rootfs-%s-%s' % (self.suite, tag))

    @property
    def key_file(self):
        return os.path.join(self.state_dir, 'ssh', 'id_ed25519')

    def host_names(self):
        return ['%s%d' % (self.host_prefix, i) for i in range(1, self.count + 1)]

    def host(self, index):
        """index is 1-based."""
        name = '%s%d' % (self.host_prefix, index)
        mgmt_net = ipaddress.ip_network(self.mgmt_subnet)
        data_net = ipaddress.ip_network(self.data_subnet)
        hdir = os.path.join(self.state_dir, 'hosts', name)
        return {
            'name': name,
            'index': index,
            'netns': '%s-%s' % (self.name, name),
            'mgmt_address': str(mgmt_net.network_address + 10 + index),
            'mgmt_prefix': mgmt_net.prefixlen,
            'mgmt_interface': 'mgmt0',
            'mgmt_peer': '%s-m%d' % (self.name, index),
            'data_address': str(data_net.network_address + 10 + index),
            'data_prefix': data_net.prefixlen,
            'data_interface': 'data0',
            'switch_port': 'p%d' % index,
            'mtu': self.mtu,
            'dir': hdir,
            'pidfile': os.path.join(hdir, 'init.pid'),
        }

    def gateway(self):
        return str(ipaddress.ip_network(self.mgmt_subnet).network_address + 1)


def spec_problems(spec):
    """The spec's own problems (names, counts, ranges, subnets), and its subnets that parse."""
    errors = []
    if not NAME_RE.match(spec.name or ''):
        errors.append('lab name %r is invalid: 1 to 8 characters, a-z and 0-9, starting with a letter' % spec.name)
    if not HOST_PREFIX_RE.match(spec.host_prefix or ''):
        errors.append('host_prefix %r is invalid: 1 to 6 characters, a-z and 0-9, starting with a letter' % spec.host_prefix)
    if not (MIN_HOSTS <= spec.count <= MAX_HOSTS):
        errors.append('hosts must be between %d and %d, got %s' % (MIN_HOSTS, MAX_HOSTS, spec.count))
    if not (68 <= spec.mtu <= 9000):
        errors.append('mtu must be between 68 and 9000, got %s' % spec.mtu)
    if spec.kind not in KINDS:
        errors.append('kind must be one of %s, got %r' % (', '.join(KINDS), spec.kind))
    if spec.kind == 'vm':
        errors.extend(vm_spec_problems(spec))
    if spec.rate_mbit < 0 or spec.rate_mbit > 100000:
        errors.append('rate_mbit must be between 0 (unshaped) and 100000, got %s' % spec.rate_mbit)
    nets = {}
    for field in ('mgmt_subnet', 'data_subnet'):
        try:
            net = ipaddress.ip_network(getattr(spec, field))
        except ValueError as exc:
            errors.append('%s %r is not an IPv4 network: %s' % (field, getattr(spec, field), exc))
            continue
        if net.version != 4:
            errors.append('%s must be an IPv4 network, got %s' % (field, net))
            continue
        if net.num_addresses < spec.count + 12:
            errors.append('%s %s is too small for %d hosts (needs %d addresses)'
                          % (field, net, spec.count, spec.count + 12))
        nets[field] = net
    if len(nets) == 2 and nets['mgmt_subnet'].overlaps(nets['data_subnet']):
        errors.append('mgmt_subnet %s and data_subnet %s overlap: they must not overlap (give two disjoint IPv4 networks)'
                      % (nets['mgmt_subnet'], nets['data_subnet']))
    return errors, nets


def vm_spec_problems(spec):
    errors = []
    if spec.suite not in VM_SUITES:
        errors.append('VM lab hosts boot bullseye, bookworm or trixie, got debian_suite %r' % spec.suite)
    if spec.vm_links not in VM_LINKS:
        errors.append('vm_links must be bridge or p2p, got %r' % spec.vm_links)
    elif spec.vm_links == 'p2p' and spec.count != 2:
        errors.append('vm_links p2p joins exactly two VMs (eth1 to eth1, eth2 to eth2), got hosts %d' % spec.count)
    if not 1 <= spec.count <= VM_MAX_HOSTS:
        errors.append('a VM lab has 1 to %d hosts (each VM takes about 350 MB and one emulated CPU), got %d'
                      % (VM_MAX_HOSTS, spec.count))
    if not 256 <= spec.vm_memory_mb <= 8192:
        errors.append('vm_memory_mb must be between 256 and 8192, got %d' % spec.vm_memory_mb)
    if not 30 <= spec.vm_boot_timeout <= 3600:
        errors.append('vm_boot_timeout must be between 30 and 3600 seconds, got %d' % spec.vm_boot_timeout)
    if spec.vm_accel not in ('auto', 'kvm', 'tcg'):
        errors.append('vm_accel must be auto, kvm or tcg, got %r' % spec.vm_accel)
    if spec.rate_mbit:
        errors.append('rate_mbit shapes the namespace lab\'s switch ports; a VM lab is not shaped (give 0)')
    if spec.firewall != 'none':
        errors.append('firewall %s is loaded into namespace hosts; VM hosts boot unfiltered and a test starts '
                      'firewalld or nftables in them itself (give firewall none)' % spec.firewall)
    return errors


def saved_spec(spec):
    try:
        with open(os.path.join(spec.state_dir, 'lab.json')) as f:
            return json.load(f)
    except (IOError, ValueError):
        return None


def spec_summary(spec):
    return {'name': spec.name, 'hosts': spec.count, 'host_prefix': spec.host_prefix,
            'mgmt_subnet': spec.mgmt_subnet, 'data_subnet': spec.data_subnet, 'mtu': spec.mtu,
            'offloads': spec.offloads, 'rate_mbit': spec.rate_mbit, 'shaper': spec.shaper,
            'firewall': spec.firewall, 'base': spec.base_dir, 'kind': spec.kind, 'suite': spec.suite,
            'vm_links': spec.vm_links if spec.kind == 'vm' else None}
