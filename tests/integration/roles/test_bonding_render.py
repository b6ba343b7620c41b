# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The bonding role run for real (ansible-playbook, connection local) inside a throwaway
network namespace holding the member interfaces, writing under a scratch root directory
(bonding_root_dir), and every rendered configuration checked OFFLINE by the real tool:

- netplan:          `netplan generate --root-dir` (netplan.io), and its networkd output read back
- systemd-networkd: systemd-networkd itself parsing our files in a private mount and network
                    namespace (it logs every unknown key or bad value), cross-checked against the
                    files netplan generates for the same bond
- ifupdown:         `ifup --no-act -i <file>` and `ifquery -i <file>`
- NetworkManager:   community.general.nmcli driving the real `nmcli --offline` (NetworkManager
                    1.42 has it) behind a stand-in for the daemon; the keyfiles it writes are
                    read back by `nmcli --offline connection modify`
- ifcfg:            sourced by sh (as initscripts and NetworkManager's ifcfg-rh reader take it)
- FreeBSD rc.conf:  sourced by sh; Windows: the mode tables against the script's ValidateSets

The kernel of the development machine has no bonding driver: the live path is in
tests/integration/test_firewall_bonding.py, behind the role's own capability check.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import base64
import configparser
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[3]
BIN = Path(sys.executable).parent
ROLE = ROOT / 'roles' / 'bonding'
NMCLI_CACHE = Path('/var/cache/perflab/nmcli-offline')

PLAY = '''
- hosts: all
  gather_facts: false
  roles:
    - role: perflab.network.bonding
'''

BOND = {'bonding_members': ['h6m0', 'h6m1'], 'bonding_mode': '802.3ad', 'bonding_xmit_hash_policy': 'layer3+4',
        'bonding_mtu': 9000, 'bonding_address': '10.206.1.50/24', 'bonding_miimon': 100}


def _problem():
    if os.geteuid() != 0:
        return 'needs root (a network namespace holds the member interfaces)'
    if not shutil.which('ip'):
        return 'ip (iproute2) is not installed'
    return None


pytestmark = pytest.mark.skipif(_problem() is not None, reason=str(_problem()))


class Namespace(object):
    """h6bd-<pid>: veth pairs h6m0/h6p0 and h6m1/h6p1 (members), h6mg/h6pg holding 10.206.1.70/24."""

    def __init__(self):
        self.name = 'h6bd-%d' % os.getpid()

    def up(self):
        # this run's name, and those of earlier runs that were killed before their cleanup
        names = subprocess.run(['ip', 'netns', 'list'], capture_output=True, text=True, check=False).stdout.split()
        for name in names:
            pid = name[len('h6bd-'):]
            if name == self.name or (name.startswith('h6bd-') and pid.isdigit() and not os.path.exists('/proc/' + pid)):
                subprocess.run(['ip', 'netns', 'del', name], capture_output=True, check=False)
        subprocess.run(['ip', 'netns', 'add', self.name], check=True)
        for a, b in (('h6m0', 'h6p0'), ('h6m1', 'h6p1'), ('h6mg', 'h6pg')):
            subprocess.run(['ip', '-n', self.name, 'link', 'add', a, 'type', 'veth', 'peer', 'name', b], check=True)
        subprocess.run(['ip', '-n', self.name, 'addr', 'add', '10.206.1.70/24', 'dev', 'h6mg'], check=True)

    def down(self):
        subprocess.run(['ip', 'netns', 'del', self.name], capture_output=True, check=False)


@pytest.fixture(scope='module')
def netns():
    ns = Namespace()
    ns.up()
    try:
        yield ns
    finally:
        ns.down()


class Run(object):
    def __init__(self, proc):
        self.rc = proc.returncode
        self.stdout, self.stderr = proc.stdout, proc.stderr
        start = proc.stdout.find('{')
        doc = json.JSONDecoder().raw_decode(proc.stdout[start:])[0] if start >= 0 else {}
        self.stats = doc.get('stats', {}).get('localhost', {})
        self.plays = doc.get('plays', [])

    @property
    def changed(self):
        return self.stats.get('changed', 0)

    def failure(self):
        for play in self.plays:
            for task in play.get('tasks', []):
                result = task['hosts'].get('localhost', {})
                if result.get('failed'):
                    return result.get('msg', '')
        return ''


def run_role(netns, tmp_path, role_vars, check=False, extra_env=None):
    play = tmp_path / 'play.yml'
    play.write_text(PLAY)
    variables = dict(ansible_python_interpreter=sys.executable, **role_vars)
    argv = ['ip', 'netns', 'exec', netns.name, str(BIN / 'ansible-playbook'), '-i', 'localhost,', '-c', 'local',
            '-e', json.dumps(variables), str(play)]
    if check:
        argv.append('--check')
    env = dict(os.environ, ANSIBLE_CONFIG=str(ROOT / 'ansible.cfg'), ANSIBLE_STDOUT_CALLBACK='ansible.posix.json',
               ANSIBLE_FORCE_COLOR='0', PATH='%s:%s' % (BIN, os.environ.get('PATH', '')))
    env.update(extra_env or {})
    return Run(subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False))


