#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

DOCUMENTATION = r'''
---
module: ethr
short_description: Run one ethr client test and return a result record
version_added: 0.1.0
description:
  - Runs the ethr client (C(ethr -c SERVER)) against a running ethr server and returns the
    measurement as one C(perflab.result/1) record.
  - Tests are bandwidth (TCP or UDP, O(parallel) threads, O(reverse)), connections per second,
    latency, packets per second, and HTTP bandwidth where the installed ethr still has it.
  - The result is read from ethr's text output. ethr has no summary line, so rates are the mean of
    its one-second intervals, which the record also keeps in RV(perflab_result[].intervals).
    Latency percentiles come from the text table (ethr's JSON log labels them shifted).
  - ethr prints an error and still exits 0 when the server cannot be reached; the module reports
    that (and any output without results) as a failure.
  - Writes no ethr log file (C(-no)). Changes nothing on the host.
author:
  - perflab.network contributors (@perflab)
extends_documentation_fragment:
  - perflab.network.test_common
attributes:
  check_mode:
    description: Can run in check_mode and return changed status prediction without modifying target.
    support: full
    details:
      - In check mode nothing runs; the record has status V(skipped) and the command that would run.
  diff_mode:
    description: Will return details on what has changed (or possibly needs changing in check_mode), when in diff mode.
    support: none
  platform:
    description: Target OS/families that can be operated against.
    support: full
    platforms: posix
options:
  test:
    description:
      - V(bandwidth) (C(-t b)), V(connections) (C(-t c), TCP connections per second),
        V(latency) (C(-t l), TCP round trips), V(packets) (C(-t p), UDP packets per second),
        V(http) (C(-t b -p http)).
      - V(http) runs only where the installed ethr has an HTTP test (ethr v1.0 dropped it). The module
        fails with a message saying so when the help does not list C(http), or when ethr refuses
        C(-p http) (v1.0.0 still lists it in its help).
    type: str
    choices: [bandwidth, connections, latency, packets, http]
    default: bandwidth
  protocol:
    description:
      - Protocol of the bandwidth test. V(connections) and V(latency) are TCP only, V(packets) UDP only.
    type: str
    choices: [tcp, udp]
    default: tcp
  port:
    description:
      - The ethr server port (C(-port)), 1-65535. Default C(8888). Process N (1-based) talks to O(port) + N - 1.
    type: int
  parallel:
    description:
      - Threads (C(-n)), each with its own connection, 1-128.
    type: int
    default: 1
  reverse:
    description: The server sends (C(-r)); TCP bandwidth only.
    type: bool
    default: false
  buffer_length:
    description: Buffer length in bytes (C(-l)), bandwidth tests. ethr's default is 16 KB (16000 bytes); at most 65507 for UDP.
    type: int
  rate_mbps:
    description: Send rate limit in Mbit/s (C(-b)), bandwidth tests. Unset, or V(0), is unlimited.
    type: float
  iterations:
    description: Round trips per latency measurement (C(-i)). ethr's default is 1000.
    type: int
  gap:
    description: Seconds between latency measurements (C(-g)). ethr's default is 1.
    type: float
  warmup:
    description: Warm-up iterations (C(-w)).
    type: int
  decimal_precision:
    description:
      - Decimals ethr prints for bandwidth (C(-dp)); V(2) gives a finer result.
      - Only builds whose help lists C(-dp); the module fails before running otherwise.
    type: int
    choices: [1, 2]
  ethr_path:
    description:
      - Path of the ethr binary. Default C(ethr) on PATH or in the usual bin directories, then
        C(/opt/perflab/bin/ethr).
    type: path
notes:
  - No package registry has ethr. Install it with the collection's tools role (release zip) or put the
    binary in place yourself and point O(ethr_path) to it.
  - Start the server with M(perflab.network.bench_server) or C(ethr -s -port PORT). The connections/s test
    can use up the server's file descriptors; raise its C(nofile) limit.
  - With O(processes) > 1 the clients run at once, process N against O(port) + N - 1 (one server per port);
    the record holds the sum. Not for V(latency).
seealso:
  - module: perflab.network.bench_server
  - module: perflab.network.netperf
'''

EXAMPLES = r'''
- name: TCP bandwidth with 8 threads for 30 s
  perflab.network.ethr:
    server: "{{ hostvars[perflab_peer].perflab_data_address }}"
    test: bandwidth
    parallel: 8
    duration: 30

- name: TCP latency, 1000 round trips per measurement
  perflab.network.ethr:
    server: 10.213.1.11
    test: latency
    iterations: 1000

- name: TCP connections per second with 64 threads
  perflab.network.ethr:
    server: 10.213.1.11
    test: connections
    parallel: 64

- name: UDP bandwidth, 8 threads, 1472-byte datagrams
  perflab.network.ethr:
    server: 10.213.1.11
    protocol: udp
    parallel: 8
    buffer_length: 1472
    ethr_path: /opt/perflab/bin/ethr
'''

