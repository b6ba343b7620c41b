# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""nuttcp: everything the collection knows about it (parser: parse_nuttcp)."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import ipaddress
import math
import re

from ansible_collections.perflab.network.plugins.module_utils.core import common_args
from ansible_collections.perflab.network.plugins.module_utils.tools.nuttcp import parse as parse_nuttcp
from ansible_collections.perflab.network.plugins.module_utils.tools.tool import (Option, Test, Tool, distro_packages, package, size_errors,
                                                                                 udp_bitrate_errors)
from ansible_collections.perflab.network.plugins.module_utils.core.units import from_mbps

# nuttcp's own default data port: 5001 up to 6.2.7, 5101 from 6.2.8 (the module always
# passes -p, but a server also serves clients run by hand)
DEFAULT_DATA_PORTS = (5001, 5101)
SIZE_RE = re.compile(r'^([1-9][0-9]{0,9})([KMGkmg]?)$')
SIZE_FACTOR = {'': 1, 'k': 1024, 'm': 1024 ** 2, 'g': 1024 ** 3}


def size_bytes(text):
    """"256K" -> 262144 (binary suffixes, as iperf3 reads -w/-l); None when not a size."""
    match = SIZE_RE.match(text or '')
    if not match:
        return None
    return int(match.group(1)) * SIZE_FACTOR[match.group(2).lower()]


class Nuttcp(Tool):
    name = 'nuttcp'
    title = 'nuttcp'
    report_tests = {'tcp_stream': 'TCP Transfer', 'tcp_maerts': 'TCP Transfer (Server To Client)',
                    'udp_stream': 'UDP Transfer'}
    report_options = {'bitrate': '%s Mbit Objective', 'window': 'Window: %s', 'length': 'Length: %s'}
    client_executable = 'nuttcp'
    server_executable = 'nuttcp'
    default_port = 5000
    default_test = 'tcp_stream'
    client_bind = False       # nuttcp 6.x clients cannot bind a source address: the route picks the interface
    tests = {
        'tcp_stream': Test('tcp', 'client_to_server', flags=['-t']),
        'tcp_maerts': Test('tcp', 'server_to_client', flags=['-r']),
        'udp_stream': Test('udp', 'client_to_server', flags=['-t', '-u']),
    }
    options = {
        'data_port': Option('int', suite=False),
        'bitrate': Option('float', tests=['udp_stream'], in_id=True),
        # nuttcp wants option values attached (-w256): -w in KiB (rounded up), -l in bytes
        'window': Option('str', in_id=True, flag='-w', attach=True,
                         fmt=lambda text: '%d' % int(math.ceil(size_bytes(text) / 1024.0))),
        'length': Option('str', in_id=True, flag='-l', attach=True, fmt=lambda text: '%d' % size_bytes(text)),
    }
    # nuttcp 6 has no option to bind the client's source address: Tool.errors refuses bind, a plan item's bind is None
    client_bind = False
    install = dict(distro_packages('nuttcp', repo='epel'), **{
        'ClearLinux': {'method': 'source'},   # no bundle
        'FreeBSD': package('nuttcp'),
        # nuttcp.exe from tools_nuttcp_windows_src
        'Windows': {'method': 'release_binary', 'binary': 'nuttcp.exe'},
    })
    firewall_settings = {
        'nuttcp_streams': Option('int', default=1, low=1, high=64,
                                 description='nuttcp -N streams use consecutive data ports: how many to open from each '
                                             'of its default data ports (5001 up to 6.2.7, 5101 from 6.2.8)'),
    }

    def first_data_port(self, params):
        if params.get('data_port'):
            return params['data_port']
        return (params.get('port') or self.default_port) + (params.get('processes') or 1)

    def openings(self, port, count, processes=1, parallel=1):
        # control ports (tcp), then the data ports after them: -N streams use consecutive ports
        last = port + count - 1
        data_last = last + int(processes or 1) * int(parallel or 1)
        return [(port, last, 'tcp'), (last + 1, data_last, 'tcp'), (last + 1, data_last, 'udp')]

    def standalone_openings(self, settings):
        streams = settings['nuttcp_streams']
        out = [(self.default_port, self.default_port, 'tcp')]
        for port in DEFAULT_DATA_PORTS:
            out += [(port, port + streams - 1, 'tcp'), (port, port + streams - 1, 'udp')]
        return out

    def option_errors(self, params):
        errors = udp_bitrate_errors(params)
        test = params['test']
        errors += size_errors(params, valid=size_bytes)
        if params.get('length') and test == 'udp_stream' and (size_bytes(params['length']) or 0) > 65507:
            errors.append('length must be at most 65507 for udp_stream (the largest UDP datagram)')
        data_port = params.get('data_port')
        processes = params.get('processes') or 1
        last = self.first_data_port(params) + processes * params['parallel'] - 1
        if data_port is not None and not 1 <= data_port <= 65535:
            errors.append('data_port must be between 1 and 65535, got %d' % data_port)
        elif last > 65535:
            errors.append('the data ports run up to %d (data_port + processes x parallel - 1): at most 65535' % last)
        else:
            first_control = params.get('port') or self.default_port
            control = set(range(first_control, first_control + processes))
            overlap = control.intersection(range(self.first_data_port(params), last + 1))
            if overlap:
                errors.append('data ports %d-%d overlap the control ports (%s)'
                              % (self.first_data_port(params), last, ', '.join(str(p) for p in sorted(overlap))))
        return errors

    def argv_port(self, argv):
        # option values attached: -P5000
        return int([arg for arg in argv if arg.startswith('-P')][0][2:])

    def version_argv(self, executable):
        return [executable, '-V']

    def parse_version(self, text):
        return parse_nuttcp.parse_version(text)

    def client_argv(self, params, executable, index=0):
        """nuttcp wants option values attached (-T10)."""
        data_port = self.first_data_port(params) + index * params['parallel']
        argv = [executable, '-fparse'] + self.tests[params['test']].flags
        argv.append('-T%d' % params['duration'])
        if params['duration'] > 1:
            # nuttcp ignores (and complains about) an interval not shorter than the run
            argv.append('-i1')
        argv += ['-N%d' % params['parallel'], '-P%d' % self.process_port(params, index), '-p%d' % data_port]
        if params['test'] == 'udp_stream':
            # -R is in Kbit/s and limits the process' total: per-stream bitrate x streams
            argv.append('-R%d' % round(from_mbps(params['bitrate'] * params['parallel'], 'Kbps')))
        argv += self.options_argv(params)
        if common_args.is_ipv6(params['server']):
            argv.append('-6')
        argv.append(params['server'])
        return argv

    def server_argv(self, executable, port, bind=None, idle_timeout=None):
        # -S alone forks into the background; --nofork keeps the pid. No bind option in nuttcp 6.
        # --no3rdparty: else any client can make the server send a stream to a third address
        argv = [executable, '-S', '--nofork', '--no3rdparty', '-P%d' % port]
        if bind and ipaddress.ip_address(bind).version == 6:
            argv.append('-6')
        return argv

    def server_listen_address(self, bind):
        # nuttcp 6 cannot bind an address: it listens on all of them
        return None

    def parse(self, params, proc, context):
        return parse_nuttcp.parse(proc.stdout, proc.stderr, proc.rc, transmit=params['test'] != 'tcp_maerts')


TOOL = Nuttcp()
