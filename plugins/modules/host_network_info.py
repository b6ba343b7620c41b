#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

DOCUMENTATION = r'''
module: host_network_info
short_description: Tell which interface carries the management connection, and which network stack manages an interface
version_added: 0.1.0
description:
  - The host safety facts the configuration roles (C(perflab.network.tuning), C(perflab.network.mtu),
    C(perflab.network.bonding), C(perflab.network.firewall)) refuse or guard a change by, run for them by
    C(perflab.network.host_safety)'s entry point C(detect) on Linux and FreeBSD.
  - B(Management interface.) The interfaces holding the address Ansible connects through, by
    these rules in order, every address found counting - C(ssh_connection) the server address of
    C($SSH_CONNECTION) (the address the current SSH connection arrived on, as seen on the host,
    right behind NAT or a jump host); C(ansible_host) O(ansible_host) when it is an address the host
    holds; and only when neither found an interface and O(default_route_fallback=true),
    C(default_route) the interface of the IPv4 default route (else of the IPv6 one, lowest
    metric first). RV(management.rule) says which rule found it.
  - B(Network stack.) One order, the first stack that manages wins -
    C(netplan) (installed and C(/etc/netplan) holds a configuration not ours), C(networkmanager)
    (running; per interface - the device has a connection), C(networkd) (running; per interface -
    C(networkctl status) names its .network file), C(ifupdown) (C(/etc/network/interfaces)
    exists, ifup installed for the host wide choice), C(ifcfg) (EL network-scripts; per interface -
    C(ifcfg-IF) exists), C(freebsd) (rc.conf), C(windows). netplan comes first because it renders
    for NetworkManager or networkd; NetworkManager before ifcfg because it reads the ifcfg files.
  - O(stacks) limits the stacks tried (the order stays); only those are probed.
  - Reads only; changes nothing.
extends_documentation_fragment:
  - perflab.network.attributes.info_module
  - perflab.network.host_config
  - perflab.network.attributes
attributes:
  platform:
    details: >-
      On Windows hosts C(perflab.network.host_safety)'s C(detect) reads the management interface from the setup
      facts (filter C(perflab.network.management_windows), the same rules) and uses the C(windows) stack.
options:
  ansible_host:
    description:
      - The address Ansible connects to (pass C(ansible_host)). Ignored unless it is an IPv4 or
        IPv6 address (a host name is covered by C($SSH_CONNECTION)).
    type: str
    default: ""
  ssh_connection:
    description:
      - The value of C($SSH_CONNECTION) to read the server address from; empty reads the module's own
        environment (the connection Ansible runs it over).
    type: str
    default: ""
  default_route_fallback:
    description:
      - When no connection address is held by the host, name the interface of the default route as
        the management interface. Pass V(false) with a local connection (nothing to cut off).
    type: bool
    default: true
  interfaces:
    description: Interfaces whose managing stack RV(interface_stacks) and RV(interfaces_stack) report.
    type: list
    elements: str
    default: []
  stacks:
    description:
      - The stacks to try (in the module's one order, whatever the order given here); empty tries
        none (only the management interface is reported).
    type: list
    elements: str
    choices: [netplan, networkmanager, networkd, ifupdown, ifcfg, freebsd, windows]
    default: [netplan, networkmanager, networkd, ifupdown, ifcfg, freebsd, windows]
  own_prefix:
    description:
      - Configuration files named with this (after an optional C(NN-) or C(ifcfg-)) are ours and do not
        count as evidence of a stack (for example netplan's C(90-perflab-mtu.yaml) with V(perflab-mtu)).
    type: str
    default: perflab
  details:
    description: Read the links with C(ip -d) (RV(links) then holds C(min_mtu) and C(max_mtu)).
    type: bool
    default: false
seealso:
  - module: perflab.network.bonding_info
'''

EXAMPLES = r'''
- name: Find the management interface and the stack managing the data interfaces
  perflab.network.host_network_info:
    ansible_host: "{{ ansible_host | default('') }}"
    default_route_fallback: "{{ ansible_connection | default('ssh') != 'local' }}"
    interfaces: [eth1, eth2]
  register: host_network

- name: Refuse to touch the management interface
  ansible.builtin.assert:
    that: "'eth1' not in host_network.management.interfaces"

- name: Only the management interface (no stack probed)
  perflab.network.host_network_info:
    stacks: []
  register: host_network
'''

