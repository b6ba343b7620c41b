# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The one test runner every test module calls.

validate -> find the tool -> read its version -> build the argvs -> (check mode: a
skipped record) -> run the client processes at once with one timeout rule (the
whole process group is killed) while the NIC counters are sampled -> parse each
process -> combine -> one record. The tool's registry file says what differs.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.common.arg_spec import ArgumentSpecValidator

from ansible_collections.perflab.network.plugins.module_utils.core import common_args
from ansible_collections.perflab.network.plugins.module_utils.core import common_window as cw
from ansible_collections.perflab.network.plugins.module_utils.host import platform as host_platform
from ansible_collections.perflab.network.plugins.module_utils.core import limits
from ansible_collections.perflab.network.plugins.module_utils.bench import preflight
from ansible_collections.perflab.network.plugins.module_utils.host import process
from ansible_collections.perflab.network.plugins.module_utils.core import record as rec
from ansible_collections.perflab.network.plugins.module_utils.tools import registry
from ansible_collections.perflab.network.plugins.module_utils.tools.tool import VERSION_TIMEOUT_S
from ansible_collections.perflab.network.plugins.module_utils.plan import repetitions


def find_executable(module, tool, path=None, host=None, tool_paths=None):
    """The client executable (``<tool>_path``, else the one lookup: PATH, ``tool_paths``, the usual
    folders; process.search_dirs), or fail the module naming where it looked."""
    executable = (host.which if host else process.which)(path or tool.client_executable, tool_paths)
    if not executable:
        if path:
            module.fail_json(msg='%s_path %s is not an executable file' % (tool.name, path))
        searched = host.search_dirs(tool_paths) if host else process.search_dirs(tool_paths)
        module.fail_json(msg=process.missing_tool_message(tool.client_executable, searched))
    return executable


def validate(module, tool, params, host=None):
    """Fail the module with every problem of the common and the tool's parameters, in one message."""
    errors = (common_args.common_errors(params, default_port=tool.default_port, host=host or host_platform.current())
              + tool.errors(params))
    if errors:
        module.fail_json(msg='; '.join(errors))


def _run_all(argvs, timeout, host=None):
    if len(argvs) == 1:
        return [(host.run if host else process.run)(argvs[0], timeout)]
    return (host.run_many if host else process.run_many)(argvs, timeout)


def parse_process(tool, params, proc, timeout, context):
    """One client process' parse result, with an ``error`` in the tool's terms."""
    if proc.timed_out:
        return {'metrics': {}, 'intervals': [], 'version': '',
                'error': '%s did not finish within the %d s timeout: its process group was killed'
                         % (tool.name, timeout)}
    parsed = tool.parse(params, proc, context)
    if parsed.get('error'):
        parsed['metrics'] = {}
    return parsed


def measured_seconds(parsed, params):
    """How long the tool measured: its last interval's end (its own clock), else the duration asked."""
    ends = [sample.get('t') for result in parsed for sample in result.get('intervals') or []
            if isinstance(sample.get('t'), (int, float)) and not isinstance(sample.get('t'), bool)]
    if ends and max(ends) > 0:
        return float(max(ends))
    return float(params.get('duration') or 0) or None


def probe_path(nic_host, host, server, mtu, wait=3):
    """Whether a don't-fragment ping of ``mtu`` bytes to ``server`` is answered (the preflight's probe, after a
    test far below its link); None when it cannot be made (MTU unknown, ping.exe and IPv6)."""
    if not mtu:
        return None
    try:
        argv = nic_host.ping_argv(server, wait, preflight.probe_payload(mtu, server))
    except ValueError:
        return None
    result = (host.run if host else process.run)(argv, timeout=wait + 5)
    # Windows' ping exits 0 on a router's "Destination host unreachable": an IPv4 answer carries TTL=
    return result.rc == 0 and (getattr(nic_host, 'name', '') != 'Windows' or 'TTL=' in (result.stdout or ''))