def ini(path):
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.optionxform = str
    parser.read(path)
    return dict((s, dict(parser[s])) for s in parser.sections())


def files_under(root):
    return sorted(str(p.relative_to(root)) for p in Path(root).rglob('*') if p.is_file())


# ---------------------------------------------------------------- the matrix: one playbook, every file stack

MATRIX_PLAY = """
- hosts: all
  gather_facts: false
  tasks:
    - name: Run the role once per case
      ansible.builtin.include_tasks: case.yml
      loop: "{{ cases }}"
      loop_control:
        loop_var: case
    - name: Report
      ansible.builtin.debug:
        var: outcomes
"""

# Role variables are listed one by one: include_role takes no templated dict of vars.
CASE_TASKS = """
- name: One case
  block:
    - name: The role
      ansible.builtin.include_role:
        name: perflab.network.bonding
      vars:
        ansible_host: "{{ case.vars.ansible_host | default('localhost') }}"
        bonding_state: "{{ case.vars.bonding_state | default('present') }}"
        bonding_name: "{{ case.vars.bonding_name | default('bond0') }}"
        bonding_members: "{{ case.vars.bonding_members }}"
        bonding_mode: "{{ case.vars.bonding_mode }}"
        bonding_xmit_hash_policy: "{{ case.vars.bonding_xmit_hash_policy }}"
        bonding_miimon: "{{ case.vars.bonding_miimon }}"
        bonding_mtu: "{{ case.vars.bonding_mtu }}"
        bonding_address: "{{ case.vars.bonding_address }}"
        bonding_stack: "{{ case.vars.bonding_stack }}"
        bonding_root_dir: "{{ case.vars.bonding_root_dir | default('/') }}"
        bonding_apply: "{{ case.vars.bonding_apply | default(true) }}"
        bonding_netplan_renderer: "{{ case.vars.bonding_netplan_renderer | default('') }}"
        bonding_allow_management_change: "{{ case.vars.bonding_allow_management_change | default(false) }}"
    - name: Passed
      ansible.builtin.set_fact:
        outcomes: "{{ outcomes | default({}) | combine({case.name: ''}) }}"
  rescue:
    - name: Refused
      ansible.builtin.set_fact:
        outcomes: "{{ outcomes | default({}) | combine({case.name: ansible_failed_result.msg | default('failed')}) }}"
"""


def run_cases(netns, tmp_path, cases, check=False):
    (tmp_path / 'case.yml').write_text(CASE_TASKS)
    play = tmp_path / 'cases.yml'
    play.write_text(MATRIX_PLAY)
    argv = ['ip', 'netns', 'exec', netns.name, str(BIN / 'ansible-playbook'), '-i', 'localhost,', '-c', 'local',
            '-e', json.dumps({'ansible_python_interpreter': sys.executable, 'cases': cases}), str(play)]
    if check:
        argv.append('--check')
    env = dict(os.environ, ANSIBLE_CONFIG=str(ROOT / 'ansible.cfg'), ANSIBLE_STDOUT_CALLBACK='ansible.posix.json',
               PATH='%s:%s' % (BIN, os.environ.get('PATH', '')))
    run = Run(subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=1200, check=False))
    assert run.rc == 0, run.stdout[-3000:]
    run.outcomes = run.plays[0]['tasks'][-1]['hosts']['localhost']['outcomes']
    return run


IFCFG_ORIGINAL = 'DEVICE=h6m0\nBOOTPROTO=dhcp\nONBOOT=yes\n'

MATRIX = {
    'netplan': dict(BOND, bonding_stack='netplan'),
    'netplan-nm': dict(BOND, bonding_stack='netplan', bonding_netplan_renderer='NetworkManager', bonding_mode='balance-xor',
                       bonding_xmit_hash_policy='layer2+3', bonding_address='fd00:206::50/64'),
    'networkd': dict(BOND, bonding_stack='networkd'),
    'ifupdown-inet': dict(BOND, bonding_stack='ifupdown'),
    'ifupdown-inet6': dict(BOND, bonding_stack='ifupdown', bonding_address='fd00:206::50/64'),
    'ifupdown-none': dict(BOND, bonding_stack='ifupdown', bonding_address='', bonding_mode='active-backup',
                          bonding_xmit_hash_policy=''),
    'ifcfg': dict(BOND, bonding_stack='ifcfg'),
}


class Matrix(object):
    pass


