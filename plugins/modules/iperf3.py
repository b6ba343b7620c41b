#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

DOCUMENTATION = r'''
---
module: iperf3
short_description: Run one iperf3 test (or several iperf3 clients at once) and return a result record
version_added: 0.1.0
description:
  - Runs the iperf3 client with JSON output (C(-J)) against running iperf3 servers and returns the
    measurement as one C(perflab.result/1) record.
  - C(throughput_mbps) is what the receiver got (C(end.sum_received)); the sender's rate is
    C(throughput_sent_mbps). Omitted (O(omit)) seconds are left out of intervals and sums.
  - iperf3 prints an error in its JSON and (up to 3.13) still exits 0; the module reads the JSON,
    never the exit code alone, and such a run fails.
  - One iperf3 server runs one test at a time. With O(processes) > 1 that many clients run at once
    against O(port), O(port)+1, ... (start the servers with M(perflab.network.bench_server) and
    O(perflab.network.bench_server#module:count)) and the record holds their sum and each process.
  - Changes nothing on the host. In check mode only C(iperf3 --version) runs.
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
      - V(tcp_stream) the client sends; V(tcp_maerts) the server sends (C(-R));
        V(tcp_bidir) both at once (C(--bidir), iperf3 3.7 or later, refused with older versions);
        V(udp_stream) the client sends UDP at O(bitrate) per stream (C(-u -b)).
    type: str
    choices: [tcp_stream, tcp_maerts, tcp_bidir, udp_stream]
    default: tcp_stream
  port:
    description:
      - iperf3 server port, 1-65535. Default C(5201).
  bitrate:
    description:
      - Target rate of each UDP stream in Mbit/s (C(-b), passed in bits/s); V(0) means unlimited.
      - Required for V(udp_stream) (iperf3's own default of 1 Mbit/s measures nothing useful);
        refused for the TCP tests.
    type: float
  omit:
    description: Seconds at the start left out of the results (C(-O)), 0-600; added to the run time.
    type: int
    default: 0
  window:
    description: Socket buffer size (C(-w)), a number with an optional K, M or G suffix, for example V(256K).
    type: str
  mss:
    description: TCP maximum segment size in bytes (C(-M)), 88-9216.
    type: int
  zerocopy:
    description: Send with zero copy (C(-Z)).
    type: bool
    default: false
  length:
    description:
      - Read/write buffer length (C(-l)), a number with an optional K, M or G suffix; for UDP the
        datagram size (V(1472) fits a 1500 MTU).
    type: str
  connect_timeout:
    description: Milliseconds to wait for the control connection (C(--connect-timeout)), 1-600000.
    type: int
  congestion:
    description: TCP congestion control algorithm (C(-C)), for example V(cubic) or V(bbr).
    type: str
  iperf3_path:
    description: The iperf3 executable. Default C(iperf3) found on PATH or in the usual bin directories.
    type: path
seealso:
  - module: perflab.network.bench_server
  - module: perflab.network.nuttcp
notes:
  - Run the module on the client host; O(server) is the server's data address.
  - "O(nic_interface) samples the client's interface: for V(tcp_stream) compare C(nic_tx_mbps)
    with C(throughput_mbps), for V(tcp_maerts) C(nic_rx_mbps)."
'''

