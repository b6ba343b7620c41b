# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The tool registry is the one place for each tool: ids, ports, docs and the roles agree with it."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import glob
import os
import re

import pytest
import yaml

from ansible.module_utils.common.arg_spec import ArgumentSpecValidator

from ansible_collections.perflab.network.plugins.module_utils.host import process
from ansible_collections.perflab.network.plugins.module_utils.core import record as rec
from ansible_collections.perflab.network.plugins.module_utils.tools import registry
from ansible_collections.perflab.network.plugins.module_utils.bench import runner
from ansible_collections.perflab.network.plugins.module_utils.plan import suite as suites
from ansible_collections.perflab.network.plugins.module_utils.tools.tool import PORT_STRIDE
from ansible_collections.perflab.network.plugins.module_utils.tools.tool import test_id as make_test_id
from ansible_collections.perflab.network.plugins.modules import benchmark_plan

ROOT = os.path.join(os.path.dirname(__file__), '..', '..', '..', '..')
SUITES = sorted(glob.glob(os.path.join(ROOT, 'roles', 'benchmark', 'files', 'suites', '*.yml')))


def load_yaml(*parts):
    with open(os.path.join(ROOT, *parts)) as handle:
        return yaml.safe_load(handle)


def suite_tests():
    for path in SUITES:
        with open(path) as handle:
            for test in suites.expand_suite(yaml.safe_load(handle)):
                yield os.path.basename(path), test


def adhoc_params(tool, test):
    """What the tool's own module gets when a user passes the suite entry's test and options ad hoc."""
    given = dict(test['options'], server='10.0.0.2', test=test['test'], parallel=test['parallel'],
                 processes=test['processes'])
    result = ArgumentSpecValidator(tool.argument_spec()).validate(given)
    assert not result.error_messages
    return result.validated_parameters


def test_grammar():
    assert make_test_id('iperf3', 'udp_stream', 5, 1, {'bitrate': 1000.0}) == 'iperf3/udp_stream/bitrate=1000/parallel=5'
    assert make_test_id('netperf', 'tcp_stream', 1, 4, {}) == 'netperf/tcp_stream/processes=4/parallel=1'
    assert make_test_id('iperf3', 'tcp_stream', 1, 1, {'zerocopy': True, 'omit': 2}) == \
        'iperf3/tcp_stream/omit=2/zerocopy=true/parallel=1'


@pytest.mark.parametrize('suite_name, test', list(suite_tests()), ids=lambda v: v if isinstance(v, str) else v['test_id'])
def test_a_suite_test_has_the_id_the_module_gives_it_ad_hoc(suite_name, test):
    tool = registry.get(test['tool'])
    assert tool.test_id(adhoc_params(tool, test)) == test['test_id']
    # and what the benchmark role runs (bench_test with the plan item's options)
    params, errors = runner.bench_test_params(tool, dict(
        server='10.0.0.2', test=test['test'], parallel=test['parallel'], processes=test['processes'],
        options=test['options'], path=None))
    assert errors == []
    assert tool.test_id(params) == test['test_id']


def plan_item(test, **extra):
    """One plan item of ``test`` as suite.build_plan makes it (pair ports included)."""
    pairs = [{'name': 'lab2->lab1', 'client': 'lab2', 'server': 'lab1', 'server_address': '10.0.0.1',
              'client_address': '10.0.0.2', 'client_interface': 'data0',
              'ports': dict((name, registry.get(name).default_port) for name in registry.NAMES)}]
    items, _skipped = suites.build_plan([test], pairs, {'lab2': 'stock', 'lab1': 'stock'})
    return dict(items[0], run_id='R1', suite='quick', **extra)


def bench_test_checked(args):
    """bench_test's arguments as its module checks them: the spec, then the plan item put in place."""
    result = ArgumentSpecValidator(runner.bench_test_argument_spec(), **runner.BENCH_TEST_RULES).validate(args)
    if result.error_messages:
        return None, list(result.error_messages)
    return runner.bench_test_arguments(result.validated_parameters)


@pytest.mark.parametrize('suite_name, test', list(suite_tests()), ids=lambda v: v if isinstance(v, str) else v['test_id'])
def test_bench_test_takes_a_plan_item_whole(suite_name, test):
    # what the benchmark role passes: the item and the run's context; the tool module's parameters follow
    item = plan_item(test)
    args, errors = bench_test_checked({'item': item, 'link_mbps': 100.0, 'tool_paths': ['/opt/perflab/bin']})
    assert errors == []
    tool = registry.get(test['tool'])
    params, errors = runner.bench_test_params(tool, args)
    assert errors == []
    assert tool.test_id(params) == item['test_id'] == params['test_id']
    assert (params['server'], params['port'], params['repetition'], params['client_name'], params['server_name']) == \
        ('10.0.0.1', item['port'], 1, 'lab2', 'lab1')
    assert params['link_mbps'] == 100.0 and params['tool_paths'] == ['/opt/perflab/bin']
    assert params['nic_interface'] == 'data0'
    # the client binds the pair's address where the tool's client can (nuttcp 6 cannot: the route picks it)
    assert params['bind'] == ('10.0.0.2' if tool.client_bind else None)
    assert tool.errors(params) == []


