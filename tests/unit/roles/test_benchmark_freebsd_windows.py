# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A study with a FreeBSD host and a Windows host (issue 18): the role's tool lookup per OS, the plan, the preflight.

The facts are tests/unit/fixtures/facts/{freebsd-12,windows-2019}-from-docs.json; the tool lookup's output is
what which(1) and where.exe print for the tools the tools role installs there (FreeBSD: iperf3, netperf,
nuttcp and ethr from packages; Windows: iperf3 from Chocolatey, nuttcp.exe and ethr.exe, no netperf).
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json
from pathlib import Path

import pytest
import yaml
from ansible.module_utils.testing import patch_module_args
from ansible.parsing.dataloader import DataLoader
from ansible.template import Templar

from ansible_collections.perflab.network.plugins.action import bench_preflight as windows_preflight
from ansible_collections.perflab.network.plugins.filter.study_label import study_label
from ansible_collections.perflab.network.plugins.filter.tool_executables import tool_executables
from ansible_collections.perflab.network.plugins.filter.tool_search_path import tool_search_path
from ansible_collections.perflab.network.plugins.module_utils.host import platform as host_platform
from ansible_collections.perflab.network.plugins.module_utils.host import windows as win
from ansible_collections.perflab.network.plugins.module_utils.bench import preflight
from ansible_collections.perflab.network.plugins.module_utils.tools import registry
from ansible_collections.perflab.network.plugins.module_utils.host import process
from ansible_collections.perflab.network.plugins.module_utils.host.process import ProcessResult
from ansible_collections.perflab.network.plugins.modules import benchmark_plan

try:
    from ansible.template import trust_as_template
except ImportError:  # pragma: no cover
    def trust_as_template(text):
        return text

ROOT = Path(__file__).resolve().parents[3]
PLAN = ROOT / 'roles' / 'benchmark' / 'tasks' / 'plan.yml'
# the tools found, the labels and the plan: the role's `expand` entry point, which plan.yml includes
EXPAND = ROOT / 'roles' / 'benchmark' / 'tasks' / 'expand.yml'
FACTS = ROOT / 'tests' / 'unit' / 'fixtures' / 'facts'
SUITES = ROOT / 'roles' / 'benchmark' / 'files' / 'suites'
DEFAULTS = dict((key, trust_as_template(value) if isinstance(value, str) else value) for key, value in
                yaml.safe_load((ROOT / 'roles' / 'benchmark' / 'defaults' / 'main.yml').read_text()).items())


def facts(name):
    return json.loads((FACTS / name).read_text())['ansible_facts']


def render(template, variables):
    # the collection's filter as the role calls it (the unit tests load no collection into Ansible)
    template = template.replace('perflab.network.tool_executables', 'perflab_tool_executables')
    template = template.replace('perflab.network.study_label', 'perflab_study_label')
    template = template.replace('perflab.network.tool_search_path', 'perflab_tool_search_path')
    templar = Templar(loader=DataLoader(), variables=variables)
    templar.environment.filters['perflab_tool_executables'] = tool_executables
    templar.environment.filters['perflab_study_label'] = study_label
    templar.environment.filters['perflab_tool_search_path'] = tool_search_path
    return templar.template(trust_as_template(template))


def condition(expression, variables):
    return render('{{ %s }}' % expression, variables)


def task(name):
    return [t for t in yaml.safe_load(PLAN.read_text()) + yaml.safe_load(EXPAND.read_text()) if t.get('name') == name][0]


def tools_found(host_facts, stdout_lines):
    """The role's 'Note the configuration label and the tools' over one host's facts and lookup output."""
    variables = dict(DEFAULTS, ansible_facts=host_facts, inventory_hostname='h1', groups={}, **host_facts)
    variables['__benchmark_which'] = {'stdout_lines': stdout_lines}
    variables['__benchmark_where'] = {'stdout_lines': stdout_lines}
    note_task = task('Note the configuration label and the tools of each host')
    note = note_task['ansible.builtin.set_fact']
    for name, value in note_task.get('vars', {}).items():
        variables[name] = render(value, variables)
    return render(note['__benchmark_tools_found'], variables), render(note['__benchmark_label'], variables)