@pytest.fixture(scope='module')
def matrix(netns, tmp_path_factory):
    """Each case rendered into a root of its own: check mode first, then for real, again (to see
    no change), a copy of what was written kept, then removed with bonding_state: absent."""
    base = tmp_path_factory.mktemp('matrix')
    roots = dict((name, base / name) for name in MATRIX)
    for root in roots.values():
        root.mkdir()
    (roots['ifcfg'] / 'etc/sysconfig/network-scripts').mkdir(parents=True)
    (roots['ifcfg'] / 'etc/sysconfig/network-scripts/ifcfg-h6m0').write_text(IFCFG_ORIGINAL)
    cases = [{'name': name, 'vars': dict(settings, bonding_root_dir=str(roots[name]))}
             for name, settings in sorted(MATRIX.items())]
    result = Matrix()
    result.roots = roots
    result.checked = run_cases(netns, base, cases, check=True)
    result.after_check = dict((name, files_under(root)) for name, root in roots.items())
    result.first = run_cases(netns, base, cases)
    result.kept = base / 'kept'
    shutil.copytree(str(base), str(result.kept), ignore=shutil.ignore_patterns('kept', '*.yml'))
    result.second = run_cases(netns, base, cases)
    result.gone = run_cases(netns, base, [dict(c, vars=dict(c['vars'], bonding_state='absent')) for c in cases])
    result.after_absent = dict((name, files_under(root)) for name, root in roots.items())
    return result


def kept(matrix, name):
    return matrix.kept / name


def test_matrix_all_cases_pass_and_a_second_run_changes_nothing(matrix):
    for run in (matrix.checked, matrix.first, matrix.second, matrix.gone):
        assert run.outcomes == dict((name, '') for name in MATRIX), run.outcomes
    assert matrix.checked.changed > 0 and matrix.first.changed > 0
    assert matrix.second.changed == 0, matrix.second.stdout[-3000:]


def test_matrix_check_mode_writes_nothing(matrix):
    assert matrix.after_check['ifcfg'] == ['etc/sysconfig/network-scripts/ifcfg-h6m0']
    assert all(files == [] for name, files in matrix.after_check.items() if name != 'ifcfg'), matrix.after_check


def test_matrix_absent_leaves_only_what_was_there(matrix):
    assert matrix.after_absent['ifcfg'] == ['etc/sysconfig/network-scripts/ifcfg-h6m0']
    assert (matrix.roots['ifcfg'] / 'etc/sysconfig/network-scripts/ifcfg-h6m0').read_text() == IFCFG_ORIGINAL
    assert all(files == [] for name, files in matrix.after_absent.items() if name != 'ifcfg'), matrix.after_absent


# ---------------------------------------------------------------- netplan

needs_netplan = pytest.mark.skipif(not shutil.which('netplan'), reason='netplan is not installed (apt-get install netplan.io)')


def netplan_generate(root):
    return subprocess.run(['netplan', 'generate', '--root-dir', str(root)], capture_output=True, text=True, check=False)


@needs_netplan
def test_netplan_config_is_generated_by_netplan(matrix, tmp_path):
    root = tmp_path / 'netplan'
    shutil.copytree(str(kept(matrix, 'netplan')), str(root))
    config = root / 'etc/netplan/60-perflab-bond0.yaml'
    assert oct(config.stat().st_mode & 0o777) == '0o600'
    assert yaml.safe_load(config.read_text())['network']['bonds']['bond0']['parameters'] == {
        'mode': '802.3ad', 'mii-monitor-interval': 100, 'transmit-hash-policy': 'layer3+4'}
    generated = netplan_generate(root)
    assert generated.returncode == 0, generated.stderr
    netdev = ini(root / 'run/systemd/network/10-netplan-bond0.netdev')
    assert netdev == {'NetDev': {'Name': 'bond0', 'MTUBytes': '9000', 'Kind': 'bond'},
                      'Bond': {'Mode': '802.3ad', 'MIIMonitorSec': '100ms', 'TransmitHashPolicy': 'layer3+4'}}
    assert ini(root / 'run/systemd/network/10-netplan-bond0.network')['Network']['Address'] == '10.206.1.50/24'
    for member in ('h6m0', 'h6m1'):
        assert ini(root / ('run/systemd/network/10-netplan-%s.network' % member))['Network']['Bond'] == 'bond0'


@needs_netplan
def test_netplan_with_the_networkmanager_renderer_gives_nm_keyfiles(matrix, tmp_path):
    root = tmp_path / 'netplan-nm'
    shutil.copytree(str(kept(matrix, 'netplan-nm')), str(root))
    assert netplan_generate(root).returncode == 0
    keyfile = ini(root / 'run/NetworkManager/system-connections/netplan-bond0.nmconnection')
    assert keyfile['bond'] == {'mode': 'balance-xor', 'miimon': '100', 'xmit_hash_policy': 'layer2+3'}
    assert keyfile['ipv6']['address1'] == 'fd00:206::50/64'
    assert keyfile['ethernet']['mtu'] == '9000'


@needs_netplan
def test_netplan_refuses_what_netplan_refuses(tmp_path):
    """The check above can fail: netplan generate rejects a broken bond."""
    (tmp_path / 'etc/netplan').mkdir(parents=True)
    bad = tmp_path / 'etc/netplan/60-bad.yaml'
    bad.write_text('network:\n  version: 2\n  ethernets: {h6m0: {}}\n  bonds:\n'
                   '    bond0: {interfaces: [h6m0, h6zz], parameters: {mode: 802.3ax}}\n')
    bad.chmod(0o600)
    assert netplan_generate(tmp_path).returncode != 0