RETURN = r'''
perflab_result:
  description:
    - One C(perflab.result/1) record in a list (see docs/result-record.md in the collection).
    - Also returned when the test failed (then with RV(perflab_result[].status=failed) and the module fails).
  returned: always
  type: list
  elements: dict
  contains:
    schema:
      description: Record schema.
      type: str
      sample: perflab.result/1
    run_id:
      description: Study run identifier.
      type: str
      sample: 20261129T184000Z-ab12
    config:
      description: Configuration label.
      type: str
      sample: Debian 12 stock
    suite:
      description: Suite name.
      type: str
      sample: adhoc
    test_id:
      description: Stable test identifier, C(ethr/<protocol>/<test>/threads=N) plus C(/reverse) and C(/processes=N).
      type: str
      sample: ethr/tcp/bandwidth/threads=8
    repetition:
      description: Repetition number.
      type: int
      sample: 1
    started_at:
      description: Start, ISO 8601 UTC.
      type: str
      sample: '2026-11-29T18:23:19.120Z'
    ended_at:
      description: End, ISO 8601 UTC.
      type: str
      sample: '2026-11-29T18:23:25.400Z'
    tool:
      description: Always C(ethr).
      type: str
      sample: ethr
    tool_version:
      description: Version from the ethr banner.
      type: str
      sample: v1.0.0-5-g86e0704
    test:
      description:
        - Normalized test name. C(tcp_stream), C(tcp_maerts) (reverse), C(udp_stream), C(connections),
          C(tcp_latency), C(packets); HTTP bandwidth is C(tcp_stream) with an C(ethr/http/...) test_id.
      type: str
      sample: tcp_stream
    protocol:
      description: C(tcp) or C(udp).
      type: str
      sample: tcp
    direction:
      description: C(client_to_server), C(server_to_client) (reverse) or C(bidirectional) (latency).
      type: str
      sample: client_to_server
    parallel:
      description: Threads.
      type: int
      sample: 8
    duration_s:
      description: Requested duration.
      type: float
      sample: 30.0
    options:
      description: The module's test options as given.
      type: dict
      sample: {test: bandwidth, protocol: tcp, reverse: false}
    command:
      description: The argv of the (first) ethr client.
      type: list
      elements: str
      sample: [/opt/perflab/bin/ethr, -c, 10.213.1.11, -port, '8888', -t, b, -p, tcp, -n, '8', -d, 30s, -no]
    commands:
      description: The argv of every client process.
      type: list
      elements: list
      sample: [[/opt/perflab/bin/ethr, -c, 10.213.1.11, '...']]
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
        - Name to C({value, unit, higher_is_better}). Bandwidth C(throughput_mbps) (UDP also C(packets_per_s)),
          connections C(connections_per_s), packets C(packets_per_s), latency C(latency_us_mean),
          C(latency_us_p50), C(latency_us_p90), C(latency_us_p99), C(latency_us_min), C(latency_us_max);
          C(nic_rx_mbps), C(nic_tx_mbps) with O(nic_interface).
        - Latency mean is the mean of the measurements, min/max the extremes, the percentiles the
          median of the measurements' percentiles.
      type: dict
      sample: {throughput_mbps: {value: 13320.0, unit: Mbit/s, higher_is_better: true}}
    primary:
      description: C(throughput_mbps), C(connections_per_s), C(packets_per_s) or C(latency_us_mean).
      type: str
      sample: throughput_mbps
    intervals:
      description: One sample per ethr interval (latency, per measurement), C({t, <metric>...}).
      type: list
      elements: dict
      sample: [{t: 1.0, throughput_mbps: 12500.0}, {t: 2.0, throughput_mbps: 13100.0}]
    nic:
      description: NIC byte counters sampled each second during the test (with O(nic_interface)), else null.
      type: dict
      sample: {interface: data0, samples: [], rx_mbps: 10.2, tx_mbps: 13280.5}
    processes:
      description: With O(processes) > 1, each client C({port, metrics, status, error}); else null.
      type: list
      elements: dict
      sample: [{port: 8888, metrics: {throughput_mbps: {value: 4650.0, unit: Mbit/s, higher_is_better: true}},
                status: ok, error: null}]
    status:
      description: C(ok), C(failed) or C(skipped) (check mode).
      type: str
      sample: ok
    error:
      description: Clear text of what went wrong, null when ok.
      type: str
      sample: "ethr: Error dialing control connection: dial tcp4 :0->10.99.0.9:8888: i/o timeout"
    raw:
      description: ethr output, bounded to 64 KiB.
      type: str
      sample: "[    6]     TCP      000-001 sec     12.5G\n..."
'''

