# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The layers of plugins/module_utils and who may import whom (docs/architecture.md, "Layers").

Read from the source (ast, nothing is imported): every ``from ansible_collections.perflab.network.plugins...
import``, ``import ansible_collections...`` and relative import, also those inside functions. Fails on

* a module_utils file that is not in LAYER_OF (or an entry of LAYER_OF without its file),
* an import cycle among module_utils files,
* an upward import: a file importing a layer its layer may not import (MAY_IMPORT),
* an argument check (ARGUMENT_CHECKS) or report code that reaches host code, through any chain of imports,
* an action plugin, module, filter, callback or lookup (or module_utils) importing a file of
  plugins/modules or plugins/action as a library: they share code through module_utils only.

Each message names the file, the import (with its line) and the rule. The table names each file by its
current path; when the files move into one subpackage per layer, only the paths change.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import ast
import os
import re

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PLUGINS = os.path.join(ROOT, 'plugins')
PACKAGE = 'ansible_collections.perflab.network.plugins.'
PLUGIN_DIRS = ('module_utils', 'action', 'modules', 'filter', 'callback', 'lookup')

# layer -> the layers its files may import (besides their own). Read bottom up: core is pure and knows no
# tool; tools describe and parse the tools; host reads and changes one host; plan and report work on the
# controller from data (no host code); bench runs the benchmarks on a host; lab builds the namespace/VM lab.
MAY_IMPORT = {
    'core': (),
    'tools': ('core',),
    'host': ('core',),
    'plan': ('core', 'tools'),
    'report': ('core', 'tools'),
    'bench': ('core', 'tools', 'host', 'plan'),
    'lab': ('core',),
}

# layer -> its files (module names under plugins/module_utils): every file is in exactly one layer
LAYERS = {
    'core': ('common_args', 'common_window', 'limits', 'names', 'record', 'statistics', 'units'),
    'tools': ('tool', 'registry', 'tools', 'tools.ethr', 'tools.iperf2', 'tools.iperf3', 'tools.netperf',
              'tools.nuttcp', 'tools.sockperf', 'parse_ethr', 'parse_iperf2', 'parse_iperf3', 'parse_netperf',
              'parse_nuttcp', 'parse_sockperf'),
    'host': ('process', 'nic', 'host_platform', 'host_freebsd', 'host_windows', 'host_network', 'host_guard',
             'host_snapshot', 'tuning_snapshot', 'tuning_sysctl_utils', 'tuning_ethtool_utils', 'sysprofile',
             'firewall_owned', 'run_lock'),
    'plan': ('suite', 'study', 'plan_records', 'repetitions', 'tools_plan'),
    'report': ('report', 'report.build', 'report.exports', 'report.parallel', 'report.stats', 'report.store',
               'report.tables', 'report.text', 'report.workbook'),
    'bench': ('runner', 'preflight', 'servers', 'win_action'),
    'lab': ('lab', 'lab_base', 'lab_hosts', 'lab_links', 'lab_mgmt', 'lab_preflight', 'lab_spec', 'lab_util',
            'lab_vm', 'lab_vm_image'),
}
LAYER_OF = dict((name, layer) for layer, names in LAYERS.items() for name in names)

# the argument checks of the modules: they run before anything happens on a host and do no host I/O,
# not even through what they import (whatever the layer table says)
ARGUMENT_CHECKS = ('common_args', 'names', 'tool', 'tools.ethr', 'tools.iperf2', 'tools.iperf3', 'tools.netperf',
                   'tools.nuttcp', 'tools.sockperf', 'registry', 'servers', 'suite', 'study')
# the controller's report code loads no host code
NO_HOST_CODE = ARGUMENT_CHECKS + LAYERS['report']
HOST_LAYER = 'host'


def plugin_files():
    """{'module_utils.report.store': path, 'action.bench_test': path, ...} of every Python file of PLUGIN_DIRS."""
    files = {}
    for kind in PLUGIN_DIRS:
        top = os.path.join(PLUGINS, kind)
        for folder, dummy, names in os.walk(top):
            for name in names:
                if not name.endswith('.py'):
                    continue
                path = os.path.join(folder, name)
                dotted = os.path.relpath(path, PLUGINS)[:-3].replace(os.sep, '.')
                files[re.sub(r'\.__init__$', '', dotted)] = path
    return files


