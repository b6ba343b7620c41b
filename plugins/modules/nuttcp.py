#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

DOCUMENTATION = r'''
---
module: nuttcp
short_description: Run one nuttcp test (or several nuttcp clients at once) and return a result record
version_added: 0.1.0
description:
  - Runs the nuttcp client in client/server mode with parsable output (C(-fparse), one interval
    line a second) against running nuttcp servers and returns the measurement as one
    C(perflab.result/1) record.
  - nuttcp reports from the receiver's point of view, so C(throughput_mbps) is what the receiver got.
  - One C(nuttcp -S --nofork) server serves one client at a time (a second one is refused).
    With O(processes) > 1 that many clients run at once against the control ports O(port),
    O(port)+1, ... (start the servers with M(perflab.network.bench_server) and
    O(perflab.network.bench_server#module:count)); the record holds their sum and each process.
  - Changes nothing on the host. In check mode only C(nuttcp -V) runs.
author:
  - perflab.network contributors (@perflab)
extends_documentation_fragment:
  - perflab.network.test_common
  - perflab.network.attributes
  - perflab.network.attributes.info_module
  - perflab.network.attributes.platform
attributes:
  platform:
    platforms: posix
options:
  test:
    description:
      - V(tcp_stream) the client transmits (C(-t)); V(tcp_maerts) the client receives, the server
        transmits (C(-r)); V(udp_stream) the client transmits UDP (C(-u -t)) at O(bitrate).
    type: str
    choices: [tcp_stream, tcp_maerts, udp_stream]
    default: tcp_stream
  port:
    description:
      - nuttcp server control port (C(-P)), 1-65535. Default C(5000).
  parallel:
    description:
      - Streams in one client process (C(-N)), 1-128.
  data_port:
    description:
      - First data port (C(-p)); stream N of a process uses O(data_port) + N - 1, and client
        process I (1-based) starts at O(data_port) + (I - 1) * O(parallel).
      - Default O(port) + O(processes), which is nuttcp's own default (5001) for one process on port 5000.
        Open these ports in a firewall next to the control ports.
    type: int
  bitrate:
    description:
      - Target rate of each UDP stream in Mbit/s, as for M(perflab.network.iperf3); V(0) means unlimited.
        nuttcp's C(-R) limits the total of a process, so the module passes O(bitrate) x O(parallel) in Kbit/s.
      - Required for V(udp_stream) (without C(-R) nuttcp sends UDP at 1 Mbit/s); refused for the TCP tests.
    type: float
  window:
    description:
      - Socket buffer (window) size on both ends (C(-w), passed in KiB), a number of bytes with an
        optional K, M or G suffix (binary, as for M(perflab.network.iperf3)), for example V(256K).
    type: str
  length:
    description:
      - Read/write buffer length in bytes (C(-l)), with an optional K, M or G suffix; for UDP the
        datagram size (V(1472) fits a 1500 MTU).
    type: str
  bind:
    description:
      - Not supported by nuttcp 6.x clients; a value is refused.
  nuttcp_path:
    description: The nuttcp executable. Default C(nuttcp) found on PATH or in the usual bin directories.
    type: path
seealso:
  - module: perflab.network.bench_server
  - module: perflab.network.iperf3
notes:
  - Run the module on the client host; O(server) is the server's data address.
'''

EXAMPLES = r'''
- name: TCP transfer with nuttcp's defaults (the Phoronix nuttcp test), 10 seconds
  perflab.network.nuttcp:
    server: 10.213.1.11

- name: Server transmits, 4 streams, 256 KiB windows
  perflab.network.nuttcp:
    server: 10.213.1.11
    test: tcp_maerts
    parallel: 4
    window: 256K

- name: UDP at 500 Mbit/s per stream, two client processes (servers on control ports 5000 and 5001)
  perflab.network.nuttcp:
    server: 10.213.1.11
    test: udp_stream
    bitrate: 500
    processes: 2
    nic_interface: data0
'''

