#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

DOCUMENTATION = r'''
---
module: sockperf
short_description: Run one sockperf test (latency with percentiles, or throughput) and return a result record
version_added: 0.2.0
description:
  - Runs the sockperf client (Debian's package C(sockperf), 3.7) in one of its modes against a running sockperf
    server and returns the measurement as one C(perflab.result/2) record, like M(perflab.network.iperf3).
  - V(udp_ping_pong) and V(tcp_ping_pong) (C(sockperf ping-pong)) send one message and wait for its answer;
    V(udp_under_load) and V(tcp_under_load) (C(sockperf under-load)) send O(mps) messages per second and time the
    one in 100 the server answers; the record's metrics are the latency of the valid duration (after sockperf's
    warm-up) in microseconds, half the round trip (sockperf's C(avg-latency)) unless O(full_rtt).
  - V(udp_throughput) and V(tcp_throughput) (C(sockperf throughput)) send as fast as they can; sockperf counts
    what the client sent (it cannot know what arrived), so the primary metric is C(throughput_sent_mbps).
  - sockperf exits 0 on every error (no server, connection refused, an option it does not take); the module
    judges the run by its output, never by the exit code.
  - A sockperf server serves UDP, or TCP with C(--tcp), not both. M(perflab.network.bench_server) starts the TCP
    server (C(sockperf server -p PORT --tcp -i BIND)), so the benchmark role runs the TCP tests; the UDP tests
    need a UDP server of your own (C(sockperf server -i ADDRESS -p PORT)).
  - With O(processes) > 1 that many clients run at once against O(port), O(port)+1, ...; the record holds the
    largest percentile of them (an upper bound) and each process.
  - Changes nothing on the host. In check mode only C(sockperf --version) runs.
extends_documentation_fragment:
  - perflab.network.test_common
options:
  test:
    description:
      - V(udp_ping_pong), V(tcp_ping_pong) latency one message at a time (C(ping-pong), TCP with C(--tcp));
        V(udp_under_load), V(tcp_under_load) latency at O(mps) messages per second (C(under-load));
        V(udp_throughput), V(tcp_throughput) the client's send rate (C(throughput)).
      - The benchmark role runs the TCP tests (the server M(perflab.network.bench_server) starts is a TCP one).
    type: str
    choices: [tcp_ping_pong, tcp_throughput, tcp_under_load, udp_ping_pong, udp_throughput, udp_under_load]
    default: udp_ping_pong
  port:
    description:
      - sockperf server port, 1-65535 (sockperf itself would take a larger one modulo 65536). Default C(11111).
  parallel:
    description:
      - Must be 1 (a sockperf client runs one socket). Use O(processes) for more clients at once.
  message_size:
    description: Bytes per message (C(-m)), 14-65000; sockperf's default is 14. Names the test.
    type: int
  mps:
    description:
      - Messages per second of V(udp_under_load) and V(tcp_under_load) (C(--mps)), 1-100000000; sockperf's
        default is 10000. Names the test; refused for the other tests.
    type: int
  full_rtt:
    description:
      - Report the whole round trip (C(--full-rtt)) instead of half of it. Names the test; latency tests only.
    type: bool
    default: false
  sockperf_path:
    description: The sockperf executable. Default C(sockperf) found on PATH or in the usual bin directories.
    type: path
notes:
  - O(bind) is the client's address (C(--client_ip)).
  - sockperf 3.7 takes IPv4 addresses only; an IPv6 O(server) or O(bind) is refused before anything runs.
seealso:
  - module: perflab.network.netperf
'''

EXAMPLES = r'''
- name: TCP ping-pong latency for 10 s against a server bench_server started
  perflab.network.sockperf:
    server: 10.213.1.11
    test: tcp_ping_pong
    duration: 10
  register: pingpong

- name: The 99.9th percentile of the half round trip
  ansible.builtin.debug:
    msg: "{{ pingpong.perflab_result[0].metrics.latency_us_p99_9.value }} us"

- name: UDP latency at 20000 messages per second of 256 bytes (a UDP server of your own on 11111)
  perflab.network.sockperf:
    server: 10.213.1.11
    test: udp_under_load
    mps: 20000
    message_size: 256
'''

RETURN = r'''
perflab_result:
  description: sockperf's latency percentiles and throughput in the record; no intervals.
  returned: always
  type: list
  elements: dict
  contains:
    command:
      description: The argv of the (first) sockperf process.
      type: list
      elements: str
      sample: [/usr/bin/sockperf, ping-pong, -i, 10.213.1.11, -p, '11111', -t, '10', --tcp]
    metrics:
      description:
        - Name to C({value, unit, higher_is_better}).
        - Latency tests (microseconds, half the round trip unless O(full_rtt)) C(latency_us_mean) (primary),
          C(latency_us_stddev), C(latency_us_min), C(latency_us_max), C(latency_us_p50), C(latency_us_p90),
          C(latency_us_p99), C(latency_us_p99_9), C(latency_us_p99_999); C(transactions_per_s) (answers per second
          of the valid duration); C(lost_packets) (sockperf's dropped messages).
        - Throughput tests C(throughput_sent_mbps) (primary, 10^6 bit/s), C(messages_per_s); C(nic_rx_mbps),
          C(nic_tx_mbps) with O(nic_interface).
      type: dict
      sample: {latency_us_mean: {value: 9.638, unit: us, higher_is_better: false},
               latency_us_p99_9: {value: 214.067, unit: us, higher_is_better: false}}
    intervals:
      description: Always empty (sockperf prints no per-second samples).
      type: list
      elements: dict
      sample: []
'''

from ansible_collections.perflab.network.plugins.module_utils.bench import runner


def main():
    runner.main('sockperf')


if __name__ == '__main__':
    main()
