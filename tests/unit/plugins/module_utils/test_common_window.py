# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""The processes' common window on real output of 4 processes run at once (one started 0.5 s late).

fixtures/iperf3/3.12/processes4 and fixtures/netperf/2.7.0/processes4: each process' stdout and its wall
start and end (times.txt), captured by the capture.sh beside them on loopback.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os

import pytest

from ansible_collections.perflab.network.plugins.module_utils.core import common_window as cw
from ansible_collections.perflab.network.plugins.module_utils.tools.iperf3 import parse as parse_iperf3
from ansible_collections.perflab.network.plugins.module_utils.tools.netperf import parse as parse_netperf
from ansible_collections.perflab.network.plugins.module_utils.core import record as rec
from ansible_collections.perflab.network.plugins.module_utils.host.process import ProcessResult
from ansible_collections.perflab.network.plugins.module_utils.core.units import iso_utc

FIXTURES = os.path.join(os.path.dirname(__file__), '..', '..', 'fixtures')


def _captured(tool, version, name_of, parse):
    folder = os.path.join(FIXTURES, tool, version, 'processes4')
    with open(os.path.join(folder, 'times.txt')) as handle:
        times = dict((line.split()[0], (float(line.split()[1]), float(line.split()[2]))) for line in handle)
    parsed, procs = [], []
    for index in range(4):
        with open(os.path.join(folder, name_of % index)) as handle:
            stdout = handle.read()
        started, ended = times['p%d' % index]
        parsed.append(parse(stdout))
        procs.append(ProcessResult(['x'], rc=0, stdout=stdout, started_at=iso_utc(started), ended_at=iso_utc(ended)))
    return parsed, procs


def test_iperf3_four_processes_common_window_is_inside_every_process_window():
    parsed, procs = _captured('iperf3', '3.12', 'p%d.json', parse_iperf3.parse)
    window = cw.of_processes(parsed, procs, 'throughput_mbps')
    # a forward test's client samples are its own side's, the sender's
    assert window['metric'] == 'throughput_sent_mbps'
    # the 4th process started ~0.5 s late: the common window starts when it did and ends with the first to end
    starts = [w[0] for w in window['process_windows']]
    ends = [w[1] for w in window['process_windows']]
    assert window['start_s'] == max(starts) and window['end_s'] == min(ends)
    assert 0.4 < max(starts) - min(starts) < 0.7
    assert 3.3 < window['seconds'] < 3.6
    # the sum of the processes' own averages counts the seconds a process had (nearly) alone: process 2's
    # first second, 8.7 Gbit/s, before the late one joined
    own = sum(result['metrics']['throughput_sent_mbps'] for result in parsed)
    assert window['sum_mbps'] < own - 1000
    assert window['processes_mbps'][2] < parsed[2]['metrics']['throughput_sent_mbps'] - 500
    assert window['sum_mbps'] == pytest.approx(sum(window['processes_mbps']), abs=0.01)
    assert window['resolution_s'] == pytest.approx(1.0, abs=0.05)


def test_netperf_four_processes_anchor_from_interim_timestamps():
    parsed, procs = _captured('netperf', '2.7.0', 'p%d.stdout',
                              lambda out: parse_netperf.parse_result('tcp_stream', out))
    assert parsed[0]['anchor'] == pytest.approx(1796296504.717 - 5.003)
    window = cw.of_processes(parsed, procs, 'throughput_mbps')
    # netperf's interim rates are the sender's
    assert window['metric'] == 'throughput_sent_mbps'
    assert 0.45 < window['start_s'] < 0.6
    # Debian's netperf printed one interim line for the whole test: the window cannot be placed finer
    assert window['resolution_s'] == pytest.approx(5.0, abs=0.01)
    # and an even rate within it: the rates over the common window are the processes' own
    assert window['processes_mbps'] == [result['intervals'][0]['throughput_sent_mbps'] for result in parsed]


def test_no_common_window_without_overlap_or_samples():
    one = {'intervals': [{'t': 1.0, 'throughput_mbps': 10.0}], 'anchor': 100.0}
    two = {'intervals': [{'t': 1.0, 'throughput_mbps': 10.0}], 'anchor': 102.0}
    assert cw.common_window([one, two], 'throughput_mbps') is None
    assert cw.common_window([one, {'intervals': [], 'anchor': 100.0}], 'throughput_mbps') is None
    assert cw.interval_metric([[{'t': 1.0, 'throughput_mbps': 1.0}], []]) is None
    assert cw.of_processes([{'intervals': [{'t': 1, 'transactions_per_s': 5}]}] * 2, [ProcessResult(['x'])] * 2) is None


def test_partial_overlap_weights_the_interval_by_its_share():
    # process a: 0-1 s at 100, 1-2 s at 300; process b from 0.5 s: 0.5-1.5 at 200, 1.5-2.5 at 200
    a = {'intervals': [{'t': 1.0, 'throughput_mbps': 100.0}, {'t': 2.0, 'throughput_mbps': 300.0}], 'anchor': 10.0}
    b = {'intervals': [{'t': 1.0, 'throughput_mbps': 200.0}, {'t': 2.0, 'throughput_mbps': 200.0}], 'anchor': 10.5}
    window = cw.common_window([a, b], 'throughput_mbps')
    assert (window['start_s'], window['end_s'], window['seconds']) == (0.5, 2.0, 1.5)
    assert window['processes_mbps'] == [pytest.approx((100 * 0.5 + 300 * 1.0) / 1.5, abs=0.001), 200.0]