RETURN = r'''
perflab_result:
  description:
    - One C(perflab.result/1) record in a list (see docs/result-record.md in the collection).
    - Also returned when the test failed (with RV(perflab_result[].status=failed); the module fails).
  returned: always
  type: list
  elements: dict
  contains:
    schema:
      description: Record schema.
      type: str
      sample: perflab.result/1
    run_id:
      description: Study run identifier (O(run_id) or generated).
      type: str
      sample: 20261129T184000Z-ab12
    config:
      description: Configuration label (O(config)).
      type: str
      sample: Debian 12 stock
    suite:
      description: Suite name (O(suite)).
      type: str
      sample: adhoc
    test_id:
      description: Stable test identifier, the test then parallel and the options that change the result.
      type: str
      sample: nuttcp/tcp_stream/parallel=1
    repetition:
      description: Repetition number (O(repetition)).
      type: int
      sample: 1
    started_at:
      description: Start of the (first) nuttcp process, ISO 8601 UTC.
      type: str
      sample: '2026-11-29T18:40:00.123Z'
    ended_at:
      description: End of the (last) nuttcp process, ISO 8601 UTC.
      type: str
      sample: '2026-11-29T18:40:10.456Z'
    tool:
      description: Always C(nuttcp).
      type: str
      sample: nuttcp
    tool_version:
      description: From C(nuttcp -V).
      type: str
      sample: 6.1.2
    test:
      description: Normalized test name (O(test)).
      type: str
      sample: tcp_stream
    protocol:
      description: C(tcp) or C(udp).
      type: str
      sample: tcp
    direction:
      description: C(client_to_server) or C(server_to_client) (tcp_maerts).
      type: str
      sample: client_to_server
    parallel:
      description: Streams per process (O(parallel)).
      type: int
      sample: 1
    duration_s:
      description: Requested duration (O(duration)).
      type: float
      sample: 10.0
    options:
      description: The nuttcp-specific options as given (unset ones left out).
      type: dict
      sample: {test: udp_stream, bitrate: 500.0}
    command:
      description: The argv of the (first) nuttcp process.
      type: list
      elements: str
      sample: [/usr/bin/nuttcp, -fparse, -t, -T10, -i1, -N1, -P5000, -p5001, 10.213.1.11]
    commands:
      description: The argv of every nuttcp process.
      type: list
      elements: list
      sample: [[/usr/bin/nuttcp, -fparse, -t, -T10, -i1, -N1, -P5000, -p5002, 10.213.1.11],
               [/usr/bin/nuttcp, -fparse, -t, -T10, -i1, -N1, -P5001, -p5003, 10.213.1.11]]
    client:
      description: Client side C({name, address, interface, mtu}).
      type: dict
      sample: {name: lab1, address: null, interface: data0, mtu: 1500}
    server:
      description: Server side C({name, address, interface, mtu}).
      type: dict
      sample: {name: lab2, address: 10.213.1.11, interface: null, mtu: null}
    metrics:
      description:
        - Name to C({value, unit, higher_is_better}), summed over processes.
        - C(throughput_mbps) (what the receiver got), C(cpu_local_pct) and C(cpu_remote_pct) (the client's
          and the server's nuttcp CPU), TCP C(retransmits) (single-stream runs only, nuttcp 6 does not
          report them for several streams); UDP C(lost_packets), C(packets), C(lost_percent) and, where
          nuttcp reports it (8.x), C(jitter_ms); C(nic_rx_mbps), C(nic_tx_mbps) with O(nic_interface).
      type: dict
      sample: {throughput_mbps: {value: 9412.31, unit: Mbit/s, higher_is_better: true}}
    primary:
      description: Always C(throughput_mbps).
      type: str
      sample: throughput_mbps
    intervals:
      description:
        - Per-second samples C({t, throughput_mbps}) plus C(retransmits) (TCP, one stream) or C(lost_packets),
          C(packets), C(lost_percent) (UDP). nuttcp prints no line for the last second.
          With several processes the i-th samples are summed.
      type: list
      elements: dict
      sample: [{t: 1.0, throughput_mbps: 9398.2, retransmits: 0.0}]
    nic:
      description: The client interface's counters sampled each second (with O(nic_interface)), else null.
      type: dict
      sample: {interface: data0, samples: [{t: 0.0, rx_bytes: 1200, tx_bytes: 5600, rx_packets: 10, tx_packets: 40}],
               rx_mbps: 12.1, tx_mbps: 9502.3}
    processes:
      description: With O(processes) > 1, each process C({port (its control port), metrics, status, error}); else null.
      type: list
      elements: dict
      sample: [{port: 5000, metrics: {throughput_mbps: {value: 4702.2, unit: Mbit/s, higher_is_better: true}},
                status: ok, error: null}]
    status:
      description: C(ok), C(failed) or C(skipped) (check mode).
      type: str
      sample: ok
    error:
      description: What went wrong in clear text, null when ok.
      type: str
      sample: "nuttcp-t: v6.1.2: Error: connect: Connection refused"
    raw:
      description: nuttcp output (stdout and stderr), bounded to 64 KiB.
      type: str
      sample: "megabytes=11226.1250 real_seconds=10.00 rate_Mbps=9416.8311 tx_cpu=12 rx_cpu=45 retrans=0 rtt_ms=0.21"
'''

