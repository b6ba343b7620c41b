# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""How a fleet's full mesh in rounds scales with the host count: 4, 8, 16, 32 hosts.

One local lab of ``--lab-hosts`` hosts (32 by default) with every data link shaped to ``--rate-mbit``
(low, so that this machine's 2 cores carry every pair of a round at once and the network, not the CPU,
sets the rate) is brought up once and the tools installed once. For each size N the fleet study runs as
a user runs it, one command::

    ansible-playbook playbooks/benchmark.yml -i <lab inventory> --limit <the first N hosts>,localhost \\
        -e perflab_suite=<iperf3 tcp_stream, --duration s, 1 repetition> -e '{"perflab_fleet": {"schedule": "mesh"}}'

A mesh of N hosts runs in 2(N-1) rounds (N-1 pairings of N/2 pairs by the circle method, each way once);
each round is one ``bench_test`` task for all its clients. Printed for each run:

- wall time / (rounds x test duration): the issue's ratio, the whole command (validation, preflight,
  plan, the rounds, the report) against the rounds' test time;
- the rounds' phase (from the first round's include to the summary, ``ansible.posix.profile_tasks``
  timestamps) / (rounds x duration), and the controller's cost per round: (phase - rounds x duration) / rounds;
- the fixed cost outside the rounds (before: validation, lock, preflight, plan; after: summary, unlock, publish
  and the report);
- controller CPU seconds (ansible-playbook, its workers and SSH clients), how busy the machine was and its load
  average (the machine is shared: the spread of ``--repeat`` runs of one size shows how much the load moves it);
- with ``--breakdown``, where a round's time goes: each task of the rounds' phase, its seconds per round.

The goal (issue 31): the harness adds at most 25 % to the rounds' test time at 32 hosts (PASS/FAIL on the
ratio of the largest size).

``--slow HOST --slow-mbit R`` shapes one host's data link lower (tbf on its data0 and on its switch port) for
the largest size's run (the Done-when run of issue 31) and prints the fleet matrix's verdicts from the run's
text report: the slowed host should be the one flagged, with its qdisc as the likely cause.

Run from a checkout after ``make bootstrap``, as root::

    .venv/bin/python benchmarks/fleet_scale.py --lab-up --install-tools --keep-lab --sizes 4 8 16 32 --repeat 32
    .venv/bin/python benchmarks/fleet_scale.py --sizes 32 --duration 10 --slow lab07 --slow-mbit 20 --keep-lab
    .venv/bin/python benchmarks/fleet_scale.py --lab-down

