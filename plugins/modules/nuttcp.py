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
short_description: Measure TCP or UDP throughput, loss and CPU with nuttcp (one or several clients) into a result record
version_added: 0.1.0
description:
  - Runs the nuttcp client in client/server mode with parsable output (C(-fparse), one interval
    line a second) against running nuttcp servers and returns the measurement as one
    C(perflab.result/2) record.
  - nuttcp reports from the receiver's point of view, so C(throughput_mbps) is what the receiver got.
  - One C(nuttcp -S --nofork) server serves one client at a time (a second one is refused).
    With O(processes) > 1 that many clients run at once against the control ports O(port),
    O(port)+1, ... (start the servers with M(perflab.network.bench_server) and
    O(perflab.network.bench_server#module:count)); the record holds their sum and each process.
  - Changes nothing on the host. In check mode only C(nuttcp -V) runs.
extends_documentation_fragment:
  - perflab.network.test_common
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
  - module: perflab.network.iperf3
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
  description: The nuttcp record's argv, metrics and per-second samples (the notes say where the rest is).
  returned: always
  type: list
  elements: dict
  contains:
    command:
      description: The argv of the (first) nuttcp process.
      type: list
      elements: str
      sample: [/usr/bin/nuttcp, -fparse, -t, -T10, -i1, -N1, -P5000, -p5001, 10.213.1.11]
    metrics:
      description:
        - Name to C({value, unit, higher_is_better}), summed over processes.
        - C(throughput_mbps) (what the receiver got), C(cpu_local_pct) and C(cpu_remote_pct) (the client's
          and the server's nuttcp CPU), TCP C(retransmits) (single-stream runs only, nuttcp 6 does not
          report them for several streams); UDP C(lost_packets), C(packets), C(lost_percent) and, where
          nuttcp reports it (8.x with C(-j), which the module does not pass), C(jitter_max_ms) (C(msmaxjitter))
          and C(jitter_ms) (C(msavgjitter)); C(nic_rx_mbps), C(nic_tx_mbps) with O(nic_interface).
      type: dict
      sample: {throughput_mbps: {value: 9412.31, unit: Mbit/s, higher_is_better: true}}
    intervals:
      description:
        - Per-second samples C({t, throughput_mbps}) plus C(retransmits) (TCP, one stream) or C(lost_packets),
          C(packets), C(lost_percent) (UDP). nuttcp prints no line for the last second.
          With several processes the i-th samples are summed.
      type: list
      elements: dict
      sample: [{t: 1.0, throughput_mbps: 9398.2, retransmits: 0.0}]
'''

from ansible_collections.perflab.network.plugins.module_utils.bench import runner


def main():
    runner.main('nuttcp')


if __name__ == '__main__':
    main()
