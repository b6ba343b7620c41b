# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""iperf3: everything the collection knows about it (parser: parse_iperf3)."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import re

from ansible_collections.perflab.network.plugins.module_utils.core import common_args
from ansible_collections.perflab.network.plugins.module_utils.tools.iperf3 import parse as parse_iperf3
from ansible_collections.perflab.network.plugins.module_utils.tools.tool import (Option, Test, Tool, distro_packages, package, size_errors,
                                                                                 udp_bitrate_errors)
from ansible_collections.perflab.network.plugins.module_utils.core.units import from_mbps

CONGESTION_RE = re.compile(r'^[a-z][a-z0-9_-]{0,15}$')


class Iperf3(Tool):
    name = 'iperf3'
    title = 'iPerf3'
    report_name = 'iPerf'
    report_tests = {'tcp_stream': 'TCP', 'tcp_maerts': 'TCP Reverse (Server To Client)',
                    'tcp_bidir': 'TCP Bidirectional', 'udp_stream': 'UDP'}
    report_options = {'bitrate': '%s Mbit Objective', 'omit': 'Omit: %s Seconds', 'window': 'Window: %s',
                      'mss': 'MSS: %s', 'zerocopy': 'Zero Copy', 'length': 'Length: %s', 'congestion': 'Congestion: %s',
                      # the side is the report's metric (throughput_sent_mbps) and the record's reading, not
                      # the title: a suite in the Phoronix profiles' terms keeps their title
                      'reading': ''}
    report_parallel = 'Parallel'
    client_executable = 'iperf3'
    server_executable = 'iperf3'
    default_port = 5201
    default_test = 'tcp_stream'
    # --idle-timeout un-sticks a server left "busy" by a client that died mid-test
    server_idle_timeout = True
    tests = {
        'tcp_stream': Test('tcp', 'client_to_server'),
        'tcp_maerts': Test('tcp', 'server_to_client', flags=['-R']),
        'tcp_bidir': Test('tcp', 'bidirectional', flags=['--bidir']),
        'udp_stream': Test('udp', 'client_to_server', flags=['-u']),
    }
    # in test_id order of the old module; the id sorts them anyway
    options = {
        # bits/s, no suffix: unambiguous across iperf3 versions
        'bitrate': Option('float', low=0, high=1000000, tests=['udp_stream'], in_id=True,
                          description='Mbit/s per UDP stream (-b), 0 unlimited',
                          flag='-b', fmt=lambda mbps: '%d' % round(from_mbps(mbps, 'bits/s')), zero=True),
        'omit': Option('int', default=0, low=0, high=600, in_id=True, flag='-O'),
        'window': Option('str', in_id=True, flag='-w'),
        'mss': Option('int', low=88, high=9216, in_id=True, flag='-M'),
        'zerocopy': Option('bool', default=False, in_id=True, flag='-Z'),
        'length': Option('str', in_id=True, flag='-l'),
        'connect_timeout': Option('int', low=1, high=600000, flag='--connect-timeout'),
        'congestion': Option('str', in_id=True, flag='-C'),
        # whose count ranks the test: the receiver's end sum (ours), or the sender's (the pts/iperf profile reads
        # the client's "sender" line); both are always in the record's metrics
        'reading': Option('str', default='receiver', choices=['receiver', 'sender'],
                          tests=['tcp_stream', 'tcp_maerts', 'udp_stream'], in_id=True),
    }
    install = dict(distro_packages('iperf3'), **{
        # Clear Linux: iperf3 came in the iperf bundle in 2019 and is in sysadmin-basic today
        'ClearLinux': package('sysadmin-basic'),
        'FreeBSD': package('iperf3'),
        'Windows': package('iperf3'),   # Chocolatey
    })
    firewall_settings = {
        'iperf3_ports': Option('int', default=1, low=1, high=64,
                               description='iperf3 servers run one per port from 5201: how many ports, TCP and UDP'),
    }

    def standalone_openings(self, settings):
        return self.openings(self.default_port, settings['iperf3_ports'])

    def option_errors(self, params):
        errors = udp_bitrate_errors(params)
        if params.get('reading') == 'sender' and params['test'] == 'tcp_bidir':
            errors.append('reading sender applies to tcp_stream, tcp_maerts and udp_stream only, not tcp_bidir '
                          '(both ends send)')
        if params['test'] == 'udp_stream' and params.get('mss') is not None:
            errors.append('mss applies to the TCP tests only, not udp_stream')
        errors += size_errors(params)
        if params.get('congestion') is not None and not CONGESTION_RE.match(params['congestion']):
            errors.append('congestion must be an algorithm name such as cubic or bbr (lower-case letters, digits, '
                          '"_", "-"), got %r' % (params['congestion'],))
        return errors

    def range_errors(self, params):
        # bitrate's range is checked with its unit in option_errors
        return [error for error in Tool.range_errors(self, params) if not error.startswith('bitrate ')]

    def primary(self, params):
        if params.get('reading') == 'sender':
            return 'throughput_sent_mbps'
        return Tool.primary(self, params)

    def parse_version(self, text):
        return parse_iperf3.parse_version(text)

    def check_version(self, params, version, help_text):
        if params['test'] == 'tcp_bidir' and version and not parse_iperf3.supports_bidir(version):
            return 'tcp_bidir needs iperf3 3.7 or later (--bidir); the installed iperf3 is %s' % version
        return None

    def client_argv(self, params, executable, index=0):
        argv = [executable, '-c', params['server'], '-p', str(self.process_port(params, index)),
                '-t', str(params['duration']), '-P', str(params['parallel']), '-J',
                # the server's intervals: each sample gets the receiver's rate beside the sender's
                '--get-server-output']
        argv += self.tests[params['test']].flags
        argv += self.options_argv(params)
        if params.get('bind'):
            argv += ['-B', params['bind']]
        return argv

    def server_argv(self, executable, port, bind=None, idle_timeout=None):
        # foreground (no -D): bench_server keeps the pid and the process group
        argv = [executable, '-s', '-p', str(port)]
        if bind:
            argv += ['-B', bind]
        if idle_timeout:
            # un-sticks a server left "busy" by a client that died mid-test
            argv += ['--idle-timeout', str(idle_timeout)]
        return argv

    def timeout(self, params):
        return common_args.effective_timeout(params, extra=(params.get('omit') or 0) + self.setup_s)

    def parse(self, params, proc, context):
        parsed = parse_iperf3.parse(proc.stdout)
        if parsed['error'] is None and proc.rc not in (0, None):
            parsed['error'] = 'iperf3 exited with code %s' % proc.rc
        if parsed['error'] and not proc.stdout.strip() and proc.stderr.strip():
            # no JSON at all (bad option, crash): stderr says why
            parsed['error'] = 'iperf3 exited with code %s: %s' % (proc.rc, proc.stderr.strip().splitlines()[0])
        return parsed


TOOL = Iperf3()
