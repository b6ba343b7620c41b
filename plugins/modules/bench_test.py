#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

DOCUMENTATION = r'''
---
module: bench_test
short_description: Run one test of any benchmark tool of the collection and return a result record
version_added: 0.2.0
description:
  - Runs one test of O(tool) exactly as the tool's own module (M(perflab.network.iperf3) and the other tool
    modules, one per tool of the collection's registry) would with the same arguments, with the tool's
    options given as one mapping O(options). The same runner, argv, parser and test id serve both.
  - The benchmark role runs every test of a plan through this module, so a plan item's options reach
    the tool unchanged whatever the tool; ad hoc, the tool's own module documents each option.
  - Changes nothing on the host.
  - On FreeBSD the NIC counters come from C(netstat -ibn -I IF) (host_platform), the rest as on Linux.
  - "On a Windows host (Windows runs no Python module) its action plugin runs the test from the controller:
    it finds the tool (C(C:\\ProgramData\\chocolatey\\bin), C(C:\\perflab\\bin), C(C:\\perflab\\ethr), then PATH),
    runs the client through C(ansible.windows.win_powershell) as a process started from its argv (the C runtime's
    quoting, no shell), killed with its whole tree (C(taskkill /T /F)) past the tool's timeout, and parses its output
    on the controller with the same runner and parser. O(nic_interface) is a C(Get-NetAdapter) name (C(Ethernet 2));
    C(Get-NetAdapterStatistics) is read just before and just after the client (two samples). One client process per
    test (O(processes) 1); netperf has no Windows build."
  - FreeBSD and Windows are tested on real command output (unit tests), not on live hosts.
extends_documentation_fragment:
  - perflab.network.test_common
  - perflab.network.attributes.windows_action
  - perflab.network.attributes
options:
  tool:
    description:
      - The tool, a name of the collection's tool registry (an unknown name is refused naming the known ones).
      - One of O(tool) and O(item) is required.
    type: str
  item:
    description:
      - "The test as one plan item of M(perflab.network.benchmark_plan) (RV(perflab.network.benchmark_plan#module:runs)),
        instead of O(tool), O(test), O(options), O(server) and the other arguments of the test itself: the item's
        C(tool), C(test), C(tool_options), C(server_address), C(port), C(duration), C(parallel_asked) (else C(parallel)),
        C(parallel_values), C(processes), C(run_id), C(config), C(suite), C(repetition), C(client), C(server),
        C(server_interface), C(test_id), C(title), C(optional) and C(repetitions_auto) are those arguments; its C(client_address) is
        O(bind) where the tool's client can bind an address (not nuttcp), its C(client_interface) is O(nic_interface)
        unless O(nic_sampling=false)."
      - What the benchmark role passes. The run's context (O(link_mbps), O(tool_paths), O(timeout), O(hold),
        O(repetitions_earlier)) is still given beside it.
    type: dict
  nic_sampling:
    description: With O(item), whether the NIC counters of the item's C(client_interface) are read.
    type: bool
    default: true
  server:
    description: The server's address. Required unless O(item) gives it.
    type: str
    required: false
  test:
    description:
      - The test, as the tool's module names it (for example V(tcp_stream), V(tcp_rr), V(latency)).
        Default the tool's default test.
    type: str
  options:
    description:
      - "The tool's options, each as the tool's module takes it (for example C({bitrate: 100}) for
        iperf3 UDP, C({request_size: 64}) for netperf). An unknown option or a wrong type is refused
        before anything runs."
    type: dict
    default: {}
  path:
    description: Path of the tool's client executable (what O(tool)'s module calls C(<tool>_path)).
    type: path
  hold:
    description:
      - Return the record as RV(perflab_held) instead of RV(perflab_result), so that the results callback does
        not store it yet; M(perflab.network.bench_record) stores it once the server's log was read (what the
        benchmark role does for the tools whose server log can show a wrong result, ethr).
    type: bool
    default: false
  repetitions_auto:
    description:
      - The rule of a test whose repetitions are C(auto), C({min, max, ci_percent}) (the plan item's); the record gets
        C(repetitions_auto), the rule with the decision after this run (C(stop), C(reason), C(runs),
        C(ci_half_percent); docs/result-record.md). The benchmark role runs the next repetition only while the
        rule says to go on.
    type: dict
  repetitions_earlier:
    description:
      - The primary metric values of this test's earlier runs, in order (null for a failed run), with
        O(repetitions_auto).
    type: list
    elements: raw
    default: []
seealso:
  - module: perflab.network.benchmark_plan
  - module: perflab.network.iperf3
'''

