# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""How the report builder scales: 1k / 10k / 100k synthetic result records.

For each size it writes a synthetic result file (records shaped like
``perflab.result/2``: 4 metrics, per-second intervals, a NIC sample set on
every 10th record, a bounded ``raw``), then measures, each in a fresh
process so that peak memory (ru_maxrss) is that run's own:

* ``report``: the real thing, ``build.build_report`` from the file to the
  .xlsx (both passes over the file, statistics, styles, charts);
* ``bare``: the same cells (Summary, test tables, Systems, Intervals, Raw)
  written with a bare openpyxl write-only workbook: no styles, no charts,
  from rows already in memory (building them is not timed): the time
  baseline;
* ``stream``: the same bare dump with the Intervals and Raw rows written as
  the file is read instead of held in lists: the peak-memory baseline (a
  dump that holds every row in memory would flatter the report's memory).

It prints CPU (and wall) seconds, peak RSS, the report/bare time ratio, the
report/stream memory ratio and the load average, and checks the targets:
at most 2x the bare dump in time and in peak memory, 10k records under a
minute of CPU time (PASS/FAIL each).

    .venv/bin/python benchmarks/report_scale.py --sizes 1000 10000 100000
"""

from __future__ import (absolute_import, division, print_function)

import argparse
import itertools
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, '.collections'))
# targets: report/bare in CPU time and in peak memory, and 10k records in under a minute
TARGET_RATIO = 2.0
TARGET_10K_S = 60

CONFIGS = ['Debian 12 stock', 'Debian 12 tuned', 'Ubuntu 24.04 stock', 'Fedora 41 stock']
TESTS = (
    [('iperf3/tcp/parallel=%d' % p, 'iperf3', 'tcp_stream', 'tcp', p, 'throughput_mbps', 'Mbit/s', True)
     for p in (1, 5, 20)]
    + [('iperf3/udp/parallel=%d' % p, 'iperf3', 'udp_stream', 'udp', p, 'throughput_mbps', 'Mbit/s', True)
       for p in (5, 10, 20)]
    + [('netperf/%s' % name, 'netperf', name.lower(), name.partition('_')[0].lower(), 1, metric, unit, True)
       for name, metric, unit in (('TCP_STREAM', 'throughput_mbps', 'Mbit/s'),
                                  ('TCP_MAERTS', 'throughput_mbps', 'Mbit/s'),
                                  ('TCP_RR', 'transactions_per_s', '1/s'), ('UDP_RR', 'transactions_per_s', '1/s'),
                                  ('UDP_STREAM', 'throughput_mbps', 'Mbit/s'),
                                  ('TCP_CRR', 'transactions_per_s', '1/s'))]
    + [('nuttcp/tcp', 'nuttcp', 'tcp_stream', 'tcp', 1, 'throughput_mbps', 'Mbit/s', True)]
    + [('ethr/tcp_latency/threads=%d' % t, 'ethr', 'tcp_latency', 'tcp', t, 'latency_us_mean', 'us', False)
       for t in (1, 2, 8, 16, 32, 64)]
    + [('ethr/connections/threads=%d' % t, 'ethr', 'connections', 'tcp', t, 'connections_per_s', '1/s', True)
       for t in (1, 8, 64)]
)


def generate(count, path, intervals=10, raw_bytes=1024, seed=7):
    """Write ``count`` synthetic records (and a system profile per configuration) to ``path``."""
    rng = random.Random(seed)
    raw = ('x' * 79 + '\n') * (raw_bytes // 80)
    with open(path, 'w') as handle:
        for config in CONFIGS:
            handle.write(json.dumps({
                'schema': 'perflab.system/1', 'run_id': 'bench', 'config': config, 'host': 'lab1',
                'collected_at': '2026-11-29T18:40:00.000Z',
                'table': {'Processor': 'Synthetic CPU', 'OS': config, 'Kernel': '6.1.0'},
                'network': {'interface': 'veth0', 'mtu': 1500, 'qdisc': 'fq', 'congestion_control': 'cubic'}}) + '\n')
        for index in range(count):
            config = CONFIGS[index % len(CONFIGS)]
            test_id, tool, test, protocol, parallel, primary, unit, higher = TESTS[(index // len(CONFIGS)) % len(TESTS)]
            repetition = index // (len(CONFIGS) * len(TESTS)) + 1
            value = rng.gauss(1000.0 + 100 * (index % len(CONFIGS)), 20.0)
            failed = index % 97 == 0
            record = {
                'schema': 'perflab.result/2', 'run_id': 'bench', 'config': config, 'suite': 'scale',
                'test_id': test_id, 'repetition': repetition,
                'started_at': '2026-11-29T18:40:00.000Z', 'ended_at': '2026-11-29T18:40:10.000Z',
                'tool': tool, 'tool_version': '1.0', 'test': test, 'protocol': protocol,
                'direction': 'client_to_server', 'parallel': parallel, 'duration_s': float(intervals),
                'options': {'parallel': parallel}, 'command': [tool, '-c', '10.0.0.2'], 'commands': [],
                'client': {'name': 'lab1', 'address': '10.0.0.1', 'interface': 'veth0', 'mtu': 1500},
                'server': {'name': 'lab2', 'address': '10.0.0.2', 'interface': None, 'mtu': None},
                'metrics': {} if failed else {
                    primary: {'value': value, 'unit': unit, 'higher_is_better': higher},
                    'retransmits': {'value': float(rng.randint(0, 50)), 'unit': 'count', 'higher_is_better': False},
                    'cpu_local_pct': {'value': rng.uniform(10, 90), 'unit': '%', 'higher_is_better': False},
                    'cpu_remote_pct': {'value': rng.uniform(10, 90), 'unit': '%', 'higher_is_better': False},
                },
                'primary': primary,
                'intervals': [] if failed else [
                    {'t': float(second), primary: rng.gauss(value, 20.0), 'retransmits': rng.randint(0, 5)}
                    for second in range(1, intervals + 1)],
                'nic': None, 'processes': None,
                'status': 'failed' if failed else 'ok',
                'error': 'synthetic failure' if failed else None,
                'raw': raw,
            }
            if not failed and index % 10 == 0:
                record['nic'] = {'interface': 'veth0', 'rx_mbps': 1.0, 'tx_mbps': value, 'samples': [
                    {'t': float(second), 'rx_bytes': second * 1000, 'tx_bytes': int(second * value * 125000),
                     'rx_packets': second * 10, 'tx_packets': second * 1000} for second in range(intervals + 1)]}
            handle.write(json.dumps(record, separators=(',', ':')) + '\n')


def peak_rss_mib():
    # ru_maxrss is in KiB on Linux
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def cpu_seconds():
    # CPU time, not wall time: the machines this runs on are often shared
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def child_report(source, workdir):
    from ansible_collections.perflab.network.plugins.module_utils.report import build
    start, cpu = time.perf_counter(), cpu_seconds()
    _report, result = build.build_report([source], workbook_path=os.path.join(workdir, 'report.xlsx'))
    elapsed, cpu = time.perf_counter() - start, cpu_seconds() - cpu
    return {'seconds': elapsed, 'cpu': cpu, 'sheets': len(result['sheets']), 'charts': result['charts'],
            'truncated': result['truncated'], 'bytes': os.path.getsize(os.path.join(workdir, 'report.xlsx'))}


def summary_test_and_system_sheets(report):
    """The cells of the baselines' first sheets, as ``[(name, rows)]``: both dumps write the same ones."""
    from ansible_collections.perflab.network.plugins.module_utils.report import tables
    sheets = [('Summary', [report.summary_columns()] + report.summary_rows())]
    test_rows = report.tests_rows()
    for number, test in enumerate(report.tests):
        sheets.append(('T%d' % number, [[test.title], [test.units_line], [], list(tables.TESTS_COLUMNS)]
                       + [row for row in test_rows if row[0] == test.test_id]))
    sheets.append(('Systems', [report.systems_columns()] + report.systems_rows()))
    return sheets


def child_stream(source, workdir):
    """The bare dump with Intervals and Raw streamed from the file: its peak memory is the baseline."""
    from openpyxl import Workbook
    from ansible_collections.perflab.network.plugins.module_utils.report import store, tables
    from ansible_collections.perflab.network.plugins.module_utils.report.tables import MAX_SHEET_ROWS
    start, cpu = time.perf_counter(), cpu_seconds()
    report = tables.Report(store.ResultFiles([source]))
    workbook = Workbook(write_only=True)
    sheets = summary_test_and_system_sheets(report)
    intervals = (row for _record, _source, rows in report.iter_interval_groups() for row in rows)
    sheets.append(('Intervals', itertools.chain([report.interval_columns()], intervals)))
    sheets.append(('Raw', itertools.chain([report.raw_columns()], report.iter_raw_rows())))
    for name, rows in sheets:
        ws = workbook.create_sheet(name)
        for row in itertools.islice(rows, MAX_SHEET_ROWS):
            ws.append(row)
    workbook.save(os.path.join(workdir, 'stream.xlsx'))
    elapsed, cpu = time.perf_counter() - start, cpu_seconds() - cpu
    return {'seconds': elapsed, 'cpu': cpu, 'bytes': os.path.getsize(os.path.join(workdir, 'stream.xlsx'))}


def child_bare(source, workdir):
    """The bare dump from rows built first (building is not timed): the time baseline."""
    from openpyxl import Workbook
    from ansible_collections.perflab.network.plugins.module_utils.report import store, tables
    from ansible_collections.perflab.network.plugins.module_utils.report.tables import MAX_SHEET_ROWS
    report = tables.Report(store.ResultFiles([source]))
    sheets = summary_test_and_system_sheets(report)
    intervals = [report.interval_columns()]
    for _record, _source, rows in report.iter_interval_groups():
        intervals.extend(rows)
    sheets.append(('Intervals', intervals[:MAX_SHEET_ROWS]))
    sheets.append(('Raw', ([report.raw_columns()] + list(report.iter_raw_rows()))[:MAX_SHEET_ROWS]))
    cells = sum(len(row) for _name, rows in sheets for row in rows)
    start, cpu = time.perf_counter(), cpu_seconds()
    workbook = Workbook(write_only=True)
    for name, rows in sheets:
        ws = workbook.create_sheet(name)
        for row in rows:
            ws.append(row)
    workbook.save(os.path.join(workdir, 'bare.xlsx'))
    elapsed, cpu = time.perf_counter() - start, cpu_seconds() - cpu
    return {'seconds': elapsed, 'cpu': cpu, 'cells': cells, 'bytes': os.path.getsize(os.path.join(workdir, 'bare.xlsx'))}


def run_child(mode, source, workdir):
    output = subprocess.check_output([sys.executable, os.path.abspath(__file__), '--child', mode,
                                      '--source', source, '--workdir', workdir])
    return json.loads(output.decode('utf-8').strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n', maxsplit=1)[0])
    parser.add_argument('--sizes', type=int, nargs='+', default=[1000, 10000, 100000])
    parser.add_argument('--intervals', type=int, default=10, help='per-second samples per record (default 10)')
    parser.add_argument('--raw-bytes', type=int, default=1024, help='size of each record\'s raw output')
    parser.add_argument('--workdir', help='keep the files here (default: a temporary directory, removed)')
    parser.add_argument('--child', choices=['report', 'bare', 'stream'], help=argparse.SUPPRESS)
    parser.add_argument('--source', help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.child:
        result = {'report': child_report, 'bare': child_bare, 'stream': child_stream}[args.child](args.source, args.workdir)
        result['peak_rss_mib'] = peak_rss_mib()
        print(json.dumps(result))
        return 0

    workdir = args.workdir or tempfile.mkdtemp(prefix='perflab-report-scale-')
    if not os.path.isdir(workdir):
        os.makedirs(workdir)
    verdicts = []
    try:
        print('Time: CPU seconds (wall seconds), report vs the bare dump; memory: peak RSS in MiB, report vs the '
              'streamed bare dump (bare from lists in brackets)')
        print('%8s %9s %9s %16s %16s %8s %14s %6s %6s %16s' % (
            'records', 'file MiB', 'cells', 'report s', 'bare s', 'rep MiB', 'stream (bare)', 'time x', 'mem x', 'load 1/5/15'))
        for size in args.sizes:
            source = os.path.join(workdir, 'scale-%d.jsonl' % size)
            generate(size, source, intervals=args.intervals, raw_bytes=args.raw_bytes)
            report = run_child('report', source, workdir)
            bare = run_child('bare', source, workdir)
            stream = run_child('stream', source, workdir)
            time_x = report['cpu'] / bare['cpu']
            mem_x = report['peak_rss_mib'] / stream['peak_rss_mib']
            print('%8d %9.1f %9d %7.2f (%6.2f) %7.2f (%6.2f) %8.0f %6.0f (%5.0f) %6.2f %6.2f %16s%s' % (
                size, os.path.getsize(source) / 1048576.0, bare['cells'], report['cpu'], report['seconds'],
                bare['cpu'], bare['seconds'], report['peak_rss_mib'], stream['peak_rss_mib'], bare['peak_rss_mib'],
                time_x, mem_x, '%.2f %.2f %.2f' % os.getloadavg(),
                ('  truncated: %s' % ', '.join(report['truncated'])) if report['truncated'] else ''))
            verdicts.append(('%d records: time %.2fx the bare dump <= %.1fx' % (size, time_x, TARGET_RATIO), time_x <= TARGET_RATIO))
            verdicts.append(('%d records: peak memory %.2fx the bare dump <= %.1fx' % (size, mem_x, TARGET_RATIO), mem_x <= TARGET_RATIO))
            if size == 10000:
                # CPU seconds: on a shared machine the wall time says more about the neighbours than the report
                verdicts.append(('10000 records: %.1f CPU s (%.1f s wall) < %d s' % (report['cpu'], report['seconds'], TARGET_10K_S),
                                 report['cpu'] < TARGET_10K_S))
            sys.stdout.flush()
    finally:
        if not args.workdir:
            shutil.rmtree(workdir, ignore_errors=True)
    print('\nTargets:')
    for text, ok in verdicts:
        print('  %-60s %s' % (text, 'PASS' if ok else 'FAIL'))
    return 0 if all(ok for _text, ok in verdicts) else 1


if __name__ == '__main__':
    sys.exit(main())
