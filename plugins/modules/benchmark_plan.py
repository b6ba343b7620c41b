#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

DOCUMENTATION = r'''
---
module: benchmark_plan
short_description: Expand a benchmark suite over host pairs into the plan of a study run
version_added: 0.1.0
description:
  - Runs on the controller (the benchmark role calls it once, before any host changes).
  - Loads a suite (by name from O(suite_paths) or from a file), validates it, applies overrides,
    pairs clients with servers (groups with C(perflab_peer), an explicit list, or every pair),
    gives each pair its own server ports, and expands tests x pairs x repetitions into items.
  - With O(run_id) of an earlier run, tests its results file already holds (status ok, same
    configuration label) are left out, so an interrupted run resumes with only what is missing.
    The file is read as the report reads it, and the resume is refused, naming what differs, when the
    run recorded other test parameters than this plan asks for (the suite, pairs it does not plan, tests
    it does not plan, more repetitions, another duration, other options).
  - Pairs with a host of O(failed_hosts) (it failed or became unreachable in an earlier stage) are not
    run. Each of their planned tests becomes a record with status C(failed) and the host's reason, in
    RV(perflab_result); the other pairs are planned as usual.
  - Tests whose tool is missing on the client or the server (per O(tools_present)) become records
    with status C(skipped) and the reason, returned in RV(perflab_result).
  - Every problem (an unknown suite or test, an empty suite, an override out of range, a client without
    a server, two pairs sharing one iperf3 port) fails the module with a message naming it.
extends_documentation_fragment:
  - perflab.network.attributes.info_module
  - perflab.network.attributes
options:
  suite:
    description: Suite name (a file C(<name>.yml) in O(suite_paths)) or a path to a suite file.
    type: str
    required: true
  suite_paths:
    description: Folders searched for suites by name, in order.
    type: list
    elements: path
    default: []
  duration:
    description: Override every test's duration in seconds (1 to 3600).
    type: int
  repetitions:
    description:
      - Override every test's repetitions, 1 to 100, or C(auto) (or a rule mapping, as O(repetitions_auto)),
        repeat each test until the 95 % confidence interval of its primary metric's mean is within a share of
        the mean, between a minimum and a maximum of runs (docs/studies.md, "Repetitions").
      - An auto test is planned up to its maximum; the benchmark role stops it when the rule says so.
    type: raw
  repetitions_auto:
    description:
      - The rule of every auto test, C({min, max, ci_percent}) (any of them; defaults 3, 10, 5), winning over a
        suite's rule mapping. C(min) and C(max) 2 to 100, C(min) at most C(max); C(ci_percent) above 0 and at most 100.
    type: dict
    default: {}
  parallel:
    description: Replace every test's list of parallel streams/threads.
    type: list
    elements: int
  tools:
    description: Keep only these tools' tests (names of the collection's tool registry; an unknown one is refused).
    type: list
    elements: str
  hosts:
    description:
      - Inventory data per host, name to C({data_address, data_interface, peer, switch, os_family}).
      - C(os_family) (the fact C(ansible_os_family), when gathered) - on a C(Windows) host the tests of a tool
        without a Windows build (netperf) become skipped records saying so.
      - C(switch) (the host var C(perflab_switch)) names the switch of the host's data link; hosts
        that name none share one unnamed switch. Only O(serialize_pairs) uses it.
      - C(tool_paths) (the benchmark role's C(benchmark_tool_paths) and C(<tools_prefix>/bin)) and
        C(windows_tool_paths) (C(benchmark_windows_tool_paths)), the folders a host's tools are looked for in after
        PATH - a folder that is not an absolute path refuses the plan; the skipped record of a tool not found names them.
    type: dict
    required: true
  inventory:
    description:
      - Every host name of the inventory. O(hosts) holds the hosts of this run; a pair's host that is in the
        inventory but not in O(hosts) (left out by C(--limit)) is refused with a message saying so.
    type: list
    elements: str
    default: []
  servers:
    description: Members of the servers group.
    type: list
    elements: str
    default: []
  clients:
    description: Members of the clients group; each pairs with its C(peer), or the only server.
    type: list
    elements: str
    default: []
  pairs:
    description: Explicit pairs C({client, server}); replaces the groups.
    type: list
    elements: dict
    default: []
  mesh:
    description: Every ordered pair of distinct hosts among servers and clients.
    type: bool
    default: false
  labels:
    description:
      - Configuration label per host. A pair's records take the label of the side under test
        (O(system_under_test)).
    type: dict
    default: {}
  run_suites:
    description:
      - The suites a study runs under one run id, one after another (the OSv study's C(osv-netperf), then
        C(osv-netperf-udp)). A resume then checks this suite's records against this plan and takes the
        records of the other suites named here for other parts of the run; a suite not named here in the
        run's file is refused as another study.
    type: list
    elements: str
    default: []
  reverse_pairs:
    description:
      - Run each pair the other way round - the host the groups (or O(pairs)) make the server runs the
        client and sends (the OSv study's UDP_STREAM sent from the system under test, a server).
      - The side under test follows its hosts - O(system_under_test=servers) then labels by the clients
        of the reversed pairs.
    type: bool
    default: false
  system_under_test:
    description:
      - The side of the pairs the study changes and labels - V(servers), V(clients) or V(both).
      - With V(both), a pair whose two hosts carry different labels is labelled C(<client label> / <server label>).
    type: str
    choices: [servers, clients, both]
    default: both
  run_id:
    description: Run id; an earlier run's id resumes it. Generated when empty.
    type: str
  results_dir:
    description: Folder of the results files (C(<run_id>.jsonl)), read for resume; a system directory (C(/etc), C(/usr/lib), ...) is refused.
    type: path
    default: results
  failed_hosts:
    description:
      - Hosts of the study that failed before the tests, host name to the reason (empty when unknown). Their
        pairs' tests are recorded failed with the reason instead of being run; their labels are not needed.
    type: dict
    default: {}
  preflight_left_out:
    description:
      - A fleet's second plan, after its preflight (the benchmark role's C(plan.yml)) - what the preflight left
        out, C(hosts) (host name to reason) and C(pairs) (a list of C(client), C(server), C(reason)), from the
        C(perflab.network.fleet_preflight) filter. The hosts are left out as those of O(failed_hosts) are and the links are taken out of their
        rounds; all their tests are recorded C(skipped) with the reason.
      - RV(perflab_result) then holds only the records of the tests the preflight left out (the first plan
        recorded the others), and RV(skipped_tests) counts every test this plan skips.
      - Empty (the default) - the first plan. Only with O(fleet).
    type: dict
    default: {}
  tools_present:
    description:
      - Tools found per host, host name to a list of tool names or of their executables' names (C(iperf),
        C(netserver)); omitted hosts are taken to have all.
    type: dict
    default: {}
  configurations:
    description:
      - How many configurations the study runs these tests in (C(stock_vs_tuned.yml) runs stock and tuned, 2),
        so that the results callback counts and estimates over the whole study from the first test on.
    type: int
    default: 1
  design:
    description:
      - The study's design and this run's block in it (C(playbooks/stages/stock_vs_tuned.yml), the
        C(study_design) filter), C({design, order, order_name, seed, block, state, repetition, switch_s}).
      - C(design=interleaved) plans only repetition C(repetition) of each test (the block runs one repetition of
        every test in one configuration) and refuses C(repetitions=auto), whose rule decides after each run
        whether another follows. Returned in RV(perflab_plan), whence the results callback writes it into every
        record of the run (C(design), C(design_order), C(design_block), C(design_seed), C(design_switch_s)).
      - Empty (the default) - every repetition, no design in the records.
    type: dict
    default: {}
  fleet:
    description:
      - A fleet schedule instead of the pairs (docs/studies.md, "Fleet validation"), C({schedule, hub, stress,
        slice_number, slice_count, hosts, slice_scope}); empty (the default) plans the pairs as before.
      - C(schedule) - V(mesh) (every ordered pair), V(one_to_many) (C(hub) sends to every other host),
        V(many_to_one) (every other host sends to C(hub)) or V(ring) (each host with its neighbours, both ways),
        over the hosts of O(hosts) in name order.
      - The tests run in rounds in which no host takes part in two tests (the mesh's rounds are a round-robin
        tournament, each pairing once each way); each pair's C(wave) is its round, the benchmark role runs the
        rounds one after another and a round's tests at once. C(stress=true) runs every test in one round.
      - A host of O(failed_hosts) (unreachable, or it failed an earlier stage) is left out; its tests become
        records with status C(skipped) and the reason, and the rounds are made among the others.
      - C(slice_number), C(slice_count) and C(hosts) (every host of the fleet) - the AWX job slice this run is
        (its inventory holds only its own hosts); a test between two slices refuses the plan, unless
        C(slice_scope=inside), which makes the schedule inside the slice. Without C(slice_number), the slice
        whose hosts the play holds (AWX gives every slice's job the same variables).
    type: dict
    default: {}
  unmanaged:
    description:
      - >-
        The servers we do not manage (inventory group C(perflab_unmanaged), a netserver or iperf3 server already
        listening at an address, reached without SSH, such as an OSv appliance),
        C({host: {servers, label, system_label, vcpus}}). C(servers) (the host's C(perflab_unmanaged_servers)),
        C({tool: port}) or C({tool: {port, count}}), are the tools whose servers the user says listen there and on
        which port (C(count) consecutive ones for tests of several processes). The host's label is C(label)
        (C(perflab_config_label)), else C([<system_label> ]<host>[ <vcpus> vCPU] unmanaged).
      - Nothing is started, stopped or opened on such a host (RV(servers) entries carry C(unmanaged=true), RV(firewall)
        leaves them out); the client's connect check still proves each one listens. The plan is refused, naming
        what is missing, when a test needs a server the user did not declare, on another port, or more of them
        than declared.
      - A test whose client would run on such a host (a reversed pair, the data sent from the appliance) cannot run
        there. It is recorded C(skipped) with the reason (no SSH to the host, nothing can be started there), and the
        other tests run.
    type: dict
    default: {}
  serialize_pairs:
    description:
      - Pairs whose links share a switch (the client's or the server's C(switch), see O(hosts)) run one
        after another instead of at once; pairs on disjoint switches still run side by side.
      - The plan puts each client in a wave (RV(client_waves)); the benchmark role runs the waves in order.
      - Without it every client is in wave 0.
    type: bool
    default: false
'''

