# -*- coding: utf-8 -*-
# Copyright: perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Suites and plans: pure functions, no I/O beyond reading a suite file.

A suite is data (YAML): defaults plus a list of test entries; an entry's
`test` and `parallel` may be lists, which expand into one test each. A plan is
the suite expanded over host pairs and repetitions, with the ports each pair's
servers listen on, minus what a resumed run already recorded.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import ipaddress
import os

from ansible_collections.perflab.network.plugins.module_utils.core import names
from ansible_collections.perflab.network.plugins.module_utils.core import record as records
from ansible_collections.perflab.network.plugins.module_utils.tools import registry
from ansible_collections.perflab.network.plugins.module_utils.plan import repetitions as auto_reps
from ansible_collections.perflab.network.plugins.module_utils.plan import study
from ansible_collections.perflab.network.plugins.module_utils.tools.tool import PORT_STRIDE

# the tests each module knows and the options a suite may set: the tools' registry files
TOOL_TESTS = dict((name, tuple(tool.tests)) for name, tool in registry.TOOLS.items())
TOOL_OPTIONS = dict((name, tool.suite_options()) for name, tool in registry.TOOLS.items())
ENTRY_KEYS = ('tool', 'test', 'parallel', 'processes', 'duration', 'repetitions', 'optional', 'options', 'title')
SUITE_KEYS = ('name', 'description', 'defaults', 'tests', 'source')
LIMITS = {'duration': (1, 3600), 'repetitions': (1, 100), 'parallel': (1, 128), 'processes': (1, 12)}
# per server host, pair k's servers listen on base + PORT_STRIDE * k
PORT_BASE = dict((name, tool.plan_base()) for name, tool in registry.TOOLS.items())
MAX_PAIRS_PER_SERVER = 8
# seconds a test costs beyond its duration (connect, warm-up, one SSH round trip)
TEST_OVERHEAD_S = 2
# the switch of hosts that name none (benchmark_serialize_pairs: they all share it)
DEFAULT_SWITCH = ''
NAME_RE = names.NAME_RE


class PlanError(ValueError):
    """A problem with the suite or the plan, found before anything runs."""


def _as_list(value):
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _check_int(errors, where, field, value):
    low, high = LIMITS[field]
    if isinstance(value, bool) or not isinstance(value, int):
        try:
            value = int(str(value))
        except ValueError:
            errors.append('%s: %s must be an integer from %d to %d, got %r' % (where, field, low, high, value))
            return None
    if not low <= value <= high:
        errors.append('%s: %s must be from %d to %d, got %d' % (where, field, low, high, value))
        return None
    return value


def _check_repetitions(errors, where, value):
    """A count (LIMITS) or ``auto`` or a rule mapping (repetitions.rule_problems)."""
    if auto_reps.is_auto(value):
        errors += auto_reps.rule_problems(value if isinstance(value, dict) else None, '%s: repetitions' % where)
    else:
        _check_int(errors, where, 'repetitions', value)


def find_suite(name, paths):
    """A suite by name (searched in paths) or by file path."""
    if not name:
        raise PlanError('no suite named: set perflab_suite (quick, phoronix-network, osv-netperf or a file)')
    known = set()
    for path in paths:
        if os.path.isdir(path):
            known.update(os.path.splitext(f)[0] for f in os.listdir(path) if f.endswith(('.yml', '.yaml')))
    allowed = ('a suite name (%s; %s) or the path of a suite file (.yml)'
               % (', '.join(sorted(known)) or 'none known', names.NAME_RULE))
    if os.sep in name or name.endswith(('.yml', '.yaml')):
        if not os.path.isfile(name):
            raise PlanError('suite file %s does not exist: the suite must be %s' % (name, allowed))
        return name
    if not NAME_RE.match(name):
        raise PlanError('suite name %r is invalid: the suite must be %s' % (name, allowed))
    for path in paths:
        for ext in ('.yml', '.yaml'):
            candidate = os.path.join(path, name + ext)
            if os.path.isfile(candidate):
                return candidate
    raise PlanError('unknown suite %r; known suites: %s' % (name, ', '.join(sorted(known)) or 'none'))


# what a suite file may be: a few hundred lines; YAML aliases may not expand it beyond this many values
SUITE_MAX_BYTES = 256 * 1024
SUITE_MAX_VALUES = 20000


def _count_values(data, limit):
    """How many values ``data`` holds with every alias expanded, counting stops past ``limit``."""
    count, stack = 0, [data]
    while stack and count <= limit:
        item = stack.pop()
        count += 1
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
    return count


