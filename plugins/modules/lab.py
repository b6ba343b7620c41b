#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

DOCUMENTATION = r'''
---
module: lab
short_description: Build or remove the local lab (network-namespace hosts or QEMU VMs)
version_added: 0.1.0
description:
  - Turns the control node into N lab hosts. Each lab host is a network namespace with its own
    overlay root over a Debian base (made once with C(debootstrap) and cached), its own hostname,
    mount, IPC and pid namespaces, and an sshd reached over a management bridge with key authentication.
  - Data links are veth pairs to a bridge in a separate "switch" namespace, on a subnet apart from the
    management one; the switch ports can be shaped to a link rate with tc (tbf or htb), and offloads
    switched off so that MTU matters as it does on real NICs.
  - Lab hosts reach the package registries through masquerade on the control node; IPv4 forwarding is
    switched on while any lab is up and restored when the last lab comes down.
  - Bringing a lab up twice changes nothing; bringing it down leaves no namespace, link, mount, process
    or state directory behind (the Debian base stays cached under C(/var/cache/perflab)).
  - With O(kind=vm) the lab hosts are QEMU virtual machines booting Debian's own kernel and a full systemd
    userland (NetworkManager, firewalld and tuned installed, disabled at boot), for what a namespace cannot
    show - bonds, machine-wide sysctls, the tuned daemon, a management link that can really be cut. The disk
    image is built once per suite and package list with C(debootstrap) and C(mke2fs -d) (no loop mount) and
    cached under C(/var/cache/perflab); each VM gets a qcow2 overlay. Management is QEMU user networking
    forwarded to a port on 127.0.0.1; each VM has two data links (C(eth1), C(eth2)) on a bridge, or
    point-to-point between two VMs (O(vm_links=p2p), which carries LACP). Under TCG emulation a VM host is for
    live behaviour, never for performance figures.
  - O(state=snapshot) saves an internal snapshot of every VM (O(snapshot) names it), O(state=revert) goes back
    to it and sets the guests' clocks (VM labs only).
  - Runs on the control node as root, with C(connection=local).
extends_documentation_fragment:
  - perflab.network.attributes
options:
  state:
    description:
      - C(present) builds or repairs the lab, C(absent) removes it, C(status) reports it.
      - C(snapshot) and C(revert) save and restore a snapshot of every VM of a VM lab.
      - C(image) only builds the VM image (the first time for a suite and package list takes minutes), so that
        a play can say so before it waits.
    type: str
    choices: [present, absent, status, snapshot, revert, image]
    default: present
  kind:
    description: C(netns) for network-namespace hosts on this kernel, C(vm) for QEMU virtual machines.
    type: str
    choices: [netns, vm]
    default: netns
  snapshot:
    description: The snapshot's name for O(state=snapshot) and O(state=revert).
    type: str
    default: base
  vm_links:
    description:
      - C(bridge) puts both data links of every VM on one bridge (one segment, any number of VMs).
      - C(p2p) joins two VMs with two point-to-point links (C(eth1) to C(eth1), C(eth2) to C(eth2)), which
        carry LACP frames (802.3ad) that a Linux bridge drops.
    type: str
    choices: [bridge, p2p]
    default: bridge
  vm_memory_mb:
    description: Memory of each VM in MB (256 to 8192).
    type: int
    default: 512
  vm_boot_timeout:
    description: Seconds a VM may take to answer SSH (30 to 3600); then its last console lines are shown.
    type: int
    default: 300
  vm_accel:
    description:
      - C(auto) uses KVM only where the kernel has a real KVM module (kvm_intel, kvm_amd), TCG otherwise.
    type: str
    choices: [auto, kvm, tcg]
    default: auto
  name:
    description: Lab name; every namespace, link and nftables table of the lab derives from it.
    type: str
    default: perflab
  hosts:
    description: Number of lab hosts (1 to 128).
    type: int
    default: 2
  host_prefix:
    description: Inventory and host names are this prefix plus a number (C(lab1), C(lab2), ...).
    type: str
    default: lab
  mgmt_subnet:
    description: IPv4 management subnet; the bridge takes the first address, host I takes the 10+I-th.
    type: str
    default: 10.213.0.0/24
  data_subnet:
    description: IPv4 data subnet, apart from the management one; host I takes the 10+I-th address.
    type: str
    default: 10.213.1.0/24
  mtu:
    description: MTU of each host's data interface (the switch ports carry up to 9216).
    type: int
    default: 1500
  offloads:
    description: Keep TSO/GSO/GRO and checksum offloads on the data links.
    type: bool
    default: false
  rate_mbit:
    description: Emulated link rate in Mbit/s on each switch port (0 leaves the links unshaped).
    type: int
    default: 0
  shaper:
    description: The qdisc that emulates the link rate.
    type: str
    choices: [tbf, htb]
    default: tbf
  firewall:
    description:
      - V(default-deny) loads an nftables table C(inet filter) into each host whose input policy is drop,
        accepting only replies, loopback, ICMP and SSH from the management subnet, as a hardened host;
        the test ports are then reachable only where the C(perflab.network.firewall) role opened them.
      - V(none) leaves the hosts unfiltered.
      - Changing it on a lab that is up reloads the hosts' rulesets.
    type: str
    choices: [none, default-deny]
    default: none
  debian_suite:
    description: Debian suite of the lab hosts' base system (VM labs - bullseye, bookworm or trixie).
    type: str
    default: bookworm
  debian_mirror:
    description: Debian mirror for C(debootstrap); by default the one this machine's apt sources use.
    type: str
  extra_packages:
    description: More Debian packages in the base system.
    type: list
    elements: str
    default: []
notes:
  - The kernel needs network namespaces, pid namespaces, veth, bridge and overlayfs; the module checks
    each before it changes anything and names what is missing.
seealso:
  - name: The local lab
    description: How the lab is built and used (docs/lab.md in the collection).
    link: https://example.invalid/perflab/network/docs/lab.md
'''