import os

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.perflab.network.plugins.module_utils import common_args
from ansible_collections.perflab.network.plugins.module_utils import parse_ethr
from ansible_collections.perflab.network.plugins.module_utils import process
from ansible_collections.perflab.network.plugins.module_utils import record as rec
from ansible_collections.perflab.network.plugins.module_utils.nic import NicSampler

DEFAULT_PORT = 8888
# where the tools role puts the release binary
EXTRA_ETHR_PATHS = ('/opt/perflab/bin/ethr',)
TEST_OPTIONS = ('test', 'protocol', 'reverse', 'buffer_length', 'rate_mbps', 'iterations', 'gap', 'warmup',
                'decimal_precision')


def argument_spec():
    spec = common_args.common_argument_spec()
    spec.update(
        test=dict(type='str', default='bandwidth', choices=sorted(parse_ethr.TESTS)),
        protocol=dict(type='str', default='tcp', choices=['tcp', 'udp']),
        reverse=dict(type='bool', default=False),
        buffer_length=dict(type='int'),
        rate_mbps=dict(type='float'),
        iterations=dict(type='int'),
        gap=dict(type='float'),
        warmup=dict(type='int'),
        decimal_precision=dict(type='int', choices=[1, 2]),
        ethr_path=dict(type='path'),
    )
    return spec


def effective_protocol(params):
    if params['test'] == 'packets':
        return 'udp'
    if params['test'] in ('connections', 'latency', 'http'):
        return 'tcp'
    return params['protocol']


def option_errors(params):
    """Problems with the ethr-specific options (empty when all is well)."""
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
    limit = 65507 if effective_protocol(params) == 'udp' else 1 << 30
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


def _seconds(value):
    """ethr durations are Go durations: "10s", "500ms"."""
    if float(value) == int(value):
        return '%ds' % int(value)
    return '%dms' % int(round(float(value) * 1000))


def build_command(params, ethr, index=0):
    """argv of client process ``index`` (0-based)."""
    test = params['test']
    port = (params.get('port') or DEFAULT_PORT) + index
    argv = [ethr, '-c', params['server'], '-port', '%d' % port,
            '-t', parse_ethr.TESTS[test][0], '-p', 'http' if test == 'http' else effective_protocol(params),
            '-n', '%d' % (params.get('parallel') or 1), '-d', _seconds(params['duration'])]
    if params.get('bind'):
        argv += ['-ip', params['bind']]
    if params.get('reverse'):
        argv.append('-r')
    if params.get('buffer_length'):
        argv += ['-l', '%d' % params['buffer_length']]
    if params.get('rate_mbps'):
        argv += ['-b', '%d' % int(round(params['rate_mbps'] * 1e6))]
    if params.get('iterations'):
        argv += ['-i', '%d' % params['iterations']]
    if params.get('gap') is not None:
        argv += ['-g', _seconds(params['gap'])]
    if params.get('warmup') is not None:
        argv += ['-w', '%d' % params['warmup']]
    if params.get('decimal_precision'):
        argv += ['-dp', '%d' % params['decimal_precision']]
    # no ethrc.log in the working directory
    argv.append('-no')
    return argv


def record_test(params):
    """(normalized test, direction) of the record."""
    test = params['test']
    if test == 'latency':
        return 'tcp_latency', 'bidirectional'
    if test == 'connections':
        return 'connections', 'client_to_server'
    if test == 'packets':
        return 'packets', 'client_to_server'
    if params.get('reverse'):
        return 'tcp_maerts', 'server_to_client'
    return ('udp_stream' if effective_protocol(params) == 'udp' else 'tcp_stream'), 'client_to_server'


def test_id(params):
    protocol = 'http' if params['test'] == 'http' else effective_protocol(params)
    name = 'bandwidth' if params['test'] == 'http' else params['test']
    parts = ['ethr', protocol, name, 'threads=%d' % (params.get('parallel') or 1)]
    if params.get('reverse'):
        parts.append('reverse')
    if (params.get('processes') or 1) > 1:
        parts.append('processes=%d' % params['processes'])
    return '/'.join(parts)


def find_ethr(path=None):
    if path:
        return process.which(path)
    found = process.which('ethr')
    if found:
        return found
    for candidate in EXTRA_ETHR_PATHS:
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


def no_http_message(version, protocols, refused=False):
    what = 'the installed ethr%s has no HTTP test' % (' (%s)' % version if version else '')
    if refused:
        return what + ': it refuses -p http (its help still lists http; ethr 1.0 removed the HTTP tests)'
    return what + ': its help lists only %s' % (', '.join(protocols) if protocols else 'no protocols')


