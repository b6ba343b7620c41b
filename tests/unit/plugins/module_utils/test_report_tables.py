# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""The report's tables, the text summary and the CSV/JSON exports, checked
against values computed here straight from the (synthetic) record files."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import csv
import json
import os
import random
import re
import statistics

import pytest

from ansible_collections.perflab.network.plugins.module_utils.core.record import add_metric
from ansible_collections.perflab.network.plugins.module_utils.report import exports, stats, store, tables, text

FIXTURES = os.path.join(os.path.dirname(__file__), '..', '..', 'fixtures', 'results')
STOCK = os.path.join(FIXTURES, 'stock.jsonl')
TUNED = os.path.join(FIXTURES, 'tuned.jsonl')


def load(*paths):
    objects = []
    for path in paths:
        with open(path) as handle:
            objects.extend(json.loads(line) for line in handle if line.strip())
    return objects


def results_of(*paths):
    return [obj for obj in load(*paths) if obj['schema'] == 'perflab.result/1']


def primary_values(records, test_id, config):
    return [record['metrics'][record['primary']]['value'] for record in records
            if record['test_id'] == test_id and record['config'] == config and record['status'] == 'ok']


@pytest.fixture(scope='module')
def report():
    return tables.Report(store.ResultFiles([STOCK, TUNED]))


def test_columns_tests_and_counts(report):
    records = results_of(STOCK, TUNED)
    assert report.columns == ['Debian 12 stock', 'Debian 12 tuned']
    assert report.baseline == 'Debian 12 stock'
    assert [test.test_id for test in report.tests] == list(dict.fromkeys(r['test_id'] for r in records))
    assert report.records == len(records)
    assert report.ok == sum(1 for r in records if r['status'] == 'ok')
    assert report.failed == sum(1 for r in records if r['status'] == 'failed') == 3
    assert report.skipped == sum(1 for r in records if r['status'] == 'skipped') == 1
    assert report.run_ids == ['20261129T184000Z-ab12', '20261129T201500Z-cd34']
    assert report.problems == []


def test_seed_style_titles(report):
    titles = dict((test.test_id, test.title) for test in report.tests)
    assert titles['iperf3/tcp/parallel=5'] == 'iPerf 3.12 - Duration: 10 Seconds - Test: TCP - Parallel: 5'
    assert titles['iperf3/udp/parallel=5'] == 'iPerf 3.12 - Duration: 10 Seconds - Test: UDP - Parallel: 5'
    assert titles['netperf/TCP_RR'] == 'Netperf 2.7.0 - Duration: 10 Seconds - Test: TCP Request Response'
    assert titles['ethr/tcp_latency/threads=1'] == \
        'Ethr 1.0.0 - Duration: 10 Seconds - Protocol: TCP - Test: Latency - Threads: 1'
    assert titles['nuttcp/tcp'] == 'nuttcp 6.1.2 - Duration: 10 Seconds - Test: TCP Transfer'
    assert tables.default_title('iperf3', ['3.9', '3.12'], 'tcp_maerts', 'tcp', 'server_to_client', 1, 'x') == \
        'iPerf 3.9/3.12 - Test: TCP Reverse (Server To Client) - Parallel: 1'


@pytest.mark.parametrize('tool, version, test, protocol, direction, parallel, options, title, expected', [
    # the Phoronix tables' titles, every parameter kept (issue 17, point 9)
    ('iperf3', '3.12', 'udp_stream', 'udp', 'client_to_server', 5, {'test': 'udp_stream', 'bitrate': 1000.0}, None,
     'iPerf 3.12 - Duration: 60 Seconds - Test: UDP - 1000 Mbit Objective - Parallel: 5'),
    ('iperf3', '3.12', 'tcp_stream', 'tcp', 'client_to_server', 1,
     {'test': 'tcp_stream', 'window': '256K', 'mss': 1400, 'omit': 0}, None,
     'iPerf 3.12 - Duration: 60 Seconds - Test: TCP - Window: 256K - MSS: 1400 - Parallel: 1'),
    ('netperf', '2.7.0', 'tcp_stream', 'tcp', 'client_to_server', 1, {'test': 'tcp_stream'}, None,
     'Netperf 2.7.0 - Duration: 60 Seconds - Test: TCP Stream (Client To Server)'),
    ('nuttcp', '6.1.2', 'tcp_stream', 'tcp', 'client_to_server', 1, {'test': 'tcp_stream'}, None,
     'nuttcp 6.1.2 - Duration: 60 Seconds - Test: TCP Transfer'),
    ('ethr', '1.0.0', 'tcp_latency', 'tcp', 'bidirectional', 8, {'test': 'latency', 'protocol': 'tcp'}, None,
     'Ethr 1.0.0 - Duration: 60 Seconds - Protocol: TCP - Test: Latency - Threads: 8'),
    # HTTP is titled as such, not "TCP - Bandwidth"
    ('ethr', '1.0.0', 'http_bandwidth', 'tcp', 'client_to_server', 2, {'test': 'http'}, None,
     'Ethr 1.0.0 - Duration: 60 Seconds - Protocol: HTTP - Test: Bandwidth - Threads: 2'),
    # a suite's title names the test; the parameters stay
    ('iperf3', '3.12', 'tcp_stream', 'tcp', 'client_to_server', 20, {'test': 'tcp_stream'}, 'TCP (jumbo frames)',
     'iPerf 3.12 - Duration: 60 Seconds - Test: TCP (jumbo frames) - Parallel: 20'),
])
def test_registry_titles_keep_every_parameter(tool, version, test, protocol, direction, parallel, options, title,
                                              expected):
    assert tables.default_title(tool, [version], test, protocol, direction, parallel, 'x', duration=60.0,
                                options=options, title=title) == expected