EXAMPLES = r'''
- name: TCP, 5 streams, 60 seconds, first 2 seconds omitted
  perflab.network.iperf3:
    server: 10.213.1.11
    parallel: 5
    duration: 60
    omit: 2

- name: UDP at 1000 Mbit/s per stream, 10 streams, NIC cross-check
  perflab.network.iperf3:
    server: 10.213.1.11
    test: udp_stream
    bitrate: 1000
    parallel: 10
    nic_interface: data0

- name: Four iperf3 processes against ports 5201-5204 (servers started with bench_server count=4)
  perflab.network.iperf3:
    server: 10.213.1.11
    processes: 4
    config: Debian 12 tuned
    suite: phoronix-network
  register: iperf3_run

- name: Show the receiver's throughput
  ansible.builtin.debug:
    msg: "{{ iperf3_run.perflab_result[0].metrics.throughput_mbps.value }} Mbit/s"
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
      sample: iperf3/udp_stream/parallel=5/bitrate=1000
    repetition:
      description: Repetition number (O(repetition)).
      type: int
      sample: 1
    started_at:
      description: Start of the (first) iperf3 process, ISO 8601 UTC.
      type: str
      sample: '2026-11-29T18:40:00.123Z'
    ended_at:
      description: End of the (last) iperf3 process, ISO 8601 UTC.
      type: str
      sample: '2026-11-29T18:41:00.456Z'
    tool:
      description: Always C(iperf3).
      type: str
      sample: iperf3
    tool_version:
      description: iperf3 version from its JSON (or C(iperf3 --version)).
      type: str
      sample: '3.12'
    test:
      description: Normalized test name (O(test)).
      type: str
      sample: tcp_stream
    protocol:
      description: C(tcp) or C(udp).
      type: str
      sample: tcp
    direction:
      description: C(client_to_server), C(server_to_client) (tcp_maerts) or C(bidirectional) (tcp_bidir).
      type: str
      sample: client_to_server
    parallel:
      description: Streams per process (O(parallel)).
      type: int
      sample: 5
    duration_s:
      description: Requested duration (O(duration)).
      type: float
      sample: 60.0
    options:
      description: The iperf3-specific options as given (unset ones left out).
      type: dict
      sample: {test: udp_stream, bitrate: 1000.0, omit: 2, zerocopy: false}
    command:
      description: The argv of the (first) iperf3 process.
      type: list
      elements: str
      sample: [/usr/bin/iperf3, -c, 10.213.1.11, -p, '5201', -t, '60', -P, '5', -J, -O, '2']
    commands:
      description: The argv of every iperf3 process.
      type: list
      elements: list
      sample: [[/usr/bin/iperf3, -c, 10.213.1.11, -p, '5201', -t, '60', -P, '1', -J],
               [/usr/bin/iperf3, -c, 10.213.1.11, -p, '5202', -t, '60', -P, '1', -J]]
    client:
      description: Client side C({name, address, interface, mtu}) (O(client_name), O(bind), O(nic_interface)).
      type: dict
      sample: {name: lab1, address: 10.213.1.10, interface: data0, mtu: 1500}
    server:
      description: Server side C({name, address, interface, mtu}).
      type: dict
      sample: {name: lab2, address: 10.213.1.11, interface: null, mtu: null}
    metrics:
      description:
        - Name to C({value, unit, higher_is_better}), summed over processes.
        - C(throughput_mbps) (what the receiver got; for V(tcp_bidir) both directions together),
          C(throughput_sent_mbps) and C(throughput_received_mbps) (sender's and receiver's view;
          for V(tcp_bidir) the client-to-server and the server-to-client direction, each as received),
          C(cpu_local_pct), C(cpu_remote_pct) (iperf3 process CPU, summed over processes);
          TCP C(retransmits) (of the sending side); UDP C(jitter_ms) (mean over processes), C(lost_packets),
          C(packets), C(lost_percent); C(nic_rx_mbps), C(nic_tx_mbps) with O(nic_interface).
      type: dict
      sample: {throughput_mbps: {value: 9412.31, unit: Mbit/s, higher_is_better: true},
               retransmits: {value: 12.0, unit: count, higher_is_better: false}}
    primary:
      description: Always C(throughput_mbps).
      type: str
      sample: throughput_mbps
    intervals:
      description:
        - Per-second samples of the client's side, omitted seconds left out, C(t) = seconds since the
          measured start. TCP sender C({t, throughput_mbps, retransmits}); UDP sender C({t, throughput_mbps, packets});
          V(tcp_bidir) adds C(throughput_sent_mbps), C(throughput_received_mbps). With several processes the i-th
          samples are summed.
      type: list
      elements: dict
      sample: [{t: 1.0, throughput_mbps: 9398.2, retransmits: 0.0}, {t: 2.0, throughput_mbps: 9420.7, retransmits: 3.0}]
    nic:
      description: The client interface's counters sampled each second (with O(nic_interface)), else null.
      type: dict
      sample: {interface: data0, samples: [{t: 0.0, rx_bytes: 1200, tx_bytes: 5600, rx_packets: 10, tx_packets: 40}],
               rx_mbps: 12.1, tx_mbps: 9502.3}
    processes:
      description: With O(processes) > 1, each process C({port, metrics, status, error}); else null.
      type: list
      elements: dict
      sample: [{port: 5201, metrics: {throughput_mbps: {value: 2351.2, unit: Mbit/s, higher_is_better: true}},
                status: ok, error: null}]
    status:
      description: C(ok), C(failed) or C(skipped) (check mode).
      type: str
      sample: ok
    error:
      description: What went wrong in clear text, null when ok.
      type: str
      sample: "port 5201: the server is busy running a test. try again later"
    raw:
      description: iperf3 output (JSON and stderr), bounded to 64 KiB.
      type: str
      sample: '{"start": {"connected": [...]}, ...}'
'''

