# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""roles/tools on every OS of the study, checked without those OSes.

The role's own plan tasks (``tasks_from: plan``: argument spec, supported-OS check, layered per-OS
vars, the resolution of each tool to a package, repository, source build or release) run in
one ansible-playbook call against one inventory host per fact fixture (tests/unit/fixtures/facts,
see its README) and per error case. Nothing runs on a managed host: the fixture's facts are
injected, every plan task is a controller-side action. Then:

- the plan is complete: every tool on every supported OS has a source, and the sources are
  the ones of TOOLS.md ("Where the packages are");
- the error cases fail with messages naming the tool and the cause;
- the apt component patterns (vars data) do what the replace module will do with them;
- the Windows and FreeBSD task files pass ``ansible-playbook --syntax-check``, and the role
  passes ansible-lint's production profile.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import jinja2
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[3]
ROLE = ROOT / 'roles' / 'tools'
FACTS = ROOT / 'tests' / 'unit' / 'fixtures' / 'facts'
BIN = Path(sys.executable).parent
ANSIBLE_PLAYBOOK = BIN / 'ansible-playbook'
ANSIBLE_LINT = BIN / 'ansible-lint'
TOOLS = ['iperf3', 'iperf2', 'netperf', 'nuttcp', 'ethr', 'sockperf']
# tools_list's default: iperf2 is asked for by name (Windows and Clear Linux have no package of it)
DEFAULT_TOOLS = ['iperf3', 'netperf', 'nuttcp', 'ethr']

# TOOLS.md, "Where the packages are": OS -> tool -> (method, repository or component).
DEBIAN = {'iperf3': ('package', None), 'iperf2': ('package', None), 'netperf': ('package', 'non-free'),
          'nuttcp': ('package', None), 'ethr': ('release_zip', None), 'sockperf': ('package', None)}
UBUNTU = {'iperf3': ('package', 'universe'), 'iperf2': ('package', 'universe'), 'netperf': ('package', 'multiverse'),
          'nuttcp': ('package', 'universe'), 'ethr': ('release_zip', None),
          'sockperf': ('package', 'universe')}
EL = {'iperf3': ('package', None), 'iperf2': ('package', 'epel'), 'netperf': ('source', None),
      'nuttcp': ('package', 'epel'), 'ethr': ('release_zip', None), 'sockperf': ('package', None)}
FEDORA = {'iperf3': ('package', None), 'iperf2': ('package', None), 'netperf': ('source', None),
          'nuttcp': ('package', None), 'ethr': ('release_zip', None), 'sockperf': ('package', None)}
CLEAR = {'iperf3': ('package', None), 'netperf': ('source', None),
         'nuttcp': ('source', None), 'ethr': ('release_zip', None)}
FREEBSD = {'iperf3': ('package', None), 'iperf2': ('package', None), 'netperf': ('package', None),
           'nuttcp': ('package', None), 'ethr': ('unavailable', None)}   # sockperf: unavailable, not asked for
WINDOWS = {'iperf3': ('package', None), 'netperf': ('unavailable', None),
           'nuttcp': ('release_binary', None), 'ethr': ('release_zip', None)}

# fixture -> (the vars layers loaded over vars/main.yml, in order; expected plan)
SUPPORTED = {
    'debian-9': (['Debian.yml'], DEBIAN),
    'debian-12': (['Debian.yml'], DEBIAN),
    'ubuntu-18.04': (['Debian.yml', 'Ubuntu.yml'], UBUNTU),
    'ubuntu-18.10': (['Debian.yml', 'Ubuntu.yml'], UBUNTU),
    'ubuntu-22.04': (['Debian.yml', 'Ubuntu.yml'], UBUNTU),
    'ubuntu-24.04': (['Debian.yml', 'Ubuntu.yml'], UBUNTU),
    'centos-7': (['RedHat.yml', 'RedHat_7.yml'], EL),
    'scientific-7': (['RedHat.yml', 'RedHat_7.yml', 'Scientific_7.yml'], EL),
    'redhat-7': (['RedHat.yml', 'RedHat_7.yml'], EL),
    'redhat-8': (['RedHat.yml'], EL),
    'redhat-9': (['RedHat.yml'], EL),
    'rocky-8': (['RedHat.yml'], EL),
    'rocky-9': (['RedHat.yml'], EL),
    'almalinux-8': (['RedHat.yml'], EL),
    'almalinux-9': (['RedHat.yml'], EL),
    'fedora-29': (['RedHat.yml', 'Fedora.yml'], FEDORA),
    'fedora-41': (['RedHat.yml', 'Fedora.yml'], FEDORA),
    'clearlinux': (['ClearLinux.yml'], CLEAR),
    'freebsd-12': (['FreeBSD.yml'], FREEBSD),
    'windows-2019': (['Windows.yml'], WINDOWS),
}

