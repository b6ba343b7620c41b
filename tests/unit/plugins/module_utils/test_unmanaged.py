# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""Servers we do not manage (a netserver or iperf3 server already listening, no SSH): the plan, the label, the
system profile and the Systems sheet."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os
import subprocess
import sys

import pytest
import yaml

from ansible_collections.perflab.network.plugins.module_utils.plan import study
from ansible_collections.perflab.network.plugins.module_utils.host import sysprofile
from ansible_collections.perflab.network.plugins.module_utils.plan import suite as s
from ansible_collections.perflab.network.plugins.module_utils.report import store, tables

SUITES = os.path.join(os.path.dirname(__file__), '..', '..', '..', '..', 'roles', 'benchmark', 'files', 'suites')
HOSTS = {'linux': {'data_address': '10.0.1.11'}, 'osv': {'data_address': '10.0.1.12'}}


def _items(suite_name, reverse=False, processes=None):
    with open(s.find_suite(suite_name, [SUITES])) as handle:
        suite = yaml.safe_load(handle)
    if processes:
        # iperf3 runs one server per process (netperf's one netserver serves them all)
        suite['tests'] = [dict(test, processes=processes, parallel=1) for test in suite['tests'] if test['tool'] == 'iperf3']
    pairs = s.make_pairs(HOSTS, servers=['osv'], clients=['linux'], reverse=reverse)
    return s.build_plan(s.expand_suite(suite), pairs, {})[0], pairs


def _plan(suite_name, processes=None):
    items, pairs = _items(suite_name, processes=processes)
    return s.servers_needed(items, pairs)


def test_declared_servers_are_marked_and_get_no_firewall_opening():
    servers = _plan('osv-netperf')
    s.unmanaged_servers(servers, {'osv': {'servers': {'netperf': 12865, 'iperf3': {'port': 5201, 'count': 1}}}})
    assert sorted((x['tool'], x['port'], x.get('unmanaged')) for x in servers) == [
        ('iperf3', 5201, True), ('netperf', 12865, True)]
    assert s.firewall_openings(servers) == {}
    # the client still checks that each one listens
    assert {'address': '10.0.1.12', 'port': 12865, 'server': 'osv'} in s.connect_checks(servers)['linux']


@pytest.mark.parametrize('declared, processes, message', [
    ({'netperf': 12865}, None,
     'the iperf3 tests of pair linux->osv need a iperf3 server on osv (10.0.1.12, not managed), and the inventory does '
     'not say one listens there: start it by hand and declare it (perflab_unmanaged_servers: {iperf3: 5201})'),
    ({'netperf': 12999, 'iperf3': 5201}, None,
     'pair linux->osv plans its netperf server on port 12865 of osv (10.0.1.12, not managed), but the one declared '
     'listens on 12999'),
    ({'iperf3': 5201}, 4, 'the iperf3 tests of pair linux->osv run 4 processes, one server each (ports 5201-5204) '
     'on osv (10.0.1.12, not managed), and 1 is declared: start them by hand and declare {port: 5201, count: 4}'),
])
def test_what_an_unmanaged_server_cannot_give_is_refused(declared, processes, message):
    servers = _plan('osv-netperf', processes=processes)
    with pytest.raises(s.PlanError) as caught:
        s.unmanaged_servers(servers, {'osv': {'servers': declared}})
    assert message in str(caught.value)


def test_a_test_whose_client_would_run_on_the_appliance_is_skipped_with_the_reason():
    """The OSv study's second part (UDP_STREAM sent from the system under test: the pairs reversed) needs netperf's
    client on the appliance: each of its tests gets the reason it is skipped; the tests of the first part run."""
    unmanaged = {'osv': {'servers': {'netperf': 12865, 'iperf3': 5201}}}
    reversed_items, dummy = _items('osv-netperf-udp', reverse=True)
    assert reversed_items and all(item['client'] == 'osv' for item in reversed_items)
    for item in reversed_items:
        assert s.unmanaged_client(item, unmanaged) == (
            'not run: its netperf client would run on osv (pair osv->linux), which we do not manage (perflab_unmanaged): '
            'there is no SSH to it, so nothing can be started there; the tests whose client runs on a managed host '
            'measure it')
    forward, dummy = _items('osv-netperf')
    assert forward and [s.unmanaged_client(item, unmanaged) for item in forward] == [None] * len(forward)
    # a managed host in the client's place runs as before
    assert [s.unmanaged_client(item, {}) for item in reversed_items] == [None] * len(reversed_items)


