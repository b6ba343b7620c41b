# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""ethr: everything the collection knows about it (parser: parse_ethr)."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

from ansible_collections.perflab.network.plugins.module_utils.tools.ethr import parse as parse_ethr
from ansible_collections.perflab.network.plugins.module_utils.tools.tool import Option, Test, Tool, unavailable


def _seconds(value):
    """ethr durations are Go durations: "10s", "500ms"."""
    if float(value) == int(value):
        return '%ds' % int(value)
    return '%dms' % int(round(float(value) * 1000))


def no_http_message(version, protocols, refused=False):
    what = 'the installed ethr%s has no HTTP test' % (' (%s)' % version if version else '')
    if refused:
        return what + ': it refuses -p http (its help still lists http; ethr 1.0 removed the HTTP tests)'
    return what + ': its help lists only %s' % (', '.join(protocols) if protocols else 'no protocols')


class Ethr(Tool):
    name = 'ethr'
    title = 'Ethr'
    # keyed by the record's test (record_test): the bandwidth test records tcp_stream, tcp_maerts, udp_stream
    report_tests = {'bandwidth': 'Bandwidth', 'tcp_stream': 'Bandwidth', 'tcp_maerts': 'Bandwidth',
                    'udp_stream': 'Bandwidth', 'tcp_latency': 'Latency', 'connections': 'Connections/s',
                    'packets': 'Packets/s', 'http_bandwidth': 'Bandwidth'}
    report_options = {'buffer_length': 'Buffer Length: %s', 'rate_mbps': '%s Mbit Objective',
                      'iterations': 'Iterations: %s', 'gap': 'Gap: %s', 'warmup': 'Warm-up: %s'}
    report_parallel = 'Threads'
    throughput_count = 'client'   # the client counts what it writes (reads with -r)
    client_executable = 'ethr'
    server_executable = 'ethr'
    default_port = 8888
    default_test = 'bandwidth'
    # the server's accept errors when it runs out of file descriptors (connections/s): the client
    # still prints a rate, only the server's log shows that connections were refused
    server_log_problems = (r'too many open files',)
    server_log_message = ('the ethr server hit its open-files limit (soft nofile %(nofile)s): %(count)s accept '
                          'error(s) in its log, e.g. "%(line)s"; the rate is bounded by that limit, not the network '
                          '(give bench_server a higher nofile, or raise the hard limit)')
    # the module's test names (ethr's -t); record_test gives the normalized name
    tests = {
        'bandwidth': Test('tcp', 'client_to_server'),
        'connections': Test('tcp', 'client_to_server', 'connections_per_s', record_test='connections'),
        'latency': Test('tcp', 'bidirectional', 'latency_us_mean', record_test='tcp_latency'),
        'packets': Test('udp', 'client_to_server', 'packets_per_s', record_test='packets'),
        'http': Test('tcp', 'client_to_server', record_test='http_bandwidth'),
    }
    options = {
        'protocol': Option('str', default='tcp', choices=['tcp', 'udp']),
        'reverse': Option('bool', default=False, flag='-r'),
        'buffer_length': Option('int', tests=['bandwidth', 'http'], in_id=True, flag='-l', fmt='%d'),
        # -b in bits/s
        'rate_mbps': Option('float', tests=['bandwidth', 'http'], in_id=True, flag='-b',
                            fmt=lambda mbps: '%d' % int(round(mbps * 1e6))),
        'iterations': Option('int', tests=['latency'], in_id=True, flag='-i', fmt='%d'),
        'gap': Option('float', tests=['latency'], in_id=True, flag='-g', fmt=_seconds, zero=True),
        'warmup': Option('int', in_id=True, flag='-w', fmt='%d', zero=True),
        'decimal_precision': Option('int', choices=[1, 2], suite=False, flag='-dp', fmt='%d'),
    }
    # no package anywhere: the release zip of the OS (asset: its key in the tools role's __tools_ethr_releases)
    install = {
        'Debian': {'method': 'release_zip', 'asset': 'linux'},
        'Ubuntu': {'method': 'release_zip', 'asset': 'linux'},
        'RedHat': {'method': 'release_zip', 'asset': 'linux'},
        'Fedora': {'method': 'release_zip', 'asset': 'linux'},
        'ClearLinux': {'method': 'release_zip', 'asset': 'linux'},
        'FreeBSD': unavailable('ethr publishes no FreeBSD build and no package exists'),
        'Windows': {'method': 'release_zip', 'asset': 'windows'},
    }

    def report_test_parts(self, test, protocol, direction, options, title):
        # the Phoronix ethr tables: "Protocol: TCP - Test: Latency - Threads: 8" (HTTP is its own protocol)
        label = title or self.report_test_label(test, protocol, direction, options)
        if (options or {}).get('reverse') or direction == 'server_to_client':
            label += ' (Server To Client)'
        elif test == 'udp_stream' and not title:
            label += ' (Sent)'   # ethr 1.0 counts the bytes the client sent (throughput_sent_mbps)
        shown = 'HTTP' if test == 'http_bandwidth' else (protocol or '').upper()
        return ['Protocol: %s' % shown if shown else '', 'Test: %s' % label]

    def effective_protocol(self, params):
        if params['test'] == 'packets':
            return 'udp'
        if params['test'] in ('connections', 'latency', 'http'):
            return 'tcp'
        return params['protocol']

    # ethr 1.0 runs its latency test over one connection whatever -n says
    single_connection_tests = ('latency',)

    def effective_parallel(self, params):
        if (params.get('test') or self.default_test) in self.single_connection_tests:
            return 1
        return int(params.get('parallel') or 1)

    def notes(self, params):
        test = params.get('test') or self.default_test
        # the suite's values this test stands for (the plan merges them into one test), else the one asked
        asked = [int(value) for value in params.get('parallel_values') or [params.get('parallel') or 1]]
        ignored = sorted(set(value for value in asked if value > 1))
        if test in self.single_connection_tests and ignored:
            return ['parallel %s ignored: ethr 1.0 runs the %s test over one connection whatever -n says '
                    '(parallel recorded as 1)' % (', '.join(str(value) for value in ignored), test)]
        return []

    def primary(self, params):
        # UDP bandwidth: ethr 1.0 counts the bytes the client sent, the sender's rate
        if (params.get('test') or self.default_test) == 'bandwidth' and self.effective_protocol(params) == 'udp':
            return parse_ethr.UDP_RATE
        return Tool.primary(self, params)

    def record_test(self, params):
        test = params.get('test') or self.default_test
        spec = self.tests[test]
        if test != 'bandwidth':
            return spec.record_test, self.effective_protocol(params), spec.direction
        if params.get('reverse'):
            return 'tcp_maerts', 'tcp', 'server_to_client'
        protocol = self.effective_protocol(params)
        return ('udp_stream' if protocol == 'udp' else 'tcp_stream'), protocol, 'client_to_server'

    def option_errors(self, params):
        errors = []
        test = params['test']
        if params['protocol'] == 'udp' and test in ('connections', 'latency', 'http'):
            errors.append('protocol udp applies to the bandwidth test only (ethr runs %s over TCP)' % test)
        if params['reverse'] and (test != 'bandwidth' or params['protocol'] != 'tcp'):
            errors.append('reverse applies to the TCP bandwidth test only')
        if test not in ('bandwidth', 'http'):
            for field in ('buffer_length', 'rate_mbps'):
                if params.get(field) is not None:
                    errors.append('%s applies to the bandwidth tests only, not %s' % (field, test))
        if test != 'latency':
            for field in ('iterations', 'gap'):
                if params.get(field) is not None:
                    errors.append('%s applies to the latency test only, not %s' % (field, test))
        if test == 'latency' and (params.get('processes') or 1) > 1:
            errors.append('processes must be 1 for the latency test')
        limit = 65507 if self.effective_protocol(params) == 'udp' else 1 << 30
        for field, low, high in (('buffer_length', 1, limit), ('iterations', 1, 100000000),
                                 ('warmup', 0, 1000000)):
            value = params.get(field)
            if value is not None and not low <= value <= high:
                errors.append('%s must be between %d and %d, got %d' % (field, low, high, value))
        if params.get('rate_mbps') is not None and not 0 <= params['rate_mbps'] <= 1e7:
            errors.append('rate_mbps must be between 0 and 10000000, got %s' % params['rate_mbps'])
        if params.get('gap') is not None and not 0 <= params['gap'] <= 3600:
            errors.append('gap must be between 0 and 3600 seconds, got %s' % params['gap'])
        return errors

    def argv_port(self, argv):
        return int(argv[argv.index('-port') + 1])

    def version_argv(self, executable):
        # ethr -h prints the version and what this build supports
        return [executable, '-h']

    def parse_version(self, text):
        # "v1.0.0-5-g86e0704" -> "1.0.0-5-g86e0704": the version as the tools role and every other tool say it
        version = parse_ethr.parse_version(text)
        return version[1:] if version.startswith('v') else version

    def check_version(self, params, version, help_text):
        if params['test'] == 'http':
            protocols = parse_ethr.help_protocols(help_text)
            if 'http' not in protocols:
                return no_http_message(version, protocols)
        if params.get('decimal_precision') and not parse_ethr.help_has_flag(help_text, 'dp'):
            return ('decimal_precision needs an ethr whose help lists -dp; %s does not'
                    % (version or 'the installed ethr'))
        return None

    def client_argv(self, params, executable, index=0):
        test = params['test']
        argv = [executable, '-c', params['server'], '-port', '%d' % self.process_port(params, index),
                '-t', parse_ethr.TESTS[test][0], '-p', 'http' if test == 'http' else self.effective_protocol(params),
                '-n', '%d' % self.effective_parallel(params), '-d', _seconds(params['duration'])]
        if params.get('bind'):
            argv += ['-ip', params['bind']]
        argv += self.options_argv(params)
        # no ethrc.log in the working directory
        argv.append('-no')
        return argv

    def server_argv(self, executable, port, bind=None, idle_timeout=None):
        # -no: no ethrs.log in the working directory; output goes to our log
        argv = [executable, '-s', '-port', str(port), '-no']
        if bind:
            argv += ['-ip', bind]
        return argv

    def parse(self, params, proc, context):
        result = parse_ethr.parse_result(params['test'], proc.stdout + proc.stderr, proc.rc)
        if params['test'] == 'http' and 'Invalid value "http"' in (result['error'] or ''):
            result['error'] = no_http_message(context.get('version') or result['version'], [], refused=True)
            result['unsupported'] = True
        return result


TOOL = Ethr()
