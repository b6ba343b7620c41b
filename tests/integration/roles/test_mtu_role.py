# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The mtu role, run for real with ansible-playbook between two network namespaces
made for the test (a veth pair); /etc/network is bind-mounted from tmp_path in the
private mount namespace of ``ip netns exec``. The host's interfaces are never touched.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[3]
BIN = Path(sys.executable).parent
NEEDS_NETNS = pytest.mark.skipif(os.geteuid() != 0 or not shutil.which('ip') or not shutil.which('ping'),
                                 reason='needs root, iproute2 and ping to make network namespaces')
ROLE = 'perflab.network.mtu'


def run_role(tmp_path, extra_vars, netns=None, binds=(), check=False):
    play = tmp_path / 'play.yml'
    play.write_text('- hosts: localhost\n  connection: local\n  gather_facts: false\n'
                    '  vars:\n    ansible_python_interpreter: %s\n  roles:\n    - role: %s\n' % (sys.executable, ROLE))
    argv = [str(BIN / 'ansible-playbook'), '-i', 'localhost,', str(play), '-e', json.dumps(extra_vars)]
    if check:
        argv.append('--check')
    if netns:
        mounts = ' && '.join('mount --bind %s %s' % (src, dst) for src, dst in binds) or 'true'
        argv = ['ip', 'netns', 'exec', netns, 'sh', '-c', mounts + ' && exec "$@"', 'sh'] + argv
    env = dict(os.environ, ANSIBLE_CONFIG=str(ROOT / 'ansible.cfg'), ANSIBLE_STDOUT_CALLBACK='ansible.posix.json',
               ANSIBLE_LOCALHOST_WARNING='false', ANSIBLE_INVENTORY_UNPARSED_WARNING='false', ANSIBLE_FORCE_COLOR='0',
               PATH='%s:%s' % (BIN, os.environ.get('PATH', '')))
    proc = subprocess.run(argv, cwd=str(ROOT), env=env, capture_output=True, text=True, timeout=600, check=False)
    start = proc.stdout.find('{')
    doc = json.JSONDecoder().raw_decode(proc.stdout[start:])[0] if start >= 0 else {}
    failures = [res.get('msg', '') for play in doc.get('plays', []) for task in play['tasks']
                for res in task['hosts'].values() if res.get('failed')]
    changed = doc.get('stats', {}).get('localhost', {}).get('changed')
    return proc.returncode, changed, (failures[-1] if failures else proc.stderr + proc.stdout[-2000:])


@pytest.fixture
def pair():
    """Namespaces h5mtA / h5mtB joined by a veth pair: h5a0 10.205.1.201 <-> h5b0 10.205.1.202."""
    a, b = 'h5mtA%d' % os.getpid(), 'h5mtB%d' % os.getpid()
    for ns in (a, b):
        subprocess.run(['ip', 'netns', 'add', ns], check=True)
    try:
        subprocess.run(['ip', '-n', a, 'link', 'add', 'h5a0', 'type', 'veth', 'peer', 'name', 'h5b0', 'netns', b], check=True)
        for ns, dev, addr in ((a, 'h5a0', '10.205.1.201/24'), (b, 'h5b0', '10.205.1.202/24')):
            subprocess.run(['ip', '-n', ns, 'link', 'set', 'lo', 'up'], check=True)
            subprocess.run(['ip', '-n', ns, 'addr', 'add', addr, 'dev', dev], check=True)
            subprocess.run(['ip', '-n', ns, 'link', 'set', dev, 'up'], check=True)
        # the far end already carries jumbo frames
        subprocess.run(['ip', '-n', b, 'link', 'set', 'h5b0', 'mtu', '9000'], check=True)
        yield a
    finally:
        for ns in (a, b):
            subprocess.run(['ip', 'netns', 'del', ns], check=False)


def mtu_of(ns, dev):
    out = subprocess.run(['ip', '-n', ns, '-j', 'link', 'show', 'dev', dev], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)[0]['mtu']


@pytest.fixture
def etc_network(tmp_path):
    etc = tmp_path / 'etc-network'
    (etc / 'interfaces.d').mkdir(parents=True)
    (etc / 'interfaces').write_text('source /etc/network/interfaces.d/*\n\nauto lo\niface lo inet loopback\n')
    return etc


