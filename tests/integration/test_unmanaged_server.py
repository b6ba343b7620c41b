# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A server we do not manage, on the namespace lab (lab "unm36"): the OSv seed's appliance, in the ratio form.

The OSv study's flow (suite osv-netperf, the server side under test) runs twice: once against lab1 as a
managed Linux server (its baseline), then against an iperf3 server and a netserver started by hand in lab1
(over SSH, before the run), with lab1 taken out of the inventory's SSH: the inventory lists it only as the
unmanaged host `osv` with its data address (group perflab_unmanaged). The run starts, stops and opens
nothing there; its records and the Systems sheet say what could not be known; the merged workbook shows OSv
as a ratio of Linux. A test whose server the inventory does not say listens is refused before any test.
"""
from __future__ import annotations

import json

import pytest
import yaml

from conftest import run_playbook

pytestmark = pytest.mark.lab
NAME, MGMT, DATA = 'unm36', '10.249.0.0/24', '10.249.1.0/24'
# 2 s tests, netperf's four and iperf3 with one stream: the OSv suite's tests, short
SHORT = {'perflab_suite': 'osv-netperf', 'perflab_system_under_test': 'servers', 'perflab_duration': 2,
         'perflab_repetitions': 1, 'benchmark_tools': ['iperf3', 'netperf'], 'benchmark_parallel': [1],
         'tools_list': ['iperf3', 'netperf']}


@pytest.fixture(scope='module')
def lab(lab_factory):
    return lab_factory(NAME, hosts=2, mgmt=MGMT, data=DATA)


def records(path, schema='perflab.result/2'):
    return [r for r in (json.loads(line) for line in path.read_text().splitlines() if line.strip())
            if r.get('schema') == schema]


def start(lab, argv):
    """Start a server in lab1 by hand (over SSH, outside any study), in the background; its pid."""
    script = 'nohup "$@" >/dev/null 2>&1 & echo $!'
    pid = lab.ssh('lab1', ['sh', '-c', script, 'sh'] + argv, check=True).stdout.strip()
    assert pid.isdigit(), pid
    return pid


def unmanaged_inventory(lab, tmp_path, servers):
    """The lab's inventory without lab1's SSH: lab1 is only `osv`, a data address with servers listening."""
    inv = yaml.safe_load(lab.inventory.read_text())
    children = inv['all']['children']
    address = children['perflab_lab']['hosts'].pop('lab1')['perflab_data_address']
    del children['perflab_servers']
    children['perflab_clients']['hosts']['lab2']['perflab_peer'] = 'osv'
    children['perflab_unmanaged'] = {'hosts': {'osv': {
        'perflab_data_address': address, 'perflab_config_label': 'OSv', 'perflab_unmanaged_servers': servers}}}
    path = tmp_path / 'unmanaged.yml'
    path.write_text(yaml.safe_dump(inv))
    return path, address


def test_the_osv_flow_against_a_server_we_do_not_manage(lab, tmp_path):
    openpyxl = pytest.importorskip('openpyxl')
    results = tmp_path / 'results'
    env = {'PERFLAB_RESULTS_DIR': str(results)}
    base = dict(SHORT, perflab_results_dir=str(results), perflab_config_label='Linux')
    linux = run_playbook('playbooks/benchmark.yml', lab.inventory, dict(base, perflab_run_id='unm36-linux'), env=env)
    assert linux.rc == 0, linux.stdout[-4000:] + linux.stderr[-2000:]

    # the "appliance": servers started by hand in lab1, then no SSH to it in the study's inventory
    inv, address = unmanaged_inventory(lab, tmp_path, {'netperf': 12865})
    pids = [start(lab, ['iperf3', '-s', '-B', address, '-p', '5201']),
            start(lab, ['netserver', '-D', '-L', address + ',inet', '-p', '12865'])]
    try:
        # iperf3 listens, but the inventory does not say so: refused before any test, naming what to declare
        refused = run_playbook('playbooks/benchmark.yml', inv, dict(base, perflab_run_id='unm36-refused'), env=env)
        assert refused.rc != 0
        assert ('need a iperf3 server on osv (%s, not managed), and the inventory does not say one listens there'
                % address) in refused.stdout, refused.stdout[-3000:]
        assert not (results / 'unm36-refused.jsonl').exists() or not records(results / 'unm36-refused.jsonl')

        inv, address = unmanaged_inventory(lab, tmp_path, {'netperf': 12865, 'iperf3': 5201})
        # no label given: the unmanaged host's own (perflab_config_label OSv in the inventory)
        osv = run_playbook('playbooks/benchmark.yml', inv, dict(SHORT, perflab_results_dir=str(results),
                                                                perflab_run_id='unm36-osv'), env=env)
        assert osv.rc == 0, osv.stdout[-4000:] + osv.stderr[-2000:]
        # our servers were neither started nor stopped there: the ones started by hand still listen
        listening = lab.ssh('lab1', ['ss', '-ltn'], check=True).stdout
        assert ':5201 ' in listening and ':12865 ' in listening, listening
    finally:
        for pid in pids:   # the servers this test started, by their pids
            lab.ssh('lab1', ['kill', pid])

    recs = records(results / 'unm36-osv.jsonl')
    assert recs and all(r['status'] == 'ok' for r in recs), [(r['test_id'], r['error']) for r in recs]
    assert {r['config'] for r in recs} == {'OSv'}
    assert all((r['client']['name'], r['server']['name'], r['server']['address']) == ('lab2', 'osv', address)
               for r in recs)
    systems = records(results / 'unm36-osv.jsonl', 'perflab.system/1')
    osv_system = [s for s in systems if s['host'] == 'osv']
    assert len(osv_system) == 1 and osv_system[0]['unmanaged'] is True
    assert set(osv_system[0]['table'].values()) == {'unknown: unmanaged server'}

    # the OSv seed's table: OSv as a ratio of Linux
    report = run_playbook('playbooks/report.yml', None, {
        'perflab_report_src': [str(results / 'unm36-linux.jsonl'), str(results / 'unm36-osv.jsonl')],
        'perflab_report_dest': str(results / 'osv.xlsx'), 'perflab_report_form': 'ratio',
        'perflab_report_baseline': 'Linux', 'perflab_report_systems': 'all'}, env=env)
    assert report.rc == 0, report.stdout[-3000:]
    book = openpyxl.load_workbook(str(results / 'osv.xlsx'))
    summary = [[c.value for c in row] for row in book['Summary'].iter_rows()]
    column = summary[0].index('OSv vs Linux ratio (%)')
    rows = [row for row in summary[1:] if row[1] and '/' in str(row[1])]
    for row in rows:
        linux_mean, osv_mean = row[summary[0].index('Linux')], row[summary[0].index('OSv')]
        assert row[column] == pytest.approx(osv_mean / linux_mean * 100.0), row
    sheet = [[c.value for c in row] for row in book['Systems'].iter_rows()]
    osv_row = [row for row in sheet if row[1] == 'osv']
    assert osv_row and osv_row[0][4:14] == ['unknown: unmanaged server'] * 10
