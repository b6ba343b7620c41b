# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""How a study scales with host pairs: 1, 4, 8, 16 pairs running the quick suite at once.

One local lab (``playbooks/lab_up.yml``) with two hosts per pair and shaped data
links (``--rate-mbit``, low enough that this machine's CPU carries every pair at
once) is brought up once, the tools are installed once on all its hosts, then
``playbooks/benchmark.yml`` runs with ``perflab_install_tools=false`` against the
first N pairs of the lab's inventory (``--limit``; forks = the lab's host count)
and its wall time is measured. The 1-pair baseline runs before every other
size (the machine may be shared: the baseline is the mean of those runs) and
each run prints the load average, the controller's CPU seconds (ansible-playbook,
its workers and SSH clients) and how busy the whole machine was.

It prints wall time / baseline for each size and checks the target (at most
1.5x at 8 pairs; PASS/FAIL); when it is missed, the tasks that grew most
(the per-task times ``ansible.posix.profile_tasks`` prints) show where the time goes. With
``--serialize 4`` it also runs 4 pairs with ``benchmark_serialize_pairs=true``
(in the lab every pair shares the one switch: one pair after another) and
compares wall time and per-pair TCP throughput with the concurrent run.

    .venv/bin/python benchmarks/scale.py --lab-up --install-tools --pairs 1 4 8 16 --serialize 4
    .venv/bin/python benchmarks/scale.py --lab-down     # afterwards
"""

from __future__ import (absolute_import, division, print_function)

import argparse
import json
import os
import shutil
import subprocess
import sys
import time

import yaml

from labbench import children_cpu, cpu_times, make_workdir, read_timeline

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PLAYBOOK = os.path.join(ROOT, '.venv', 'bin', 'ansible-playbook')
TARGET_PAIRS = 8
TARGET_RATIO = 1.5
# the tests whose per-pair throughput is compared (concurrent vs serialized)
THROUGHPUT_TESTS = ('iperf3/tcp_stream/parallel=1', 'iperf3/tcp_stream/parallel=4', 'netperf/tcp_stream/parallel=1',
                    'nuttcp/tcp_stream/parallel=1')
TOOLS_PLAY = """---
- name: Install the benchmark tools once on every lab host
  hosts: perflab_lab
  gather_facts: true
  roles:
    - role: perflab.network.tools
"""


def lab_vars(args, state):
    """Extra vars of lab_up.yml / lab_down.yml for this lab."""
    return {'lab_state': state, 'lab_name': args.lab_name, 'lab_hosts': args.hosts, 'lab_mgmt_subnet': args.mgmt_subnet,
            'lab_data_subnet': args.data_subnet, 'lab_rate_mbit': args.rate_mbit}


def inventory_path(args):
    return os.path.join(ROOT, 'inventories', 'lab-%s' % args.lab_name, 'hosts.yml')


def lab_pairs(path):
    """(client, server) of every client of the lab's inventory, in inventory order."""
    with open(path) as handle:
        inventory = yaml.safe_load(handle)
    clients = inventory['all']['children']['perflab_clients']['hosts']
    return [(name, host['perflab_peer']) for name, host in clients.items()]


def ansible(playbook, extra, env, log, limit=None, inventory=None):
    """Run ansible-playbook from the repository root (its ansible.cfg); the log keeps the output."""
    argv = [PLAYBOOK, playbook, '-e', json.dumps(extra)]
    if inventory:
        argv += ['-i', inventory]
    if limit:
        argv += ['--limit', limit]
    with open(log, 'w') as handle:
        return subprocess.call(argv, cwd=ROOT, env=env, stdout=handle, stderr=subprocess.STDOUT)


def read_results(results_dir):
    """Every perflab.result record in the run's JSONL file(s)."""
    records = []
    for name in sorted(os.listdir(results_dir)):
        if not name.endswith('.jsonl'):
            continue
        with open(os.path.join(results_dir, name)) as handle:
            for line in handle:
                try:
                    rec = json.loads(line)
                except ValueError:
                    continue
                if isinstance(rec, dict) and rec.get('schema', '').startswith('perflab.result'):
                    records.append(rec)
    return records