def test_record_carries_both_sums_and_the_nic_over_the_window():
    record = rec.new_record({'server': '10.0.0.2', 'processes': 2}, 'netperf', 'tcp_stream', 'tcp',
                            'client_to_server', 'netperf/tcp_stream/processes=2/parallel=1')
    window = {'sum_mbps': 900.0, 'processes_mbps': [450.0, 450.0], 'seconds': 4.5}
    rec.set_common_window(record, window, {'rx_mbps': 1.0, 'tx_mbps': 950.0, 'rx_peak_mbps': 2.0,
                                           'tx_peak_mbps': 980.0, 'window': [0.5, 5.0], 'samples': [1]})
    assert record['metrics']['throughput_common_mbps']['value'] == 900.0
    assert record['common_window']['nic'] == {'rx_mbps': 1.0, 'tx_mbps': 950.0, 'rx_peak_mbps': 2.0,
                                              'tx_peak_mbps': 980.0, 'window': [0.5, 5.0]}
    assert cw.sampler_window({'start_epoch': 100.5, 'end_epoch': 104.0, 'last_end_epoch': 105.0}, 20.0) == (
        15.5, 19.0)


def _parallel_records():
    """Records of the parallel-netperf study's two tests, one and 4 processes, from the real iperf3 capture (the
    record builder and common_window as the runner calls them), on a link of 10 Gbit/s, NIC counters beside."""
    parsed, procs = _captured('iperf3', '3.12', 'p%d.json', parse_iperf3.parse)
    params = {'server': '10.0.0.2', 'config': 'Linux', 'run_id': 'R', 'link_mbps': 10000}
    records = []
    for processes in (1, 4):
        record = rec.new_record(dict(params, processes=processes), 'iperf3', 'tcp_stream', 'tcp', 'client_to_server',
                                'iperf3/tcp_stream/processes=%d/parallel=1' % processes, tool_version='3.12')
        record['client']['link_mbps'] = 10000.0
        rec.set_primary(record, 'throughput_sent_mbps')
        used = parsed[:processes]
        if processes > 1:
            for index, result in enumerate(used):
                rec.add_process(record, 15201 + index, {'throughput_sent_mbps': rec.metric(
                    result['metrics']['throughput_sent_mbps'], 'Mbit/s', True)})
        rec.add_metrics(record, rec.combine_metrics([result['metrics'] for result in used]))
        nic = {'interface': 'eth1', 'samples': [], 'rx_mbps': 10.0, 'tx_mbps': 9300.0, 'rx_peak_mbps': 20.0,
               'tx_peak_mbps': 9800.0, 'window': [0, 4]}
        rec.add_nic(record, nic)
        if processes > 1:
            rec.set_common_window(record, cw.of_processes(used, procs[:processes], 'throughput_sent_mbps'), nic)
        rec.finish_record(record, procs[0], 'ok')
        records.append(record)
    return records, parsed


def test_seed_004_table_in_the_workbook_and_the_text_view(tmp_path):
    from ansible_collections.perflab.network.plugins.module_utils.report import parallel, store, tables, text
    from ansible_collections.perflab.network.plugins.module_utils.report import workbook
    openpyxl = pytest.importorskip('openpyxl')
    records, parsed = _parallel_records()
    report = tables.Report(store.RecordList(records))
    rows = parallel.rows(report)
    assert [row[4] for row in rows] == [1, 4]
    four = dict(zip(parallel.COLUMNS, rows[1]))
    own = sum(result['metrics']['throughput_sent_mbps'] for result in parsed)
    assert four['Each process (Mbit/s)'] == ' / '.join('%.1f' % r['metrics']['throughput_sent_mbps'] for r in parsed)
    assert four["Sum of the processes' own averages (Mbit/s)"] == pytest.approx(own)
    assert four['Sum % of link'] == pytest.approx(own / 100.0)
    common = records[1]['common_window']['sum_mbps']
    assert four['Sum over the common window (Mbit/s)'] == pytest.approx(common) and common < own
    assert four['Common sum % of link'] == pytest.approx(common / 100.0)
    assert (four['NIC (Mbit/s)'], four['NIC % of link']) == (9300.0, 93.0)
    assert (four['NIC 1-s peak (Mbit/s)'], four['NIC peak % of link']) == (9800.0, 98.0)
    # the sum of the own averages exceeds the link and the NIC; the common window's does not exceed the NIC's peak
    assert own > 10000 > four['NIC (Mbit/s)']

    path = str(tmp_path / 'p.xlsx')
    workbook.write_workbook(report, path)
    sheet = openpyxl.load_workbook(path)['Parallel']
    values = [[cell.value for cell in row] for row in sheet.iter_rows()]
    assert values[0] == list(parallel.COLUMNS)
    assert values[2][5] == four['Each process (Mbit/s)'] and values[2][13] == 9800.0
    assert values[2][9] == pytest.approx(common)

    view = text.render(report)
    assert 'Processes and the link (the parallel-netperf table; Mbit/s, % of the link)' in view
    assert 'sum over the common window (%.1f s): %.1f (%.1f %% of link)' % (
        records[1]['common_window']['seconds'], common, common / 100.0) in view
    assert 'NIC counters: 9300.0 (93.0 % of link), 1-s peak 9800.0 (98.0 % of link)' in view
    assert '| Each process (Mbit/s) |' in text.render_markdown(report)


def test_no_parallel_table_without_processes_or_nic():
    from ansible_collections.perflab.network.plugins.module_utils.report import parallel, store, tables, text
    records, _parsed = _parallel_records()
    for record in records:
        record['processes'], record['nic'] = None, None
    report = tables.Report(store.RecordList(records))
    assert parallel.rows(report) == [] and 'Processes and the link' not in text.render(report)


def test_no_parallel_table_when_no_test_ran_several_processes():
    from ansible_collections.perflab.network.plugins.module_utils.report import parallel, store, tables
    records, _parsed = _parallel_records()
    assert parallel.rows(tables.Report(store.RecordList(records[:1]))) == []
