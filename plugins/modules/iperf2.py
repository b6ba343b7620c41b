#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

DOCUMENTATION = r'''
---
module: iperf2
short_description: Measure TCP or UDP throughput and the MSS with iperf 2 (one or several clients) as a result record
version_added: 0.2.0
description:
  - Runs the iperf2 client (Debian's and most distributions' package C(iperf), 2.1.x) with enhanced
    reports (C(-e -f k -i 1)) against running iperf2 servers and returns the measurement as one
    C(perflab.result/2) record, like M(perflab.network.iperf3).
  - iperf2 exits 0 on every client error (connection refused, unknown option, peer reset); the module
    judges the run by its output and its error text, never by the exit code.
  - TCP tests report what the client wrote (V(tcp_stream), with retransmits) or read (V(tcp_maerts));
    the MSS in use (from the connect line; iperf 2.0.x prints it after the test, for which the TCP tests
    pass C(-m)) is the metric C(mss_bytes). UDP reports the server's numbers (received rate, jitter, loss)
    from its server report; its intervals are the client's send rate (C(throughput_sent_mbps)).
  - A stream that stalls (its last interval moves nothing, or it holds the client well past O(duration)) fails
    the record; the error says what iperf2 counted in all (its final C([SUM]), or the streams' own final lines
    added up) and C(notes) name each stalled stream.
  - With O(processes) > 1 that many clients run at once against O(port), O(port)+1, ... and the
    record holds their sum and each process.
  - Changes nothing on the host. In check mode only C(iperf -v) runs.
extends_documentation_fragment:
  - perflab.network.test_common
options:
  test:
    description:
      - V(tcp_stream) the client sends; V(tcp_maerts) the server sends (C(-R));
        V(tcp_bidir) both at once on one connection (C(--full-duplex));
        V(udp_stream) the client sends UDP at O(bitrate) per stream (C(-u -b)).
      - The benchmark role runs the TCP tests; V(udp_stream) needs a UDP server of your own
        (C(iperf -s -u)), fresh for each test (an iperf 2.1.8 UDP server stops reporting after one test).
    type: str
    choices: [tcp_stream, tcp_maerts, tcp_bidir, udp_stream]
    default: tcp_stream
  port:
    description:
      - iperf2 server port, 1-65535. Default C(5001).
  bitrate:
    description:
      - Target rate of each UDP stream in Mbit/s (C(-b), passed as C(<n>m), 10^6 based).
      - Required for V(udp_stream); refused for the TCP tests.
    type: float
  mss:
    description: TCP maximum segment size (C(-M)), 88-9216; the record's C(mss_bytes) is the one in use.
    type: int
  window:
    description: Socket buffer size (C(-w)), a number with an optional K, M or G suffix, for example V(256K).
    type: str
  length:
    description: Read/write buffer length (C(-l)), a number with an optional K, M or G suffix.
    type: str
  iperf2_path:
    description: Path of the iperf2 client. Default C(iperf) found on PATH or in the usual bin directories.
    type: path
notes:
  - Start TCP servers with M(perflab.network.bench_server) O(perflab.network.bench_server#module:tool=iperf2)
    (C(iperf -s -p PORT -B BIND), in the foreground).
  - iperf2 has no connect timeout of its own; the module's O(timeout) bounds the run.
seealso:
  - module: perflab.network.iperf3
'''

EXAMPLES = r'''
- name: TCP, 4 streams, 30 s
  perflab.network.iperf2:
    server: 10.213.1.11
    duration: 30
    parallel: 4
  register: result

- name: The MSS the jumbo frames gave
  ansible.builtin.debug:
    msg: "{{ result.perflab_result[0].metrics.mss_bytes.value }}"
'''

RETURN = r'''
perflab_result:
  description: The iperf2 record's own metrics; its other fields are the common ones (see the notes).
  returned: always
  type: list
  elements: dict
  contains:
    metrics:
      description: C(throughput_mbps), C(throughput_sent_mbps), C(retransmits), C(mss_bytes); UDP C(jitter_ms),
        C(lost_packets), C(packets), C(lost_percent).
      type: dict
'''

from ansible_collections.perflab.network.plugins.module_utils.bench import runner


def main():
    runner.main('iperf2')


if __name__ == '__main__':
    main()
