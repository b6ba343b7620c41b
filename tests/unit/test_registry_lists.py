# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Every list of tools, tool port and per-OS tool entry written as static text agrees with the tool registry.

Every list of tools is the registry's: the modules' arguments and the roles' preflights check a tool name with
``registry.unknown_problem`` (or a filter that asks the registry) and list no tools as choices; the firewall role's
default list, the lab's ``tools_list`` and the VM image's tool packages are derived from the registry; the one
table of the tools (``docs/tools.md``) is checked here cell by cell. This test fails on any other list: a line of
the docs, READMEs, plugins, role data, tasks, templates or playbooks that names every tool, an option that offers
tools as choices, a default list of tools but the tools role's own; a line that names several tools but not all
fails unless PARTIAL_LISTS says why. Each failure names the file and the difference; adding a tool needs none of
these files.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import glob
import importlib
import os
import re

import yaml

from ansible_collections.perflab.network.plugins.module_utils.lab import vm_image as lab_vm_image
from ansible_collections.perflab.network.plugins.module_utils.bench import runner
from ansible_collections.perflab.network.plugins.module_utils.bench import servers
from ansible_collections.perflab.network.plugins.module_utils.tools import registry
from ansible_collections.perflab.network.plugins.module_utils.tools.tool import INSTALL_FAMILIES

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
NAMES = set(registry.NAMES)
TOOL_RE = re.compile(r'\b(%s)\b' % '|'.join(sorted(NAMES, key=len, reverse=True)))


def rel(path):
    return os.path.relpath(path, ROOT)


def read(path):
    with open(os.path.join(ROOT, path)) as handle:
        return handle.read()


def load(path):
    return yaml.safe_load(read(path))


def differs(where, got, want=None):
    """'' or how what ``where`` lists differs from ``want`` (the registry's tools by default)."""
    got, against = set(got), 'the registry' if want is None else sorted(want)
    want = NAMES if want is None else set(want)
    if got == want:
        return ''
    return '%s: lacks %s, has %s beyond %s' % (where, sorted(want - got), sorted(got - want), against)


def agree(problems):
    """Fail naming every file and difference at once."""
    problems = [problem for problem in problems if problem]
    assert not problems, 'lists that disagree with the tool registry:\n' + '\n'.join(problems)


def module_docs():
    """(path, DOCUMENTATION as data) of every plugin with documentation."""
    for path in sorted(glob.glob(os.path.join(ROOT, 'plugins', '*', '*.py'))):
        kind, name = path.split(os.sep)[-2], os.path.basename(path)[:-3]
        if kind not in ('modules', 'filter', 'lookup', 'action', 'callback') or name == '__init__':
            continue
        match = re.search(r"^DOCUMENTATION = r?'''(.*?)'''", read(path), flags=re.S | re.M)
        if match:
            yield rel(path), yaml.safe_load(match.group(1))


def argument_specs():
    """(path, options) of every role's entry points and the study's argument spec."""
    for path in sorted(glob.glob(os.path.join(ROOT, 'roles', '*', 'meta', 'argument_specs.yml'))):
        for entry, spec in (load(rel(path))['argument_specs'] or {}).items():
            yield '%s (%s)' % (rel(path), entry), spec.get('options') or {}
    for path in sorted(glob.glob(os.path.join(ROOT, 'playbooks', 'vars', '*argument_spec*.yml'))):
        data = load(rel(path))
        for entry, spec in (data.get('argument_specs') or {'study': data}).items():
            yield '%s (%s)' % (rel(path), entry), (spec or {}).get('options') or {}


def walk_options(where, options):
    """(where.option, spec) of every option and suboption."""
    for name, spec in (options or {}).items():
        if not isinstance(spec, dict):
            continue
        yield '%s: %s' % (where, name), spec
        yield from walk_options('%s: %s' % (where, name), spec.get('suboptions'))


def every_option():
    for path, doc in module_docs():
        yield from walk_options(path, doc.get('options'))
    for where, options in argument_specs():
        yield from walk_options(where, options)


def tool_values(values):
    return [value for value in values or [] if isinstance(value, str) and TOOL_RE.fullmatch(value)]