def test_argument_spec_needs_an_mtu(tmp_path):
    rc, changed, msg = run_role(tmp_path, {'mtu_interfaces': [{'name': 'data0'}]})
    assert rc != 0 and 'missing required arguments: mtu found in mtu_interfaces' in msg


@NEEDS_NETNS
def test_preflight(tmp_path, pair):
    snap = tmp_path / 's' / 'stock.json'
    rc, changed, msg = run_role(tmp_path, {'mtu_snapshot_path': str(snap), 'mtu_interfaces': [{'name': 'h5a0', 'mtu': 9300}]},
                                netns=pair)
    assert rc != 0 and 'out of range: h5a0' in msg
    assert 'mtu_verify_count' not in msg and 'mtu_rollback_delay' not in msg  # only what is wrong
    rc, changed, msg = run_role(tmp_path, {'mtu_snapshot_path': str(snap), 'mtu_interfaces': [{'name': 'lo', 'mtu': 67}],
                                           'mtu_min': 60}, netns=pair)
    assert rc != 0 and '68 <= mtu_min' in msg
    rc, changed, msg = run_role(tmp_path, {'mtu_snapshot_path': str(snap), 'mtu_interfaces': [{'name': 'nosuch0', 'mtu': 9000}]},
                                netns=pair)
    assert rc != 0 and msg.startswith('mtu: mtu_interfaces names nosuch0, which localhost does not have (it has: ')
    assert 'lo' in msg.split('(it has: ', 1)[1]
    rc, changed, msg = run_role(tmp_path, {'mtu_snapshot_path': str(snap), 'mtu_interfaces': [{'name': 'h5a0', 'mtu': 9000}],
                                           'mtu_network_stack': 'networkd'}, netns=pair)
    assert rc != 0 and msg.startswith('mtu: cannot persist with networkd on localhost')
    # connection local: the host is "reached" at ansible_host, which h5a0 holds
    rc, changed, msg = run_role(tmp_path, {'mtu_snapshot_path': str(snap), 'ansible_host': '10.205.1.201',
                                           'mtu_interfaces': [{'name': 'h5a0', 'mtu': 9000}]}, netns=pair)
    assert rc != 0 and msg.startswith('mtu: refusing to change the MTU of h5a0 on localhost: it holds 10.205.1.201')
    assert not snap.exists() and mtu_of(pair, 'h5a0') == 1500


@NEEDS_NETNS
def test_configure_verify_persist_and_restore(tmp_path, pair, etc_network):
    snap = tmp_path / 'state' / 'mtu' / 'stock.json'
    binds = [(etc_network, '/etc/network')]
    ev = {'mtu_snapshot_path': str(snap), 'mtu_network_stack': 'ifupdown', 'mtu_verify_peer': '10.205.1.202',
          'mtu_interfaces': [{'name': 'h5a0', 'mtu': 9000}]}
    dropin = etc_network / 'interfaces.d' / '90-perflab-mtu'

    rc, changed, msg = run_role(tmp_path, ev, netns=pair, binds=binds, check=True)
    assert rc == 0, msg
    assert mtu_of(pair, 'h5a0') == 1500 and not dropin.exists() and not snap.exists()

    rc, changed, msg = run_role(tmp_path, ev, netns=pair, binds=binds)
    assert rc == 0, msg
    assert mtu_of(pair, 'h5a0') == 9000
    assert [line for line in dropin.read_text().splitlines() if line and not line.startswith('#')] == [
        'iface h5a0 inet manual', '    mtu 9000']
    stock = json.loads(snap.read_text())
    assert stock['values'] == {'mtu:h5a0': 1500, 'stack': 'ifupdown'}
    assert stock['files'] == {'/etc/network/interfaces.d/90-perflab-mtu': {'exists': False}}

    rc, changed, msg = run_role(tmp_path, ev, netns=pair, binds=binds)
    assert rc == 0 and changed == 0

    rc, changed, msg = run_role(tmp_path, dict(ev, mtu_state='stock'), netns=pair, binds=binds)
    assert rc == 0, msg
    assert mtu_of(pair, 'h5a0') == 1500 and not dropin.exists() and not (tmp_path / 'state').exists()
    rc, changed, msg = run_role(tmp_path, dict(ev, mtu_state='stock'), netns=pair, binds=binds)
    assert rc == 0 and changed == 0


