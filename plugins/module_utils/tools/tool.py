# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""What every benchmark tool of the registry says about itself, and the test id grammar.

A tool is described once, in ``module_utils/tools/<tool>/tool.py``, by a subclass of
:class:`Tool`: its ports, its tests, its options (type, default, range, whether
they name the test), the client and server argv, how to read its version, the
parse entry point and how several processes of one test combine. Suites,
``bench_server``, the plan, the firewall openings, the runner and the docs read
the tool from ``module_utils/tools/registry.py``. Pure code: no I/O here.

Test id grammar (docs/result-record.md), built only by :func:`test_id`::

    <tool>/<test>[/<option>=<value>]...[/processes=<n>]/parallel=<n>

``test`` is the record's normalized test name (tcp_stream, tcp_latency, ...);
the options are those the tool marks ``in_id`` whose value differs from the
default, sorted by name; floats print as ``%g``, booleans as ``true``.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import copy
import re

from ansible_collections.perflab.network.plugins.module_utils.core import common_args
from ansible_collections.perflab.network.plugins.module_utils.core import record as rec

# how long a tool may take to print its version (version_argv): the test modules' probe and the tools role's report
VERSION_TIMEOUT_S = 10

# the tools role's install families: a vars file's __tools_install_family names one; every tool's ``install``
# has an entry for each (tests/unit/test_registry_lists.py)
INSTALL_FAMILIES = ('Debian', 'Ubuntu', 'RedHat', 'Fedora', 'ClearLinux', 'FreeBSD', 'Windows')


def package(*names, **extra):
    """An ``install`` entry: the OS's package(s) (``extra``: apt_component, repo)."""
    return dict(extra, method='package', packages=list(names))


def distro_packages(name, **redhat):
    """The ``install`` entries of a package called ``name`` on Debian, Ubuntu (in its universe component), the EL
    family (``redhat``: where it comes from there, e.g. ``repo='epel'``) and Fedora."""
    return {'Debian': package(name), 'Ubuntu': package(name, apt_component='universe'),
            'RedHat': package(name, **redhat), 'Fedora': package(name)}


def unavailable(reason):
    """An ``install`` entry: the OS cannot have the tool, and why."""
    return {'method': 'unavailable', 'reason': reason}


# per server host, pair k's servers listen on base + PORT_STRIDE * k (each tool's ports of
# one pair, processes and data ports included, must fit in the stride)
PORT_STRIDE = 24


class Option(object):
    """One tool option: its argument spec, range, the tests it applies to, whether it names the test, and
    its flag on the client's command line (community.general's cmd_runner: an argument's format declared once).

    ``flag``: the client argument (``'-w'``; a bool option's flag may be a list, ``['-c', '-C']``), None when the
    option is no flag of its own (the tool's ``client_argv`` uses it). ``fmt``: the value as text (a format
    string, or a function of the value; ``str`` by default). ``attach``: the value joined to the flag (nuttcp's
    ``-l8192``). ``zero``: the flag is given for a value of 0 too (else 0, like None and False, gives nothing).
    :meth:`Tool.options_argv` builds them, in the order the options are declared.
    """

    def __init__(self, kind, default=None, choices=None, low=None, high=None, tests=None, in_id=False,
                 suite=True, description='', spec=None, flag=None, fmt=None, attach=False, zero=False):
        self.flag = flag
        self.fmt = fmt
        self.attach = attach
        self.zero = zero
        self.kind = kind
        self.default = default
        self.choices = choices
        self.low = low
        self.high = high
        self.tests = tests
        self.in_id = in_id
        self.suite = suite
        self.description = description
        self.extra_spec = spec or {}

    def argv(self, value):
        """This option's client arguments for ``value`` ([] when not given)."""
        if self.flag is None or value is None or value is False or (value == 0 and not self.zero and value is not True):
            return []
        if value is True:
            return list(self.flag) if isinstance(self.flag, (list, tuple)) else [self.flag]
        if self.fmt is None:
            text = str(value)
        elif callable(self.fmt):
            text = self.fmt(value)
        else:
            text = self.fmt % value
        return [self.flag + text] if self.attach else [self.flag, text]

    def spec(self):
        spec = dict(self.extra_spec, type=self.kind)
        if self.default is not None:
            spec['default'] = self.default
        if self.choices is not None:
            spec['choices'] = list(self.choices)
        return spec