def test_suite_title_reaches_the_report():
    records = [dict(r, title='TCP (jumbo frames)') if r['test_id'] == 'iperf3/tcp/parallel=5' else r
               for r in results_of(STOCK)]
    report = tables.Report(store.RecordList(records))
    titles = dict((test.test_id, test.title) for test in report.tests)
    assert titles['iperf3/tcp/parallel=5'] == 'iPerf 3.12 - Duration: 10 Seconds - Test: TCP (jumbo frames) - Parallel: 5'


def test_summary_means_changes_and_significance_equal_the_records(report):
    records = results_of(STOCK, TUNED)
    columns = report.summary_columns()
    assert columns[:7] == ['Test', 'Test ID', 'Metric', 'Unit', 'Better', 'Debian 12 stock', 'Debian 12 tuned']
    change_at = columns.index('Debian 12 tuned vs Debian 12 stock (%)')
    p_at = columns.index('Debian 12 tuned vs Debian 12 stock p')
    runs_at = columns.index('Debian 12 stock runs')
    failed_at = columns.index('Debian 12 stock failed')
    skipped_at = columns.index('Debian 12 stock skipped')
    assert columns[failed_at:] == ['Debian 12 stock failed', 'Debian 12 tuned failed',
                                   'Debian 12 stock skipped', 'Debian 12 tuned skipped',
                                   'Debian 12 stock limited by', 'Debian 12 tuned limited by']
    rows = dict((row[1], row) for row in report.summary_rows())
    # records of before limited_by existed: no verdict to show
    assert all(row[-2:] == [None, None] for row in rows.values())
    for test_id, row in rows.items():
        stock = primary_values(records, test_id, 'Debian 12 stock')
        tuned = primary_values(records, test_id, 'Debian 12 tuned')
        if stock:
            assert row[5] == pytest.approx(statistics.mean(stock), rel=1e-12)
        if tuned:
            assert row[6] == pytest.approx(statistics.mean(tuned), rel=1e-12)
        if stock and tuned:
            expected = (statistics.mean(tuned) - statistics.mean(stock)) / abs(statistics.mean(stock)) * 100
            assert row[change_at] == pytest.approx(expected, rel=1e-9)
        else:
            assert row[change_at] is None
        if len(stock) >= 2 and len(tuned) >= 2:
            assert row[p_at] == pytest.approx(stats.welch_t_test(tuned, stock)['p'])
        else:
            assert row[p_at] is None
        assert row[runs_at] == len(stock)
        for offset, status in ((failed_at, 'failed'), (skipped_at, 'skipped')):
            for index, config in enumerate(('Debian 12 stock', 'Debian 12 tuned')):
                assert row[offset + index] == sum(1 for r in records if r['test_id'] == test_id
                                                  and r['config'] == config and r['status'] == status)
    # failed runs are counted, never averaged
    assert rows['iperf3/tcp/parallel=20'][5] == 'failed'
    assert rows['iperf3/tcp/parallel=20'][failed_at] == 2
    assert rows['iperf3/udp/parallel=5'][failed_at + 1] == 1
    # a test whose every run was skipped (the tool is not installed) says so, not "failed"
    assert rows['netperf/UDP_STREAM'][6] == 'skipped'
    assert rows['netperf/UDP_STREAM'][skipped_at + 1] >= 1 and rows['netperf/UDP_STREAM'][failed_at + 1] == 0
    # single runs: a change but no test
    assert rows['nuttcp/tcp'][change_at] is not None and rows['nuttcp/tcp'][p_at] is None
    # the clear differences of the fixtures are significant
    assert rows['netperf/TCP_RR'][p_at] < 0.05
    assert rows['ethr/tcp_latency/threads=1'][p_at] < 0.05


