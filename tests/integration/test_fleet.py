# -*- coding: utf-8 -*-
# Copyright: perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A fleet's full mesh in rounds on the namespace lab (lab "flt36", 7 hosts): one playbook command.

One host's data link is shaped (tbf, both ways: its own egress and its switch port's) so that it is
slower; another is unreachable (its SSH port in the inventory is one nothing listens on); a third has a
bad cable (its switch port is down: SSH answers, its data path does not), which the preflight finds, so the
fleet is planned again without it and goes on. The mesh runs among the 5 others in rounds of disjoint
hosts (5 hosts: 10 rounds of 2 tests), iperf3 TCP for 1 s; the tests of the two hosts left out are recorded
skipped with the reason, each once. The workbook has the fleet matrix, which flags the shaped host as slow
inbound and outbound, with the cause its Systems data shows (its qdisc), the unreachable host as
unreachable and the host with the bad cable as left out with its preflight's reason.
"""
from __future__ import annotations

import json
import subprocess
import time

import openpyxl
import pytest
import yaml

from conftest import run_playbook

pytestmark = pytest.mark.lab
NAME, MGMT, DATA = 'flt36', '10.190.0.0/24', '10.190.1.0/24'
# every link shaped (the lab's rate), so that the network, not the 2 shared cores, is the limit; one host's
# link shaped lower
LAB_MBIT, SHAPED_MBIT = 200, 50


@pytest.fixture(scope='module')
def lab(lab_factory):
    return lab_factory(NAME, hosts=7, mgmt=MGMT, data=DATA, rate_mbit=LAB_MBIT)


def records(path):
    return [r for r in (json.loads(line) for line in path.read_text().splitlines() if line.strip())
            if r.get('schema', '').startswith('perflab.result/') and r.get('test_id')]


def shape(lab, host, on):
    """tbf on the host's data0 (what it sends) and on its switch port (what it receives; back to the lab's rate)."""
    def tbf(mbit):
        return ['tbf', 'rate', '%dmbit' % mbit, 'burst', '600000', 'latency', '50ms']
    res = lab.ssh(host, ['tc', 'qdisc', 'replace' if on else 'del', 'dev', 'data0', 'root'] + (tbf(SHAPED_MBIT) if on else []))
    assert res.returncode == 0 or not on, res.stderr
    subprocess.run(['ip', 'netns', 'exec', '%s-sw' % NAME, 'tc', 'qdisc', 'replace', 'dev', 'p%d' % int(host[-1]), 'root']
                   + tbf(SHAPED_MBIT if on else LAB_MBIT), check=True, capture_output=True)


def cable(host, up):
    """The host's switch port up or down: a bad cable (the host's data0 loses its carrier, its SSH answers)."""
    subprocess.run(['ip', 'netns', 'exec', '%s-sw' % NAME, 'ip', 'link', 'set', 'p%d' % int(host[-1]), 'up' if up else 'down'],
                   check=True, capture_output=True)


def test_fleet_mesh_in_rounds_flags_the_shaped_host(lab, tmp_path):
    hosts = sorted(lab.hostvars())
    shaped, gone, cut = hosts[2], hosts[5], hosts[6]
    inventory = yaml.safe_load(lab.inventory.read_text())
    inventory['all']['children']['perflab_lab']['hosts'][gone]['ansible_port'] = 9
    # the lab's pairs leave an odd last host out of its groups: a fleet runs on every host of them
    inventory['all']['children']['perflab_servers']['hosts'][cut] = None
    inv = tmp_path / 'hosts.yml'
    inv.write_text(yaml.safe_dump(inventory))
    suite = tmp_path / 'fleet.yml'
    suite.write_text(yaml.safe_dump({'name': 'fleet', 'description': 'fleet mesh',
                                     'defaults': {'duration': 1, 'repetitions': 1},
                                     'tests': [{'tool': 'iperf3', 'test': 'tcp_stream'}]}))
    results = tmp_path / 'results'
    run_id = 'flt36-mesh'
    shape(lab, shaped, True)
    cable(cut, False)
    try:
        started = time.monotonic()
        res = run_playbook('playbooks/benchmark.yml', inv,
                           {'perflab_suite': str(suite), 'perflab_run_id': run_id, 'perflab_results_dir': str(results),
                            'perflab_fleet': {'schedule': 'mesh'}, 'perflab_firewall_mode': 'unmanaged'},
                           env={'PERFLAB_RESULTS_DIR': str(results)}, timeout=1500)
        seconds = time.monotonic() - started
    finally:
        shape(lab, shaped, False)
        cable(cut, True)
    print('fleet mesh playbook: %.0f s' % seconds)
    # the unreachable host: rc 4, the others finish
    assert res.rc == 4, res.stdout[-5000:] + res.stderr[-2000:]
    assert res.stats[gone]['unreachable'] >= 1, res.stats
    failed = [(task['task']['name'], h, r.get('msg')) for play in res.plays for task in play['tasks']
              for h, r in task['hosts'].items() if r.get('failed') and not r.get('ignore_errors')]
    assert all(res.stats[h]['failures'] == 0 and not res.stats[h]['unreachable'] for h in hosts if h != gone), \
        (dict((h, res.stats[h]) for h in hosts if h != gone), failed)

    # the host with the bad cable stays in the play, left out of the fleet, not failed
    assert not res.stats[cut]['unreachable'], res.stats
    # the first plan: 6 hosts (10 rounds of 3); the second, after the preflight left the cut host out: 5 hosts,
    # 10 rounds of 2 tests, no host twice in a round, every ordered pair once
    plans = [r['fleet'] for play in res.plays for task in play['tasks'] for r in task['hosts'].values()
             if task['task']['name'].endswith('Expand the suite over the pairs') and r.get('fleet')]
    assert len(plans) == 2 and len(plans[0]['hosts']) == 6 and plans[1]['hosts'] == sorted(set(hosts) - {gone, cut}), plans
    assert plans[1]['left_out'][cut].startswith('failed the preflight: its data path failed with 5 of its 5 peers'), plans[1]
    assert ('%s left out of the fleet: failed the preflight' % cut) in res.stdout
    rounds = plans[1]['rounds']
    assert len(rounds) == 10 and all(len(r['tests']) == 2 for r in rounds), rounds
    for r in rounds:
        seen = [h for t in r['tests'] for h in (t['client'], t['server'])]
        assert len(seen) == len(set(seen)), r
    live = [h for h in hosts if h not in (gone, cut)]
    assert sorted((t['client'], t['server']) for r in rounds for t in r['tests']) == \
        sorted((a, b) for a in live for b in live if a != b)

    recs = records(results / (run_id + '.jsonl'))
    ok = [r for r in recs if r['status'] == 'ok']
    skipped = [r for r in recs if r['status'] == 'skipped']
    assert len(ok) == 20, [(r['client']['name'], r['server']['name'], r['status'], r['error']) for r in recs]
    # every test of the two hosts left out, each once: 12 of the unreachable one, 10 more of the cut one
    planned = [(len(r.get('perflab_result') or []), r.get('skipped'), r.get('summary', [''])[0])
               for play in res.plays for task in play['tasks'] for r in task['hosts'].values()
               if task['task']['name'].endswith('Expand the suite over the pairs') and r.get('fleet')]
    assert len(skipped) == 22, ([(r['client']['name'], r['server']['name'], r['error']) for r in skipped], planned)
    assert len(set((r['client']['name'], r['server']['name']) for r in skipped)) == 22
    assert all(gone + ' left out of the fleet: unreachable' in r['error'] for r in skipped
               if gone in (r['client']['name'], r['server']['name'])), skipped[0]['error']
    assert all(r['error'].startswith(cut + ' left out of the fleet: failed the preflight: ') for r in skipped
               if gone not in (r['client']['name'], r['server']['name']))
    summary = [r for play in res.plays for task in play['tasks'] for r in task['hosts'].values()
               if task['task']['name'].endswith("Show the run's counts")]
    assert summary and '20 ok, 0 failed, 22 skipped' in summary[0]['msg'], summary

    # the matrix sheet: senders down, receivers across, the shaped host flagged with a cause
    book = openpyxl.load_workbook(results / (run_id + '.xlsx'))
    sheet = [ws for ws in book.worksheets if ws.title.startswith('Matrix')]
    assert len(sheet) == 1, book.sheetnames
    rows = [list(row) for row in sheet[0].iter_rows(values_only=True)]
    assert rows[2][1:8] == hosts, rows[2]
    head = [i for i, row in enumerate(rows) if row and row[0] == 'host'][0]
    verdicts = dict((row[0], row) for row in rows[head + 1:head + 1 + len(hosts)])
    assert verdicts[shaped][3] == 'slow inbound and outbound', verdicts
    # the shaper on its data0 is what its Systems data shows and the others' do not
    assert verdicts[shaped][4].startswith('qdisc tbf (the others: '), verdicts
    assert verdicts[gone][3] == 'unreachable', verdicts
    assert verdicts[cut][3] == 'left out', verdicts
    assert all(verdicts[h][3] == 'healthy' for h in live if h != shaped), verdicts
    text = (results / (run_id + '.txt')).read_text()
    assert 'Fleet matrix' in text and '%s: slow inbound and outbound' % shaped in text, text[-3000:]