# choices that are on purpose a part of the tools: option -> the tools it must name
SOURCE_BUILDS = set(load('roles/tools/vars/main.yml')['__tools_source_recipes'])
PART_CHOICES = {'roles/tools/meta/argument_specs.yml (main): tools_build_from_source': SOURCE_BUILDS}
# defaults that are on purpose a part of the tools: the tools role's default list (iperf2 only when asked
# for), which the role's vars repeat
DEFAULT_LIST = load('roles/tools/defaults/main.yml')['tools_list']
# default lists that name every tool of the registry instead: the firewall role opens every tool's ports
EVERY_TOOL_DEFAULTS = ()


def test_no_option_offers_tools_as_choices():
    """No option chooses among tools by a list (role argument specs, module and plugin docs): the registry checks the
    name. A choice of a part of the tools on purpose (PART_CHOICES) is that part."""
    problems = []
    for where, spec in every_option():
        chosen = tool_values(spec.get('choices'))
        if not chosen:
            continue
        key = re.sub(r' \(\w+\): ', ' (main): ', where) if where.startswith('roles/tools/') else where
        if key in PART_CHOICES:
            problems.append(differs(where, chosen, PART_CHOICES[key]))
        else:
            problems.append('%s: choices %s (a list of tools the registry does not produce: check the name with '
                            'registry.unknown_problem)' % (where, chosen))
    agree(problems)


def test_the_modules_refuse_an_unknown_tool_naming_the_registry_s():
    """bench_server, bench_test and benchmark_plan take any name and refuse one the registry lacks, naming the
    known tools, before anything runs; their argument specs list no tools."""
    from ansible_collections.perflab.network.plugins.modules import benchmark_plan
    known = '(known: %s)' % ', '.join(registry.NAMES)
    specs = {'bench_server': servers.argument_spec(), 'bench_test': runner.bench_test_argument_spec(),
             'benchmark_plan': benchmark_plan.argument_spec()}
    assert 'choices' not in specs['bench_server']['tool']
    assert 'choices' not in specs['bench_server']['servers']['options']['tool']
    assert 'choices' not in specs['bench_test']['tool'] and 'choices' not in specs['benchmark_plan']['tools']
    assert servers.call_errors({'tool': 'nc', 'servers': None}) == ['tool: unknown tool nc %s' % known]
    assert servers.call_errors({'tool': None, 'servers': [{'tool': 'iperf3'}, {'tool': 'nc'}]}) == [
        'servers[1].tool: unknown tool nc %s' % known]
    assert runner.bench_test_arguments({'tool': 'nc', 'item': None}) == (None, ['tool: unknown tool nc %s' % known])
    assert runner.bench_test_arguments({'item': {'tool': 'nc', 'test': 'x'}})[1] == [
        'item: tool: unknown tool nc %s' % known]
    assert registry.unknown_problem(['iperf3', None, 'b', 'a'], 'tools') == 'tools: unknown tools a, b %s' % known
    assert registry.unknown_problem(registry.NAMES) == ''


def test_default_lists_of_tools_are_the_tools_role_s_default():
    """Every default list of tools is the tools role's default list, and only names tools of the registry."""
    assert differs('roles/tools/defaults/main.yml: tools_list', DEFAULT_LIST, NAMES & set(DEFAULT_LIST)) == ''
    problems = []
    for where, spec in every_option():
        default = spec.get('default')
        if isinstance(default, list) and tool_values(default):
            where = '%s default' % where
            every = re.sub(r' \(\w+\): ', ' (main): ', where) in EVERY_TOOL_DEFAULTS
            problems.append(differs(where, default, None if every else DEFAULT_LIST))
    problems.append(differs('roles/tools/vars/main.yml: __tools_default_list',
                            load('roles/tools/vars/main.yml')['__tools_default_list'], DEFAULT_LIST))
    agree(problems)


def test_the_firewall_opens_every_tool_by_asking_the_registry():
    """firewall_tools' default is every tool of the registry, by the tool_version_probes filter (no list)."""
    from ansible_collections.perflab.network.plugins.filter.tool_version_probes import tool_version_probes
    default = load('roles/firewall/defaults/main.yml')['firewall_tools']
    assert default == '{{ [] | perflab.network.tool_version_probes | list }}', default
    assert list(tool_version_probes([])) == list(registry.TOOLS)
    spec = load('roles/firewall/meta/argument_specs.yml')['argument_specs']['main']['options']['firewall_tools']
    assert 'default' not in spec and 'choices' not in spec


