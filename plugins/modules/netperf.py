#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

DOCUMENTATION = r'''
---
module: netperf
short_description: Run a netperf STREAM or request/response test (one or several clients) and return a result record
version_added: 0.1.0
description:
  - Runs the netperf client against a running C(netserver) with omni CSV output (C(-P 0 -- -o <selectors>))
    and returns the measurement as one C(perflab.result/2) record.
  - The selectors are a fixed list chosen by the module; no user text ever becomes a selector
    (netperf reads an unknown selector as the name of a file).
  - STREAM tests report what the receiver got (C(throughput_mbps), Mbit/s) plus the sent and
    received rates; UDP_STREAM also C(lost_percent). Request/response tests report
    C(transactions_per_s) and the latency mean, p50, p90, p99, min, max and standard deviation
    in microseconds. CPU utilization is measured on both ends by default; values netperf did not
    measure (it prints C(-1)) are left out.
  - With O(processes) > 1 that many netperf clients run at once and the record holds their sum
    (the "many processes" way of filling a fast link) and each process in RV(perflab.network.bench_test#module:perflab_result[].processes).
  - Changes nothing on the host.
extends_documentation_fragment:
  - perflab.network.test_common
options:
  test:
    description:
      - The test. V(tcp_stream) (client sends), V(tcp_maerts) (server sends), V(udp_stream),
        V(tcp_rr), V(tcp_crr) (a new connection per transaction), V(udp_rr); mapped to netperf's
        C(TCP_STREAM), C(TCP_MAERTS), C(UDP_STREAM), C(TCP_RR), C(TCP_CRR), C(UDP_RR).
    type: str
    choices: [tcp_stream, tcp_maerts, udp_stream, tcp_rr, tcp_crr, udp_rr]
    default: tcp_stream
  port:
    description:
      - The netserver control port (C(netperf -p)), 1-65535. Default C(12865).
      - With O(process_ports=consecutive), process N (1-based) talks to O(port) + N - 1.
    type: int
  data_port:
    description:
      - Server-side data port (C(-- -P ,PORT)), pinned so that a firewall can open it next to
        the control port. Process N (1-based) uses O(data_port) + N - 1.
      - V(0) lets netperf choose an ephemeral port.
    type: int
    default: 12866
  local_data_port:
    description:
      - Client-side data port (C(-- -P PORT,)); process N uses O(local_data_port) + N - 1.
        Unset, the client uses an ephemeral port.
      - Must differ from O(data_port) when the server is this host, because a socket bound to the
        port it connects to connects to itself and netperf then reports 0 without an error.
    type: int
  process_ports:
    description:
      - With O(processes) > 1, V(same) sends every client to the one netserver on O(port)
        (netserver forks a child per test, so one serves many); V(consecutive) sends process N to
        O(port) + N - 1 (one netserver per port).
    type: str
    choices: [same, consecutive]
    default: same
  request_size:
    description: Request size in bytes of the request/response tests (C(-- -r REQ,RESP)). netperf's default is 1.
    type: int
  response_size:
    description: Response size in bytes of the request/response tests. Defaults to O(request_size) when that is set.
    type: int
  message_size:
    description:
      - Send size in bytes of the STREAM/MAERTS tests (C(-- -m SIZE), both ends). For UDP_STREAM
        this is the datagram size; V(1472) fits a 1500-byte MTU.
    type: int
  local_socket_buffer:
    description: Client socket send and receive buffer size in bytes (C(-- -s SIZE)).
    type: int
  remote_socket_buffer:
    description: Server socket send and receive buffer size in bytes (C(-- -S SIZE)).
    type: int
  cpu:
    description: Measure local and remote CPU utilization (C(-c -C)).
    type: bool
    default: true
  interval:
    description:
      - Seconds between interim results (C(-D SECONDS)), which become RV(perflab_result[].intervals).
        V(0) turns them off.
      - Needs a netperf built with C(--enable-demo) (Debian's is); another build ignores the option
        and the record has no intervals.
    type: int
    default: 1
  confidence:
    description:
      - Repeat the test until netperf's confidence interval is reached (C(-i MAX,MIN -I LEVEL,WIDTH)).
        The module warns when the width was not reached within O(confidence.max_iterations).
      - O(timeout) then defaults to O(duration) times O(confidence.max_iterations) + 30.
    type: dict
    suboptions:
      level:
        description: Confidence level in percent.
        type: int
        choices: [95, 99]
        default: 99
      width:
        description: Width of the confidence interval in percent of the result (V(5) means +/-2.5%).
        type: float
        default: 5.0
      min_iterations:
        description: Minimum iterations, 3-30.
        type: int
        default: 3
      max_iterations:
        description: Maximum iterations, 3-30, at least O(confidence.min_iterations).
        type: int
        default: 10
  netperf_path:
    description: Path of the netperf binary. Default C(netperf) found on PATH or in the usual bin directories.
    type: path
notes:
  - Start the server with M(perflab.network.bench_server) or C(netserver -p PORT); C(netserver -D)
    means "do not daemonize".
  - netperf runs one stream per process; O(parallel) must stay 1 (use O(processes)).
  - A firewall must let the control port and O(data_port) .. O(data_port) + O(processes) - 1 through.
  - With O(processes) > 1 the sum is exact for rates and counters; CPU utilization is system-wide,
    so the record holds the mean of the processes; latency mean is weighted by transactions,
    min/max are the extremes and the percentiles are the worst process' (an upper bound).
seealso:
  - module: perflab.network.iperf3
'''

