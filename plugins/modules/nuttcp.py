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

from ansible_collections.perflab.network.plugins.module_utils import registry
from ansible_collections.perflab.network.plugins.module_utils import runner


def main():
    runner.main(registry.get('nuttcp'))


if __name__ == '__main__':
    main()
