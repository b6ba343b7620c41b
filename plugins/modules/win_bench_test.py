#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

DOCUMENTATION = r'''
---
module: win_bench_test
short_description: Run one benchmark test on a Windows host (bench_test for Windows)
version_added: 0.1.0
description:
  - M(perflab.network.bench_test) for a Windows host. The same options, the same record.
  - An action plugin, run on the controller. It finds the tool there (C(C:\ProgramData\chocolatey\bin),
    C(C:\perflab\bin), C(C:\perflab\ethr), then PATH), reads its version, and runs the client there through
    C(ansible.windows.win_powershell) as a process started from its argv (the C runtime's quoting, no shell),
    killed with its whole tree (C(taskkill /T /F)) when the tool's timeout is exceeded. Its output is parsed
    on the controller by the tool's own parser (the collection's runner, the same as on Linux).
  - With O(nic_interface) (a C(Get-NetAdapter) name such as C(Ethernet 2)), C(Get-NetAdapterStatistics) is
    read just before and just after the client, in the same script; the NIC rates are over that window (two
    samples, none in between).
  - Only one client process per test (O(processes) 1). netperf has no Windows build.
  - Tested on the controller side only (unit tests with real Windows command output and the tools' real
    output); not run against a live Windows host.
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
    details: In check mode only the version is read; the record is skipped, as bench_test's.
  diff_mode:
    description: Will return details on what has changed (or possibly needs changing in check_mode), when in diff mode.
    support: none
  platform:
    description: Target OS/families that can be operated against.
    support: full
    platforms: windows
options:
  tool:
    description: The tool (one of the registry's; netperf cannot run on Windows).
    type: str
    required: true
    choices: [ethr, iperf2, iperf3, netperf, nuttcp]
  test:
    description: The tool's test, as M(perflab.network.bench_test)'s.
    type: str
  options:
    description: The tool's options, as M(perflab.network.bench_test)'s.
    type: dict
    default: {}
  path:
    description: The client executable on the host.
    type: path
  hold:
    description: Return the record as C(perflab_held), as M(perflab.network.bench_test) does.
    type: bool
    default: false
  server:
    description: The server's data address.
    type: str
    required: true
  port:
    description: The server's (first) port; the tool's default when omitted.
    type: int
  duration:
    description: Seconds.
    type: int
    default: 10
  parallel:
    description: Streams.
    type: int
    default: 1
  processes:
    description: Client processes; only 1 on Windows.
    type: int
    default: 1
  bind:
    description: Client data address.
    type: str
  nic_interface:
    description: The data adapter (a C(Get-NetAdapter) name) whose counters are read around the test.
    type: str
  timeout:
    description: Seconds before the client's process tree is killed (default the tool's rule).
    type: int
  run_id:
    description: Study run identifier.
    type: str
  config:
    description: Configuration label.
    type: str
    default: ''
  suite:
    description: Suite name.
    type: str
    default: adhoc
  repetition:
    description: Repetition number.
    type: int
    default: 1
  client_name:
    description: The client's inventory name.
    type: str
  server_name:
    description: The server's inventory name.
    type: str
  test_id:
    description: The plan's test id.
    type: str
notes:
  - The options above are M(perflab.network.bench_test)'s common ones; the action plugin checks the task with
    bench_test's own argument spec, so they stay the same.
seealso:
  - module: perflab.network.bench_test
  - module: perflab.network.win_bench_server
'''

EXAMPLES = r'''
- name: iperf3 TCP from a Windows client
  perflab.network.win_bench_test:
    tool: iperf3
    test: tcp_stream
    server: 10.213.1.11
    duration: 30
    nic_interface: Ethernet 2
'''

RETURN = r'''
perflab_result:
  description: The record (a list of one), as M(perflab.network.bench_test) returns it.
  returned: unless O(hold)
  type: list
  elements: dict
perflab_held:
  description: The record, with O(hold).
  returned: with O(hold)
  type: list
  elements: dict
'''
