# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""sockperf between two real lab hosts over SSH (private lab sock35).

One playbook: the tools role installs sockperf from Debian (the lab inventory's tools_list), bench_server
starts sockperf's TCP server on lab1's data address, lab2 runs the sockperf module against it (tcp_ping_pong,
tcp_under_load) and against a port without a server, then the server is stopped. Then the benchmark playbook
runs a suite of the quick suite's sockperf test: the plan's path (benchmark_plan, firewall openings,
bench_server, bench_test) the lab study takes, records with the percentiles in the results file.
"""
from __future__ import annotations

import json
import time
from datetime import datetime

import pytest
import yaml

from conftest import ROOT, run_playbook

pytestmark = pytest.mark.lab
NAME, MGMT, DATA = 'sock35', '10.244.0.0/24', '10.244.1.0/24'
PERCENTILES = ('latency_us_p50', 'latency_us_p90', 'latency_us_p99', 'latency_us_p99_9', 'latency_us_p99_999',
               'latency_us_max')

PLAYBOOK = '''---
- name: Tools
  hosts: perflab_lab
  gather_facts: false
  tasks:
    - name: Install sockperf
      ansible.builtin.include_role:
        name: perflab.network.tools
      vars:
        tools_list: [sockperf]

- name: Server
  hosts: perflab_servers
  gather_facts: false
  tasks:
    - name: Start a sockperf server
      perflab.network.bench_server:
        tool: sockperf
        bind: "{{ perflab_data_address }}"
      register: started

- name: Client
  hosts: perflab_clients
  gather_facts: false
  vars:
    server: "{{ hostvars[perflab_peer].perflab_data_address }}"
  tasks:
    - name: sockperf tcp_ping_pong
      perflab.network.sockperf:
        server: "{{ server }}"
        test: tcp_ping_pong
        duration: 2
        bind: "{{ perflab_data_address }}"
        nic_interface: "{{ perflab_data_interface }}"
        client_name: "{{ inventory_hostname }}"
        server_name: "{{ perflab_peer }}"
    - name: sockperf tcp_under_load
      perflab.network.sockperf:
        server: "{{ server }}"
        test: tcp_under_load
        mps: 2000
        duration: 2
    - name: sockperf without a server
      perflab.network.sockperf:
        server: "{{ server }}"
        test: tcp_ping_pong
        port: 11199
        duration: 1
      ignore_errors: true

- name: Stop
  hosts: perflab_servers
  gather_facts: false
  tasks:
    - name: Stop the sockperf server
      perflab.network.bench_server:
        tool: sockperf
        state: stopped
'''


@pytest.fixture(scope='module')
def lab(lab_factory):
    return lab_factory(NAME, hosts=2, mgmt=MGMT, data=DATA)


def test_sockperf_module_server_and_plan_between_lab_hosts(lab, tmp_path):
    book = tmp_path / 'sockperf.yml'
    book.write_text(PLAYBOOK)
    started = time.monotonic()
    res = run_playbook(str(book), lab.inventory)
    module_s = time.monotonic() - started
    assert res.rc == 0, res.stdout[-4000:] + res.stderr[-2000:]

    started = res.task_results('Start a sockperf server')['lab1']
    server = started['servers'][0]
    assert server['state'] == 'started' and server['port'] == 11111
    assert server['command'][1:] == ['server', '-p', '11111', '--tcp', '-i', lab.hostvars()['lab1']['perflab_data_address']]

    record = res.task_results('sockperf tcp_ping_pong')['lab2']['perflab_result'][0]
    assert record['status'] == 'ok', record['error']
    assert record['test_id'] == 'sockperf/tcp_ping_pong/parallel=1' and record['tool_version'] == '3.7'
    assert record['client']['name'] == 'lab2' and record['server']['name'] == 'lab1'
    metrics = record['metrics']
    values = [metrics[name]['value'] for name in PERCENTILES]
    assert all(metrics[name]['unit'] == 'us' for name in PERCENTILES)
    assert 0 < metrics['latency_us_min']['value'] <= values[0] and values == sorted(values), values
    assert metrics['transactions_per_s']['value'] > 0

    loaded = res.task_results('sockperf tcp_under_load')['lab2']['perflab_result'][0]
    assert loaded['status'] == 'ok' and loaded['test_id'] == 'sockperf/tcp_under_load/mps=2000/parallel=1'
    assert 'latency_us_p99_999' in loaded['metrics']

    refused = res.task_results('sockperf without a server')['lab2']
    assert refused['failed'] and refused['perflab_result'][0]['status'] == 'failed'
    assert 'Connection refused' in refused['msg']

    assert res.task_results('Stop the sockperf server')['lab1']['servers'][0]['state'] == 'stopped'
    assert lab.ssh('lab1', ['pgrep', '-x', 'sockperf']).returncode == 1   # no server left

    # the plan's path: the quick suite's sockperf test, as the lab study runs it
    quick = yaml.safe_load((ROOT / 'roles' / 'benchmark' / 'files' / 'suites' / 'quick.yml').read_text())
    suite = dict(quick, name='quicksock', tests=[test for test in quick['tests'] if test['tool'] == 'sockperf'])
    assert suite['tests'], 'the quick suite runs sockperf'
    (tmp_path / 'quicksock.yml').write_text(yaml.safe_dump(suite))
    results = tmp_path / 'results'
    results.mkdir()
    started = time.monotonic()
    res = run_playbook('playbooks/benchmark.yml', lab.inventory,
                       {'perflab_suite': str(tmp_path / 'quicksock.yml'), 'perflab_duration': 2,
                        'perflab_run_id': 'sock35', 'perflab_results_dir': str(results)},
                       env={'PERFLAB_RESULTS_DIR': str(results)})
    plan_s = time.monotonic() - started
    assert res.rc == 0, res.stdout[-5000:] + res.stderr[-2000:]
    records = [json.loads(line) for line in (results / 'sock35.jsonl').read_text().splitlines()
               if line.strip() and json.loads(line).get('schema') == 'perflab.result/2']
    assert [r['test_id'] for r in records] == ['sockperf/tcp_ping_pong/parallel=1']
    assert records[0]['status'] == 'ok', records[0]['error']
    assert all(name in records[0]['metrics'] for name in PERCENTILES)
    # what the quick suite's sockperf test costs a run: this suite runs it alone, so its bench_test task is that test
    slow = sorted(((task_seconds(task), task['task']['name']) for play in res.plays for task in play.get('tasks', [])),
                  reverse=True)[:4]
    print('sockperf on the lab: tcp_ping_pong mean %.1f us, p99.9 %.1f us (module), plan mean %.1f us; '
          'module playbook %.0f s, benchmark playbook %.0f s; its slowest tasks: %s'
          % (metrics['latency_us_mean']['value'], metrics['latency_us_p99_9']['value'],
             records[0]['metrics']['latency_us_mean']['value'], module_s, plan_s,
             ', '.join('%s %.1f s' % (name, seconds) for seconds, name in slow)))


def task_seconds(task):
    duration = task['task'].get('duration') or {}
    try:
        start, end = (datetime.fromisoformat(duration[key].replace('Z', '+00:00')) for key in ('start', 'end'))
    except (KeyError, ValueError):
        return 0.0
    return (end - start).total_seconds()