# ---------------------------------------------------------------- systemd-networkd

NETWORKD = '/lib/systemd/systemd-networkd'
needs_networkd = pytest.mark.skipif(not (os.path.exists(NETWORKD) and shutil.which('unshare')),
                                    reason='systemd-networkd or unshare is missing')


def networkd_parse(netdir):
    """systemd-networkd reading `netdir` as /etc/systemd/network, in private mount and network
    namespaces (nothing of the host is seen or touched); returns its log."""
    script = ('mount --make-rprivate / && mount --bind "$1" /etc/systemd/network && mount -t tmpfs tmpfs /run/systemd '
              '&& mkdir -p /run/systemd/netif && chown systemd-network:systemd-network /run/systemd/netif '
              '&& SYSTEMD_LOG_TARGET=console SYSTEMD_LOG_LEVEL=debug exec %s' % NETWORKD)
    proc = subprocess.run(['timeout', '4', 'unshare', '--mount', '--net', 'sh', '-c', script, 'networkd', str(netdir)],
                          capture_output=True, text=True, check=False)
    return proc.stdout + proc.stderr


@needs_networkd
def test_networkd_files_parse_cleanly_in_networkd_itself(matrix, tmp_path):
    netdir = tmp_path / 'network'
    shutil.copytree(str(kept(matrix, 'networkd') / 'etc/systemd/network'), str(netdir))
    assert sorted(os.listdir(netdir)) == ['10-perflab-bond0-h6m0.network', '10-perflab-bond0-h6m1.network',
                                          '10-perflab-bond0.netdev', '10-perflab-bond0.network']
    log = networkd_parse(netdir)
    ours = [line for line in log.splitlines() if '10-perflab-' in line]
    assert ours == [], '\n'.join(ours)  # networkd names a file only to complain about it
    # it did read the netdev: it went on to make the bond (which this kernel may refuse)
    assert re.search(r'^bond0: (loaded "bond"|Creating)', log, re.M), log[-2000:]

    # a file it must complain about, so the check above can fail
    (netdir / '10-perflab-bad.netdev').write_text('[NetDev]\nName=bad0\nKind=bond\nFoo=1\n[Bond]\nMode=802.3ax\n')
    log = networkd_parse(netdir)
    assert "Unknown key 'Foo'" in log or 'Unknown key name' in log
    assert 'Failed to parse bond mode' in log


@needs_netplan
def test_networkd_files_match_what_netplan_renders_for_the_same_bond(matrix, tmp_path):
    netplan_root = tmp_path / 'netplan'
    shutil.copytree(str(kept(matrix, 'netplan')), str(netplan_root))
    assert netplan_generate(netplan_root).returncode == 0
    ours = kept(matrix, 'networkd') / 'etc/systemd/network'
    theirs = netplan_root / 'run/systemd/network'
    assert ini(ours / '10-perflab-bond0.netdev') == ini(theirs / '10-netplan-bond0.netdev')
    our_network, their_network = ini(ours / '10-perflab-bond0.network'), ini(theirs / '10-netplan-bond0.network')
    assert our_network['Link'] == their_network['Link']
    for key in ('Address', 'ConfigureWithoutCarrier'):
        assert our_network['Network'][key] == their_network['Network'][key]
    for member in ('h6m0', 'h6m1'):
        assert ini(ours / ('10-perflab-bond0-%s.network' % member)) == ini(theirs / ('10-netplan-%s.network' % member))


# ---------------------------------------------------------------- ifupdown

needs_ifupdown = pytest.mark.skipif(not shutil.which('ifup'), reason='ifupdown is not installed')


@needs_ifupdown
@pytest.mark.parametrize('case,address,family', [('ifupdown-inet', '10.206.1.50/24', 'inet'),
                                                 ('ifupdown-inet6', 'fd00:206::50/64', 'inet6'),
                                                 ('ifupdown-none', None, 'inet')])
def test_ifupdown_config_passes_ifup_no_act(matrix, case, address, family):
    path = kept(matrix, case) / 'etc/network/interfaces.d/perflab-bond0'
    dry = subprocess.run(['ifup', '--no-act', '-i', str(path), 'bond0'], capture_output=True, text=True, check=False)
    assert dry.returncode == 0, dry.stderr
    if address:
        assert re.search(r'ip (-6 )?addr add %s' % re.escape(address.split('/')[0]), dry.stdout + dry.stderr)
    assert 'mtu 9000' in dry.stdout + dry.stderr
    query = subprocess.run(['ifquery', '-i', str(path), 'bond0'], capture_output=True, text=True, check=True).stdout
    options = dict(line.split(': ', 1) for line in query.splitlines())
    assert options['bond-slaves'] == 'h6m0 h6m1'
    if address:
        assert (options['bond-mode'], options['bond-miimon'], options['bond-xmit-hash-policy']) == ('802.3ad', '100', 'layer3+4')
    else:
        assert options['bond-mode'] == 'active-backup' and 'bond-xmit-hash-policy' not in options
    assert ('iface bond0 %s %s' % (family, 'static' if address else 'manual')) in path.read_text()
    member = subprocess.run(['ifquery', '-i', str(path), 'h6m0'], capture_output=True, text=True, check=True).stdout
    assert 'bond-master: bond0' in member


