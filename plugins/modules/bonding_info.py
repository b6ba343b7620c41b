#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

DOCUMENTATION = r'''
module: bonding_info
short_description: Tell which network stack configures a Linux or FreeBSD host, and whether its kernel can bond
version_added: 0.1.0
description:
  - Finds the network configuration stack (netplan, NetworkManager, systemd-networkd, ifupdown, ifcfg,
    FreeBSD rc.conf) and names the one the C(perflab.network.bonding) role should use (RV(stack)).
  - Lists the host's interfaces, finds the management interface (the one holding the address the
    current SSH connection arrived on, or O(management_address)), and the configuration files outside
    our own that mention each of O(members).
  - Checks whether the kernel can make a bond by creating one in a throwaway network namespace
    (C(unshare --net ip link add ... type bond)); the host's own namespace is never touched.
  - Reads only; changes nothing.
author:
  - perflab.network contributors (@perflab)
extends_documentation_fragment:
  - perflab.network.attributes
  - perflab.network.attributes.platform
  - perflab.network.attributes.info_module
attributes:
  platform:
    support: full
    platforms: posix
options:
  members:
    description: Interfaces whose configuration elsewhere RV(member_configs) reports.
    type: list
    elements: str
    default: []
  management_address:
    description:
      - The address the control node reaches the host on. Empty takes the server address of
        C($SSH_CONNECTION) (the address the current SSH connection arrived on).
    type: str
    default: ""
  own_prefix:
    description:
      - Configuration files named with this (after an optional C(NN-) or C(ifcfg-)) are ours and not reported
        in RV(member_configs); so are NetworkManager profiles whose name starts with it.
    type: str
    default: perflab
  root_dir:
    description: Root directory the configuration files are looked up under.
    type: path
    default: /
'''

EXAMPLES = r'''
- name: Look at the host's network stack
  perflab.network.bonding_info:
    members: [eth1, eth2]
  register: bonding_found
'''

RETURN = r'''
stack:
  description: The stack to configure, C(unknown) when none was found.
  returned: always
  type: str
  sample: netplan
reason:
  description: Why RV(stack) was chosen.
  returned: always
  type: str
  sample: /etc/netplan holds 50-cloud-init.yaml
interfaces:
  description: Names of the host's network interfaces.
  returned: always
  type: list
  elements: str
  sample: [lo, eth0, eth1, eth2]
management_address:
  description: The management address used (from O(management_address) or C($SSH_CONNECTION)), empty when unknown.
  returned: always
  type: str
  sample: 10.206.0.11
management_interface:
  description: The interface holding RV(management_address), empty when unknown.
  returned: always
  type: str
  sample: eth0
member_configs:
  description: For each of O(members), the configuration files (not ours) or NetworkManager profiles that name it.
  returned: always
  type: dict
  sample: {eth1: [/etc/netplan/50-cloud-init.yaml], eth2: []}
kernel_bonding:
  description: C(available) (a bond could be made in a throwaway namespace, or bonds exist) and C(reason).
  returned: always
  type: dict
  sample: {available: false, reason: "ip link add type bond: Error: Unknown device type."}
stacks:
  description: What was found of each stack.
  returned: always
  type: dict
  sample:
    netplan: {installed: true, configs: [50-cloud-init.yaml]}
    networkmanager: {installed: false, running: false}
    networkd: {running: false}
    ifupdown: {installed: true, interfaces_file: true}
    ifcfg: {directory: false}
    freebsd: {rc_conf: false}
'''

import json
import os
import platform
import re

from ansible.module_utils.basic import AnsibleModule

SYS_NET = '/sys/class/net'


def word_in(text, word):
    return re.search(r'(?<![A-Za-z0-9_.:-])%s(?![A-Za-z0-9_.:-])' % re.escape(word), text) is not None


def interface_of_address(ip_json, address):
    """The interface holding ``address`` in ``ip -j addr`` output ('' if none)."""
    if not address:
        return ''
    for link in json.loads(ip_json or '[]'):
        for info in link.get('addr_info', []):
            if info.get('local') == address:
                return link.get('ifname', '')
    return ''


