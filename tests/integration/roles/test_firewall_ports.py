# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The firewall role's preflight for real (ansible-playbook, connection local): the ports and
rules it works out from the tool table and its refusals. Backend `none`, so nothing changes;
the live backends are tested in tests/unit/plugins/modules/test_firewall_nftables.py and in
tests/integration/test_firewall_bonding.py."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
BIN = Path(sys.executable).parent

PLAY = """
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

CASE = """
- name: One case
  block:
    - name: The role
      ansible.builtin.include_role:
        name: perflab.network.firewall
      vars:
        firewall_backend: none
        firewall_peer_addresses: "{{ case.peers }}"
        firewall_tools: "{{ case.tools | default(['iperf3', 'netperf', 'nuttcp', 'ethr']) }}"
        firewall_iperf3_ports: "{{ case.iperf3_ports | default(1) }}"
        firewall_nuttcp_streams: "{{ case.nuttcp_streams | default(1) }}"
        firewall_netperf_data_ports: "{{ case.netperf_data_ports | default([12866]) }}"
        firewall_ports: "{{ case.ports | default([]) }}"
    - name: Keep what it worked out
      ansible.builtin.set_fact:
        outcomes: "{{ outcomes | default({}) | combine({case.name: {'ports': __firewall_ports, 'rules': __firewall_rules}}) }}"
  rescue:
    - name: Refused
      ansible.builtin.set_fact:
        outcomes: "{{ outcomes | default({}) | combine({case.name: ansible_failed_result.msg | default('failed')}) }}"
"""

CASES = [
    {'name': 'defaults', 'peers': ['10.206.1.12']},
    {'name': 'counts', 'peers': ['10.206.1.12', 'fd00:206::12'], 'tools': ['iperf3', 'nuttcp', 'netperf'],
     'iperf3_ports': 4, 'nuttcp_streams': 2, 'netperf_data_ports': [12866, 12867]},
    {'name': 'explicit', 'peers': ['10.206.1.0/28'], 'ports': [{'port': 6000, 'end_port': 6010, 'protocol': 'udp'}]},
    {'name': 'too many iperf3 ports', 'peers': ['10.206.1.12'], 'iperf3_ports': 65},
    {'name': 'bad peer', 'peers': ['10.206.1.12; rm -rf /']},
    {'name': 'no peer', 'peers': []},
    {'name': 'bad tool', 'peers': ['10.206.1.12'], 'tools': ['iperf9']},
    {'name': 'reversed range', 'peers': ['10.206.1.12'], 'ports': [{'port': 6010, 'end_port': 6000, 'protocol': 'tcp'}]},
]


@pytest.fixture(scope='module')
def outcomes(tmp_path_factory):
    base = tmp_path_factory.mktemp('fwports')
    (base / 'case.yml').write_text(CASE)
    (base / 'play.yml').write_text(PLAY)
    argv = [str(BIN / 'ansible-playbook'), '-i', 'localhost,', '-c', 'local',
            '-e', json.dumps({'ansible_python_interpreter': sys.executable, 'cases': CASES}), str(base / 'play.yml')]
    env = dict(os.environ, ANSIBLE_CONFIG=str(ROOT / 'ansible.cfg'), ANSIBLE_STDOUT_CALLBACK='ansible.posix.json',
               PATH='%s:%s' % (BIN, os.environ.get('PATH', '')))
    proc = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=900, check=False)
    assert proc.returncode == 0, proc.stdout[-3000:]
    doc = json.JSONDecoder().raw_decode(proc.stdout[proc.stdout.find('{'):])[0]
    return doc['plays'][0]['tasks'][-1]['hosts']['localhost']['outcomes']


def spans(ports):
    return sorted((p['protocol'], p['port'], p['end_port']) for p in ports)


def test_default_tools_open_exactly_their_ports(outcomes):
    assert spans(outcomes['defaults']['ports']) == [
        ('tcp', 5000, 5000), ('tcp', 5001, 5001), ('tcp', 5101, 5101), ('tcp', 5201, 5201), ('tcp', 8888, 8888),
        ('tcp', 12865, 12865), ('tcp', 12866, 12866),
        ('udp', 5001, 5001), ('udp', 5101, 5101), ('udp', 5201, 5201), ('udp', 8888, 8888), ('udp', 12866, 12866)]
    assert [(r['family'], r['peer'], r['protocol']) for r in outcomes['defaults']['rules']] == [
        ('ipv4', '10.206.1.12', 'tcp'), ('ipv4', '10.206.1.12', 'udp')]


def test_counts_widen_the_ranges_and_ipv6_peers_get_rules(outcomes):
    assert spans(outcomes['counts']['ports']) == [
        ('tcp', 5000, 5000), ('tcp', 5001, 5002), ('tcp', 5101, 5102), ('tcp', 5201, 5204),
        ('tcp', 12865, 12865), ('tcp', 12866, 12866), ('tcp', 12867, 12867),
        ('udp', 5001, 5002), ('udp', 5101, 5102), ('udp', 5201, 5204), ('udp', 12866, 12866), ('udp', 12867, 12867)]
    rules = dict(((r['family'], r['protocol']), r['ports']) for r in outcomes['counts']['rules'])
    # in the order of firewall_tools
    assert rules[('ipv6', 'tcp')] == ['5201-5204', '5000', '5001-5002', '5101-5102', '12865', '12866', '12867']
    assert rules[('ipv6', 'udp')] == ['5201-5204', '5001-5002', '5101-5102', '12866', '12867']
    assert set(rules) == {('ipv4', 'tcp'), ('ipv4', 'udp'), ('ipv6', 'tcp'), ('ipv6', 'udp')}


def test_explicit_ports_replace_the_tool_table(outcomes):
    assert outcomes['explicit']['ports'] == [{'port': 6000, 'end_port': 6010, 'protocol': 'udp'}]
    assert outcomes['explicit']['rules'] == [{'family': 'ipv4', 'peer': '10.206.1.0/28', 'protocol': 'udp',
                                              'ports': ['6000-6010'], 'id': 'ipv4|10.206.1.0/28|udp|6000-6010'}]


@pytest.mark.parametrize('case,message', [
    ('too many iperf3 ports', 'out of range: firewall_iperf3_ports must be 1-64'),
    ('bad peer', 'firewall_peer_addresses (or the peer of each of firewall_openings) must list'),
    ('no peer', 'firewall_peer_addresses (or the peer of each of firewall_openings) must list'),
    ('bad tool', 'firewall_tools'),
    ('reversed range', 'needs 1 <= port <= end_port <= 65535'),
])
def test_bad_input_is_refused(outcomes, case, message):
    assert isinstance(outcomes[case], str) and message in outcomes[case], outcomes[case]