def test_best_follows_the_metric_direction(report):
    by_id = dict((test.test_id, test) for test in report.tests)
    latency = by_id['ethr/tcp_latency/threads=1']
    assert latency.higher_is_better is False
    best = [column.label for column in latency.columns if column.best]
    assert best == [min(latency.columns, key=lambda column: column.mean).label]
    throughput = by_id['netperf/TCP_RR']
    assert [column.label for column in throughput.columns if column.best] == \
        [max(throughput.columns, key=lambda column: column.mean).label]
    # one value alone is not "best"
    assert not any(column.best for column in by_id['netperf/UDP_STREAM'].columns)
    # a lower latency is an improvement, a higher rate too
    assert latency.by_label['Debian 12 tuned'].improved(False) is True
    assert throughput.by_label['Debian 12 tuned'].improved(True) is True


def test_chosen_baseline_and_unknown_baseline():
    chosen = tables.Report(store.ResultFiles([STOCK, TUNED]), baseline='Debian 12 tuned')
    assert chosen.baseline == 'Debian 12 tuned'
    assert chosen.others == ['Debian 12 stock']
    row = [r for r in chosen.summary_rows() if r[1] == 'netperf/TCP_RR'][0]
    stock, tuned = row[5], row[6]
    assert row[7] == pytest.approx((stock - tuned) / tuned * 100)
    unknown = tables.Report(store.ResultFiles([STOCK, TUNED]), baseline='Windows')
    assert unknown.baseline == 'Debian 12 stock'
    assert "baseline 'Windows' is not among the configurations" in unknown.warnings[0]


def test_group_by_run_gives_each_run_a_column():
    report = tables.Report(store.ResultFiles([STOCK, TUNED]), group_by='run', baseline='Debian 12 tuned')
    assert report.columns == ['Debian 12 stock [20261129T184000Z-ab12]', 'Debian 12 tuned [20261129T201500Z-cd34]']
    assert report.baseline == 'Debian 12 tuned [20261129T201500Z-cd34]'
    with pytest.raises(ValueError):
        tables.Report(store.ResultFiles([STOCK]), group_by='host')


def test_other_metrics_are_averaged_too(report):
    records = results_of(STOCK, TUNED)
    rows = [row for row in report.metrics_rows() if row[0] == 'iperf3/tcp/parallel=1' and row[3] == 'retransmits']
    assert [row[2] for row in rows] == ['Debian 12 stock', 'Debian 12 tuned']
    for row in rows:
        values = [r['metrics']['retransmits']['value'] for r in records
                  if r['test_id'] == 'iperf3/tcp/parallel=1' and r['config'] == row[2] and r['status'] == 'ok']
        assert row[6] == len(values)
        assert row[7] == pytest.approx(statistics.mean(values))


def test_raw_rows_are_every_record_times_metric(report):
    records = results_of(STOCK, TUNED)
    rows = list(report.iter_raw_rows())
    assert len(rows) == sum(max(1, len(r['metrics'])) for r in records) == report.raw_rows
    columns = report.raw_columns()
    assert columns[:5] == ['run_id', 'config', 'suite', 'test_id', 'tool']
    expected = []
    for r in records:
        if not r['metrics']:
            expected.append((r['test_id'], r['repetition'], r['config'], None, None, r['status'], r['error']))
        for name, metric in r['metrics'].items():
            expected.append((r['test_id'], r['repetition'], r['config'], name, metric['value'], r['status'], r['error']))
    index = dict((name, number) for number, name in enumerate(columns))
    got = [(row[index['test_id']], row[index['repetition']], row[index['config']], row[index['metric']],
            row[index['value']], row[index['status']], row[index['error']]) for row in rows]
    assert got == expected
    failed = [row for row in rows if row[index['status']] == 'failed']
    assert failed and all(row[index['error']] for row in failed)
    assert rows[0][index['client']] == 'lab1' and rows[0][index['server']] == 'lab2'


def test_interval_rows_carry_tool_and_nic_samples(report):
    records = results_of(STOCK, TUNED)
    groups = list(report.iter_interval_groups())
    tool_rows = [row for _record, source, rows in groups if source == 'tool' for row in rows]
    nic_rows = [row for _record, source, rows in groups if source == 'nic' for row in rows]
    assert len(tool_rows) == sum(len(r['intervals']) for r in records)
    assert len(nic_rows) == sum(len(r['nic']['samples']) for r in records if r['nic'])
    assert len(tool_rows) + len(nic_rows) == report.interval_rows
    columns = report.interval_columns()
    assert columns[:8] == ['run_id', 'config', 'test_id', 'repetition', 'client', 'server', 'source', 't']
    assert 'throughput_mbps' in columns and 'nic_tx_mbps' in columns
    first = [r for r in records if r['intervals']][0]
    assert tool_rows[0][columns.index('throughput_mbps')] == first['intervals'][0]['throughput_mbps']
    sampled = [r for r in records if r['nic']][0]
    s0, s1 = sampled['nic']['samples'][0], sampled['nic']['samples'][1]
    assert nic_rows[0][columns.index('nic_tx_mbps')] is None
    assert nic_rows[1][columns.index('nic_tx_mbps')] == pytest.approx(
        (s1['tx_bytes'] - s0['tx_bytes']) * 8 / (s1['t'] - s0['t']) / 1e6)
    assert nic_rows[1][columns.index('tx_bytes')] == s1['tx_bytes']