def read_profile(log):
    """Task name -> seconds, from the lines profile_tasks prints under each task header (labbench.read_timeline)."""
    tasks = {}
    for name, dummy, seconds in read_timeline(log):
        tasks[name] = tasks.get(name, 0.0) + seconds
    return tasks


def run_size(args, env, pairs, count, serialize, workdir, label):
    """One benchmark run over the first `count` pairs; returns its measurements."""
    chosen = pairs[:count]
    hosts = [h for pair in chosen for h in (pair[1], pair[0])]
    results_dir = os.path.join(workdir, 'results-%s' % label)
    os.makedirs(results_dir)
    log = os.path.join(workdir, '%s.log' % label)
    extra = {'perflab_suite': args.suite, 'perflab_install_tools': False, 'perflab_results_dir': results_dir,
             'benchmark_serialize_pairs': serialize}
    if args.duration:
        extra['perflab_duration'] = args.duration
    load_before = os.getloadavg()
    busy0, total0 = cpu_times()
    cpu0 = children_cpu()
    start = time.time()
    rc = ansible(os.path.join(ROOT, 'playbooks', 'benchmark.yml'), extra, env, log, limit=','.join(hosts),
                 inventory=inventory_path(args))
    wall = time.time() - start
    busy1, total1 = cpu_times()
    records = read_results(results_dir)
    return {
        'label': label, 'pairs': count, 'serialize': serialize, 'rc': rc, 'wall': wall, 'log': log,
        'controller_cpu': children_cpu() - cpu0, 'machine_busy': (busy1 - busy0) / float(max(total1 - total0, 1)),
        'load_before': load_before, 'load_after': os.getloadavg(),
        'ok': sum(1 for r in records if r.get('status') == 'ok'),
        'failed': sum(1 for r in records if r.get('status') == 'failed'),
        'skipped': sum(1 for r in records if r.get('status') == 'skipped'),
        'records': records, 'profile': read_profile(log),
    }


def throughput(run, test_id):
    """Primary metric (Mbit/s) of each pair's `test_id` in a run, by client."""
    out = {}
    for rec in run['records']:
        if rec.get('test_id') == test_id and rec.get('status') == 'ok':
            metric = (rec.get('metrics') or {}).get(rec.get('primary')) or {}
            if metric.get('value') is not None:
                out[rec['client']['name']] = metric['value']
    return out


def show_run(run):
    print('%-14s %5d %5s %8.1f %9.1f %6.0f%% %15s %15s %4d ok %3d failed %3d skipped%s' % (
        run['label'], run['pairs'], 'yes' if run['serialize'] else 'no', run['wall'], run['controller_cpu'],
        100 * run['machine_busy'], '%.2f %.2f %.2f' % run['load_before'], '%.2f %.2f %.2f' % run['load_after'],
        run['ok'], run['failed'], run['skipped'], '' if run['rc'] == 0 else '  rc=%d (see %s)' % (run['rc'], run['log'])))
    sys.stdout.flush()


def show_throughput(runs):
    print('\nPer-pair throughput, Mbit/s (min / mean / max over the pairs of a run):')
    for test_id in THROUGHPUT_TESTS:
        for run in runs:
            values = sorted(throughput(run, test_id).values())
            if values:
                print('  %-32s %-14s %2d pair(s): %7.1f / %7.1f / %7.1f' % (
                    test_id, run['label'], len(values), values[0], sum(values) / len(values), values[-1]))


