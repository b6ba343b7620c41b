# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""bench_server: the module on Linux and FreeBSD; on a Windows host, servers as background processes stopped as a tree."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import ntpath

from ansible.module_utils.common.arg_spec import ArgumentSpecValidator

from ansible_collections.perflab.network.plugins.module_utils.core import common_args
from ansible_collections.perflab.network.plugins.module_utils.core import limits
from ansible_collections.perflab.network.plugins.module_utils.host import windows as win
from ansible_collections.perflab.network.plugins.module_utils.host import process
from ansible_collections.perflab.network.plugins.module_utils.bench import servers as server_args
from ansible_collections.perflab.network.plugins.module_utils.bench import win_action
from ansible_collections.perflab.network.plugins.plugin_utils.windows_action import action_module


def argument_spec():
    spec = server_args.argument_spec()
    spec['pid_dir'] = dict(type='str', default=win.PID_DIR)
    return spec


def _pidfile(pid_dir, tool, port):
    return ntpath.join(pid_dir, '%s-%d.pid' % (tool, port))


def _conflicts(host, port, address):
    listeners = win.parse_netstat_ano(host.run(win.NETSTAT_ARGV, 30).stdout)
    return [item for item in listeners if item['proto'] == 'tcp' and item['port'] == port and
            (address is None or item['address'] in ('0.0.0.0', '::', address))]


def manage(args, check_mode, execute):
    """The task's result for ``args`` (bench_server's options; pid_dir a Windows path)."""
    validated = ArgumentSpecValidator(argument_spec(), **server_args.ARGUMENT_RULES).validate(args)
    if validated.error_messages:
        return {'failed': True, 'msg': '; '.join(validated.error_messages)}
    params = validated.validated_parameters
    errors = server_args.call_errors(params) + common_args.tool_paths_errors(params.get('tool_paths'),
                                                                             isabs=win.WindowsHost.path_is_absolute)
    if params.get('nofile') is not None:
        errors.append('nofile does not apply on Windows (no per-process open-files limit to raise)')
    if errors:
        return {'failed': True, 'msg': '; '.join(errors)}
    host = win.WindowsHost(execute)
    state, pid_dir = params['state'], params['pid_dir']
    groups = server_args.groups_of(params)
    executables = {}
    for group in groups:
        tool = group['tool']
        if tool not in executables:
            wanted = params.get('executable') or server_args.TOOLS[tool][0]
            executables[tool] = host.which(wanted, params.get('tool_paths')) or (wanted if state != 'started' else None)
        if not executables[tool]:
            return {'failed': True, 'msg': process.missing_tool_message(
                server_args.TOOLS[tool][0], host.search_dirs(params.get('tool_paths')))}
    names = []
    if state != 'started' and any(group.get('port') is None for group in groups):
        names = (execute(win.PIDFILES_PS, {'Dir': pid_dir}).get('result') or {}).get('names') or []

    servers, started_now, changed = [], [], False

    def entry(tool, bind, port, pid, server_state, argv):
        return {'tool': tool, 'port': port, 'pid': pid, 'bind': bind, 'state': server_state, 'command': argv,
                'pidfile': _pidfile(pid_dir, tool, port), 'log': None, 'log_problems': None, 'nofile': None}

    def rollback(msg):
        for pidfile in started_now:
            execute(win.SERVER_STOP_PS, {'PidFile': pidfile, 'Stop': True})
        for server in servers:
            if server['state'] == 'started':
                server['state'] = 'stopped'
        return {'failed': True, 'msg': msg, 'servers': servers, 'changed': False}

    try:
        for group in groups:
            tool, bind = group['tool'], group.get('bind')
            for port in server_args.ports_of(group, state, names):
                pidfile = _pidfile(pid_dir, tool, port)
                argv = server_args.server_command(tool, executables[tool], port, bind, group.get('idle_timeout'))
                seen = execute(win.SERVER_STOP_PS, {'PidFile': pidfile, 'Stop': False}).get('result') or {}
                pid = seen.get('pid') if seen.get('alive') else None
                if state == 'status':
                    servers.append(entry(tool, bind, port, pid, 'running' if pid else 'absent', argv))
                elif state == 'stopped':
                    if not pid:
                        servers.append(entry(tool, bind, port, None, 'absent', argv))
                        continue
                    changed = True
                    if check_mode:
                        servers.append(entry(tool, bind, port, pid, 'would stop', argv))
                        continue
                    stopped = execute(win.SERVER_STOP_PS, {'PidFile': pidfile, 'Stop': True}).get('result') or {}
                    if stopped.get('left'):
                        return {'failed': True, 'changed': True, 'servers': servers,
                                'msg': 'the server on port %d (pid %d) left processes behind' % (port, pid)}
                    servers.append(entry(tool, bind, port, pid, 'stopped', argv))
                elif pid:
                    servers.append(entry(tool, bind, port, pid, 'running', argv))
                else:
                    conflicts = _conflicts(host, port, server_args.listen_address(tool, bind))
                    if conflicts:
                        return rollback('port %d is already in use by another process (%s): not a server of %s started '
                                        'by this module (no live pidfile %s)'
                                        % (port, ', '.join('pid %s on %s' % (item['pid'], item['address'])
                                                           for item in conflicts), tool, pidfile))
                    changed = True
                    if check_mode:
                        servers.append(entry(tool, bind, port, None, 'would start', argv))
                        continue
                    started = execute(win.SERVER_START_PS, {
                        'CommandLine': win.command_line(argv), 'PidFile': pidfile, 'Port': port,
                        'ReadyTimeout': params['ready_timeout']}).get('result') or {}
                    if not started.get('ready'):
                        return rollback('the server on port %d did not listen within %d s (it was stopped again): %s'
                                        % (port, params['ready_timeout'], win.command_line(argv)))
                    started_now.append(pidfile)
                    servers.append(entry(tool, bind, port, started.get('pid'), 'started', argv))
    except win_action.PowerShellError as exc:
        return rollback('bench_server (Windows): %s' % exc)
    result = {'changed': changed, 'servers': servers}
    if params.get('sample_interface'):
        result['sampled'] = limits.server_not_sampled('Windows', params['sample_interface'])
    return result


# the module as always on Linux and FreeBSD (Ansible's normal action); on a Windows host, the above
ActionModule = action_module(lambda args, check_mode, execute, task_vars: manage(args, check_mode, execute))