FREEBSD = facts('freebsd-12-from-docs.json')
WINDOWS = facts('windows-2019-from-docs.json')
BSD_WHICH = ['/usr/local/bin/iperf3', '/usr/local/bin/netperf', '/usr/local/bin/netserver', '/usr/local/bin/nuttcp',
             '/usr/local/bin/ethr']
WIN_WHERE = ['C:\\ProgramData\\chocolatey\\bin\\iperf3.exe', 'C:\\perflab\\bin\\nuttcp.exe',
             'C:\\perflab\\ethr\\ethr.exe']


def test_the_tool_lookup_runs_the_os_s_own_command():
    which = task('Find the benchmark tools on each host')
    where = task('Find the benchmark tools on each Windows host')
    variables = dict(DEFAULTS, benchmark_tools=[])
    assert condition(which['when'], dict(variables, **FREEBSD)) is True
    assert condition(which['when'], dict(variables, **WINDOWS)) is False
    assert condition(where['when'], dict(variables, **WINDOWS)) is True
    assert condition(where['when'], dict(variables, **FREEBSD)) is False
    argv = render(where['ansible.windows.win_command']['argv'], variables)
    assert argv == ['where.exe'] + [name for tool in registry.NAMES for name in
                                    dict.fromkeys((registry.get(tool).client_executable,
                                                   registry.get(tool).server_executable))]
    folders = task('Note the folders each host\'s tools are looked for in after PATH')['ansible.builtin.set_fact']
    win_folders = render(folders['__benchmark_tool_folders'], dict(variables, **WINDOWS))
    assert win_folders == []
    path = render(where['environment']['PATH'], dict(variables, __benchmark_tool_folders=win_folders,
                                                     ansible_env={'PATH': 'C:\\Windows\\system32'}))
    assert path == 'C:\\Windows\\system32;C:\\ProgramData\\chocolatey\\bin;C:\\perflab\\bin;C:\\perflab\\ethr'
    # the folders given and the tools role's prefix, before the usual ones, on either OS (issue 29)
    win_folders = render(folders['__benchmark_tool_folders'], dict(
        variables, benchmark_windows_tool_paths=['D:\\tools'], tools_windows_prefix='E:\\perf', **WINDOWS))
    assert win_folders == ['D:\\tools', 'E:\\perf/bin']
    path = render(where['environment']['PATH'], dict(variables, __benchmark_tool_folders=win_folders,
                                                     ansible_env={'PATH': 'C:\\Windows\\system32'}))
    assert path.startswith('C:\\Windows\\system32;D:\\tools;E:\\perf/bin;C:\\ProgramData\\chocolatey\\bin;')
    bsd_folders = render(folders['__benchmark_tool_folders'], dict(variables, tools_prefix='/opt/x', **FREEBSD))
    assert bsd_folders == ['/opt/x/bin']
    path = render(which['environment']['PATH'], dict(variables, __benchmark_tool_folders=bsd_folders,
                                                     ansible_env={'PATH': '/sbin:/bin:/usr/bin'}))
    # the order of every module's lookup (process.search_dirs): PATH, the folders, the usual ones
    assert path.split(':')[:4] == ['/sbin', '/bin', '/usr/bin', '/opt/x/bin']
    assert path.split(':')[4:] == [d for d in process.EXTRA_BIN_DIRS if d not in ('/sbin', '/bin', '/usr/bin')]


def run_plan(args, capsys):
    with patch_module_args(args):
        with pytest.raises(SystemExit):
            benchmark_plan.main()
    return json.loads(capsys.readouterr().out)


