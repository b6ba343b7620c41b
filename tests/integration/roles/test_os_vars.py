# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The per-OS variables of every role, on every OS the collection supports.

Each role with per-OS data (tools, tuning, mtu, bonding, firewall) loads it in layers
(``tasks/set_vars.yml``): ``vars/main.yml`` first (the defaults, loaded with the role), then
``vars/<os_family>.yml``, ``vars/<os_family>_<major>.yml``, ``vars/<distribution>.yml``,
``vars/<distribution>_<major>.yml`` and ``vars/<distribution>_<version>.yml``, whichever
exist, each over the one before.

The test runs the roles' real ``set_vars.yml`` with ansible-playbook (one inventory host per
OS, its facts injected, nothing runs on a managed host: include_vars and the ``is file`` test
happen on the controller) and compares the raw value of every per-OS variable with
``tests/unit/fixtures/os_vars/expected.json``. That file was recorded the same way on the
commit before the layering, with the old first-found loaders (``tasks_from: plan`` for tools),
so a pass means the layered files give every OS exactly the values it had. Two of the recorded
variables were values tasks picked by OS then (``__bonding_name_regex`` in bonding's
preflight, and ``__mtu_root_group`` in mtu's arm-rollback until the one rollback guard made it
unneeded), recorded from those expressions.
The only differences allowed are NEWLY_DEFINED below. The ``<os_family>_<major>`` layer keeps
what bonding's and firewall's first-found lists had: ``RedHat_7.yml`` for every EL 7.

A Python replica of the layers, checked against the task, then shows that no per-OS file
repeats what the layers below it give, and that every file is named ``Distro_Major`` and
loaded on some supported OS.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from ansible_collections.perflab.network.plugins.filter.tool_install_plan import tool_install_plan

ROOT = Path(__file__).resolve().parents[3]
FACTS = ROOT / 'tests' / 'unit' / 'fixtures' / 'facts'
EXPECTED = ROOT / 'tests' / 'unit' / 'fixtures' / 'os_vars' / 'expected.json'
BIN = Path(sys.executable).parent
ANSIBLE_PLAYBOOK = BIN / 'ansible-playbook'
ROLES = ['tools', 'tuning', 'mtu', 'bonding', 'firewall']
LAYERED = {role: 'set_vars' for role in ROLES}

# The supported OSes without a fixture in tests/unit/fixtures/facts: the keys the layers read,
# as ansible-core's distribution rules give them for the release's /etc/os-release
# (FreeBSD: platform.release() of 13.2-RELEASE).
INLINE_FACTS = {
    'debian-10': {'distribution': 'Debian', 'distribution_major_version': '10', 'distribution_version': '10.13',
                  'distribution_release': 'buster', 'os_family': 'Debian', 'pkg_mgr': 'apt', 'system': 'Linux'},
    'debian-11': {'distribution': 'Debian', 'distribution_major_version': '11', 'distribution_version': '11.11',
                  'distribution_release': 'bullseye', 'os_family': 'Debian', 'pkg_mgr': 'apt', 'system': 'Linux'},
    'ubuntu-20.04': {'distribution': 'Ubuntu', 'distribution_major_version': '20', 'distribution_version': '20.04',
                     'distribution_release': 'focal', 'os_family': 'Debian', 'pkg_mgr': 'apt', 'system': 'Linux'},
    'freebsd-13': {'distribution': 'FreeBSD', 'distribution_major_version': '13', 'distribution_version': '13.2',
                   'distribution_release': '13.2-RELEASE', 'os_family': 'FreeBSD', 'pkg_mgr': 'pkgng',
                   'system': 'FreeBSD'},
}
# below the collection's minimum (the tools role refuses it before loading anything)
UNSUPPORTED = {'ubuntu-16.04'}

# Variables a layer now defines on an OS where the old first-found file left them undefined:
# a default of vars/main.yml that the role's tasks never read on that platform.
# (role, variable) -> OSes (by os_family) where it is new.
NEWLY_DEFINED = {
    ('tuning', '__tuning_sysctl_file'): {'Windows'},
    ('mtu', '__mtu_set_command'): {'Windows'},
}