def read_suite(path, load):
    """The suite document of ``path`` (``load``: a safe YAML loader), bounded: refused in one line when the
    file is too big, is not YAML, or expands (aliases) to more than SUITE_MAX_VALUES values."""
    try:
        size = os.path.getsize(path)
        if size > SUITE_MAX_BYTES:
            raise PlanError('suite file %s is %d bytes: a suite file may have at most %d' % (path, size, SUITE_MAX_BYTES))
        with open(path) as handle:
            data = load(handle)
    except PlanError:
        raise
    except Exception as exc:  # pylint: disable=broad-except
        first = ' '.join(str(exc).split())[:300]
        raise PlanError('cannot read the suite file %s: %s' % (path, first))
    if _count_values(data, SUITE_MAX_VALUES) > SUITE_MAX_VALUES:
        raise PlanError('suite file %s expands to more than %d values (YAML aliases?): refused'
                        % (path, SUITE_MAX_VALUES))
    if not isinstance(data, dict):
        raise PlanError('suite file %s is not a YAML mapping' % path)
    return data


def validate_suite(suite, where='suite'):
    """All problems of a suite document (a dict), as a list of messages."""
    errors = []
    if not isinstance(suite, dict):
        return ['%s is not a mapping' % where]
    for key in suite:
        if key not in SUITE_KEYS:
            errors.append('%s: unknown key %r (allowed: %s)' % (where, str(key)[:64], ', '.join(SUITE_KEYS)))
    if 'name' in suite and names.name_problem('name', suite['name']):
        errors.append('%s: %s' % (where, names.name_problem('name', suite['name'])))
    defaults = suite.get('defaults') or {}
    if not isinstance(defaults, dict):
        errors.append('%s: defaults must be a mapping' % where)
        defaults = {}
    if 'duration' in defaults:
        _check_int(errors, where + ' defaults', 'duration', defaults['duration'])
    if 'repetitions' in defaults:
        _check_repetitions(errors, where + ' defaults', defaults['repetitions'])
    tests = suite.get('tests')
    if not tests or not isinstance(tests, list):
        errors.append('%s has no tests: a suite needs a non-empty list `tests`' % where)
        return errors
    for i, entry in enumerate(tests, 1):
        here = '%s test %d' % (where, i)
        if not isinstance(entry, dict):
            errors.append('%s is not a mapping' % here)
            continue
        for key in entry:
            if key not in ENTRY_KEYS:
                errors.append('%s: unknown key %r (allowed: %s)' % (here, key, ', '.join(ENTRY_KEYS)))
        tool = entry.get('tool')
        if tool not in TOOL_TESTS:
            errors.append('%s: unknown tool %r (allowed: %s)' % (here, tool, ', '.join(sorted(TOOL_TESTS))))
            continue
        plan_tests = registry.get(tool).plan_tests
        for test in _as_list(entry.get('test')):
            if test not in TOOL_TESTS[tool]:
                errors.append('%s: unknown %s test %r (allowed: %s)' % (here, tool, test, ', '.join(TOOL_TESTS[tool])))
            elif plan_tests is not None and test not in plan_tests:
                errors.append('%s: %s %s cannot run from a suite: the benchmark role starts no server for it '
                              '(suites can run: %s)' % (here, tool, test, ', '.join(plan_tests)))
        for p in _as_list(entry.get('parallel', 1)):
            _check_int(errors, here, 'parallel', p)
        for field in ('processes', 'duration'):
            if field in entry:
                _check_int(errors, here, field, entry[field])
        if 'repetitions' in entry:
            _check_repetitions(errors, here, entry['repetitions'])
        options = entry.get('options') or {}
        if not isinstance(options, dict):
            errors.append('%s: options must be a mapping' % here)
            continue
        unknown = [key for key in options if key not in TOOL_OPTIONS[tool]]
        for key in unknown:
            errors.append('%s: unknown %s option %r (allowed: %s)' % (here, tool, key, ', '.join(TOOL_OPTIONS[tool])))
        if not unknown:
            tests_here = [t for t in _as_list(entry.get('test')) if t in TOOL_TESTS[tool]]
            errors += ['%s: %s' % (here, error) for error in registry.get(tool).option_type_errors(options, tests_here)]
        # an option meant for some tests only (the tool's registry file says which)
        for key in options:
            option = registry.get(tool).options.get(key)
            for test in _as_list(entry.get('test')):
                if option is not None and option.tests is not None and test not in option.tests:
                    errors.append('%s: %s applies to %s only, not %s' % (here, key, ', '.join(option.tests), test))
    return errors


