# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""netperf 2.x: everything the collection knows about it (parser: parse_netperf)."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import ipaddress

from ansible_collections.perflab.network.plugins.module_utils.core import common_args
from ansible_collections.perflab.network.plugins.module_utils.tools.netperf import parse as parse_netperf
from ansible_collections.perflab.network.plugins.module_utils.tools.tool import Option, Test, Tool, package, unavailable

LOOPBACK_PREFIXES = ('127.', '::1', 'localhost')
STREAM_TESTS = [name for name, spec in sorted(parse_netperf.TESTS.items()) if spec[3] == 'stream']
RR_TESTS = [name for name, spec in sorted(parse_netperf.TESTS.items()) if spec[3] == 'rr']


def _number(value):
    # netperf reads "1e3" or "4M" suffixes too; the module passes plain integers only
    return '%d' % value


class Netperf(Tool):
    name = 'netperf'
    title = 'Netperf'
    report_tests = {'tcp_stream': 'TCP Stream (Client To Server)', 'tcp_maerts': 'TCP Stream (Server To Client)',
                    'udp_stream': 'UDP Stream (Client To Server)', 'tcp_rr': 'TCP Request Response',
                    'tcp_crr': 'TCP Connect Request Response', 'udp_rr': 'UDP Request Response'}
    report_options = {'request_size': 'Request: %s Bytes', 'response_size': 'Response: %s Bytes',
                      'message_size': 'Message Size: %s Bytes', 'local_socket_buffer': 'Local Socket Buffer: %s Bytes',
                      'remote_socket_buffer': 'Remote Socket Buffer: %s Bytes'}
    client_executable = 'netperf'
    server_executable = 'netserver'
    windows = False   # no maintained Windows build (the tools role leaves it out there)
    default_port = 12865
    default_test = 'tcp_stream'
    tests = dict((name, Test(spec[1], spec[2], 'transactions_per_s' if spec[3] == 'rr' else 'throughput_mbps'))
                 for name, spec in parse_netperf.TESTS.items())
    options = {
        'data_port': Option('int', default=12866, suite=False),
        'local_data_port': Option('int', suite=False),
        'process_ports': Option('str', default='same', choices=['same', 'consecutive'], suite=False),
        'request_size': Option('int', low=1, high=1 << 30, tests=RR_TESTS, in_id=True),
        'response_size': Option('int', low=1, high=1 << 30, tests=RR_TESTS, in_id=True),
        'message_size': Option('int', low=1, high=1 << 30, tests=STREAM_TESTS, in_id=True, flag='-m', fmt='%d'),
        'local_socket_buffer': Option('int', low=1, high=1 << 31, in_id=True, flag='-s', fmt='%d'),
        'remote_socket_buffer': Option('int', low=1, high=1 << 31, in_id=True, flag='-S', fmt='%d'),
        # CPU utilization of both ends
        'cpu': Option('bool', default=True, flag=['-c', '-C']),
        'interval': Option('int', default=1, low=0, high=3600, suite=False, flag='-D', fmt='%d'),
        'confidence': Option('dict', spec=dict(options=dict(
            level=dict(type='int', default=99, choices=[95, 99]),
            width=dict(type='float', default=5.0),
            min_iterations=dict(type='int', default=3),
            max_iterations=dict(type='int', default=10),
        ))),
    }
    install = {
        # Debian: netperf is in non-free (its licence is not DFSG-free)
        'Debian': package('netperf', apt_component='non-free'),
        'Ubuntu': package('netperf', apt_component='multiverse'),
        'RedHat': {'method': 'source'},
        'Fedora': {'method': 'source'},
        'ClearLinux': {'method': 'source'},
        'FreeBSD': package('netperf'),
        'Windows': unavailable('netperf has no maintained Windows build, package or Chocolatey package'),
    }
    firewall_settings = {
        'netperf_data_ports': Option('list', default=[12866], spec={'elements': 'int'}, low=1, high=65535,
                                     description='the data ports the netperf tests pin (-- -P ,port), beside the '
                                                 'control port 12865'),
    }
    # netserver forks a child per test: one serves every process of a pair
    one_server_per_process = False
    # CPU utilization is system-wide (each process measures the whole host): the mean
    combine_overrides = {'cpu_local_pct': 'mean', 'cpu_remote_pct': 'mean'}

    def kind(self, params):
        return parse_netperf.TESTS[params['test']][3]

    def process_port(self, params, index):
        control = params.get('port') or self.default_port
        return control + index if params.get('process_ports') == 'consecutive' else control

    def data_port(self, params, index):
        """The server-side data port of process ``index`` (the one a firewall must open)."""
        if params.get('data_port'):
            return params['data_port'] + index
        return self.process_port(params, index)

    def pair_arguments(self, port):
        # the data port is pinned next to the control port so that a firewall can open it
        return {'port': port, 'data_port': port + 1}

    def openings(self, port, count, processes=1, parallel=1):
        # control port (tcp) and the pinned data ports port+1 .. port+processes (tcp and udp)
        last = port + int(processes or 1)
        return [(port, port, 'tcp'), (port + 1, last, 'tcp'), (port + 1, last, 'udp')]

    def standalone_openings(self, settings):
        out = [(self.default_port, self.default_port, 'tcp')]
        for port in settings['netperf_data_ports']:
            out += [(port, port, 'tcp'), (port, port, 'udp')]
        return out

    def option_errors(self, params):
        errors = []
        kind = self.kind(params)
        if params.get('parallel', 1) != 1:
            errors.append('parallel must be 1: netperf runs one stream per process (use processes), got %d'
                          % params['parallel'])
        processes = params.get('processes') or 1
        for field in ('data_port', 'local_data_port'):
            value = params.get(field)
            if value is None or (field == 'data_port' and value == 0):
                continue
            if not 1 <= value <= 65535 or value + processes - 1 > 65535:
                errors.append('%s must be between 1 and %d (it is followed by processes - 1 more ports), got %d'
                              % (field, 65535 - processes + 1, value))
        if kind == 'stream':
            for field in ('request_size', 'response_size'):
                if params.get(field) is not None:
                    errors.append('%s applies to tcp_rr, tcp_crr and udp_rr only, not %s' % (field, params['test']))
        elif params.get('message_size') is not None:
            errors.append('message_size applies to tcp_stream, tcp_maerts and udp_stream only, not %s'
                          % params['test'])
        if params['test'] == 'udp_stream' and params.get('message_size') is not None \
                and params['message_size'] > 65507:
            errors.append('message_size must be at most 65507 for udp_stream (the largest UDP datagram), got %d'
                          % params['message_size'])
        local, remote = params.get('local_data_port'), params.get('data_port')
        server = params.get('server') or ''
        if local and remote and server.startswith(LOOPBACK_PREFIXES):
            # ranges local..local+n-1 and remote..remote+n-1 must not overlap on one host
            if abs(local - remote) < processes:
                errors.append('local_data_port and data_port ranges overlap while the server is this host (%s): '
                              'the data socket would connect to itself' % server)
        conf = params.get('confidence')
        if conf:
            if not 0 < conf['width'] <= 100:
                errors.append('confidence.width must be more than 0 and at most 100 (percent), got %s'
                              % conf['width'])
            for field in ('min_iterations', 'max_iterations'):
                if not 3 <= conf[field] <= 30:
                    errors.append('confidence.%s must be between 3 and 30, got %d' % (field, conf[field]))
            if conf['min_iterations'] > conf['max_iterations']:
                errors.append('confidence.min_iterations (%d) must not exceed confidence.max_iterations (%d)'
                              % (conf['min_iterations'], conf['max_iterations']))
        return errors

    def range_errors(self, params):
        # the data ports' ranges depend on processes: option_errors says it in those terms
        return Tool.range_errors(self, params)

    def version_argv(self, executable):
        return [executable, '-V']

    def parse_version(self, text):
        return parse_netperf.parse_version(text)

    def client_argv(self, params, executable, index=0):
        name = parse_netperf.TESTS[params['test']][0]
        kind = self.kind(params)
        argv = [executable, '-H', params['server'], '-p', _number(self.process_port(params, index)), '-t', name,
                '-l', _number(params['duration'])]
        if params.get('bind'):
            argv += ['-L', params['bind']]
        argv += self.options_argv(params, ('cpu', 'interval'))
        conf = params.get('confidence')
        if conf:
            argv += ['-i', '%d,%d' % (conf['max_iterations'], conf['min_iterations']),
                     '-I', '%d,%s' % (conf['level'], ('%g' % conf['width']))]
        argv += ['-P', '0', '--']
        local, remote = params.get('local_data_port'), params.get('data_port')
        if local or remote:
            argv += ['-P', '%s,%s' % (_number(local + index) if local else '',
                                      _number(remote + index) if remote else '')]
        argv += self.options_argv(params, ('message_size',))
        # quirk: request and response sizes are one test-specific argument (-r request,response)
        if kind == 'rr' and (params.get('request_size') or params.get('response_size')):
            request = params.get('request_size') or 1
            response = params.get('response_size') or request
            argv += ['-r', '%d,%d' % (request, response)]
        argv += self.options_argv(params, ('local_socket_buffer', 'remote_socket_buffer'))
        argv += ['-o', ','.join(parse_netperf.selectors_for(params['test']))]
        return argv

    def server_argv(self, executable, port, bind=None, idle_timeout=None):
        # netserver's -D means "do NOT daemonize": it must stay our child so the pidfile is right
        argv = [executable, '-D', '-p', str(port)]
        if bind:
            argv += ['-L', '%s,%s' % (bind, 'inet6' if ipaddress.ip_address(bind).version == 6 else 'inet')]
        return argv

    def timeout(self, params):
        conf = params.get('confidence')
        extra = params['duration'] * (conf['max_iterations'] - 1) if conf else 0
        return common_args.effective_timeout(params, extra=extra + self.setup_s)

    def result_port(self, params, index):
        return self.data_port(params, index)

    def parse(self, params, proc, context):
        return parse_netperf.parse_result(params['test'], proc.stdout, proc.stderr, proc.rc,
                                          parse_netperf.selectors_for(params['test']))

    def combine(self, parsed, params):
        combined = Tool.combine(self, parsed, params)
        if params['test'] == 'udp_stream':
            # the loss of all processes from their byte counters
            loss = parse_netperf.loss_from_bytes([result.get('values') or {} for result in parsed])
            if loss is not None:
                combined['lost_percent'] = loss
        return combined

    def result_extra(self, params, parsed, module):
        conf = params.get('confidence')
        if not conf:
            return {}
        confidence = []
        for result in parsed:
            reached = parse_netperf.confidence(result.get('values') or {}, conf['level'], conf['width'])
            if reached is not None:
                confidence.append(reached)
                if reached['achieved'] is False:
                    module.warn('netperf did not reach %s%% +/-%g%% within %d iterations (width %.3g%%)'
                                % (conf['level'], conf['width'] / 2.0, conf['max_iterations'], reached['width_pct']))
        return {'confidence': confidence}


TOOL = Netperf()