def main():
    module = AnsibleModule(argument_spec=argument_spec(), supports_check_mode=True)
    params = module.params
    common_args.validate_common(module, default_port=DEFAULT_PORT)
    errors = option_errors(params)
    if errors:
        module.fail_json(msg='; '.join(errors))

    ethr = find_ethr(params.get('ethr_path'))
    if not ethr:
        if params.get('ethr_path'):
            module.fail_json(msg='ethr_path %s is not an executable file' % params['ethr_path'])
        module.fail_json(msg='ethr is not installed on this host (looked on PATH and in %s): install it with the '
                             'perflab.network.tools role or set ethr_path' % ', '.join(EXTRA_ETHR_PATHS))

    # ethr -h: the version, and what this build supports (it prints the help and exits)
    helped = process.run([ethr, '-h'], timeout=10)
    help_text = helped.stdout + helped.stderr
    version = parse_ethr.parse_version(help_text)
    if params['test'] == 'http':
        protocols = parse_ethr.help_protocols(help_text)
        if 'http' not in protocols:
            module.fail_json(msg=no_http_message(version, protocols))
    if params.get('decimal_precision') and not parse_ethr.help_has_flag(help_text, 'dp'):
        module.fail_json(msg='decimal_precision needs an ethr whose help lists -dp; %s does not'
                             % (version or 'the installed ethr'))

    test, direction = record_test(params)
    options = dict((key, params.get(key)) for key in TEST_OPTIONS)
    processes = params.get('processes') or 1
    argvs = [build_command(params, ethr, index) for index in range(processes)]
    record = rec.new_record(params, 'ethr', test, effective_protocol(params), direction, test_id(params),
                            options=options, tool_version=version)
    rec.set_commands(record, argvs)
    rec.set_primary(record, parse_ethr.PRIMARY[params['test']])

    if module.check_mode:
        rec.finish_record(record, None, 'skipped', error='check mode: ethr did not run')
        module.exit_json(changed=False, perflab_result=[record])

    timeout = common_args.effective_timeout(params, extra=5)

    def run_all():
        if processes == 1:
            return [process.run(argvs[0], timeout=timeout)]
        return process.run_many(argvs, timeout=timeout)

    if params.get('nic_interface'):
        with NicSampler(params['nic_interface']) as sampler:
            procs = run_all()
        rec.add_nic(record, sampler.result())
    else:
        procs = run_all()

    gap = params.get('gap') if params.get('gap') else 1.0
    parsed = []
    for proc in procs:
        result = parse_ethr.parse_result(params['test'], proc.stdout + proc.stderr, proc.rc, gap_s=gap)
        if proc.timed_out:
            result['error'] = 'ethr did not finish within %s s and was killed (raise timeout?)' % timeout
        elif params['test'] == 'http' and 'Invalid value "http"' in (result['error'] or ''):
            result['error'] = no_http_message(version or result['version'], [], refused=True)
        parsed.append(result)
    if not record['tool_version']:
        record['tool_version'] = parsed[0]['version']

    failures = [('process %d: %s' % (index + 1, result['error'])) if processes > 1 else result['error']
                for index, result in enumerate(parsed) if result['error']]
    if processes > 1:
        for index, result in enumerate(parsed):
            metrics = dict((name, rec.metric(value, rec.METRICS[name][0], rec.METRICS[name][1]))
                           for name, value in result['metrics'].items())
            rec.add_process(record, (params.get('port') or DEFAULT_PORT) + index, metrics,
                            status='failed' if result['error'] else 'ok', error=result['error'])
        combined = parse_ethr.combine_metrics([result['metrics'] for result in parsed])
        record['intervals'] = parse_ethr.combine_intervals([result['intervals'] for result in parsed])
    else:
        combined = parsed[0]['metrics']
        record['intervals'] = parsed[0]['intervals']
    if not failures:
        rec.add_metrics(record, combined)

    raw = '\n'.join(('%s\n%s%s' % (' '.join(proc.argv), proc.stdout, proc.stderr)) if processes > 1
                    else proc.stdout + proc.stderr for proc in procs)
    first = procs[0]
    first.started_at = min(proc.started_at for proc in procs)
    first.ended_at = max(proc.ended_at for proc in procs)
    rec.finish_record(record, first, 'failed' if failures else 'ok',
                      error='; '.join(failures) if failures else None, raw=raw)
    if record['status'] != 'ok':
        module.fail_json(msg=record['error'], perflab_result=[record])
    module.exit_json(changed=False, perflab_result=[record])


if __name__ == '__main__':
    main()
