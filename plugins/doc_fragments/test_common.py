# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

from ansible_collections.perflab.network.plugins.doc_fragments.attributes import ModuleDocFragment as _Every

import yaml


def _merged(own, base):
    """``base`` (a YAML text) with ``own`` (a YAML text) over it, mapping by mapping: ``own`` wins."""
    def merge(mine, theirs):
        if isinstance(mine, dict) and isinstance(theirs, dict):
            out = dict(theirs)
            out.update(dict((key, merge(value, theirs.get(key))) for key, value in mine.items()))
            return out
        return mine
    return yaml.safe_dump(merge(yaml.safe_load(own), yaml.safe_load(base)), default_flow_style=False, width=1000)


_TEST_MODULES = r'''
seealso:
  - module: perflab.network.bench_server
notes:
  - Run the module on the client host; O(server) is the server's data address.
  - The module returns one C(perflab.result/2) record in a list in RV(perflab_result), also when the test failed
    (the module fails then). The record's fields are those of M(perflab.network.bench_test)'s
    RV(perflab.network.bench_test#module:perflab_result), each described once in docs/result-record.md in the
    collection; a tool module's RETURN says only what is particular to its tool.
attributes:
  check_mode:
    support: full
    details:
      - In check mode only the tool's version probe runs; the record has status V(skipped) and the command that would run.
  diff_mode:
    support: N/A
    details:
      - This module changes nothing on the host.
  platform:
    support: full
    platforms: posix
options:
  server:
    description:
      - Data address of the server (an IP address or a host name; shell metacharacters are refused).
    type: str
    required: true
  port:
    description:
      - Server (control) port, 1-65535. The default is the tool's own, which its module's O(port) names.
      - With O(processes) > 1, client process N talks to O(port) + N - 1.
    type: int
  duration:
    description:
      - Test length in seconds, 1-86400.
    type: int
    default: 10
  parallel:
    description:
      - Streams (or threads) inside one client process, 1-128.
    type: int
    default: 1
  processes:
    description:
      - Client processes started at once, 1-64, against O(port), O(port)+1, ...
        (one server per port, see M(perflab.network.bench_server) O(perflab.network.bench_server#module:count)).
      - The record holds the sum and, in RV(perflab.network.bench_test#module:perflab_result[].processes), each process.
    type: int
    default: 1
  timeout:
    description:
      - Seconds before a hung tool is killed with its whole process group.
      - Default O(duration) + tool warm-up + 30.
    type: int
  nic_interface:
    description:
      - Client-side interface whose byte counters are sampled every second during the test
        (cross-check of the tool's throughput, metrics C(nic_rx_mbps) and C(nic_tx_mbps)).
      - With it the same sampler reads what limited the test, for the record's C(limited_by) (its verdict and
        evidence, see the collection's docs/result-record.md) - a short ping to O(server) before the test,
        per-core CPU and the interface's drop/error counters at its start and end, C(ss -tin) of the connections
        to O(server) every second. Without it C(limited_by) says nothing was sampled.
      - Must exist on the host; checked before anything runs.
    type: str
  bind:
    description:
      - Client source address (an IP address or a host name).
    type: str
  run_id:
    description:
      - Identifier of the study run the record belongs to. Generated when omitted.
    type: str
  config:
    description:
      - Configuration label of the record, for example V(Debian 12 stock).
    type: str
    default: ''
  suite:
    description:
      - Suite name of the record.
    type: str
    default: adhoc
  repetition:
    description:
      - Repetition number (1-based) of the record.
    type: int
    default: 1
  client_name:
    description:
      - Inventory name of the client in the record. Defaults to the host name.
    type: str
  server_name:
    description:
      - Inventory name of the server in the record. Defaults to O(server).
    type: str
  test_id:
    description:
      - Stable id of the test in the record, as a suite names it (the benchmark role passes the plan's,
        so that a resumed run finds what is recorded). Default, the module's own id from its options.
    type: str
  title:
    description:
      - The name a suite gives the test (its entry's C(title)), kept in the record; reports put it after
        C(Test:) in the test's title, beside the parameters the tool names.
    type: str
  optional:
    description:
      - The test is optional (a suite entry's C(optional)), a test only some builds of the tool have. Where the
        installed tool cannot run it (its help lacks it, or it refuses it) the record is V(skipped) with the tool's
        reason instead of V(failed), and the module does not fail.
    type: bool
    default: false
  server_interface:
    description:
      - The server's data interface (the benchmark role passes the plan's), kept in the record as C(server.interface);
        the client cannot read it.
    type: str
  server_mtu:
    description:
      - The MTU of the server's data interface when known on the controller, kept as C(server.mtu); the goodput
        ceiling of C(limited_by) uses the smaller of both sides' MTU.
    type: int
  link_mbps:
    description:
      - The speed of the link the test crosses, in Mbit/s (a shaped link's rate, or a path slower than the
        NIC), kept in the record as C(client.link_mbps); reports show throughput as a share of it.
      - Default, the speed the kernel reports for O(nic_interface) (C(/sys/class/net/<interface>/speed),
        what C(ethtool) shows), when the interface is given and reports one.
    type: float
  parallel_values:
    description:
      - The parallel values of a suite this one test stands for, when the tool runs them all the same way (ethr's
        latency test runs one connection whatever C(-n) says, so the plan makes one test of a suite's parallel list C([1, 8, 64])).
        The record's note names them all; what runs is O(parallel).
    type: list
    elements: int
  tool_paths:
    description:
      - Absolute folders searched for the tool's client executable after PATH, before C(/usr/local/sbin),
        C(/usr/local/bin), C(/usr/sbin), C(/usr/bin), C(/sbin), C(/bin), C(/opt/perflab/bin) (the tools role's default
        C(tools_prefix)) and C(/opt/ethr); on Windows before C(C:\ProgramData\chocolatey\bin), C(C:\perflab\bin) and
        C(C:\perflab\ethr). Every test module and M(perflab.network.bench_server) look up their tools this one way
        (C(plugins/module_utils/host/process.py) C(search_dirs)); the benchmark role passes C(benchmark_tool_paths) and the
        tools role's C(<tools_prefix>/bin).
      - A relative folder is refused; a tool found nowhere fails the module naming every folder looked in.
    type: list
    elements: str
'''


class ModuleDocFragment(object):
    """The fragment every test module (each tool's and bench_test) lists alone: its common options
    (plugins/module_utils/core/common_args.py TEST_COMMON_ARGS), its attributes and what it returns, written once
    (_TEST_MODULES), with the attributes fragment's text under it. The test modules measure and change nothing;
    in check mode only the tool's version probe runs."""


# A test module lists only this fragment, which holds what every module shares (the attributes fragment) too.
# Set after the class: ansible-test's yamllint takes each assignment of a fragment class's body for a YAML literal.
ModuleDocFragment.DOCUMENTATION = _merged(_TEST_MODULES, _Every.DOCUMENTATION)