def measure_rtt(nic_host, host, server):
    """The path's RTT before the test (limits.parse_ping_rtt of a short ping), None when it cannot be had."""
    argv_of = getattr(nic_host, 'rtt_argv', None)
    if argv_of is None:
        return None
    result = (host.run if host else process.run)(argv_of(server), timeout=5)
    return limits.parse_ping_rtt(result.stdout) if not result.timed_out else None


def run_test(module, tool, params, result_key='perflab_result', host=None, annotate=None):
    """Run one test of ``tool`` with ``params`` (validated); exits the module with its record.

    ``result_key``: where the record goes in the module's result (``perflab_result`` is what the
    results callback stores; bench_test's ``hold`` returns it as ``perflab_held`` for bench_record).
    ``host``: where the processes run and the NIC is read (host_platform; default this host, the
    Windows action plugins pass host_windows.WindowsHost). ``annotate``: called with the finished record before
    it is returned (bench_test's ``repetitions: auto`` decision, repetitions.annotate).
    """
    validate(module, tool, params, host)
    executable = find_executable(module, tool, params.get('%s_path' % tool.name), host, params.get('tool_paths'))
    about = (host.run if host else process.run)(tool.version_argv(executable), timeout=VERSION_TIMEOUT_S)
    help_text = about.stdout + about.stderr
    version = tool.parse_version(help_text)
    problem = tool.check_version(params, version, help_text)
    if problem and not params.get('optional'):
        module.fail_json(msg=problem)

    test, protocol, direction = tool.record_test(params)
    processes = params.get('processes') or 1
    argvs = [tool.client_argv(params, executable, index) for index in range(processes)]
    interface = params.get('nic_interface')
    nic_host = host or host_platform.current()   # the OS's NIC counters (Linux /sys, FreeBSD netstat, Windows)
    record = rec.new_record(params, tool.name, test, protocol, direction, tool.test_id(params),
                            options=tool.given_options(params), tool_version=version,
                            client_mtu=nic_host.interface_mtu(interface) if interface else None,
                            parallel=tool.effective_parallel(params), notes=tool.notes(params),
                            reading=tool.reading(params), client_speed=nic_host.interface_speed_mbps(interface) if interface else None)
    rec.set_commands(record, argvs)
    rec.set_primary(record, tool.primary(params))

    if module.check_mode or problem:
        # an optional test this tool's build cannot run (a suite's optional: true) is skipped with the reason
        rec.finish_record(record, None, 'skipped', error=problem or 'check mode: %s did not run' % tool.name)
        if annotate:
            annotate(record)
        module.exit_json(changed=False, **{result_key: [record]})

    timeout = tool.timeout(params)
    sampler = ended_t = None
    path_rtt = None
    if interface:
        path_rtt = measure_rtt(nic_host, host, params['server'])
        with nic_host.nic_sampler(interface, peer=params['server']) as sampler:
            procs = _run_all(argvs, timeout, host)
            ended_t = sampler.elapsed()
    else:
        procs = _run_all(argvs, timeout, host)

    context = {'version': version, 'help': help_text}
    parsed = [parse_process(tool, params, proc, timeout, context) for proc in procs]
    for result in parsed:
        # what a parser saw beside the values (iperf2: a stream that stalled)
        for note in result.get('notes') or []:
            rec.add_note(record, note)
    if not record['tool_version']:
        record['tool_version'] = next((result.get('version') for result in parsed if result.get('version')), '')
    multi = processes > 1
    ports = [tool.result_port(params, index) for index in range(processes)]
    failures = [('process %d (port %d): %s' % (index + 1, ports[index], result['error'])) if multi
                else result['error'] for index, result in enumerate(parsed) if result['error']]
    if multi:
        for port, result in zip(ports, parsed):
            known = dict(rec.METRICS, **tool.metrics)
            metrics = dict((name, rec.metric(value, known[name][0], known[name][1]))
                           for name, value in result['metrics'].items())
            rec.add_process(record, port, metrics, status='failed' if result['error'] else 'ok',
                            error=result['error'])
        combined = tool.combine(parsed, params)
        rec.set_intervals(record, tool.combine_intervals(parsed))
        window = cw.of_processes(parsed, procs, record['primary'])
    else:
        combined = parsed[0]['metrics']
        rec.set_intervals(record, parsed[0]['intervals'])
        window = None
    if not failures:
        rec.add_metrics(record, combined, tool.metrics)
    if sampler is not None:
        # the NIC rate over the seconds the tool measured (they end when it exits), not its start-up
        measured = measured_seconds(parsed, params)
        nic = sampler.result(window=(ended_t - measured, ended_t) if measured and ended_t else None)
        # a failed record keeps the samples but carries no NIC rates as results
        rec.add_nic(record, nic, metrics=not failures)
        if window and not failures:
            # the NIC over the processes' common window too (the samples' clock ends when the last process did)
            rec.set_common_window(record, window, sampler.result(window=cw.sampler_window(window, ended_t)))
            window = None
        wrong_path = None if failures else rec.nic_accounting_problem(record)
        if wrong_path:
            failures.append(wrong_path)
    if window and not failures:
        rec.set_common_window(record, window)
    if not failures and rec.far_below_link(record):
        error, note = rec.far_below_link_verdict(record, params['server'], record['client'].get('mtu'),
                                                 probe_path(nic_host, host, params['server'], record['client'].get('mtu')))
        if error:
            failures.append(error)
        rec.add_note(record, note)

    raw = '\n'.join(('# %s\n' % ' '.join(proc.argv) if multi else '') + proc.stdout + proc.stderr for proc in procs)
    first = procs[0]
    first.started_at = min(proc.started_at for proc in procs)
    first.ended_at = max(proc.ended_at for proc in procs)
    status = 'failed' if failures else 'ok'
    if failures and params.get('optional') and all(result.get('unsupported') for result in parsed if result['error']):
        status = 'skipped'   # the tool refused the test it does not have (ethr 1.0's -p http)
    rec.finish_record(record, first, status, error='; '.join(failures) or None, raw=raw)
    if record['status'] == 'ok':
        samples = (sampler.limits() if sampler is not None and hasattr(sampler, 'limits') else None) \
            or {'not_sampled': ['no nic_interface: nothing was sampled during the test']}
        record['limited_by'] = limits.verdict(record, dict(samples, path_rtt=path_rtt))
    if annotate:
        annotate(record)
    extra = tool.result_extra(params, parsed, module)
    if record['status'] == 'failed':
        extra[result_key] = [record]
        module.fail_json(msg=record['error'], **extra)
    extra[result_key] = [record]
    module.exit_json(changed=False, **extra)


