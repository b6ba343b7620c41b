# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The layers of plugins/module_utils and who may import whom (docs/architecture.md, "Layers").

A file's layer is its subpackage: ``plugins/module_utils/<layer>/...`` (``tools/iperf3/parse.py`` is in
``tools``). Read from the source (ast, nothing is imported): every ``from ansible_collections.perflab.network.plugins...
import``, ``import ansible_collections...`` and relative import, also those inside functions. Fails on

* a module_utils file outside the layers' subpackages (a file directly in module_utils, or a subpackage that is no
  layer of MAY_IMPORT), or a layer of MAY_IMPORT without its subpackage,
* an import cycle among module_utils files,
* an upward import: a file importing a layer its layer may not import (MAY_IMPORT),
* an argument check (ARGUMENT_CHECKS) or report code that reaches host code, through any chain of imports,
* an action plugin, module, filter, callback or lookup (or module_utils) importing a file of
  plugins/modules or plugins/action as a library: they share code through module_utils only.

Each message names the file, the import (with its line) and the rule.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import ast
import fnmatch
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

# the argument checks of the modules (module names under plugins/module_utils, fnmatch patterns): they run before
# anything happens on a host and do no host I/O, not even through what they import (whatever MAY_IMPORT says)
ARGUMENT_CHECKS = ('core.common_args', 'core.names', 'tools.tool', 'tools.*.tool', 'tools.registry', 'bench.servers',
                   'plan.suite', 'plan.study')
# the controller's report code loads no host code
NO_HOST_CODE = ARGUMENT_CHECKS + ('report', 'report.*')
HOST_LAYER = 'host'


def layer(name):
    """The layer of module_utils file ``name`` ('tools.iperf3.parse' -> 'tools'): its subpackage."""
    return name.split('.', 1)[0]


def matching(patterns, graph):
    """The module_utils files of ``graph`` (short names) that ``patterns`` name, sorted."""
    utils = set(short(name) for name in graph if name.startswith('module_utils.'))
    return sorted(name for name in utils if any(fnmatch.fnmatchcase(name, pattern) for pattern in patterns))


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


def layer_problems(graph, may_import=None):
    """Every file outside the layers' subpackages, layer without its subpackage, and upward import, as messages."""
    may_import = MAY_IMPORT if may_import is None else may_import
    problems = []
    utils = set(short(name) for name in graph if name.startswith('module_utils.'))
    for name in sorted(utils):
        if layer(name) in may_import:
            continue
        if '.' not in name:
            problems.append('%s is in no layer: move it into the subpackage of its layer (plugins/module_utils/<layer>/, '
                            'docs/architecture.md, "Layers")' % where('module_utils.' + name))
        else:
            problems.append('%s is in plugins/module_utils/%s/, which is no layer: move it into the subpackage of its '
                            'layer, or add the layer to MAY_IMPORT in tests/unit/test_import_layers.py (and '
                            'docs/architecture.md, "Layers")' % (where('module_utils.' + name), layer(name)))
    for name in sorted(set(may_import) - set(layer(n) for n in utils)):
        problems.append('MAY_IMPORT names layer %s, which has no subpackage plugins/module_utils/%s/: remove it'
                        % (name, name))
    for source in sorted(graph):
        if not source.startswith('module_utils.') or layer(short(source)) not in may_import:
            continue
        mine = layer(short(source))
        for target, line, text in graph[source]:
            if not target.startswith('module_utils.'):
                continue
            other = layer(short(target))
            if other not in may_import or other == mine or other in may_import[mine]:
                continue
            problems.append('%s:%d %s: upward import: %s (layer %s) imports %s (layer %s); %s may import only %s'
                            % (where(source), line, text, short(source), mine, short(target), other, mine,
                               ', '.join((mine,) + tuple(may_import[mine]))))
    return problems


def host_chains(graph, names):
    """[(file, chain of imports to a host file)] of ``names`` that reach host code."""
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
                if target.startswith('module_utils.') and layer(short(target)) == HOST_LAYER:
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
    problems = layer_problems(graph)
    assert not problems, '\n'.join(problems)


def test_module_utils_has_no_import_cycle(graph):
    problems = ['import cycle: %s (%s): break it at its root (move the function to the layer it belongs '
                'to, or pass the data in)' % (' -> '.join(short(n) for n in cycle), describe_chain(graph, cycle))
                for cycle in cycles(graph)]
    assert not problems, '\n'.join(problems)


def test_argument_checks_and_report_code_reach_no_host_code(graph):
    problems = []
    checks = matching(ARGUMENT_CHECKS, graph)
    missing = [pattern for pattern in NO_HOST_CODE if not matching([pattern], graph)]
    assert not missing, 'ARGUMENT_CHECKS/NO_HOST_CODE name files that do not exist: %s' % ', '.join(missing)
    for name, chain in host_chains(graph, checks):
        problems.append('%s: argument checks do no host I/O, but it reaches host code %s: %s'
                        % (where('module_utils.' + name), short(chain[-1]), describe_chain(graph, chain)))
    for name, chain in host_chains(graph, [n for n in matching(NO_HOST_CODE, graph) if n not in checks]):
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
        'module_utils.core.common_args': [('module_utils.host.platform', 3, 'from x import platform')],
        'module_utils.host.platform': [('module_utils.bench.preflight', 7, 'from x import preflight')],
        'module_utils.bench.preflight': [('module_utils.core.common_args', 9, 'from x import common_args')],
        'module_utils.newfile': [],
        'module_utils.extra.helper': [],
        'action.bench_test': [('modules.bench_test', 5, 'from x import bench_test')],
        'modules.bench_test': [],
    }
    may_import = {'core': (), 'host': ('core',), 'bench': ('core', 'host'), 'gone': ()}
    assert cycles(graph) == [['module_utils.bench.preflight', 'module_utils.core.common_args',
                              'module_utils.host.platform', 'module_utils.bench.preflight']]
    problems = layer_problems(graph, may_import)
    assert problems[0].startswith('plugins/module_utils/extra/helper.py is in plugins/module_utils/extra/, which is '
                                  'no layer')
    assert problems[1].startswith('plugins/module_utils/newfile.py is in no layer: move it into the subpackage')
    assert problems[2] == 'MAY_IMPORT names layer gone, which has no subpackage plugins/module_utils/gone/: remove it'
    assert ('plugins/module_utils/core/common_args.py:3 from x import platform: upward import: core.common_args '
            '(layer core) imports host.platform (layer host); core may import only core') in problems
    assert ('plugins/module_utils/host/platform.py:7 from x import preflight: upward import: host.platform (layer '
            'host) imports bench.preflight (layer bench); host may import only host, core') in problems
    assert host_chains(graph, ['core.common_args']) == [
        ('core.common_args', ['module_utils.core.common_args', 'module_utils.host.platform'])]
    assert matching(('core.*', 'bench.pre*'), graph) == ['bench.preflight', 'core.common_args']
    assert layer('tools.iperf3.parse') == 'tools' and layer('report') == 'report'
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