class Test(object):
    """One test a tool's module takes: protocol, direction, the metric a report ranks it by."""

    def __init__(self, protocol, direction, primary='throughput_mbps', record_test=None, flags=()):
        self.protocol = protocol
        self.direction = direction
        self.primary = primary
        self.record_test = record_test
        self.flags = list(flags)


SIZE_RE = re.compile(r'^[1-9][0-9]{0,9}[KMGkmg]?$')


def udp_bitrate_errors(params, udp_test='udp_stream'):
    """The UDP rate a client needs (Mbit/s per stream, 0 unlimited) and only UDP takes: iperf3, iperf2, nuttcp."""
    test = params['test']
    if test == udp_test:
        if params.get('bitrate') is None:
            return ['bitrate (Mbit/s per stream, 0 = unlimited) is required for %s' % udp_test]
        if not 0 <= params['bitrate'] <= 1000000:
            return ['bitrate must be between 0 and 1000000 Mbit/s, got %s' % params['bitrate']]
    elif params.get('bitrate') is not None:
        return ['bitrate applies to %s only, not %s' % (udp_test, test)]
    return []


def size_errors(params, fields=('window', 'length'), valid=SIZE_RE.match):
    """Sizes given as text with an optional K, M or G suffix (socket buffers, write lengths)."""
    return ['%s must be a positive number with an optional K, M or G suffix (e.g. 256K), got %r' % (field, params[field])
            for field in fields if params.get(field) is not None and not valid(params[field])]


def _id_value(value):
    if value is True:
        return 'true'
    if isinstance(value, float):
        return '%g' % value
    return str(value)


def test_id(tool, test, parallel=1, processes=1, options=None):
    """The one test id of ``tool``'s normalized ``test`` (see the module docstring)."""
    parts = [tool, test]
    for key in sorted(options or {}):
        parts.append('%s=%s' % (key, _id_value(options[key])))
    if int(processes or 1) > 1:
        parts.append('processes=%d' % int(processes))
    parts.append('parallel=%d' % int(parallel or 1))
    return '/'.join(parts)


# the rates a record's reading can name (the primary metric of a transfer) and the side each counts
READING_METRICS = {'throughput_mbps': None, 'throughput_sent_mbps': 'sender', 'throughput_received_mbps': 'receiver'}