import math
import re

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.perflab.network.plugins.module_utils import common_args
from ansible_collections.perflab.network.plugins.module_utils import parse_nuttcp
from ansible_collections.perflab.network.plugins.module_utils import process
from ansible_collections.perflab.network.plugins.module_utils import record as rec
from ansible_collections.perflab.network.plugins.module_utils.nic import NicSampler
from ansible_collections.perflab.network.plugins.module_utils.units import from_mbps

DEFAULT_PORT = 5000
# test -> (protocol, direction, client flags)
TESTS = {
    'tcp_stream': ('tcp', 'client_to_server', ['-t']),
    'tcp_maerts': ('tcp', 'server_to_client', ['-r']),
    'udp_stream': ('udp', 'client_to_server', ['-t', '-u']),
}
TEST_OPTIONS = ('test', 'data_port', 'bitrate', 'window', 'length')
ID_OPTIONS = ('bitrate', 'window', 'length')
SIZE_RE = re.compile(r'^([1-9][0-9]{0,9})([KMGkmg]?)$')
SIZE_FACTOR = {'': 1, 'k': 1024, 'm': 1024 ** 2, 'g': 1024 ** 3}
# seconds for the control exchange on top of the duration
SETUP_S = 5


def argument_spec():
    spec = common_args.common_argument_spec()
    spec.update(
        test=dict(type='str', default='tcp_stream', choices=sorted(TESTS)),
        data_port=dict(type='int'),
        bitrate=dict(type='float'),
        window=dict(type='str'),
        length=dict(type='str'),
        nuttcp_path=dict(type='path'),
    )
    return spec


def size_bytes(text):
    """"256K" -> 262144 (binary suffixes, as iperf3 reads -w/-l); None when not a size."""
    match = SIZE_RE.match(text or '')
    if not match:
        return None
    return int(match.group(1)) * SIZE_FACTOR[match.group(2).lower()]


def first_data_port(params):
    if params.get('data_port'):
        return params['data_port']
    return (params.get('port') or DEFAULT_PORT) + (params.get('processes') or 1)


def option_errors(params):
    """Problems with the nuttcp-specific options (empty list when all is well)."""
    errors = []
    test = params['test']
    if test == 'udp_stream':
        if params.get('bitrate') is None:
            errors.append('bitrate (Mbit/s per stream, 0 = unlimited) is required for udp_stream')
        elif not 0 <= params['bitrate'] <= 1000000:
            errors.append('bitrate must be between 0 and 1000000 Mbit/s, got %s' % params['bitrate'])
    elif params.get('bitrate') is not None:
        errors.append('bitrate applies to udp_stream only, not %s' % test)
    if params.get('bind') is not None:
        errors.append('bind is not supported by nuttcp (the client cannot bind a source address)')
    for field in ('window', 'length'):
        value = params.get(field)
        if value is not None and size_bytes(value) is None:
            errors.append('%s must be a positive number with an optional K, M or G suffix (e.g. 256K), got %r'
                          % (field, value))
    if params.get('length') and test == 'udp_stream' and (size_bytes(params['length']) or 0) > 65507:
        errors.append('length must be at most 65507 for udp_stream (the largest UDP datagram)')
    data_port = params.get('data_port')
    processes = params.get('processes') or 1
    last = first_data_port(params) + processes * params['parallel'] - 1
    if data_port is not None and not 1 <= data_port <= 65535:
        errors.append('data_port must be between 1 and 65535, got %d' % data_port)
    elif last > 65535:
        errors.append('the data ports run up to %d (data_port + processes x parallel - 1): at most 65535' % last)
    else:
        control = set(range(params.get('port') or DEFAULT_PORT, (params.get('port') or DEFAULT_PORT) + processes))
        overlap = control.intersection(range(first_data_port(params), last + 1))
        if overlap:
            errors.append('data ports %d-%d overlap the control ports (%s)'
                          % (first_data_port(params), last, ', '.join(str(p) for p in sorted(overlap))))
    return errors


def build_command(params, nuttcp, index=0):
    """argv of client process ``index`` (0-based); nuttcp wants option values attached (-T10)."""
    control_port = (params.get('port') or DEFAULT_PORT) + index
    data_port = first_data_port(params) + index * params['parallel']
    argv = [nuttcp, '-fparse'] + TESTS[params['test']][2]
    argv.append('-T%d' % params['duration'])
    if params['duration'] > 1:
        # nuttcp ignores (and complains about) an interval not shorter than the run
        argv.append('-i1')
    argv += ['-N%d' % params['parallel'],
             '-P%d' % control_port, '-p%d' % data_port]
    if params['test'] == 'udp_stream':
        # -R is in Kbit/s and limits the process' total: per-stream bitrate x streams
        argv.append('-R%d' % round(from_mbps(params['bitrate'] * params['parallel'], 'Kbps')))
    if params.get('window'):
        argv.append('-w%d' % int(math.ceil(size_bytes(params['window']) / 1024.0)))
    if params.get('length'):
        argv.append('-l%d' % size_bytes(params['length']))
    if common_args.is_ipv6(params['server']):
        argv.append('-6')
    argv.append(params['server'])
    return argv


