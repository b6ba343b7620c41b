# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A fleet without the hosts that cannot take part, and a fleet cut into AWX job slices merged into one
matrix (lab "sl37", 4 hosts, iperf3 TCP for 1 s: short on purpose).

1. One host fails the study's preflight (its benchmark_tool_paths names a folder it does not have): a fleet
   run leaves it out, records its tests skipped with the preflight's refusal, measures the others, gives back
   its run lock, and the matrix says "left out" with the reason. The same host in a run of pairs still stops
   the run on every host before any change (the pair studies' safety rule).
2. The inventory cut into two slices as AWX cuts it (fleet.slice_members): each slice's job runs
   benchmark.yml through ansible-runner's remote path (transmit | worker --delete | process), both at once
   as the controller runs them, with the same variables (each finds its slice from its hosts); their
   artifacts merged as the controller merges a sliced job's (one mapping, each slice's over the others'),
   the report node (report.yml, the same path) builds one workbook with one matrix of both slices, each
   record saying its slice, the cells between the slices marked not measured.
"""
from __future__ import annotations

import json
import threading
import time

import openpyxl
import pytest
import yaml

pytest.importorskip('ansible_runner')

from conftest import run_playbook  # noqa: E402  (tests/integration is on sys.path under pytest)
# _venv_on_path: test_runner's autouse fixture (runner starts ansible-playbook from PATH), used here too
from test_runner import (_venv_on_path, artifact_dir, make_private_data_dir, runner_pipeline,  # noqa: E402,F401 pylint: disable=unused-import
                         stats_event)

from ansible_collections.perflab.network.plugins.module_utils.plan import fleet  # noqa: E402

pytestmark = pytest.mark.lab
NAME, MGMT, DATA = 'sl37', '10.152.0.0/24', '10.152.1.0/24'
SUITE = {'name': 'fleet', 'description': 'fleet mesh', 'defaults': {'duration': 1, 'repetitions': 1},
         'tests': [{'tool': 'iperf3', 'test': 'tcp_stream'}]}
MISSING = '/opt/perflab-sl37-missing'


@pytest.fixture(scope='module')
def lab(lab_factory):
    return lab_factory(NAME, hosts=4, mgmt=MGMT, data=DATA, rate_mbit=200)


def records(path):
    return [r for r in (json.loads(line) for line in path.read_text().splitlines() if line.strip())
            if r.get('schema', '').startswith('perflab.result/') and r.get('test_id')]


def matrix_rows(path):
    book = openpyxl.load_workbook(path)
    sheets = [ws for ws in book.worksheets if ws.title.startswith('Matrix')]
    assert len(sheets) == 1, book.sheetnames
    return [list(row) for row in sheets[0].iter_rows(values_only=True)]


def verdicts(rows, hosts):
    head = [i for i, row in enumerate(rows) if row and row[0] == 'host'][0]
    return dict((row[0], row) for row in rows[head + 1:head + 1 + len(hosts)])


def locks(lab, hosts):
    return dict((h, lab.ssh(h, ['test', '-e', '/run/perflab/run.lock']).returncode == 0) for h in hosts)


def test_a_host_refused_by_the_preflight_is_left_out_of_a_fleet_but_stops_a_run_of_pairs(lab, tmp_path):
    hosts = sorted(lab.hostvars())
    bad = hosts[1]
    inventory = yaml.safe_load(lab.inventory.read_text())
    inventory['all']['children']['perflab_lab']['hosts'][bad]['benchmark_tool_paths'] = [MISSING]
    inv = tmp_path / 'hosts.yml'
    inv.write_text(yaml.safe_dump(inventory))
    suite = tmp_path / 'fleet.yml'
    suite.write_text(yaml.safe_dump(SUITE))
    results = tmp_path / 'results'
    common = {'perflab_suite': str(suite), 'perflab_results_dir': str(results), 'perflab_firewall_mode': 'unmanaged'}

    # a run of pairs: refused on every host, nothing run, every lock given back
    started = time.monotonic()
    res = run_playbook('playbooks/benchmark.yml', inv, dict(common, perflab_run_id='sl37-pairs'),
                       env={'PERFLAB_RESULTS_DIR': str(results)}, timeout=900)
    print('run of pairs refused: %.0f s' % (time.monotonic() - started))
    assert res.rc == 2, res.stdout[-4000:]
    assert all(res.stats[h]['failures'] == 1 for h in hosts), res.stats
    assert 'Refused before any change: the preflight refused %s' % bad in res.stdout, res.stdout[-4000:]
    assert not [r for r in (records(results / 'sl37-pairs.jsonl') if (results / 'sl37-pairs.jsonl').exists() else [])
                if r['status'] == 'ok']
    assert locks(lab, hosts) == dict((h, False) for h in hosts)

    # a fleet run: the host is left out, the others measured
    started = time.monotonic()
    res = run_playbook('playbooks/benchmark.yml', inv,
                       dict(common, perflab_run_id='sl37-fleet', perflab_fleet={'schedule': 'mesh'}),
                       env={'PERFLAB_RESULTS_DIR': str(results)}, timeout=1200)
    print('fleet with a host left out: %.0f s' % (time.monotonic() - started))
    assert res.rc == 2, res.stdout[-5000:]
    assert res.stats[bad]['failures'] == 1, res.stats
    assert all(res.stats[h]['failures'] == 0 and not res.stats[h]['unreachable'] for h in hosts if h != bad), res.stats
    reason = ('%s left out of the fleet: the study\'s preflight refused it at "Refuse tool folders this host does not '
              'have": %s: benchmark_tool_paths names %s' % (bad, bad, MISSING))
    recs = records(results / 'sl37-fleet.jsonl')
    ok = [r for r in recs if r['status'] == 'ok']
    skipped = [r for r in recs if r['status'] == 'skipped']
    live = [h for h in hosts if h != bad]
    assert sorted((r['client']['name'], r['server']['name']) for r in ok) == \
        sorted((a, b) for a in live for b in live if a != b), [(r['client']['name'], r['server']['name'], r['error']) for r in recs]
    assert len(skipped) == 6 and all(r['error'].startswith(reason) for r in skipped), skipped[0]['error']
    # its lock given back when it was left out, the others' at the end of the run
    assert locks(lab, hosts) == dict((h, False) for h in hosts)

    rows = matrix_rows(results / 'sl37-fleet.xlsx')
    found = verdicts(rows, hosts)
    assert found[bad][3] == 'left out' and found[bad][4].startswith(reason[len(bad + ' left out of the fleet: '):])
    assert all(found[h][3] == 'healthy' for h in live), found
    text = (results / 'sl37-fleet.txt').read_text()
    assert '%s: left out: the study\'s preflight refused it' % bad in text, text[-3000:]


def slice_inventory(inventory, mine):
    """The lab's inventory as AWX gives a slice's job: only the slice's hosts, in every group."""
    inv = json.loads(json.dumps(inventory))

    def prune(group):
        if isinstance(group.get('hosts'), dict):
            group['hosts'] = dict((h, v) for h, v in group['hosts'].items() if h in mine)
        for child in (group.get('children') or {}).values():
            if isinstance(child, dict):
                prune(child)
    prune(inv['all'])
    return inv


@pytest.mark.long
def test_two_slices_through_the_runners_remote_path_merge_into_one_matrix(lab, tmp_path):
    hosts = sorted(lab.hostvars())
    inventory = yaml.safe_load(lab.inventory.read_text())
    # the fleet's variables are the inventory's (every slice's job gets the same, as AWX gives them)
    inventory['all'].setdefault('vars', {})['perflab_fleet'] = {
        'schedule': 'mesh', 'slice_count': 2, 'slice_scope': 'inside', 'hosts': hosts}
    results = tmp_path / 'exposed-results'  # the host path exposed to every job (docs/awx.md)
    results.mkdir()
    suite = results / 'fleet.yml'
    suite.write_text(yaml.safe_dump(SUITE))
    extravars = {'perflab_suite': str(suite), 'perflab_firewall_mode': 'unmanaged', 'perflab_profile': 'stock'}
    slices = dict((n, fleet.slice_members(hosts, n, 2)) for n in (1, 2))
    assert slices == {1: [hosts[0], hosts[2]], 2: [hosts[1], hosts[3]]}
    ran, threads = {}, []
    started = time.monotonic()
    for number, mine in slices.items():
        ident = 'slice%d' % number
        inv = tmp_path / (ident + '-hosts.yml')
        inv.write_text(yaml.safe_dump(slice_inventory(inventory, mine)))
        pdd = make_private_data_dir(tmp_path / ident, inv, results_dir=results, extravars=extravars)

        def job(pdd=pdd, ident=ident):
            ran[ident] = runner_pipeline(pdd, tmp_path / (ident + '-worker'), tmp_path / (ident + '-controller'),
                                         'playbooks/benchmark.yml', ident, timeout=900)
        threads.append(threading.Thread(target=job))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    print('two slices at once: %.0f s' % (time.monotonic() - started))

    artifacts, run_ids = {}, {}
    for number in (1, 2):
        ident = 'slice%d' % number
        adir = artifact_dir(tmp_path / (ident + '-controller'), ident)
        stdout = (adir / 'stdout').read_text() if (adir / 'stdout').exists() else ''
        assert (adir / 'status').read_text() == 'successful', '%s: %s\n%s' % (ident, ran[ident], stdout[-4000:])
        assert not (tmp_path / (ident + '-worker')).exists()  # the job's "container" is gone
        events = [json.loads(p.read_text()) for p in (adir / 'job_events').glob('*.json')]
        published = stats_event(events)['artifact_data']
        run_ids[number] = published['perflab_fleet_slice_%d_of_2' % number]
        assert run_ids[number] == published['perflab_run_id']
        # the controller merges a sliced job's artifacts into one mapping: the last slice's wins, but for
        # the names of their own
        artifacts.update(published)
    assert set(artifacts) >= {'perflab_fleet_slice_1_of_2', 'perflab_fleet_slice_2_of_2'}
    assert artifacts['perflab_run_ids'] == [run_ids[2]]  # what the merge would lose without those names

    # each record says its slice; each slice measured its own pairs only
    for number, mine in slices.items():
        recs = records(results / (run_ids[number] + '.jsonl'))
        assert recs and all(r['fleet_slice'] == {'number': number, 'count': 2, 'hosts': mine, 'scope': 'inside'}
                            for r in recs)
        assert sorted((r['client']['name'], r['server']['name']) for r in recs if r['status'] == 'ok') == \
            sorted((a, b) for a in mine for b in mine if a != b)

    # the report node, through the same path, with what the controller hands it
    started = time.monotonic()
    pdd = make_private_data_dir(tmp_path / 'report', extravars=dict(
        artifacts, perflab_report_dest=str(results / 'fleet.xlsx')), results_dir=results)
    ran = runner_pipeline(pdd, tmp_path / 'report-worker', tmp_path / 'report-controller', 'playbooks/report.yml',
                          'report', timeout=600)
    print('report node: %.0f s' % (time.monotonic() - started))
    adir = artifact_dir(tmp_path / 'report-controller', 'report')
    stdout = (adir / 'stdout').read_text() if (adir / 'stdout').exists() else ''
    assert (adir / 'status').read_text() == 'successful', '%s\n%s' % (ran, stdout[-4000:])

    rows = matrix_rows(results / 'fleet.xlsx')
    assert rows[2][1:5] == hosts, rows[2]
    grid = dict((row[0], dict(zip(hosts, row[1:5]))) for row in rows[3:7])
    for sender in hosts:
        for receiver in hosts:
            cell = grid[sender][receiver]
            if sender == receiver:
                assert cell is None
            elif (sender in slices[1]) == (receiver in slices[1]):
                assert isinstance(cell, float) and cell > 50, (sender, receiver, cell)   # measured, inside a slice
            else:
                one, two = (1, 2) if sender in slices[1] else (2, 1)
                assert cell == 'not measured (slices %d and %d)' % (one, two), (sender, receiver, cell)
    assert any(row and str(row[0]).startswith('not measured: the two hosts were in different AWX job slices')
               for row in rows), rows
    assert all(v[3] == 'healthy' for v in verdicts(rows, hosts).values()), rows
