# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""iperf2 (2.1.x, Debian's package ``iperf``): everything the collection knows about it.

Parser: parse_iperf2 (its docstring lists the quirks; fixtures and how they were
captured: tests/unit/fixtures/iperf2/2.1.8/README.md). The client runs with
enhanced text reports in decimal Kbit/s (``-e -f k -i 1``): the only form that
has retransmits, the UDP server report, ``[SUM]`` lines and the MSS in use (with
``-m`` for 2.0.x, which prints it after the test).
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import ipaddress

from ansible_collections.perflab.network.plugins.module_utils.core import common_args
from ansible_collections.perflab.network.plugins.module_utils.tools.iperf2 import parse as parse_iperf2
from ansible_collections.perflab.network.plugins.module_utils.tools.iperf3 import tool as iperf3
from ansible_collections.perflab.network.plugins.module_utils.tools.tool import (Option, Test, Tool, distro_packages, package, size_errors,
                                                                                 udp_bitrate_errors, unavailable)

# iperf2 reads k/m/g as 10^3 and K/M/G as 2^10 in -w and -l (iperf3: all 2^10): the text is passed as given


# -m: iperf 2.0.x prints the MSS in use only with it, after the test ("[  3] MSS size 1448 bytes
# (MTU 1500 bytes, ethernet)"); 2.1.x prints it in every connect line and its -m line is not read
PRINT_MSS = '-m'


def _is_ipv6(address):
    try:
        return ipaddress.ip_address(address).version == 6
    except ValueError:
        return False


class Iperf2(Tool):
    name = 'iperf2'
    title = 'iPerf2'
    report_name = 'iPerf'
    # the Phoronix pts/iperf titles, the same for both iPerfs
    report_tests = iperf3.Iperf3.report_tests
    report_options = {'bitrate': '%s Mbit Objective', 'window': 'Window: %s', 'mss': 'MSS: %s', 'length': 'Length: %s'}
    report_parallel = 'Parallel'
    throughput_count = 'client'   # the client's own rate: what it wrote (read with -R)
    client_executable = 'iperf'
    server_executable = 'iperf'
    default_port = 5001
    # in a plan: iperf2's own 5001 is nuttcp's data port (nuttcp 6 pair 0: control 5000, data 5001),
    # so a plan puts iperf2 after the ports iperf3's pairs use (5201 + 24 x 8)
    plan_port = 5401
    default_test = 'tcp_stream'
    tests = {
        'tcp_stream': Test('tcp', 'client_to_server'),
        'tcp_maerts': Test('tcp', 'server_to_client', flags=['-R']),
        # --full-duplex: both directions on one socket (-d/--dualtest needs the server to connect back)
        'tcp_bidir': Test('tcp', 'bidirectional', flags=['--full-duplex']),
        'udp_stream': Test('udp', 'client_to_server', flags=['-u']),
    }
    # bench_server starts iperf2's TCP server only: a UDP server is another process (iperf -s -u)
    # and a 2.1.8 UDP server wedges after one test (no server report for the next client), so
    # a plan does not run iperf2 UDP tests; the module runs them against a server of your own
    plan_tests = ('tcp_stream', 'tcp_maerts', 'tcp_bidir')
    options = {
        # per stream; lower-case m is 10^6 (M would be 2^20)
        'bitrate': Option('float', low=0, high=1000000, tests=['udp_stream'], in_id=True, flag='-b', fmt='%gm',
                          zero=True),
        'mss': Option('int', low=88, high=9216, in_id=True, flag='-M'),
        'window': Option('str', in_id=True, flag='-w'),
        'length': Option('str', in_id=True, flag='-l'),
    }
    install = dict(distro_packages('iperf', repo='epel'), **{
        'ClearLinux': unavailable('no Clear Linux bundle is known to carry iperf 2'),
        'FreeBSD': package('iperf'),
        'Windows': unavailable('iperf 2 has no Chocolatey package the role can install'),
    })

    def option_errors(self, params):
        # without -b iperf2 sends 1 Mbit/s
        errors = udp_bitrate_errors(params)
        if params['test'] == 'udp_stream' and params.get('mss') is not None:
            errors.append('mss applies to the TCP tests only, not udp_stream')
        return errors + size_errors(params)

    def version_argv(self, executable):
        # iperf -v prints to stderr and exits 1
        return [executable, '-v']

    def parse_version(self, text):
        return parse_iperf2.parse_version(text)

    def client_argv(self, params, executable, index=0):
        argv = [executable, '-c', params['server'], '-p', str(self.process_port(params, index)),
                '-t', str(params['duration']), '-e', '-f', 'k', '-i', '1', '-P', str(params['parallel'])]
        argv += self.tests[params['test']].flags
        if self.tests[params['test']].protocol == 'tcp':
            argv.append(PRINT_MSS)
        argv += self.options_argv(params)
        if params.get('bind'):
            argv += ['-B', params['bind']]
        if common_args.is_ipv6(params['server']):
            argv.append('-V')
        return argv

    def server_argv(self, executable, port, bind=None, idle_timeout=None):
        # foreground (-D would fork away and lose the pid); iperf2 has no pidfile option
        argv = [executable, '-s', '-p', str(port)]
        if bind:
            argv += ['-B', bind]
            if _is_ipv6(bind):
                argv.append('-V')
        return argv

    def parse(self, params, proc, context):
        # iperf2 exits 0 on every client error: the parser judges stderr and what stdout lacks
        parsed = parse_iperf2.parse(proc.stdout, proc.stderr, proc.rc, params['test'], duration=params['duration'])
        if parsed.get('mss') and not parsed['error']:
            parsed['metrics']['mss_bytes'] = float(parsed['mss'])
        if parsed['notes'] and not parsed['error']:
            # a stalled stream is a fault of the path, not a rate of it: the record fails and says
            # what iperf2 counted (the notes name each stream)
            total = parsed['metrics'].get('throughput_mbps')
            parsed['error'] = ('%d of %d iperf2 stream(s) stalled during the test (iperf2 counted %s Mbit/s in all): %s'
                               % (len(parsed['notes']), parsed['streams'] or len(parsed['notes']),
                                  '%g' % total if total is not None else 'no total', parsed['notes'][0]))
        return parsed


TOOL = Iperf2()