# Windows has no netperf, and nuttcp there needs a release build the user names.
WINDOWS_VARS = {'tools_list': ['iperf3', 'nuttcp', 'ethr'],
                'tools_nuttcp_windows_src': 'https://example.invalid/nuttcp-8.2.2.exe',
                'tools_nuttcp_windows_src_checksum': 'sha256:' + '0' * 64}

# inventory host -> (fixture, host vars, substrings the failure message must contain)
ERRORS = {
    'err-unsupported-os': ('ubuntu-16.04', {}, ['Ubuntu 16', 'is not supported', 'Supported: Debian 9+']),
    'err-unknown-tool': ('debian-12', {'tools_list': ['iperf3', 'iperf9']}, ['tools_list', 'iperf9']),
    'err-unknown-pin': ('debian-12', {'tools_versions': {'iperf9': '2.0'}}, ['tools_versions', 'iperf9']),
    'err-pin-freebsd': ('freebsd-12', {'tools_list': ['iperf3'], 'tools_versions': {'iperf3': '3.5'}},
                        ['tools_versions.iperf3=3.5', 'FreeBSD 12', 'only the version its repository carries']),
    'err-pin-source-tool': ('centos-7', {'tools_list': ['netperf'], 'tools_versions': {'netperf': '2.7.0'}},
                            ['tools_versions.netperf=2.7.0', 'netperf is not installed from a package here (source)']),
    'err-netperf-windows': ('windows-2019', {'tools_list': ['iperf3', 'netperf']},
                            ['netperf cannot be installed on Microsoft Windows Server 2019', 'no maintained Windows build']),
    'err-nuttcp-windows-no-src': ('windows-2019', {'tools_list': ['nuttcp']}, ['nuttcp', 'tools_nuttcp_windows_src']),
    'err-ethr-freebsd-required': ('freebsd-12', {'tools_list': ['ethr'], 'tools_ethr_optional': False},
                                  ['ethr cannot be installed on FreeBSD 12', 'no FreeBSD build', 'tools_ethr_optional']),
    'err-ethr-unknown-version': ('debian-12', {'tools_list': ['ethr'], 'tools_ethr_optional': False,
                                               'tools_ethr_version': '0.9.9'},
                                 ['ethr cannot be installed', 'no known release zip for ethr 0.9.9', 'tools_ethr_url']),
    'err-build-on-freebsd': ('freebsd-12', {'tools_list': ['nuttcp'], 'tools_build_from_source': ['nuttcp']},
                             ['nuttcp cannot be built from source here', 'only on Linux']),
    'err-source-not-a-file': ('debian-12', {'tools_list': ['nuttcp'], 'tools_build_from_source': ['nuttcp'],
                                            'tools_nuttcp_src': '/nonexistent/nuttcp-8.2.2.tar.bz2'},
                              ['nuttcp cannot be built from source', '/nonexistent/nuttcp-8.2.2.tar.bz2', 'neither a URL nor a file on the controller']),
}

# inventory host -> (fixture, host vars): other plans checked in detail below
CASES = {
    'case-pins-debian': ('debian-12', {'tools_versions': {'iperf3': '3.12-1+deb12u2'}}),
    'case-pins-el9': ('rocky-9', {'tools_versions': {'nuttcp': '8.2.2-1.el9'}}),
    'case-build-nuttcp-ethr-controller': ('debian-12', {'tools_build_from_source': ['nuttcp'], 'tools_list': ['nuttcp', 'ethr'],
                                                        'tools_ethr_src': str(FACTS / 'README.md')}),
    'case-ethr-url-binary': ('ubuntu-22.04', {'tools_list': ['ethr'], 'tools_ethr_url': 'https://example.invalid/ethr',
                                              'tools_ethr_checksum': 'sha256:' + '1' * 64}),
}