EXAMPLES = r'''
- name: Plan the quick suite over the inventory's pairs
  perflab.network.benchmark_plan:
    suite: quick
    suite_paths: ["{{ role_path }}/files/suites"]
    hosts: "{{ dict(groups.all | zip(groups.all | map('extract', hostvars) | map(attribute='perflab_data_address'))) }}"
    servers: "{{ groups.perflab_servers }}"
    clients: "{{ groups.perflab_clients }}"
  delegate_to: localhost
  run_once: true
  register: plan
'''

RETURN = r'''
run_id:
  description: The run id (given, or generated).
  returned: success
  type: str
  sample: 20261129T190000Z-3f2a
suite:
  description: Name and file of the suite.
  returned: success
  type: dict
  sample: {name: quick, file: roles/benchmark/files/suites/quick.yml}
runs:
  description:
    - Tests to run, one per test x pair x repetition, in order.
    - An auto test's items (up to its maximum) carry C(repetitions_auto), its rule C({min, max, ci_percent}), and
      C(repetitions_earlier), the values a resumed run recorded for it; a fixed test's C(repetitions_auto) is null.
    - C(bind) is the source address the client binds, its C(client_address), or null for a tool whose client
      cannot bind one (nuttcp, whose tool file says C(client_bind = False)).
  returned: success
  type: list
  elements: dict
  sample:
    - {tool: iperf3, test: tcp_stream, parallel: 4, processes: 1, duration: 3, repetition: 1, options: {},
       test_id: iperf3/tcp_stream/parallel=4, pair: lab2->lab1, client: lab2, server: lab1,
       server_address: 10.213.1.11, client_address: 10.213.1.12, bind: 10.213.1.12, client_interface: data0, port: 5201,
       config: Debian 12 stock, optional: false}
servers:
  description:
    - Servers to start per pair, C({pair, client, server, server_address, client_address, tool, port, count,
      bench_server}).
    - C(bench_server) is the group as M(perflab.network.bench_server)'s O(perflab.network.bench_server#module:servers)
      takes it, C({tool, bind, port, count}).
  returned: success
  type: list
  elements: dict
pairs:
  description: The pairs with their ports, the switches their links cross and their wave.
  returned: success
  type: list
  elements: dict
fleet:
  description:
    - The fleet's plan when O(fleet) asked for one (C(perflab.network.fleet_plan)'s result), with C(rounds) (each
      C({round, tests}), a test C({client, server})), C(skipped) (the tests of hosts left out, with the reason),
      C(expected_s) and C(slice); null otherwise.
  returned: success
  type: dict
unmanaged:
  description: The servers of the plan that we do not manage (O(unmanaged)) and their labels.
  returned: success
  type: dict
  sample: {osv1: OSv 0.57 1 vCPU}
waves:
  description: Number of waves the clients run in (1 unless O(serialize_pairs) splits them).
  returned: success
  type: int
  sample: 1
client_waves:
  description: Wave of each client (0-based); the clients of one wave run at once, the waves one after another.
  returned: success
  type: dict
  sample: {lab2: 0, lab4: 1}
firewall:
  description:
    - Per server host, exactly the openings the plan's servers need, each scoped to the client that uses
      them (its data address); for the C(perflab.network.firewall) role's C(firewall_ports) and
      C(firewall_peer_addresses). The ports come from each tool's registry file.
  returned: success
  type: dict
  sample: {lab1: [{peer: 10.213.1.12, port: 5201, end_port: 5201, protocol: tcp},
                  {peer: 10.213.1.12, port: 5201, end_port: 5201, protocol: udp}]}
connect:
  description:
    - Per client, every TCP port of the openings of its servers, each once; the benchmark role's preflight
      connects to each from the client (C(perflab.network.bench_preflight) O(perflab.network.bench_preflight#module:connect)).
  returned: success
  type: dict
  sample: {lab2: [{address: 10.213.1.11, port: 5201, server: lab1}, {address: 10.213.1.11, port: 12865, server: lab1}]}
perflab_plan:
  description:
    - Plan size for progress lines, C({run_id, total_tests, expected_duration_s, skipped_done, configurations, labels}),
      the most repetitions a test of the suite has (C(repetitions)), O(design) when given (C(design)) and the
      AWX job slice of a sliced fleet (C(fleet_slice), C({number, count, hosts, scope}), else null), which the
      results callback writes into every record of the run.
  returned: success
  type: dict
  sample: {run_id: 20261129T190000Z-3f2a, total_tests: 9, expected_duration_s: 45, skipped_done: 0, configurations: 2,
           labels: [Debian 12 stock]}
perflab_result:
  description:
    - Records with status C(skipped) for tests whose tool is missing, and with status C(failed) for the tests
      of pairs with a host of O(failed_hosts).
    - A fleet's second plan (O(preflight_left_out)) - only the records of the tests its preflight left out.
  returned: success
  type: list
  elements: dict
skipped_tests:
  description: How many planned tests this plan skips (a fleet's second plan counts those the first recorded too).
  returned: success
  type: int
  sample: 10
summary:
  description: The plan in words, one line each.
  returned: success
  type: list
  elements: str
'''