def test_id(tool, test, parallel, options, processes=1):
    """The test id of a suite entry's test: the tool's own, as its module gives it ad hoc."""
    return registry.get(tool).test_id(registry.get(tool).params_of(test, parallel, processes, options))


def _repetitions_of(entry, defaults, repetitions, repetitions_auto):
    """(count, rule): a fixed count and None, or an auto test's maximum and its rule (repetitions.make_rule:
    the defaults, then the suite's mapping, then the override's ``repetitions_auto``)."""
    asked = repetitions or entry.get('repetitions') or defaults.get('repetitions') or 1
    if not auto_reps.is_auto(asked):
        return int(asked), None
    rule = auto_reps.make_rule(defaults.get('repetitions'), entry.get('repetitions'), asked, repetitions_auto)
    return rule['max'], rule


def expand_suite(suite, duration=None, repetitions=None, parallel=None, tools=None, notes=None, repetitions_auto=None):
    """The suite's tests, one dict each, with overrides applied (in suite order).

    duration, repetitions: override every test's (repetitions: a count, ``auto`` or a rule mapping);
    repetitions_auto: the rule mapping that wins for every auto test (min, max, ci_percent); parallel: a list that replaces
    every entry's parallel list; tools: keep only these tools. A parallel value the
    tool ignores for a test (its ``effective_parallel``, e.g. ethr's latency test runs
    one connection) does not make a test of its own: the values that run the same
    test become one, with ``parallel`` what the tool really runs, and ``notes`` (a
    list, when given) gets a line saying so.
    """
    errors = validate_suite(suite, 'suite %s' % suite.get('name', '?') if isinstance(suite, dict) else 'suite')
    if duration is not None:
        _check_int(errors, 'override', 'duration', duration)
    if repetitions is not None:
        _check_repetitions(errors, 'override', repetitions)
    errors += auto_reps.rule_problems(repetitions_auto, 'override: repetitions_auto')
    for p in parallel or []:
        _check_int(errors, 'override', 'parallel', p)
    for tool in tools or []:
        if tool not in TOOL_TESTS:
            errors.append('unknown tool %r in the tool filter (allowed: %s)' % (tool, ', '.join(sorted(TOOL_TESTS))))
    if errors:
        raise PlanError('; '.join(errors))
    defaults = suite.get('defaults') or {}
    expanded = []
    seen = set()
    for entry in suite['tests']:
        if tools and entry['tool'] not in tools:
            continue
        options = dict(entry.get('options') or {})
        processes = int(entry.get('processes', 1))
        try:
            count, rule = _repetitions_of(entry, defaults, repetitions, repetitions_auto)
        except ValueError as exc:   # min above max across the suite and the override
            raise PlanError('suite %s: %s' % (suite.get('name', '?'), exc))
        tool = registry.get(entry['tool'])
        for test in _as_list(entry['test']):
            asked = [int(par) for par in (parallel or _as_list(entry.get('parallel', 1)))]
            merged = {}
            for par in asked:
                merged.setdefault(tool.effective_parallel(tool.params_of(test, par, processes, options)), []).append(par)
            for effective, values in merged.items():
                if values != [effective] and notes is not None:
                    notes.append('%s %s runs %d connection(s) whatever parallel says: parallel %s make one test, '
                                 'recorded with parallel %d' % (entry['tool'], test, effective,
                                                                ', '.join(str(v) for v in values), effective))
            for effective in merged:
                tid = test_id(entry['tool'], test, effective, options, processes)
                if tid in seen:
                    raise PlanError('suite %s lists %s twice' % (suite.get('name', '?'), tid))
                seen.add(tid)
                expanded.append({
                    'tool': entry['tool'],
                    'test': test,
                    'parallel': effective,
                    # what the suite asked (the test module records what ran and notes the rest)
                    'parallel_asked': max(merged[effective]),
                    # every value of the suite this one test stands for (the record's note names them all)
                    'parallel_values': merged[effective],
                    'processes': processes,
                    'duration': int(duration or entry.get('duration') or defaults.get('duration') or 10),
                    # an auto test is planned up to its maximum; the role stops it earlier (repetitions.decide)
                    'repetitions': count,
                    'repetitions_auto': rule,
                    'options': options,
                    'optional': bool(entry.get('optional', False)),
                    'test_id': tid,
                    'title': entry.get('title'),
                })
    if not expanded:
        raise PlanError('suite %s has no tests%s' % (suite.get('name', '?'), ' for tools %s' % ', '.join(tools) if tools else ''))
    return expanded


