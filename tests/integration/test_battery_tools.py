# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The battery, tools under another prefix (issue 29, point 1), against a lab of our own (i29t, 2 firewalled hosts).

The tools live only in /opt/x/bin (installed by the tools role, then moved out of the PATH folders): a study run
with tools_prefix /opt/x finds them in its plan and in every module (bench_server, bench_test), and its tests
come out ok through the default-deny firewall. Bad input, each refused with a clear error before any change: a
relative folder in benchmark_tool_paths (on localhost), a folder that does not exist and a file given as a folder
(the preflight, on the hosts), a tool missing under the folders given (bench_server: nothing starts) and a
relative tool_paths of a test module (nothing runs).
"""
from __future__ import annotations

import json
import time

import pytest

import battery
from conftest import run_playbook
from test_battery_faults import read_jsonl_strict, results_of, write_suite
from test_battery_inputs import failure_messages

pytestmark = pytest.mark.lab
NAME, MGMT, DATA = 'i29t', '10.171.0.0/24', '10.171.1.0/24'
HOSTS = ('lab1', 'lab2')
MOVED = ('iperf3', 'netperf', 'netserver')
TOOL_PROCESSES = ('iperf3', 'netserver', 'netperf')


@pytest.fixture(scope='module')
def lab(lab_factory, tmp_path_factory):
    lab = lab_factory(NAME, hosts=2, mgmt=MGMT, data=DATA, firewall='default-deny')
    tmp = tmp_path_factory.mktemp('tools')
    res = run_playbook('playbooks/stages/tools.yml', lab.inventory, {'tools_list': ['iperf3', 'netperf']},
                       env={'PERFLAB_RESULTS_DIR': str(tmp)}, timeout=900)
    assert res.rc == 0, res.stdout[-3000:] + res.stderr[-2000:]
    # the tools only under another prefix: nothing of them left in PATH's folders nor in the usual ones
    for host in HOSTS:
        script = ('set -e; mkdir -p /opt/x/bin; for t in %s; do p=$(command -v $t); mv "$p" /opt/x/bin/$t; done; '
                  'for t in %s; do ! command -v $t; done; ! ls /opt/perflab/bin/iperf3 /usr/local/bin/iperf3 2>/dev/null'
                  % (' '.join(MOVED), ' '.join(MOVED)))
        lab.ssh(host, ['sh', '-c', 'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin; ' + script],
                timeout=60, check=True)
    return lab


def tool_processes(lab):
    found = {}
    for host in HOSTS:
        res = lab.ssh(host, ['ps', '-eo', 'comm='], timeout=60, check=True)
        procs = [name for name in res.stdout.split() if name in TOOL_PROCESSES]
        if procs:
            found[host] = procs
    return found


def firewall_rules(lab):
    return dict((host, lab.ssh(host, ['nft', 'list', 'ruleset'], timeout=60, check=True).stdout) for host in HOSTS)


def test_tools_under_another_prefix(lab, tmp_path):
    started = time.monotonic()
    suite = write_suite(tmp_path, 'prefixed', [{'tool': 'iperf3', 'test': 'tcp_stream'},
                                               {'tool': 'netperf', 'test': ['tcp_stream', 'tcp_rr']}], duration=2)
    base = {'perflab_suite': str(suite), 'perflab_install_tools': False, 'tools_prefix': '/opt/x'}
    rules = firewall_rules(lab)

    # a relative folder: refused on localhost by the study's validation, no host touched
    with battery.case('bad input', 'benchmark_tool_paths with a relative folder (opt/x/bin)') as case:
        res = run_playbook('playbooks/benchmark.yml', lab.inventory, dict(base, benchmark_tool_paths=['opt/x/bin']),
                           env={'PERFLAB_RESULTS_DIR': str(tmp_path / 'r1')})
        messages = ' '.join(failure_messages(res))
        assert res.rc != 0 and "benchmark_tool_paths must hold absolute folder paths, got 'opt/x/bin'" in messages, (
            messages or res.stdout[-2000:])
        assert [p['play']['name'] for p in res.plays][-1] == 'Check the study variables', 'went past the validation'
        assert not (tmp_path / 'r1').exists() or not list((tmp_path / 'r1').glob('*.jsonl'))
        case.detail = battery.key_words(messages)

    # a folder the host does not have (lab1) and a file given as the folder (lab2): the preflight, one run
    with battery.case('bad input', 'benchmark_tool_paths naming a folder the host does not have') as missing_case, \
            battery.case('bad input', 'benchmark_tool_paths naming a file, not a folder') as file_case:
        paths = "{{ ['/opt/nope/bin'] if inventory_hostname == 'lab1' else ['/opt/x/bin/iperf3'] }}"
        res = run_playbook('playbooks/benchmark.yml', lab.inventory, dict(base, benchmark_tool_paths=paths),
                           env={'PERFLAB_RESULTS_DIR': str(tmp_path / 'r2')})
        messages = failure_messages(res)
        assert res.rc != 0
        assert any('lab1: benchmark_tool_paths names /opt/nope/bin, which is not a folder on this host' in m
                   for m in messages), messages
        assert any('lab2: benchmark_tool_paths names /opt/x/bin/iperf3, which is not a folder on this host' in m
                   for m in messages), messages
        assert not list(results_of(read_jsonl_strict(tmp_path / 'r2' / 'x.jsonl')))
        assert 'Install the benchmark tools' not in [p['play']['name'] for p in res.plays], 'went past the preflight'
        assert firewall_rules(lab) == rules and tool_processes(lab) == {}, 'the refused run changed a host'
        missing_case.detail = file_case.detail = battery.key_words(' '.join(messages))

    # the modules themselves, one run: a tool missing under the folder given (bench_server starts nothing) and a
    # relative tool_paths (bench_test runs nothing)
    with battery.case('bad input', 'bench_server: a tool missing under the folders given') as server_case, \
            battery.case('bad input', 'bench_test: tool_paths relative') as test_case:
        playbook = tmp_path / 'modules.yml'
        playbook.write_text(json.dumps([{'hosts': 'lab1', 'gather_facts': False, 'tasks': [
            {'name': 'server', 'perflab.network.bench_server': {'tool': 'iperf3', 'tool_paths': ['/opt/y/bin']},
             'ignore_errors': True, 'register': 'server'},
            {'name': 'test', 'perflab.network.bench_test': {'tool': 'iperf3', 'server': '10.171.1.12',
                                                            'tool_paths': ['opt/x/bin']},
             'ignore_errors': True, 'register': 'test'},
            {'name': 'show', 'ansible.builtin.debug': {'msg': '{{ [server.msg, test.msg] }}'}}]}]))
        res = run_playbook(str(playbook), lab.inventory)
        shown = [h['msg'] for p in res.plays for t in p['tasks'] if t['task']['name'] == 'show'
                 for h in t['hosts'].values()][0]
        assert shown[0].startswith('iperf3 is not installed on this host (looked in ') and '/opt/y/bin' in shown[0], shown
        assert "tool_paths must hold absolute folder paths, got 'opt/x/bin'" in shown[1], shown
        assert tool_processes(lab) == {}
        server_case.detail, test_case.detail = battery.key_words(shown[0]), battery.key_words(shown[1])

    # the run itself: tools_prefix alone feeds the plan's lookup and every module's; every test ok
    with battery.case('fault', 'tools only under tools_prefix /opt/x: every quick test found and ok') as case:
        results = tmp_path / 'r3'
        res = run_playbook('playbooks/benchmark.yml', lab.inventory, dict(base, perflab_run_id='prefixed'),
                           env={'PERFLAB_RESULTS_DIR': str(results)})
        records = results_of(read_jsonl_strict(results / 'prefixed.jsonl'))
        assert res.rc == 0, res.stdout[-3000:] + res.stderr[-2000:]
        assert len(records) == 3 and [r['status'] for r in records] == ['ok'] * 3, [
            (r['test_id'], r['status'], r.get('error')) for r in records]
        assert all(r['commands'][0][0].startswith('/opt/x/bin/') for r in records), [r['commands'] for r in records]
        assert tool_processes(lab) == {} and firewall_rules(lab) == rules
        case.detail = '3 tests ok from /opt/x/bin'
    print('test_battery_tools: %.0f s of playbook runs' % (time.monotonic() - started))
