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
    measurement as one C(perflab.result/2) record.
  - Tests are bandwidth (TCP or UDP, O(parallel) threads, O(reverse)), connections per second,
    latency, packets per second, and HTTP bandwidth where the installed ethr still has it.
  - The result is read from ethr's text output. ethr has no summary line, so rates are the mean of
    its one-second intervals, which the record also keeps in RV(perflab_result[].intervals).
    Latency percentiles come from the text table (ethr's JSON log labels them shifted).
  - ethr prints an error and still exits 0 when the server cannot be reached; the module reports
    that (and any output without results) as a failure.
  - Writes no ethr log file (C(-no)). Changes nothing on the host.
extends_documentation_fragment:
  - perflab.network.test_common
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
  description: The ethr record's test id, argv, metrics and samples, the fields whose content is ethr's own.
  returned: always
  type: list
  elements: dict
  contains:
    test_id:
      description: The test id (docs/result-record.md), the same ad hoc, from a suite and in a plan-skipped record.
        The test is the record's normalized name (C(tcp_stream), C(tcp_maerts), C(udp_stream), C(tcp_latency),
        C(connections), C(packets), C(http_bandwidth)); C(parallel) is the threads.
      type: str
      sample: ethr/tcp_stream/parallel=8
    command:
      description: The argv of the (first) ethr client.
      type: list
      elements: str
      sample: [/opt/perflab/bin/ethr, -c, 10.213.1.11, -port, '8888', -t, b, -p, tcp, -n, '8', -d, 30s, -no]
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
    intervals:
      description: One sample per ethr interval (latency, per measurement), C({t, <metric>...}).
      type: list
      elements: dict
      sample: [{t: 1.0, throughput_mbps: 12500.0}, {t: 2.0, throughput_mbps: 13100.0}]
'''

from ansible_collections.perflab.network.plugins.module_utils.bench import runner


def main():
    runner.main('ethr')


if __name__ == '__main__':
    main()