def test_bench_test_plan_item_context_and_refusals():
    test = next(test for _name, test in suite_tests() if test['tool'] == 'iperf3')
    args, errors = bench_test_checked({'item': plan_item(test, parallel_asked=7, title='T'), 'nic_sampling': False})
    assert errors == []
    assert args['nic_interface'] is None and args['parallel'] == 7 and args['title'] == 'T'
    # an item's test arguments are the item's: the spec's defaults do not override them
    assert args['duration'] == test['duration'] and args['options'] == plan_item(test)['tool_options']
    # one way to name the test: the item or the arguments
    assert bench_test_checked({'item': plan_item(test), 'tool': 'iperf3'})[1] == \
        ['parameters are mutually exclusive: tool|item']
    assert bench_test_checked({'server': '10.0.0.1'})[1] == ['one of the following is required: tool, item']
    assert bench_test_checked({'item': {'test': 'tcp_stream'}})[1] == \
        ['item: a plan item names its tool (tool), got the keys test']
    # a bad value in the item is refused by name before anything runs
    _args, errors = bench_test_checked({'item': dict(plan_item(test), port='http')})
    assert errors and errors[0].startswith('item: ') and 'port' in errors[0]


@pytest.mark.parametrize('suite_name, test', list(suite_tests()), ids=lambda v: v if isinstance(v, str) else v['test_id'])
def test_a_plan_skipped_record_names_the_test_as_a_run_would(suite_name, test):
    tool = registry.get(test['tool'])
    item = dict(test, config='stock', repetition=1, client='lab2', server='lab1', server_address='10.0.0.1',
                client_address='10.0.0.2', client_interface='data0')
    skipped = benchmark_plan.skipped_record(item, 'R1', suite_name, 'not installed')
    ran_test, protocol, direction = tool.record_test(adhoc_params(tool, test))
    assert (skipped['test_id'], skipped['test'], skipped['protocol'], skipped['direction']) == \
        (test['test_id'], ran_test, protocol, direction)
    # built on the controller: none of the controller's host facts
    assert skipped['client']['mtu'] is None and skipped['server']['mtu'] is None
    # a record's id rebuilt from its fields (how a perflab.result/1 record is matched on resume)
    assert tool.test_id_of_record(dict(skipped, processes=[{}] * test['processes'] if test['processes'] > 1 else None)) \
        == test['test_id']


def test_resume_matches_a_schema_1_record_by_its_rebuilt_id():
    old = {'schema': 'perflab.result/1', 'tool': 'ethr', 'test': 'tcp_latency', 'parallel': 8, 'processes': None,
           'options': {'test': 'latency', 'protocol': 'tcp', 'reverse': False, 'iterations': None},
           'test_id': 'ethr/latency/protocol=tcp/parallel=8'}
    assert suites.current_test_id(old) == 'ethr/tcp_latency/parallel=8'
    assert suites.current_test_id(dict(old, schema=rec.SCHEMA, test_id='kept')) == 'kept'


def test_every_tool_fits_its_ports_in_the_pair_stride():
    for tool in registry.TOOLS.values():
        # the most a pair uses: the largest process count the modules take, one stream each
        for first, last, _protocol in tool.openings(tool.default_port, tool.servers_for(12), 12, 1):
            assert tool.default_port <= first <= last < tool.default_port + PORT_STRIDE, tool.name


def test_the_tools_port_windows_of_a_plan_do_not_overlap():
    """Every port any pair of any tool can use on a server host belongs to that tool alone."""
    owner = {}
    for tool in registry.TOOLS.values():
        for k in range(suites.MAX_PAIRS_PER_SERVER):
            base = tool.plan_base() + PORT_STRIDE * k
            for first, last, protocol in tool.openings(base, tool.servers_for(12), 12, 1):
                for port in range(first, last + 1):
                    assert owner.setdefault((port, protocol), tool.name) == tool.name, (port, protocol, tool.name)


def test_module_docs_list_the_registry():
    for name, tool in registry.TOOLS.items():
        module = __import__('ansible_collections.perflab.network.plugins.modules.%s' % name, fromlist=['DOCUMENTATION'])
        doc = yaml.safe_load(module.DOCUMENTATION)
        assert sorted(doc['options']['test']['choices']) == sorted(tool.tests), name
        assert doc['options']['test']['default'] == tool.default_test
        documented = set(doc['options']) - {'test', '%s_path' % name}
        assert set(tool.options) <= documented, name
    # every list of tools written as text (bench_server's and bench_test's choices among them):
    # tests/unit/test_registry_lists.py


# the keys every tool module's RETURN starts with; what the record is and where its fields are documented is
# said once, in the test_common doc fragment's notes
TOOL_RETURN_HEAD = re.compile(r"perflab_result:\n  description: [^\n]*\b%s\b[^\n]*\n  returned: always\n  type: list\n"
                              r"  elements: dict\n  contains:\n")


