# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The tool registry: every benchmark tool the collection runs, by name.

To add a tool: write ``module_utils/tools/<tool>.py`` (a ``Tool`` subclass and
``TOOL``), its parser, a thin module in ``plugins/modules/<tool>.py``, and add it
here (docs/architecture.md).
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

from ansible_collections.perflab.network.plugins.module_utils.tools import ethr as _ethr
from ansible_collections.perflab.network.plugins.module_utils.tools import iperf2 as _iperf2
from ansible_collections.perflab.network.plugins.module_utils.tools import iperf3 as _iperf3
from ansible_collections.perflab.network.plugins.module_utils.tools import netperf as _netperf
from ansible_collections.perflab.network.plugins.module_utils.tools import nuttcp as _nuttcp
from ansible_collections.perflab.network.plugins.module_utils.tools import sockperf as _sockperf

TOOLS = dict((tool.name, tool) for tool in (_iperf3.TOOL, _iperf2.TOOL, _netperf.TOOL, _nuttcp.TOOL, _ethr.TOOL,
                                                  _sockperf.TOOL))
NAMES = tuple(sorted(TOOLS))


def get(name):
    """The tool called ``name``; KeyError names the known ones."""
    try:
        return TOOLS[name]
    except KeyError:
        raise KeyError('unknown tool %r (known: %s)' % (name, ', '.join(NAMES)))


def by_server_executable():
    """server executable name -> tool (what a listener's process name says)."""
    return dict((tool.server_executable, tool) for tool in TOOLS.values())
