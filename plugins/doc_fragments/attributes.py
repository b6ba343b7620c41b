# -*- coding: utf-8 -*-
# Copyright: perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type


class ModuleDocFragment(object):
    """What every perflab.network module shares: its author, the descriptions of its C(attributes) and the support
    most modules have (full check mode, no diff, POSIX hosts). A module lists this fragment last: its own values
    and those of the fragments listed before it win, so that it states only what differs and its details."""

    DOCUMENTATION = r'''
author:
  - perflab.network contributors (@perflab)
options: {}
attributes:
  check_mode:
    description: Can run in check_mode and return changed status prediction without modifying target.
    support: full
  diff_mode:
    description: Will return details on what has changed (or possibly needs changing in check_mode), when in diff mode.
    support: none
  platform:
    description: Target OS/families that can be operated against.
    support: full
    platforms: posix
'''

    # the platform's description is in DOCUMENTATION above: this name is kept for the modules that list it
    PLATFORM = r'''
options: {}
'''

    # Modules with an action plugin of the same name that drives Windows hosts from the controller
    # (bench_test, bench_server, bench_preflight, system_profile; plugins/action/).
    WINDOWS_ACTION = r'''
options: {}
attributes:
  action:
    description: Indicates this has a corresponding action plugin so some parts of the options can be executed on the controller.
    support: full
    details:
      - On Linux and FreeBSD the action plugin runs this module as Ansible's normal action does.
      - On a Windows host (a PowerShell connection) it runs the Windows side on the controller through
        C(ansible.windows.win_powershell) (see the description).
'''

    # Modules whose action plugin runs their code in the controller's worker process, not as a module
    # (bench_record: pure, it runs on the controller anyway).
    CONTROLLER_ACTION = r'''
options: {}
attributes:
  action:
    description: Indicates this has a corresponding action plugin so some parts of the options can be executed on the controller.
    support: full
    details:
      - The action plugin runs the module's code in the controller's worker process, without starting a module
        (a Python interpreter and its imports); it runs on the controller wherever the task is delegated.
'''

    # Modules that only measure or report: nothing on the host changes.
    INFO_MODULE = r'''
options: {}
attributes:
  check_mode:
    support: full
    details:
      - This module changes nothing on the host; in check mode it runs nothing and says so.
  diff_mode:
    support: N/A
    details:
      - This module changes nothing on the host.
'''
