# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The local lab, for real: namespaces, overlay roots, sshd, data links."""
from __future__ import annotations

import ipaddress
import json
import os
import subprocess

import pytest

from conftest import Lab, run_playbook

pytestmark = pytest.mark.lab
NAME, MGMT, DATA = 'itlab', '10.231.0.0/24', '10.231.1.0/24'


def netns_names():
    out = subprocess.run(['ip', '-j', 'netns', 'list'], capture_output=True, text=True, check=False).stdout.strip()
    return {n['name'] for n in json.loads(out or '[]')}


def links():
    out = subprocess.run(['ip', '-j', 'link', 'show'], capture_output=True, text=True, check=False).stdout
    return {link['ifname'] for link in json.loads(out)}


def lab_objects(name):
    """The namespaces and links a lab called `name` would own (other workers' labs come and go meanwhile)."""
    mine = (name[:6], 'itbad')
    return ({n for n in netns_names() if n.startswith(mine)}, {n for n in links() if n.startswith(mine)})


@pytest.fixture(scope='module')
def lab(lab_factory):
    return lab_factory(NAME, hosts=2, mgmt=MGMT, data=DATA)


def test_hosts_answer_over_ssh_with_facts(lab):
    res = run_playbook('playbooks/lab_smoke.yml', lab.inventory)
    assert res.rc == 0, res.stdout[-3000:]
    assert set(res.stats) == {'lab1', 'lab2'}
    assert all(s['unreachable'] == 0 and s['failures'] == 0 for s in res.stats.values())
    facts = res.task_results('Gather facts')
    assert facts['lab1']['ansible_facts']['ansible_hostname'] == 'lab1'
    assert facts['lab2']['ansible_facts']['ansible_hostname'] == 'lab2'


def test_each_host_sees_only_its_own_interfaces(lab):
    hv = lab.hostvars()
    for host in ('lab1', 'lab2'):
        out = json.loads(lab.ssh(host, ['ip', '-j', 'addr', 'show'], check=True).stdout)
        names = sorted(i['ifname'] for i in out)
        assert names == ['data0', 'lo', 'mgmt0']
        addrs = {a['local'] for i in out for a in i.get('addr_info', []) if a['family'] == 'inet'}
        assert hv[host]['perflab_data_address'] in addrs
        others = {hv[o]['perflab_data_address'] for o in hv if o != host}
        assert not addrs & others
    # the data link carries traffic between the hosts
    ping = lab.ssh('lab1', ['ping', '-c', '2', '-W', '2', hv['lab2']['perflab_data_address']])
    assert ping.returncode == 0, ping.stdout + ping.stderr


def test_sysctl_is_private_to_a_host(lab):
    key = 'net.ipv4.tcp_rmem'
    before = lab.ssh('lab2', ['sysctl', '-n', key], check=True).stdout.split()
    lab.ssh('lab1', ['sysctl', '-w', '%s=4096 87380 7777777' % key], check=True)
    assert lab.ssh('lab1', ['sysctl', '-n', key], check=True).stdout.split() == ['4096', '87380', '7777777']
    assert lab.ssh('lab2', ['sysctl', '-n', key], check=True).stdout.split() == before


def test_files_under_etc_are_private_to_a_host(lab):
    lab.ssh('lab1', ['sh', '-c', 'echo only-lab1 > /etc/perflab-private'], check=True)
    assert lab.ssh('lab1', ['cat', '/etc/perflab-private'], check=True).stdout.strip() == 'only-lab1'
    assert lab.ssh('lab2', ['test', '-e', '/etc/perflab-private']).returncode == 1
    assert not os.path.exists('/etc/perflab-private')


def test_processes_are_private_to_a_host(lab):
    out = lab.ssh('lab1', ['ps', '-eo', 'pid=,comm='], check=True).stdout.split('\n')
    pids = {line.split()[0] for line in out if line.strip()}
    assert '1' in pids and len(pids) < 20  # its own pid namespace: sshd is pid 1


def test_second_up_changes_nothing(lab):
    res = run_playbook('playbooks/lab_up.yml', extra_vars=lab.extra_vars)
    assert res.rc == 0
    assert res.stats['localhost']['changed'] == 0, res.stdout[-2000:]


