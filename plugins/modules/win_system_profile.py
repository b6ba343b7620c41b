#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

DOCUMENTATION = r'''
---
module: win_system_profile
short_description: The system table of a Windows host (system_profile for Windows)
version_added: 0.1.0
description:
  - Returns C(perflab_system) (schema C(perflab.system/1)), the fields of M(perflab.network.system_profile),
    from the CIM classes C(Win32_Processor), C(Win32_BaseBoard), C(Win32_PhysicalMemory), C(Win32_DiskDrive),
    C(Win32_NetworkAdapter), C(Win32_OperatingSystem) (each read as C(Format-List) text and parsed on the
    controller), the system drive's file system (C(Win32_LogicalDisk)) and the adapter's IPv4 MTU
    (C(Get-NetIPInterface)).
  - Chipset and Compiler are C(unknown) (CIM has no chipset class; Windows hosts have no compiler); the network
    facts have no offloads, qdisc or sysctls.
  - An action plugin; reads only. Tested on the controller side only (unit tests with real CIM output).
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
    details: Read-only; check mode collects the same facts.
  diff_mode:
    description: Will return details on what has changed (or possibly needs changing in check_mode), when in diff mode.
    support: none
  platform:
    description: Target OS/families that can be operated against.
    support: full
    platforms: windows
options:
  interface:
    description: The data adapter (a C(Get-NetAdapter) name, its C(NetConnectionID)).
    type: str
  run_id:
    description: Study run the profile belongs to. Generated when omitted.
    type: str
  config:
    description: Configuration label.
    type: str
    default: ''
  host_name:
    description: Name of the host in the profile. Default the inventory name.
    type: str
seealso:
  - module: perflab.network.system_profile
'''

EXAMPLES = r'''
- name: Profile a Windows host for the report
  perflab.network.win_system_profile:
    interface: Ethernet 2
    config: Windows 2019 stock
'''

RETURN = r'''
perflab_system:
  description: The profile, schema C(perflab.system/1), as M(perflab.network.system_profile) returns it.
  returned: success
  type: dict
'''
