# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""How the report builder scales: 1k / 10k / 100k synthetic result records.

For each size it writes a synthetic result file (records shaped like
``perflab.result/1``: 4 metrics, per-second intervals, a NIC sample set on
every 10th record, a bounded ``raw``), then measures, each in a fresh
process so that peak memory (ru_maxrss) is that run's own:

* ``report``: the real thing, ``build.build_report`` from the file to the
  .xlsx (both passes over the file, statistics, styles, charts);
* ``bare``: the same cells (Summary, test tables, Systems, Intervals, Raw)
  written with a bare openpyxl write-only workbook: no styles, no charts,
  from rows already in memory (building them is not timed, and is in its
  peak memory).

It prints seconds, peak RSS and the report/bare ratios. Targets: 10k
records well under a minute, at most 2x the bare dump.

    /tmp/venvtest/bin/python benchmarks/report_scale.py --sizes 1000 10000
"""

from __future__ import (absolute_import, division, print_function)

import argparse
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
                'schema': 'perflab.result/1', 'run_id': 'bench', 'config': config, 'suite': 'scale',
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


def child_bare(source, workdir):
    from openpyxl import Workbook
    from ansible_collections.perflab.network.plugins.module_utils.report import store, tables
    from ansible_collections.perflab.network.plugins.module_utils.report.tables import MAX_SHEET_ROWS
    report = tables.Report(store.ResultFiles([source]))
    sheets = [('Summary', [report.summary_columns()] + report.summary_rows())]
    test_rows = report.tests_rows()
    for number, test in enumerate(report.tests):
        sheets.append(('T%d' % number, [[test.title], [test.units_line], [], list(tables.TESTS_COLUMNS)]
                       + [row for row in test_rows if row[0] == test.test_id]))
    sheets.append(('Systems', [report.systems_columns()] + report.systems_rows()))
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
    parser.add_argument('--child', choices=['report', 'bare'], help=argparse.SUPPRESS)
    parser.add_argument('--source', help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.child:
        result = child_report(args.source, args.workdir) if args.child == 'report' \
            else child_bare(args.source, args.workdir)
        result['peak_rss_mib'] = peak_rss_mib()
        print(json.dumps(result))
        return

    workdir = args.workdir or tempfile.mkdtemp(prefix='perflab-report-scale-')
    if not os.path.isdir(workdir):
        os.makedirs(workdir)
    try:
        print('CPU seconds (wall seconds): the ratio is of CPU time; peak RSS in MiB')
        print('%8s %9s %9s %16s %16s %8s %8s %6s %6s' % (
            'records', 'file MiB', 'cells', 'report s', 'bare s', 'rep MiB', 'bareMiB', 'cpu x', 'mem x'))
        for size in args.sizes:
            source = os.path.join(workdir, 'scale-%d.jsonl' % size)
            generate(size, source, intervals=args.intervals, raw_bytes=args.raw_bytes)
            report = run_child('report', source, workdir)
            bare = run_child('bare', source, workdir)
            print('%8d %9.1f %9d %7.2f (%6.2f) %7.2f (%6.2f) %8.0f %8.0f %6.2f %6.2f%s' % (
                size, os.path.getsize(source) / 1048576.0, bare['cells'], report['cpu'], report['seconds'],
                bare['cpu'], bare['seconds'], report['peak_rss_mib'], bare['peak_rss_mib'],
                report['cpu'] / bare['cpu'],
                report['peak_rss_mib'] / bare['peak_rss_mib'],
                ('  truncated: %s' % ', '.join(report['truncated'])) if report['truncated'] else ''))
            sys.stdout.flush()
    finally:
        if not args.workdir:
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == '__main__':
    main()