RETURN = r'''
management:
  description: The management interface and how it was found.
  returned: always
  type: dict
  contains:
    interface:
      description: The first management interface, empty when none was found.
      type: str
      sample: eth0
    interfaces:
      description: Every interface holding a connection address (or the default route's).
      type: list
      elements: str
      sample: [eth0]
    address:
      description: The first connection address found (C($SSH_CONNECTION) first), empty when none.
      type: str
      sample: 10.206.0.11
    addresses:
      description: Every connection address tried.
      type: list
      elements: str
      sample: [10.206.0.11]
    rule:
      description: The rule that found RV(management.interface) - C(ssh_connection), C(ansible_host), C(default_route) or C(none).
      type: str
      sample: ssh_connection
    rules:
      description: The rule per interface of RV(management.interfaces).
      type: dict
      sample: {eth0: ssh_connection}
    reason:
      description: What each rule found, in words.
      type: str
      sample: ssh_connection 10.206.0.11 is held by eth0
  sample:
    interface: eth0
    interfaces: [eth0]
    address: 10.206.0.11
    addresses: [10.206.0.11]
    rule: ssh_connection
    rules: {eth0: ssh_connection}
    reason: ssh_connection 10.206.0.11 is held by eth0
interfaces:
  description: Names of the host's network interfaces.
  returned: always
  type: list
  elements: str
  sample: [eth0, eth1, lo]
links:
  description: The host's links as C(ip -j addr show) (C(-d) with O(details)) gives them, by name (Linux).
  returned: always
  type: dict
  sample: {eth1: {ifname: eth1, mtu: 1500, min_mtu: 68, max_mtu: 9194, addr_info: []}}
stack:
  description: The first stack (of O(stacks)) that manages the host, C(unknown) when none, and why.
  returned: always
  type: dict
  sample: {name: netplan, reason: netplan is installed and /etc/netplan holds 50-cloud-init.yaml}
interfaces_stack:
  description: The first stack (of O(stacks)) that manages every one of O(interfaces), C(unknown) when none, and why.
  returned: always
  type: dict
  sample: {name: networkmanager, reason: NetworkManager connection Wired connection 1}
interface_stacks:
  description: Per interface of O(interfaces) - the first stack managing it, why, and every stack that does.
  returned: always
  type: dict
  sample: {eth1: {stack: networkmanager, reason: NetworkManager connection Wired connection 1, managed_by: [networkmanager]}}
stacks:
  description:
    - The evidence found of each stack tried (host wide, and per interface under C(interfaces)).
    - "C(networkmanager): per interface its C(connection) and whether NetworkManager shows it connected
      externally (C(external): configured by something else, an in-memory connection that NetworkManager
      made of what it found); an external connection does not count as NetworkManager managing the interface."
  returned: always
  type: dict
  sample:
    netplan: {installed: true, configs: [50-cloud-init.yaml]}
    networkmanager: {installed: true, running: true, interfaces: {eth1: {connection: Wired connection 1, external: false}}}
    networkd: {running: false, interfaces: {eth1: {network_file: ""}}}
    ifupdown: {installed: false, interfaces_file: false, sources_dir: false}
    ifcfg: {directory: false, interfaces: {eth1: {ifcfg_file: ""}}}
'''

import os
import platform

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.perflab.network.plugins.module_utils.host import network as host_network


def main():
    module = AnsibleModule(
        argument_spec=dict(
            host_network.CONFIG_FILE_ARGS,
            ansible_host=dict(type='str', default=''),
            ssh_connection=dict(type='str', default=''),
            default_route_fallback=dict(type='bool', default=True),
            interfaces=dict(type='list', elements='str', default=[]),
            stacks=dict(type='list', elements='str', choices=list(host_network.STACK_ORDER),
                        default=list(host_network.STACK_ORDER)),
            details=dict(type='bool', default=False),
        ),
        supports_check_mode=True,
    )
    params = module.params
    probe = host_network.HostProbe(module, root=params['root_dir'], system=platform.system(), own_prefix=params['own_prefix'])
    links = probe.links(details=params['details'])
    mgmt = probe.management(links, ansible_host=params['ansible_host'],
                            ssh_connection=params['ssh_connection'] or os.environ.get('SSH_CONNECTION', ''),
                            use_default_route=params['default_route_fallback'])
    evidence = probe.stack_evidence(params['stacks'], params['interfaces'])
    stack, reason = host_network.choose_stack(evidence, params['stacks'])
    istack, ireason = host_network.choose_interface_stack(evidence, params['interfaces'], params['stacks'])
    module.exit_json(
        changed=False,
        management=mgmt,
        interfaces=probe.interfaces(links),
        links=dict((link.get('ifname', ''), link) for link in links),
        stack=dict(name=stack, reason=reason),
        interfaces_stack=dict(name=istack, reason=ireason),
        interface_stacks=host_network.interface_stacks(evidence, params['interfaces'], params['stacks']),
        stacks=evidence,
    )


if __name__ == '__main__':
    main()