# Variables whose data moved out of the per-OS files, now derived from a per-OS variable that replaced them
# (the recorded values still judge it): (role, old variable) -> (new per-OS variable, old value from the new one).
MOVED = {('tools', '__tools_plan'): ('__tools_install_family', tool_install_plan)}

FIXTURE_ACTION = '''# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import absolute_import, division, print_function
__metaclass__ = type
from ansible.plugins.action import ActionBase


class ActionModule(ActionBase):
    """Return the given facts as the host's facts, the way setup's result would."""
    def run(self, tmp=None, task_vars=None):
        result = super(ActionModule, self).run(tmp, task_vars)
        result['ansible_facts'] = dict(self._task.args['facts'])
        result['changed'] = False
        return result
'''

DUMP_ACTION = '''# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import absolute_import, division, print_function
__metaclass__ = type
from ansible.plugins.action import ActionBase


def _plain(value):
    if isinstance(value, dict):
        return dict((str(k), _plain(v)) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, str):
        return str(value)
    return value


class ActionModule(ActionBase):
    """The raw (untemplated) values of the named variables as the next task sees them."""
    def run(self, tmp=None, task_vars=None):
        result = super(ActionModule, self).run(tmp, task_vars)
        facts = task_vars.get('ansible_facts', {})
        loaded = {}
        for role in self._task.args['roles']:
            register = task_vars.get('__%s_vars_loaded' % role) or {}
            loaded[role] = [str(r['__%s_vars_layer' % role]) for r in register.get('results', [])
                            if r.get('ansible_included_var_files')]
        result['os_vars'] = {
            'vars': dict((n, _plain(task_vars[n])) for n in self._task.args['names'] if n in task_vars),
            'loaded': loaded,
            'facts': dict((k, str(facts.get(k))) for k in
                          ('os_family', 'distribution', 'distribution_major_version', 'distribution_version')),
        }
        result['changed'] = False
        return result
'''

PLAYBOOK = '''---
- name: Load every role's per-OS variables against injected facts
  hosts: all
  gather_facts: false
  tasks:
    - name: Set the host's facts
      fixture_facts:
        facts: "{{ os_facts }}"

    - name: Load the role's per-OS variables the way the role does
      ansible.builtin.include_role:
        name: "perflab.network.{{ __osvars_role }}"
        tasks_from: "{{ entry_points[__osvars_role] }}"
        public: true
      loop: "{{ entry_points.keys() | list }}"
      loop_control:
        loop_var: __osvars_role
%(extra)s
    - name: Report the variables
      dump_vars:
        names: "{{ names }}"
        roles: "{{ entry_points.keys() | list }}"
'''


def os_facts():
    """OS name -> facts (without the ansible_ prefix) of every supported OS."""
    result = {}
    for path in sorted(FACTS.glob('*.json')):
        name = path.stem.replace('-from-docs', '')
        if name not in UNSUPPORTED:
            facts = json.loads(path.read_text())['ansible_facts']
            result[name] = {k[len('ansible_'):]: v for k, v in facts.items()}
    result.update(INLINE_FACTS)
    return result


def vars_files(role, root=ROOT):
    return sorted(p for p in (root / 'roles' / role / 'vars').glob('*.yml'))


def per_os_names(role, root=ROOT):
    """Every variable some per-OS file of the role defines (vars/main.yml excluded)."""
    names = set()
    for path in vars_files(role, root):
        if path.name != 'main.yml':
            names |= set(yaml.safe_load(path.read_text()) or {})
    return names


def _env():
    env = dict(os.environ)
    env.update(ANSIBLE_CONFIG=str(ROOT / 'ansible.cfg'), ANSIBLE_FORCE_COLOR='0',
               ANSIBLE_CALLBACKS_ENABLED='ansible.posix.timer', ANSIBLE_STDOUT_CALLBACK='ansible.posix.json',
               ANSIBLE_LOCALHOST_WARNING='false', PATH='%s:%s' % (BIN, env.get('PATH', '')))
    return env