EXAMPLES = r'''
- name: TCP_STREAM for 60 s to the peer's data address
  perflab.network.netperf:
    server: "{{ hostvars[perflab_peer].perflab_data_address }}"
    duration: 60
    nic_interface: "{{ perflab_data_interface }}"
  register: stream

- name: TCP_RR with 64-byte requests and responses, 5 runs to 99% +/-2.5%
  perflab.network.netperf:
    server: 10.213.1.11
    test: tcp_rr
    request_size: 64
    confidence:
      width: 5
      max_iterations: 5

- name: Four netperf clients at once against one netserver, data ports 12866-12869
  perflab.network.netperf:
    server: 10.213.1.11
    test: tcp_stream
    processes: 4
    duration: 30
    nic_interface: data0

- name: UDP_STREAM with datagrams that fit a 1500 MTU, recorded under a label
  perflab.network.netperf:
    server: 10.213.1.11
    test: udp_stream
    message_size: 1472
    config: Debian 12 tuned
    suite: phoronix-network
'''

RETURN = r'''
perflab_result:
  description: What netperf's record adds, its argv, STREAM and RR metrics and interim results.
  returned: always
  type: list
  elements: dict
  contains:
    command:
      description: The argv of the (first) netperf process.
      type: list
      elements: str
      sample: [/usr/bin/netperf, -H, 10.213.1.11, -p, '12865', -t, TCP_STREAM, -l, '60', -c, -C, -D, '1', -P, '0',
               '--', -P, ',12866', -o, 'THROUGHPUT,THROUGHPUT_UNITS,...']
    metrics:
      description:
        - Name to C({value, unit, higher_is_better}). STREAM C(throughput_mbps), C(throughput_sent_mbps),
          C(throughput_received_mbps), (UDP) C(lost_percent); RR C(transactions_per_s), C(latency_us_mean),
          C(latency_us_p50), C(latency_us_p90), C(latency_us_p99), C(latency_us_min), C(latency_us_max),
          C(latency_us_stddev); C(cpu_local_pct), C(cpu_remote_pct), (TCP) C(retransmits);
          C(nic_rx_mbps), C(nic_tx_mbps) with O(nic_interface).
      type: dict
      sample: {throughput_mbps: {value: 9412.31, unit: Mbit/s, higher_is_better: true},
               cpu_local_pct: {value: 12.5, unit: '%', higher_is_better: false}}
    intervals:
      description:
        - Interim results (O(interval)), C({t, throughput_mbps}) or C({t, transactions_per_s}); UDP_STREAM
          C({t, throughput_sent_mbps}) (netperf's interim rate is the sender's there). With several processes,
          the i-th samples of all processes are summed.
      type: list
      elements: dict
      sample: [{t: 1.0, throughput_mbps: 9398.2}, {t: 2.0, throughput_mbps: 9420.7}]
confidence:
  description: With O(confidence), per process C({iterations, width_pct, level_pct, requested_width_pct, achieved}).
  returned: when O(confidence) is set and the test ran
  type: list
  elements: dict
  sample: [{iterations: 3, width_pct: 1.7, level_pct: 99, requested_width_pct: 5.0, achieved: true}]
'''

from ansible_collections.perflab.network.plugins.module_utils.bench import runner


def main():
    runner.main('netperf')


if __name__ == '__main__':
    main()
