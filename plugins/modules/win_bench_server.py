#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

DOCUMENTATION = r'''
---
module: win_bench_server
short_description: Start, stop or check benchmark servers on a Windows host (bench_server for Windows)
version_added: 0.1.0
description:
  - M(perflab.network.bench_server) for a Windows host, with its options and its return values.
  - An action plugin. Each server's argv is the tool's registry file's (as on Linux); it is started as a
    background process with C(Win32_Process) C(Create) (outside the WinRM shell's job, which would end it with
    the task), from its argv joined by the C runtime's quoting rules, never through a shell. Its pid goes to
    C(O(pid_dir)\TOOL-PORT.pid) once its port listens (C(Get-NetTCPConnection -State Listen)) and belongs to it;
    otherwise it is stopped again and the task fails, and a failed start stops every server the call started.
  - Stopping kills the server's whole process tree (C(taskkill /T /F)) and checks that it is gone.
  - A port another process listens on (C(netstat -ano)) is a clear error.
  - Differences from Linux - no server logs (RV(servers[].log) and RV(servers[].log_problems) are null, so ethr's
    accept errors are not seen), no open-files limit (O(nofile) is refused, RV(servers[].nofile) is null).
  - Tested on the controller side only (unit tests with real Windows command output); not run against a live
    Windows host.
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
    details: Nothing is started or stopped; RV(servers[].state) says what would happen.
  diff_mode:
    description: Will return details on what has changed (or possibly needs changing in check_mode), when in diff mode.
    support: none
  platform:
    description: Target OS/families that can be operated against.
    support: full
    platforms: windows
options:
  tool:
    description: The tool, as M(perflab.network.bench_server)'s.
    type: str
    choices: [ethr, iperf2, iperf3, netperf, nuttcp]
  servers:
    description: Several groups of servers, as M(perflab.network.bench_server)'s.
    type: list
    elements: dict
    suboptions:
      tool:
        description: The tool.
        type: str
        required: true
        choices: [ethr, iperf2, iperf3, netperf, nuttcp]
      port:
        description: First port.
        type: int
      count:
        description: Number of servers.
        type: int
        default: 1
      bind:
        description: Data address.
        type: str
  state:
    description: V(started), V(stopped) or V(status), as M(perflab.network.bench_server)'s.
    type: str
    choices: [started, stopped, status]
    default: started
  bind:
    description: Data address the servers listen on.
    type: str
  port:
    description: First (control) port.
    type: int
  count:
    description: Number of servers.
    type: int
    default: 1
  pid_dir:
    description: Directory of the pidfiles on the host.
    type: str
    default: C:\perflab\run
  idle_timeout:
    description: iperf3 only, C(--idle-timeout) seconds.
    type: int
  nofile:
    description: Not on Windows (refused when given).
    type: int
  ready_timeout:
    description: Seconds to wait for each server's port to listen.
    type: int
    default: 10
  executable:
    description: Server executable on the host.
    type: path
seealso:
  - module: perflab.network.bench_server
'''

EXAMPLES = r'''
- name: Two iperf3 servers on a Windows host
  perflab.network.win_bench_server:
    tool: iperf3
    bind: 10.213.1.21
    count: 2

- name: Stop every iperf3 server this module started there
  perflab.network.win_bench_server:
    tool: iperf3
    state: stopped
'''

RETURN = r'''
servers:
  description: The servers concerned, one per port, as M(perflab.network.bench_server) returns them.
  returned: always
  type: list
  elements: dict
'''