class Tool(object):
    """A benchmark tool. Subclasses set the class attributes and override what differs."""

    name = None               # registry key, the module's name, the record's `tool`
    title = None              # the name reports print ("iPerf3")
    client_executable = None  # what the client runs (found on PATH or in process.INSTALL_DIR)
    server_executable = None  # what bench_server runs
    default_port = None       # the (control) port of one server
    plan_port = None          # pair 0's port in a plan (None: default_port); pair k's is plan_port + PORT_STRIDE * k
    tests = {}                # module test name -> Test
    plan_tests = None         # the tests a plan can run (servers bench_server starts); None: all
    options = {}              # option name -> Option (beside the common test arguments)
    default_test = None
    # metric -> combine rule where this tool's value means something else than METRICS says
    combine_overrides = {}
    # the metrics only this tool measures, name -> (unit, higher is better, combine rule) as record.METRICS's:
    # the record builder takes them from here, the reports through registry.METRICS
    metrics = {}
    # seconds on top of the duration for connecting and the end-of-test exchange
    setup_s = 5
    # prefix the error of process N of several with its port ("port 5202: ...")
    one_server_per_process = True
    # the server takes an idle timeout (bench_server's idle_timeout)
    server_idle_timeout = False
    # regexes of server log lines that make a test's values wrong (the server hit a limit), and
    # what the record then says (%(count)d, %(nofile)s, %(line)s); the benchmark role reads the
    # server's log after each test of such a tool (bench_server state=status) and bench_record says so
    server_log_problems = ()
    server_log_message = ''
    # the tool has a Windows build (the action plugins of bench_test, bench_server, bench_preflight and system_profile can run it on a Windows host)
    windows = True
    # --- report titles (the Phoronix result tables' style: "iPerf 3.12 - Duration: 60 Seconds - Test: UDP -
    # 1000 Mbit Objective - Parallel: 5"): the name they start with (None: ``title``), the label after
    # "Test:" of each record test, the phrase of each option that names a test (``%s`` its value), and
    # how the streams are named ("Parallel", "Threads"; None: only when more than one)
    report_name = None
    report_tests = {}
    report_options = {}
    report_parallel = None
    # the client can bind its source address (bench_test's ``bind``; a plan item's ``bind`` is None without it)
    client_bind = True
    # --- install data, read by the tools role (the tools_plan filter, ``install_plan``): family -> entry, for each
    # family of INSTALL_FAMILIES (the role's vars files name theirs in __tools_install_family):
    # {method: package|source|release_zip|release_binary|unavailable, packages: [...], apt_component (apt),
    #  repo: epel (RedHat), asset (ethr's release zip), binary (a release build's file), reason (unavailable)}
    install = {}
    # the firewall role's settings of this tool's openings outside a plan (``standalone_openings``): setting ->
    # Option (default, range, description); the role's variable is firewall_<setting>
    firewall_settings = {}
    # whose count a transfer test's throughput_mbps is: 'receiver' (what arrived: iperf3's end sums, netperf's
    # streams, nuttcp) or 'client' (the client's own count: what it wrote, or read with a reverse test)
    throughput_count = 'receiver'

    # --- ports -----------------------------------------------------------------------
    def plan_base(self):
        return self.plan_port or self.default_port

    def servers_for(self, processes):
        """How many servers (consecutive ports from the pair's port) a test of ``processes`` needs."""
        return int(processes or 1) if self.one_server_per_process else 1

    def process_port(self, params, index):
        """The server port client process ``index`` (0-based) talks to."""
        return (params.get('port') or self.default_port) + (index if self.one_server_per_process else 0)

    def argv_port(self, argv):
        """The server (control) port a client argv of this tool talks to."""
        return int(argv[argv.index('-p') + 1])

    def result_port(self, params, index):
        """The port that names process ``index`` in the record's ``processes``."""
        return self.process_port(params, index)

    def pair_arguments(self, port):
        """Module arguments a pair's plan adds for a server on ``port`` (netperf pins its data port)."""
        return {'port': port}

    def openings(self, port, count, processes=1, parallel=1):
        """The firewall openings ``count`` servers from ``port`` need: [(first, last, protocol)]."""
        return [(port, port + count - 1, 'tcp'), (port, port + count - 1, 'udp')]

    def standalone_openings(self, settings):
        """Openings for servers on the default port(s) outside a plan (the firewall role's tool table).

        ``settings``: the firewall role's settings of every tool (each tool's ``firewall_settings``, defaults filled in).
        """
        return self.openings(self.default_port, 1)

    # --- options ---------------------------------------------------------------------
    def argument_spec(self):
        spec = common_args.common_argument_spec()
        spec['test'] = dict(type='str', default=self.default_test, choices=sorted(self.tests))
        for name, option in self.options.items():
            spec[name] = option.spec()
        spec['%s_path' % self.name] = dict(type='path')
        return spec

    def params_of(self, test, parallel=1, processes=1, options=None):
        """A test's module parameters from a suite entry (option defaults filled in)."""
        params = dict((name, option.default) for name, option in self.options.items())
        params.update(options or {})
        params.update(test=test, parallel=int(parallel or 1), processes=int(processes or 1))
        return params

    def option_type_errors(self, options, tests=()):
        """Problems converting a suite's ``options`` to the types the module takes (e.g. bitrate "1G"), the
        ranges of the converted values (one message per option, naming its type, range and unit), and then
        the tool's own checks of them (sizes such as window "256K") for each of ``tests``."""
        from ansible.module_utils.common.arg_spec import ArgumentSpecValidator
        errors = []
        converted = {}
        for name in options:
            option = self.options.get(name)
            if option is None:
                continue
            spec = option.spec()
            spec.pop('default', None)
            result = ArgumentSpecValidator({name: spec}).validate({name: options[name]})
            if result.error_messages:
                kinds = {'int': 'a whole number', 'float': 'a number', 'bool': 'true or false'}
                kind = kinds.get(spec.get('type'), spec.get('type'))
                where = ' from %s to %s' % (option.low, option.high) if option.low is not None else ''
                unit = ' (%s)' % option.description if getattr(option, 'description', None) else ''
                errors.append('%s option %s must be %s%s%s, got %r' % (self.name, name, kind, where, unit, options[name]))
                continue
            converted[name] = result.validated_parameters[name]
            errors += ['%s option %s' % (self.name, error)
                       for error in Tool.range_errors(self, result.validated_parameters) if error.startswith(name + ' ')]
        if errors:
            return errors
        for test in tests:
            try:
                found = self.option_errors(dict(converted, test=test))
            except (KeyError, TypeError, ValueError):   # a check that needs a module parameter the suite has not
                continue
            errors += ['%s option %s' % (self.name, error) for error in found
                       if any(error.startswith(name + ' ') for name in converted)
                       and '%s option %s' % (self.name, error) not in errors]
        return errors

    def options_argv(self, params, names=None):
        """The client arguments of the options that declare a flag (``names``, else all, in declaration order),
        each only for the tests it applies to: the one argv builder of every tool (cmd_runner's model)."""
        test = params.get('test') or self.default_test
        argv = []
        for name in self.options if names is None else names:
            option = self.options[name]
            if option.tests is None or test in option.tests:
                argv += option.argv(params.get(name))
        return argv

    def install_entry(self, family):
        """How the tools role installs this tool on ``family`` (a copy of ``install[family]``)."""
        return copy.deepcopy(self.install[family])

    def suite_options(self):
        return tuple(sorted(name for name, option in self.options.items() if option.suite))

    def range_errors(self, params):
        """The ranges the options declare (low, high), in option order."""
        errors = []
        for name, option in self.options.items():
            value = params.get(name)
            if option.low is None or value is None or isinstance(value, bool) or not isinstance(value, (int, float)):
                continue
            if not option.low <= value <= option.high:
                errors.append('%s must be between %s and %s, got %s' % (name, option.low, option.high, value))
        return errors

    def option_errors(self, params):
        """The tool's own cross-option checks (beyond range_errors)."""
        return []

    def errors(self, params):
        errors = self.range_errors(params)
        if not self.client_bind and params.get('bind') is not None:
            errors.append('bind is not supported by %s (the client cannot bind a source address)' % self.name)
        return errors + self.option_errors(params)

    def given_options(self, params):
        """The record's ``options``: the test and every tool option that is set (None left out)."""
        options = {'test': params.get('test') or self.default_test}
        for name in self.options:
            if params.get(name) is not None:
                options[name] = copy.deepcopy(params[name])
        return options

    def id_options(self, options):
        """The options that name a test (``in_id``, set, not the default)."""
        out = {}
        for name, option in self.options.items():
            value = (options or {}).get(name)
            if option.in_id and value is not None and value is not False and value != option.default:
                out[name] = value
        return out

    # --- what the test is ------------------------------------------------------------
    def record_test(self, params):
        """(normalized test, protocol, direction) of the record of a test with ``params``."""
        test = self.tests[params.get('test') or self.default_test]
        return test.record_test or (params.get('test') or self.default_test), test.protocol, test.direction

    def primary(self, params):
        return self.tests[params.get('test') or self.default_test].primary

    def reading(self, params):
        """The record's ``reading``: whose count the primary metric of a one-way transfer is,
        ``{side: sender|receiver, host: client|server}``; None for the tests that rank by anything else
        (latency, transactions, connections) and for bidirectional ones (both ends send and receive)."""
        primary = self.primary(params)
        direction = self.record_test(params)[2]
        if primary not in READING_METRICS or direction == 'bidirectional':
            return None
        if primary != 'throughput_mbps':
            side = READING_METRICS[primary]
        elif self.throughput_count == 'client':
            side = 'sender' if direction == 'client_to_server' else 'receiver'
        else:
            side = 'receiver'
        host = 'client' if (side == 'sender') == (direction == 'client_to_server') else 'server'
        return {'side': side, 'host': host}

    def effective_parallel(self, params):
        """The streams/threads the tool really runs (a tool version may ignore the option)."""
        return int(params.get('parallel') or 1)

    def notes(self, params):
        """What a record of a test with ``params`` must say beside its values (e.g. an option ignored)."""
        return []

    def test_id(self, params):
        test = self.record_test(params)[0]
        return test_id(self.name, test, self.effective_parallel(params), params.get('processes') or 1,
                       self.id_options(params))

    def test_id_of_record(self, record):
        """The id of a record (of any schema), from its fields."""
        processes = len(record.get('processes') or []) or 1
        return test_id(self.name, record.get('test'), record.get('parallel') or 1, processes,
                       self.id_options(record.get('options') or {}))

    # --- report titles -----------------------------------------------------------------
    def report_test_label(self, test, protocol='', direction='', options=None):
        """The label after "Test:" of a record test (the tool's ``report_tests``, else the test's name)."""
        return self.report_tests.get(test) or (test or '').replace('_', ' ').upper()

    def report_option_phrases(self, options):
        """The phrases of the options that name the test (``in_id``, set, not the default), in option order."""
        phrases = []
        named = self.id_options(options or {})
        for name in self.options:
            if name not in named:
                continue
            value = named[name]
            template = self.report_options.get(name)
            if template is None:
                template = name.replace('_', ' ').title() + ': %s'
            text = '%g' % value if isinstance(value, float) else ('' if value is True else str(value))
            phrase = template % text if '%s' in template else template
            if phrase:   # '' names no phrase: the option is said elsewhere (the report's metric)
                phrases.append(phrase)
        return phrases

    def report_parallel_phrase(self, parallel, processes=1):
        phrases = []
        if isinstance(parallel, int) and not isinstance(parallel, bool):
            if self.report_parallel:
                phrases.append('%s: %d' % (self.report_parallel, parallel))
            elif parallel > 1:
                phrases.append('Parallel: %d' % parallel)
        if processes and processes > 1:
            phrases.append('Processes: %d' % processes)
        return phrases

    def report_title(self, test, versions=(), protocol='', direction='', parallel=None, duration=None,
                     options=None, processes=1, title=None):
        """The report's title of a test: name and version, duration, "Test:" (a suite's ``title`` wins
        over the tool's label), every option that names the test, the streams; the one place titles are made."""
        name = self.report_name or self.title or self.name
        if versions:
            name = '%s %s' % (name, '/'.join(versions))
        parts = [name]
        if duration:
            parts.append('Duration: %g Seconds' % duration)
        parts.extend(self.report_test_parts(test, protocol, direction, options, title))
        parts.extend(self.report_option_phrases(options))
        parts.extend(self.report_parallel_phrase(parallel, processes))
        return ' - '.join(part for part in parts if part)

    def report_test_parts(self, test, protocol, direction, options, title):
        return ['Test: %s' % (title or self.report_test_label(test, protocol, direction, options))]

    # --- running ---------------------------------------------------------------------
    def version_argv(self, executable):
        return [executable, '--version']

    def parse_version(self, text):
        raise NotImplementedError

    def check_version(self, params, version, help_text):
        """None, or why this installed version cannot run the test asked for."""
        return None

    def client_argv(self, params, executable, index=0):
        raise NotImplementedError

    def server_argv(self, executable, port, bind=None, idle_timeout=None):
        raise NotImplementedError

    def server_listen_address(self, bind):
        """The address a server started with ``bind`` really listens on (None = all)."""
        return bind

    def timeout(self, params):
        return common_args.effective_timeout(params, extra=self.setup_s)

    def parse(self, params, proc, context):
        """{'metrics': {name: value}, 'intervals': [...], 'version': str, 'error': str or None}."""
        raise NotImplementedError

    def combine(self, parsed, params):
        """The record metrics of several processes (``parsed``: their parse results)."""
        return rec.combine_metrics([result['metrics'] for result in parsed], self.combine_overrides, self.metrics)

    def combine_intervals(self, parsed):
        return rec.combine_intervals([result['intervals'] for result in parsed], self.combine_overrides, self.metrics)

    def result_extra(self, params, parsed, module):
        """Return values beside ``perflab_result`` (netperf's confidence); may warn through ``module``."""
        return {}
