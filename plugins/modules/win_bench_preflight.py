#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

DOCUMENTATION = r'''
---
module: win_bench_preflight
short_description: The benchmark preflight of a Windows host (bench_preflight for Windows)
version_added: 0.1.0
description:
  - M(perflab.network.bench_preflight) for a Windows host, with its options and return values, its decisions
    made by the same code.
  - An action plugin. Pings each of O(addresses) once (C(ping -n 1 -w MILLISECONDS ADDRESS), C(-6) for IPv6; an
    IPv4 answer must carry C(TTL=), since Windows' ping exits 0 on a router's "Destination host unreachable"),
    lists the pidfiles in O(pid_dir) and the listening ports from C(netstat -ano) (read by the rows' shape, not by
    the localized State column).
  - Reads only. Tested on the controller side only (unit tests with real Windows command output).
author:
  - perflab.network contributors (@perflab)
attributes:
  action:
    description: Indicates this has a corresponding action plugin so some parts of the options can be executed on the controller.
    support: full
    details: The whole task is the action plugin; it runs ansible.windows.win_powershell on the host.
  check_mode:
    description: Can run in check_mode and return changed status prediction without modifying target.
    support: full
    details: It only reads, in check mode as well.
  diff_mode:
    description: Will return details on what has changed (or possibly needs changing in check_mode), when in diff mode.
    support: none
  platform:
    description: Target OS/families that can be operated against.
    support: full
    platforms: windows
options:
  addresses:
    description: Data addresses to ping.
    type: list
    elements: str
    default: []
  servers:
    description: The servers this run plans on the host, as M(perflab.network.bench_preflight)'s.
    type: list
    elements: dict
    default: []
    suboptions:
      tool:
        description: The tool.
        type: str
        required: true
      port:
        description: The first port.
        type: int
        required: true
      count:
        description: How many servers.
        type: int
        default: 1
      bind:
        description: Their address.
        type: str
  pid_dir:
    description: Where M(perflab.network.win_bench_server) keeps its pidfiles.
    type: str
    default: C:\perflab\run
  ping_wait:
    description: Seconds to wait for each echo reply (1-60).
    type: int
    default: 3
seealso:
  - module: perflab.network.bench_preflight
'''

EXAMPLES = r'''
- name: Check the data path and the planned ports of a Windows host
  perflab.network.win_bench_preflight:
    addresses: [10.213.1.11]
    servers:
      - {tool: iperf3, bind: 10.213.1.21, port: 5201}
'''

RETURN = r'''
unanswered:
  description: The addresses that did not answer.
  returned: always
  type: list
  elements: str
pidfiles:
  description: The pidfile names of test servers found.
  returned: always
  type: list
  elements: str
stop_planned:
  description: The planned servers with a pidfile on one of their ports.
  returned: always
  type: list
  elements: dict
stop_unplanned:
  description: The servers with a pidfile on a port no planned server has.
  returned: always
  type: list
  elements: dict
listening:
  description: The listening ports, C(tcp) and C(udp).
  returned: always
  type: dict
taken:
  description: The planned first ports something listens on.
  returned: always
  type: list
  elements: int
pings:
  description: The argv of each ping.
  returned: always
  type: list
  elements: list
'''