@needs_ifupdown
def test_ifup_refuses_what_ifup_refuses(tmp_path):
    bad = tmp_path / 'bad'
    bad.write_text('iface bond0 inet static\n    mtu 9000\n')  # static without an address
    assert subprocess.run(['ifup', '--no-act', '-i', str(bad), 'bond0'], capture_output=True, check=False).returncode != 0


# ---------------------------------------------------------------- ifcfg

def sourced(path, names):
    script = 'set -e; . "$1"; ' + '; '.join('printf "%%s=%%s\\n" %s "${%s-}"' % (n, n) for n in names)
    out = subprocess.run(['sh', '-c', script, 'sh', str(path)], capture_output=True, text=True, check=True).stdout
    return dict(line.split('=', 1) for line in out.splitlines())


def test_ifcfg_files_source_cleanly(matrix):
    scripts = kept(matrix, 'ifcfg') / 'etc/sysconfig/network-scripts'
    bond = sourced(scripts / 'ifcfg-bond0', ['DEVICE', 'TYPE', 'BONDING_MASTER', 'BONDING_OPTS', 'IPADDR', 'PREFIX', 'MTU', 'ONBOOT'])
    assert bond == {'DEVICE': 'bond0', 'TYPE': 'Bond', 'BONDING_MASTER': 'yes',
                    'BONDING_OPTS': 'mode=802.3ad miimon=100 xmit_hash_policy=layer3+4',
                    'IPADDR': '10.206.1.50', 'PREFIX': '24', 'MTU': '9000', 'ONBOOT': 'yes'}
    for member in ('h6m0', 'h6m1'):
        assert sourced(scripts / ('ifcfg-' + member), ['DEVICE', 'MASTER', 'SLAVE']) == {
            'DEVICE': member, 'MASTER': 'bond0', 'SLAVE': 'yes'}
    # the members' own files are in the bond's snapshot (they were .orig/.none copies before)
    snap = json.loads((kept(matrix, 'ifcfg') / 'var/lib/perflab/bonding/stock-bond0.json').read_text())
    stock = dict((path.rsplit('/', 1)[-1], entry) for path, entry in snap['files'].items())
    assert base64.b64decode(stock['ifcfg-h6m0']['content']).decode() == IFCFG_ORIGINAL
    assert stock['ifcfg-h6m1'] == {'exists': False}


def test_ifcfg_copies_of_an_earlier_version_still_restore(netns, tmp_path):
    """.orig/.none copies kept by an earlier version are taken into the snapshot and put back."""
    root = tmp_path / 'root'
    scripts = root / 'etc/sysconfig/network-scripts'
    scripts.mkdir(parents=True)
    (scripts / 'ifcfg-h6m0').write_text('DEVICE=h6m0\nMASTER=bond0\nSLAVE=yes\n')
    (scripts / 'ifcfg-h6m1').write_text('DEVICE=h6m1\nMASTER=bond0\nSLAVE=yes\n')
    (scripts / 'ifcfg-bond0').write_text('DEVICE=bond0\n')
    saved = root / 'var/lib/perflab/bonding/ifcfg-bond0'
    saved.mkdir(parents=True)
    (saved / 'ifcfg-h6m0.orig').write_text(IFCFG_ORIGINAL)
    (saved / 'ifcfg-h6m1.none').write_text('')
    case = {'name': 'old', 'vars': dict(BOND, bonding_stack='ifcfg', bonding_state='absent', bonding_apply=False,
                                        bonding_root_dir=str(root))}
    run = run_cases(netns, tmp_path, [case])
    assert run.outcomes == {'old': ''}
    assert files_under(root) == ['etc/sysconfig/network-scripts/ifcfg-h6m0']
    assert (scripts / 'ifcfg-h6m0').read_text() == IFCFG_ORIGINAL
    assert oct((scripts / 'ifcfg-h6m0').stat().st_mode & 0o777) == '0o644'


# ---------------------------------------------------------------- NetworkManager