def effective_vars(work, entry_points, names, extra_tasks='', root=ROOT):
    """Run the roles' loaders on every OS: {os: {'vars': {name: raw value}, 'facts': {...}}}."""
    work = Path(work)
    (work / 'action_plugins').mkdir(exist_ok=True)
    (work / 'action_plugins' / 'fixture_facts.py').write_text(FIXTURE_ACTION)
    (work / 'action_plugins' / 'dump_vars.py').write_text(DUMP_ACTION)
    (work / 'os_vars.yml').write_text(PLAYBOOK % {'extra': extra_tasks})
    hosts = {}
    for name, facts in os_facts().items():
        # every fact the roles require is there (env too), so no loader gathers the controller's own facts
        injected = {'ansible_' + k: v for k, v in dict(facts, env={'HOME': '/root'}).items()}
        hostvars = {'os_facts': injected}
        if facts['os_family'] == 'Windows':
            # the tools plan refuses its default tools_list on Windows (no netperf)
            hostvars.update(tools_list=['iperf3', 'nuttcp', 'ethr'],
                            tools_nuttcp_windows_src='https://example.invalid/nuttcp.exe',
                            tools_nuttcp_windows_src_checksum='sha256:' + '0' * 64)
        hosts[name] = hostvars
    inventory = {'all': {'hosts': hosts, 'vars': {
        'ansible_connection': 'local', 'ansible_python_interpreter': sys.executable,
        'entry_points': entry_points, 'names': sorted(names)}}}
    (work / 'hosts.yml').write_text(yaml.safe_dump(inventory))
    proc = subprocess.run([str(ANSIBLE_PLAYBOOK), '-i', str(work / 'hosts.yml'), str(work / 'os_vars.yml'), '-f', '8'],
                          cwd=root, env=_env(), capture_output=True, text=True, timeout=600, check=False)
    start = proc.stdout.find('{')
    assert start >= 0, proc.stderr[-4000:]
    doc, _end = json.JSONDecoder().raw_decode(proc.stdout[start:])
    results = {}
    for task in doc['plays'][0]['tasks']:
        if task['task']['name'] == 'Report the variables':
            for host, result in task['hosts'].items():
                results[host] = result['os_vars']
    assert proc.returncode == 0 and set(results) == set(hosts), (proc.returncode, proc.stdout[-4000:], proc.stderr[-2000:])
    return results


# --- the loader, replicated: which files load on an OS, and what they give ---------------------

def layers(facts, role, root=ROOT):
    """The files tasks/set_vars.yml loads, in its order (its list, unique, those that exist)."""
    names = ['%s.yml' % facts['os_family'],
             '%s_%s.yml' % (facts['os_family'], facts['distribution_major_version']),
             '%s.yml' % facts['distribution'],
             '%s_%s.yml' % (facts['distribution'], facts['distribution_major_version']),
             '%s_%s.yml' % (facts['distribution'], facts['distribution_version'])]
    unique = [n for i, n in enumerate(names) if n not in names[:i]]
    return [n for n in unique if (root / 'roles' / role / 'vars' / n).is_file()]


def _load(role, name):
    return yaml.safe_load((ROOT / 'roles' / role / 'vars' / name).read_text()) or {}


def merged(facts, role, upto=None):
    """vars/main.yml, then each layer over it (include_vars replaces whole variables)."""
    result = dict(_load(role, 'main.yml'))
    for name in layers(facts, role):
        if name == upto:
            break
        result.update(_load(role, name))
    return result


@pytest.fixture(scope='module')
def expected():
    return json.loads(EXPECTED.read_text())


@pytest.fixture(scope='module')
def layered(tmp_path_factory, expected):
    if not ANSIBLE_PLAYBOOK.exists():
        pytest.skip('ansible-playbook is not installed next to %s' % sys.executable)
    names = set()
    for role in ROLES:
        names |= set(expected['names'][role]) | per_os_names(role)
    return effective_vars(tmp_path_factory.mktemp('os-vars'), LAYERED, names)


OSES = sorted(os_facts())


def test_every_supported_os_is_checked(expected):
    assert OSES == sorted(expected['values']['tools'])
    families = {f['os_family'] for f in os_facts().values()}
    assert families == {'Debian', 'RedHat', 'ClearLinux', 'FreeBSD', 'Windows'}