def main(name):
    """The whole of a tool's test module (``plugins/modules/<tool>.py``): ``runner.main('<tool>')``."""
    tool = registry.get(name)
    module = AnsibleModule(argument_spec=tool.argument_spec(), supports_check_mode=True)
    run_test(module, tool, module.params)


# a plan item's fields (benchmark_plan's ``runs``, suite.build_plan) by the bench_test argument each is
PLAN_ITEM_ARGS = (('tool', 'tool'), ('test', 'test'), ('options', 'tool_options'), ('server', 'server_address'),
                  ('port', 'port'), ('duration', 'duration'), ('processes', 'processes'),
                  ('parallel_values', 'parallel_values'), ('run_id', 'run_id'), ('config', 'config'),
                  ('suite', 'suite'), ('repetition', 'repetition'), ('client_name', 'client'),
                  ('server_name', 'server'), ('server_interface', 'server_interface'), ('test_id', 'test_id'), ('title', 'title'), ('optional', 'optional'),
                  ('repetitions_auto', 'repetitions_auto'))

# bench_test takes a test either by its arguments (``tool``, ``test``, ``server``...) or as a plan item
BENCH_TEST_RULES = dict(required_one_of=[['tool', 'item']], mutually_exclusive=[['tool', 'item']])


def bench_test_argument_spec():
    """bench_test's arguments (the module, and its action plugin on Windows hosts); with BENCH_TEST_RULES."""
    spec = common_args.common_argument_spec()
    # with ``item`` the server is the item's: the tool's own spec still requires one (bench_test_params)
    spec['server'] = dict(spec['server'], required=False)
    spec.update(
        tool=dict(type='str'),
        item=dict(type='dict'),
        nic_sampling=dict(type='bool', default=True),
        test=dict(type='str'),
        options=dict(type='dict', default={}),
        path=dict(type='path'),
        hold=dict(type='bool', default=False),
        repetitions_auto=dict(type='dict'),
        repetitions_earlier=dict(type='list', elements='raw', default=[]),
    )
    return spec