EXAMPLES = r'''
- name: Each test of a plan, as the benchmark role runs it
  perflab.network.bench_test:
    item: "{{ item }}"
    tool_paths: ["/opt/perflab/bin"]
  loop: "{{ plan.runs }}"

- name: The iperf3 UDP test of a plan item
  perflab.network.bench_test:
    tool: iperf3
    test: udp_stream
    server: 10.213.1.11
    parallel: 2
    options: {bitrate: 100}

- name: netperf TCP_RR with 64-byte transactions
  perflab.network.bench_test:
    tool: netperf
    test: tcp_rr
    server: 10.213.1.11
    options: {request_size: 64, response_size: 64}
'''

RETURN = r'''
perflab_held:
  description: With O(hold), the record RV(perflab_result) would hold.
  returned: with O(hold)
  type: list
  elements: dict
perflab_result:
  description:
    - One C(perflab.result/2) record in a list, as the tool's module returns it. Every field is described once, in
      docs/result-record.md in the collection (identity, what ran, where, metrics, intervals, NIC samples, status);
      the tool's module says what is particular to its tool (its metrics, intervals and argv).
    - Also returned when the test failed (with RV(perflab_result[].status=failed); the module fails).
  returned: unless O(hold)
  type: list
  elements: dict
  contains:
    test_id:
      description: The test id (docs/result-record.md), the same ad hoc, from a suite and in a plan-skipped record.
      type: str
      sample: iperf3/udp_stream/bitrate=100/parallel=2
    options:
      description: The tool's own options as given (unset ones left out).
      type: dict
      sample: {test: udp_stream, bitrate: 100.0, omit: 0, zerocopy: false}
    command:
      description: The argv of the (first) client process.
      type: list
      elements: str
      sample: [/usr/bin/iperf3, -c, 10.213.1.11, -p, '5201', -t, '10', -P, '2', -J, --get-server-output, -u, -b, 100M]
    metrics:
      description:
        - Name to C({value, unit, higher_is_better}), combined over processes by each metric's rule (summed rates,
          mean latencies); C(nic_rx_mbps), C(nic_tx_mbps) with O(nic_interface). Which metrics each tool gives is in its module.
      type: dict
      sample: {throughput_mbps: {value: 99.98, unit: Mbit/s, higher_is_better: true}}
    intervals:
      description: Per-interval samples C({t, <metric>...}), C(t) in seconds since the measured start; with several
        processes the i-th samples are combined.
      type: list
      elements: dict
      sample: [{t: 1.0, throughput_mbps: 99.9}, {t: 2.0, throughput_mbps: 100.1}]
    processes:
      description:
        - With O(processes) > 1, each process C({port, metrics, status, error}); else null.
        - C(port) is the server port the process talked to (netperf its server's data port, nuttcp its control port).
      type: list
      elements: dict
      sample: [{port: 5201, metrics: {throughput_mbps: {value: 50.0, unit: Mbit/s, higher_is_better: true}},
                status: ok, error: null}]
    status:
      description: C(ok), C(failed) or C(skipped) (check mode, or an optional test the tool's build cannot run).
      type: str
      sample: ok
    error:
      description: What went wrong in clear text (the tool's own message where it gave one), null when ok.
      type: str
      sample: "port 5201: the server is busy running a test. try again later"
confidence:
  description: netperf only, with C(confidence) among O(options); see M(perflab.network.netperf).
  returned: when netperf ran with confidence
  type: list
  elements: dict
'''

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.perflab.network.plugins.module_utils.tools import registry
from ansible_collections.perflab.network.plugins.module_utils.bench import runner


def main():
    module = AnsibleModule(argument_spec=runner.bench_test_argument_spec(), supports_check_mode=True,
                           **runner.BENCH_TEST_RULES)
    args, errors = runner.bench_test_arguments(module.params)
    if errors:
        module.fail_json(msg='; '.join(errors))
    tool = registry.get(args['tool'])
    params, errors = runner.bench_test_params(tool, args)
    annotate, auto_errors = runner.bench_test_annotator(args)
    if errors or auto_errors:
        module.fail_json(msg='; '.join(errors + auto_errors))
    runner.run_test(module, tool, params, result_key='perflab_held' if args['hold'] else 'perflab_result',
                    annotate=annotate)


if __name__ == '__main__':
    main()
