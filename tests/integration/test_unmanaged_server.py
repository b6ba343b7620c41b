# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A server we do not manage, on the namespace lab (lab "osv37"): the OSv study itself against the seed's appliance.

The OSv study playbook (`playbooks/studies/osv-netperf.yml`, as a user runs it) runs twice: once against lab1 as a
managed Linux server (its baseline), then against an iperf3 server and a netserver started by hand in lab1 (over
SSH, before the run), then lab1 without SSH (its namespace rejects TCP port 22 for the study's whole run) and out
of the inventory: the inventory lists it only as the unmanaged host `osv` with its data address (group
perflab_unmanaged). The run starts, stops and opens nothing there; the study's
second part (UDP_STREAM sent from the system under test: netperf's client on the appliance) is recorded skipped with
the reason; the records and the Systems sheet say what could not be known; the study's own workbook shows OSv as
a ratio of Linux, per test (seed 003's table). A test whose server the inventory does not say listens is refused
before any test. The study's text view is checked against its workbook.

On the same lab, the parallel-netperf study gives seed 004's table out of its own workbook, checked against its records.
"""
from __future__ import annotations

import json
import subprocess

import pytest
import yaml

from conftest import run_playbook

from ansible_collections.perflab.network.plugins.module_utils.report import text

pytestmark = pytest.mark.lab
NAME, MGMT, DATA = 'osv37', '10.150.0.0/24', '10.150.1.0/24'
STUDY = 'playbooks/studies/osv-netperf.yml'
# 2 s tests, netperf's four and iperf3 with one stream (the first part), UDP_STREAM (the second): the study's
# tests, short
SHORT = {'perflab_duration': 2, 'perflab_repetitions': 1, 'benchmark_tools': ['iperf3', 'netperf'],
         'benchmark_parallel': [1], 'tools_list': ['iperf3', 'netperf']}
UDP_TITLE = 'UDP stream, 1400-byte messages, from the system under test'


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


def no_ssh(lab, refuse):
    """lab1 without SSH (an nftables table of this test in its namespace rejects TCP port 22), or with it again."""
    script = ('table inet %s_nossh {\n chain input {\n type filter hook input priority -10;\n'
              ' tcp dport 22 reject with tcp reset\n }\n}\n' % NAME) if refuse else 'delete table inet %s_nossh\n' % NAME
    subprocess.run(['ip', 'netns', 'exec', NAME + '-lab1', 'nft', '-f', '-'], input=script, text=True, check=refuse,
                   capture_output=True)


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


def test_the_osv_study_against_a_server_we_do_not_manage(lab, tmp_path):
    openpyxl = pytest.importorskip('openpyxl')
    results = tmp_path / 'results'
    env = {'PERFLAB_RESULTS_DIR': str(results)}
    base = dict(SHORT, perflab_results_dir=str(results))
    linux = run_playbook(STUDY, lab.inventory, dict(base, perflab_config_label='Linux', perflab_run_id='osv37-linux'),
                         env=env)
    assert linux.rc == 0, linux.stdout[-4000:] + linux.stderr[-2000:]
    linux_recs = records(results / 'osv37-linux.jsonl')
    # both parts ran against the managed server: the reversed one with lab1 sending
    assert {(r['test'], r['client']['name'], r['status']) for r in linux_recs if r['tool'] == 'netperf'} == {
        ('tcp_stream', 'lab2', 'ok'), ('tcp_maerts', 'lab2', 'ok'), ('tcp_rr', 'lab2', 'ok'), ('udp_rr', 'lab2', 'ok'),
        ('udp_stream', 'lab1', 'ok')}

    # the "appliance": servers started by hand in lab1, then no SSH to it in the study's inventory
    inv, address = unmanaged_inventory(lab, tmp_path, {'netperf': 12865})
    pids = [start(lab, ['iperf3', '-s', '-B', address, '-p', '5201']),
            start(lab, ['netserver', '-D', '-L', address + ',inet', '-p', '12865'])]
    study_runs = {'perflab_study_runs': ['osv37-linux'], 'perflab_report_baseline': 'Linux'}
    no_ssh(lab, True)
    try:
        # the appliance has no SSH: lab1 refuses it for the whole study
        assert lab.ssh('lab1', ['true'], timeout=30).returncode == 255
        # iperf3 listens, but the inventory does not say so: refused before any test, naming what to declare
        refused = run_playbook(STUDY, inv, dict(base, perflab_run_id='osv37-refused', **study_runs), env=env)
        assert refused.rc != 0
        assert ('need a iperf3 server on osv (%s, not managed), and the inventory does not say one listens there'
                % address) in refused.stdout, refused.stdout[-3000:]
        assert not (results / 'osv37-refused.jsonl').exists() or not records(results / 'osv37-refused.jsonl')

        inv, address = unmanaged_inventory(lab, tmp_path, {'netperf': 12865, 'iperf3': 5201})
        # no label given: the unmanaged host's own (perflab_config_label OSv in the inventory)
        osv = run_playbook(STUDY, inv, dict(base, perflab_run_id='osv37-osv', **study_runs), env=env)
        assert osv.rc == 0, osv.stdout[-4000:] + osv.stderr[-2000:]
        # our servers were neither started nor stopped there: the ones started by hand still listen
        listening = subprocess.run(['ip', 'netns', 'exec', NAME + '-lab1', 'ss', '-ltn'], capture_output=True,
                                   text=True, check=True).stdout
        assert ':5201 ' in listening and ':12865 ' in listening, listening
    finally:
        no_ssh(lab, False)
        for pid in pids:   # the servers this test started, by their pids
            lab.ssh('lab1', ['kill', pid])

    recs = records(results / 'osv37-osv.jsonl')
    assert {r['config'] for r in recs} == {'OSv'}
    ran = [r for r in recs if r['suite'] == 'osv-netperf']
    assert sorted(r['test_id'] for r in ran) == sorted(r['test_id'] for r in linux_recs if r['suite'] == 'osv-netperf')
    assert all(r['status'] == 'ok' for r in ran), [(r['test_id'], r['error']) for r in ran]
    assert all((r['client']['name'], r['server']['name'], r['server']['address']) == ('lab2', 'osv', address)
               for r in ran)
    # the second part needs netperf's client on the appliance: planned, recorded skipped, saying what and why
    udp = [r for r in recs if r['suite'] == 'osv-netperf-udp']
    assert [(r['test'], r['status'], r['client']['name'], r['server']['name']) for r in udp] == [
        ('udp_stream', 'skipped', 'osv', 'lab2')]
    assert udp[0]['error'] == (
        'not run: its netperf client would run on osv (pair osv->lab2), which we do not manage (perflab_unmanaged): '
        'there is no SSH to it, so nothing can be started there; the tests whose client runs on a managed host measure it')
    assert 'skipped netperf/udp_stream' in osv.stdout and 'which we do not manage' in osv.stdout
    systems = records(results / 'osv37-osv.jsonl', 'perflab.system/1')
    osv_system = [s for s in systems if s['host'] == 'osv']
    assert len(osv_system) == 1 and osv_system[0]['unmanaged'] is True
    assert set(osv_system[0]['table'].values()) == {'unknown: unmanaged server'}

    check_the_study_workbook_and_its_text_view(openpyxl, results, ran, udp)


def check_the_study_workbook_and_its_text_view(openpyxl, results, ran, udp):
    """The study's own workbook (both runs merged): seed 003's table, OSv as a ratio of Linux per test, the skipped
    part, the Systems sheet; and the study's text view beside it, checked against it."""
    book = openpyxl.load_workbook(str(results / 'osv-netperf.xlsx'))
    summary = [[c.value for c in row] for row in book['Summary'].iter_rows()]
    head = summary[0]
    column = head.index('OSv vs Linux ratio (%)')
    rows = dict((row[1], row) for row in summary[1:] if row[1] and '/' in str(row[1]))
    measured = set(r['test_id'] for r in ran)
    assert measured <= set(rows), (measured, sorted(rows))
    for test_id in measured:
        row = rows[test_id]
        assert row[column] == pytest.approx(row[head.index('OSv')] / row[head.index('Linux')] * 100.0), row
    # the skipped part: Linux measured it, OSv's cell says skipped (its count too), and there is no ratio
    udp_row = rows[udp[0]['test_id']]
    assert isinstance(udp_row[head.index('Linux')], float) and udp_row[head.index('OSv')] == 'skipped'
    assert udp_row[column] is None and udp_row[head.index('OSv skipped')] == 1
    sheet = [[c.value for c in row] for row in book['Systems'].iter_rows()]
    osv_row = [row for row in sheet if row[1] == 'osv']
    assert osv_row and osv_row[0][4:14] == ['unknown: unmanaged server'] * 10

    # the study's text view beside its workbook, checked against it: each test's title, unit line, and per
    # configuration its mean (the test sheet's), OSv's ratio of Linux (the Summary's), the skipped part's reason
    view = (results / 'osv-netperf.txt').read_text()
    checked = 0
    for name in book.sheetnames[1:]:
        sheet_rows = [[c.value for c in row] for row in book[name].iter_rows()]
        title, units = sheet_rows[0][0], sheet_rows[1][0]
        test_id = [r for r in rows.values() if r[0] == title]
        if not test_id:
            continue    # Systems, Intervals, Raw
        block = view.split('\n%s\n%s\n' % (title, units), 1)[1].split('\n\n', 1)[0].splitlines()
        header = next(row for row in sheet_rows if row and row[0] == 'Configuration')
        for row in sheet_rows[sheet_rows.index(header) + 1:]:
            if row[0] not in ('Linux', 'OSv'):
                break
            line = [text_line for text_line in block if text_line.startswith('  %s .' % row[0])]
            assert len(line) == 1, (title, row[0], block)
            if row[1] is None:    # the skipped part: the reason, as much of it as the line shows
                assert line[0].endswith('SKIPPED (1 of 1 runs): ' + udp[0]['error'][:120]), line
                continue
            assert ' %s |#' % text.format_value(row[1]) in line[0], (line, row)
            if row[0] == 'OSv':
                assert '%.1f%% of Linux' % test_id[0][column] in line[0], (line, test_id[0])
            checked += 1
    assert checked == 2 * len(measured) + 1, checked


@pytest.mark.long
def test_the_parallel_study_gives_seed_004s_table_in_its_workbook(lab, tmp_path):
    """Seed 004's table out of the parallel-netperf study's own workbook (its Parallel sheet and the text view's
    last block), checked against the records the study wrote: each process' rate, their sum, the sum over their
    common window, the NIC counters and their one-second peak, each as a share of the link the record names."""
    openpyxl = pytest.importorskip('openpyxl')
    results = tmp_path / 'results'
    res = run_playbook('playbooks/studies/parallel-netperf.yml', lab.inventory, {
        'perflab_duration': 2, 'perflab_repetitions': 1, 'perflab_run_id': 'osv37-parallel',
        'perflab_results_dir': str(results), 'tools_list': ['netperf']}, env={'PERFLAB_RESULTS_DIR': str(results)})
    assert res.rc == 0, res.stdout[-4000:] + res.stderr[-2000:]
    recs = records(results / 'osv37-parallel.jsonl')
    assert [(r['status'], len(r['processes'] or [])) for r in recs] == [('ok', 0), ('ok', 4)], [
        (r['test_id'], r['status'], r['error']) for r in recs]
    sheet = [[c.value for c in row] for row in openpyxl.load_workbook(str(results / 'osv37-parallel.xlsx'))['Parallel'].iter_rows()]
    head = sheet[0]
    table = dict((row[head.index('Test ID')], dict(zip(head, row))) for row in sheet[1:] if row[1] and '/' in row[1])
    view = (results / 'osv37-parallel.txt').read_text().split('\nProcesses and the link', 1)[1]

    def share(value, link):
        return pytest.approx(value / link * 100.0)

    for rec in recs:
        row, link = table[rec['test_id']], rec['client']['link_mbps']
        own, nic = rec['metrics'][rec['primary']]['value'], rec['nic']
        assert link > 0 and row['Link (Mbit/s)'] == link and row['Runs'] == 1
        assert row["Sum of the processes' own averages (Mbit/s)"] == pytest.approx(own)
        assert row['Sum % of link'] == share(own, link)
        # netperf TCP_STREAM: the client sends, so its NIC's transmit counters
        assert (row['NIC (Mbit/s)'], row['NIC 1-s peak (Mbit/s)']) == (
            pytest.approx(nic['tx_mbps']), pytest.approx(nic['tx_peak_mbps']))
        assert row['NIC % of link'] == share(nic['tx_mbps'], link)
        assert row['NIC peak % of link'] == share(nic['tx_peak_mbps'], link)
        assert 'NIC counters: %.1f (%.1f %% of link), 1-s peak %.1f (%.1f %% of link)' % (
            nic['tx_mbps'], nic['tx_mbps'] / link * 100.0, nic['tx_peak_mbps'], nic['tx_peak_mbps'] / link * 100.0) in view
        if rec['processes']:
            each = ['%.1f' % p['metrics'][rec['primary']]['value'] for p in rec['processes']]
            assert row['Processes'] == 4 and row['Each process (Mbit/s)'] == ' / '.join(each)
            window = rec['common_window']
            assert row['Sum over the common window (Mbit/s)'] == pytest.approx(window['sum_mbps'])
            assert row['Common sum % of link'] == share(window['sum_mbps'], link)
            assert 'each process: %s' % ' / '.join(each) in view
            assert 'sum over the common window (%.1f s): %.1f (%.1f %% of link)' % (
                window['seconds'], window['sum_mbps'], window['sum_mbps'] / link * 100.0) in view
