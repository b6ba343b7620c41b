# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The benchmark role's preflight stops leftover servers on ports the run does not plan (issue 10, faults)."""

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

PLAN = Path(__file__).resolve().parents[3] / 'roles' / 'benchmark' / 'tasks' / 'plan.yml'
TASK = 'Stop test servers an interrupted run left on ports this run does not plan'


def render(template, variables):
    return Templar(loader=DataLoader(), variables=variables).template(trust_as_template(template))


def unplanned(servers, pidfiles, host='lab1'):
    task = [t for t in yaml.safe_load(PLAN.read_text()) if t.get('name') == TASK][0]
    variables = dict(((name, trust_as_template(value)) for name, value in task['vars'].items()), inventory_hostname=host, __benchmark_plan={'servers': servers},
                     __benchmark_preflight={'stdout_lines': ['pidfile %s' % name for name in pidfiles] + ['listening']})
    args = task['perflab.network.bench_server']
    return [(render(args['tool'], dict(variables, item=item)), int(render(args['port'], dict(variables, item=item))))
            for item in render(task['loop'], variables)]


def test_leftovers_of_unplanned_tools_and_ports_are_stopped():
    servers = [{'server': 'lab1', 'tool': 'iperf3', 'port': 5201, 'count': 2},
               {'server': 'lab1', 'tool': 'netperf', 'port': 12865, 'count': 1},
               {'server': 'lab2', 'tool': 'nuttcp', 'port': 5000, 'count': 1}]
    pidfiles = ['iperf3-5201.pid', 'iperf3-5202.pid', 'iperf3-5203.pid', 'netperf-12865.pid', 'nuttcp-5000.pid',
                'ethr-8888.pid', 'notes.pid']
    assert unplanned(servers, pidfiles) == [('iperf3', 5203), ('nuttcp', 5000), ('ethr', 8888)]


def test_nothing_to_stop_when_every_pidfile_is_planned():
    servers = [{'server': 'lab1', 'tool': 'iperf3', 'port': 5201, 'count': 1}]
    assert unplanned(servers, ['iperf3-5201.pid']) == []
    assert unplanned(servers, []) == []
