# -*- coding: utf-8 -*-
# Copyright: perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type


class ModuleDocFragment(object):
    """The option of the modules that read a host's network configuration files (bonding_info,
    host_network_info; their argument spec: module_utils/host/network.py CONFIG_FILE_ARGS). Each module
    documents O(own_prefix) itself: what an own file means differs."""

    DOCUMENTATION = r'''
options:
  root_dir:
    description: Root directory the configuration files are looked up under.
    type: path
    default: /
'''