def imports_of(name, path, known):
    """[(imported file, line, import text)] of the collection's own files ``name`` (at ``path``) imports."""
    with open(path) as handle:
        tree = ast.parse(handle.read(), path)
    package = name.split('.')
    if not path.endswith('__init__.py'):
        package = package[:-1]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - (node.level - 1)] + ([node.module] if node.module else [])
                module = '.'.join(base)
            elif (node.module or '').startswith(PACKAGE):
                module = node.module[len(PACKAGE):]
            else:
                continue
            for alias in node.names:
                # from ...module_utils import registry: the file registry; from ...tool import Tool: the file tool
                target = module + '.' + alias.name if module + '.' + alias.name in known else module
                source = node.module or '.' * node.level
                found.append((target, node.lineno, 'from %s import %s' % (source, alias.name)))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith(PACKAGE):
                    found.append((alias.name[len(PACKAGE):], node.lineno, 'import %s' % alias.name))
    return [item for item in found if item[0] != name]


def import_graph():
    """{file: [(imported file, line, import text)]} over PLUGIN_DIRS."""
    files = plugin_files()
    return dict((name, imports_of(name, path, files)) for name, path in files.items())


def short(name):
    return name[len('module_utils.'):] if name.startswith('module_utils.') else name


def where(name):
    return 'plugins/%s.py' % name.replace('.', '/')


def cycles(graph):
    """The import cycles among module_utils files: each as [a, b, ..., a] (one per strongly connected group)."""
    nodes = sorted(name for name in graph if name.startswith('module_utils.'))
    edges = dict((name, sorted(set(t for t, dummy, dummy2 in graph[name] if t in graph and t.startswith('module_utils.'))))
                 for name in nodes)
    index, low, stack, on_stack, groups = {}, {}, [], set(), []

    def visit(node):   # Tarjan's strongly connected components
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in edges[node]:
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1 or node in edges[node]:
                groups.append(set(group))

    for node in nodes:
        if node not in index:
            visit(node)
    found = []
    for group in groups:   # one concrete cycle through the group's first file, by a breadth-first search
        start = min(group)
        paths = {start: [start]}
        queue = [start]
        while queue:
            node = queue.pop(0)
            for nxt in edges[node]:
                if nxt == start:
                    found.append(paths[node] + [start])
                    queue = []
                    break
                if nxt in group and nxt not in paths:
                    paths[nxt] = paths[node] + [nxt]
                    queue.append(nxt)
    return sorted(found)


def import_text(graph, source, target):
    line, text = [(line, text) for t, line, text in graph[source] if t == target][0]
    return '%s:%d %s' % (where(source), line, text)


def layer_problems(graph, layer_of=None, may_import=None):
    """Every file outside the table, stale entry, and upward import, as messages."""
    layer_of = LAYER_OF if layer_of is None else layer_of
    may_import = MAY_IMPORT if may_import is None else may_import
    problems = []
    utils = set(short(name) for name in graph if name.startswith('module_utils.'))
    for name in sorted(utils - set(layer_of)):
        problems.append('%s is in no layer: add it to LAYERS in tests/unit/test_import_layers.py (and '
                        'docs/architecture.md, "Layers")' % where('module_utils.' + name))
    for name in sorted(set(layer_of) - utils):
        problems.append('LAYERS names module_utils.%s, which does not exist: remove it' % name)
    for source in sorted(graph):
        if not source.startswith('module_utils.') or short(source) not in layer_of:
            continue
        layer = layer_of[short(source)]
        for target, line, text in graph[source]:
            if not target.startswith('module_utils.'):
                continue
            other = layer_of.get(short(target))
            if other is None or other == layer or other in may_import[layer]:
                continue
            problems.append('%s:%d %s: upward import: %s (layer %s) imports %s (layer %s); %s may import only %s'
                            % (where(source), line, text, short(source), layer, short(target), other, layer,
                               ', '.join((layer,) + tuple(may_import[layer]))))
    return problems


def host_chains(graph, names, layer_of=None):
    """[(file, chain of imports to a host file)] of ``names`` that reach host code."""
    layer_of = LAYER_OF if layer_of is None else layer_of
    found = []
    for name in names:
        start = 'module_utils.' + name
        paths = {start: [start]}
        queue = [start]
        while queue:
            node = queue.pop(0)
            hit = None
            for target, dummy, dummy2 in graph.get(node, []):
                if target in paths or target not in graph:
                    continue
                paths[target] = paths[node] + [target]
                if layer_of.get(short(target)) == HOST_LAYER:
                    hit = target
                    break
                queue.append(target)
            if hit:
                found.append((name, paths[hit]))
                break
    return found


def describe_chain(graph, chain):
    return ' -> '.join(import_text(graph, a, b) for a, b in zip(chain, chain[1:]))


