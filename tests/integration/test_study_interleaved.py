# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""stock_vs_tuned interleaved, for real: two lab hosts, iperf3's quick tests of 2 s, 2 repetitions, so the
blocks run stock tuned tuned stock (ABBA), switching the tuning in place between blocks. The records say the
design and their block, the configurations alternate in time, each switch's cost is printed and recorded,
and the hosts end stock. Bad design variables stop the study before any host changes."""
from __future__ import annotations

import itertools
import json
import re
import shutil
import tempfile
from pathlib import Path

import pytest

from conftest import run_playbook

pytestmark = pytest.mark.lab
NAME, MGMT, DATA = 'abba35', '10.247.0.0/24', '10.247.1.0/24'
RUN_ID = 'abba35-svt'
# sysctls of the throughput profile that each network namespace has of its own
SYSCTLS = ['net.ipv4.tcp_rmem', 'net.ipv4.tcp_wmem', 'net.ipv4.tcp_congestion_control', 'net.ipv4.tcp_mtu_probing']


def read_results(path):
    with open(path) as f:
        return [r for r in (json.loads(line) for line in f if line.strip()) if r['schema'].startswith('perflab.result/')]


def sysctls(lab, host):
    return lab.ssh(host, ['sysctl', '-n'] + SYSCTLS, check=True).stdout


@pytest.fixture(scope='module')
def lab(lab_factory):
    return lab_factory(NAME, hosts=2, mgmt=MGMT, data=DATA)


@pytest.fixture(scope='module')
def study(lab):
    # not under pytest's basetemp: another pytest session on the machine removes old basetemps, and with them
    # the results directory the callback still writes the workbook into at the end of the study
    results = Path(tempfile.mkdtemp(prefix='perflab-abba35-'))
    before = {host: sysctls(lab, host) for host in ('lab1', 'lab2')}
    res = run_playbook('playbooks/stock_vs_tuned.yml', lab.inventory,
                       {'perflab_suite': 'quick', 'perflab_duration': 2, 'perflab_repetitions': 2,
                        'benchmark_tools': ['iperf3'], 'perflab_run_id': RUN_ID, 'perflab_results_dir': str(results)},
                       env={'PERFLAB_RESULTS_DIR': str(results)})
    assert res.rc == 0, res.stdout[-5000:] + res.stderr[-2000:]
    yield res, results, before
    shutil.rmtree(str(results), ignore_errors=True)


def test_the_configurations_alternate_in_time_abba(study):
    res, results, _before = study
    records = read_results(results / (RUN_ID + '.jsonl'))
    tests = {r['test_id'] for r in records}
    assert len(tests) == 3 and len(records) == 3 * 2 * 2, [(r['test_id'], r['config'], r['repetition']) for r in records]
    assert all(r['status'] == 'ok' for r in records), [(r['test_id'], r['error']) for r in records if r['status'] != 'ok']
    order = ['stock', 'tuned', 'tuned', 'stock']
    for r in records:
        assert r['design'] == 'interleaved' and r['design_order'] == order and r['design_seed'] is None, r
        state = order[r['design_block'] - 1]
        assert r['config'].endswith(' stock' if state == 'stock' else ' tuned-throughput'), r
        # the n-th block of a configuration runs repetition n of every test
        assert r['repetition'] == order[:r['design_block']].count(state), r
    # every block's records start after the previous block's ended: stock runs before and after tuned
    blocks = sorted({r['design_block'] for r in records})
    assert blocks == [1, 2, 3, 4]
    for earlier, later in zip(blocks, blocks[1:]):
        assert max(r['ended_at'] for r in records if r['design_block'] == earlier) \
            <= min(r['started_at'] for r in records if r['design_block'] == later)
    in_time = [r['config'].rsplit(' ', 1)[1] for r in sorted(records, key=lambda r: r['started_at'])]
    assert [state for state, dummy in itertools.groupby(in_time)] == ['stock', 'tuned-throughput', 'stock'], in_time


def test_each_switch_is_timed_printed_and_recorded(study):
    res, results, _before = study
    records = read_results(results / (RUN_ID + '.jsonl'))
    switch = {r['design_block']: r['design_switch_s'] for r in records}
    # block 1 starts stock (no switch), 2 tunes, 3 stays tuned, 4 goes back to stock
    assert switch[1] is None and switch[3] is None, switch
    assert switch[2] > 0 and switch[4] > 0, switch
    printed = re.findall(r'block (\d) of 4 \((stock|tuned)\): switch cost ([0-9.]+) s', res.stdout)
    assert {(int(b), float(s)) for b, dummy, s in printed} == {(2, switch[2]), (4, switch[4])}, printed
    assert re.search(r'design interleaved: 2 switch\(es\), [0-9.]+ s in all', res.stdout), res.stdout[-3000:]
    # and published with the run's summary (set_stats, for AWX workflows and job artifacts)
    published = [task['hosts']['localhost']['ansible_stats']['data']['perflab_design'] for play in res.plays
                 for task in play.get('tasks', []) if 'perflab_design' in
                 task.get('hosts', {}).get('localhost', {}).get('ansible_stats', {}).get('data', {})]
    assert len(published) == 1 and published[0]['order'] == ['stock', 'tuned', 'tuned', 'stock'], published
    assert [(s['block'], s['seconds']) for s in published[0]['switches']] == [(2, switch[2]), (4, switch[4])]


def test_the_hosts_end_stock(study, lab):
    dummy, _results, before = study
    for host in ('lab1', 'lab2'):
        assert sysctls(lab, host) == before[host], host
        assert lab.ssh(host, ['test', '-e', '/var/lib/perflab/tuning/stock.json']).returncode == 1, host
        ps = lab.ssh(host, ['ps', '-eo', 'comm='], check=True).stdout.split()
        assert 'iperf3' not in ps, (host, ps)


def test_the_workbook_views_say_the_design(study):
    dummy, results, _before = study
    text = (results / (RUN_ID + '.md')).read_text()
    assert 'interleaved' in text, text[:3000]


@pytest.mark.parametrize('extra, message', [
    ({'perflab_design': 'zigzag'}, 'perflab_design'),
    ({'perflab_design_order': 'abab'}, 'perflab_design_order'),
    ({'perflab_repetitions': 'auto'}, 'perflab_repetitions auto cannot be interleaved'),
])
def test_bad_design_variables_stop_the_study_before_any_change(lab, extra, message):
    before = lab.ssh('lab1', ['sh', '-c', 'ls /var/lib/perflab 2>/dev/null; sysctl -n net.ipv4.tcp_rmem']).stdout
    res = run_playbook('playbooks/stock_vs_tuned.yml', lab.inventory, dict({'perflab_suite': 'quick'}, **extra))
    assert res.rc != 0 and message in res.stdout, (extra, res.stdout[-3000:])
    # only the controller's validation ran: no play reached the lab hosts
    assert {host for play in res.plays for task in play.get('tasks', []) for host in task.get('hosts', {})} <= {'localhost'}
    assert lab.ssh('lab1', ['sh', '-c', 'ls /var/lib/perflab 2>/dev/null; sysctl -n net.ipv4.tcp_rmem']).stdout == before