def _is_ip(text):
    try:
        ipaddress.ip_address(str(text))
    except ValueError:
        return False
    return True


def _ip_version(text):
    return ipaddress.ip_address(str(text)).version


def make_pairs(hosts, servers=None, clients=None, explicit=None, mesh=False, reverse=False, inventory=None, slots=None):
    """Client/server pairs from the inventory.

    hosts: name -> {data_address, data_interface, peer}; servers/clients: group
    members; explicit: [{client, server}]; mesh: every ordered pair of distinct hosts;
    reverse: each pair the other way round (the server host runs the client: a test
    sent from the side the groups call servers).
    Each pair gets its index k on its server (ports = base + PORT_STRIDE * k).
    inventory: every host name of the inventory (``hosts`` holds those of this run), so that a peer left out
    by ``--limit`` is told apart from one the inventory does not have.
    slots: (client, server) -> the round a pair runs in (a fleet's rounds): pairs of different rounds never
    run at once, so each round counts its own index k on a server (a server's ports serve one round at a time).
    """
    errors = []
    if explicit:
        raw = [(p.get('client'), p.get('server')) for p in explicit]
    elif mesh:
        names = sorted(set(servers or []) | set(clients or [])) or sorted(hosts)
        raw = [(c, s) for c in names for s in names if c != s]
    else:
        raw = []
        for client in clients or []:
            peer = (hosts.get(client) or {}).get('peer')
            if not peer:
                if len(servers or []) == 1:
                    peer = servers[0]
                else:
                    errors.append('client %s has no server: set perflab_peer for it (servers: %s)'
                                  % (client, ', '.join(servers or []) or 'none'))
                    continue
            raw.append((client, peer))
        if not raw and not errors:
            left_out = sorted(set(inventory or ()) - set(hosts))
            errors.append('no pairs: put hosts in the groups perflab_servers and perflab_clients '
                          '(each client with perflab_peer), or set benchmark_pairs, or benchmark_mesh'
                          + ('; this run has only %s of the inventory (--limit?): %s not in it, the other side of the '
                             'pairs may be among them' % (', '.join(sorted(hosts)), ', '.join(left_out))
                             if left_out else ''))
    if reverse:
        raw = [(server, client) for client, server in raw]
    pairs, per_server, seen = [], {}, set()
    for client, server in raw:
        for role, name in (('client', client), ('server', server)):
            if name not in hosts and name in (inventory or ()):
                errors.append('%s %s of the pair %s -> %s is in the inventory but not in this run (left out by '
                              '--limit, or not among the play\'s hosts): run both hosts of a pair, or leave the pair out'
                              % (role, name, client, server))
            elif name not in hosts:
                errors.append('%s %r of a pair is not in the inventory' % (role, name))
            elif not (hosts[name] or {}).get('data_address'):
                errors.append('host %s has no perflab_data_address' % name)
            elif not _is_ip(hosts[name]['data_address']):
                errors.append('perflab_data_address of host %s must be an IP address (the servers bind to it), got %r'
                              % (name, str(hosts[name]['data_address'])[:64]))
        if client == server:
            errors.append('pair %s -> %s: a host cannot be its own server' % (client, server))
        elif all(_is_ip((hosts.get(n) or {}).get('data_address')) for n in (client, server)) \
                and _ip_version(hosts[client]['data_address']) != _ip_version(hosts[server]['data_address']):
            errors.append('pair %s -> %s mixes address families: the client\'s perflab_data_address %s is IPv%d, the '
                          'server\'s %s is IPv%d; give both hosts of a pair addresses of one family'
                          % (client, server, hosts[client]['data_address'], _ip_version(hosts[client]['data_address']),
                             hosts[server]['data_address'], _ip_version(hosts[server]['data_address'])))
        if (client, server) in seen:
            errors.append('pair %s -> %s is listed twice' % (client, server))
        seen.add((client, server))
        if errors:
            continue
        slot = (server, (slots or {}).get((client, server)))
        k = per_server.get(slot, 0)
        per_server[slot] = k + 1
        pairs.append({
            'name': '%s->%s' % (client, server),
            'client': client, 'server': server, 'index': k,
            'client_address': hosts[client]['data_address'], 'server_address': hosts[server]['data_address'],
            'client_interface': hosts[client].get('data_interface'), 'server_interface': hosts[server].get('data_interface'),
            'ports': dict((tool, base + PORT_STRIDE * k) for tool, base in PORT_BASE.items()),
        })
    for (server, dummy), count in per_server.items():
        if count > MAX_PAIRS_PER_SERVER:
            errors.append('server %s has %d clients; at most %d pairs can share one server'
                          % (server, count, MAX_PAIRS_PER_SERVER))
    if errors:
        raise PlanError('; '.join(errors))
    return pairs


