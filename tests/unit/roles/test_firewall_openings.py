# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The firewall role's firewall_openings (the benchmark plan's per-peer openings): the rules every
backend but nftables builds (firewalld, ufw, iptables, pf, ipfw, windows read __firewall_rules) give
each peer only its own ports. The role's tasks are templated with ansible-core's Templar, as in
test_benchmark_leftovers.py; nftables gets the openings as they are (test_firewall_nftables.py).
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

from pathlib import Path

import yaml
from ansible.parsing.dataloader import DataLoader
from ansible.template import Templar

try:
    from ansible.template import trust_as_template   # ansible-core 2.19+: only trusted text is templated
except ImportError:  # pragma: no cover - older ansible-core templates any text
    def trust_as_template(text):
        return text

PREFLIGHT = Path(__file__).resolve().parents[3] / 'roles' / 'firewall' / 'tasks' / 'preflight.yml'
DEFAULTS = {'firewall_ports': [], 'firewall_peer_addresses': [], 'firewall_tools': ['iperf3'], 'firewall_iperf3_ports': 1,
            'firewall_netperf_data_ports': [12866], 'firewall_nuttcp_streams': 1,
            # the role's table of the tools' settings (vars/main.yml)
            '__firewall_tool_settings': yaml.safe_load((PREFLIGHT.parents[1] / 'vars' / 'main.yml').read_text())[
                '__firewall_tool_settings']}


def facts(task_name, variables):
    task = [t for t in yaml.safe_load(PREFLIGHT.read_text()) if t.get('name') == task_name][0]
    scope = dict(variables, **dict((k, trust_as_template(v)) for k, v in task.get('vars', {}).items()))
    templar = Templar(loader=DataLoader(), variables=scope)
    return dict((k, templar.template(trust_as_template(v))) for k, v in task['ansible.builtin.set_fact'].items())


def rules(openings):
    variables = dict(DEFAULTS, firewall_openings=openings)
    variables.update(facts('Work out the ports and rules to open', variables))
    return variables, facts('Group the ports per peer and protocol', variables)['__firewall_rules']


def test_each_peer_gets_only_its_own_ports():
    # two pairs on one server, as benchmark_plan plans them: each client its own iperf3 port
    variables, got = rules([{'peer': '10.0.1.12', 'port': 5201, 'end_port': 5201, 'protocol': 'tcp'},
                            {'peer': '10.0.1.12', 'port': 5201, 'end_port': 5201, 'protocol': 'udp'},
                            {'peer': '10.0.1.13', 'port': 5225, 'end_port': 5226, 'protocol': 'tcp'}])
    assert [(r['peer'], r['protocol'], r['ports']) for r in got] == [
        ('10.0.1.12', 'tcp', ['5201']), ('10.0.1.12', 'udp', ['5201']), ('10.0.1.13', 'tcp', ['5225-5226'])]
    assert variables['__firewall_peers4'] == ['10.0.1.12', '10.0.1.13'] and variables['__firewall_peers6'] == []
    assert variables['__firewall_ports'] == [{'port': 5201, 'end_port': 5201, 'protocol': 'tcp'},
                                             {'port': 5201, 'end_port': 5201, 'protocol': 'udp'},
                                             {'port': 5225, 'end_port': 5226, 'protocol': 'tcp'}]


def test_without_openings_every_peer_gets_every_port_as_before():
    variables = dict(DEFAULTS, firewall_openings=[], firewall_peer_addresses=['10.0.1.12', 'fd00::12'],
                     firewall_ports=[{'port': 5201, 'protocol': 'tcp'}, {'port': 5201, 'protocol': 'udp'}])
    variables.update(facts('Work out the ports and rules to open', variables))
    got = facts('Group the ports per peer and protocol', variables)['__firewall_rules']
    assert [(r['family'], r['peer'], r['protocol'], r['ports']) for r in got] == [
        ('ipv4', '10.0.1.12', 'tcp', ['5201']), ('ipv4', '10.0.1.12', 'udp', ['5201']),
        ('ipv6', 'fd00::12', 'tcp', ['5201']), ('ipv6', 'fd00::12', 'udp', ['5201'])]
