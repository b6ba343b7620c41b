# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The firewall role's tool table (firewall_tools): every tool's default ports, from its registry file."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.perflab.network.plugins.filter.tool_ports import tool_ports
from ansible_collections.perflab.network.plugins.module_utils.tools import registry


def spans(openings):
    return [(o['protocol'], o['port'], o['end_port']) for o in openings]


def test_every_tool_of_the_registry_has_openings_on_its_default_port():
    for name, tool in registry.TOOLS.items():
        got = spans(tool_ports([name]))
        assert ('tcp', tool.default_port, tool.default_port) in got, name


def test_iperf2_opens_its_own_port_and_shares_it_with_nuttcp_once():
    assert spans(tool_ports(['iperf2'])) == [('tcp', 5001, 5001), ('udp', 5001, 5001)]
    both = spans(tool_ports(['nuttcp', 'iperf2']))
    assert both == spans(tool_ports(['nuttcp']))
    assert len(both) == len(set(both))


def test_the_default_list_keeps_its_openings():
    assert spans(tool_ports(['iperf3', 'netperf', 'nuttcp', 'ethr'], iperf3_ports=2, nuttcp_streams=2,
                            netperf_data_ports=[12866, 12867])) == [
        ('tcp', 5201, 5202), ('udp', 5201, 5202), ('tcp', 12865, 12865), ('tcp', 12866, 12866), ('udp', 12866, 12866),
        ('tcp', 12867, 12867), ('udp', 12867, 12867), ('tcp', 5000, 5000), ('tcp', 5001, 5002), ('udp', 5001, 5002),
        ('tcp', 5101, 5102), ('udp', 5101, 5102), ('tcp', 8888, 8888), ('udp', 8888, 8888)]


def test_an_unknown_tool_is_refused_naming_the_known():
    with pytest.raises(AnsibleFilterError, match='tool_ports: unknown tool bogus .known: ethr, iperf2'):
        tool_ports(['bogus'])


def test_the_firewall_preflight_names_firewall_tools_for_an_unknown_tool():
    # the battery's "firewall unknown tool": the role's variable in the message, before any change
    from ansible_collections.perflab.network.plugins.filter.tool_port_problems import tool_port_problems
    assert tool_port_problems({}, tools=['iperf3']) == []
    problems = tool_port_problems({'iperf3_ports': 0}, tools=['iperf3', 'bogus'])
    assert problems[0].startswith('firewall_iperf3_ports must be')
    assert problems[1] == 'firewall_tools: unknown tool bogus (known: %s)' % ', '.join(registry.NAMES)