def test_systems_table_one_row_per_system_under_test(report):
    # the records' tests ran on lab1 (the client): the server lab2 is no system under test
    profiles = [obj for obj in load(STOCK, TUNED) if obj['schema'] == 'perflab.system/1']
    clients = set(r['client']['name'] for r in results_of(STOCK, TUNED))
    assert clients == {'lab1'} and len(profiles) == 4
    assert [(row[0], row[1]) for row in report.systems_rows()] == \
        [(p['config'], p['host']) for p in profiles if p['host'] in clients]


def test_systems_table(report):
    profiles = [obj for obj in load(STOCK, TUNED) if obj['schema'] == 'perflab.system/1']
    report = tables.Report(store.ResultFiles([STOCK, TUNED]), systems='all')
    rows = report.systems_rows()
    columns = report.systems_columns()
    for field in ('Processor', 'Motherboard', 'Memory', 'Disk', 'Network', 'OS', 'Kernel', 'Compiler',
                  'File-System', 'MTU', 'Tuning'):
        assert field in columns
    assert [(row[0], row[1]) for row in rows] == [(p['config'], p['host']) for p in profiles]
    for row, profile in zip(rows, profiles):
        assert row[columns.index('Processor')] == profile['table']['Processor']
        assert row[columns.index('MTU')] == profile['network']['mtu']
        tuning = row[columns.index('Tuning')]
        assert 'congestion control %s' % profile['network']['congestion_control'] in tuning
        # the key offloads by their short names; ethtool's other features are left out
        assert 'tso %s' % ('on' if profile['network']['offloads']['tcp-segmentation-offload'] else 'off') in tuning
        assert 'lro off' in tuning and 'tx-udp-segmentation' not in tuning
        sysctls = row[columns.index('Sysctls')]
        assert 'net.ipv4.tcp_rmem=%s' % profile['network']['sysctls']['net.ipv4.tcp_rmem'] in sysctls
        assert 'busy_poll' not in sysctls            # does not exist on that host


def test_a_truncated_file_still_makes_a_report():
    report = tables.Report(store.ResultFiles([os.path.join(FIXTURES, 'truncated.jsonl')]))
    assert len(report.problems) == 1
    assert report.records >= 1
    assert report.tests
    assert 'unreadable line' in ' '.join(report.summary_notes())


def test_text_summary_blocks_and_bars(report):
    summary = text.render(report)
    blocks = summary.split('\n\n')
    block = [b for b in blocks if b.startswith('Netperf 2.7.0 - Duration: 10 Seconds - Test: TCP Request Response\n')][0].splitlines()
    assert block[1] == '1/s, higher is better'
    test = [t for t in report.tests if t.test_id == 'netperf/TCP_RR'][0]
    stock, tuned = test.by_label['Debian 12 stock'].mean, test.by_label['Debian 12 tuned'].mean
    bars = [len(re.search(r'\|(#*)', line).group(1)) for line in block[2:]]
    assert bars[1] == text.BAR_WIDTH                          # the largest value
    assert bars[0] == int(round(text.BAR_WIDTH * stock / tuned))
    assert '%.2f' % stock in block[2] and '%.2f' % tuned in block[3]
    interval = stats.change_interval(primary_values(results_of(STOCK, TUNED), 'netperf/TCP_RR', 'Debian 12 tuned'),
                                     primary_values(results_of(STOCK, TUNED), 'netperf/TCP_RR', 'Debian 12 stock'))
    # the change, its 95 % interval and the verdict (3 runs a side, p (Holm) < 0.05, the interval narrower)
    expected = '%+.1f%% [%+.1f, %+.1f] better' % ((tuned - stock) / stock * 100, interval['low'], interval['high'])
    assert block[3].endswith(expected)
    assert "adjusted by Holm's method" in summary and report.verdict_note() in summary
    latency = [b for b in blocks if b.startswith('Ethr 1.0.0')][0].splitlines()
    assert latency[1] == 'us, lower is better'
    failed = [b for b in blocks if b.startswith('iPerf 3.12 - Duration: 10 Seconds - Test: TCP - Parallel: 20')][0]
    assert 'Debian 12 stock ... FAILED (2 of 2 runs): iperf3 timed out after 40 s' in failed
    skipped = [b for b in blocks if b.startswith('Netperf 2.7.0 - Duration: 10 Seconds - Test: UDP Stream')][0]
    assert 'Debian 12 tuned ... SKIPPED (1 of 1 runs): netserver is not reachable' in skipped