def test_a_freebsd_and_a_windows_client_plan_every_test_their_tools_support(capsys, tmp_path):
    bsd_tools, bsd_label = tools_found(FREEBSD, BSD_WHICH)
    win_tools, win_label = tools_found(WINDOWS, WIN_WHERE)
    assert bsd_tools == ['iperf3', 'netperf', 'netserver', 'nuttcp', 'ethr']
    assert win_tools == ['iperf3.exe', 'nuttcp.exe', 'ethr.exe']
    # the full version (docs/studies.md)
    assert bsd_label == 'FreeBSD 12.0 stock' and win_label == 'Microsoft Windows Server 2019 Datacenter 10.0.17763.0 stock'
    linux = ['iperf3', 'iperf', 'netperf', 'netserver', 'nuttcp', 'ethr', 'sockperf']

    def host(address, interface, peer, family):
        return {'data_address': address, 'data_interface': interface, 'peer': peer, 'switch': None,
                'os_family': family}
    # FreeBSD and Windows as clients (of deb1) and as servers (of deb2, deb3)
    hosts = {'deb1': host('10.218.1.1', 'eth1', None, 'Debian'),
             'deb2': host('10.218.1.4', 'eth1', 'bsd1', 'Debian'),
             'deb3': host('10.218.1.5', 'eth1', 'win1', 'Debian'),
             'bsd1': host('10.218.1.2', 'vtnet1', None, FREEBSD['ansible_os_family']),
             'win1': host('10.218.1.3', 'Ethernet 2', None, WINDOWS['ansible_os_family'])}
    pairs = [{'client': 'bsd1', 'server': 'deb1'}, {'client': 'win1', 'server': 'deb1'},
             {'client': 'deb2', 'server': 'bsd1'}, {'client': 'deb3', 'server': 'win1'}]
    result = run_plan({'suite': 'quick', 'suite_paths': [str(SUITES)], 'hosts': hosts, 'pairs': pairs,
                       'results_dir': str(tmp_path),
                       'labels': {'deb1': 'Debian 12 stock', 'deb2': 'Debian 12 stock', 'deb3': 'Debian 12 stock',
                                  'bsd1': bsd_label, 'win1': win_label},
                       'tools_present': {'deb1': linux, 'deb2': linux, 'deb3': linux, 'bsd1': bsd_tools,
                                         'win1': win_tools}}, capsys)
    assert result.get('failed') is not True, result
    quick = yaml.safe_load((SUITES / 'quick.yml').read_text())
    suite_tests = [(test['tool'], name) for test in quick['tests']
                   for name in (test['test'] if isinstance(test['test'], list) else [test['test']])]
    assert set(tool for tool, _test in suite_tests) == {'iperf3', 'iperf2', 'netperf', 'nuttcp', 'ethr', 'sockperf'}
    planned = dict((pair, set(item['tool'] for item in result['runs'] if (item['client'], item['server']) == pair))
                   for pair in (('bsd1', 'deb1'), ('win1', 'deb1'), ('deb2', 'bsd1'), ('deb3', 'win1')))
    # every tool the tools role installs there (iperf2 is not in its default list)
    assert planned[('bsd1', 'deb1')] == planned[('deb2', 'bsd1')] == {'iperf3', 'netperf', 'nuttcp', 'ethr'}
    assert planned[('win1', 'deb1')] == planned[('deb3', 'win1')] == {'iperf3', 'nuttcp', 'ethr'}
    # and every test of those tools, not only one of each: what the Linux pair deb2->deb1 would plan
    linux_plan = run_plan({'suite': 'quick', 'suite_paths': [str(SUITES)], 'results_dir': str(tmp_path),
                           'hosts': {'deb1': hosts['deb1'], 'deb2': dict(hosts['deb2'], peer='deb1')},
                           'pairs': [{'client': 'deb2', 'server': 'deb1'}],
                           'labels': {'deb1': 'Debian 12 stock', 'deb2': 'Debian 12 stock'},
                           'tools_present': {'deb1': linux, 'deb2': linux}}, capsys)
    every = sorted(item['test_id'] for item in linux_plan['runs'])
    for pair, tools in planned.items():
        ids = sorted(item['test_id'] for item in result['runs'] if (item['client'], item['server']) == pair)
        assert ids == [test_id for test_id in every if test_id.split('/')[0] in tools], pair
    why = dict((record['tool'], record['error']) for record in result['perflab_result']
               if record['client']['name'] == 'win1')
    assert why == {'iperf2': 'iperf2 is not installed on win1 (install it with the perflab.network.tools role)',
                   'netperf': 'netperf has no Windows build: its tests are left out on win1',
                   'sockperf': 'sockperf has no Windows build: its tests are left out on win1'}
    why = dict((record['tool'], record['error']) for record in result['perflab_result']
               if record['server']['name'] == 'win1')
    assert why['netperf'] == 'netperf has no Windows build: its tests are left out on win1'