FAKE_NM = r'''#!%(python)s
"""Stands in for the NetworkManager daemon: profiles are keyfiles in $FAKE_NM_STATE, made by
the real `nmcli --offline connection add` from the exact arguments the caller passed."""
import glob, json, os, subprocess, sys
real, state = os.environ['FAKE_NM_REAL'], os.environ['FAKE_NM_STATE']
args = sys.argv[1:]
with open(os.path.join(state, 'calls.jsonl'), 'a') as log:
    log.write(json.dumps(args) + '\n')

def profiles():
    names = []
    for path in sorted(glob.glob(os.path.join(state, '*.nmconnection'))):
        names.append(os.path.basename(path)[:-len('.nmconnection')])
    return names

if args == ['-t', '-f', 'RUNNING', 'general']:
    print('running')
elif args[-2:] == ['show', '--active']:
    pass
elif args in (['--fields', 'name', '--terse', 'con', 'show'], ['-t', '-f', 'NAME', 'connection', 'show']):
    print('\n'.join(profiles()))
elif args[:2] == ['con', 'add']:
    name = args[args.index('con-name') + 1]
    proc = subprocess.run([real, '--offline', 'connection', 'add'] + args[2:], capture_output=True, text=True, check=False)
    if proc.returncode:
        sys.stderr.write(proc.stderr)
        sys.exit(proc.returncode)
    with open(os.path.join(state, name + '.nmconnection'), 'w') as handle:
        handle.write(proc.stdout)
elif args[:2] == ['-g', '802-3-ethernet.mtu'] and args[2:4] == ['connection', 'show']:
    path = os.path.join(state, args[4] + '.nmconnection')
    if not os.path.exists(path):
        sys.exit(10)
    values = dict(line.split('=', 1) for line in open(path).read().split('[ethernet]')[-1].splitlines() if '=' in line)
    print(values.get('mtu', 'auto') if '[ethernet]' in open(path).read() else 'auto')
elif args[:2] == ['connection', 'modify']:
    path = os.path.join(state, args[2] + '.nmconnection')
    with open(path) as handle:
        proc = subprocess.run([real, '--offline', 'connection', 'modify'] + args[3:], stdin=handle, capture_output=True, text=True, check=False)
    if proc.returncode:
        sys.stderr.write(proc.stderr)
        sys.exit(proc.returncode)
    with open(path, 'w') as handle:
        handle.write(proc.stdout)
elif args[:2] in (['con', 'up'], ['con', 'down']):
    pass  # activation needs the daemon
elif args[:2] == ['con', 'del']:
    os.unlink(os.path.join(state, args[2] + '.nmconnection'))
else:
    sys.stderr.write('fake NetworkManager: call not handled: %%s\n' %% args)
    sys.exit(2)
'''


def _offline_nmcli(argv_env):
    argv, env = argv_env
    probe = subprocess.run(argv + ['--offline', 'connection', 'add', 'type', 'ethernet', 'ifname', 'h6probe'],
                           capture_output=True, text=True, env=env, check=False)
    return probe.returncode == 0 and '[connection]' in probe.stdout


@pytest.fixture(scope='module')
def nmcli():
    """(argv, env) of a real nmcli with --offline: from PATH, else NetworkManager's Debian packages
    unpacked (never installed: the daemon would take over this machine's interfaces) into a cache."""
    env = dict(os.environ)
    if shutil.which('nmcli') and _offline_nmcli(([shutil.which('nmcli')], env)):
        return [shutil.which('nmcli')], env
    binary = NMCLI_CACHE / 'usr/bin/nmcli'
    if not binary.exists() and shutil.which('apt-get') and shutil.which('dpkg-deb') and os.geteuid() == 0:
        scratch = tempfile.mkdtemp(prefix='h6-nmdeb-')
        try:
            got = subprocess.run(['apt-get', 'download', 'network-manager', 'libnm0'], cwd=scratch,
                                 capture_output=True, text=True, check=False)
            if got.returncode == 0:
                NMCLI_CACHE.mkdir(parents=True, exist_ok=True)
                for deb in glob.glob(os.path.join(scratch, '*.deb')):
                    subprocess.run(['dpkg-deb', '-x', deb, str(NMCLI_CACHE)], check=True)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
    if not binary.exists():
        pytest.skip('no nmcli with --offline: install network-manager (1.40+) or let this test unpack it as root')
    env['LD_LIBRARY_PATH'] = str(NMCLI_CACHE / 'usr/lib/x86_64-linux-gnu')
    if not _offline_nmcli(([str(binary)], env)):
        pytest.skip('%s has no --offline mode' % binary)
    return [str(binary)], env


@pytest.fixture
def fake_nm(tmp_path, nmcli):
    bindir, state = tmp_path / 'fakebin', tmp_path / 'nm-state'
    bindir.mkdir()
    state.mkdir()
    real = bindir / 'nmcli-real'
    real.write_text('#!/bin/sh\nexec %s "$@"\n' % nmcli[0][0])
    real.chmod(0o755)
    fake = bindir / 'nmcli'
    fake.write_text(FAKE_NM % {'python': sys.executable})
    fake.chmod(0o755)
    env = {'PATH': '%s:%s:%s' % (bindir, BIN, os.environ.get('PATH', '')), 'FAKE_NM_REAL': str(real),
           'FAKE_NM_STATE': str(state), 'LD_LIBRARY_PATH': nmcli[1].get('LD_LIBRARY_PATH', '')}
    return env, state, nmcli