@pytest.fixture(scope='module')
def graph():
    return import_graph()


def test_every_module_utils_file_is_in_one_layer_and_imports_no_layer_above_it(graph):
    duplicated = sorted(name for name in LAYER_OF if sum(name in names for names in LAYERS.values()) > 1)
    assert not duplicated, 'in more than one layer: %s' % ', '.join(duplicated)
    problems = layer_problems(graph)
    assert not problems, '\n'.join(problems)


def test_module_utils_has_no_import_cycle(graph):
    problems = ['import cycle: %s (%s): break it at its root (move the function to the layer it belongs '
                'to, or pass the data in)' % (' -> '.join(short(n) for n in cycle), describe_chain(graph, cycle))
                for cycle in cycles(graph)]
    assert not problems, '\n'.join(problems)


def test_argument_checks_and_report_code_reach_no_host_code(graph):
    problems = []
    for name, chain in host_chains(graph, ARGUMENT_CHECKS):
        problems.append('%s: argument checks do no host I/O, but it reaches host code %s: %s'
                        % (where('module_utils.' + name), short(chain[-1]), describe_chain(graph, chain)))
    for name, chain in host_chains(graph, [n for n in NO_HOST_CODE if n not in ARGUMENT_CHECKS]):
        problems.append('%s: report code loads no host code, but it reaches %s: %s'
                        % (where('module_utils.' + name), short(chain[-1]), describe_chain(graph, chain)))
    assert not problems, '\n'.join(problems)


def test_plugins_share_code_through_module_utils_only(graph):
    problems = []
    for source in sorted(graph):
        for target, line, text in graph[source]:
            kind = target.split('.', 1)[0]
            if kind in ('modules', 'action'):
                problems.append('%s:%d %s: %s imports %s as a library; plugins share code through '
                                'plugins/module_utils only: move what it uses there'
                                % (where(source), line, text, source, where(target)))
    assert not problems, '\n'.join(problems)


def test_the_checks_fail_on_a_cycle_an_upward_import_and_host_code():
    """The rules themselves, on a made-up graph: each kind of problem is found and named."""
    graph = {
        'module_utils.common_args': [('module_utils.host_platform', 3, 'from x import host_platform')],
        'module_utils.host_platform': [('module_utils.preflight', 7, 'from x import preflight')],
        'module_utils.preflight': [('module_utils.common_args', 9, 'from x import common_args')],
        'module_utils.newfile': [],
        'action.bench_test': [('modules.bench_test', 5, 'from x import bench_test')],
        'modules.bench_test': [],
    }
    layer_of = {'common_args': 'core', 'host_platform': 'host', 'preflight': 'bench', 'gone': 'core'}
    assert cycles(graph) == [['module_utils.common_args', 'module_utils.host_platform', 'module_utils.preflight',
                              'module_utils.common_args']]
    problems = layer_problems(graph, layer_of)
    assert problems[0].startswith('plugins/module_utils/newfile.py is in no layer')
    assert problems[1] == 'LAYERS names module_utils.gone, which does not exist: remove it'
    assert ('plugins/module_utils/common_args.py:3 from x import host_platform: upward import: common_args (layer '
            'core) imports host_platform (layer host); core may import only core') in problems
    assert ('plugins/module_utils/host_platform.py:7 from x import preflight: upward import: host_platform (layer '
            'host) imports preflight (layer bench); host may import only host, core') in problems
    assert host_chains(graph, ['common_args'], layer_of) == [
        ('common_args', ['module_utils.common_args', 'module_utils.host_platform'])]
    assert imports_of('module_utils.report.build', os.path.join(PLUGINS, 'module_utils', 'report', 'build.py'),
                      plugin_files())[0][0].startswith('module_utils.report.')


def test_the_docs_show_the_layer_table():
    """docs/architecture.md's "Layers" table: one row per layer with what it may import, as MAY_IMPORT says."""
    with open(os.path.join(ROOT, 'docs', 'architecture.md')) as handle:
        text = handle.read()
    rows = dict((match.group(1), match.group(2)) for match in
                re.finditer(r'^\| `?(\w+)`? \|[^|]*\| ([^|]*) \|$', text.split('## Layers', 1)[-1], re.M))
    problems = []
    for layer, allowed in MAY_IMPORT.items():
        shown = rows.get(layer)
        wanted = ', '.join(allowed) or 'nothing'
        if shown is None or shown.strip() != wanted:
            problems.append('docs/architecture.md, "Layers": the row of %s must say it may import %r, it says %r'
                            % (layer, wanted, shown))
    assert not problems, '\n'.join(problems)
