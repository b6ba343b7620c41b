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
short_description: Measure TCP or UDP throughput with iperf3, one client or several at once, as a result record
version_added: 0.1.0
description:
  - Runs the iperf3 client with JSON output (C(-J)) and the server's report (C(--get-server-output)) against
    running iperf3 servers and returns the measurement as one C(perflab.result/2) record.
  - C(throughput_mbps) is what the receiver got (C(end.sum_received)); the sender's rate is
    C(throughput_sent_mbps). Omitted (O(omit)) seconds are left out of intervals and sums.
  - iperf3 prints an error in its JSON and (up to 3.13) still exits 0; the module reads the JSON,
    never the exit code alone, and such a run fails.
  - One iperf3 server runs one test at a time. With O(processes) > 1 that many clients run at once
    against O(port), O(port)+1, ... (start the servers with M(perflab.network.bench_server) and
    O(perflab.network.bench_server#module:count)) and the record holds their sum and each process.
  - Changes nothing on the host. In check mode only C(iperf3 --version) runs.
extends_documentation_fragment:
  - perflab.network.test_common
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
  reading:
    description:
      - Whose count ranks the test (the record's C(primary) metric and its C(reading)). V(receiver) is what
        arrived (C(throughput_mbps), the receiver's end sum); V(sender) is what the sender sent
        (C(throughput_sent_mbps), the line the Phoronix pts/iperf profile reads). Both are always in the
        record's metrics. Not for V(tcp_bidir).
    type: str
    choices: [receiver, sender]
    default: receiver
  iperf3_path:
    description: The iperf3 executable. Default C(iperf3) found on PATH or in the usual bin directories.
    type: path
seealso:
  - module: perflab.network.nuttcp
notes:
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
  description: What the iperf3 record holds beyond the common fields (the notes say where those are).
  returned: always
  type: list
  elements: dict
  contains:
    command:
      description: The argv of the (first) iperf3 process.
      type: list
      elements: str
      sample: [/usr/bin/iperf3, -c, 10.213.1.11, -p, '5201', -t, '60', -P, '5', -J, --get-server-output, -O, '2']
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
    intervals:
      description:
        - Per-second samples, omitted seconds left out, C(t) = seconds since the measured start (the client's
          clock). Each rate names its side, C(throughput_sent_mbps) the sender's and C(throughput_received_mbps)
          the receiver's, from the client's sums and the server's report; C(throughput_mbps) is the receiver's,
          as in the metrics (V(tcp_bidir) both directions' receivers). TCP adds C(retransmits), UDP C(packets) and
          the receiver's C(jitter_ms), C(lost_packets), C(lost_percent). With several processes the i-th samples
          are summed.
      type: list
      elements: dict
      sample: [{t: 1.0, throughput_mbps: 9398.2, retransmits: 0.0}, {t: 2.0, throughput_mbps: 9420.7, retransmits: 3.0}]
'''

from ansible_collections.perflab.network.plugins.module_utils.bench import runner


def main():
    runner.main('iperf3')


if __name__ == '__main__':
    main()
