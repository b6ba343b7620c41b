# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""bench_server's arguments and what follows from them alone (pure: no host I/O), for the module and its
action plugin on Windows hosts: the groups of servers a call manages, their ports, every problem of the
call, each server's argv and listen address (the tools' registry files)."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import ipaddress
import re

from ansible_collections.perflab.network.plugins.module_utils.tools import registry

# bench_server's pidfiles: <tool>-<port>.pid, tools from the registry
PIDFILE_RE = re.compile(r'^(%s)-(\d{1,5})\.pid$' % '|'.join(re.escape(name) for name in registry.NAMES))

# tool -> (server executable, default port): the tools' registry files
TOOLS = dict((name, (tool.server_executable, tool.default_port)) for name, tool in registry.TOOLS.items())


def argument_spec():
    return dict(
        tool=dict(type='str'),
        servers=dict(type='list', elements='dict', options=dict(
            tool=dict(type='str', required=True),
            port=dict(type='int'),
            count=dict(type='int', default=1),
            bind=dict(type='str'),
        )),
        state=dict(type='str', default='started', choices=['started', 'stopped', 'status']),
        bind=dict(type='str'),
        port=dict(type='int'),
        count=dict(type='int', default=1),
        pid_dir=dict(type='path', default='/run/perflab'),
        idle_timeout=dict(type='int'),
        nofile=dict(type='int'),
        ready_timeout=dict(type='int', default=10),
        executable=dict(type='path'),
        tool_paths=dict(type='list', elements='str'),
        sample_interface=dict(type='str'),
    )


ARGUMENT_RULES = dict(
    required_if=[('state', 'started', ('tool', 'servers'), True)],
    mutually_exclusive=[('tool', 'servers'), ('executable', 'servers')],
)


def groups_of(params):
    """The groups of servers a call manages: O(servers), or the one O(tool) names.

    Each is a dict like the module's own parameters (tool, port, count, bind, idle_timeout, ...).
    """
    if params.get('servers') is None and params.get('tool') is None:
        # stopped/status of everything ours: one group per tool, each finds its own pidfiles
        return [dict(params, tool=name, port=None) for name in registry.NAMES]
    if params.get('servers') is None:
        return [dict(params)]
    groups = []
    for server in params['servers']:
        group = dict(params, servers=None, **server)
        if not registry.get(group['tool']).server_idle_timeout:
            group['idle_timeout'] = None   # applies to the tools whose servers take one (iperf3)
        groups.append(group)
    return groups


def call_errors(params):
    """Every problem of the call's parameters, each group's prefixed with servers[i] when O(servers) is used."""
    unknown = [registry.unknown_problem([params.get('tool')])]
    unknown += [registry.unknown_problem([group.get('tool')], 'servers[%d].tool' % index)
                for index, group in enumerate(params.get('servers') or [])]
    if any(unknown):
        return [problem for problem in unknown if problem]
    if params.get('servers') is None:
        errors = []
        for group in groups_of(params):
            errors += [error for error in param_errors(group) if error not in errors]
        return errors
    if not params['servers']:
        return ['servers must name at least one group of servers']
    errors = []
    for index, group in enumerate(groups_of(params)):
        errors += ['servers[%d]: %s' % (index, error) for error in param_errors(group)]
    return errors


def param_errors(params):
    errors = []
    for field, low, high in (('port', 1, 65535), ('count', 1, 64), ('idle_timeout', 1, 86400),
                             ('nofile', 1024, 1048576), ('ready_timeout', 1, 300)):
        value = params.get(field)
        if value is not None and not low <= value <= high:
            errors.append('%s must be between %d and %d, got %d' % (field, low, high, value))
    port = params.get('port') or TOOLS[params['tool']][1]
    if 1 <= port <= 65535 and port + params['count'] - 1 > 65535:
        errors.append('port + count - 1 must be at most 65535, got port %d with count %d' % (port, params['count']))
    if params.get('bind') is not None:
        try:
            ipaddress.ip_address(params['bind'])
        except ValueError:
            errors.append('bind must be an IP address, got %r' % (params['bind'],))
    if params.get('idle_timeout') is not None and not registry.get(params['tool']).server_idle_timeout:
        errors.append('idle_timeout applies to %s only, not %s'
                      % (', '.join(name for name in registry.NAMES if registry.get(name).server_idle_timeout),
                         params['tool']))
    return errors


def server_command(tool, executable, port, bind=None, idle_timeout=None):
    """argv of one server, run in the foreground (we detach it ourselves): the tool's registry file."""
    if tool not in registry.TOOLS:
        raise ValueError('unknown tool %r' % (tool,))
    return registry.get(tool).server_argv(executable, port, bind, idle_timeout)


def listen_address(tool, bind):
    """The address the server really listens on (None = all)."""
    return registry.get(tool).server_listen_address(bind)


def ports_of(group, state, pidfile_names):
    """Ports a group concerns: the asked range, or (stop/status without port) each of its tool's pidfiles
    among ``pidfile_names`` (the pid dir's listing)."""
    tool = group['tool']
    if group.get('port') is None and state != 'started':
        return sorted(int(match.group(2)) for match in (PIDFILE_RE.match(name) for name in pidfile_names)
                      if match and match.group(1) == tool)
    first = group.get('port') or TOOLS[tool][1]
    return list(range(first, first + group['count']))


def pidfile_name(tool, port):
    return '%s-%d.pid' % (tool, port)


def parse_pidfile(name):
    """``iperf3-5201.pid`` -> ('iperf3', 5201); None for a name that is not one of our servers'."""
    match = PIDFILE_RE.match(name)
    if not match:
        return None
    return match.group(1), int(match.group(2))