def test_csv_and_json_exports_hold_the_same_tables(report, tmp_path):
    stem = str(tmp_path / 'out')
    paths = exports.write_exports(report, stem)
    names = ['summary', 'tests', 'metrics', 'systems', 'intervals', 'raw']
    assert paths == ['%s-%s.csv' % (stem, name) for name in names] + [stem + '.json']
    with open(stem + '-summary.csv') as handle:
        rows = list(csv.reader(handle))
    assert rows[0] == report.summary_columns()
    expected = report.summary_rows()
    assert len(rows) == len(expected) + 1
    for got, want in zip(rows[1:], expected):
        for cell, value in zip(got, want):
            if isinstance(value, float):
                assert float(cell) == value              # full precision
            else:
                assert cell == ('' if value is None else str(value))
    with open(stem + '-raw.csv') as handle:
        assert sum(1 for _row in csv.reader(handle)) == report.raw_rows + 1
    with open(stem + '.json') as handle:
        document = json.load(handle)
    assert document['schema'] == 'perflab.report/1'
    assert document['overview']['configurations'] == report.columns
    assert document['tables']['summary'] == {'columns': report.summary_columns(), 'rows': expected}
    assert len(document['tables']['raw']['rows']) == report.raw_rows
    assert len(document['tables']['intervals']['rows']) == report.interval_rows
    assert document['tables']['tests']['columns'] == list(tables.TESTS_COLUMNS)
    with pytest.raises(ValueError):
        exports.write_exports(report, stem, formats=['xml'])


@pytest.mark.parametrize('tool, summary, higher, units_line', [
    # the ethr latency test of `make lab` without ethr: skipped in both configurations; the tool's
    # test says which metric it reports, so its unit and direction are known (not "value")
    ('ethr', ['latency_us_mean', 'us', 'lower'], False, 'us, lower is better'),
    # nothing says which metric an unknown tool would report: neither "higher" nor "lower" is better
    # (a guess would be wrong for a latency)
    ('other', ['', '', None], None, 'value, no successful run'),
])
def test_a_test_without_any_successful_run(tool, summary, higher, units_line):
    records = [r for r in results_of(STOCK, TUNED) if r['test_id'] == 'netperf/TCP_RR']
    skipped = [dict(r, test_id=tool + '/latency', tool=tool, test='latency', status='skipped', metrics={},
                    primary=None, error='not installed') for r in records]
    report = tables.Report(store.RecordList(records + skipped))
    rows = dict((row[1], row) for row in report.summary_rows())
    assert rows[tool + '/latency'][2:7] == summary + ['skipped', 'skipped']
    assert rows['netperf/TCP_RR'][4] == 'higher'
    test = [t for t in report.tests if t.test_id == tool + '/latency'][0]
    assert test.higher_is_better is higher and test.units_line == units_line
    assert 'Debian 12 stock ... SKIPPED' in text.render(report)


# --- several baselines, the stock rule, the compare map, percent of link (issue 17, points 11, 12) ---

def _relabel(objects, old, new, profile, system, hosts=None):
    out = []
    for obj in objects:
        obj = json.loads(json.dumps(obj))
        if obj.get('config') != old:
            continue
        obj['config'] = new
        if obj['schema'].startswith('perflab.system/'):
            obj['profile'] = profile
            obj['table']['OS'] = system
            if hosts:
                obj['host'] = hosts[obj['host']]
        elif hosts:
            for side in ('client', 'server'):
                obj[side]['name'] = hosts[obj[side]['name']]
        out.append(obj)
    return out


def _study():
    """Two stock/tuned pairs in one workbook, as the seeds' "Ubuntu 18.10 vs Tuned, Scientific 7 vs Tuned"."""
    objects = load(STOCK, TUNED)
    other_hosts = {'lab1': 'lab3', 'lab2': 'lab4'}
    return (_relabel(objects, 'Debian 12 stock', 'Debian 12 stock', 'stock', 'Debian 12')
            + _relabel(objects, 'Debian 12 tuned', 'Debian 12 tuned', 'tuned', 'Debian 12')
            + _relabel(objects, 'Debian 12 stock', 'Rocky 9 stock', 'stock', 'Rocky Linux 9.4', other_hosts)
            + _relabel(objects, 'Debian 12 tuned', 'Rocky 9 tuned', 'tuned', 'Rocky Linux 9.4', other_hosts))


