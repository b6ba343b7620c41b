# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fixtures for integration tests against the real local lab.

    def test_x(lab_factory, run_playbook):
        lab = lab_factory('t3', hosts=3, mgmt='10.230.0.0/24', data='10.230.1.0/24')
        res = run_playbook('tests/integration/playbooks/x.yml', lab.inventory, {'a': 1})
        assert res.rc == 0 and res.stats['lab1']['changed'] == 0
        out = lab.ssh('lab1', ['sysctl', '-n', 'net.ipv4.tcp_rmem'])

Each lab is brought up once per test session (labs with the same name are
shared) and brought down at the end of the session, on every path. Give each
test module its own lab name and subnets so modules can run side by side.

Tests of a role (or module) in bare network namespaces, without a lab:

    def test_y(make_netns):
        a, b = make_netns('h9a'), make_netns('h9b')   # leftovers of the names removed first
        subprocess.run(['ip', '-n', a, 'link', 'add', ...], check=True)

Every namespace made by ``make_netns`` is deleted when the test ends, on every path.
The role tests of tests/integration/roles/ run ansible-playbook (connection
local, some inside such namespaces); they skip without root where they need it.
"""
from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
ENV = dict(os.environ, ANSIBLE_CONFIG=str(ROOT / 'ansible.cfg'), ANSIBLE_FORCE_COLOR='0',
           PATH='%s:%s' % (BIN, os.environ.get('PATH', '')))


def _lab_problem():
    if os.geteuid() != 0:
        return 'the lab needs root (network namespaces, mounts, bridges)'
    for tool in ('ip', 'unshare', 'nsenter', 'debootstrap', 'nft'):
        if not shutil.which(tool):
            return '%s is not installed (make bootstrap installs it)' % tool
    return None


@dataclass
class PlaybookResult:
    rc: int
    stdout: str
    stderr: str
    stats: dict = field(default_factory=dict)
    plays: list = field(default_factory=list)

    def task_results(self, task_name):
        """Every host's result of the tasks with this name, from the json callback."""
        found = {}
        for play in self.plays:
            for task in play.get('tasks', []):
                if task['task']['name'] == task_name:
                    found.update(task['hosts'])
        return found


def run_playbook(playbook, inventory=None, extra_vars=None, check=False, env=None, timeout=1800, limit=None):
    argv = [str(BIN / 'ansible-playbook'), str(ROOT / playbook)]
    if inventory:
        argv += ['-i', str(inventory)]
    if limit:
        argv += ['--limit', limit]
    if extra_vars:
        argv += ['-e', json.dumps(extra_vars)]
    if check:
        argv.append('--check')
    run_env = dict(ENV, ANSIBLE_STDOUT_CALLBACK='ansible.posix.json')
    run_env.update(env or {})
    proc = subprocess.run(argv, cwd=ROOT, env=run_env, capture_output=True, text=True, timeout=timeout, check=False)
    result = PlaybookResult(proc.returncode, proc.stdout, proc.stderr)
    # the json callback's document starts on a line of its own; other callbacks may print around it
    start = 0 if proc.stdout.startswith('{') else proc.stdout.find('\n{') + 1
    if start > 0 or proc.stdout.startswith('{'):
        try:
            doc, dummy = json.JSONDecoder().raw_decode(proc.stdout[start:])
            result.stats, result.plays = doc.get('stats', {}), doc.get('plays', [])
        except ValueError:
            pass
    return result


@dataclass
class Lab:
    name: str
    hosts: int
    mgmt: str
    data: str
    options: dict

    @property
    def extra_vars(self):
        ev = {'lab_name': self.name, 'lab_hosts': self.hosts, 'lab_mgmt_subnet': self.mgmt,
              'lab_data_subnet': self.data}
        ev.update(('lab_' + k, v) for k, v in self.options.items())
        return ev

    @property
    def inventory(self):
        sub = 'lab' if self.name == 'perflab' else 'lab-' + self.name
        return ROOT / 'inventories' / sub / 'hosts.yml'

    def hostvars(self):
        inv = yaml.safe_load(self.inventory.read_text())
        return inv['all']['children']['perflab_lab']['hosts']

    def ssh_argv(self, host):
        hv = self.hostvars()[host]
        key = '/var/lib/perflab/%s/ssh/id_ed25519' % self.name
        port = ['-p', str(hv['ansible_port'])] if 'ansible_port' in hv else []  # VM hosts: QEMU's forwarded port
        return ['ssh', '-i', key, '-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null',
                '-o', 'LogLevel=ERROR', '-o', 'BatchMode=yes', '-o', 'ConnectTimeout=%d' % (20 if port else 5)] + \
            port + ['root@%s' % hv['ansible_host']]

    def ssh(self, host, argv, timeout=120, check=False):
        """Run argv on a lab host over real SSH (argv is quoted for the remote shell)."""
        cmd = self.ssh_argv(host) + ['--', ' '.join(shlex.quote(a) for a in argv)]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=check)

    def up(self):
        res = run_playbook('playbooks/lab_up.yml', extra_vars=self.extra_vars)
        assert res.rc == 0, 'lab %s did not come up:\n%s\n%s' % (self.name, res.stdout[-3000:], res.stderr[-2000:])
        return res

    def down(self):
        return run_playbook('playbooks/lab_down.yml', extra_vars=self.extra_vars)