@NEEDS_NETNS
def test_failed_path_check_rolls_back(tmp_path, pair, etc_network):
    snap = tmp_path / 'state' / 'stock.json'
    ev = {'mtu_snapshot_path': str(snap), 'mtu_network_stack': 'ifupdown', 'mtu_verify_count': 1,
          # nobody answers at .203: the path is not proven
          'mtu_interfaces': [{'name': 'h5a0', 'mtu': 9000, 'verify_peer': '10.205.1.203'}]}
    rc, changed, msg = run_role(tmp_path, ev, netns=pair, binds=[(etc_network, '/etc/network')])
    assert rc != 0
    assert 'h5a0 (MTU 9000)' in msg and '100% packet loss' in msg
    assert 'Rolled back to the stock MTU (runtime and files).' in msg
    assert mtu_of(pair, 'h5a0') == 1500
    assert list((etc_network / 'interfaces.d').iterdir()) == [] and not snap.exists()


@NEEDS_NETNS
def test_path_that_cannot_carry_the_mtu_is_caught(tmp_path, pair):
    # The far end stays at 1500: a 9000-byte frame cannot cross, small pings still do.
    subprocess.run(['ip', 'netns', 'exec', pair.replace('h5mtA', 'h5mtB'), 'ip', 'link', 'set', 'h5b0', 'mtu', '1500'],
                   check=True)
    ev = {'mtu_snapshot_path': str(tmp_path / 's.json'), 'mtu_network_stack': 'none', 'mtu_verify_count': 1,
          'mtu_verify_peer': '10.205.1.202', 'mtu_interfaces': [{'name': 'h5a0', 'mtu': 9000}]}
    rc, changed, msg = run_role(tmp_path, ev, netns=pair)
    assert rc != 0 and 'Rolled back' in msg and mtu_of(pair, 'h5a0') == 1500