EXAMPLES = r'''
- name: Bring up a lab of four hosts with 1 Gbit/s links
  perflab.network.lab:
    hosts: 4
    rate_mbit: 1000

- name: Remove it
  perflab.network.lab:
    state: absent

- name: Two VM hosts with Debian 13 and point-to-point links for 802.3ad bonds
  perflab.network.lab:
    name: vmlab
    kind: vm
    debian_suite: trixie
    vm_links: p2p
    mgmt_subnet: 10.224.0.0/24
    data_subnet: 10.224.1.0/24

- name: Save the booted VMs, and later go back to them
  perflab.network.lab:
    name: vmlab
    kind: vm
    state: revert
    snapshot: booted
'''

RETURN = r'''
hosts:
  description: One entry per lab host.
  returned: always
  type: list
  elements: dict
  sample:
    - name: lab1
      netns: perflab-lab1
      mgmt_address: 10.213.0.11
      mgmt_interface: mgmt0
      data_address: 10.213.1.11
      data_interface: data0
      data_interfaces: [data0]
      ssh_port: 22
      mtu: 1500
      running: true
key_file:
  description: Private SSH key that reaches every lab host as root.
  returned: always
  type: str
  sample: /var/lib/perflab/perflab/ssh/id_ed25519
log:
  description: What the lab did and when (seconds from the start), e.g. the image build and each VM's boot.
  returned: when the lab was built or brought up
  type: list
  elements: str
  sample: ["   0 s  VM lab1 started (TCG), waiting for SSH on 127.0.0.1:40001", "  58 s  VM lab1 answers SSH after 58 s"]
image:
  description: The VM image's cache directory (O(state=image)).
  returned: when O(state=image)
  type: str
  sample: /var/cache/perflab/vm-bookworm-c6c02bfd
lab:
  description: The lab's settings as built.
  returned: always
  type: dict
  sample: {name: perflab, hosts: 2, mgmt_subnet: 10.213.0.0/24, data_subnet: 10.213.1.0/24, mtu: 1500}
'''

import os
import re
import time

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.perflab.network.plugins.module_utils.tools import registry
from ansible_collections.perflab.network.plugins.module_utils.lab.control import down as lab_down, status as lab_status, up as lab_up
from ansible_collections.perflab.network.plugins.module_utils.lab.base import base_ready
from ansible_collections.perflab.network.plugins.module_utils.lab.mgmt import mgmt_present
from ansible_collections.perflab.network.plugins.module_utils.lab.preflight import preflight
from ansible_collections.perflab.network.plugins.module_utils.lab.spec import LabSpec, saved_spec, spec_summary
from ansible_collections.perflab.network.plugins.module_utils.lab.util import LabError
from ansible_collections.perflab.network.plugins.module_utils.lab.vm import image_for as vm_image_for, snapshot as lab_snapshot
from ansible_collections.perflab.network.plugins.module_utils.lab.vm_image import build_image

PUBLIC_HOST_KEYS = ('name', 'netns', 'mgmt_address', 'mgmt_interface', 'data_address', 'data_prefix',
                    'data_interface', 'data_interfaces', 'ssh_port', 'mtu', 'running')


