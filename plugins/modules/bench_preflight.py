#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

DOCUMENTATION = r'''
module: bench_preflight
short_description: Check a benchmark host's data paths, leftover test servers and planned ports
version_added: 0.1.0
description:
  - The preflight of the C(perflab.network.benchmark) role on one host, in one round trip, before any
    server starts.
  - Pings each of O(addresses) once (C(ping -c 1 -W O(ping_wait) ADDRESS) on Linux; on FreeBSD
    C(ping -c 1 -t O(ping_wait) ADDRESS), C(ping6 -c 1 -X O(ping_wait) ADDRESS) for IPv6; an argv, never a shell;
    all at once) and returns those that did not answer in RV(unanswered).
  - With O(path_mtu) (the default), checks the path MTU of each address that answered - a don't-fragment ping of
    a packet as large as the MTU of the interface the address is reached by (O(data_interface), else the route's;
    C(ping -M do -s PAYLOAD) on Linux, C(ping -D -s PAYLOAD) / C(ping6 -m -s PAYLOAD) on FreeBSD,
    C(ping -f -l PAYLOAD) on Windows, IPv4 only there). When it gets no answer, smaller packets (common MTUs) are
    tried at once, and RV(path_mtu_problems) names the address (and its host, O(address_names)), the size that
    passed and the one that did not - a path that drops large frames (an MTU black hole) would otherwise fail
    the tests as if a firewall dropped them, or let them crawl.
  - With O(servers) (the servers this run plans on the host), lists the pidfiles of test servers in
    O(pid_dir) (C(TOOL-PORT.pid), the tools of the registry; an interrupted run can leave its servers
    behind) and decides which of them to stop, with the C(perflab.network.bench_server) module -
    RV(stop_planned), the planned servers with a pidfile on one of their ports, and RV(stop_unplanned),
    the servers on ports this run does not plan (nothing else would ever stop them).
  - Lists the ports something listens on in this network namespace from C(/proc/net) (TCP in C(LISTEN),
    UDP bound and unconnected; IPv4 and IPv6, what C(ss -Hltnu) lists), on FreeBSD from C(sockstat -46l),
    in RV(listening), and returns the planned ports among them in RV(taken).
  - With O(connect), opens a TCP connection from O(connect_source) to each O(connect[]) address and port
    (all at once, O(connect_timeout) s each) and returns those the host did not answer in RV(unconnected).
    A connection accepted, or refused with a TCP reset (nothing listens there yet, but the packet reached
    the host), passes; one that times out (a firewall drops it) or ends in an ICMP error (a firewall
    rejects it) does not. This is the check that the firewall lets the planned ports in, which a ping
    cannot tell.
  - Checks the data path (RV(path_problems)) - O(data_address) is an address of this host on O(data_interface), and
    each of O(addresses) routes over O(data_interface) (C(ip -j address show), C(ip -j route get ADDRESS)); on Linux
    only (FreeBSD and Windows hosts return it empty).
  - Reads only; changes nothing, so it runs in check mode as well.
extends_documentation_fragment:
  - perflab.network.attributes.windows_action
  - perflab.network.attributes
attributes:
  check_mode:
    details: The module only reads (it pings and lists), and does the same in check mode.
notes:
  - The listening ports come from C(/proc/net), so they are those of the host's network namespace
    (on FreeBSD from C(sockstat), those of the host or jail the module runs in).
  - A firewall rule that rejects with a TCP reset looks like an open port with nothing listening to
    O(connect); UDP ports are not checked (nothing answers an empty datagram).
  - FreeBSD support is tested on real command output only (unit tests), not on a live FreeBSD host.
  - On a Windows host the action plugin pings with C(ping -n 1 -w MILLISECONDS ADDRESS) (C(-6) for IPv6; an IPv4
    answer must carry C(TTL=)), lists the pidfiles of C(C:\perflab\run) (O(pid_dir)'s default there) and the
    listening ports from C(netstat -ano), read by the rows' shape (not the localized State column); the same
    code decides. Tested on real Windows command output (unit tests), not on a live Windows host.
  - Leftover servers are looked for only on a host with O(servers), as the pidfiles are what a server host leaves.
options:
  addresses:
    description: Data addresses to ping (the servers of this host's pairs, when it is a client).
    type: list
    elements: str
    default: []
  servers:
    description:
      - The servers this run plans on this host, as the C(perflab.network.benchmark_plan) module returns
        them under C(bench_server) of each of its C(servers).
    type: list
    elements: dict
    default: []
    suboptions:
      tool:
        description: The tool (one of the registry's).
        type: str
        required: true
      port:
        description: The first port.
        type: int
        required: true
      count:
        description: How many servers, on O(servers[].port) .. O(servers[].port) + O(servers[].count) - 1.
        type: int
        default: 1
      bind:
        description: The address the servers listen on (returned as it is in RV(stop_planned)).
        type: str
  connect:
    description:
      - TCP ports to connect to (the planned servers' TCP openings, when this host is their client).
    type: list
    elements: dict
    default: []
    suboptions:
      address:
        description: The server's data address.
        type: str
        required: true
      port:
        description: The port, 1-65535.
        type: int
        required: true
      server:
        description: The server's name, returned as it is.
        type: str
  connect_source:
    description: The address the connections of O(connect) are made from (this host's data address); default the route's.
    type: str
  connect_timeout:
    description: Seconds each connection of O(connect) may take (1-60).
    type: int
    default: 2
  data_address:
    description:
      - This host's data address (C(perflab_data_address)). It must be an address of this host, not a loopback
        one, and (with O(data_interface)) on that interface; RV(path_problems) says what is wrong.
    type: str
  data_interface:
    description:
      - This host's data interface (C(perflab_data_interface)). Each of O(addresses) must route over it
        (C(ip -j route get ADDRESS)), or the tests would measure another path (the management link).
    type: str
  pid_dir:
    description: Where C(perflab.network.bench_server) keeps its pidfiles.
    type: path
    default: /run/perflab
  path_mtu:
    description:
      - Check the path MTU of each of O(addresses) that answers (see the description); RV(path_mtu) and
        RV(path_mtu_problems) say what was found.
    type: bool
    default: true
  address_names:
    description: Host names of O(addresses) (address to name), used in RV(path_mtu_problems) only.
    type: dict
    default: {}
  ping_wait:
    description: Seconds to wait for each echo reply (1-60).
    type: int
    default: 3
seealso:
  - module: perflab.network.bench_server
  - module: perflab.network.benchmark_plan
'''