def nm_roundtrip(nmcli, path):
    """The keyfile as nmcli reads and writes it back (unknown keys and bad values do not survive)."""
    argv, env = nmcli
    name = ini(path)['connection']['id']
    with open(path) as handle:
        proc = subprocess.run(argv + ['--offline', 'connection', 'modify', 'connection.id', name], stdin=handle,
                              capture_output=True, text=True, env=env, check=False)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_networkmanager_profiles_are_made_by_real_nmcli(netns, tmp_path, fake_nm):
    env, state, nmcli = fake_nm
    settings = dict(BOND, bonding_stack='networkmanager', bonding_apply=False)
    run = run_role(netns, tmp_path, settings, extra_env=env)
    assert run.rc == 0, run.stdout[-3000:] + run.stderr[-2000:]
    assert sorted(os.path.basename(p) for p in glob.glob(str(state / '*.nmconnection'))) == [
        'perflab-bond0-h6m0.nmconnection', 'perflab-bond0-h6m1.nmconnection', 'perflab-bond0.nmconnection']
    bond = ini(state / 'perflab-bond0.nmconnection')
    assert bond['connection']['type'] == 'bond' and bond['connection']['interface-name'] == 'bond0'
    assert bond['connection']['autoconnect'] == 'false'  # bonding_apply: false
    assert bond['bond'] == {'miimon': '100', 'mode': '802.3ad', 'xmit_hash_policy': 'layer3+4'}
    assert bond['ethernet']['mtu'] == '9000'
    assert (bond['ipv4']['method'], bond['ipv4']['address1']) == ('manual', '10.206.1.50/24')
    assert bond['ipv6']['method'] == 'disabled'
    for member in ('h6m0', 'h6m1'):
        profile = ini(state / ('perflab-bond0-%s.nmconnection' % member))
        assert profile['connection']['interface-name'] == member
        assert (profile['connection']['master'], profile['connection']['slave-type']) == ('bond0', 'bond')
    # nmcli reads every keyfile back to the same settings
    for path in glob.glob(str(state / '*.nmconnection')):
        assert ini_text(nm_roundtrip(nmcli, path)) == ini(path)
    # nothing was activated
    calls = [json.loads(line) for line in (state / 'calls.jsonl').read_text().splitlines()]
    assert not [c for c in calls if c[:2] == ['con', 'up']]

    gone = run_role(netns, tmp_path, dict(settings, bonding_state='absent'), extra_env=env)
    assert gone.rc == 0 and glob.glob(str(state / '*.nmconnection')) == []


def ini_text(text):
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.optionxform = str
    parser.read_string(text)
    return dict((s, dict(parser[s])) for s in parser.sections())


# ---------------------------------------------------------------- FreeBSD and Windows (static)

RENDER_PLAY = '''
- hosts: localhost
  gather_facts: false
  vars_files:
    - %(role)s/vars/main.yml
  tasks:
    - name: Render
      ansible.builtin.copy:
        content: "{{ lookup('ansible.builtin.template', '%(role)s/templates/freebsd-rc.conf.j2') }}"
        dest: "%(dest)s/{{ item.name }}.conf"
        mode: "0644"
      loop: "{{ variants }}"
      vars:
        bonding_name: lagg0
        bonding_members: [em0, em1]
        bonding_mtu: 9000
        bonding_mode: "{{ item.mode }}"
        bonding_xmit_hash_policy: "{{ item.hash }}"
        bonding_address: "{{ item.address }}"
'''

FREEBSD = {
    'lacp': ('802.3ad', 'layer3+4', '10.206.1.50/24',
             'laggproto lacp laggport em0 laggport em1 lagghash l3,l4 mtu 9000 inet 10.206.1.50/24'),
    'failover': ('active-backup', '', '', 'laggproto failover laggport em0 laggport em1 mtu 9000 up'),
    'roundrobin6': ('balance-rr', '', 'fd00:206::50/64', 'laggproto roundrobin laggport em0 laggport em1 mtu 9000 up'),
}


def test_freebsd_rc_conf_block_sources_to_the_lagg(tmp_path):
    play = tmp_path / 'render.yml'
    play.write_text(RENDER_PLAY % {'role': ROLE, 'dest': tmp_path})
    variants = [{'name': n, 'mode': m, 'hash': h, 'address': a} for n, (m, h, a, _e) in FREEBSD.items()]
    proc = subprocess.run([str(BIN / 'ansible-playbook'), '-i', 'localhost,', '-c', 'local', '-e',
                           json.dumps({'variants': variants, 'ansible_python_interpreter': sys.executable}), str(play)],
                          cwd=ROOT, capture_output=True, text=True, env=dict(os.environ, ANSIBLE_CONFIG=str(ROOT / 'ansible.cfg')), check=False)
    assert proc.returncode == 0, proc.stdout[-2000:]
    for name, (_mode, _hash, address, expected) in FREEBSD.items():
        # rc.conf is sourced by sh: our block appends to a cloned_interfaces set earlier
        full = tmp_path / (name + '.full')
        full.write_text('cloned_interfaces="bridge0"\n' + (tmp_path / (name + '.conf')).read_text())
        assert subprocess.run(['sh', '-n', str(full)], check=False).returncode == 0
        values = sourced(full, ['cloned_interfaces', 'ifconfig_lagg0', 'ifconfig_lagg0_ipv6', 'ifconfig_em0'])
        assert values['cloned_interfaces'] == 'bridge0 lagg0'
        assert values['ifconfig_lagg0'] == expected, name
        assert values['ifconfig_em0'] == 'up mtu 9000'
        assert values['ifconfig_lagg0_ipv6'] == ('inet6 ' + address if ':' in address else '')