The lab is ``fscale`` (10.245.0.0/24 management, 10.245.1.0/24 data) unless ``--lab/--mgmt/--data`` say
otherwise; 32 hosts took 16 minutes to set up and install on a loaded 2-core machine (``--keep-lab`` and, next time,
``--tools-installed`` without ``--lab-up`` and ``--install-tools`` skip that). The lab is brought down at the
end unless ``--keep-lab``.
"""

from __future__ import (absolute_import, division, print_function)

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time

import yaml

from labbench import ENV, Lab, add_lab_arguments, children_cpu, cpu_times, load_average, log, make_workdir, read_timeline

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PLAYBOOK = os.path.join(os.path.dirname(os.path.abspath(sys.executable)), 'ansible-playbook')
TARGET_HOSTS, TARGET_RATIO = 32, 1.25
# the tasks that open and close the rounds' phase (roles/benchmark/tasks/main.yml)
FIRST_ROUND_TASK = "Run this client's tests"
AFTER_ROUNDS_TASK = 'Count the results of this run'


def rounds_phase(timeline):
    """(start, end) seconds of the rounds: the first round's include to the summary's first task."""
    start = next((at for name, at, dummy in timeline if name.endswith(FIRST_ROUND_TASK)), None)
    end = next((at for name, at, dummy in timeline if start is not None and at >= start
                and name.endswith(AFTER_ROUNDS_TASK)), None)
    return start, end


def breakdown(timeline, start, end):
    """Task name -> seconds spent in it within [start, end)."""
    out = {}
    for name, at, duration in timeline:
        if start <= at < end:
            out[name] = out.get(name, 0.0) + duration
    return out


def lab_hosts(lab):
    """The lab's hosts in their number's order (lab1, lab2, ... lab10)."""
    return sorted(lab.hostvars(), key=lambda name: (len(name), name))


def write_suite(path, duration):
    with open(path, 'w') as handle:
        yaml.safe_dump({'name': 'fleet-scale', 'description': 'one iperf3 TCP test per ordered pair',
                        'defaults': {'duration': duration, 'repetitions': 1},
                        'tests': [{'tool': 'iperf3', 'test': 'tcp_stream'}]}, handle)


def shape(lab, host, mbit):
    """tbf on the host's data0 (what it sends) and its switch port (what it receives); mbit None: back to the lab's rate."""
    def tbf(rate):
        return ['tbf', 'rate', '%dmbit' % rate, 'burst', '600000', 'latency', '50ms']
    proc = lab.ssh(host, ['tc', 'qdisc', 'replace' if mbit else 'del', 'dev', 'data0', 'root'] + (tbf(mbit) if mbit else []))
    if mbit and proc.returncode:
        raise RuntimeError('tc on %s: %s' % (host, proc.stderr))
    port = 'p%d' % int(re.sub(r'\D', '', host))
    subprocess.run(['ip', 'netns', 'exec', '%s-sw' % lab.name, 'tc', 'qdisc', 'replace', 'dev', port, 'root']
                   + tbf(mbit or lab.rate_mbit), check=True, capture_output=True)


def run_size(lab, args, hosts, label, workdir):
    """One fleet mesh over ``hosts``; returns its measurements."""
    results = os.path.join(workdir, 'results-' + label)
    os.makedirs(results)
    suite = os.path.join(workdir, 'suite.yml')
    write_suite(suite, args.duration)
    log_path = os.path.join(workdir, label + '.log')
    run_id = 'fleet-scale-' + label
    extra = {'perflab_suite': suite, 'perflab_install_tools': False, 'perflab_results_dir': results,
             'perflab_run_id': run_id, 'perflab_fleet': {'schedule': 'mesh'}, 'perflab_firewall_mode': 'unmanaged'}
    argv = [PLAYBOOK, os.path.join(ROOT, 'playbooks', 'benchmark.yml'), '-i', lab.inventory, '--limit', ','.join(hosts + ['localhost']),
            '-e', json.dumps(extra)]
    env = dict(ENV, ANSIBLE_CALLBACKS_ENABLED='perflab.network.results,ansible.posix.profile_tasks',
               PROFILE_TASKS_TASK_OUTPUT_LIMIT='all', PERFLAB_RESULTS_DIR=results)
    if args.forks:
        env['ANSIBLE_FORKS'] = str(args.forks)
    load_before = os.getloadavg()
    busy0, total0 = cpu_times()
    cpu0 = children_cpu()
    start = time.time()
    with open(log_path, 'w') as out:
        rc = subprocess.call(argv, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    wall = time.time() - start
    busy1, total1 = cpu_times()
    records = []
    jsonl = os.path.join(results, run_id + '.jsonl')
    if os.path.exists(jsonl):
        with open(jsonl) as handle:
            records = [r for r in (json.loads(line) for line in handle if line.strip())
                       if r.get('schema', '').startswith('perflab.result/') and r.get('test_id')]
    n = len(hosts)
    rounds = 2 * (n - 1) if n % 2 == 0 else 2 * n
    timeline = read_timeline(log_path)
    first, after = rounds_phase(timeline)
    phase = (after - first) if first is not None and after is not None else float('nan')
    test_time = rounds * args.duration
    text_path = os.path.join(results, run_id + '.txt')
    return {
        'label': label, 'hosts': n, 'rc': rc, 'wall': wall, 'log': log_path, 'rounds': rounds,
        'ratio': wall / test_time, 'phase': phase, 'phase_ratio': phase / test_time,
        'per_round': (phase - test_time) / rounds, 'before': first if first is not None else float('nan'),
        'after': wall - (after if after is not None else wall),
        'controller_cpu': children_cpu() - cpu0, 'busy': (busy1 - busy0) / float(max(total1 - total0, 1)),
        'load_before': load_before, 'load_after': os.getloadavg(),
        'ok': sum(1 for r in records if r.get('status') == 'ok'),
        'not_ok': sum(1 for r in records if r.get('status') != 'ok'),
        'tasks': breakdown(timeline, first, after) if first is not None and after is not None else {},
        'text': open(text_path).read() if os.path.exists(text_path) else '',
    }


def show_run(run):
    log('%-10s %5d %6d %7.1f %7.2f %7.1f %7.2f %9.2f %7.1f %7.1f %8.1f %5.0f%% %15s %15s %4d ok %3d not ok%s' % (
        run['label'], run['hosts'], run['rounds'], run['wall'], run['ratio'], run['phase'], run['phase_ratio'],
        run['per_round'], run['before'], run['after'], run['controller_cpu'], 100 * run['busy'],
        '%.2f %.2f %.2f' % run['load_before'], '%.2f %.2f %.2f' % run['load_after'], run['ok'], run['not_ok'],
        '' if run['rc'] == 0 else '  rc=%d (see %s)' % (run['rc'], run['log'])))


def show_breakdown(run, top):
    log('\nWhere a round\'s time goes at %d hosts (profile_tasks, seconds per round over %d rounds; the test task '
        'includes the %s s test):' % (run['hosts'], run['rounds'], run['duration']))
    for name, total in sorted(run['tasks'].items(), key=lambda item: -item[1])[:top]:
        log('  %7.2f  %s' % (total / run['rounds'], name))


def show_matrix(run):
    text = run['text']
    at = text.find('Fleet matrix')
    if at < 0:
        log('\nno fleet matrix in the text report (see %s)' % run['log'])
        return
    verdicts = [line for line in text[at:].splitlines() if re.match(r'^\S+: (healthy|slow|unreachable)', line)]
    log('\nFleet matrix verdicts (%d hosts):' % run['hosts'])
    for line in verdicts:
        if not line.endswith(': healthy'):
            log('  ' + line)
    log('  healthy: %d of %d' % (sum(1 for line in verdicts if line.endswith(': healthy')), len(verdicts)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n', maxsplit=1)[0])
    parser.add_argument('--sizes', type=int, nargs='+', default=[4, 8, 16, 32], help='host counts (default 4 8 16 32)')
    parser.add_argument('--repeat', type=int, nargs='*', default=[], help='host counts measured a second time, last')
    parser.add_argument('--duration', type=int, default=5, help='each test\'s seconds (default 5)')
    parser.add_argument('--forks', type=int, help='ANSIBLE_FORKS (default: ansible.cfg\'s)')
    add_lab_arguments(parser)
    parser.set_defaults(lab='fscale', mgmt='10.245.0.0/24', data='10.245.1.0/24')
    parser.add_argument('--lab-hosts', type=int, default=32, help='hosts of the lab (default 32)')
    parser.add_argument('--rate-mbit', type=int, default=100, help='shaped rate of every data link (default 100)')
    parser.add_argument('--lab-up', action='store_true', help='bring the lab up first (nothing changes if it is up)')
    parser.add_argument('--install-tools', action='store_true', help='install the tools on every lab host first')
    parser.add_argument('--lab-down', action='store_true', help='only bring the lab down')
    parser.add_argument('--slow', help='shape this host lower for the largest size\'s run (the Done-when run)')
    parser.add_argument('--slow-mbit', type=int, default=20, help='the slowed host\'s rate (default 20)')
    parser.add_argument('--breakdown', type=int, default=12, help='tasks shown per round for each size (default 12; 0: none)')
    parser.add_argument('--workdir', help='keep logs and results here (default: a temporary directory, removed)')
    args = parser.parse_args()

    workdir = make_workdir(args.workdir, 'perflab-fleet-scale-')
    lab = Lab(args.lab, args.mgmt, args.data, hosts=args.lab_hosts, rate_mbit=args.rate_mbit, workdir=workdir)
    runs = []
    try:
        if args.lab_down:
            log('lab %s down: %.0f s' % (args.lab, lab.down()))
            return 0
        if args.lab_up:
            log('lab %s up (%d hosts, %d Mbit/s links): %.0f s' % (args.lab, args.lab_hosts, args.rate_mbit, lab.up()))
        if args.install_tools:
            log('tools installed on %d hosts: %.0f s' % (args.lab_hosts, lab.install_tools()))
        names = lab_hosts(lab)
        if max(args.sizes + args.repeat) > len(names):
            parser.error('the lab has %d hosts; bring up more (--lab-hosts)' % len(names))
        log('fleet mesh, iperf3 tcp_stream %d s, %d Mbit/s links, forks %s, %d cores; %s' % (
            args.duration, args.rate_mbit, args.forks or 'ansible.cfg', os.cpu_count() or 1, time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())))
        log('ratio = wall / (rounds x duration); phase = the rounds (first round to summary); per round = '
            '(phase - rounds x duration) / rounds; before/after: outside the rounds; s, load 1/5/15 min')
        log('%-10s %5s %6s %7s %7s %7s %7s %9s %7s %7s %8s %6s %15s %15s' % (
            'run', 'hosts', 'rounds', 'wall', 'ratio', 'phase', 'ph.rat', 'per round', 'before', 'after', 'ctrl CPU',
            'busy', 'load before', 'load after'))
        largest = max(args.sizes)
        order = [(n, '%02d' % n) for n in args.sizes] + [(n, '%02d-again' % n) for n in args.repeat]
        for n, label in order:
            slow = args.slow if args.slow and n == largest and not label.endswith('again') else None
            if slow:
                if slow not in names[:n]:
                    parser.error('--slow %s is not one of the first %d hosts' % (slow, n))
                shape(lab, slow, args.slow_mbit)
            try:
                run = run_size(lab, args, names[:n], label, workdir)
            finally:
                if slow:
                    shape(lab, slow, None)
            run['duration'], run['slow'] = args.duration, slow
            runs.append(run)
            show_run(run)
        for run in runs:
            if args.breakdown and run['tasks'] and not run['label'].endswith('again'):
                show_breakdown(run, args.breakdown)
        for run in runs:
            if run['slow']:
                log('\n%s slowed to %d Mbit/s (the others %d):' % (run['slow'], args.slow_mbit, args.rate_mbit))
                show_matrix(run)
        target = [r for r in runs if r['hosts'] == TARGET_HOSTS]
        if target:
            worst = max(r['ratio'] for r in target)
            log('\nTarget: the harness adds at most %d%% to the rounds\' test time at %d hosts (ratio <= %.2f): '
                '%s -> %s (load average now %s)' % (
                    round(100 * (TARGET_RATIO - 1)), TARGET_HOSTS, TARGET_RATIO,
                    ', '.join('%.2f' % r['ratio'] for r in target),
                    'PASS' if worst <= TARGET_RATIO and all(r['rc'] == 0 for r in target) else 'FAIL', load_average()))
        return 0 if all(r['rc'] == 0 for r in runs) else 1
    finally:
        if not args.keep_lab and not args.lab_down:
            log('lab %s down: %.0f s' % (args.lab, lab.down()))
        if not args.workdir:
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == '__main__':
    sys.exit(main())