# Test helper: an action plugin (it runs in the controller, no process per host) that returns
# a fact fixture as the host's facts, the way setup's result would.
FIXTURE_ACTION = '''# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import absolute_import, division, print_function
__metaclass__ = type
import json
from ansible.plugins.action import ActionBase


class ActionModule(ActionBase):
    def run(self, tmp=None, task_vars=None):
        result = super(ActionModule, self).run(tmp, task_vars)
        with open(self._task.args['path']) as fixture:
            result['ansible_facts'] = json.load(fixture)['ansible_facts']
        result['changed'] = False
        return result
'''

PLAYBOOK = '''---
- name: Plan the tools role against fact fixtures
  hosts: all
  gather_facts: false
  tasks:
    - name: Load the host's fact fixture
      fixture_facts:
        path: "{{ fixture_path }}"

    - name: Plan
      block:
        - name: Run the role's plan
          ansible.builtin.include_role:
            name: perflab.network.tools
            tasks_from: plan
            public: true

        - name: Report the plan
          ansible.builtin.debug:
            var: plan
          vars:
            plan:
              failed: false
              vars_layers: >-
                {{ __tools_vars_loaded.results | selectattr('ansible_included_var_files', 'defined')
                   | map(attribute='__tools_vars_layer') | list }}
              plan_table: "{{ __tools_plan }}"
              setup_family: "{{ __tools_setup_family }}"
              platform: "{{ __tools_platform }}"
              resolved: "{{ __tools_resolved }}"
              package_specs: "{{ __tools_package_specs }}"
              apt_components: "{{ __tools_apt_components }}"
              needs_epel: "{{ __tools_needs_epel }}"
              epel_packages: "{{ __tools_epel_packages | default([]) }}"
              extra_packages: "{{ __tools_extra_packages }}"
              build_packages: "{{ __tools_build_packages }}"
              ethr_source: "{{ __tools_ethr_source }}"
              ethr_wanted: "{{ __tools_ethr_wanted }}"
              skipped: "{{ __tools_skipped }}"
              manifest_path: "{{ __tools_manifest_path }}"
              recipes: "{{ __tools_source_recipes }}"
              pin_template: "{{ __tools_pin_template }}"
              installed_query: "{{ __tools_installed_query }}"
      rescue:
        - name: Report the failure
          ansible.builtin.debug:
            var: plan
          vars:
            plan:
              failed: true
              msg: "{{ ansible_failed_result.msg | default('') }}"
'''


def _env(**extra):
    env = dict(os.environ)
    env.update(ANSIBLE_CONFIG=str(ROOT / 'ansible.cfg'), ANSIBLE_FORCE_COLOR='0',
               # only this test's plugins: the collection's callbacks are not under test here
               ANSIBLE_CALLBACKS_ENABLED='ansible.posix.timer', ANSIBLE_STDOUT_CALLBACK='ansible.builtin.default',
               PATH='%s:%s' % (BIN, env.get('PATH', '')))
    env.update(extra)
    return env


def _fixture(name):
    for candidate in (FACTS / ('%s.json' % name), FACTS / ('%s-from-docs.json' % name)):
        if candidate.exists():
            return candidate
    raise AssertionError('no fact fixture %s' % name)


def planned_vars(name):
    """What the plan of a supported OS asks for: every tool it has a source for (iperf2 too)."""
    if name.startswith('windows'):
        return WINDOWS_VARS
    if name.startswith('clearlinux'):
        return {}
    if name.startswith('freebsd'):
        return {'tools_list': [tool for tool in TOOLS if tool != 'sockperf']}   # no package of sockperf there
    return {'tools_list': TOOLS}


