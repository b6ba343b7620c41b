# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The host-side rollback of a guarded bond change (bonding_allow_management_change): the stack's
actions rendered from the role's template, armed with perflab.network.host_guard (module_utils, not
started) and run with sh: unconfirmed it puts the files back as they were and re-applies;
confirmed it does nothing. Every command it runs is a logging stand-in first in PATH
(the real netplan/ip must not touch this machine)."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ansible_collections.perflab.network.plugins.module_utils.host import guard as host_guard

ROOT = Path(__file__).resolve().parents[3]
BIN = Path(sys.executable).parent
ROLE = ROOT / 'roles' / 'bonding'
COMMANDS = ('netplan', 'ip', 'networkctl', 'ifdown', 'ifup', 'nmcli', 'service', 'ifconfig', 'sysctl')

RENDER = '''
- hosts: localhost
  gather_facts: false
  vars_files:
    - %(role)s/defaults/main.yml
    - %(role)s/vars/main.yml
  tasks:
    - name: Render the stack's rollback actions
      ansible.builtin.template:
        src: %(role)s/templates/rollback.sh.j2
        dest: "%(dest)s/actions-{{ item }}.sh"
        mode: "0600"
      loop: [netplan, networkmanager, netplan-networkmanager]
      vars:
        __bonding_stack: "{{ item.split('-') | first }}"
        bonding_netplan_renderer: "{{ 'NetworkManager' if item == 'netplan-networkmanager' else '' }}"
        # the members' run-time state as the role notes it (tasks/member-addresses.yml), with NetworkManager
        __bonding_member_cidrs: "{{ nm_member_cidrs if item != 'netplan' else {} }}"
'''


@pytest.fixture(scope='module')
def scripts(tmp_path_factory):
    base = tmp_path_factory.mktemp('rollback')
    (base / 'render.yml').write_text(RENDER % {'role': ROLE, 'dest': base})
    variables = {
        'ansible_python_interpreter': sys.executable, 'bonding_name': 'bond0', 'bonding_members': ['eth1', 'eth2'],
        'bonding_rollback_timeout': 0, '__bonding_state_dir': str(base / 'state'),
        '__bonding_file_prefix': 'perflab-bond0', '__bonding_nm_previous': ['Wired connection 1'],
        # eth1: an address NetworkManager only found there (connected externally); eth2: its own profile
        'nm_member_cidrs': {'eth1': {'addresses': ['10.0.9.11/24'], 'up': True, 'nm_external': True, 'addr_gen_mode': 'eui64'},
                            'eth2': {'addresses': [], 'up': True, 'addr_gen_mode': 'none'}},
    }
    proc = subprocess.run([str(BIN / 'ansible-playbook'), '-i', 'localhost,', '-c', 'local', '-e', json.dumps(variables),
                           str(base / 'render.yml')], cwd=ROOT, capture_output=True, text=True,
                          env=dict(os.environ, ANSIBLE_CONFIG=str(ROOT / 'ansible.cfg')), check=False)
    assert proc.returncode == 0, proc.stdout[-2000:]
    return base


def prepare(base, stack='netplan'):
    """Armed (not started) before the guarded run; then a file of ours changed by it, and one it created."""
    state, etc = base / 'state', base / 'etc'
    (etc / 'netplan').mkdir(parents=True, exist_ok=True)
    config = etc / 'netplan/60-perflab-bond0.yaml'
    config.write_text('old\n')
    if (etc / 'new-file').exists():
        (etc / 'new-file').unlink()
    host_guard.arm(str(state), 'bond0', 0, [str(config), str(etc / 'new-file')],
                   shell=(base / ('actions-%s.sh' % stack)).read_text(), start=False)
    config.write_text('new\n')
    (etc / 'new-file').write_text('made by the change\n')
    stubs = base / 'stubs'
    stubs.mkdir(exist_ok=True)
    for command in COMMANDS:
        stub = stubs / command
        # (nmcli answers every question as a member found configured again would; with nmcli-activating
        # there, as one NetworkManager has taken over with its own profile, until it is disconnected)
        answer = ('if [ -e "%s" ] && ! grep -q "nmcli device disconnect" "%s"; then'
                  ' echo "70 (connecting (getting IP configuration))"; else echo "100 (connected (externally))"; fi\n'
                  % (base / 'nmcli-activating', base / 'calls.log')) if command == 'nmcli' else ''
        stub.write_text('#!/bin/sh\necho "%s $*" >> "%s"\n%s' % (command, base / 'calls.log', answer))
        stub.chmod(0o755)
    for leftover in ('calls.log', 'nmcli-activating'):
        if (base / leftover).exists():
            (base / leftover).unlink()
    return config


