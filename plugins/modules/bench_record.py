#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

DOCUMENTATION = r'''
---
module: bench_record
short_description: Emit the benchmark role's records that no test module returns
version_added: 0.1.0
description:
  - Returns records as RV(perflab_result), which the results callback stores, for three cases of the benchmark role,
    and in RV(perflab_finished) every record of the call, the one list of a run's records the role keeps.
  - With O(items) and O(reason), a record with status C(failed) for each plan item (of
    M(perflab.network.benchmark_plan)'s RV(perflab.network.benchmark_plan#module:runs)) that has no record
    among O(done) yet, so that the report says why a planned test did not run when a stage before it failed
    (for example starting the test servers).
  - With O(records), the records M(perflab.network.bench_test) held back (its O(perflab.network.bench_test#module:hold)),
    amended with what the logs of their servers showed (O(servers), M(perflab.network.bench_server) with
    C(state=status)); a test whose server hit a limit the tool's registry file names (ethr's open-files limit)
    becomes C(failed) and says so in its C(notes), its values kept.
  - With O(results), a failed record for each test that did not start.
  - Pure, runs on the controller and changes nothing. Its action plugin runs it in the controller's worker
    process, without starting a module (the role calls it a few times per client and round).
extends_documentation_fragment:
  - perflab.network.attributes.controller_action
  - perflab.network.attributes
attributes:
  platform:
    details: It runs on the controller (the benchmark role delegates it to localhost); the hosts its records name can be any OS.
options:
  items:
    description: Plan items (with O(reason)) to record as failed.
    type: list
    elements: dict
    default: []
  reason:
    description: Why the O(items) did not run (the failed stage and its message).
    type: str
    default: a stage before the tests failed
  done:
    description: Records that exist already; the items they are the records of are left out.
    type: list
    elements: dict
    default: []
  records:
    description: Records held back by M(perflab.network.bench_test) (its RV(perflab.network.bench_test#module:perflab_held)).
    type: list
    elements: dict
    default: []
  servers:
    description: RV(perflab.network.bench_server#module:servers) of the O(records)' servers, from C(state=status).
    type: list
    elements: dict
    default: []
  server_error:
    description: Why the server's log could not be read (the records get a note saying it was not checked).
    type: str
  sampled:
    description:
      - The server side of the O(records) for their C(limited_by), by the server's name (the record's
        C(server.name)), RV(perflab.network.bench_server#module:sampled) of C(state=status) or C(state=stopped)
        with O(perflab.network.bench_server#module:sample_interface). Each record takes the server's samples of
        its own test's seconds, the server's interface, MTU and link speed, and its C(limited_by) is judged
        again with both sides.
    type: dict
    default: {}
  amend:
    description:
      - The O(records) were stored already (the role's copies of them, RV(perflab_finished)). With O(sampled),
        return in RV(perflab_result) an amendment of each whose server was sampled, a C(perflab.amendment/1) line
        (its identity, its C(server) with the interface, MTU and link speed, its C(limited_by) judged again with
        both sides), which the results store puts into the stored record (docs/result-record.md); a run that stops
        before it keeps the records as first stored. RV(perflab_finished) is then empty.
      - The benchmark role does this once after a client's tests, with what stopping their servers read of each
        server host's sampler (no round trip per test, none of its own).
    type: bool
    default: false
  results:
    description:
      - Registered results of M(perflab.network.bench_test), each with its plan item as C(item) (a loop's
        C(results)). A test that failed before its tool ran (no record, its module refused an option) gets a
        failed record saying so; one whose host became unreachable gets none (a resumed run does it). The
        records the others returned are in RV(perflab_finished), not stored again.
    type: list
    elements: dict
    default: []
'''

EXAMPLES = r'''
- name: Record the planned tests that did not run
  perflab.network.bench_record:
    items: "{{ __items }}"
    reason: "Start the test servers failed: port 5201 is already in use"
    done: "{{ __records_so_far }}"
  delegate_to: localhost

- name: Store a held ethr record with what its server's log showed
  perflab.network.bench_record:
    records: "{{ __held.perflab_held }}"
    servers: "{{ __server_status.servers }}"
  delegate_to: localhost

- name: Amend the stored records with the server side's samples, read once after the tests
  perflab.network.bench_record:
    records: "{{ __records_so_far }}"
    sampled: "{{ {'lab1': __server_status.sampled} }}"
    amend: true
  delegate_to: localhost

- name: Record the tests of a loop that failed to start, and keep every record of the loop
  perflab.network.bench_record:
    results: "{{ __tests.results }}"
  delegate_to: localhost
  register: __recorded
'''

RETURN = r'''
perflab_result:
  description: The records this call made, for the results callback to store (C(perflab.result/2), see docs/result-record.md).
  returned: always
  type: list
  elements: dict
perflab_finished:
  description: The records of the O(results) that returned one (stored already) and RV(perflab_result).
  returned: always
  type: list
  elements: dict
'''

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.perflab.network.plugins.module_utils.plan import records as plan_records


def main():
    module = AnsibleModule(
        argument_spec=plan_records.finish_argument_spec(),
        supports_check_mode=True,
    )
    result = plan_records.finish_result(module.params)
    if result.get('failed'):
        module.fail_json(**result)
    module.exit_json(**result)


if __name__ == '__main__':
    main()