def interface_of_address_freebsd(ifconfig_text, address):
    current = ''
    for line in ifconfig_text.splitlines():
        head = re.match(r'^([A-Za-z0-9_.]+): flags=', line)
        if head:
            current = head.group(1)
            continue
        parts = line.split()
        if len(parts) >= 2 and parts[0] in ('inet', 'inet6') and parts[1].split('%')[0] == address:
            return current
    return ''


def choose_stack(system, stacks):
    if system == 'FreeBSD':
        return 'freebsd', 'FreeBSD configures interfaces in rc.conf'
    if stacks['netplan']['installed'] and stacks['netplan']['configs']:
        return 'netplan', 'netplan is installed and /etc/netplan holds %s' % ', '.join(stacks['netplan']['configs'])
    if stacks['networkmanager']['running']:
        return 'networkmanager', 'NetworkManager is running'
    if stacks['networkd']['running']:
        return 'networkd', 'systemd-networkd is running'
    if stacks['ifupdown']['installed'] and stacks['ifupdown']['interfaces_file']:
        return 'ifupdown', 'ifupdown is installed and /etc/network/interfaces exists'
    if stacks['ifcfg']['directory']:
        return 'ifcfg', '/etc/sysconfig/network-scripts exists'
    return 'unknown', 'no network configuration stack found'