def test_the_tools_role_knows_every_tool_on_every_os():
    """Each tool file has an install entry for every install family (a method, or why the OS cannot have it); the
    per-OS vars files name a family and no tool; every family is some vars file's."""
    problems = []
    for name, tool in registry.TOOLS.items():
        where = 'plugins/module_utils/tools/%s/tool.py: install' % name
        problems.append(differs(where + ' families', tool.install, INSTALL_FAMILIES))
        for family, entry in tool.install.items():
            if entry.get('method') not in ('package', 'source', 'release_zip', 'release_binary', 'unavailable'):
                problems.append('%s[%s]: method %r' % (where, family, entry.get('method')))
            if entry.get('method') == 'package' and not entry.get('packages'):
                problems.append('%s[%s]: a package method without packages' % (where, family))
            if entry.get('method') == 'unavailable' and not entry.get('reason'):
                problems.append('%s[%s]: unavailable without a reason' % (where, family))
            if entry.get('binary') and entry['binary'] not in (tool.client_executable, tool.client_executable + '.exe'):
                problems.append('%s[%s]: binary %s, the registry runs %s'
                                % (where, family, entry['binary'], tool.client_executable))
    families = []
    for path in sorted(glob.glob(os.path.join(ROOT, 'roles', 'tools', 'vars', '*.yml'))):
        if os.path.basename(path) == 'main.yml':
            continue
        data = load(rel(path)) or {}
        if '__tools_install_family' in data:
            families.append(data['__tools_install_family'])
        named = sorted(set(TOOL_RE.findall(read(rel(path)))))
        if named or '__tools_plan' in data:
            problems.append('%s: names tools %s (their install data belongs in their tool files)' % (rel(path), named))
    problems.append(differs('roles/tools/vars/*.yml: __tools_install_family', families, INSTALL_FAMILIES))
    main = load('roles/tools/vars/main.yml')
    for key in ('__tools_sources', '__tools_source_recipes'):
        problems.append(differs('roles/tools/vars/main.yml: %s' % key, main[key], NAMES & set(main[key])))
    for name, recipe in main['__tools_source_recipes'].items():
        tool = registry.get(name)
        wanted = set([tool.client_executable, tool.server_executable])
        if not wanted <= set(recipe['binaries']):
            problems.append('roles/tools/vars/main.yml: %s builds %s, the registry runs %s'
                            % (name, recipe['binaries'], sorted(wanted)))
    # a tool built from source somewhere has a recipe and a source
    built = set(name for name, tool in registry.TOOLS.items() for entry in tool.install.values()
                if entry['method'] == 'source')
    problems.append(differs('roles/tools/vars/main.yml: __tools_source_recipes (the tools with a source method)',
                            main['__tools_source_recipes'], built))
    agree(problems)