def plan_item_args(item, nic_sampling=True):
    """bench_test's arguments of one plan item: its test, what the suite asked (``parallel_asked``: the test
    module records what the tool really ran), the item's ``bind`` (suite.build_plan's: the pair's client address
    where the tool's client can bind one), and the client's interface for the NIC counters unless ``nic_sampling``
    is off."""
    args = dict((arg, item[key]) for arg, key in PLAN_ITEM_ARGS if item.get(key) not in (None, '', {}))
    args['parallel'] = item['parallel_asked'] if 'parallel_asked' in item else item.get('parallel')
    if item.get('bind'):
        args['bind'] = item['bind']
    if nic_sampling and item.get('client_interface'):
        args['nic_interface'] = item['client_interface']
    return args


def bench_test_arguments(params):
    """bench_test's checked arguments with a plan item (``item``) put in place: (params, errors)."""
    if not params.get('item'):
        problem = registry.unknown_problem([params.get('tool')])
        return (None, [problem]) if problem else (params, [])
    given = dict((key, value) for key, value in params.items() if key != 'item' and value is not None)
    for arg in [arg for arg, _key in PLAN_ITEM_ARGS] + ['parallel', 'bind', 'nic_interface']:
        given.pop(arg, None)   # the defaults of what the item gives
    given.update(plan_item_args(params['item'], params.get('nic_sampling', True)))
    if 'tool' not in given:
        return None, ['item: a plan item names its tool (tool), got the keys %s' % ', '.join(sorted(params['item']))]
    problem = registry.unknown_problem([given['tool']], 'item: tool')
    if problem:
        return None, [problem]
    result = ArgumentSpecValidator(bench_test_argument_spec(), **BENCH_TEST_RULES).validate(given)
    return result.validated_parameters, ['item: %s' % msg for msg in result.error_messages]


def bench_test_annotator(params):
    """(annotate, errors): what puts the auto rule's decision in the record (None for a fixed test)."""
    if not params.get('repetitions_auto'):
        return None, []
    try:
        rule = repetitions.make_rule(params['repetitions_auto'])
        earlier = [None if value is None else float(value) for value in params.get('repetitions_earlier') or []]
    except (TypeError, ValueError) as exc:
        return None, ['repetitions_auto: %s' % exc]
    return (lambda record: repetitions.annotate(record, rule, earlier)), []


def bench_test_params(tool, params):
    """bench_test's arguments as the tool module's parameters: common ones, test, options; (params, errors)."""
    spec = tool.argument_spec()
    given = dict((key, value) for key, value in params.items()
                 if key in common_args.TEST_COMMON_ARGS and value is not None)
    unknown = sorted(set(params['options']) - set(tool.options))
    if unknown:
        known = ', '.join(sorted(tool.options))
        return None, ['%s has no option %s (its options: %s)' % (tool.name, ', '.join(unknown), known)]
    given.update(params['options'])
    given['test'] = params.get('test') or tool.default_test
    if params.get('path'):
        given['%s_path' % tool.name] = params['path']
    result = ArgumentSpecValidator(spec).validate(given)
    return result.validated_parameters, list(result.error_messages)