def check_explicit_ports(explicit):
    """Ports of benchmark_pairs: known tools, whole numbers in range; two pairs sharing one iperf3 server
    port on one server cannot run together."""
    used = {}
    errors = []
    for p in explicit or []:
        name = '%s->%s' % (p.get('client'), p.get('server'))
        ports = p.get('ports') or {}
        if not isinstance(ports, dict):
            raise PlanError('benchmark_pairs %s: ports must be a mapping of tool to port, got %r' % (name, ports))
        for tool, value in ports.items():
            if tool not in PORT_BASE:
                errors.append('benchmark_pairs %s: ports names an unknown tool %r (allowed: %s)'
                              % (name, tool, ', '.join(sorted(PORT_BASE))))
                continue
            if isinstance(value, bool) or not str(value).strip().isdigit() or not 1024 <= int(str(value)) <= 65000:
                errors.append('benchmark_pairs %s: ports.%s must be a port number from 1024 to 65000, got %r'
                              % (name, tool, value))
    if errors:
        raise PlanError('; '.join(errors))
    for p in explicit or []:
        port = (p.get('ports') or {}).get('iperf3')
        if port is None:
            continue
        key = (p.get('server'), int(port))
        if key in used:
            errors.append('pairs %s and %s share iperf3 port %d on %s: one iperf3 server serves one test at a time'
                          % (used[key], '%s->%s' % (p.get('client'), p.get('server')), port, p.get('server')))
        used[key] = '%s->%s' % (p.get('client'), p.get('server'))
    if errors:
        raise PlanError('; '.join(errors))


def recorded_keys(recorded):
    """Run keys (record.run_key) of the runs a resumed run recorded ok already: the plan leaves them out.

    recorded: the run's result records, as the report's store reads them (store.read_run).
    """
    return set(records.record_run_key(rec, current_test_id(rec)) for rec in recorded
               if isinstance(rec, dict) and rec.get('status') == 'ok' and rec.get('test_id'))


def _same_value(a, b):
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool) \
            and not isinstance(b, bool):
        return float(a) == float(b)
    return a == b


def _test_options(tool, options):
    """The options that say what a test measures: a record's or a plan's, without those a pair's ports add."""
    pair_keys = set(tool.pair_arguments(tool.plan_base()))
    return dict((key, value) for key, value in (options or {}).items() if key not in pair_keys and value is not None)


def _some(names, limit=3):
    names = sorted(set(names))
    return ', '.join(names[:limit]) + (' and %d more' % (len(names) - limit) if len(names) > limit else '')


def resume_problems(tests, pairs, recorded, suite_name, other_suites=()):
    """What a resumed run would measure differently from what its results file holds, one message per
    test parameter (suite, pairs, tests, repetitions, duration, options); empty when they match.

    A resume does only what is missing: it must ask for the tests the run already measured, or the
    run's file would mix two studies under one run id (a 2 s test kept where 5 s were asked).
    tests: expand_suite's; pairs: make_pairs'; recorded: the run's result records (store.read_run).
    other_suites: the suites a study runs under the same run id besides this one: their records are
    other parts of the run, not compared with this plan.
    """
    planned = dict((t['test_id'], t) for t in tests)
    planned_pairs = set((p['client'], p['server']) for p in pairs)
    found = {'suite': set(), 'pairs': set(), 'tests': set(), 'repetitions': set(), 'duration': set(), 'options': set()}
    for rec in recorded:
        if not isinstance(rec, dict) or not rec.get('test_id') or rec.get('suite') in other_suites:
            continue
        if rec.get('suite') not in (None, suite_name):
            found['suite'].add(str(rec['suite']))
        client = (rec.get('client') or {}).get('name') if isinstance(rec.get('client'), dict) else None
        server = (rec.get('server') or {}).get('name') if isinstance(rec.get('server'), dict) else None
        if (client, server) not in planned_pairs:
            found['pairs'].add('%s->%s' % (client, server))
        tid = current_test_id(rec)
        test = planned.get(tid)
        if test is None:
            found['tests'].add(tid)
            continue
        if int(rec.get('repetition') or 1) > test['repetitions']:
            found['repetitions'].add('%s (repetition %d, %d asked now)' % (tid, int(rec['repetition']), test['repetitions']))
        if rec.get('duration_s') is not None and not _same_value(rec['duration_s'], test['duration']):
            found['duration'].add('%s (%g s recorded, %d s asked now)' % (tid, float(rec['duration_s']), test['duration']))
        if rec.get('schema') == records.SCHEMA and rec.get('tool') in registry.TOOLS:
            tool = registry.get(rec['tool'])
            now = _test_options(tool, tool.given_options(tool.params_of(
                test['test'], test.get('parallel_asked') or test['parallel'], test['processes'], test['options'])))
            then = _test_options(tool, rec.get('options'))
            differ = sorted(key for key in set(now) | set(then) if not _same_value(now.get(key), then.get(key)))
            if differ:
                found['options'].add('%s (%s)' % (tid, ', '.join(
                    '%s %s recorded, %s asked now' % (key, then.get(key, 'unset'), now.get(key, 'unset'))
                    for key in differ)))
    problems = []
    if found['suite']:
        problems.append('suite: the run recorded suite %s, this run asks for %s' % (_some(found['suite']), suite_name))
    if found['pairs']:
        problems.append('pairs: the run recorded %s, which this run does not plan (it plans %s)'
                        % (_some(found['pairs']), _some('%s->%s' % pair for pair in planned_pairs)))
    if found['tests']:
        problems.append('tests: the run recorded %s, which this run does not plan (other options or tools?)'
                        % _some(found['tests']))
    for name in ('repetitions', 'duration', 'options'):
        if found[name]:
            problems.append('%s: %s' % (name, _some(found[name])))
    return problems