def _os_vars_replica():
    """tests/integration/roles/test_os_vars.py (its facts of every OS and its replica of the vars layers)."""
    import importlib.util
    path = os.path.join(ROOT, 'tests', 'integration', 'roles', 'test_os_vars.py')
    spec = importlib.util.spec_from_file_location('_os_vars_replica', path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_os_gets_the_install_plan_it_had():
    """The plan table each supported OS gets from its install family is the one recorded in
    tests/unit/fixtures/os_vars/expected.json when the per-OS files held it (the data moved, nothing changed)."""
    replica = _os_vars_replica()
    expected = replica.json.loads(replica.EXPECTED.read_text())
    problems = []
    for os_name, facts in sorted(replica.os_facts().items()):
        recorded = expected['values']['tools'][os_name]['__tools_plan']
        family = replica.merged(facts, 'tools').get('__tools_install_family')
        got = registry.install_plan(family)
        if got != recorded:
            problems.append('%s (install family %s): the tool files give %s, recorded %s' % (os_name, family, got, recorded))
    agree(problems)


def test_the_vm_image_holds_every_package_the_tools_role_installs_on_debian():
    """The VM lab's image (Debian) has the packages the tools role would install there (the lab module passes the
    registry's), so it finds them; the image's own list names no tool package."""
    plan = registry.install_plan('Debian')
    wanted = [package for entry in plan.values() if entry.get('method') == 'package' for package in entry['packages']]
    assert registry.packages('Debian') == wanted
    assert not set(wanted) & set(lab_vm_image.VM_PACKAGES), 'plugins/module_utils/lab/vm_image.py: VM_PACKAGES'
    image = lab_vm_image.VmImage('/c', 'bookworm', tool_packages=registry.packages('Debian'))
    assert set(wanted) <= set(image.packages)
    assert "vm_tool_packages=registry.packages('Debian')" in read('plugins/modules/lab.py')


def test_the_lab_installs_every_tool():
    """The lab inventory's tools_list is every tool Debian has a package of (the tool files' install[Debian]),
    and ethr when a controller file of it is given: rendered here with the registry's filter."""
    import jinja2
    from ansible.plugins.filter.core import dict_to_list_of_dict_key_value_elements
    from ansible_collections.perflab.network.plugins.filter.tool_install_plan import tool_install_plan
    text = read('roles/lab/templates/hosts.yml.j2')
    line = [line for line in text.splitlines() if line.strip().startswith('tools_list:')]
    assert len(line) == 1, 'roles/lab/templates/hosts.yml.j2: one tools_list line'
    expression = re.search(r"\{\{ '\{\{' \}\}(.*)\{\{ '\}\}' \}\}", line[0]).group(1)
    env = jinja2.Environment()
    env.filters['perflab.network.tool_install_plan'] = tool_install_plan
    env.filters['dict2items'] = dict_to_list_of_dict_key_value_elements
    packaged = [name for name, entry in registry.install_plan('Debian').items() if entry['method'] == 'package']
    without = env.from_string('{{ %s }}' % expression).render(tools_ethr_src='')
    given = env.from_string('{{ %s }}' % expression).render(tools_ethr_src='/tmp/ethr.zip')
    assert without == str(packaged) and given == str(packaged + ['ethr'])
    agree([differs('roles/lab/templates/hosts.yml.j2: tools_list with tools_ethr_src', packaged + ['ethr'])])


# The places that name every tool on purpose: the registry, and the one table of the tools (docs/tools.md: its
# header, checked cell by cell below). Any other line naming every tool is a list the registry does not produce.
ALL_LISTS = [
    ('docs/tools.md', r'^\| OS \| '),
]


def test_no_text_names_every_tool_but_the_registry_and_the_one_table():
    problems, used = [], set()
    for path, text in list_texts():
        for number, line in enumerate(text.splitlines(), 1):
            if set(TOOL_RE.findall(line)) != NAMES:
                continue
            allowed = [index for index, (where, pattern) in enumerate(ALL_LISTS)
                       if where == path and re.search(pattern, line)]
            used.update(allowed)
            if not allowed:
                problems.append('%s:%d %r: names every tool (a list the registry does not produce: ask the '
                                'registry, or point at docs/tools.md)' % (path, number, line.strip()[:70]))
    problems += ['ALL_LISTS: %s %r matches no line' % ALL_LISTS[index]
                 for index in range(len(ALL_LISTS)) if index not in used]
    # bench_server and bench_test point at a tool module, not at every one
    for path, doc in module_docs():
        if os.path.basename(path) in ('bench_server.py', 'bench_test.py'):
            linked = [item['module'].split('.')[-1] for item in doc.get('seealso') or []]
            if set(linked) & NAMES == NAMES:
                problems.append('%s: seealso names every tool module' % path)
    agree(problems)


def port_texts():
    """(file, text) of the docs, READMEs, plugin docs and role data that may quote tools' ports."""
    paths = glob.glob(os.path.join(ROOT, 'docs', '*.md')) + glob.glob(os.path.join(ROOT, 'roles', '*', 'README.md'))
    paths += [os.path.join(ROOT, 'README.md')] + glob.glob(os.path.join(ROOT, 'plugins', '*', '*.py'))
    paths += glob.glob(os.path.join(ROOT, 'roles', '*', 'meta', 'argument_specs.yml'))
    paths += glob.glob(os.path.join(ROOT, 'roles', '*', 'defaults', '*.yml'))
    for path in sorted(paths):
        yield rel(path), read(rel(path))


PORT_RE = re.compile(r'\b(%s)\b(?:[ |:`]|C\()*([0-9]{4,5})\b' % TOOL_RE.pattern[3:-3])


def test_every_quoted_tool_port_is_the_registry_s():
    """"iperf3 5201", "| nuttcp | 5000": a tool's port is its default (or its plan's first port), and a
    passage that quotes the ports of several tools quotes every tool's."""
    problems = []
    for path, text in port_texts():
        for block in re.split(r'\n[ \t]*\n', text):
            quoted = PORT_RE.findall(block)
            for name, port in quoted:
                tool = registry.get(name)
                if int(port) not in (tool.default_port, tool.plan_base()):
                    problems.append('%s: %s %s, the registry says %d' % (path, name, port, tool.default_port))
            if len(set(name for name, _port in quoted)) > 1:
                problems.append(differs('%s: the ports of %r' % (path, block.strip()[:60]),
                                        [name for name, _port in quoted]))
    agree(problems)


def test_each_tool_module_documents_its_default_port():
    problems = []
    for name, tool in registry.TOOLS.items():
        module = importlib.import_module('ansible_collections.perflab.network.plugins.modules.%s' % name)
        description = ' '.join(yaml.safe_load(module.DOCUMENTATION)['options']['port']['description'])
        if 'Default C(%d)' % tool.default_port not in description:
            problems.append('plugins/modules/%s.py: port: no "Default C(%d)" in %r'
                            % (name, tool.default_port, description))
    agree(problems)


# docs/tools.md's support table (the one table of the tools): row label -> the install family whose plan the row shows
SUPPORT_ROWS = [('Debian', 'Debian'), ('Ubuntu', 'Ubuntu'), ('CentOS 7', 'RedHat'), ('RHEL, Rocky', 'RedHat'),
                ('Fedora', 'Fedora'), ('Clear Linux', 'ClearLinux'), ('FreeBSD', 'FreeBSD'), ('Windows', 'Windows')]


def support_method(cell):
    """The tools role's method a cell of the support table describes."""
    for start, method in (('**none**', 'unavailable'), ('source build', 'source'), ('release zip', 'release_zip'),
                          ('release build', 'release_binary')):
        if cell.startswith(start):
            return method
    return 'package'


def test_the_tools_readme_support_table_is_the_per_os_plans():
    """Each cell of docs/tools.md's support table says the method (and component, EPEL) of its OS's plan."""
    text = read('docs/tools.md').splitlines()
    start = [number for number, line in enumerate(text) if line.startswith('| OS | ')][0]
    lines = []
    for line in text[start:]:
        if not line.startswith('|'):
            break
        lines.append(line)
    header = lines[0]
    columns = [TOOL_RE.search(cell).group(1) for cell in header.strip('|').split('|')[1:]]
    problems = [differs('docs/tools.md: support table columns', columns)]
    for label, layer in SUPPORT_ROWS:
        rows = [line for line in lines if line.startswith('| %s' % label)]
        plan = registry.install_plan(layer)
        if not rows:
            problems.append('docs/tools.md: no support row for %s' % label)
        for row in rows:
            cells = [cell.strip() for cell in row.strip('|').split('|')[1:]]
            for tool, cell in zip(columns, cells):
                entry = plan[tool]
                where = 'docs/tools.md: %s, %s (its tool file\'s install[%s])' % (
                    row.split('|')[1].strip(), tool, layer)
                if support_method(cell) != entry['method']:
                    problems.append('%s: says %s, the plan %s' % (where, support_method(cell), entry['method']))
                elif entry.get('apt_component') and not cell.startswith(entry['apt_component']):
                    problems.append('%s: the plan takes it from %s' % (where, entry['apt_component']))
                elif entry.get('repo') == 'epel' and not cell.startswith('EPEL'):
                    problems.append('%s: the plan takes it from EPEL' % where)
    # the ports row: each tool's first port is its default or its plan's base (pair 0)
    ports = [line for line in lines if line.startswith('| ports ')]
    if len(ports) != 1:
        problems.append('docs/tools.md: one ports row, found %d' % len(ports))
    for tool, cell in zip(columns, [cell.strip() for cell in ports[0].strip('|').split('|')[1:]] if ports else []):
        first = re.search(r'[0-9]{4,5}', cell)
        if not first or int(first.group(0)) not in (registry.get(tool).default_port, registry.get(tool).plan_base()):
            problems.append('docs/tools.md: ports of %s %r, the registry says %d' % (tool, cell[:30], registry.get(tool).default_port))
    # a package name the header quotes is Debian's
    debian = registry.install_plan('Debian')
    for tool, package in re.findall(r'(\w+) \(package `([^`]+)`\)', header):
        if debian[tool].get('packages') != [package]:
            problems.append('docs/tools.md: %s is package %s, its tool file\'s install[Debian] says %s'
                            % (tool, package, debian[tool].get('packages')))
    agree(problems)


def test_tool_quirks_do_not_live_in_yaml():
    """No task, playbook or template compares a tool's name with a literal (``item.tool != 'nuttcp'``): a tool's
    quirk is an attribute of its tool file, read through the plan or a filter (a plan item's ``bind``)."""
    pattern = re.compile(r"""tool\w*['"\]]*\s*(?:==|!=|\bis\s+(?:not\s+)?eq\b|\bin\b)\s*['"](%s)['"]|"""
                         r"""selectattr\(\s*'tool'\s*,\s*'(?:eq|ne|equalto)'\s*,\s*'(%s)'"""
                         % (TOOL_RE.pattern[3:-3], TOOL_RE.pattern[3:-3]))
    paths = glob.glob(os.path.join(ROOT, 'roles', '*', 'tasks', '*.yml'))
    paths += glob.glob(os.path.join(ROOT, 'roles', '*', 'templates', '*'))
    paths += glob.glob(os.path.join(ROOT, 'playbooks', '**', '*.yml'), recursive=True)
    problems = []
    for path in sorted(paths):
        for number, line in enumerate(read(rel(path)).splitlines(), 1):
            if pattern.search(line):
                problems.append('%s:%d: %s' % (rel(path), number, line.strip()))
    agree(problems)


def test_the_firewall_role_s_tool_settings_are_the_tool_files():
    """The firewall role's per-tool settings (firewall_<setting>) are the tool files' ``firewall_settings``: the
    role's table that passes them to the filters, its defaults, its argument spec and the tool_ports filter's
    documentation name the same settings with the same defaults."""
    from ansible_collections.perflab.network.plugins.filter import tool_ports
    settings = registry.firewall_settings()
    table = load('roles/firewall/vars/main.yml')['__firewall_tool_settings']
    problems = [differs('roles/firewall/vars/main.yml: __firewall_tool_settings', table, settings)]
    for name, value in table.items():
        if value != '{{ firewall_%s }}' % name:
            problems.append('roles/firewall/vars/main.yml: __firewall_tool_settings.%s is %r, not the role\'s '
                            'variable firewall_%s' % (name, value, name))
    defaults = load('roles/firewall/defaults/main.yml')
    spec = load('roles/firewall/meta/argument_specs.yml')['argument_specs']['main']['options']
    filter_doc = yaml.safe_load(tool_ports.DOCUMENTATION)['options']
    declared = [key[len('firewall_'):] for key in defaults if key.startswith('firewall_')
                and key[len('firewall_'):] in filter_doc]
    problems.append(differs('roles/firewall/defaults/main.yml: the tools\' settings', declared, settings))
    problems.append(differs('plugins/filter/tool_ports.py: options', [key for key in filter_doc if key != '_input'],
                            settings))
    for name, (tool, option) in settings.items():
        variable = 'firewall_%s' % name
        for where, default in (('roles/firewall/defaults/main.yml: %s' % variable, defaults.get(variable)),
                               ('roles/firewall/meta/argument_specs.yml: %s default' % variable,
                                (spec.get(variable) or {}).get('default')),
                               ('plugins/filter/tool_ports.py: %s default' % name,
                                (filter_doc.get(name) or {}).get('default'))):
            if default != option.default:
                problems.append('%s is %r, plugins/module_utils/tools/%s/tool.py says %r'
                                % (where, default, tool.name, option.default))
        if (spec.get(variable) or {}).get('type') != option.kind:
            problems.append('roles/firewall/meta/argument_specs.yml: %s type %s, the tool file says %s'
                            % (variable, (spec.get(variable) or {}).get('type'), option.kind))
    agree(problems)


# Lines that name several tools but not every one, on purpose: (file, a regex the line matches, why). Every
# other line of the collection's docs, READMEs, plugins, role data, tasks, templates and playbooks that names
# three tools or more names them all (a list the registry does not produce), or is a default list checked above.
PARTIAL_LISTS = [
    ('roles/tools/meta/argument_specs.yml', r'^ *default: \[iperf3, netperf, nuttcp, ethr\]$',
     'the tools role\'s default list, checked above'),
    ('roles/tools/vars/main.yml', r'^__tools_default_list: ', 'the tools role\'s default list, checked above'),
    ('docs/reliability.md', r'^- \*\*Modules\*\* \(one generated playbook\)', 'what one integration test runs'),
    ('plugins/filter/tool_version_probes.py', r'for example C\(iperf3\), C\(iperf\)', 'executables (iperf is iperf2)'),
    ('docs/lab.md', r'^\| image \|', 'the VM image packages by package name (iperf is iperf2): VM_PACKAGES, checked above'),
    ('docs/performance.md', r'^\| 3 \| TCP goodput', 'a measurement of three tools'),
    ('docs/result-record.md', r'^\| `intervals` \|', 'how each tool prints its intervals'),
    ('playbooks/studies/phoronix-10gbe.yml', r'^# TCP_MAERTS', 'what the study runs'),
    ('plugins/modules/bench_server.py', r'Server executable; default', 'executables (iperf is iperf2, netserver netperf)'),
    ('roles/tools/README.md', r'^\| `tools_list` \| `\[iperf3, netperf, nuttcp, ethr\]`', 'the tools role\'s default list'),
    ('docs/result-record.md', r'^\| `reading` \|', 'which count each of these tools reports'),
    ('plugins/module_utils/core/record.py', r"a tool's own CPU use adds up|a rate of 0 is no result", 'facts of some tools'),
    ('plugins/module_utils/report/workbook.py', r"a sender's interval rate is throughput_sent_mbps",
     'the tools whose intervals are the sender\'s'),
    ('plugins/module_utils/tools/tool.py', r'only UDP takes: iperf3, iperf2, nuttcp', 'the tools that take a UDP rate'),
    ('roles/benchmark/README.md', r'^\| `phoronix-network` \||nuttcp 5000, ethr 8888, iperf2 5401',
     'a suite\'s matrix; the rest of a port passage checked by the port test'),
    ('roles/tools/README.md', r'^\| Windows Server 2019\+ \|', 'what is tested on Windows'),
]


def list_texts():
    """(file, text) of every file where a list of tools could be written."""
    patterns = [('docs', '*.md'), ('roles', '*', 'README.md'), ('plugins', '*', '*.py'),
                ('plugins', 'module_utils', '**', '*.py'), ('roles', '*', 'meta', '*.yml'),
                ('roles', '*', 'defaults', '*.yml'), ('roles', '*', 'vars', '*.yml'), ('roles', '*', 'tasks', '*.yml'),
                ('roles', '*', 'templates', '*'), ('playbooks', '**', '*.yml')]
    paths = [os.path.join(ROOT, 'README.md')]
    for parts in patterns:
        paths += glob.glob(os.path.join(ROOT, *parts), recursive=True)
    for path in sorted(set(paths)):
        yield rel(path), read(rel(path))


def test_every_line_that_lists_tools_lists_them_all():
    problems, used = [], set()
    for path, text in list_texts():
        for number, line in enumerate(text.splitlines(), 1):
            named = set(TOOL_RE.findall(line))
            if len(named) < 3 or named == NAMES:
                continue
            allowed = [index for index, (where, pattern, _why) in enumerate(PARTIAL_LISTS)
                       if where == path and re.search(pattern, line)]
            used.update(allowed)
            if not allowed:
                problems.append(differs('%s:%d %r' % (path, number, line.strip()[:70]), named))
    problems += ['PARTIAL_LISTS: %s %r matches no line' % PARTIAL_LISTS[index][:2]
                 for index in range(len(PARTIAL_LISTS)) if index not in used]
    agree(problems)
