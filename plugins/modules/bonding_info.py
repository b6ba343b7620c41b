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
extends_documentation_fragment:
  - perflab.network.attributes.info_module
  - perflab.network.host_config
  - perflab.network.attributes
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
nm_external:
  description:
    - The O(members) NetworkManager shows as connected externally (configured by something else,
      such as an address set by hand, which NetworkManager leaves alone). When such a member leaves a
      NetworkManager bond, NetworkManager would take it over with its own default profile (DHCP) and
      drop that address; the bonding role keeps it off them until their addresses are back.
    - Their in-memory connections are not in RV(member_configs).
  returned: always
  type: list
  elements: str
  sample: [eth1]
members_without_speed:
  description:
    - The O(members) whose link is up but report no speed (C(/sys/class/net/<member>/speed) is -1), on Linux.
    - The kernel keeps such a member down in a C(802.3ad), C(balance-alb) or C(balance-tlb) bond; virtio
      NICs report no speed unless the hypervisor gives one.
  returned: always
  type: list
  elements: str
  sample: [eth1, eth2]
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

import os
import platform
import re

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.perflab.network.plugins.module_utils.host import network as host_network
from ansible_collections.perflab.network.plugins.module_utils.host import nic

SYS_NET = '/sys/class/net'
# the one order of host_network; FreeBSD is found on FreeBSD only
STACKS = ('netplan', 'networkmanager', 'networkd', 'ifupdown', 'ifcfg', 'freebsd')


def word_in(text, word):
    return re.search(r'(?<![A-Za-z0-9_.:-])%s(?![A-Za-z0-9_.:-])' % re.escape(word), text) is not None


def choose_stack(system, stacks):
    return host_network.choose_stack(dict(stacks, freebsd=dict(stacks.get('freebsd', {}), system=system)), STACKS)


class Finder(host_network.HostProbe):
    def __init__(self, module):
        # our own files count as evidence of the stack (a bond written with netplan stays netplan's)
        super(Finder, self).__init__(module, root=module.params['root_dir'], system=platform.system())

    def stacks(self):
        return self.stack_evidence(STACKS, [])

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

    def member_configs(self, members, nm_external=()):
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
                    if device in found and device not in nm_external and not name.startswith(self.module.params['own_prefix']):
                        found[device].append('NetworkManager profile %s' % name.replace('\\:', ':'))
        return found

    def nm_external(self, members, nm_running):
        """The members NetworkManager shows as connected externally: configured by something else,
        which it leaves alone (an in-memory connection, no profile of its own). ``nm_running``: what
        stacks() found (its networkmanager ``running``)."""
        nmcli = self.which('nmcli')
        if not nmcli or not nm_running:
            return []
        return [m for m in members if self.nm_device(nmcli, m)['external']]

    def management_of(self, links):
        # both rules, always: behind a port forward or NAT (a VM lab's 127.0.0.1:PORT) the inventory's
        # address is not on the host, or is its loopback, while $SSH_CONNECTION names the real NIC
        found = self.management(
            links, ansible_host=self.module.params['management_address'],
            ssh_connection=os.environ.get('SSH_CONNECTION', ''),
            use_default_route=False)
        return found['address'], found['interface']

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
            host_network.CONFIG_FILE_ARGS,
            members=dict(type='list', elements='str', default=[]),
            management_address=dict(type='str', default=''),
        ),
        supports_check_mode=True,
    )
    system = platform.system()
    finder = Finder(module)
    stacks = finder.stacks()
    stack, reason = choose_stack(system, stacks)
    links = finder.links()
    address, interface = finder.management_of(links)
    interfaces = finder.interfaces(links)
    nm_external = finder.nm_external(module.params['members'], stacks['networkmanager']['running'])
    module.exit_json(
        changed=False,
        stack=stack,
        reason=reason,
        stacks=stacks,
        interfaces=interfaces,
        management_address=address,
        management_interface=interface,
        member_configs=finder.member_configs(module.params['members'], nm_external),
        nm_external=nm_external,
        kernel_bonding=finder.kernel_bonding(system),
        members_without_speed=nic.links_without_speed(module.params['members']) if system == 'Linux' else [],
    )


if __name__ == '__main__':
    main()