def current_test_id(rec):
    """A record's test id in this schema's grammar (a perflab.result/1 record's is rebuilt from its fields)."""
    if rec.get('schema') == records.SCHEMA or rec.get('tool') not in registry.TOOLS:
        return rec['test_id']
    try:
        return registry.get(rec['tool']).test_id_of_record(rec)
    except (KeyError, TypeError, ValueError):
        return rec['test_id']


def recorded_values(recorded):
    """Per test (repetitions.test_key): the primary values a resumed run recorded ok, in repetition order: where
    its auto tests go on from (the failed ones are done again, as any failed run of a resume is)."""
    found = {}
    for rec in recorded:
        if isinstance(rec, dict) and rec.get('status') == 'ok' and rec.get('test_id'):
            found.setdefault(auto_reps.test_key(rec, current_test_id(rec)), []).append(rec)
    return dict((key, [value for value in auto_reps.values_of(recs) if value is not None])
                for key, recs in found.items())


def build_plan(tests, pairs, labels, done=frozenset(), side=study.DEFAULT_SIDE, recorded=None, repetition=0):
    """Items to run: every test x pair x repetition not already done (``repetition``: only that one of each test,
    an interleaved study's block; a test with fewer repetitions has none in that block).

    labels: host name -> configuration label; a pair's items take the label of the side under
    test (study.pair_label). An auto test (``repetitions_auto``) is planned up to its maximum, each item with
    the values its test recorded already (``repetitions_earlier``, from ``recorded``: recorded_values); one
    whose recorded values stopped it already plans nothing more.
    """
    items, skipped = [], 0
    recorded = recorded or {}
    for pair in pairs:
        label = study.pair_label(labels, pair['client'], pair['server'], side)
        for t in tests:
            earlier = None
            if t.get('repetitions_auto'):
                earlier = recorded.get(auto_reps.test_key({'config': label, 'client': pair['client'],
                                                           'server': pair['server'], 'test_id': t['test_id']}), [])
                if earlier and auto_reps.decide(earlier, t['repetitions_auto'])['stop']:
                    skipped += len(earlier)
                    continue
            for rep in range(1, t['repetitions'] + 1):
                if repetition and rep != repetition:
                    continue
                if records.run_key(label, pair['client'], pair['server'], t['test_id'], rep) in done:
                    skipped += 1
                    continue
                item = dict(t)
                port = pair['ports'][t['tool']]
                # the tool's options as bench_test takes them: the suite's, and what the pair's
                # ports add (netperf pins its data port next to the control port)
                tool_options = dict(t['options'])
                tool_options.update((key, value) for key, value in registry.get(t['tool']).pair_arguments(port).items()
                                    if key != 'port')
                item.update(pair=pair['name'], client=pair['client'], server=pair['server'],
                            server_address=pair['server_address'], client_address=pair['client_address'],
                            # the source address the client binds (None: the tool cannot bind, nuttcp)
                            bind=pair['client_address'] if registry.get(t['tool']).client_bind else None,
                            client_interface=pair['client_interface'], port=port, tool_options=tool_options,
                            repetition=rep, config=label, wave=pair.get('wave', 0))
                if earlier is not None:
                    item['repetitions_earlier'] = earlier
                items.append(item)
    return items, skipped