import re

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.perflab.network.plugins.module_utils import common_args
from ansible_collections.perflab.network.plugins.module_utils import parse_iperf3
from ansible_collections.perflab.network.plugins.module_utils import process
from ansible_collections.perflab.network.plugins.module_utils import record as rec
from ansible_collections.perflab.network.plugins.module_utils.nic import NicSampler
from ansible_collections.perflab.network.plugins.module_utils.units import from_mbps

DEFAULT_PORT = 5201
# test -> (protocol, direction, client flags)
TESTS = {
    'tcp_stream': ('tcp', 'client_to_server', []),
    'tcp_maerts': ('tcp', 'server_to_client', ['-R']),
    'tcp_bidir': ('tcp', 'bidirectional', ['--bidir']),
    'udp_stream': ('udp', 'client_to_server', ['-u']),
}
TEST_OPTIONS = ('test', 'bitrate', 'omit', 'window', 'mss', 'zerocopy', 'length', 'connect_timeout', 'congestion')
# options that change what is measured, in test_id order
ID_OPTIONS = ('bitrate', 'omit', 'window', 'length', 'mss', 'zerocopy', 'congestion')
SIZE_RE = re.compile(r'^[1-9][0-9]{0,9}[KMGkmg]?$')
CONGESTION_RE = re.compile(r'^[a-z][a-z0-9_-]{0,15}$')
# seconds for connecting and the end-of-test exchange, on top of duration + omit
SETUP_S = 5


def argument_spec():
    spec = common_args.common_argument_spec()
    spec.update(
        test=dict(type='str', default='tcp_stream', choices=sorted(TESTS)),
        bitrate=dict(type='float'),
        omit=dict(type='int', default=0),
        window=dict(type='str'),
        mss=dict(type='int'),
        zerocopy=dict(type='bool', default=False),
        length=dict(type='str'),
        connect_timeout=dict(type='int'),
        congestion=dict(type='str'),
        iperf3_path=dict(type='path'),
    )
    return spec


def option_errors(params):
    """Problems with the iperf3-specific options (empty list when all is well)."""
    errors = []
    test = params['test']
    if test == 'udp_stream':
        if params.get('bitrate') is None:
            errors.append('bitrate (Mbit/s per stream, 0 = unlimited) is required for udp_stream')
        elif not 0 <= params['bitrate'] <= 1000000:
            errors.append('bitrate must be between 0 and 1000000 Mbit/s, got %s' % params['bitrate'])
    elif params.get('bitrate') is not None:
        errors.append('bitrate applies to udp_stream only, not %s' % test)
    for field, low, high in (('omit', 0, 600), ('mss', 88, 9216), ('connect_timeout', 1, 600000)):
        value = params.get(field)
        if value is not None and not low <= value <= high:
            errors.append('%s must be between %d and %d, got %d' % (field, low, high, value))
    if test == 'udp_stream' and params.get('mss') is not None:
        errors.append('mss applies to the TCP tests only, not udp_stream')
    for field in ('window', 'length'):
        value = params.get(field)
        if value is not None and not SIZE_RE.match(value):
            errors.append('%s must be a positive number with an optional K, M or G suffix (e.g. 256K), got %r'
                          % (field, value))
    if params.get('congestion') is not None and not CONGESTION_RE.match(params['congestion']):
        errors.append('congestion must be an algorithm name such as cubic or bbr (lower-case letters, digits, '
                      '"_", "-"), got %r' % (params['congestion'],))
    return errors