@pytest.fixture(scope='module')
def plans(tmp_path_factory):
    if not ANSIBLE_PLAYBOOK.exists():
        pytest.skip('ansible-playbook is not installed next to %s' % sys.executable)
    work = tmp_path_factory.mktemp('tools-plan')
    (work / 'action_plugins').mkdir()
    (work / 'action_plugins' / 'fixture_facts.py').write_text(FIXTURE_ACTION)
    (work / 'plan.yml').write_text(PLAYBOOK)
    hosts = {}
    for name in SUPPORTED:
        hosts[name] = dict(planned_vars(name), fixture_path=str(_fixture(name)))
    for host, (fixture, hostvars, *_rest) in list(ERRORS.items()) + list(CASES.items()):
        hosts[host] = dict(hostvars, fixture_path=str(_fixture(fixture)))
    inventory = {'all': {'hosts': hosts, 'vars': {
        'ansible_connection': 'local', 'ansible_python_interpreter': sys.executable}}}
    (work / 'hosts.yml').write_text(yaml.safe_dump(inventory))
    proc = subprocess.run([str(ANSIBLE_PLAYBOOK), '-i', str(work / 'hosts.yml'), str(work / 'plan.yml'), '-f', '10'],
                          cwd=ROOT, env=_env(ANSIBLE_STDOUT_CALLBACK='ansible.posix.json'),
                          capture_output=True, text=True, timeout=600, check=False)
    doc, _end = json.JSONDecoder().raw_decode(proc.stdout[proc.stdout.index('{'):])
    results = {}
    for task in doc['plays'][0]['tasks']:
        if task['task']['name'] in ('Report the plan', 'Report the failure'):
            for host, result in task['hosts'].items():
                if 'plan' in result:
                    results[host] = result['plan']
    missing = sorted(set(hosts) - set(results))
    assert not missing, 'no plan for %s (rc %s):\n%s\n%s' % (missing, proc.returncode, proc.stdout[-4000:], proc.stderr[-2000:])
    return results


# --- the fixtures themselves -------------------------------------------------------------

@pytest.mark.parametrize('path', sorted(FACTS.glob('*.json')), ids=lambda p: p.stem)
def test_fact_fixture_agrees_with_ansible_core(path):
    """os_family is what ansible-core derives from the distribution (Linux)."""
    from ansible.module_utils.facts.system.distribution import Distribution
    facts = json.loads(path.read_text())['ansible_facts']
    for key in ('ansible_distribution', 'ansible_distribution_major_version', 'ansible_os_family', 'ansible_system'):
        assert facts.get(key), '%s lacks %s' % (path.name, key)
    if facts['ansible_system'] == 'Linux':
        assert Distribution.OS_FAMILY[facts['ansible_distribution']] == facts['ansible_os_family']
        assert facts['ansible_distribution_version'].split('.')[0] == facts['ansible_distribution_major_version']
    if facts['ansible_os_family'] != 'Windows':
        assert facts['ansible_pkg_mgr'] in ('apt', 'yum', 'dnf', 'dnf5', 'swupd', 'pkgng')


# --- every supported OS: the plan is complete and matches TOOLS.md ------------------------

@pytest.mark.parametrize('name', sorted(SUPPORTED))
def test_plan_is_complete(plans, name):
    vars_layers, expected = SUPPORTED[name]
    plan = plans[name]
    assert not plan['failed'], plan.get('msg')
    assert plan['vars_layers'] == vars_layers
    assert (ROLE / 'tasks' / ('setup-%s.yml' % plan['setup_family'])).exists()
    resolved = {entry['tool']: entry for entry in plan['resolved']}
    wanted = planned_vars(name).get('tools_list', DEFAULT_TOOLS)
    assert sorted(resolved) == sorted(wanted)
    for tool in wanted:
        entry = resolved[tool]
        method, where = expected[tool]
        assert entry['method'] == method, '%s on %s' % (tool, name)
        if method == 'package':
            assert entry['packages'] and all(entry['packages']), '%s on %s has no package name' % (tool, name)
            assert set(entry['specs']) <= set(plan['package_specs'])
            if where in ('non-free', 'universe', 'multiverse'):
                assert entry['apt_component'] == where
                assert where in plan['apt_components']
            elif where == 'epel':
                assert entry['repo'] == 'epel' and plan['needs_epel'] and plan['epel_packages']
            else:
                assert 'apt_component' not in entry and 'repo' not in entry
        elif method == 'source':
            recipe = plan['recipes'][tool]
            assert recipe['steps'] and recipe['binaries']
            assert re.match(r'^(https?|ftp)://', entry['src']) and entry['version']
            assert re.match(r'^sha256:[0-9a-f]{64}$', entry['checksum'])
            assert set(plan['build_packages']) <= set(plan['extra_packages']), 'no compiler for %s on %s' % (tool, name)
        elif method == 'release_zip':
            src = plan['ethr_source']
            asset = 'ethr_windows.zip' if name.startswith('windows') else 'ethr_linux.zip'
            assert src['from'] == 'url' and src['src'].endswith('/v1.0.0/' + asset) and src['zip']
            assert re.match(r'^sha256:[0-9a-f]{64}$', src['checksum'])
            assert plan['ethr_wanted']
        elif method == 'release_binary':
            assert name.startswith('windows')
        else:
            assert method == 'unavailable' and entry['reason']
    assert plan['installed_query'] or plan['platform'] == 'windows'