def test_each_tuned_configuration_against_its_own_stock():
    report = tables.Report(store.RecordList(_study()))
    assert report.compare == {'Debian 12 stock': None, 'Debian 12 tuned': 'Debian 12 stock',
                              'Rocky 9 stock': 'Debian 12 stock', 'Rocky 9 tuned': 'Rocky 9 stock'}
    assert report.baselines == ['Debian 12 stock', 'Rocky 9 stock']
    columns = report.summary_columns()
    assert 'Rocky 9 tuned vs Rocky 9 stock (%)' in columns and 'Debian 12 tuned vs Debian 12 stock (%)' in columns
    test = report.tests[0]
    rocky, rocky_stock = test.by_label['Rocky 9 tuned'], test.by_label['Rocky 9 stock']
    assert rocky.baseline == 'Rocky 9 stock'
    assert rocky.change_percent == pytest.approx(stats.relative_change_percent(rocky.mean, rocky_stock.mean))
    summary = text.render(report)
    assert 'baseline Debian 12 stock, Rocky 9 stock' in summary
    assert re.search(r'^  Rocky 9 tuned \.+ .*[-+]\d+\.\d% \[[-+]\d+\.\d, [-+]\d+\.\d\] (better|worse|too noisy|'
                     r'no significant change) vs Rocky 9 stock$', summary, re.M), summary


def test_compare_map_any_configuration_against_any_other():
    # an OS study: "% relative to Linux", the other OS against it whatever the profiles
    compare = {'Rocky 9 stock': 'Debian 12 stock', 'Rocky 9 tuned': 'Debian 12 tuned', 'Debian 12 tuned': None}
    report = tables.Report(store.RecordList(_study()), compare=compare)
    assert report.compare == {'Debian 12 stock': None, 'Debian 12 tuned': None,
                              'Rocky 9 stock': 'Debian 12 stock', 'Rocky 9 tuned': 'Debian 12 tuned'}
    assert report.overview()['compare'] == {'Rocky 9 stock': 'Debian 12 stock', 'Rocky 9 tuned': 'Debian 12 tuned'}
    bad = tables.Report(store.RecordList(_study()), compare={'OSv': 'Debian 12 stock'})
    assert any("compare names configuration 'OSv'" in warning for warning in bad.warnings)


def test_without_profiles_one_baseline_as_before(report):
    assert report.compare == {'Debian 12 stock': None, 'Debian 12 tuned': 'Debian 12 stock'}


def test_percent_of_link_speed():
    records = results_of(STOCK)
    for record in records:
        record['client']['link_mbps'] = 1000.0
    report = tables.Report(store.RecordList(records))
    assert report.link_known
    test = [t for t in report.tests if t.test_id == 'iperf3/tcp/parallel=1'][0]
    column = test.by_label['Debian 12 stock']
    assert column.link_mbps == 1000.0
    assert column.link_percent == pytest.approx(column.mean / 1000.0 * 100.0)
    assert 'Debian 12 stock % of link' in report.summary_columns()
    # a latency or transaction rate is no share of a link
    rr = [t for t in report.tests if t.test_id == 'netperf/TCP_RR'][0]
    assert rr.by_label['Debian 12 stock'].link_percent is None
    assert '[%.0f%% of 1000.00 Mbit/s link]' % column.link_percent in text.render(report)


# --- issue 27.2: confidence intervals, Holm's correction, verdicts ---------------------------------------------

# the metrics of the synthetic studies, each with its direction from record.METRICS (the one table of them)
MIXED_METRICS = ('throughput_mbps', 'latency_us_mean', 'transactions_per_s', 'lost_percent', 'retransmits')


def synthetic_records(values):
    """Result records of ``{config: {test_id: (metric, [values])}}``, built as the modules build them."""
    records = []
    for config, tests in values.items():
        for test_id, (metric, series) in tests.items():
            for repetition, value in enumerate(series, 1):
                result = {'schema': 'perflab.result/1', 'run_id': 'R-%s' % config.replace(' ', '-'), 'config': config,
                          'test_id': test_id, 'tool': 'synthetic', 'test': test_id.split('/')[-1], 'status': 'ok',
                          'repetition': repetition, 'primary': metric, 'metrics': {},
                          'client': {'name': 'lab1'}, 'server': {'name': 'lab2'},
                          'started_at': '2026-12-01T10:%02d:%02dZ' % (repetition, len(records) % 60)}
                add_metric(result, metric, value)
                records.append(result)
    return records