def test_the_freebsd_preflight_passes(monkeypatch):
    """bench_preflight on a FreeBSD host: FreeBSD's ping argv, the listeners from sockstat (real output)."""
    sockstat = (ROOT / 'tests' / 'unit' / 'fixtures' / 'freebsd' / 'sockstat-ns1.txt').read_text()
    monkeypatch.setattr(host_platform.process, 'which', lambda name: '/usr/bin/' + name)
    host = host_platform.FreeBSDHost(run=lambda argv, timeout=None: ProcessResult(argv, rc=0, stdout=sockstat))
    params = {'addresses': ['10.218.1.1'], 'servers': [{'tool': 'iperf3', 'bind': '10.218.1.2', 'port': 5201,
                                                        'count': 1}], 'pid_dir': '/var/run/perflab', 'ping_wait': 3}
    pings = []
    result = preflight.preflight_result(
        params, run_many=lambda argvs, timeout: pings.extend(argvs) or [ProcessResult(a, rc=0) for a in argvs],
        list_pidfiles=lambda pid_dir: [], host=host)
    assert pings == [['ping', '-c', '1', '-t', '3', '10.218.1.1']]
    assert result['unanswered'] == [] and result['taken'] == []
    assert result['listening'] == {'tcp': [22, 53, 853, 9050], 'udp': [53, 514, 853, 9053]}


def test_the_windows_preflight_passes():
    netstat = (ROOT / 'tests' / 'unit' / 'fixtures' / 'windows' / 'netstat-ano-citrix.txt').read_text(encoding='utf-8')

    def execute(script, parameters):
        if script == win.PIDFILES_PS:
            return {'result': {'names': []}}
        out = netstat if parameters['FilePath'] == 'netstat' else 'Reply from 10.218.1.1: bytes=32 time<1ms TTL=64'
        return {'result': {'rc': 0, 'stdout': out, 'stderr': '', 'timed_out': False, 'elapsed_s': 0.1}}
    result = windows_preflight.check({'addresses': ['10.218.1.1'],
                                      'servers': [{'tool': 'iperf3', 'bind': '10.218.1.3', 'port': 5201}]}, execute)
    assert result['unanswered'] == [] and result['taken'] == [] and result['stop_planned'] == []
    assert result['pings'] == [['ping', '-n', '1', '-w', '3000', '10.218.1.1']]


def test_the_plan_refuses_relative_tool_folders_and_names_the_folders_of_a_missing_tool(capsys, tmp_path):
    def host(address, peer, family, **more):
        return dict({'data_address': address, 'data_interface': 'eth1', 'peer': peer, 'switch': None,
                     'os_family': family}, **more)
    args = {'suite': 'quick', 'suite_paths': [str(SUITES)], 'results_dir': str(tmp_path),
            'pairs': [{'client': 'c1', 'server': 's1'}], 'labels': {'c1': 'x', 's1': 'x'}}
    # each OS's rule for an absolute folder; every wrong one named with its host and variable, nothing planned
    refused = run_plan(dict(args, hosts={'c1': host('10.0.1.1', 's1', 'Debian', tool_paths=['opt/x/bin', '/opt/y']),
                                         's1': host('10.0.1.2', None, 'Windows', tool_paths=['/opt/x/bin']),
                                         'w1': host('10.0.1.3', None, None, windows_tool_paths=['perflab\\bin'])}),
                       capsys)
    assert refused['failed'] is True and 'runs' not in refused
    assert refused['msg'] == ("benchmark plan refused: c1: benchmark_tool_paths must hold absolute folder paths, got "
                              "'opt/x/bin'; s1: benchmark_windows_tool_paths must hold absolute folder paths, got "
                              "'/opt/x/bin'; w1: benchmark_windows_tool_paths must hold absolute folder paths, got "
                              "'perflab\\\\bin'")
    linux = ['iperf3', 'iperf', 'netperf', 'netserver', 'nuttcp']
    planned = run_plan(dict(args, hosts={'c1': host('10.0.1.1', 's1', 'Debian', tool_paths=['/opt/x/bin']),
                                         's1': host('10.0.1.2', None, 'Debian', tool_paths=['/opt/x/bin'])},
                            tools_present={'c1': linux, 's1': linux + ['ethr']}), capsys)
    reasons = set(record['error'] for record in planned['perflab_result'] if record['tool'] == 'ethr')
    assert reasons == {'ethr is not installed on c1 (looked on PATH, in /opt/x/bin and the usual folders) '
                       '(no package registry has ethr: give the tools role tools_ethr_src)'}