def main():
    module = AnsibleModule(
        argument_spec=dict(
            state=dict(type='str', choices=['present', 'absent', 'status', 'snapshot', 'revert', 'image'],
                       default='present'),
            kind=dict(type='str', choices=['netns', 'vm'], default='netns'),
            snapshot=dict(type='str', default='base'),
            vm_links=dict(type='str', choices=['bridge', 'p2p'], default='bridge'),
            vm_memory_mb=dict(type='int', default=512),
            vm_boot_timeout=dict(type='int', default=300),
            vm_accel=dict(type='str', choices=['auto', 'kvm', 'tcg'], default='auto'),
            name=dict(type='str', default='perflab'),
            hosts=dict(type='int', default=2),
            host_prefix=dict(type='str', default='lab'),
            mgmt_subnet=dict(type='str', default='10.213.0.0/24'),
            data_subnet=dict(type='str', default='10.213.1.0/24'),
            mtu=dict(type='int', default=1500),
            offloads=dict(type='bool', default=False),
            rate_mbit=dict(type='int', default=0),
            shaper=dict(type='str', choices=['tbf', 'htb'], default='tbf'),
            firewall=dict(type='str', choices=['none', 'default-deny'], default='none'),
            debian_suite=dict(type='str', default='bookworm'),
            debian_mirror=dict(type='str'),
            extra_packages=dict(type='list', elements='str', default=[]),
        ),
        supports_check_mode=True,
    )
    p = module.params
    spec = LabSpec(name=p['name'], hosts=p['hosts'], host_prefix=p['host_prefix'],
                   mgmt_subnet=p['mgmt_subnet'], data_subnet=p['data_subnet'], mtu=p['mtu'],
                   offloads=p['offloads'], rate_mbit=p['rate_mbit'], shaper=p['shaper'], firewall=p['firewall'],
                   suite=p['debian_suite'], mirror=p['debian_mirror'], extra_packages=p['extra_packages'],
                   kind=p['kind'], vm_links=p['vm_links'], vm_memory_mb=p['vm_memory_mb'],
                   vm_boot_timeout=p['vm_boot_timeout'], vm_accel=p['vm_accel'],
                   vm_tool_packages=registry.packages('Debian'))
    result = dict(changed=False, key_file=spec.key_file, lab=spec_summary(spec))
    progress = []
    started = time.time()

    def log(msg):
        line = '%4d s  %s' % (time.time() - started, msg)
        progress.append(line)
        module.log(line)

    try:
        if p['state'] == 'absent':
            if os.geteuid() != 0:
                module.fail_json(msg='the lab must be removed as root', **result)
            if module.check_mode:
                result['changed'] = bool(saved_spec(spec)) or mgmt_present(spec)
            else:
                result['changed'] = lab_down(spec)
            result['hosts'] = []
            module.exit_json(**result)

        if p['state'] in ('snapshot', 'revert'):
            if p['kind'] != 'vm' or (saved_spec(spec) or {}).get('kind') != 'vm':
                module.fail_json(msg='state=%s needs a VM lab that is up (kind=vm); lab %s is not one'
                                 % (p['state'], spec.name), **result)
            if not re.match(r'^[A-Za-z][A-Za-z0-9_-]{0,31}$', p['snapshot']):
                module.fail_json(msg='snapshot must be 1 to 32 characters A-Z, a-z, 0-9, _ or -, starting with a letter',
                                 **result)
            hosts = lab_status(spec)
            if not module.check_mode:
                lab_snapshot(spec, hosts, p['snapshot'], revert=p['state'] == 'revert')
            result.update(changed=True, hosts=[dict((k, h.get(k)) for k in PUBLIC_HOST_KEYS) for h in hosts])
            module.exit_json(**result)
        problems = preflight(spec, need_base=not base_ready(spec))
        if problems:
            module.fail_json(msg='the lab cannot be built: ' + '; '.join(problems), problems=problems, **result)
        if p['state'] == 'image':
            if p['kind'] != 'vm':
                module.fail_json(msg='state=image builds the image of a VM lab (kind=vm)', **result)
            image = vm_image_for(spec)
            result['changed'] = not image.ready()
            if result['changed'] and not module.check_mode:
                build_image(image, log)
            result.update(image=image.dir, log=progress)
            module.exit_json(**result)
        if p['state'] == 'status' or module.check_mode:
            hosts = lab_status(spec)
            result['changed'] = p['state'] == 'present' and not all(h['running'] for h in hosts)
        else:
            result['changed'], hosts = lab_up(spec, log=log)
            hosts = lab_status(spec)
            result['lab'] = saved_spec(spec) or result['lab']
            down = [h['name'] for h in hosts if not h['running']]
            if down:
                module.fail_json(msg='lab hosts not reachable after start: %s' % ', '.join(down), **result)
        result['hosts'] = [dict((k, h.get(k)) for k in PUBLIC_HOST_KEYS) for h in hosts]
        result['log'] = progress
    except LabError as exc:
        module.fail_json(msg=str(exc), **result)
    module.exit_json(**result)


if __name__ == '__main__':
    main()