def test_id(params):
    parts = ['nuttcp', params['test'], 'parallel=%d' % params['parallel']]
    if (params.get('processes') or 1) > 1:
        parts.append('processes=%d' % params['processes'])
    for field in ID_OPTIONS:
        value = params.get(field)
        if value is None:
            continue
        parts.append('%s=%s' % (field, ('%g' % value) if isinstance(value, float) else value))
    return '/'.join(parts)


def test_options(params):
    return dict((key, params[key]) for key in TEST_OPTIONS if params.get(key) is not None)


def tool_version(nuttcp):
    result = process.run([nuttcp, '-V'], timeout=10)
    return parse_nuttcp.parse_version(result.stdout + result.stderr)


def run_timeout(params):
    return common_args.effective_timeout(params, extra=SETUP_S)


def parse_process(params, proc, timeout):
    if proc.timed_out:
        return {'metrics': {}, 'intervals': [], 'version': '', 'extra': {},
                'error': 'nuttcp did not finish within the %d s timeout: its process group was killed' % timeout}
    return parse_nuttcp.parse(proc.stdout, proc.stderr, proc.rc, transmit=params['test'] != 'tcp_maerts')


def _run(argvs, timeout):
    if len(argvs) == 1:
        return [process.run(argvs[0], timeout)]
    return process.run_many(argvs, timeout)


def main():
    module = AnsibleModule(argument_spec=argument_spec(), supports_check_mode=True)
    params = module.params
    common_args.validate_common(module, default_port=DEFAULT_PORT)
    errors = option_errors(params)
    if errors:
        module.fail_json(msg='; '.join(errors))

    nuttcp = common_args.require_tool(module, 'nuttcp')

    protocol, direction = TESTS[params['test']][:2]
    processes = params.get('processes') or 1
    control_ports = [(params.get('port') or DEFAULT_PORT) + index for index in range(processes)]
    argvs = [build_command(params, nuttcp, index) for index in range(processes)]
    record = rec.new_record(params, 'nuttcp', params['test'], protocol, direction, test_id(params),
                            options=test_options(params), tool_version=tool_version(nuttcp))
    rec.set_commands(record, argvs)
    rec.set_primary(record, 'throughput_mbps')

    if module.check_mode:
        rec.finish_record(record, None, 'skipped', error='check mode: nuttcp did not run')
        module.exit_json(changed=False, perflab_result=[record])

    timeout = run_timeout(params)
    if params.get('nic_interface'):
        with NicSampler(params['nic_interface']) as sampler:
            procs = _run(argvs, timeout)
        rec.add_nic(record, sampler.result())
    else:
        procs = _run(argvs, timeout)

    parsed = [parse_process(params, proc, timeout) for proc in procs]
    multi = processes > 1
    failures = [('port %d: %s' % (port, result['error'])) if multi else result['error']
                for port, result in zip(control_ports, parsed) if result['error']]
    if multi:
        for port, result in zip(control_ports, parsed):
            metrics = dict((name, rec.metric(value, rec.METRICS[name][0], rec.METRICS[name][1]))
                           for name, value in result['metrics'].items())
            rec.add_process(record, port, metrics, status='failed' if result['error'] else 'ok',
                            error=result['error'])
        combined = rec.combine_metrics([result['metrics'] for result in parsed])
        record['intervals'] = rec.combine_intervals([result['intervals'] for result in parsed])
    else:
        combined = parsed[0]['metrics']
        record['intervals'] = parsed[0]['intervals']
    if not failures:
        rec.add_metrics(record, combined)

    raw = '\n'.join(('# %s\n' % ' '.join(proc.argv) if multi else '') + proc.stdout + proc.stderr for proc in procs)
    first = procs[0]
    first.started_at = min(proc.started_at for proc in procs)
    first.ended_at = max(proc.ended_at for proc in procs)
    rec.finish_record(record, first, 'failed' if failures else 'ok', error='; '.join(failures) or None, raw=raw)
    if record['status'] != 'ok':
        module.fail_json(msg=record['error'], perflab_result=[record])
    module.exit_json(changed=False, perflab_result=[record])


if __name__ == '__main__':
    main()