def test_up_reports_change_in_check_mode_only_when_needed(lab):
    res = run_playbook('playbooks/lab_up.yml', extra_vars=lab.extra_vars, check=True)
    assert res.rc == 0 and res.stats['localhost']['changed'] == 0


@pytest.mark.long
def test_lab_of_sixteen_hosts_comes_up_and_down():
    lab = Lab('itbig', 16, '10.232.0.0/24', '10.232.1.0/24', {})
    lab.down()
    try:
        lab.up()
        assert len(lab.hostvars()) == 16
        res = run_playbook('playbooks/lab_smoke.yml', lab.inventory)
        assert res.rc == 0, res.stdout[-3000:]
        assert len(res.stats) == 16 and all(s['failures'] == 0 and s['unreachable'] == 0 for s in res.stats.values())
    finally:
        res = lab.down()
    assert res.rc == 0
    assert not {n for n in netns_names() if n.startswith('itbig-')}
    assert not {name for name in links() if name.startswith('itbig-')}
    assert not os.path.exists('/var/lib/perflab/itbig')


def test_down_leaves_nothing_behind():
    lab = Lab('itdown', 2, '10.233.0.0/24', '10.233.1.0/24', {})
    lab.down()
    lab.up()
    res = lab.down()
    assert res.rc == 0 and res.stats['localhost']['changed'] > 0
    assert not {n for n in netns_names() if n.startswith('itdown-')}
    assert not {name for name in links() if name.startswith('itdown-')}
    assert not os.path.exists('/var/lib/perflab/itdown')
    assert not os.path.exists(lab.inventory)
    nft = subprocess.run(['nft', 'list', 'tables'], capture_output=True, text=True, check=False).stdout
    assert 'perflab_itdown' not in nft
    assert 'itdown-' not in open('/proc/mounts').read()
    ps = subprocess.run(['ps', '-eo', 'args='], capture_output=True, text=True, check=False).stdout
    assert '/var/lib/perflab/itdown/' not in ps
    again = lab.down()
    assert again.rc == 0 and again.stats['localhost']['changed'] == 0


def _machine_route():
    out = subprocess.run(['ip', '-j', 'route'], capture_output=True, text=True, check=False).stdout
    for r in json.loads(out):
        if r.get('dst') not in (None, 'default') and '/' in r['dst']:
            return ipaddress.ip_network(r['dst'], strict=False)
    pytest.skip('this machine has no route to overlap with')


@pytest.mark.parametrize('extra, message', [
    ({'lab_hosts': 0}, 'lab_hosts'),
    ({'lab_hosts': 300}, 'lab_hosts'),
    ({'lab_mtu': 20000}, 'lab_mtu'),
    ({'lab_name': 'bad;name'}, 'lab_name'),
    ({'lab_data_subnet': '10.234.0.0/24'}, 'overlap'),
    ({'lab_data_subnet': 'not-a-subnet'}, 'data_subnet'),
    ({'lab_hosts': 'two'}, 'lab_hosts'),
    ({'lab_shaper': 'netem'}, 'lab_shaper'),
])
def test_bad_input_is_refused_before_anything_is_created(extra, message):
    ev = {'lab_name': 'itbad', 'lab_mgmt_subnet': '10.234.0.0/24', 'lab_data_subnet': '10.234.1.0/24'}
    ev.update(extra)
    before = lab_objects(ev['lab_name'])
    res = run_playbook('playbooks/lab_up.yml', extra_vars=ev)
    assert res.rc != 0
    assert message in res.stdout
    assert lab_objects(ev['lab_name']) == before
    assert not os.path.exists('/var/lib/perflab/itbad')


def test_subnet_overlapping_a_machine_route_is_refused():
    route = _machine_route()
    ev = {'lab_name': 'itbad', 'lab_mgmt_subnet': str(route), 'lab_data_subnet': '10.234.1.0/24'}
    before = lab_objects(ev['lab_name'])
    res = run_playbook('playbooks/lab_up.yml', extra_vars=ev)
    assert res.rc != 0 and "overlaps this machine's route" in res.stdout
    assert lab_objects(ev['lab_name']) == before
