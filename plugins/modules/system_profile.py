#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

DOCUMENTATION = r'''
---
module: system_profile
short_description: Collect the system table of a benchmark report and the data interface's network settings
version_added: 0.1.0
description:
  - Returns C(perflab_system) (schema C(perflab.system/1)) with the rows of a Phoronix-style system
    table (Processor, Motherboard, Chipset, Memory, Disk, Network, OS, Kernel, Compiler, File-System)
    and the network settings that tuning changes for the data interface (MTU, offloads, qdisc,
    TCP congestion control, network sysctls).
  - Reads C(/proc), C(/sys) and C(/etc/os-release) and runs C(ethtool), C(tc), C(lsblk), C(lspci),
    C(dmidecode) and C(gcc --version) where installed. A missing tool never fails the module; its
    table row says C(unknown) (or falls back to C(/sys)), its network field is null.
  - Sysctls are read from C(/proc/sys) of the host's network namespace; those that do not exist there
    (inside a lab host several do not) are null.
  - On FreeBSD the same fields come from C(sysctl hw.model hw.ncpu hw.physmem hw.machine), C(kenv) (the
    board), C(pciconf -lv) (chipset, NIC model), C(geom disk list), C(mount -p) (the root file system, with
    its pool for ZFS), C(uname) (OS, kernel), C(cc --version), C(ifconfig) (MTU, options, media speed) and
    C(route -n get default); the network sysctls are FreeBSD's (C(kern.ipc.maxsockbuf), C(net.inet.tcp.*)),
    C(qdisc) is null. Tested on real FreeBSD command output (unit tests), not on a live FreeBSD host.
  - On a Windows host the action plugin reads the CIM classes C(Win32_Processor), C(Win32_BaseBoard),
    C(Win32_PhysicalMemory), C(Win32_DiskDrive), C(Win32_NetworkAdapter) and C(Win32_OperatingSystem) (as
    C(Format-List) text, parsed on the controller), the system drive's file system and the adapter's IPv4 MTU;
    Chipset and Compiler are C(unknown), the network facts have no offloads, qdisc or sysctls. O(interface) is a
    C(Get-NetAdapter) name there. Tested on real CIM output (unit tests), not on a live Windows host.
  - Changes nothing on the host.
extends_documentation_fragment:
  - perflab.network.attributes.windows_action
  - perflab.network.attributes
attributes:
  check_mode:
    details:
      - Read-only; check mode collects the same facts.
options:
  interface:
    description:
      - The data interface whose model, driver, speed, MTU, offloads and qdisc are reported.
      - Default the interface of the IPv4 default route.
    type: str
  run_id:
    description: Study run the profile belongs to. Generated when omitted.
    type: str
  config:
    description: Configuration label, for example V(Debian 12 tuned).
    type: str
    default: ''
  host_name:
    description: Name of the host in the profile (the inventory name). Default the host name.
    type: str
  profile:
    description:
      - The profile the configuration runs (V(stock), V(tuned), ...), kept in the profile; reports compare a
        configuration that is not stock against the stock one of the same hosts and OS.
    type: str
  unmanaged:
    description:
      - >-
        V(true), the profile of a server we do not manage (a netserver or iperf3 server already listening at an
        address, reached without SSH, an appliance such as OSv), run on the controller; nothing is read, every
        table field is C(unknown: unmanaged server), the network part holds only O(address), and the profile
        carries C(unmanaged=true).
    type: bool
    default: false
  address:
    description: With O(unmanaged), the server's data address (the inventory's C(perflab_data_address)).
    type: str
notes:
  - C(dmidecode) needs root to list the memory modules; without it the Memory row is the total from C(/proc/meminfo).
seealso:
  - module: perflab.network.netperf
'''

EXAMPLES = r'''
- name: Profile the host for the report
  perflab.network.system_profile:
    interface: "{{ perflab_data_interface }}"
    config: "{{ perflab_config_label }}"
    run_id: "{{ perflab_run_id }}"
    host_name: "{{ inventory_hostname }}"
  register: profile

- name: Show the system table
  ansible.builtin.debug:
    var: profile.perflab_system.table
'''