def test_windows_mode_tables_fit_the_script():
    tables = yaml.safe_load((ROLE / 'vars/main.yml').read_text())
    script = (ROLE / 'files/windows-team.ps1').read_text()

    def validate_set(param):
        match = re.search(r"\[ValidateSet\(([^)]*)\)\]\[string\]\$%s\b" % param, script)
        return set(re.findall(r"'([^']+)'", match.group(1)))

    modes, algorithms = validate_set('TeamingMode'), validate_set('Algorithm')
    for mode, entry in tables['__bonding_windows_lbfo_modes'].items():
        assert entry['teaming_mode'] in modes and entry['algorithm'] in algorithms, mode
    assert set(tables['__bonding_windows_lbfo_hashes'].values()) <= algorithms
    assert all(e['algorithm'] in algorithms for e in tables['__bonding_windows_set_modes'].values())
    # Windows teams cannot round-robin nor broadcast: the preflight refuses those modes
    assert not {'balance-rr', 'broadcast'} & set(tables['__bonding_windows_lbfo_modes'])
    assert set(tables['__bonding_freebsd_protos']) == {'balance-rr', 'active-backup', 'balance-xor', 'broadcast', '802.3ad'}


# ---------------------------------------------------------------- preflight

REFUSALS = {
    'missing member': ({'bonding_members': ['h6m0', 'h6zz']}, 'no such interface on localhost: h6zz'),
    'hash without hashing': ({'bonding_mode': 'active-backup'}, 'has no effect in mode active-backup'),
    'mtu': ({'bonding_mtu': 67}, 'bonding_mtu must be 68-65535 (got 67)'),
    'miimon': ({'bonding_miimon': 60001}, 'bonding_miimon must be 0-60000 (got 60001)'),
    'name': ({'bonding_name': 'a-name-longer-than-15'}, 'bonding_name must match'),
    'address': ({'bonding_address': '10.206.1.50'}, 'bonding_address must be an address with its prefix length'),
    'mode': ({'bonding_mode': 'round-robin'}, 'bonding_mode must be one of'),
    'management': ({'bonding_members': ['h6mg', 'h6m1'], 'ansible_host': '10.206.1.70'}, 'h6mg carries the management connection'),
    'configured elsewhere': ({'bonding_stack': 'networkd', 'bonding_root_dir': 'CONFLICT'}, '20-h6m1.network'),
}


def test_preflight_refuses_before_anything_is_written(netns, tmp_path):
    root, conflict = tmp_path / 'root', tmp_path / 'conflict'
    root.mkdir()
    (conflict / 'etc/systemd/network').mkdir(parents=True)
    (conflict / 'etc/systemd/network/20-h6m1.network').write_text('[Match]\nName=h6m1\n[Network]\nDHCP=yes\n')
    allowed = tmp_path / 'allowed'
    allowed.mkdir()
    base = dict(BOND, bonding_stack='netplan', bonding_root_dir=str(root))
    cases = []
    for name, (change, _message) in sorted(REFUSALS.items()):
        settings = dict(base, **change)
        if settings['bonding_root_dir'] == 'CONFLICT':
            settings['bonding_root_dir'] = str(conflict)
        cases.append({'name': name, 'vars': settings})
    # the management interface as a member, when asked for (written only: no rollback guard needed)
    cases.append({'name': 'management allowed', 'vars': dict(
        BOND, bonding_stack='networkd', bonding_root_dir=str(allowed), bonding_members=['h6mg', 'h6m1'],
        ansible_host='10.206.1.70', bonding_allow_management_change=True)})
    kernel_has_bonding = subprocess.run(['unshare', '--net', 'ip', 'link', 'add', 'h6probe', 'type', 'bond'],
                                        capture_output=True, check=False).returncode == 0
    if not kernel_has_bonding:
        # applying (root /) on this kernel: refused by the capability check before any change
        cases.append({'name': 'no bonding in the kernel', 'vars': dict(BOND, bonding_stack='networkd')})
    run = run_cases(netns, tmp_path, cases)
    for name, (_change, message) in REFUSALS.items():
        assert message in run.outcomes[name], (name, run.outcomes[name])
    assert 'configured elsewhere' in run.outcomes['configured elsewhere']
    assert run.outcomes['management allowed'] == ''
    assert (allowed / 'etc/systemd/network/10-perflab-bond0-h6mg.network').exists()
    if not kernel_has_bonding:
        assert 'cannot make bonds' in run.outcomes['no bonding in the kernel']
        assert 'Unknown device type' in run.outcomes['no bonding in the kernel']
    assert files_under(root) == []
    assert files_under(conflict) == ['etc/systemd/network/20-h6m1.network']