def test_unavailable_is_exactly_what_tools_md_says(plans):
    """No tool silently lacks a source: the only gaps are FreeBSD's ethr, Windows' netperf and iperf2, Clear Linux'
    iperf2, and sockperf on FreeBSD, Windows and Clear Linux."""
    declared = {(name, tool) for name in SUPPORTED for tool, e in plans[name]['plan_table'].items()
                if e['method'] == 'unavailable'}
    assert declared == {('freebsd-12', 'ethr'), ('windows-2019', 'netperf'), ('windows-2019', 'iperf2'),
                        ('clearlinux', 'iperf2'), ('freebsd-12', 'sockperf'), ('windows-2019', 'sockperf'),
                        ('clearlinux', 'sockperf')}
    for name in SUPPORTED:
        table = plans[name]['plan_table']
        assert sorted(table) == sorted(TOOLS), name
        for tool, entry in table.items():
            assert entry['method'] in ('package', 'source', 'release_zip', 'release_binary', 'unavailable'), (name, tool)
            assert entry['method'] != 'unavailable' or entry['reason'], (name, tool)
    # the per-OS files name their install family, not tools: the table is the tool files' (vars/main.yml)
    for path in (ROLE / 'vars').glob('*.yml'):
        assert path.name == 'main.yml' or '__tools_plan' not in (yaml.safe_load(path.read_text()) or {}), path.name


def test_every_vars_file_is_reached_by_a_fixture(plans):
    used = {layer for name in SUPPORTED for layer in SUPPORTED[name][0]}
    present = {f.name for f in (ROLE / 'vars').glob('*.yml')} - {'main.yml'}
    assert present == used


# --- detailed cases ------------------------------------------------------------------------

def test_ethr_on_freebsd_is_skipped_when_optional(plans):
    plan = plans['freebsd-12']  # tools_ethr_optional is true by default
    assert not plan['failed'], plan.get('msg')
    assert 'no FreeBSD build' in plan['skipped']['ethr']
    assert plan['ethr_wanted'] is False
    assert plan['package_specs'] == ['iperf3', 'iperf', 'netperf', 'nuttcp']  # iperf2's package is iperf
    assert plan['manifest_path'] == '/opt/perflab/.tools-manifest.json'


def test_pinned_versions_use_the_package_managers_syntax(plans):
    debian = plans['case-pins-debian']
    assert not debian['failed'], debian.get('msg')
    assert 'iperf3=3.12-1+deb12u2' in debian['package_specs'] and 'iperf3' not in debian['package_specs']
    el9 = plans['case-pins-el9']
    assert not el9['failed'], el9.get('msg')
    assert 'nuttcp-8.2.2-1.el9' in el9['package_specs']


def test_forced_source_build_brings_the_compiler(plans):
    plan = plans['case-build-nuttcp-ethr-controller']
    assert not plan['failed'], plan.get('msg')
    [entry] = [e for e in plan['resolved'] if e['tool'] == 'nuttcp']
    assert entry['method'] == 'source' and entry['version'] == '8.2.2'
    assert plan['package_specs'] == []
    assert {'gcc', 'libc6-dev', 'make', 'bzip2'} <= set(plan['extra_packages'])
    assert plan['apt_components'] == []


def test_ethr_sources(plans):
    controller = plans['case-build-nuttcp-ethr-controller']
    assert not controller['failed'], controller.get('msg')
    assert controller['ethr_source'] == {'from': 'controller', 'src': str(FACTS / 'README.md'), 'checksum': '', 'zip': False}
    assert 'unzip' not in controller['extra_packages']
    url = plans['case-ethr-url-binary']
    assert url['ethr_source'] == {'from': 'url', 'src': 'https://example.invalid/ethr', 'checksum': 'sha256:' + '1' * 64,
                                  'zip': False}
    default = plans['debian-12']
    assert default['ethr_source']['zip'] and 'unzip' in default['extra_packages']