EXAMPLES = r'''
- name: Check the data paths and the planned ports
  perflab.network.bench_preflight:
    addresses: [10.0.1.2]
    servers:
      - {tool: iperf3, bind: 10.0.1.1, port: 5201, count: 2}
  register: preflight

- name: Check that the firewall of the server lets the planned TCP ports in
  perflab.network.bench_preflight:
    connect:
      - {address: 10.0.1.1, port: 5201}
      - {address: 10.0.1.1, port: 12865}
    connect_source: 10.0.1.2
  register: reach
  failed_when: reach.unconnected | length > 0

- name: Stop a leftover server on a planned port
  perflab.network.bench_server:
    tool: "{{ item.tool }}"
    state: stopped
    bind: "{{ item.bind }}"
    port: "{{ item.port }}"
    count: "{{ item.count }}"
  loop: "{{ preflight.stop_planned }}"
'''

RETURN = r'''
unanswered:
  description:
    - The addresses of O(addresses) that did not answer the ping, in the order given.
    - Not called C(unreachable), a key Ansible reads as the host itself being unreachable.
  returned: always
  type: list
  elements: str
  sample: [10.0.1.2]
pidfiles:
  description: The pidfile names of test servers found in O(pid_dir), sorted (empty without O(servers)).
  returned: always
  type: list
  elements: str
  sample: [iperf3-5201.pid, nuttcp-5000.pid]
stop_planned:
  description: The entries of O(servers) with a pidfile on one of their ports (C(tool), C(bind), C(port), C(count)).
  returned: always
  type: list
  elements: dict
  sample: [{tool: iperf3, bind: 10.0.1.1, port: 5201, count: 2}]
stop_unplanned:
  description: The servers with a pidfile on a port no entry of O(servers) has (C(tool), C(port)), sorted by pidfile name.
  returned: always
  type: list
  elements: dict
  sample: [{tool: nuttcp, port: 5000}]
listening:
  description: The ports something listens on, C(tcp) (state C(LISTEN)) and C(udp) (bound, unconnected), each sorted.
  returned: always
  type: dict
  sample: {tcp: [22, 5201], udp: [5001]}
taken:
  description:
    - The first ports of O(servers) that are in RV(listening) (TCP or UDP), each once. Leftover servers
      count too, so stop them first and call the module again.
  returned: always
  type: list
  elements: int
  sample: [5201]
connections:
  description:
    - Each entry of O(connect) with its C(outcome) - C(connected), C(refused) (the host answered with a reset),
      or why it failed (C(timed out after 2 s), C(No route to host), ...).
  returned: always
  type: list
  elements: dict
  sample: [{address: 10.0.1.1, port: 5201, server: lab1, outcome: refused}]
unconnected:
  description: The entries of RV(connections) the host did not answer (neither connected nor refused).
  returned: always
  type: list
  elements: dict
  sample: [{address: 10.0.1.1, port: 12865, server: lab1, outcome: timed out after 2 s}]
path_problems:
  description:
    - What is wrong with the data path - this host's O(data_address) not on this host, loopback, or on another
      interface than O(data_interface); one of O(addresses) local, or routed over another interface. Empty when
      all is well.
  returned: always
  type: list
  elements: str
  sample: [the server data address 10.0.0.11 routes over mgmt0, not over perflab_data_interface data0]
path_mtu:
  description:
    - Per address probed - C(address), C(interface), C(mtu) (its MTU, the probe's packet size) and C(answered)
      (packet size to whether its don't-fragment ping was answered). Empty without O(path_mtu), and for an
      address whose interface MTU is unknown.
  returned: always
  type: list
  elements: dict
  sample: [{address: 10.0.1.2, interface: data0, mtu: 9000, answered: {'9000': false, '8000': false, '1500': true}}]
path_mtu_problems:
  description: One message per address whose path does not carry packets of its interface's MTU (see RV(path_mtu)).
  returned: always
  type: list
  elements: str
  sample: ["the path to lab2 (10.0.1.2) does not carry packets of the MTU of data0, 9000 bytes: ..."]
pings:
  description: The argv of each ping run (the don't-fragment probes included).
  returned: always
  type: list
  elements: list
  sample: [[ping, "-c", "1", "-W", "3", 10.0.1.2]]
'''

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.perflab.network.plugins.module_utils.bench.preflight import argument_spec, param_errors, preflight_result


def main():
    module = AnsibleModule(argument_spec=argument_spec(), supports_check_mode=True)
    errors = param_errors(module.params)
    if errors:
        module.fail_json(msg='bench_preflight: ' + '; '.join(errors))
    module.exit_json(**preflight_result(module.params))


if __name__ == '__main__':
    main()