import os

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.common.yaml import yaml_load
from ansible_collections.perflab.network.plugins.module_utils.core import common_args
from ansible_collections.perflab.network.plugins.module_utils.plan import fleet as fleets
from ansible_collections.perflab.network.plugins.module_utils.core import names
from ansible_collections.perflab.network.plugins.module_utils.plan import suite as suites
from ansible_collections.perflab.network.plugins.module_utils.core import record as records
from ansible_collections.perflab.network.plugins.module_utils.plan import records as plan_records
from ansible_collections.perflab.network.plugins.module_utils.tools import registry
from ansible_collections.perflab.network.plugins.module_utils.plan import study
from ansible_collections.perflab.network.plugins.module_utils.host.windows import WindowsHost
from ansible_collections.perflab.network.plugins.module_utils.report import store


def tools_on(found):
    """The tools a host has, from the executables found there (tool or executable names; a Windows
    host's C(.exe) names count without the suffix)."""
    found = set(name[:-4] if name.lower().endswith('.exe') else name for name in (found or []))
    return set(name for name, tool in registry.TOOLS.items()
               if name in found or tool.client_executable in found or tool.server_executable in found)


def tool_paths_problems(hosts):
    """The hosts' tool folders that are not absolute paths (each OS's rule), one message each."""
    problems = []
    for name in sorted(hosts):
        facts = hosts[name] or {}
        windows = facts.get('os_family') == 'Windows'
        for key, variable, isabs in (
                ('tool_paths', 'benchmark_windows_tool_paths' if windows else 'benchmark_tool_paths',
                 WindowsHost.path_is_absolute if windows else None),
                ('windows_tool_paths', 'benchmark_windows_tool_paths', WindowsHost.path_is_absolute)):
            problems += ['%s: %s' % (name, error) for error in common_args.tool_paths_errors(facts.get(key), variable, isabs)]
    return problems