def servers_needed(items, pairs):
    """Per pair: which tool servers to start, on which port, how many."""
    need = {}
    for item in items:
        key = (item['pair'], item['tool'])
        processes, parallel = need.get(key, (0, 0))
        need[key] = (max(processes, item['processes']), max(parallel, item['parallel']))
    out = []
    for pair in pairs:
        for name in sorted(PORT_BASE):
            if (pair['name'], name) not in need:
                continue
            tool = registry.get(name)
            processes, parallel = need[(pair['name'], name)]
            port = pair['ports'][name]
            server = {'tool': name, 'bind': pair['server_address'], 'port': port, 'count': tool.servers_for(processes)}
            out.append({'pair': pair['name'], 'client': pair['client'], 'server': pair['server'],
                        'wave': pair.get('wave', 0),
                        'server_address': pair['server_address'], 'client_address': pair['client_address'],
                        # the interface the server host's sampler watches (bench_server sample_interface)
                        'server_interface': pair.get('server_interface'),
                        'tool': name, 'port': port, 'count': server['count'],
                        # what bench_server's servers option takes, so a host's servers start in one task
                        'bench_server': server,
                        # what a firewall on the server must let in from the client: exactly these
                        'openings': [{'port': first, 'end_port': last, 'protocol': protocol} for first, last, protocol
                                     in tool.openings(port, server['count'], processes, parallel)]})
    return out


def unmanaged_servers(servers, unmanaged):
    """Mark the planned servers on hosts we do not manage, or refuse what those hosts cannot give (PlanError).

    ``unmanaged``: ``{host: {'servers': {tool: port or {port, count}}, ...}}``, the servers the user says already
    listen on each host we do not manage (no SSH: nothing is started, stopped, opened or read there). A test needs, on such a
    host, its tool's server listening at the planned port, as many of them as the test's processes need (one
    server per process: consecutive ports). Each such server entry gets ``unmanaged: True`` (bench_server and the
    firewall leave it alone; the client's connect check still proves it listens). A test whose client would run on
    such a host is not planned here: it is skipped with ``unmanaged_client``'s reason. Returns ``servers``.
    """
    problems = []
    for server in servers:
        if server['server'] not in unmanaged:
            continue
        declared = (unmanaged[server['server']] or {}).get('servers') or {}
        server['unmanaged'] = True
        given = declared.get(server['tool'])
        if isinstance(given, dict):
            port, count = given.get('port'), given.get('count', 1)
        else:
            port, count = given, 1
        where = '%s (%s, not managed)' % (server['server'], server['server_address'])
        if given is None:
            problems.append('the %s tests of pair %s need a %s server on %s, and the inventory does not say one '
                            'listens there: start it by hand and declare it (perflab_unmanaged_servers: {%s: %d}), '
                            'or leave its tests out (benchmark_tools)' % (server['tool'], server['pair'], server['tool'],
                                                                          where, server['tool'], server['port']))
            continue
        if not isinstance(port, int) or isinstance(port, bool) or int(port) != server['port']:
            problems.append('pair %s plans its %s server on port %d of %s, but the one declared listens on %r: '
                            'give the pair that port (perflab_pairs: ports) or declare the one that listens'
                            % (server['pair'], server['tool'], server['port'], where, port))
        elif not isinstance(count, int) or isinstance(count, bool) or count < server['count']:
            problems.append('the %s tests of pair %s run %d processes, one server each (ports %d-%d) on %s, and %r '
                            'is declared: start them by hand and declare {port: %d, count: %d}'
                            % (server['tool'], server['pair'], server['count'], server['port'],
                               server['port'] + server['count'] - 1, where, count, server['port'], server['count']))
    if problems:
        raise PlanError('; '.join(problems))
    return servers


def unmanaged_client(item, unmanaged):
    """Why a planned test cannot run when its client would run on a host we do not manage (a reversed pair: the
    data sent from the appliance, or a pair that names it as the client), else None. Such a test is recorded
    skipped with this reason and the rest of the run goes on: nothing can be started on a host without SSH."""
    if item['client'] not in unmanaged:
        return None
    return ('not run: its %s client would run on %s (pair %s), which we do not manage (perflab_unmanaged): there is '
            'no SSH to it, so nothing can be started there; the tests whose client runs on a managed host measure it'
            % (item['tool'], item['client'], item['pair']))


