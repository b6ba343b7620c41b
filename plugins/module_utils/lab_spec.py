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
FORWARD_ORIG = os.path.join(STATE_ROOT, '.ip_forward.orig')


class LabSpec(object):
    """What the user asked for, with every derived name and address."""

    def __init__(self, name='perflab', hosts=2, host_prefix='lab', mgmt_subnet='10.213.0.0/24',
                 data_subnet='10.213.1.0/24', mtu=1500, offloads=False, rate_mbit=0, shaper='tbf',
                 suite='bookworm', mirror=None, extra_packages=None, state_root=STATE_ROOT,
                 cache_root=CACHE_ROOT, firewall='none'):
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
        self.state_dir = os.path.join(state_root, name)
        self.cache_root = cache_root

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
            'firewall': spec.firewall, 'base': spec.base_dir}
