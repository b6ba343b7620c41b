# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Which tools of the registry a host has: each one's executable, the version it gives and its server's
executable, found and asked in one module run (the tools role's report, ``perflab_tools``).

The search order is the tools role's: its prefix's ``bin`` first (what the role installed there wins),
then the one order of every test module (process.search_dirs: PATH, then the usual folders). The
version is read as the test modules read it before each test (the tool's ``version_argv`` and
``parse_version``), so that the report and the records say the same.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os

from ansible_collections.perflab.network.plugins.module_utils.host import process
from ansible_collections.perflab.network.plugins.module_utils.tools import registry
from ansible_collections.perflab.network.plugins.module_utils.tools.tool import VERSION_TIMEOUT_S


def search_dirs(prefix, path_env=None):
    """``<prefix>/bin``, then process.search_dirs(); each folder once."""
    first = [os.path.join(prefix, 'bin')] if prefix else []
    return first + [d for d in process.search_dirs(path_env=path_env) if d not in first]


def probe(dirs, run=process.run, timeout=VERSION_TIMEOUT_S):
    """tool -> {version, path, server_path} for every tool of the registry found in ``dirs`` (search_dirs()),
    in the registry's order.

    ``version`` is None when the tool's output names none (or it did not answer within ``timeout``);
    ``server_path`` is the executable of the tool's server where it is another one (netperf's netserver),
    None when that one is missing, else ``path``."""
    found = {}
    for name, tool in registry.TOOLS.items():
        path = process.find_in(tool.client_executable, dirs)
        if not path:
            continue
        about = run(tool.version_argv(path), timeout)
        if tool.server_executable == tool.client_executable:
            server = path
        else:
            server = process.find_in(tool.server_executable, dirs)
        found[name] = {'version': tool.parse_version((about.stdout or '') + (about.stderr or '')) or None,
                       'path': path, 'server_path': server}
    return found