def test_windows_manifest_path(plans):
    assert plans['windows-2019']['manifest_path'] == 'C:\\perflab\\.tools-manifest.json'
    assert plans['windows-2019']['pin_template'] == 'chocolatey'


@pytest.mark.parametrize('host', sorted(ERRORS))
def test_errors_name_the_tool_and_the_cause(plans, host):
    plan = plans[host]
    assert plan['failed'], '%s should have failed, planned %s' % (host, plan)
    for needle in ERRORS[host][2]:
        assert needle in plan['msg'], '%r not in %r' % (needle, plan['msg'])


# --- apt components: the patterns in vars/main.yml, applied the way the replace module does --

def _patterns(component):
    data = yaml.safe_load((ROLE / 'vars' / 'main.yml').read_text())['__tools_apt_component_regex']
    env = jinja2.Environment()
    env.filters['regex_escape'] = re.escape  # ansible's regex_escape is re.escape for Python regexes
    return {style: {k: env.from_string(v).render(__tools_component=component) for k, v in pats.items()}
            for style, pats in data.items()}


def _add(text, style, component):
    pats = _patterns(component)[style]
    if re.search(pats['enabled'], text):
        return text
    # ansible.builtin.replace: re.compile(regexp, re.MULTILINE).subn(replace, contents)
    return re.compile(pats['add'], re.MULTILINE).sub(r'\1 ' + component, text)


def _remove(text, style, component):
    return re.compile(_patterns(component)[style]['remove'], re.MULTILINE).sub(r'\1', text)


DEB822_BOOKWORM = """Types: deb
URIs: http://mirror.example/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://security.example/debian-security
Suites: bookworm-security
Components: main non-free-firmware
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
"""

CLASSIC_STRETCH = """# deb cdrom:[Debian GNU/Linux 9.6.0 _Stretch_]/ stretch main
deb http://mirror.example/debian/ stretch main
deb-src http://mirror.example/debian/ stretch main
deb [arch=amd64 signed-by=/usr/share/keyrings/k.gpg] http://security.example/ stretch/updates main contrib
deb http://mirror.example/debian/ stretch-updates contrib
"""

CLASSIC_BIONIC = """deb http://archive.example/ubuntu bionic main restricted
deb http://archive.example/ubuntu bionic universe
deb http://archive.example/ubuntu bionic-updates main restricted
deb http://archive.example/ubuntu bionic multiverse
"""

DEB822_NOBLE = """Types: deb
URIs: http://archive.example/ubuntu/
Suites: noble noble-updates noble-backports
Components: main restricted universe multiverse
Signed-By: /usr/share/keyrings/ubuntu-archive-keyring.gpg
"""


def test_deb822_gets_non_free_on_every_main_stanza_and_back():
    added = _add(DEB822_BOOKWORM, 'deb822', 'non-free')
    assert added.splitlines()[3] == 'Components: main non-free'
    assert added.splitlines()[9] == 'Components: main non-free-firmware non-free'
    assert added.count('\n') == DEB822_BOOKWORM.count('\n')
    assert _add(added, 'deb822', 'non-free') == added  # idempotent
    assert _remove(added, 'deb822', 'non-free') == DEB822_BOOKWORM


def test_non_free_firmware_is_not_non_free():
    assert not re.search(_patterns('non-free')['deb822']['enabled'], 'Components: main non-free-firmware\n')
    assert re.search(_patterns('non-free')['deb822']['enabled'], 'Components: main non-free\n')


def test_classic_sources_list_only_deb_lines_with_main():
    added = _add(CLASSIC_STRETCH, 'classic', 'non-free')
    lines = added.splitlines()
    assert lines[0] == CLASSIC_STRETCH.splitlines()[0]  # comment untouched
    assert lines[1] == 'deb http://mirror.example/debian/ stretch main non-free'
    assert lines[2] == 'deb-src http://mirror.example/debian/ stretch main'  # sources not needed
    assert lines[3].endswith('stretch/updates main contrib non-free')
    assert lines[4] == 'deb http://mirror.example/debian/ stretch-updates contrib'  # no main there
    assert added.endswith('\n') and added.count('\n') == CLASSIC_STRETCH.count('\n')
    assert _add(added, 'classic', 'non-free') == added
    assert _remove(added, 'classic', 'non-free') == CLASSIC_STRETCH