def test_unmanaged_label_and_profile():
    assert study.unmanaged_label('osv', vcpus=1) == 'osv 1 vCPU unmanaged'
    assert study.unmanaged_label('osv', config_label='OSv 0.57') == 'OSv 0.57'
    profile = sysprofile.unmanaged_profile('10.0.1.12')
    assert set(profile['table'].values()) == {'unknown: unmanaged server'}
    assert set(profile['table']) == set(sysprofile.TABLE_FIELDS)


def test_the_systems_sheet_shows_the_unmanaged_system_under_test():
    system = {'schema': 'perflab.system/1', 'run_id': 'R', 'config': 'OSv', 'host': 'osv', 'profile': 'stock',
              'unmanaged': True}
    system.update(sysprofile.unmanaged_profile('10.0.1.12'))
    result = {'schema': 'perflab.result/2', 'run_id': 'R', 'config': 'OSv', 'test_id': 'netperf/tcp_stream/parallel=1',
              'status': 'ok', 'primary': 'throughput_mbps', 'client': {'name': 'linux'}, 'server': {'name': 'osv'},
              'metrics': {'throughput_mbps': {'value': 900.0, 'unit': 'Mbit/s', 'higher_is_better': True}}}
    rows = tables.Report(store.RecordList([system, result])).systems_rows()
    assert len(rows) == 1 and rows[0][1] == 'osv'
    assert rows[0][4:4 + len(tables.SYSTEM_FIELDS)] == ['unknown: unmanaged server'] * len(tables.SYSTEM_FIELDS)


ROOT = os.path.join(os.path.dirname(__file__), '..', '..', '..', '..')


@pytest.mark.parametrize('also_server, declared, message', [
    # listed as a server too: every stage would reach it over SSH
    (True, {'netperf': 12865, 'iperf3': 5201},
     'perflab_unmanaged lists osv, which the study would reach over SSH (perflab_servers:perflab_clients)'),
    (False, {'netperf': 12865},
     'benchmark plan refused: the iperf3 tests of pair c1->osv need a iperf3 server on osv (10.249.9.2, not managed)'),
])
def test_the_study_refuses_an_unmanaged_server_on_the_controller_first(tmp_path, also_server, declared, message):
    """The study's first stage (localhost only, no host reached): what an unmanaged server cannot be is refused."""
    children = {'perflab_unmanaged': {'hosts': {'osv': {'perflab_data_address': '10.249.9.2',
                                                        'perflab_unmanaged_servers': declared}}},
                'perflab_clients': {'hosts': {'c1': {'perflab_data_address': '10.249.9.1', 'perflab_peer': 'osv'}}}}
    if also_server:
        children['perflab_servers'] = {'hosts': {'osv': {}}}
    inventory = tmp_path / 'hosts.yml'
    inventory.write_text(yaml.safe_dump({'all': {'children': children}}))
    playbook = os.path.join(os.path.dirname(sys.executable), 'ansible-playbook')
    if not os.path.exists(playbook):
        pytest.skip('ansible-playbook is not installed beside %s' % sys.executable)
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, 'ansible.cfg'), ANSIBLE_NOCOLOR='1',
               ANSIBLE_STDOUT_CALLBACK='ansible.builtin.default', PERFLAB_RESULTS_DIR=str(tmp_path))
    done = subprocess.run([playbook, '-i', str(inventory), os.path.join(ROOT, 'playbooks', 'stages', 'validate_study.yml'),
                           '-e', 'perflab_suite=osv-netperf', '-e', 'perflab_system_under_test=servers'],
                          cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=300,
                          check=False, universal_newlines=True)
    # (the declared servers' plan runs live: tests/integration/test_unmanaged_server.py)
    assert done.returncode != 0 and message in done.stdout, done.stdout[-3000:]