@pytest.fixture(scope='session')
def lab_factory():
    problem = _lab_problem()
    labs, failed, claims = {}, {}, []

    def make(name, hosts=2, mgmt='10.213.0.0/24', data='10.213.1.0/24', **options):
        if problem:
            pytest.skip('no local lab here: ' + problem)
        if name in failed:
            pytest.fail('lab %s did not come up earlier in this session:\n%s' % (name, failed[name]))
        if name not in labs:
            # one worker per lab name: pytest-xdist runs modules on several workers at once, and a
            # second module making the same lab would take it down under the first one's tests
            claim = open('/tmp/perflab-test-lab-%s.lock' % name, 'w')
            try:
                fcntl.flock(claim, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                claim.close()
                pytest.fail('lab %s is in use by another test process: give each test module a lab name '
                            'and subnets of its own' % name)
            claims.append(claim)
            lab = Lab(name, hosts, mgmt, data, options)
            lab.down()  # leftovers of an interrupted earlier run
            try:
                lab.up()
            except AssertionError as exc:
                failed[name] = str(exc)
                lab.down()  # what came up of it
                raise
            labs[name] = lab
        return labs[name]

    yield make
    try:
        for lab in labs.values():
            res = lab.down()
            assert res.rc == 0, 'lab %s did not come down: %s' % (lab.name, res.stdout[-2000:])
    finally:
        for claim in claims:
            claim.close()


def _netns_problem():
    if os.geteuid() != 0:
        return 'network namespaces need root'
    if not shutil.which('ip'):
        return 'ip (iproute2) is not installed'
    return None


def netns_names():
    out = subprocess.run(['ip', '-j', 'netns', 'list'], capture_output=True, text=True, check=False).stdout.strip()
    return {n['name'] for n in json.loads(out or '[]')}


@contextlib.contextmanager
def netns_maker():
    """make(name) makes a network namespace (a leftover of the same name is removed first) and
    returns its name; every one made is deleted when the block ends, on every path."""
    problem = _netns_problem()
    made = []

    def make(name):
        if problem:
            pytest.skip(problem)
        if name in netns_names():
            subprocess.run(['ip', 'netns', 'del', name], capture_output=True, check=False)
        subprocess.run(['ip', 'netns', 'add', name], check=True)
        made.append(name)
        return name

    try:
        yield make
    finally:
        for name in reversed(made):
            subprocess.run(['ip', 'netns', 'del', name], capture_output=True, check=False)


@pytest.fixture
def make_netns():
    """netns_maker() for one test."""
    with netns_maker() as make:
        yield make


@pytest.fixture(scope='session', name='run_playbook')
def run_playbook_fixture():
    return run_playbook


def pytest_sessionfinish(session):
    """A pytest-xdist worker hands its battery cases to the controller, which prints the one table."""
    import battery
    if hasattr(session.config, 'workeroutput'):
        session.config.workeroutput['battery'] = battery.dump()


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    """pytest-xdist's controller: a worker's battery cases join the ledger (the hook exists only with xdist)."""
    import battery
    battery.load(getattr(node, 'workeroutput', {}).get('battery'))


def pytest_terminal_summary(terminalreporter):
    """Print the reliability and security battery's table (tests/integration/battery.py)."""
    import battery
    lines = battery.table()
    if lines:
        terminalreporter.write_sep('=', 'reliability and security battery')
        for line in lines:
            terminalreporter.write_line(line)


# The modules that take longest go first: with ``-n 3 --dist loadfile`` a module runs whole on one worker, in
# collection order, and test_vm_lab.py (VM hosts under TCG, 15-30 min) sorted last made the run wait for it alone
# at the end. Started first, it runs beside the other modules instead. The same for make test's longest modules
# (their tests' durations in a clean-clone run, 2026-12-03): one of them started last kept one worker busy alone
# at the end while the others had nothing left.
LONGEST_FIRST = ('test_vm_lab.py', 'test_battery_faults.py', 'test_battery_careless.py', 'test_battery_inputs.py',
                 'test_tools_role.py', 'test_battery_hosts.py', 'test_study_interleaved.py', 'test_study.py',
                 'test_fleet.py', 'test_bonding_render.py', 'test_unmanaged_server.py', 'test_study_firewall.py')


def pytest_collection_modifyitems(session, config, items):
    def rank(item):
        name = item.nodeid.split('::')[0].rsplit('/', 1)[-1]
        return LONGEST_FIRST.index(name) if name in LONGEST_FIRST else len(LONGEST_FIRST)
    items.sort(key=rank)   # stable: each module's own order is kept