@pytest.mark.parametrize('name', sorted(INLINE_FACTS))
def test_inline_facts_agree_with_ansible_core(name):
    from ansible.module_utils.facts.system.distribution import Distribution
    facts = INLINE_FACTS[name]
    if facts['system'] == 'Linux':
        assert Distribution.OS_FAMILY[facts['distribution']] == facts['os_family']
    assert facts['distribution_version'].split('.')[0] == facts['distribution_major_version']


def test_the_loaders_saw_the_injected_facts(layered):
    """No loader gathered the controller's own facts over the injected ones."""
    for name, facts in os_facts().items():
        assert layered[name]['facts'] == {k: str(facts[k]) for k in layered[name]['facts']}, name


@pytest.mark.parametrize('role', ROLES)
def test_layers_give_every_os_the_values_it_had(layered, expected, role):
    """Every per-OS variable, raw, against what the first-found files gave before the layering."""
    names = set(expected['names'][role]) | per_os_names(role)
    moved = dict((old, moves) for (r, old), moves in MOVED.items() if r == role)
    assert names - set(new for new, _derive in moved.values()) == set(expected['names'][role]), \
        'new per-OS variables: record their old values first'
    seen = set()
    for os_name in OSES:
        old = expected['values'][role][os_name]
        new = {n: v for n, v in layered[os_name]['vars'].items() if n in names}
        for old_name, (new_name, derive) in moved.items():
            new[old_name] = derive(new.pop(new_name, None))
        family = os_facts()[os_name]['os_family']
        added = {n for n in set(new) - set(old) if family in NEWLY_DEFINED.get((role, n), ())}
        assert {n: new[n] for n in new if n not in added} == old, '%s on %s' % (role, os_name)
        seen |= {(n, family) for n in added}
    listed = {(n, f) for (r, n), families in NEWLY_DEFINED.items() if r == role for f in families}
    assert seen == listed, 'NEWLY_DEFINED is out of date'


@pytest.mark.parametrize('role', ROLES)
def test_the_replica_loads_what_the_task_loads(layered, role):
    """The Python replica of the layers (used below) is the task: same files, same values."""
    names = per_os_names(role) | set(_load(role, 'main.yml'))
    for os_name, facts in os_facts().items():
        assert layered[os_name]['loaded'][role] == layers(facts, role), (role, os_name)
        want = {n: v for n, v in merged(facts, role).items() if n in per_os_names(role)}
        got = {n: v for n, v in layered[os_name]['vars'].items() if n in names and n in want}
        assert got == want, (role, os_name)


@pytest.mark.parametrize('role', ROLES)
def test_every_per_os_file_is_used_and_named_distro_major(role):
    used = {name for facts in os_facts().values() for name in layers(facts, role)}
    for path in vars_files(role):
        if path.name == 'main.yml':
            continue
        assert re.match(r'^[A-Za-z]+(_[0-9][0-9.]*)?\.yml$', path.name), path
        assert path.name in used, '%s is loaded on no supported OS' % path


@pytest.mark.parametrize('role', ROLES)
def test_no_layer_repeats_the_layers_below(role):
    """A per-OS file holds only differences: each of its variables changes the value the
    layers below give, on at least one OS that loads it."""
    for path in vars_files(role):
        if path.name == 'main.yml':
            continue
        loaders = [facts for facts in os_facts().values() if path.name in layers(facts, role)]
        for name, value in _load(role, path.name).items():
            below = [merged(facts, role, upto=path.name).get(name, '<undefined>') for facts in loaders]
            assert any(b != value for b in below), '%s in %s repeats the layers below' % (name, path)


def test_one_loader_in_every_role():
    """tasks/set_vars.yml: the same gather and load tasks in every role, but for the prefix."""
    shapes = {}
    for role in ROLES:
        tasks = yaml.safe_load((ROOT / 'roles' / role / 'tasks' / 'set_vars.yml').read_text())
        shapes[role] = json.dumps(tasks[:2], sort_keys=True).replace('__%s_' % role, '__ROLE_')
        assert 'distribution_version' in _load(role, 'main.yml')['__%s_required_facts' % role]
    assert len(set(shapes.values())) == 1, shapes
