# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""sockperf (3.7, Debian's package ``sockperf``): everything the collection knows about it.

Parser: parse_sockperf (its docstring lists the quirks; fixtures and how they were captured:
tests/unit/fixtures/sockperf/3.7/README.md). Latencies are sockperf's default, half the round trip
(``avg-latency``), unless ``full_rtt`` asks for the whole round trip (``--full-rtt``).

A sockperf server serves UDP, or TCP with ``--tcp``, not both. bench_server judges a server ready by a
TCP connection and the benchmark preflight checks the plan's TCP ports through the firewall, so the
server bench_server starts is the TCP one and a plan runs the TCP tests; the UDP tests run with the
module against a server of your own (``sockperf server -i ADDR -p PORT``).
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

from ansible_collections.perflab.network.plugins.module_utils.core import common_args
from ansible_collections.perflab.network.plugins.module_utils.tools.sockperf import parse as parse_sockperf
from ansible_collections.perflab.network.plugins.module_utils.tools.tool import Option, Test, Tool, distro_packages, unavailable

# module test -> sockperf's mode
MODES = {'ping_pong': 'ping-pong', 'under_load': 'under-load', 'throughput': 'throughput'}


def mode_of(test):
    """sockperf's mode of a module test (``tcp_ping_pong`` -> ``ping-pong``)."""
    return MODES[test.split('_', 1)[1]]


class Sockperf(Tool):
    name = 'sockperf'
    title = 'Sockperf'
    report_tests = {'udp_ping_pong': 'Latency Ping Pong (UDP)', 'tcp_ping_pong': 'Latency Ping Pong (TCP)',
                    'udp_under_load': 'Latency Under Load (UDP)', 'tcp_under_load': 'Latency Under Load (TCP)',
                    'udp_stream': 'Throughput (UDP)', 'tcp_stream': 'Throughput (TCP)'}
    report_options = {'message_size': 'Message Size: %s', 'mps': 'Messages/s: %s', 'full_rtt': 'Full Round Trip'}
    metrics = {
        # percentiles of several processes cannot be combined exactly: the largest (an upper bound)
        'latency_us_p99_9': ('us', False, 'max'),
        'latency_us_p99_999': ('us', False, 'max'),
        'messages_per_s': ('1/s', True, 'sum'),
    }
    throughput_count = 'client'   # throughput: what the client sent
    client_executable = 'sockperf'
    server_executable = 'sockperf'
    default_port = 11111
    default_test = 'udp_ping_pong'
    windows = False   # no Windows build (the tools role has none to install)
    tests = {
        'udp_ping_pong': Test('udp', 'bidirectional', 'latency_us_mean'),
        'tcp_ping_pong': Test('tcp', 'bidirectional', 'latency_us_mean', flags=['--tcp']),
        'udp_under_load': Test('udp', 'bidirectional', 'latency_us_mean'),
        'tcp_under_load': Test('tcp', 'bidirectional', 'latency_us_mean', flags=['--tcp']),
        'udp_throughput': Test('udp', 'client_to_server', 'throughput_sent_mbps', record_test='udp_stream'),
        'tcp_throughput': Test('tcp', 'client_to_server', 'throughput_sent_mbps', record_test='tcp_stream',
                               flags=['--tcp']),
    }
    # bench_server starts the TCP server (sockperf server --tcp): see the module docstring
    plan_tests = ('tcp_ping_pong', 'tcp_under_load', 'tcp_throughput')
    options = {
        'message_size': Option('int', low=14, high=65000, in_id=True, flag='-m',
                               description='bytes per message (-m), sockperf\'s default 14'),
        'mps': Option('int', low=1, high=100000000, tests=['udp_under_load', 'tcp_under_load'], in_id=True,
                      flag='--mps', description='messages per second of under_load (--mps), sockperf\'s default 10000'),
        'full_rtt': Option('bool', default=False, in_id=True, flag='--full-rtt'),
    }
    install = dict(distro_packages('sockperf'), **{
        'ClearLinux': unavailable('no Clear Linux bundle is known to carry sockperf'),
        'FreeBSD': unavailable('no FreeBSD package or port of sockperf is known'),
        'Windows': unavailable('sockperf has no Windows build the role can install'),
    })

    def openings(self, port, count, processes=1, parallel=1):
        # the server bench_server starts serves TCP only
        return [(port, port + count - 1, 'tcp')]

    def effective_parallel(self, params):
        return 1   # one socket per client process

    def option_errors(self, params):
        errors = []
        test = params['test']
        if int(params.get('parallel') or 1) != 1:
            errors.append('parallel must be 1: a sockperf client runs one socket (use processes for more clients)')
        if params.get('mps') is not None and test not in self.options['mps'].tests:
            errors.append('mps applies to udp_under_load and tcp_under_load only, not %s' % test)
        for field in ('server', 'bind'):
            if params.get(field) and common_args.is_ipv6(params[field]):
                errors.append('%s must be an IPv4 address: sockperf 3.7 takes no IPv6 address, got %s'
                              % (field, params[field]))
        if params.get('full_rtt') and mode_of(test) == 'throughput':
            errors.append('full_rtt applies to the latency tests only, not %s' % test)
        return errors

    def parse_version(self, text):
        return parse_sockperf.parse_version(text)

    def client_argv(self, params, executable, index=0):
        test = params['test']
        argv = [executable, mode_of(test), '-i', params['server'], '-p', str(self.process_port(params, index)),
                '-t', str(params['duration'])]
        argv += self.tests[test].flags
        argv += self.options_argv(params)
        if params.get('bind'):
            argv += ['--client_ip', params['bind']]
        return argv

    def server_argv(self, executable, port, bind=None, idle_timeout=None):
        # foreground (no --daemonize): bench_server keeps the pid and the process group
        argv = [executable, 'server', '-p', str(port), '--tcp']
        if bind:
            argv += ['-i', bind]
        return argv

    def parse(self, params, proc, context):
        parsed = parse_sockperf.parse(proc.stdout + proc.stderr, mode_of(params['test']))
        if parsed['error'] is None and proc.rc not in (0, None):
            parsed['error'] = 'sockperf exited with code %s' % proc.rc
        return parsed


TOOL = Sockperf()
