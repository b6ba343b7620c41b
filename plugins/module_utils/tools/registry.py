# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The tool registry: every benchmark tool the collection runs, by name.

To add a tool: write ``module_utils/tools/<tool>/tool.py`` (a ``Tool`` subclass and
``TOOL``, with its install data and firewall settings), its parser, a thin module in
``plugins/modules/<tool>.py``, and add it here (docs/architecture.md).
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

from ansible_collections.perflab.network.plugins.module_utils.core import record as rec
from ansible_collections.perflab.network.plugins.module_utils.tools.tool import INSTALL_FAMILIES
from ansible_collections.perflab.network.plugins.module_utils.tools.ethr import tool as _ethr
from ansible_collections.perflab.network.plugins.module_utils.tools.iperf2 import tool as _iperf2
from ansible_collections.perflab.network.plugins.module_utils.tools.iperf3 import tool as _iperf3
from ansible_collections.perflab.network.plugins.module_utils.tools.netperf import tool as _netperf
from ansible_collections.perflab.network.plugins.module_utils.tools.nuttcp import tool as _nuttcp
from ansible_collections.perflab.network.plugins.module_utils.tools.sockperf import tool as _sockperf

TOOLS = dict((tool.name, tool)
             for tool in (_iperf3.TOOL, _iperf2.TOOL, _netperf.TOOL, _nuttcp.TOOL, _ethr.TOOL, _sockperf.TOOL))
NAMES = tuple(sorted(TOOLS))


def _metrics():
    """record.METRICS with every tool's own ``metrics``; a tool may not redefine a metric another defines."""
    out = dict(rec.METRICS)
    for tool in TOOLS.values():
        for name, spec in tool.metrics.items():
            if out.setdefault(name, spec) != spec:
                raise ValueError('%s metric %s is already defined as %r' % (tool.name, name, out[name]))
    return out


# every metric a record can hold: name -> (unit, higher is better, combine rule)
METRICS = _metrics()


def get(name):
    """The tool called ``name``; KeyError names the known ones."""
    try:
        return TOOLS[name]
    except KeyError:
        raise KeyError('unknown tool %r (known: %s)' % (name, ', '.join(NAMES)))


def unknown_problem(names, where='tool'):
    """'' when every name of ``names`` (None left out) is a tool of the registry, else the error naming the unknown
    ones and the known tools: the one check of a tool name the modules' arguments and the roles' preflights take
    (their argument specs list no tools)."""
    unknown = sorted(set(str(name) for name in names if name is not None) - set(TOOLS))
    if not unknown:
        return ''
    return '%s: unknown tool%s %s (known: %s)' % (where, 's' if len(unknown) > 1 else '', ', '.join(unknown),
                                                  ', '.join(NAMES))


def by_server_executable():
    """server executable name -> tool (what a listener's process name says)."""
    return dict((tool.server_executable, tool) for tool in TOOLS.values())


def install_plan(family):
    """The tools role's plan table of install ``family`` (a vars file's __tools_install_family): tool -> entry,
    every tool in the registry's order; KeyError names the known families."""
    if family not in INSTALL_FAMILIES:
        raise KeyError('unknown install family %r (known: %s)' % (family, ', '.join(INSTALL_FAMILIES)))
    return dict((name, tool.install_entry(family)) for name, tool in TOOLS.items())


def packages(family):
    """The packages of every tool that install ``family`` installs from a package (the VM lab's image holds
    Debian's), in the registry's order."""
    return [package for entry in install_plan(family).values() if entry.get('method') == 'package'
            for package in entry['packages']]


def firewall_settings():
    """setting -> (tool, Option): the firewall role's settings of the tools' openings outside a plan
    (its variables firewall_<setting>), in the registry's order."""
    out = {}
    for tool in TOOLS.values():
        for name, option in tool.firewall_settings.items():
            out[name] = (tool, option)
    return out


def _setting_int(value):
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def firewall_setting_values(given):
    """(values, problems) of the firewall settings ``given`` (setting -> value; those left out take their tool
    file's default): the values as the tools' ``standalone_openings`` take them, and, naming each setting,
    every value out of its range (an int setting, or each port of a list setting)."""
    settings = firewall_settings()
    unknown = sorted(set(given or {}) - set(settings))
    if unknown:
        raise KeyError('unknown firewall setting(s) %s (known: %s)' % (', '.join(unknown), ', '.join(settings)))
    values, problems = {}, []
    for name, (_tool, option) in settings.items():
        raw = (given or {}).get(name)
        raw = option.default if raw is None else raw
        if option.kind == 'list':
            numbers = [_setting_int(item) for item in (raw if isinstance(raw, (list, tuple)) else [raw])]
            bad = [number for number in numbers if number is None or not option.low <= number <= option.high]
            values[name] = numbers
            what = 'ports ' if option.high == 65535 else ''
        else:
            number = _setting_int(raw)
            bad = number is None or not option.low <= number <= option.high
            values[name] = number
            what = ''
        if bad:
            problems.append('%s must be %s%d-%d (got %s)' % (name, what, option.low, option.high, raw))
    return values, problems
