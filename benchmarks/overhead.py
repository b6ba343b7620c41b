# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""Overhead of the benchmark role: the quick suite through Ansible vs the tests alone vs a shell script.

It brings up a private two-host lab (``playbooks/lab_up.yml``, lab ``bperf``,
link shaped to ``--rate`` Mbit/s so that the throughput tests do not eat the
CPU the controller needs), installs the tools once, then alternates
``--runs`` times:

* ``role``: ``playbooks/benchmark.yml -e perflab_suite=quick -e
  perflab_duration=10 -e perflab_install_tools=false`` (the whole playbook:
  validation, plan, preflight, servers, every test, summary and the results
  callback's JSON lines and workbook), timed from process start to exit;
* ``shell``: a plain bash script that does the same work by hand over plain
  SSH (no connection sharing): start the servers the role started (same
  tools, addresses and ports), wait for their ports, run each recorded
  test's exact ``command`` argv on the client (the processes of one test
  side by side), stop the servers. It is built from the role run's JSON
  lines, written to a file and timed as ``bash FILE``.

It prints per run and as medians: the role's wall time, the sum of the
tests' own durations (``duration_s`` and ``ended_at - started_at`` of the
records), the shell script's wall time, and the ratios role/tests,
shell/tests and role/shell. Target: role <= 1.15 x shell. With
``--profile`` the role runs with ``profile_tasks`` and the slowest tasks
(median over runs) are printed, with the time the results callback spends on
the workbook at the end. The load average is printed around every run: the
machine may be shared, so read the medians.

    .venv/bin/python benchmarks/overhead.py --runs 3