def noise_study(seed, tests=25, runs=5, spread=20.0):
    """An A/A study: ``tests`` tests, the same distribution in both configurations (noise only)."""
    rng = random.Random(seed)
    values = {'A': {}, 'B': {}}
    for number in range(tests):
        metric = MIXED_METRICS[number % len(MIXED_METRICS)]
        test_id = 'synthetic/t%02d' % number
        values['A'][test_id] = (metric, [rng.gauss(1000.0, spread) for _run in range(runs)])
        values['B'][test_id] = (metric, [rng.gauss(1000.0, spread) for _run in range(runs)])
    return values


def test_an_a_a_study_flags_nothing_after_holm(tmp_path):
    # seed 19: three of the 25 raw Welch p-values are below 0.05 (the old workbook painted them), none after Holm
    report = tables.Report(store.RecordList(synthetic_records(noise_study(19))))
    assert report.compare == {'A': None, 'B': 'A'} and report.family_sizes == {'B': 25}
    compared = [test.by_label['B'] for test in report.tests]
    raw = [column.p_value for column in compared]
    assert sum(1 for p in raw if p < 0.05) == 3
    assert [column.p_holm for column in compared] == pytest.approx(stats.holm_adjust(raw))
    assert all(column.p_holm >= column.p_value for column in compared)
    assert not any(column.significant for column in compared)
    assert [column.verdict for column in compared] == ['no significant change'] * 25
    # every interval holds its change; every mean's interval its mean
    assert all(column.change_low < column.change_percent < column.change_high for column in compared)
    assert all(column.ci_low < column.mean < column.ci_high for test in report.tests for column in test.columns)
    # with a minimum change of 1 %, this lab (CV 2 %, 5 runs) cannot rule one out: too noisy, still no finding
    strict = tables.Report(store.RecordList(synthetic_records(noise_study(19))), min_change_percent=1)
    assert set(test.by_label['B'].verdict for test in strict.tests) == {'too noisy'}
    # the workbook colours none of it
    openpyxl = pytest.importorskip('openpyxl')
    from ansible_collections.perflab.network.plugins.module_utils.report import workbook
    path = str(tmp_path / 'aa.xlsx')
    workbook.write_workbook(report, path)
    ws = openpyxl.load_workbook(path)['Summary']
    header = [cell.value for cell in ws[1]]
    first, last = header.index('B vs A (%)'), header.index('B vs A verdict')
    for row in ws.iter_rows(min_row=2, max_row=26):
        assert all(cell.fill.patternType is None for cell in row[first:last + 1])
        assert row[last].value == 'no significant change'


def test_real_changes_follow_each_metrics_direction():
    rng = random.Random(7)

    def runs(level):
        return [rng.gauss(level, level * 0.005) for _run in range(5)]
    values = {'stock': {}, 'tuned': {}}
    cases = [('throughput_mbps', 1.05, 'better'), ('throughput_mbps', 0.95, 'worse'),
             ('latency_us_mean', 0.95, 'better'), ('latency_us_mean', 1.05, 'worse'),
             ('lost_percent', 0.9, 'better'), ('retransmits', 1.1, 'worse'), ('transactions_per_s', 1.0, None)]
    for number, (metric, factor, _verdict) in enumerate(cases):
        values['stock']['t/%d' % number] = (metric, runs(1000.0))
        values['tuned']['t/%d' % number] = (metric, runs(1000.0 * factor))
    report = tables.Report(store.RecordList(synthetic_records(values)))
    verdicts = [test.by_label['tuned'].verdict for test in report.tests]
    assert verdicts == [expected or 'no significant change' for _metric, _factor, expected in cases]
    for test, (_metric, factor, _verdict) in zip(report.tests, cases):
        column = test.by_label['tuned']
        assert column.change_low < (factor - 1) * 100 < column.change_high
    # the smallest change the study cares about: 10 % leaves the 5 % changes unflagged, the 10 % ones stand
    minimum = tables.Report(store.RecordList(synthetic_records(values)), min_change_percent='10')
    assert [test.by_label['tuned'].verdict for test in minimum.tests] == [
        'below minimum change'] * 4 + ['better', 'worse', 'no significant change']
    assert minimum.overview()['min_change_percent'] == 10.0
    assert 'minimum change (10 %)' in ' '.join(minimum.summary_notes())


def test_a_significant_change_with_a_wider_interval_is_too_noisy():
    # one test (Holm's m = 1): Welch p = 0.0376 < 0.05, change +5.0 % but its interval [+0.3, +9.7] is wider
    values = {'A': {'t/1': ('throughput_mbps', [100.0, 102.0, 98.0])},
              'B': {'t/1': ('throughput_mbps', [105.0, 107.0, 103.0])}}
    column = tables.Report(store.RecordList(synthetic_records(values))).tests[0].by_label['B']
    assert column.p_value == column.p_holm == pytest.approx(stats.welch_t_test([105, 107, 103], [100, 102, 98])['p'])
    assert column.p_holm < 0.05 and column.significant
    assert column.change_percent == pytest.approx(5.0)
    assert column.change_high - column.change_low > 5.0
    assert column.verdict == 'too noisy'