def run(base, script='rollback-bond0.sh'):
    env = dict(os.environ, PATH='%s:%s' % (base / 'stubs', os.environ['PATH']))
    return subprocess.run(['sh', str(base / 'state' / script)], env=env, capture_output=True, text=True, timeout=60, check=False)


def calls(base):
    path = base / 'calls.log'
    return path.read_text().splitlines() if path.exists() else []


def test_unconfirmed_change_is_rolled_back(scripts):
    config = prepare(scripts)
    assert run(scripts).returncode == 0
    assert config.read_text() == 'old\n'
    assert not (scripts / 'etc/new-file').exists()
    assert calls(scripts) == ['netplan apply', 'ip link delete bond0']
    assert (scripts / 'state/rolled-back-bond0').exists()


def test_confirmed_change_is_kept(scripts):
    config = prepare(scripts)
    assert host_guard.confirm(str(scripts / 'state'), 'bond0') == (True, None)
    assert (scripts / 'state/confirmed-bond0').exists()
    assert run(scripts).returncode == 0
    assert config.read_text() == 'new\n' and (scripts / 'etc/new-file').exists()
    assert calls(scripts) == [] and not (scripts / 'state/rolled-back-bond0').exists()


def test_networkmanager_rollback_deletes_our_profiles_and_brings_the_old_one_up(scripts):
    """A member NetworkManager had only found configured is kept off its autoconnect (which would take
    it over with a DHCP profile and drop the address) until its address is back."""
    prepare(scripts, 'networkmanager')
    assert run(scripts).returncode == 0
    assert calls(scripts) == ['nmcli device set eth1 autoconnect no',
                              'nmcli connection delete perflab-bond0', 'nmcli connection delete perflab-bond0-eth1',
                              'nmcli connection delete perflab-bond0-eth2', 'nmcli connection up Wired connection 1',
                              'ip link set dev eth1 up', 'ip addr replace 10.0.9.11/24 dev eth1',
                              'nmcli -g GENERAL.STATE device show eth1',
                              'nmcli device set eth1 autoconnect yes',
                              'sysctl -q -w net/ipv6/conf/eth1/addr_gen_mode=0',
                              'ip link set dev eth2 up', 'sysctl -q -w net/ipv6/conf/eth2/addr_gen_mode=1']


def test_netplan_networkmanager_rollback_keeps_networkmanager_off_a_member_it_had_found_configured(scripts):
    """netplan apply restarts NetworkManager, which forgets the run-time autoconnect setting and may start
    its own DHCP profile on the freed member: the script sets autoconnect off again, ends that activation,
    puts the address back, and lets it autoconnect once NetworkManager shows it connected externally."""
    prepare(scripts, 'netplan-networkmanager')
    (scripts / 'nmcli-activating').write_text('')
    assert run(scripts).returncode == 0
    assert calls(scripts) == ['netplan apply', 'ip link delete bond0',
                              'nmcli device set eth1 autoconnect no',
                              'nmcli -g GENERAL.STATE device show eth1', 'nmcli device disconnect eth1',
                              'ip link set dev eth1 up', 'ip addr replace 10.0.9.11/24 dev eth1',
                              'nmcli -g GENERAL.STATE device show eth1',
                              'nmcli device set eth1 autoconnect yes',
                              'sysctl -q -w net/ipv6/conf/eth1/addr_gen_mode=0',
                              'ip link set dev eth2 up', 'sysctl -q -w net/ipv6/conf/eth2/addr_gen_mode=1']