def render(tmp_path, template, extra):
    play = tmp_path / 'render.yml'
    out = tmp_path / 'rendered'
    play.write_text(yaml.safe_dump([{
        'hosts': 'localhost', 'connection': 'local', 'gather_facts': False,
        'vars': dict(extra, ansible_python_interpreter=sys.executable),
        'tasks': [{'ansible.builtin.template': {'src': str(ROOT / 'roles/mtu/templates' / template),
                                                'dest': str(out), 'mode': '0600'}}]}]))
    env = dict(os.environ, ANSIBLE_CONFIG=str(ROOT / 'ansible.cfg'), ANSIBLE_LOCALHOST_WARNING='false',
               ANSIBLE_INVENTORY_UNPARSED_WARNING='false')
    proc = subprocess.run([str(BIN / 'ansible-playbook'), '-i', 'localhost,', str(play)], cwd=str(ROOT), env=env,
                          capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stdout[-2000:]
    return out.read_text()


def test_netplan_template(tmp_path):
    text = render(tmp_path, 'netplan-mtu.yaml.j2', {'mtu_interfaces': [
        {'name': 'eth1', 'mtu': 9000}, {'name': 'ens5', 'mtu': 9001, 'netplan_id': 'data'}]})
    assert yaml.safe_load(text) == {'network': {'version': 2, 'ethernets': {'eth1': {'mtu': 9000}, 'data': {'mtu': 9001}}}}


def test_netplan_template_puts_a_bond_among_the_bonds(tmp_path):
    """The jumbo-bond study's tuned step (the mtu role on the bond netplan built): once written as
    ``ethernets: bond0``, which netplan refuses beside the bond's own definition ("changes device type")."""
    text = render(tmp_path, 'netplan-mtu.yaml.j2', {
        'mtu_interfaces': [{'name': 'bond0', 'mtu': 9000}, {'name': 'eth3', 'mtu': 9000}],
        '__mtu_link': {'bond0': {'ifname': 'bond0', 'linkinfo': {'info_kind': 'bond'}}, 'eth3': {'ifname': 'eth3'}}})
    assert yaml.safe_load(text) == {'network': {'version': 2, 'ethernets': {'eth3': {'mtu': 9000}},
                                                'bonds': {'bond0': {'mtu': 9000}}}}
    if shutil.which('netplan'):
        # the real netplan reads it beside the bond's own file (as the bonding role writes it)
        conf = tmp_path / 'root' / 'etc' / 'netplan'
        conf.mkdir(parents=True)
        (conf / '60-perflab-bond0.yaml').write_text(yaml.safe_dump({'network': {'version': 2, 'ethernets': {
            'eth1': {'dhcp4': False}, 'eth2': {'dhcp4': False}}, 'bonds': {'bond0': {
                'interfaces': ['eth1', 'eth2'], 'parameters': {'mode': 'balance-alb'}}}}}))
        (conf / '90-perflab-mtu.yaml').write_text(text.replace('eth3', 'eth1'))
        for f in conf.iterdir():
            f.chmod(0o600)
        gen = subprocess.run(['netplan', 'generate', '--root-dir', str(tmp_path / 'root')], capture_output=True,
                             text=True, check=False)
        assert gen.returncode == 0, gen.stderr
        netdev = (tmp_path / 'root' / 'run' / 'systemd' / 'network' / '10-netplan-bond0.netdev').read_text()
        assert 'MTUBytes=9000' in netdev, netdev


def test_networkd_template(tmp_path):
    text = render(tmp_path, 'networkd-mtu.conf.j2', {
        'item': {'name': 'eth1', 'mtu': 9000}, '__mtu_networkd_files': {'eth1': '/etc/systemd/network/10-eth1.network'}})
    assert [line for line in text.splitlines() if line and not line.startswith('#')] == ['[Link]', 'MTUBytes=9000']


@NEEDS_NETNS
def test_rollback_timer_acts_unless_disarmed(tmp_path, pair):
    """The timer armed before a management change: left armed, it puts the old MTU back by itself."""
    import time
    marker = tmp_path / 'armed-mtu'  # the shared guard (perflab.network.host_guard) acts while it exists
    play = tmp_path / 'arm.yml'
    play.write_text(yaml.safe_dump([{
        'hosts': 'localhost', 'connection': 'local', 'gather_facts': False,
        'vars': {'ansible_python_interpreter': sys.executable},
        'tasks': [{'ansible.builtin.include_role': {'name': ROLE, 'tasks_from': 'arm-rollback.yml'}}]}]))
    # role vars (vars/main.yml) outrank play vars: the test's values come as extra vars
    ev = {'mtu_snapshot_path': str(tmp_path / 'stock.json'), '__mtu_platform': 'linux', 'mtu_rollback_delay': 3,
          '__mtu_set_command': ['ip', 'link', 'set', 'dev', '@name', 'mtu', '@mtu'],
          '__mtu_changes': [{'name': 'h5a0', 'mtu': 9000}], '__mtu_old': {'h5a0': 1500}}
    subprocess.run(['ip', '-n', pair, 'link', 'set', 'h5a0', 'mtu', '9000'], check=True)
    env = dict(os.environ, ANSIBLE_CONFIG=str(ROOT / 'ansible.cfg'), ANSIBLE_LOCALHOST_WARNING='false',
               ANSIBLE_INVENTORY_UNPARSED_WARNING='false')
    proc = subprocess.run(['ip', 'netns', 'exec', pair, str(BIN / 'ansible-playbook'), '-i', 'localhost,', str(play),
                           '-e', json.dumps(ev)], cwd=str(ROOT), env=env, capture_output=True, text=True, timeout=300,
                          check=False)
    assert proc.returncode == 0, proc.stdout[-2000:]
    assert marker.exists() and mtu_of(pair, 'h5a0') == 9000
    deadline = time.time() + 60
    while mtu_of(pair, 'h5a0') != 1500 and time.time() < deadline:
        time.sleep(1)
    assert mtu_of(pair, 'h5a0') == 1500 and not marker.exists()
    assert (tmp_path / 'rolled-back-mtu').exists()


@NEEDS_NETNS
@pytest.mark.parametrize('apply, undo', [('present', 'absent'), ('configured', 'stock')])
def test_present_and_absent_and_their_old_aliases(tmp_path, pair, apply, undo):
    """The collection's state vocabulary: present / absent; configured / stock still work as aliases."""
    ev = {'mtu_snapshot_path': str(tmp_path / 'state' / 'stock.json'), 'mtu_network_stack': 'none',
          'mtu_interfaces': [{'name': 'h5a0', 'mtu': 9000}], 'mtu_state': apply}
    rc, changed, msg = run_role(tmp_path, ev, netns=pair)
    assert rc == 0, msg
    assert mtu_of(pair, 'h5a0') == 9000
    rc, changed, msg = run_role(tmp_path, dict(ev, mtu_state=undo), netns=pair)
    assert rc == 0, msg
    assert mtu_of(pair, 'h5a0') == 1500 and not (tmp_path / 'state').exists()