"""

from __future__ import (absolute_import, division, print_function)

import argparse
import collections
import datetime
import glob
import json
import os
import re
import resource
import shlex
import subprocess
import sys
import time

import labbench
from labbench import load_average, log, median
# labbench put .collections on the path
from ansible_collections.perflab.network.plugins.module_utils.tools import registry

TARGET = 1.15


def read_records(results_dir):
    records = []
    for path in glob.glob(os.path.join(results_dir, '*.jsonl')):
        with open(path) as handle:
            for line in handle:
                record = json.loads(line)
                if record.get('schema') == 'perflab.result/2':
                    records.append(record)
    return records


def stamp(text):
    return datetime.datetime.strptime(text, '%Y-%m-%dT%H:%M:%S.%fZ')


def test_seconds(records):
    """Sum of duration_s, and of ended_at - started_at, over the records that ran."""
    ran = [r for r in records if r['status'] == 'ok']
    return (sum(float(r['duration_s']) for r in ran),
            sum((stamp(r['ended_at']) - stamp(r['started_at'])).total_seconds() for r in ran))


def server_port(tool, argv):
    """The server (control) port a client argv talks to (the tool's registry file knows its flags)."""
    return registry.get(tool).argv_port(argv)


def server_command(tool, port, address, pidfile):
    """A server as a person would start it: in the foreground, in the background of the shell, with a pidfile.

    The same argv the role's bench_server runs (the tool's registry file), found on the host's PATH.
    """
    entry = registry.get(tool)
    argv = entry.server_argv(entry.server_executable, port, address)
    return 'setsid %s </dev/null >/dev/null 2>&1 & echo $! > %s' % (' '.join(shlex.quote(a) for a in argv), pidfile)


def shell_script(lab, records, outdir):
    """The bash script doing by hand what the role did (from the role run's records)."""
    ran = [r for r in records if r['status'] == 'ok']
    hosts = lab.hostvars()
    by_address = dict((hv['perflab_data_address'], name) for name, hv in hosts.items())
    servers = collections.OrderedDict()
    for record in ran:
        for argv in record['commands'] or [record['command']]:
            address = record['server']['address']
            servers[(by_address[address], record['tool'], server_port(record['tool'], argv))] = address
    ssh = ' '.join(shlex.quote(a) for a in lab.ssh_argv('lab1')[:-1])
    lines = ['#!/bin/bash', '# the quick suite by hand: servers, each test over ssh, servers stopped',
             'set -u', 'SSH=(%s)' % ssh, 'OUT=%s' % shlex.quote(outdir), 'rc=0']
    for host in sorted(set(key[0] for key in servers)):
        starts, ports, pids = [], [], []
        for (server_host, tool, port), address in servers.items():
            if server_host != host:
                continue
            pidfile = '/tmp/shellbench-%s-%d.pid' % (tool, port)
            starts.append(server_command(tool, port, address, pidfile))
            ports.append(port)
            pids.append(pidfile)
        wait = ('for i in $(seq 100); do up=0; for p in %s; do ss -Hltn "sport = :$p" | grep -q . && up=$((up+1)); done; '
                '[ $up -eq %d ] && break; sleep 0.05; done' % (' '.join(map(str, ports)), len(ports)))
        remote = '; '.join(starts + [wait])
        lines.append('"${SSH[@]}" root@%s %s' % (hosts[host]['ansible_host'], shlex.quote(remote)))
        lines.append('STOP_%s=%s' % (host, shlex.quote('for f in %s; do kill -TERM -- -$(cat $f) 2>/dev/null; rm -f $f; done'
                                                       % ' '.join(pids))))
    for number, record in enumerate(ran):
        client = hosts[record['client']['name']]['ansible_host']
        argvs = record['commands'] or [record['command']]
        remote = ' & '.join(' '.join(shlex.quote(a) for a in argv) for argv in argvs)
        if len(argvs) > 1:
            remote += ' & wait'
        lines.append('"${SSH[@]}" root@%s %s > "$OUT/%02d.out" 2>&1 || rc=1' % (client, shlex.quote(remote), number))
    for host in sorted(set(key[0] for key in servers)):
        lines.append('"${SSH[@]}" root@%s "$STOP_%s"' % (hosts[host]['ansible_host'], host))
    lines.append('exit $rc')
    return '\n'.join(lines) + '\n'


def children_cpu():
    """CPU seconds (user + system) of this process's finished children: ansible-playbook and its ssh, or bash and its ssh."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def profile_times(path):
    """Task name -> seconds from a profile_tasks recap in a playbook log."""
    times = {}
    with open(path) as handle:
        text = handle.read()
    recap = text.split('TASKS RECAP', 1)[-1]
    for match in re.finditer(r'^(.*?) -+ (\d+\.\d+)s$', recap, re.M):
        times[match.group(1).strip()] = float(match.group(2))
    return times


def workbook_seconds(jsonl):
    """Wall and CPU seconds of the results callback's end-of-run work (report + workbook), in a fresh process."""
    code = ('import sys, time, resource; sys.path.insert(0, %r)\n'
            't = time.perf_counter()\n'
            'from ansible_collections.perflab.network.plugins.module_utils.report import build\n'
            'build.build_report([%r], workbook_path=%r)\n'
            'u = resource.getrusage(resource.RUSAGE_SELF)\n'
            'print(time.perf_counter() - t, u.ru_utime + u.ru_stime)\n'
            % (os.path.join(labbench.ROOT, '.collections'), jsonl, jsonl[:-6] + '.bench.xlsx'))
    out = subprocess.check_output([sys.executable, '-c', code], text=True)
    wall, cpu = out.split()
    return float(wall), float(cpu)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n', maxsplit=1)[0])
    parser.add_argument('--runs', type=int, default=3, help='role and shell runs each, alternated (default 3)')
    parser.add_argument('--duration', type=int, default=10, help='seconds per test (perflab_duration, default 10)')
    parser.add_argument('--suite', default='quick', help='suite (default quick)')
    parser.add_argument('--rate', type=int, default=1000, help='lab link rate in Mbit/s, 0 = unshaped (default 1000)')
    parser.add_argument('--profile', action='store_true', help='run the role with profile_tasks; print the slowest tasks')
    labbench.add_lab_arguments(parser)
    args = parser.parse_args()

    started = time.perf_counter()
    lab = labbench.Lab(args.lab, args.mgmt, args.data, rate_mbit=args.rate)
    log('overhead: lab %s (%s, %s), link %s, suite %s, %d s per test, %d role + %d shell runs alternated; workdir %s'
        % (lab.name, lab.mgmt, lab.data, '%d Mbit/s' % args.rate if args.rate else 'unshaped', args.suite,
           args.duration, args.runs, args.runs, lab.workdir))
    log('load average at start: %s' % load_average())
    rows = []
    profiles = []
    try:
        labbench.set_up(lab, args.tools_installed)
        env = {}
        if args.profile:
            env['ANSIBLE_CALLBACKS_ENABLED'] = 'perflab.network.results,ansible.posix.profile_tasks'
            env['PROFILE_TASKS_TASK_OUTPUT_LIMIT'] = '100'
        script = None
        for run in range(args.runs):
            results_dir = os.path.join(lab.workdir, 'results-%d' % run)
            load_before = load_average()
            cpu = children_cpu()
            rc, role_s, path = lab.playbook('playbooks/benchmark.yml', {
                'perflab_suite': args.suite, 'perflab_duration': args.duration, 'perflab_install_tools': False,
                'perflab_results_dir': results_dir}, env=env, log_name='role-%d.log' % run)
            role_cpu = children_cpu() - cpu
            records = read_records(results_dir)
            failed = [r['test_id'] for r in records if r['status'] == 'failed']
            if rc != 0 or failed or not records:
                raise RuntimeError('role run %d: rc %d, failed tests %s; see %s' % (run, rc, failed, path))
            duration_sum, stamped_sum = test_seconds(records)
            if args.profile:
                profiles.append(profile_times(path))
            if script is None:
                script = os.path.join(lab.workdir, 'quick-by-hand.sh')
                outdir = os.path.join(lab.workdir, 'shell-out')
                os.makedirs(outdir)
                with open(script, 'w') as handle:
                    handle.write(shell_script(lab, records, outdir))
                log('shell script: %s (%d tests)' % (script, len([r for r in records if r['status'] == 'ok'])))
            load_mid = load_average()
            start, cpu = time.perf_counter(), children_cpu()
            proc = subprocess.run(['bash', script], capture_output=True, text=True, check=False)
            shell_s, shell_cpu = time.perf_counter() - start, children_cpu() - cpu
            if proc.returncode != 0:
                raise RuntimeError('the shell script failed (rc %d): %s' % (proc.returncode, proc.stderr[-2000:]))
            rows.append({'role': role_s, 'shell': shell_s, 'role_cpu': role_cpu, 'shell_cpu': shell_cpu, 'dur': duration_sum, 'stamped': stamped_sum,
                         'load': '%s / %s / %s' % (load_before, load_mid, load_average()),
                         'jsonl': glob.glob(os.path.join(results_dir, '*.jsonl'))[0]})
            log('run %d: role %.1f s, shell %.1f s, tests %.1f s (stamped %.1f s); load %s'
                % (run + 1, role_s, shell_s, duration_sum, stamped_sum, rows[-1]['load']))

        role, shell = median([r['role'] for r in rows]), median([r['shell'] for r in rows])
        dur, stamped = median([r['dur'] for r in rows]), median([r['stamped'] for r in rows])
        print()
        print('%-5s %9s %9s %11s %11s %8s %8s %8s  %s' % ('run', 'role s', 'shell s', 'tests s', 'stamped s',
                                                          'role/t', 'shell/t', 'role/sh', 'load avg (before role / '
                                                          'before shell / after)'))
        for number, r in enumerate(rows):
            print('%-5d %9.1f %9.1f %11.1f %11.1f %8.3f %8.3f %8.3f  %s' % (
                number + 1, r['role'], r['shell'], r['dur'], r['stamped'], r['role'] / r['stamped'],
                r['shell'] / r['stamped'], r['role'] / r['shell'], r['load']))
        print('%-5s %9.1f %9.1f %11.1f %11.1f %8.3f %8.3f %8.3f' % (
            'med', role, shell, dur, stamped, role / stamped, shell / stamped, role / shell))
        print()
        print('role overhead over the tests: %.1f s (%.1f%%); shell script overhead: %.1f s; role - shell: %.1f s'
              % (role - stamped, 100.0 * (role - stamped) / stamped, shell - stamped, role - shell))
        print('controller CPU (ansible-playbook and its ssh / bash and its ssh), median: role %.1f s, shell %.1f s'
              % (median([r['role_cpu'] for r in rows]), median([r['shell_cpu'] for r in rows])))
        wall, cpu = workbook_seconds(rows[-1]['jsonl'])
        print('results callback end of run (report + workbook of one run, fresh process): %.2f s wall, %.2f s CPU'
              % (wall, cpu))
        if profiles:
            print()
            print('slowest tasks of the role (profile_tasks, median over %d runs):' % len(profiles))
            names = set(name for profile in profiles for name in profile)
            medians = sorted(((median([p.get(n, 0.0) for p in profiles]), n) for n in names), reverse=True)
            for seconds, name in medians[:25]:
                print('  %6.2f s  %s' % (seconds, name))
        verdict = 'PASS' if role <= TARGET * shell else 'FAIL'
        print()
        print('target: role <= %.2f x shell script; measured %.3f x (medians of %d alternated runs): %s'
              % (TARGET, role / shell, len(rows), verdict))
        print('how: wall time of ansible-playbook playbooks/benchmark.yml (suite %s, %d s tests, tools installed '
              'before) vs bash running the same argv over plain ssh; load average now %s; total %.0f s'
              % (args.suite, args.duration, load_average(), time.perf_counter() - started))
        return 0 if verdict == 'PASS' else 1
    finally:
        labbench.tear_down(lab, [], args.keep_lab)


if __name__ == '__main__':
    sys.exit(main())