def show_growth(base_runs, run, top):
    """The tasks whose time grew most from the 1-pair runs to `run` (profile_tasks)."""
    base = {}
    for one in base_runs:
        for task, seconds in one['profile'].items():
            base[task] = base.get(task, 0.0) + seconds / len(base_runs)
    grown = sorted(((seconds - base.get(task, 0.0), task, base.get(task, 0.0), seconds)
                    for task, seconds in run['profile'].items()), reverse=True)
    print('\nWhere the time goes at %d pairs (profile_tasks, the %d tasks that grew most vs 1 pair):' % (run['pairs'], top))
    print('  %8s %8s %8s  %s' % ('1 pair', '%d pairs' % run['pairs'], 'growth', 'task'))
    for growth, task, before, after in grown[:top]:
        print('  %7.2fs %7.2fs %+7.2fs  %s' % (before, after, growth, task))
    print('  controller CPU: %.1f s over %.1f s wall (%.0f%% of one core); machine busy %.0f%% of %d cores' % (
        run['controller_cpu'], run['wall'], 100 * run['controller_cpu'] / run['wall'], 100 * run['machine_busy'],
        os.cpu_count() or 1))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n', maxsplit=1)[0])
    parser.add_argument('--pairs', type=int, nargs='+', default=[1, 4, 8, 16], help='pair counts to measure (default 1 4 8 16)')
    parser.add_argument('--serialize', type=int, nargs='*', default=[4],
                        help='pair counts also run with benchmark_serialize_pairs=true (default 4; none: skip)')
    parser.add_argument('--suite', default='quick', help='suite to run (default quick)')
    parser.add_argument('--duration', type=int, help='override every test\'s duration (default: the suite\'s)')
    parser.add_argument('--no-alternate', action='store_true', help='run the 1-pair baseline once, not before every size')
    parser.add_argument('--rounds', type=int, default=1, help='measure every size this many times (default 1)')
    parser.add_argument('--lab-name', default='bscale')
    parser.add_argument('--hosts', type=int, default=32, help='lab hosts (2 per pair; default 32)')
    parser.add_argument('--mgmt-subnet', default='10.244.0.0/24')
    parser.add_argument('--data-subnet', default='10.244.8.0/24')
    parser.add_argument('--rate-mbit', type=int, default=50, help='shaped rate of every data link (default 50)')
    parser.add_argument('--lab-up', action='store_true', help='bring the lab up first (nothing changes if it is up)')
    parser.add_argument('--install-tools', action='store_true', help='install the tools on every lab host first')
    parser.add_argument('--lab-down', action='store_true', help='only bring the lab down')
    parser.add_argument('--top', type=int, default=8, help='tasks shown in the time breakdown (default 8)')
    parser.add_argument('--workdir', help='keep logs and results here (default: a temporary directory, removed)')
    args = parser.parse_args()

    workdir = make_workdir(args.workdir, 'perflab-scale-')
    env = dict(os.environ, ANSIBLE_FORKS=str(max(args.hosts, 5)), ANSIBLE_STDOUT_CALLBACK='default',
               ANSIBLE_CALLBACKS_ENABLED='perflab.network.results,ansible.posix.profile_tasks',
               PROFILE_TASKS_TASK_OUTPUT_LIMIT='all', ANSIBLE_NOCOLOR='1')
    try:
        if args.lab_down:
            rc = ansible(os.path.join(ROOT, 'playbooks', 'lab_down.yml'), lab_vars(args, 'absent'), env,
                         os.path.join(workdir, 'lab_down.log'))
            print('lab %s down: rc=%d' % (args.lab_name, rc))
            return rc
        if args.lab_up:
            start = time.time()
            rc = ansible(os.path.join(ROOT, 'playbooks', 'lab_up.yml'), lab_vars(args, 'present'), env,
                         os.path.join(workdir, 'lab_up.log'))
            print('lab %s up (%d hosts, %d Mbit/s links): rc=%d, %.0f s' % (
                args.lab_name, args.hosts, args.rate_mbit, rc, time.time() - start))
            if rc:
                return rc
        if args.install_tools:
            play = os.path.join(workdir, 'tools.yml')
            with open(play, 'w') as handle:
                handle.write(TOOLS_PLAY)
            start = time.time()
            rc = ansible(play, {}, env, os.path.join(workdir, 'tools.log'), inventory=inventory_path(args))
            print('tools installed on %d hosts: rc=%d, %.0f s' % (args.hosts, rc, time.time() - start))
            if rc:
                return rc
        pairs = lab_pairs(inventory_path(args))
        sizes = [n for n in args.pairs if n != 1]
        if max(args.pairs + (args.serialize or [])) > len(pairs):
            parser.error('the lab has %d pairs; bring up more hosts (--hosts)' % len(pairs))

        print('suite %s, %d Mbit/s links, forks %s, %d cores; wall and controller CPU in s; load average 1/5/15 min' % (
            args.suite, args.rate_mbit, env['ANSIBLE_FORKS'], os.cpu_count() or 1))
        print('%-14s %5s %5s %8s %9s %7s %15s %15s' % ('run', 'pairs', 'ser.', 'wall', 'ctrl CPU', 'busy', 'load before',
                                                       'load after'))
        runs, base_runs = [], []
        order = [('base', 1, False)]
        for _round in range(args.rounds):
            for n in sizes:
                order.append(('conc', n, False))
                if not args.no_alternate:
                    order.append(('base', 1, False))
        for n in args.serialize or []:
            order.append(('ser', n, True))
        sequence = []
        for index, (kind, count, serialize) in enumerate(order):
            run = run_size(args, env, pairs, count, serialize, workdir, '%02d-%s-%d' % (index, kind, count))
            run['base'] = kind == 'base'
            (base_runs if run['base'] else runs).append(run)
            sequence.append(run)
            show_run(run)
        # the 1-pair runs just before and just after each run: the machine's load drifts
        for index, run in enumerate(sequence):
            run['neighbours'] = [sequence[i] for i in (index - 1, index + 1) if 0 <= i < len(sequence) and sequence[i]['base']]

        baseline = sum(r['wall'] for r in base_runs) / len(base_runs)
        spread = max(r['wall'] for r in base_runs) - min(r['wall'] for r in base_runs)
        print('\nBaseline (1 pair): %.1f s, mean of %d run(s), spread %.1f s' % (baseline, len(base_runs), spread))
        print('ratio: wall / the mean baseline; local: wall / the mean of the 1-pair runs just before and after it')
        print('%-6s %5s %8s %7s %7s %s' % ('pairs', 'ser.', 'wall s', 'ratio', 'local', 'rc'))
        print('%-6d %5s %8.1f %7.2f %7.2f' % (1, 'no', baseline, 1.0, 1.0))
        for run in runs:
            near = run.get('neighbours') or base_runs
            run['local'] = run['wall'] / (sum(r['wall'] for r in near) / len(near))
            print('%-6d %5s %8.1f %7.2f %7.2f %d' % (run['pairs'], 'yes' if run['serialize'] else 'no', run['wall'],
                                                     run['wall'] / baseline, run['local'], run['rc']))
        target = [r for r in runs if r['pairs'] == TARGET_PAIRS and not r['serialize']]
        if target:
            ratio = sum(r['wall'] for r in target) / len(target) / baseline
            local = sum(r['local'] for r in target) / len(target)
            verdict = 'PASS' if max(ratio, local) <= TARGET_RATIO and all(r['rc'] == 0 for r in target) else 'FAIL'
            print('\nTarget: wall time at %d pairs <= %.1fx one pair: %.2fx (local %.2fx) -> %s' % (
                TARGET_PAIRS, TARGET_RATIO, ratio, local, verdict))
            biggest = max((r for r in runs if not r['serialize']), key=lambda r: r['pairs'])
            for run in ([target[-1]] if verdict == 'FAIL' else []) + ([biggest] if biggest['pairs'] != TARGET_PAIRS else []):
                show_growth(base_runs, run, args.top)
        for count in args.serialize or []:
            ser = [r for r in runs if r['serialize'] and r['pairs'] == count]
            conc = [r for r in runs if not r['serialize'] and r['pairs'] == count]
            if ser and conc:
                print('\n%d pairs serialized: %.1f s vs %.1f s at once (%.2fx); 1 pair: %.1f s' % (
                    count, ser[0]['wall'], conc[0]['wall'], ser[0]['wall'] / conc[0]['wall'], baseline))
        # the links are shaped: every pair near the rate means this machine's CPU was not the limit
        show_throughput([base_runs[0]] + runs)
        return 0 if all(r['rc'] == 0 for r in runs + base_runs) else 1
    finally:
        if not args.workdir:
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == '__main__':
    sys.exit(main())