class Finder(object):
    def __init__(self, module):
        self.module = module
        self.root = module.params['root_dir']

    def path(self, *parts):
        return os.path.join(self.root, *[p.lstrip('/') for p in parts])

    def listdir(self, *parts):
        directory = self.path(*parts)
        return sorted(os.listdir(directory)) if os.path.isdir(directory) else []

    def read(self, path):
        try:
            with open(path, 'rb') as handle:
                return handle.read().decode('utf-8', 'replace')
        except (IOError, OSError):
            return ''

    def run(self, argv):
        return self.module.run_command(argv)

    def stacks(self):
        which = self.module.get_bin_path
        nmcli = which('nmcli')
        nm_running = False
        if nmcli:
            rc, out, _err = self.run([nmcli, '-t', '-f', 'RUNNING', 'general'])
            nm_running = rc == 0 and out.strip() == 'running'
        networkd_running = os.path.exists('/run/systemd/netif/state') and bool(which('networkctl'))
        if networkd_running:
            rc, out, _err = self.run([which('networkctl'), 'list', '--no-legend', '--no-pager'])
            networkd_running = rc == 0
        return dict(
            netplan=dict(installed=bool(which('netplan')),
                         configs=[n for n in self.listdir('etc/netplan') if n.endswith('.yaml')]),
            networkmanager=dict(installed=bool(nmcli), running=nm_running),
            networkd=dict(running=networkd_running),
            ifupdown=dict(installed=bool(which('ifup')), interfaces_file=os.path.isfile(self.path('etc/network/interfaces'))),
            ifcfg=dict(directory=os.path.isdir(self.path('etc/sysconfig/network-scripts'))),
            freebsd=dict(rc_conf=os.path.isfile(self.path('etc/rc.conf'))),
        )

    def config_files(self):
        files = [self.path('etc/network/interfaces'), self.path('etc/rc.conf')]
        for directory, suffixes in (('etc/netplan', ('.yaml',)), ('etc/systemd/network', ('.network', '.netdev', '.link')),
                                    ('etc/network/interfaces.d', None), ('etc/sysconfig/network-scripts', None)):
            for name in self.listdir(directory):
                # ours: <prefix>..., NN-<prefix>... or ifcfg-<prefix>...
                if re.sub(r'^(\d+-|ifcfg-)', '', name).startswith(self.module.params['own_prefix']):
                    continue
                if directory.endswith('network-scripts') and not name.startswith('ifcfg-'):
                    continue
                if suffixes and not name.endswith(suffixes):
                    continue
                files.append(self.path(directory, name))
        return [f for f in files if os.path.isfile(f)]

    def member_configs(self, members):
        found = dict((m, []) for m in members)
        texts = [(f, self.read(f)) for f in self.config_files()]
        for member in members:
            for path, text in texts:
                if path.endswith('/etc/rc.conf'):
                    hit = re.search(r'^\s*ifconfig_%s(_\w+)?=' % re.escape(member), text, re.M) is not None
                else:
                    hit = word_in(text, member)
                if hit:
                    found[member].append(path)
        nmcli = self.module.get_bin_path('nmcli')
        if nmcli and members:
            rc, out, _err = self.run([nmcli, '-t', '-f', 'NAME,DEVICE', 'connection', 'show', '--active'])
            if rc == 0:
                for line in out.splitlines():
                    name, _sep, device = line.rpartition(':')
                    if device in found and not name.startswith(self.module.params['own_prefix']):
                        found[device].append('NetworkManager profile %s' % name.replace('\\:', ':'))
        return found

    def interfaces(self, system):
        if system == 'FreeBSD':
            ifconfig = self.module.get_bin_path('ifconfig')
            if ifconfig:
                rc, out, _err = self.run([ifconfig, '-l'])
                if rc == 0:
                    return sorted(out.split())
            return []
        return sorted(os.listdir(SYS_NET)) if os.path.isdir(SYS_NET) else []

    def management(self, system):
        address = self.module.params['management_address']
        if not address:
            parts = os.environ.get('SSH_CONNECTION', '').split()
            address = parts[2] if len(parts) >= 4 else ''
        address = address.split('%')[0]
        if address.startswith('::ffff:') and '.' in address:
            address = address[len('::ffff:'):]
        interface = ''
        if address and system == 'FreeBSD':
            ifconfig = self.module.get_bin_path('ifconfig')
            if ifconfig:
                interface = interface_of_address_freebsd(self.run([ifconfig, '-a'])[1], address)
        elif address:
            ip = self.module.get_bin_path('ip')
            if ip:
                rc, out, _err = self.run([ip, '-j', 'addr', 'show'])
                if rc == 0:
                    interface = interface_of_address(out, address)
        return address, interface

    def kernel_bonding(self, system):
        if system == 'FreeBSD':
            kldstat = self.module.get_bin_path('kldstat')
            if kldstat and self.run([kldstat, '-q', '-m', 'if_lagg'])[0] == 0:
                return dict(available=True, reason='if_lagg is loaded')
            return dict(available=bool(self.module.get_bin_path('kldload')), reason='if_lagg loads on demand')
        if os.path.exists(os.path.join(SYS_NET, 'bonding_masters')):
            return dict(available=True, reason='the bonding driver is loaded (/sys/class/net/bonding_masters)')
        unshare = self.module.get_bin_path('unshare')
        ip = self.module.get_bin_path('ip')
        if unshare and ip:
            # the bond is made in a network namespace of its own, gone when the command exits
            rc, out, err = self.run([unshare, '--net', ip, 'link', 'add', 'perflabprobe0', 'type', 'bond'])
            if rc == 0:
                return dict(available=True, reason='a bond could be made in a throwaway network namespace')
            message = (err or out).strip()
            if 'Operation not permitted' not in message:
                return dict(available=False, reason='ip link add type bond: %s' % message)
        modprobe = self.module.get_bin_path('modprobe')
        if modprobe:
            rc, _out, err = self.run([modprobe, '-n', '-q', 'bonding'])
            return dict(available=rc == 0, reason='modprobe -n bonding: %s' % ('found' if rc == 0 else err.strip() or 'not found'))
        return dict(available=False, reason='no bonding driver loaded and no way to test for one')


def main():
    module = AnsibleModule(
        argument_spec=dict(
            members=dict(type='list', elements='str', default=[]),
            management_address=dict(type='str', default=''),
            own_prefix=dict(type='str', default='perflab'),
            root_dir=dict(type='path', default='/'),
        ),
        supports_check_mode=True,
    )
    system = platform.system()
    finder = Finder(module)
    stacks = finder.stacks()
    stack, reason = choose_stack(system, stacks)
    address, interface = finder.management(system)
    module.exit_json(
        changed=False,
        stack=stack,
        reason=reason,
        stacks=stacks,
        interfaces=finder.interfaces(system),
        management_address=address,
        management_interface=interface,
        member_configs=finder.member_configs(module.params['members']),
        kernel_bonding=finder.kernel_bonding(system),
    )


if __name__ == '__main__':
    main()
