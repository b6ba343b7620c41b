# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The benchmark role's preflight stops leftover servers on ports the run does not plan (issue 10, faults).

bench_preflight decides (tests/unit/plugins/modules/test_bench_preflight.py); here the role's tasks are
templated over what it returns, with the planned servers the role gives it.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

from pathlib import Path

import yaml
from ansible.parsing.dataloader import DataLoader
from ansible.template import Templar

from ansible_collections.perflab.network.plugins.module_utils.host.process import ProcessResult
from ansible_collections.perflab.network.plugins.module_utils.bench import preflight

try:
    from ansible.template import trust_as_template   # ansible-core 2.19+: only trusted text is templated
except ImportError:  # pragma: no cover - older ansible-core templates any text
    def trust_as_template(text):
        return text

PLAN = Path(__file__).resolve().parents[3] / 'roles' / 'benchmark' / 'tasks' / 'plan.yml'
PREFLIGHT = 'Check the data paths and the planned ports through the firewall, look for leftover test servers'
PLANNED = 'Stop test servers an interrupted run left on the planned ports'
UNPLANNED = 'Stop test servers an interrupted run left on ports this run does not plan'


def render(template, variables):
    return Templar(loader=DataLoader(), variables=variables).template(trust_as_template(template))


def task(name):
    return [t for t in yaml.safe_load(PLAN.read_text()) if t.get('name') == name][0]


def with_vars(one, variables):
    return dict(variables, **dict((name, trust_as_template(value)) for name, value in one.get('vars', {}).items()))


def stopped(name, servers, pidfiles, host='lab1'):
    """(tool, bind, port, count) of each bench_server call the role makes, given the plan and the pidfiles."""
    plan = {'servers': [dict(s, bench_server={'tool': s['tool'], 'bind': '10.0.1.1', 'port': s['port'], 'count': s['count']})
                        for s in servers], 'pairs': []}
    # a server host: nothing to connect to (the connect check is tested in test_bench_preflight.py)
    variables = {'inventory_hostname': host, '__benchmark_plan': plan, 'perflab_data_address': '10.0.1.1',
                 'perflab_data_interface': 'data0'}
    check = task(PREFLIGHT)
    args = dict((key, render(value, with_vars(check, variables))) for key, value in check['perflab.network.bench_preflight'].items())
    params = dict(args, pid_dir='/run/perflab', ping_wait=3)
    params['servers'] = [dict(server) for server in params['servers']]
    result = preflight.preflight_result(params, run_many=lambda argvs, timeout: [ProcessResult(a, 0, '[]') for a in argvs],
                                        list_pidfiles=lambda pid_dir: sorted(pidfiles),
                                        listening_ports=lambda: {'tcp': [], 'udp': []})
    variables['__benchmark_preflight'] = result
    stop = task(name)
    args = stop['perflab.network.bench_server']
    assert args['state'] == 'stopped'
    out = []
    for item in render(stop['loop'], variables):
        one = dict(variables, item=item)
        out.append(tuple(render(args[key], one) if key in args else None for key in ('tool', 'bind', 'port', 'count')))
    return [(tool, bind, int(port), int(count) if count is not None else None) for tool, bind, port, count in out]


SERVERS = [{'server': 'lab1', 'tool': 'iperf3', 'port': 5201, 'count': 2},
           {'server': 'lab1', 'tool': 'netperf', 'port': 12865, 'count': 1},
           {'server': 'lab2', 'tool': 'nuttcp', 'port': 5000, 'count': 1}]
PIDFILES = ['iperf3-5201.pid', 'iperf3-5202.pid', 'iperf3-5203.pid', 'netperf-12865.pid', 'nuttcp-5000.pid',
            'ethr-8888.pid', 'notes.pid']


def test_leftovers_of_unplanned_tools_and_ports_are_stopped():
    assert stopped(UNPLANNED, SERVERS, PIDFILES) == [
        ('ethr', None, 8888, None), ('iperf3', None, 5203, None), ('nuttcp', None, 5000, None)]


def test_leftovers_on_planned_ports_are_stopped_with_their_bind_and_count():
    assert stopped(PLANNED, SERVERS, PIDFILES) == [('iperf3', '10.0.1.1', 5201, 2), ('netperf', '10.0.1.1', 12865, 1)]
    assert stopped(PLANNED, SERVERS, ['iperf3-5202.pid']) == [('iperf3', '10.0.1.1', 5201, 2)]


def test_nothing_to_stop_when_every_pidfile_is_planned():
    servers = [{'server': 'lab1', 'tool': 'iperf3', 'port': 5201, 'count': 1}]
    assert stopped(UNPLANNED, servers, ['iperf3-5201.pid']) == []
    assert stopped(UNPLANNED, servers, []) == []
    assert stopped(PLANNED, servers, []) == []