def test_single_line_sources_list_without_trailing_text():
    # the lab's debootstrap root has exactly this file; \s once carried the match past the newline
    text = 'deb http://mirror.example/debian bookworm main\n'
    assert _add(text, 'classic', 'non-free') == 'deb http://mirror.example/debian bookworm main non-free\n'


def test_ubuntu_components_already_enabled_are_left_alone():
    for component in ('universe', 'multiverse'):
        assert _add(CLASSIC_BIONIC, 'classic', component) == CLASSIC_BIONIC
        assert _add(DEB822_NOBLE, 'deb822', component) == DEB822_NOBLE
    missing = CLASSIC_BIONIC.replace('deb http://archive.example/ubuntu bionic multiverse\n', '')
    added = _add(missing, 'classic', 'multiverse')
    assert 'bionic main restricted multiverse' in added and 'bionic-updates main restricted multiverse' in added
    assert 'bionic universe multiverse' not in added


# --- the public interface -------------------------------------------------------------------

def test_argument_specs_cover_every_default():
    defaults = yaml.safe_load((ROLE / 'defaults' / 'main.yml').read_text())
    specs = yaml.safe_load((ROLE / 'meta' / 'argument_specs.yml').read_text())['argument_specs']
    for entry_point in ('main', 'plan'):
        options = specs[entry_point]['options']
        assert sorted(options) == sorted(defaults), entry_point
        for name, value in defaults.items():
            assert name.startswith('tools_')
            assert options[name]['default'] == value, name
    # no tool choices in the spec: the role's plan checks a name against the registry (test_registry_lists.py)
    assert 'choices' not in specs['main']['options']['tools_list']


def test_the_role_names_no_url_but_the_tool_sources():
    """Package registries are reached through their clients: the only URLs in the role are the
    tools' upstream sources and the ethr release pattern, all overridable."""
    import re
    text = '\n'.join(p.read_text() for p in ROLE.rglob('*') if p.is_file() and p.suffix in ('.yml', '.j2', '.ps1', '.sh'))
    hosts = set(re.findall(r'https?://([^/\s"\']+)', text))
    assert hosts <= {'github.com', 'www.nuttcp.net'}, hosts


# --- static checks of the task files no host here can run ---------------------------------

SYNTAX_PLAYBOOK = '''---
- name: Syntax of the tools role's task files
  hosts: all
  gather_facts: false
  tasks:
{imports}
'''


@pytest.mark.parametrize('files', [
    ['setup-Windows.yml', 'ethr-windows.yml', 'facts-windows.yml', 'absent-windows.yml', 'manifest-write-windows.yml'],
    ['setup-FreeBSD.yml', 'absent-packages-FreeBSD.yml', 'absent-posix.yml', 'facts-posix.yml'],
    ['setup-RedHat.yml', 'setup-ClearLinux.yml', 'absent-packages-RedHat.yml', 'absent-packages-ClearLinux.yml',
     'source-build.yml', 'ethr-posix.yml'],
], ids=['windows', 'freebsd', 'el-clear'])
def test_task_files_pass_syntax_check(tmp_path, files):
    """import_tasks parses each file statically: unknown modules or keywords fail here."""
    imports = '\n'.join('    - name: Import %s\n      ansible.builtin.import_tasks: %s' % (f, ROLE / 'tasks' / f) for f in files)
    playbook = tmp_path / 'syntax.yml'
    playbook.write_text(SYNTAX_PLAYBOOK.replace('{imports}', imports))
    proc = subprocess.run([str(ANSIBLE_PLAYBOOK), '--syntax-check', '-i', 'localhost,', str(playbook)],
                          cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_role_passes_ansible_lint_production():
    if not ANSIBLE_LINT.exists() or not shutil.which('git'):
        pytest.skip('ansible-lint is not installed next to %s' % sys.executable)
    proc = subprocess.run([str(ANSIBLE_LINT), '--profile', 'production', '--offline', '--nocolor', 'roles/tools'],
                          cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=600, check=False)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