def test_summary_and_tests_tables_carry_the_intervals_and_verdicts(report):
    columns = report.summary_columns()
    at = columns.index('Debian 12 tuned vs Debian 12 stock (%)')
    assert columns[at:at + 6] == ['Debian 12 tuned vs Debian 12 stock %s' % suffix
                                  for suffix in ('(%)', 'CI low (%)', 'CI high (%)', 'p', 'p (Holm)', 'verdict')]
    records = results_of(STOCK, TUNED)
    rows = dict((row[1], row) for row in report.summary_rows())
    tested = [test_id for test_id in rows if len(primary_values(records, test_id, 'Debian 12 stock')) >= 2
              and len(primary_values(records, test_id, 'Debian 12 tuned')) >= 2]
    raw = [stats.welch_t_test(primary_values(records, test_id, 'Debian 12 tuned'),
                              primary_values(records, test_id, 'Debian 12 stock'))['p'] for test_id in tested]
    for test_id, adjusted in zip(tested, stats.holm_adjust(raw)):
        row = rows[test_id]
        interval = stats.change_interval(primary_values(records, test_id, 'Debian 12 tuned'),
                                         primary_values(records, test_id, 'Debian 12 stock'))
        assert row[at + 1] == pytest.approx(interval['low']) and row[at + 2] == pytest.approx(interval['high'])
        assert row[at + 4] == pytest.approx(adjusted)
    assert rows['netperf/TCP_RR'][at + 5] == 'better'
    assert rows['ethr/tcp_latency/threads=1'][at + 5] == 'too noisy'     # 2 runs a side
    assert rows['netperf/UDP_STREAM'][at + 5] is None                     # nothing to compare
    tests_rows = [dict(zip(tables.TESTS_COLUMNS, row)) for row in report.tests_rows()]
    tuned_rr = [row for row in tests_rows if row['test_id'] == 'netperf/TCP_RR' and row['configuration'] ==
                'Debian 12 tuned'][0]
    values = primary_values(records, 'netperf/TCP_RR', 'Debian 12 tuned')
    assert (tuned_rr['ci_low'], tuned_rr['ci_high']) == pytest.approx(stats.mean_interval(values))
    assert tuned_rr['verdict'] == 'better' and tuned_rr['significant'] is True
    assert tuned_rr['p_holm'] == pytest.approx(rows['netperf/TCP_RR'][at + 4])


@pytest.mark.parametrize('value, expected', [(None, 0.0), ('', 0.0), (0, 0.0), (2, 2.0), (2.5, 2.5), (' 1.5 ', 1.5)])
def test_min_change_accepts_numbers(value, expected):
    assert tables.min_change_value(value) == expected


@pytest.mark.parametrize('value', [-1, -0.5, '-2', 'five', True, float('nan'), float('inf'), [1], {'a': 1}])
def test_min_change_refuses_anything_else(value):
    with pytest.raises(ValueError, match='min_change_percent must be a number of percent, 0 or more'):
        tables.min_change_value(value)
    with pytest.raises(ValueError, match='min_change_percent'):
        tables.Report(store.RecordList([]), min_change_percent=value)


def test_limited_by_column_says_what_limited_each_configuration():
    # stock window-limited, tuned at the link: "window -> link" reads along the row; runs that disagree are counted
    records = []
    for record in results_of(STOCK, TUNED):
        if record.get('status') == 'ok':
            tuned = record['config'] == 'Debian 12 tuned'
            verdict = 'link' if tuned else ('window' if record['repetition'] != 2 else 'cpu')
            record = dict(record, limited_by={'verdict': verdict, 'evidence': 'x', 'cpu': {'busiest': 'cpu1'}})
        records.append(record)
    report = tables.Report(store.RecordList(records))
    columns = report.summary_columns()
    stock_at, tuned_at = columns.index('Debian 12 stock limited by'), columns.index('Debian 12 tuned limited by')
    rows = [row for row in report.summary_rows() if row[5] is not None and row[6] is not None]
    assert rows and set(row[tuned_at] for row in rows) == {'link', None}, [row[tuned_at] for row in rows]
    assert any(row[stock_at] == 'window 2, cpu cpu1 1' for row in rows), [row[stock_at] for row in rows]
    limited_at = tables.TESTS_COLUMNS.index('limited_by')
    assert any(row[limited_at] == 'link' for row in report.tests_rows())
    assert tables.limited_by_text([]) is None and tables.limited_by_text(['link', 'link']) == 'link'