RETURN = r'''
perflab_system:
  description: The profile, schema C(perflab.system/1) (see docs/result-record.md in the collection).
  returned: success
  type: dict
  contains:
    schema:
      description: Always C(perflab.system/1).
      type: str
      sample: perflab.system/1
    run_id:
      description: Study run identifier.
      type: str
      sample: 20261129T184000Z-ab12
    config:
      description: Configuration label.
      type: str
      sample: Debian 12 stock
    host:
      description: Host name (O(host_name)).
      type: str
      sample: lab1
    profile:
      description: The configuration's profile (O(profile)), null when not given.
      type: str
      sample: tuned
    collected_at:
      description: ISO 8601 UTC time of collection.
      type: str
      sample: '2026-11-29T18:40:00.123Z'
    table:
      description: The system table rows; C(unknown) where nothing could tell.
      type: dict
      sample:
        Processor: Intel Xeon Processor @ 2.10GHz (2 Cores / 2 Threads)
        Motherboard: unknown
        Chipset: Intel Device 0d57
        Memory: 24GB
        Disk: 275GB vda
        Network: Red Hat Virtio 1.0 network device (virtio_net, speed unknown)
        OS: Debian GNU/Linux 12
        Kernel: 6.18.44-fc-v657 (x86_64)
        Compiler: GCC 12.2.0
        File-System: ext4
    network:
      description: The data interface's settings.
      type: dict
      contains:
        interface:
          description: Interface name, null when there is no default route and O(interface) is unset.
          type: str
          sample: eth0
        mtu:
          description: MTU.
          type: int
          sample: 1500
        driver:
          description: Kernel driver.
          type: str
          sample: virtio_net
        speed_mbps:
          description: Link speed in Mb/s, null when the driver does not tell.
          type: int
          sample: 10000
        offloads:
          description: C(ethtool -k) features, name to on (true) or off (false); null without ethtool.
          type: dict
          sample: {tcp-segmentation-offload: true, generic-receive-offload: true, large-receive-offload: false}
        qdisc:
          description: Root qdisc (with the children's kinds for mq), null without tc.
          type: str
          sample: mq (fq_codel)
        congestion_control:
          description: net.ipv4.tcp_congestion_control.
          type: str
          sample: cubic
        sysctls:
          description: Network sysctl name to value (whitespace collapsed), null when the key does not exist.
          type: dict
          sample: {net.core.rmem_max: '212992', net.ipv4.tcp_rmem: 4096 131072 6291456, net.core.busy_poll: null}
        bond:
          description:
            - For a Linux bond, its mode and members (the bonding driver's sysfs files); null otherwise.
            - The C(Network) row then names the members' NICs, for example C(balance-alb bond of 2 x Intel X520 (ixgbe, 10000 Mb/s)).
          type: dict
          sample: {mode: balance-alb, members: [eth1, eth2]}
'''

import os
import socket

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.perflab.network.plugins.module_utils.host import platform as host_platform
from ansible_collections.perflab.network.plugins.module_utils.host import process
from ansible_collections.perflab.network.plugins.module_utils.host import sysprofile
from ansible_collections.perflab.network.plugins.module_utils.host.nic import valid_interface_name
from ansible_collections.perflab.network.plugins.module_utils.core.record import new_run_id

TOOL_TIMEOUT_S = 20


def run_tool(argv):
    """(rc, stdout, stderr) of a read-only tool, None when it is not installed."""
    path = process.which(argv[0])
    if not path:
        return None
    result = process.run([path] + list(argv[1:]), timeout=TOOL_TIMEOUT_S, env={'LC_ALL': 'C'})
    if result.timed_out:
        return None
    return result.rc, result.stdout, result.stderr


def main():
    module = AnsibleModule(
        argument_spec=dict(
            interface=dict(type='str'),
            run_id=dict(type='str'),
            config=dict(type='str', default=''),
            host_name=dict(type='str'),
            profile=dict(type='str'),
            unmanaged=dict(type='bool', default=False),
            address=dict(type='str'),
        ),
        supports_check_mode=True,
    )
    interface = module.params['interface']
    if module.params['unmanaged']:
        # a server we do not manage: nothing is read (this runs on the controller), every field says so
        collected = sysprofile.unmanaged_profile(module.params['address'])
        module.exit_json(changed=False, perflab_system=dict(_head(module.params), unmanaged=True, **collected))
    host = host_platform.current()
    if interface is not None:
        if not valid_interface_name(interface):
            module.fail_json(msg='interface must be an interface name (1-15 of letters, digits, "_.:@+-"), got %r'
                                 % interface)
        if not host.interface_exists(interface):
            module.fail_json(msg='interface %s does not exist on this host' % interface)
    uname = os.uname()
    collected = host.system_profile(interface, run_tool, machine=uname[4], release=uname[2])
    profile = dict(_head(module.params), table=collected['table'], network=collected['network'])
    module.exit_json(changed=False, perflab_system=profile)


def _head(params):
    return {
        'schema': sysprofile.SCHEMA,
        'run_id': params['run_id'] or new_run_id(),
        'config': params['config'] or '',
        'host': params['host_name'] or socket.gethostname(),
        'profile': params['profile'] or None,
        'collected_at': process.iso_utc(),
    }


if __name__ == '__main__':
    main()
