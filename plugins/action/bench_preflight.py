# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""bench_preflight: the module on Linux and FreeBSD; on a Windows host (ping.exe, netstat -ano, the pidfiles), decided the same way."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

from ansible.module_utils.common.arg_spec import ArgumentSpecValidator

from ansible_collections.perflab.network.plugins.module_utils.host import windows as win
from ansible_collections.perflab.network.plugins.module_utils.bench import preflight
from ansible_collections.perflab.network.plugins.module_utils.host import process
from ansible_collections.perflab.network.plugins.module_utils.bench import win_action
from ansible_collections.perflab.network.plugins.plugin_utils.windows_action import action_module


def argument_spec():
    spec = preflight.argument_spec()
    spec['pid_dir'] = dict(type='str', default=win.PID_DIR)
    return spec


def check(args, execute):
    validated = ArgumentSpecValidator(argument_spec()).validate(args)
    if validated.error_messages:
        return {'failed': True, 'msg': '; '.join(validated.error_messages)}
    params = validated.validated_parameters
    errors = preflight.param_errors(params)
    if errors:
        return {'failed': True, 'msg': 'bench_preflight (Windows): ' + '; '.join(errors)}
    host = win.WindowsHost(execute)
    servers = [dict((key, server[key]) for key in ('tool', 'bind', 'port', 'count')) for server in params['servers']]
    try:
        pings = [win.ping_argv(address, params['ping_wait']) for address in params['addresses']]
        answers = [host.run(argv, params['ping_wait'] + 5) for argv in pings]
        unanswered = [address for address, proc in zip(params['addresses'], answers)
                      if not win.ping_answered(proc.rc, proc.stdout, address)]
        mtu_found, mtu_problems, probes = windows_path_mtu(params, host, unanswered)
        names = []
        if servers:
            names = (execute(win.PIDFILES_PS, {'Dir': params['pid_dir']}).get('result') or {}).get('names') or []
        pidfiles = preflight.server_pidfiles(names) if servers else []
        listening = win.listening_ports(win.parse_netstat_ano(host.run(win.NETSTAT_ARGV, 30).stdout))
    except win_action.PowerShellError as exc:
        return {'failed': True, 'msg': 'bench_preflight (Windows): %s' % exc}
    return dict(changed=False, unanswered=unanswered, pidfiles=pidfiles,
                stop_planned=preflight.leftovers_on_planned_ports(servers, pidfiles),
                stop_unplanned=preflight.leftovers_on_unplanned_ports(servers, pidfiles),
                listening=listening, taken=preflight.taken_ports(servers, listening), pings=pings + probes,
                path_mtu=mtu_found, path_mtu_problems=mtu_problems)


def windows_path_mtu(params, host, unanswered):
    """bench_preflight's path MTU check through ping.exe (IPv4 only: it cannot forbid fragmenting IPv6), one
    probe at a time; an answer counts only with TTL= (ping_answered)."""
    if not params.get('path_mtu', True) or not params.get('data_interface'):
        return [], [], []
    ran = []

    def run_many(argvs, timeout):
        out = []
        for argv in argvs:
            proc = host.run(argv, timeout)
            ran.append(argv)
            out.append(process.ProcessResult(argv, 0 if win.ping_answered(proc.rc, proc.stdout, argv[-1]) else 1,
                                             proc.stdout, proc.stderr))
        return out

    class Pinger(object):
        name = 'Windows'
        ping_argv = staticmethod(win.ping_argv)
        interface_mtu = staticmethod(host.interface_mtu)

    v4 = dict(params, addresses=[a for a in params['addresses'] if ':' not in a])
    mtus = preflight.interface_mtus(v4, Pinger, run_many)
    probes = [(address, mtus[address][1]) for address in v4['addresses'] if address in mtus]
    answers = run_many([win.ping_argv(a, params['ping_wait'], preflight.probe_payload(m, a)) for a, m in probes],
                       params['ping_wait'] + 5)
    found, problems, dummy = preflight.path_mtu_check(v4, Pinger, run_many, probes, answers, unanswered, mtus)
    return found, problems, ran


# the module as always on Linux and FreeBSD (Ansible's normal action); on a Windows host, the above
ActionModule = action_module(lambda args, check_mode, execute, task_vars: check(args, execute))
