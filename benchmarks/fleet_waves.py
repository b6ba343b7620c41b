# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""The controller's cost of walking a fleet's rounds (``roles/benchmark/tasks/waves.yml``), alone, from 4 to 32
hosts: no lab, no tool, no SSH.

The real ``waves.yml`` (of this checkout, and of a git revision with ``--compare REV``) runs on N hosts of
``ansible_connection=local`` with a plan shaped as ``benchmark_plan``'s for a full mesh in rounds (the circle
method: N-1 waves, each client once a wave, every test item a dict of 40 keys as a real plan item has about
that many), and with ``round.yml``/``run.yml`` replaced by one ``set_fact`` that reads the wave's ``__items`` and
``__servers``: what is left is what the include, its ``when`` and its variables cost per host and wave, the part
of a fleet's time that grew with the cube of the host count (issue 31: 352 s before a 32-host fleet's first
test). Printed per size: the seconds of each revision and their ratio, measured in one run (the machine's load
moves both alike).

    .venv/bin/python benchmarks/fleet_waves.py --compare HEAD~1 --sizes 4 8 16 32
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WAVES = 'roles/benchmark/tasks/waves.yml'
# what round.yml and run.yml would do with the wave: read its tests and servers
STUB = '''---
- name: A round's tests (a stand-in that reads them)
  ansible.builtin.set_fact:
    __seen: "{{ (__seen | default(0) | int) + (__items | length) + (__servers | length) }}"
'''
PLAY = '''---
- name: A fleet's rounds on local hosts
  hosts: all
  gather_facts: false
  tasks:
    - name: The plan, as benchmark_plan registers it on every host
      ansible.builtin.set_fact:
        __benchmark_plan: "{{ lookup('file', 'plan.json') | from_json }}"
      run_once: true
    - name: The rounds
      ansible.builtin.include_tasks: waves.yml
      vars:
        __benchmark_servers_held: true
        benchmark_nic_sampling: false
'''


def mesh_plan(n):
    """A plan of a full mesh in rounds, shaped as benchmark_plan's: runs and servers, each with its client and wave."""
    hosts = ['h%02d' % i for i in range(1, n + 1)]
    runs = []
    others = hosts[1:]
    for wave in range(n - 1):
        order = [hosts[0]] + others[wave:] + others[:wave]
        for i in range(n // 2):
            a, b = order[i], order[n - 1 - i]
            for client, server in ((a, b), (b, a)):
                item = dict(('key%02d' % k, 'value %d of %s' % (k, client)) for k in range(40))
                item.update(client=client, server=server, wave=wave, pair='%s->%s' % (client, server),
                            test_id='iperf3/tcp_stream/parallel=1')
                runs.append(item)
    servers = [dict(item, bench_server={'tool': 'iperf3', 'bind': item['server'], 'port': 5201}) for item in runs]
    return hosts, {'runs': runs, 'servers': servers, 'waves': n - 1}


def waves_file(revision):
    if revision is None:
        with open(os.path.join(ROOT, WAVES)) as handle:
            return handle.read()
    return subprocess.run(['git', '-C', ROOT, 'show', '%s:%s' % (revision, WAVES)], check=True,
                          capture_output=True, text=True).stdout


def run_once(work, waves_text, hosts, forks):
    with open(os.path.join(work, 'waves.yml'), 'w') as handle:
        handle.write(waves_text)
    with open(os.path.join(work, 'hosts.ini'), 'w') as handle:
        handle.write('[all]\n' + ''.join('%s ansible_connection=local ansible_python_interpreter=%s\n'
                                         % (h, sys.executable) for h in hosts))
    playbook = os.path.join(os.path.dirname(sys.executable), 'ansible-playbook')
    start = time.monotonic()
    subprocess.run([playbook, '-i', 'hosts.ini', '-f', str(forks), 'play.yml'], cwd=work, check=True,
                   stdout=subprocess.DEVNULL, env=dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, 'ansible.cfg')))
    return time.monotonic() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n', maxsplit=1)[0])
    parser.add_argument('--sizes', type=int, nargs='+', default=[4, 8, 16, 32])
    parser.add_argument('--compare', metavar='REV', help='a git revision whose waves.yml runs beside this one')
    parser.add_argument('--forks', type=int, default=64)
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix='fleet-waves-')
    try:
        for name in ('round.yml', 'run.yml'):
            with open(os.path.join(work, name), 'w') as handle:
                handle.write(STUB)
        with open(os.path.join(work, 'play.yml'), 'w') as handle:
            handle.write(PLAY)
        revisions = [None] + ([args.compare] if args.compare else [])
        texts = dict((rev, waves_file(rev)) for rev in revisions)
        print('load average at start: %.2f %.2f %.2f' % os.getloadavg())
        for n in args.sizes:
            hosts, plan = mesh_plan(n)
            with open(os.path.join(work, 'plan.json'), 'w') as handle:
                json.dump(plan, handle)
            took = dict((rev, run_once(work, texts[rev], hosts, args.forks)) for rev in revisions)
            line = 'N=%2d  %2d waves  %4d tests   this checkout %7.1f s' % (n, n - 1, len(plan['runs']), took[None])
            if args.compare:
                line += '   %s %7.1f s   ratio %.2f' % (args.compare, took[args.compare], took[args.compare] / took[None])
            print(line, flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == '__main__':
    main()