def skipped_record(item, run_id, suite_name, reason):
    """The record of a planned test that will not run: the same test, protocol and id as a run would give."""
    return plan_records.planned_record(item, 'skipped', reason, run_id=run_id, suite_name=suite_name)


def argument_spec():
    return dict(
        suite=dict(type='str', required=True),
        suite_paths=dict(type='list', elements='path', default=[]),
        duration=dict(type='int'),
        repetitions=dict(type='raw'),
        repetitions_auto=dict(type='dict', default={}),
        parallel=dict(type='list', elements='int'),
        tools=dict(type='list', elements='str'),
        hosts=dict(type='dict', required=True),
        inventory=dict(type='list', elements='str', default=[]),
        servers=dict(type='list', elements='str', default=[]),
        clients=dict(type='list', elements='str', default=[]),
        pairs=dict(type='list', elements='dict', default=[]),
        mesh=dict(type='bool', default=False),
        labels=dict(type='dict', default={}),
        system_under_test=dict(type='str', choices=['servers', 'clients', 'both'], default='both'),
        reverse_pairs=dict(type='bool', default=False),
        run_suites=dict(type='list', elements='str', default=[]),
        run_id=dict(type='str'),
        results_dir=dict(type='path', default='results'),
        tools_present=dict(type='dict', default={}),
        failed_hosts=dict(type='dict', default={}),
        preflight_left_out=dict(type='dict', default={}),
        serialize_pairs=dict(type='bool', default=False),
        fleet=dict(type='dict', default={}),
        configurations=dict(type='int', default=1),
        design=dict(type='dict', default={}),
        unmanaged=dict(type='dict', default={}),
    )