def build_command(params, iperf3, port):
    """argv of one iperf3 client talking to ``port``."""
    argv = [iperf3, '-c', params['server'], '-p', str(port), '-t', str(params['duration']),
            '-P', str(params['parallel']), '-J']
    argv += TESTS[params['test']][2]
    if params['test'] == 'udp_stream':
        # bits/s, no suffix: unambiguous across iperf3 versions
        argv += ['-b', '%d' % round(from_mbps(params['bitrate'], 'bits/s'))]
    if params.get('omit'):
        argv += ['-O', str(params['omit'])]
    if params.get('window'):
        argv += ['-w', params['window']]
    if params.get('mss'):
        argv += ['-M', str(params['mss'])]
    if params.get('zerocopy'):
        argv += ['-Z']
    if params.get('length'):
        argv += ['-l', params['length']]
    if params.get('connect_timeout'):
        argv += ['--connect-timeout', str(params['connect_timeout'])]
    if params.get('congestion'):
        argv += ['-C', params['congestion']]
    if params.get('bind'):
        argv += ['-B', params['bind']]
    return argv


def ports(params):
    first = params.get('port') or DEFAULT_PORT
    return [first + index for index in range(params.get('processes') or 1)]


def test_id(params):
    parts = ['iperf3', params['test'], 'parallel=%d' % params['parallel']]
    if (params.get('processes') or 1) > 1:
        parts.append('processes=%d' % params['processes'])
    for field in ID_OPTIONS:
        value = params.get(field)
        if value is None or value is False or (field == 'omit' and not value):
            continue
        if isinstance(value, float):
            value = '%g' % value
        parts.append('%s=%s' % (field, 'true' if value is True else value))
    return '/'.join(parts)


def test_options(params):
    return dict((key, params[key]) for key in TEST_OPTIONS if params.get(key) is not None)


def tool_version(iperf3):
    result = process.run([iperf3, '--version'], timeout=10)
    return parse_iperf3.parse_version(result.stdout + result.stderr)


def run_timeout(params):
    return common_args.effective_timeout(params, extra=(params.get('omit') or 0) + SETUP_S)


def parse_process(proc, timeout):
    """Parsed result of one client process, with an ``error`` that says what went wrong."""
    if proc.timed_out:
        return {'metrics': {}, 'intervals': [], 'version': '',
                'error': 'iperf3 did not finish within the %d s timeout: its process group was killed' % timeout}
    parsed = parse_iperf3.parse(proc.stdout)
    if parsed['error'] is None and proc.rc not in (0, None):
        parsed['error'] = 'iperf3 exited with code %s' % proc.rc
    if parsed['error'] and not proc.stdout.strip() and proc.stderr.strip():
        # no JSON at all (bad option, crash): stderr says why
        parsed['error'] = 'iperf3 exited with code %s: %s' % (proc.rc, proc.stderr.strip().splitlines()[0])
    if parsed['error']:
        parsed['metrics'] = {}
    return parsed


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

    iperf3 = common_args.require_tool(module, 'iperf3')
    version = tool_version(iperf3)
    if params['test'] == 'tcp_bidir' and version and not parse_iperf3.supports_bidir(version):
        module.fail_json(msg='tcp_bidir needs iperf3 3.7 or later (--bidir); the installed iperf3 is %s' % version)

    protocol, direction = TESTS[params['test']][:2]
    client_ports = ports(params)
    argvs = [build_command(params, iperf3, port) for port in client_ports]
    record = rec.new_record(params, 'iperf3', params['test'], protocol, direction, test_id(params),
                            options=test_options(params), tool_version=version)
    rec.set_commands(record, argvs)
    rec.set_primary(record, 'throughput_mbps')

    if module.check_mode:
        rec.finish_record(record, None, 'skipped', error='check mode: iperf3 did not run')
        module.exit_json(changed=False, perflab_result=[record])

    timeout = run_timeout(params)
    if params.get('nic_interface'):
        with NicSampler(params['nic_interface']) as sampler:
            procs = _run(argvs, timeout)
        rec.add_nic(record, sampler.result())
    else:
        procs = _run(argvs, timeout)

    parsed = [parse_process(proc, timeout) for proc in procs]
    record['tool_version'] = next((p['version'] for p in parsed if p['version']), version)
    multi = len(procs) > 1
    failures = [('port %d: %s' % (port, result['error'])) if multi else result['error']
                for port, result in zip(client_ports, parsed) if result['error']]
    if multi:
        for port, result in zip(client_ports, parsed):
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