def check_port_overlaps(servers):
    """Two servers planned on one host whose ports (with the ranges their tools use) meet cannot both start
    (servers of different waves or rounds never run at once: each wave is checked on its own)."""
    taken = {}
    errors = []
    for server in servers:
        mine = '%s port %d (pair %s)' % (server['tool'], server['port'], server['pair'])
        for opening in server['openings']:
            for port in range(opening['port'], opening['end_port'] + 1):
                key = (server['server'], server.get('wave', 0), opening['protocol'], port)
                other = taken.get(key)
                if other is not None and other != mine:
                    errors.append('on %s, %s and %s both need %s port %d: give the pairs other ports'
                                  % (server['server'], other, mine, opening['protocol'], port))
                    break
                taken[key] = mine
    if errors:
        raise PlanError('; '.join(sorted(set(errors))))


def firewall_openings(servers):
    """Per server host: the peers (client data addresses) and the ports the plan uses.

    {server: [{'peer': address, 'port': first, 'end_port': last, 'protocol': tcp|udp}]},
    each opening once, for the firewall role (firewall_ports and firewall_peer_addresses).
    """
    out = {}
    for server in servers:
        if server.get('unmanaged'):
            continue    # a host we do not manage: its firewall is not ours to open
        rules = out.setdefault(server['server'], [])
        for opening in server['openings']:
            rule = dict(opening, peer=server['client_address'])
            if rule not in rules:
                rules.append(rule)
    return out


def connect_checks(servers):
    """Per client: every TCP port of its servers' openings, each once, as [{address, port, server}].

    What the benchmark preflight connects to from the client (bench_preflight's connect): the check
    that a firewall on the server lets the plan's ports in, from this peer.
    """
    out = {}
    for entry in servers:
        targets = out.setdefault(entry['client'], [])
        for opening in entry['openings']:
            if opening['protocol'] != 'tcp':
                continue
            for port in range(int(opening['port']), int(opening.get('end_port') or opening['port']) + 1):
                target = {'address': entry['server_address'], 'port': port, 'server': entry['server']}
                if target not in targets:
                    targets.append(target)
    return out


def pair_switches(pair, hosts):
    """The switches a pair's traffic crosses: its client's and its server's.

    hosts: name -> {switch, ...}; a host without a switch (None or '') is on the
    one unnamed switch, so pairs of hosts that name none all share it (the lab).
    """
    return sorted(set(str((hosts.get(name) or {}).get('switch') or DEFAULT_SWITCH)
                      for name in (pair['client'], pair['server'])))


def schedule_waves(pairs, hosts, serialize=False):
    """Waves of clients: the pairs of one wave run at once, the waves one after another.

    Without serialize every client is in wave 0 (all pairs side by side). With it,
    pairs whose links share a switch (see pair_switches) go to different waves;
    pairs on disjoint switches share a wave. The unit is the client, whose pairs
    run one after another anyway: a client takes the first wave (in pair order)
    holding no client that uses one of its switches. Sets each pair's 'switches'
    and 'wave'; returns client name -> wave.
    """
    uses = {}
    for pair in pairs:
        pair['switches'] = pair_switches(pair, hosts)
        uses.setdefault(pair['client'], set()).update(pair['switches'])
    waves, taken = {}, []
    for client in [p['client'] for p in pairs]:
        if client in waves:
            continue
        wave = 0
        if serialize:
            while wave < len(taken) and taken[wave] & uses[client]:
                wave += 1
        if wave == len(taken):
            taken.append(set())
        taken[wave] |= uses[client]
        waves[client] = wave
    for pair in pairs:
        pair['wave'] = waves[pair['client']]
    return waves


def expected_duration(items, parallel_pairs=True):
    """Seconds the plan should take.

    A client's tests run one after another; clients of one wave (items' 'wave',
    0 when absent) side by side; waves one after another. parallel_pairs=False:
    every test one after another.
    """
    per_client = {}
    for item in items:
        key = (item.get('wave', 0), item['client'])
        per_client[key] = per_client.get(key, 0) + item['duration'] + TEST_OVERHEAD_S
    if not per_client:
        return 0
    if not parallel_pairs:
        return sum(per_client.values())
    per_wave = {}
    for (wave, client), seconds in per_client.items():
        per_wave[wave] = max(per_wave.get(wave, 0), seconds)
    return sum(per_wave.values())