def main():
    module = AnsibleModule(
        argument_spec=argument_spec(),
        supports_check_mode=True,
    )
    p = module.params
    # the one resolution of the results directory (the study playbooks pass it resolved already)
    p['results_dir'] = names.user_path(p['results_dir'])
    run_id = p['run_id'] or records.new_run_id()
    # reversed pairs: the hosts under test stay the same, their side of the pairs swaps
    side = study.flip_side(p['system_under_test']) if p['reverse_pairs'] else p['system_under_test']
    try:
        # each input checked once, the first problem refuses the plan
        # the role's variable named too: benchmark_tools is what a user of the role wrote
        problems = [registry.unknown_problem(p['tools'] or [], 'tools (benchmark_tools)'),
                    names.name_problem('run_id', p['run_id']) if p['run_id'] else None,
                    '; '.join(tool_paths_problems(p['hosts'])),
                    names.system_path_problem('results_dir', p['results_dir'])]
        for problem in problems:
            if problem:
                raise suites.PlanError(problem)
        path = suites.find_suite(p['suite'], p['suite_paths'])
        suite = suites.read_suite(path, yaml_load)
        notes = []
        tests = suites.expand_suite(suite, duration=p['duration'], repetitions=p['repetitions'],
                                    parallel=p['parallel'], tools=p['tools'], notes=notes,
                                    repetitions_auto=p['repetitions_auto'])
        design = p['design'] or {}
        block_repetition = int(design.get('repetition') or 0) if design.get('design') == 'interleaved' else 0
        if design.get('design') == 'interleaved':
            auto = sorted(set(t['test_id'] for t in tests if t.get('repetitions_auto')))
            if auto:
                raise suites.PlanError(
                    'repetitions auto cannot be interleaved (%s): its rule decides after each run whether another '
                    'follows; give the suite a number of repetitions or perflab_design=sequential' % ', '.join(auto))
        failed = dict((host, str(reason or '')) for host, reason in p['failed_hosts'].items())
        earlier_failed = set(failed)
        preflight = p['preflight_left_out'] or {}
        if preflight and not p['fleet']:
            raise suites.PlanError('preflight_left_out is a fleet\'s second plan: give fleet too')
        # a fleet's second plan: the hosts its preflight left out, as those that failed earlier
        failed.update((host, str(reason or '')) for host, reason in (preflight.get('hosts') or {}).items())
        suites.check_explicit_ports(p['pairs'])
        fleet_plan, fleet_skipped_pairs = None, []
        if p['fleet']:
            fleet_plan = fleets.plan_from_options(p['fleet'], sorted(p['hosts']), failed, tests,
                                                  suites.TEST_OVERHEAD_S, skip_pairs=fleets.skip_pairs_of(preflight))
            rounds = dict(((t['client'], t['server']), t['round'] - 1) for t in fleet_plan['tests'])
            pairs = suites.make_pairs(p['hosts'], explicit=[{'client': c, 'server': s} for c, s in rounds],
                                      inventory=p['inventory'], slots=rounds)
            for pair in pairs:
                pair['wave'] = rounds[(pair['client'], pair['server'])]
                pair['switches'] = suites.pair_switches(pair, p['hosts'])
            client_waves = dict((pair['client'], min(q['wave'] for q in pairs if q['client'] == pair['client']))
                                for pair in pairs)
            # the tests of hosts left out: planned as pairs, then recorded skipped (below)
            fleet_skipped_pairs = suites.make_pairs(
                p['hosts'], explicit=[{'client': t['client'], 'server': t['server']} for t in fleet_plan['skipped']],
                inventory=p['inventory']) if fleet_plan['skipped'] else []
        else:
            pairs = suites.make_pairs(p['hosts'], servers=p['servers'], clients=p['clients'],
                                      explicit=p['pairs'], mesh=p['mesh'], reverse=p['reverse_pairs'],
                                      inventory=p['inventory'])
        for pair in pairs:
            explicit = [e for e in p['pairs'] if (e.get('client'), e.get('server')) == (pair['client'], pair['server'])]
            if explicit and explicit[0].get('ports'):
                pair['ports'].update(dict((k, int(v)) for k, v in explicit[0]['ports'].items()))
        if not p['fleet']:
            client_waves = suites.schedule_waves(pairs, p['hosts'], serialize=p['serialize_pairs'])
        suite_name = suite.get('name', p['suite'])
        # a resume: the run's file read through the report's store, the same test parameters asked
        recorded = store.read_run(os.path.join(p['results_dir'], run_id + '.jsonl')) if p['run_id'] else []
        # a fleet's skipped tests are planned too (recorded skipped): a second plan, or a resume, reads them back
        differ = suites.resume_problems(tests, pairs + fleet_skipped_pairs, recorded, suite_name,
                                        other_suites=set(p['run_suites']) - set([suite_name, p['suite']]))
        if differ:
            raise suites.PlanError(
                'run %s cannot be resumed: its results file holds runs made with other test parameters (%s). '
                'A resume must ask for what the run measured; give another perflab_run_id for a new run'
                % (run_id, '; '.join(differ)))
        for host, given in p['unmanaged'].items():
            given = given or {}
            # no facts of a host we do not manage: the label the user gave, else its name
            p['labels'].setdefault(host, study.unmanaged_label(host, given.get('label'), given.get('system_label'),
                                                               given.get('vcpus')))
        items, skipped_done = suites.build_plan(tests, pairs, plan_records.failed_host_labels(p['labels'], pairs, failed),
                                                suites.recorded_keys(recorded), side=side,
                                                recorded=suites.recorded_values(recorded),
                                                # an interleaved block: one repetition of every test
                                                repetition=block_repetition)
        fleet_skipped, fleet_skipped_count = [], 0
        if fleet_skipped_pairs:
            reasons = dict(((t['client'], t['server']), t['reason']) for t in fleet_plan['skipped'])
            left_items, dummy = suites.build_plan(tests, fleet_skipped_pairs,
                                                  plan_records.failed_host_labels(p['labels'], fleet_skipped_pairs, failed),
                                                  side=side, repetition=block_repetition)
            # a second plan records only what its preflight left out: the first recorded the rest
            new = fleets.preflight_new_skips(fleet_plan['skipped'], earlier_failed, preflight) if preflight else None
            fleet_skipped = [skipped_record(item, run_id, suite_name, reasons[(item['client'], item['server'])])
                             for item in left_items if new is None or (item['client'], item['server']) in new]
            fleet_skipped_count = len(left_items)
    except (suites.PlanError, fleets.FleetError, store.SchemaError, IOError, OSError, ValueError, TypeError) as exc:
        module.fail_json(msg='benchmark plan refused: %s' % exc)

    skipped, runnable, unrun = list(fleet_skipped), [], []
    for item in items:
        lost = [h for h in (item['client'], item['server']) if h in failed]
        if lost:
            unrun.append(plan_records.planned_record(item, 'failed', plan_records.host_failure(lost, failed, item),
                                                     run_id=run_id, suite_name=suite_name))
            continue
        windows = [h for h in (item['client'], item['server'])
                   if (p['hosts'].get(h) or {}).get('os_family') == 'Windows' and not registry.get(item['tool']).windows]
        missing = [h for h in (item['client'], item['server'])
                   if h in p['tools_present'] and item['tool'] not in tools_on(p['tools_present'][h])]
        not_managed = suites.unmanaged_client(item, p['unmanaged'])
        if not_managed:
            skipped.append(skipped_record(item, run_id, suite_name, not_managed))
        elif windows:
            skipped.append(skipped_record(item, run_id, suite.get('name', p['suite']),
                                          '%s has no Windows build: its tests are left out on %s'
                                          % (item['tool'], ' and '.join(windows))))
        elif missing:
            reason = '%s is not installed on %s' % (item['tool'], ' and '.join(
                '%s (looked on PATH, in %s and the usual folders)' % (h, ', '.join(p['hosts'][h]['tool_paths']))
                if (p['hosts'].get(h) or {}).get('tool_paths') else h for h in missing))
            if item['tool'] == 'ethr':
                reason += ' (no package registry has ethr: give the tools role tools_ethr_src)'
            else:
                reason += ' (install it with the perflab.network.tools role)'
            skipped.append(skipped_record(item, run_id, suite.get('name', p['suite']), reason))
        else:
            runnable.append(item)
    for item in runnable:
        item['run_id'] = run_id
        item['suite'] = suite.get('name', p['suite'])
        # the tool's server log can show that a test's values are wrong (ethr out of file descriptors):
        # the benchmark role reads it after each such test
        # (not where the server is not ours: its log is not ours to read)
        item['check_server_log'] = bool(registry.get(item['tool']).server_log_problems) \
            and item['server'] not in p['unmanaged']
    servers = suites.servers_needed(runnable, pairs)
    try:
        suites.unmanaged_servers(servers, p['unmanaged'])
        suites.check_port_overlaps(servers)
    except suites.PlanError as exc:
        module.fail_json(msg='benchmark plan refused: %s' % exc)
    skipped_count = len(skipped) - len(fleet_skipped) + fleet_skipped_count
    expected = suites.expected_duration(runnable)
    waves = max([pair.get('wave', 0) for pair in pairs] or [0]) + 1
    summary = ['suite %s (%s): %d tests x %d pair(s) -> %d runs to do, %d already recorded, %d skipped'
               % (suite.get('name', p['suite']), path, len(tests), len(pairs), len(runnable), skipped_done, skipped_count)
               + (', %d not run (a host failed)' % len(unrun) if unrun else ''),
               'expected duration: about %d min %02d s' % (expected // 60, expected % 60),
               'run id: %s' % run_id,
               'results: %s' % os.path.join(p['results_dir'], run_id + '.jsonl')]
    if design.get('design') == 'interleaved':
        summary.append('design interleaved: block %s of %d (%s), repetition %d of every test'
                       % (design.get('block'), len(design.get('order') or []), ' '.join(design.get('order') or []),
                          block_repetition))
    summary += notes
    summary += ['%s: repetitions auto, %d to %d runs until the 95 %% confidence interval is within %g %% of the mean'
                % (t['test_id'], t['repetitions_auto']['min'], t['repetitions_auto']['max'],
                   t['repetitions_auto']['ci_percent']) for t in tests if t.get('repetitions_auto')]
    if fleet_plan:
        summary += fleet_plan['summary']
    if p['serialize_pairs'] and not fleet_plan:
        summary.append('pairs sharing a switch run one after another: %d wave(s)' % waves)
    for pair in pairs:
        ports = ['%s port %d' % (s['tool'], s['port']) for s in servers if s['pair'] == pair['name']]
        where = ' (wave %d, switch %s)' % (pair['wave'] + 1, ', '.join(sw or '(unnamed)' for sw in pair['switches'])) \
            if p['serialize_pairs'] and not fleet_plan else ''
        summary.append('pair %s: %s%s' % (pair['name'], ', '.join(ports), where))
    # a fleet's plan names the hosts left out once, not each of their tests
    summary += ['skipped %s on %s->%s: %s' % (r['test_id'], r['client']['name'], r['server']['name'], r['error'])
                for r in skipped if not fleet_plan]
    summary += sorted(set(r['error'] for r in unrun))
    module.exit_json(
        changed=False, run_id=run_id, suite={'name': suite.get('name', p['suite']), 'file': path},
        runs=runnable, servers=servers, pairs=pairs, summary=summary,
        # a fleet's second plan (preflight_left_out) records only the tests its preflight left out
        perflab_result=fleet_skipped if preflight else skipped + unrun,
        # not "skipped": Ansible takes that key as the task itself skipped (and no callback sees its records)
        skipped_tests=skipped_count,
        firewall=suites.firewall_openings(servers),
        connect=suites.connect_checks(servers),
        waves=waves, client_waves=client_waves, fleet=fleet_plan,
        # the servers we do not manage of this plan and their labels (their system profile says what is unknown)
        unmanaged=dict((host, p['labels'][host]) for host in sorted(set(s['server'] for s in servers if s.get('unmanaged')))),
        perflab_plan={'run_id': run_id, 'total_tests': len(runnable) + len(skipped) + len(unrun),
                      'expected_duration_s': expected, 'skipped_done': skipped_done,
                      # progress over the whole study: this plan's tests run in that many configurations
                      'configurations': p['configurations'],
                      'repetitions': max([int(t.get('repetitions') or 1) for t in tests] or [1]),
                      'design': dict(design) if design else None,
                      # an AWX job slice of a fleet: the callback writes it into every record of the run
                      'fleet_slice': fleet_plan['slice'] if fleet_plan else None,
                      'labels': sorted(set(str(study.pair_label(p['labels'], pair['client'], pair['server'], side))
                                           for pair in pairs))})


if __name__ == '__main__':
    main()