def module_docs(name):
    module = __import__('ansible_collections.perflab.network.plugins.modules.%s' % name, fromlist=['RETURN'])
    return module.RETURN


def test_a_tool_module_returns_what_bench_test_documents_and_only_its_particulars():
    common = yaml.safe_load(module_docs('bench_test'))['perflab_result']['contains']
    # bench_test's RETURN documents the record's fields every tool fills
    assert set(['test_id', 'options', 'command', 'metrics', 'intervals', 'processes', 'status', 'error']) <= set(common)
    for name in registry.NAMES:
        text = module_docs(name)
        assert re.compile(TOOL_RETURN_HEAD.pattern % name).match(text.lstrip('\n')), name
        returned = yaml.safe_load(text)
        particular = returned['perflab_result']['contains']
        # what a tool's module adds is a field bench_test documents, said for that tool
        assert particular and set(particular) <= set(common), (name, sorted(set(particular) - set(common)))
        assert set(returned) - {'perflab_result'} <= set(yaml.safe_load(module_docs('bench_test'))), name


def test_where_the_tools_role_installs_is_where_every_module_looks():
    defaults = load_yaml('roles', 'tools', 'defaults', 'main.yml')
    assert defaults['tools_prefix'] + '/bin' == process.INSTALL_DIR
    assert process.INSTALL_DIR in process.EXTRA_BIN_DIRS
    # the benchmark role adds <tools_prefix>/bin when tools_prefix is set for the host (expand.yml)
    assert load_yaml('roles', 'benchmark', 'defaults', 'main.yml')['benchmark_tool_paths'] == []


def test_a_default_port_is_written_only_in_its_tool_file():
    """Code and role data carry no tool's default port: they ask the registry (docs may quote them)."""
    ports = [str(tool.default_port) for tool in registry.TOOLS.values()]
    pattern = re.compile(r'(?<![0-9.])(%s)(?![0-9])' % '|'.join(ports))
    offenders = []
    code = glob.glob(os.path.join(ROOT, 'plugins', '**', '*.py'), recursive=True)
    data = [path for part in ('tasks', 'vars', 'defaults') for path in glob.glob(os.path.join(ROOT, 'roles', '*', part, '*.yml'))]
    data += glob.glob(os.path.join(ROOT, 'playbooks', '**', '*.yml'), recursive=True)
    for path in code + data:
        if os.sep + 'tools' + os.sep in path and path.endswith('.py'):
            continue
        with open(path) as handle:
            text = handle.read()
        if path.endswith('.py'):
            # documentation strings may quote the defaults
            text = re.sub(r"(DOCUMENTATION|EXAMPLES|RETURN) = r'''.*?'''", '', text, flags=re.S)
            text = re.sub(r'""".*?"""', '', text, flags=re.S)
        for number, line in enumerate(text.splitlines(), 1):
            code_part = line.split('#', 1)[0]
            if pattern.search(code_part):
                offenders.append('%s:%d: %s' % (os.path.relpath(path, ROOT), number, line.strip()))
    assert offenders == []


def test_an_option_s_flag_is_declared_once_and_built_by_the_one_argv_builder():
    from ansible_collections.perflab.network.plugins.module_utils.tools.tool import Option
    assert Option('str', flag='-w').argv('256K') == ['-w', '256K']
    assert Option('int', flag='-O').argv(0) == [] and Option('int', flag='-w', zero=True).argv(0) == ['-w', '0']
    assert Option('bool', flag=['-c', '-C']).argv(True) == ['-c', '-C'] and Option('bool', flag='-Z').argv(False) == []
    assert Option('int', flag='-l', attach=True, fmt='%d').argv(8192) == ['-l8192']
    assert Option('float', flag='-b', fmt='%gm').argv(None) == []
    # every tool: an option's flag is in the client's argv when the option is set for a test it applies to
    for name, tool in registry.TOOLS.items():
        for option_name, option in tool.options.items():
            if option.flag is None:
                continue
            test = (option.tests or [tool.default_test])[0]
            value = {'int': 1, 'float': 1.0, 'bool': True, 'str': '64K'}[option.kind]
            params = tool.params_of(test, options={option_name: value})
            params.update(server='10.0.0.1', port=None, duration=10, bind=None, data_port=params.get('data_port'))
            argv = tool.client_argv(params, name)
            flag = option.flag[0] if isinstance(option.flag, list) else option.flag
            assert any(arg == flag or (option.attach and arg.startswith(flag)) for arg in argv), (name, option_name, argv)


def test_a_plan_item_that_says_its_bind_is_taken_at_its_word():
    test = next(test for _name, test in suite_tests() if test['tool'] == 'iperf3')
    assert runner.plan_item_args(dict(plan_item(test), bind=None)).get('bind') is None
    assert runner.plan_item_args(dict(plan_item(test), bind='10.0.0.9'))['bind'] == '10.0.0.9'
