# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""Shared pieces of the lab benchmarks (overhead.py, fidelity.py, line_rate.py).

A private lab brought up and down with ``playbooks/lab_up.yml`` /
``playbooks/lab_down.yml``, the tools installed once with the tools role,
ad-hoc runs of the collection's modules (their JSON result parsed), the same
argv run by hand over plain SSH, and small statistics helpers. Not a script:
the benchmarks import it from their own directory.
"""

from __future__ import (absolute_import, division, print_function)

import argparse
import json
import os
import re
import resource
import shlex
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.dirname(os.path.abspath(sys.executable))
sys.path.insert(0, os.path.join(ROOT, '.collections'))

ENV = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, 'ansible.cfg'), ANSIBLE_FORCE_COLOR='0',
           ANSIBLE_NOCOLOR='1', PATH='%s:%s' % (BIN, os.environ.get('PATH', '')))

TOOLS_PLAYBOOK = """---
- name: Install the benchmark tools once
  hosts: perflab_lab
  gather_facts: true
  tasks:
    - name: Install the tools
      ansible.builtin.include_role:
        name: perflab.network.tools
"""

MTU_PLAYBOOK = """---
- name: Set the data interfaces' MTU
  hosts: perflab_lab
  gather_facts: false
  tasks:
    - name: Set the MTU
      ansible.builtin.include_role:
        name: perflab.network.mtu
      vars:
        mtu_state: configured
        mtu_interfaces: [{name: "{{ perflab_data_interface }}", mtu: "{{ bench_mtu | int }}"}]
"""


def add_lab_arguments(parser):
    """The lab options every script shares: which lab, its subnets, keep it up, tools there already."""
    parser.add_argument('--lab', default='bperf', help='lab name (default bperf)')
    parser.add_argument('--mgmt', default='10.243.0.0/24', help='management subnet (default 10.243.0.0/24)')
    parser.add_argument('--data', default='10.243.1.0/24', help='data subnet (default 10.243.1.0/24)')
    parser.add_argument('--keep-lab', action='store_true', help='leave the lab up at the end (default: bring it down)')
    parser.add_argument('--tools-installed', action='store_true',
                        help='do not run the tools role (a lab kept up by --keep-lab has the tools already)')


def load_average():
    """The 1, 5 and 15 minute load averages, as a string."""
    return '%.2f %.2f %.2f' % os.getloadavg()


# ansible.posix.profile_tasks: a task's header, and the line under it: (the previous task's duration) the elapsed time
HEADER_RE = re.compile(r'^(?:TASK \[(?P<name>.*)\]|(?P<recap>PLAY RECAP)) \*')
TIMING_RE = re.compile(r'\((?P<h>\d+):(?P<m>\d\d):(?P<s>\d\d(?:\.\d+)?)\)\s+(?P<eh>\d+):(?P<em>\d\d):(?P<es>\d\d(?:\.\d+)?)')


def read_timeline(path):
    """[(task name, start second, seconds)] of a playbook's log with ansible.posix.profile_tasks, in order.

    The line under a header holds the elapsed time at that header: a task lasts until the next header (the
    last one until PLAY RECAP). Its recap at the end is not used: after an include it names the wrong tasks.
    """
    timeline, header = [], None
    with open(path) as handle:
        for line in handle:
            match = HEADER_RE.match(line)
            if match:
                header = match.group('name') or match.group('recap')
                continue
            match = TIMING_RE.search(line)
            if match and header is not None:
                at = int(match.group('eh')) * 3600 + int(match.group('em')) * 60 + float(match.group('es'))
                if timeline:
                    name, start, dummy = timeline[-1]
                    timeline[-1] = (name, start, at - start)
                timeline.append((header, at, 0.0))
                header = None
    return timeline


def make_workdir(path, prefix):
    """``path`` (made if missing), or a new temporary directory named ``prefix``...: the logs and results of a run."""
    workdir = path or tempfile.mkdtemp(prefix=prefix)
    if not os.path.isdir(workdir):
        os.makedirs(workdir)
    return workdir


def cpu_times():
    """(busy, total) jiffies of the whole machine, from /proc/stat."""
    with open('/proc/stat') as handle:
        fields = [int(x) for x in handle.readline().split()[1:]]
    idle = fields[3] + fields[4]
    return sum(fields) - idle, sum(fields)


def children_cpu():
    """CPU seconds of this process's finished children (ansible-playbook, its workers and SSH clients)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def median(values):
    values = sorted(values)
    if not values:
        return float('nan')
    middle = len(values) // 2
    return values[middle] if len(values) % 2 else (values[middle - 1] + values[middle]) / 2.0


def log(message):
    print(message)
    sys.stdout.flush()


class Lab(object):
    """One private lab: its playbook variables, inventory, hosts and SSH."""

    def __init__(self, name, mgmt, data, hosts=2, mtu=1500, rate_mbit=0, workdir=None):
        self.name, self.mgmt, self.data, self.hosts = name, mgmt, data, hosts
        self.mtu, self.rate_mbit = mtu, rate_mbit
        self.workdir = workdir or tempfile.mkdtemp(prefix='perflab-bench-%s-' % name)

    @property
    def extra_vars(self):
        return {'lab_name': self.name, 'lab_hosts': self.hosts, 'lab_mgmt_subnet': self.mgmt,
                'lab_data_subnet': self.data, 'lab_mtu': self.mtu, 'lab_rate_mbit': self.rate_mbit}

    @property
    def inventory(self):
        return os.path.join(ROOT, 'inventories', 'lab-' + self.name, 'hosts.yml')

    @property
    def key(self):
        return '/var/lib/perflab/%s/ssh/id_ed25519' % self.name

    def hostvars(self):
        import yaml
        with open(self.inventory) as handle:
            inventory = yaml.safe_load(handle)
        return inventory['all']['children']['perflab_lab']['hosts']

    def playbook(self, playbook, extra_vars=None, inventory=True, env=None, log_name=None):
        """Run a playbook from the repository root; returns (rc, wall seconds, log path)."""
        argv = [os.path.join(BIN, 'ansible-playbook'), playbook]
        if inventory:
            argv += ['-i', self.inventory]
        if extra_vars:
            argv += ['-e', json.dumps(extra_vars)]
        run_env = dict(ENV)
        run_env.update(env or {})
        path = os.path.join(self.workdir, log_name or 'playbook-%d.log' % int(time.time() * 1000))
        with open(path, 'w') as out:
            start = time.perf_counter()
            proc = subprocess.run(argv, cwd=ROOT, env=run_env, stdout=out, stderr=subprocess.STDOUT, check=False)
            elapsed = time.perf_counter() - start
        return proc.returncode, elapsed, path

    def _checked(self, what, playbook, extra_vars=None, inventory=True):
        rc, elapsed, path = self.playbook(playbook, extra_vars, inventory=inventory)
        if rc != 0:
            with open(path) as handle:
                tail = handle.read()[-3000:]
            raise RuntimeError('%s failed (rc %d), log %s:\n%s' % (what, rc, path, tail))
        return elapsed

    def up(self, **lab_vars):
        """Bring the lab up; ``lab_vars`` are more lab role variables (lab_shaper=..., lab_offloads=...)."""
        return self._checked('lab %s up' % self.name, 'playbooks/lab_up.yml', dict(self.extra_vars, **lab_vars),
                             inventory=False)

    def down(self):
        rc, elapsed, path = self.playbook('playbooks/lab_down.yml', self.extra_vars, inventory=False)
        if rc != 0:
            log('WARNING: lab %s did not come down cleanly, see %s' % (self.name, path))
        return elapsed

    def install_tools(self):
        path = os.path.join(self.workdir, 'tools.yml')
        with open(path, 'w') as handle:
            handle.write(TOOLS_PLAYBOOK)
        return self._checked('installing the tools', path)

    def set_mtu(self, mtu):
        path = os.path.join(self.workdir, 'mtu.yml')
        with open(path, 'w') as handle:
            handle.write(MTU_PLAYBOOK)
        return self._checked('setting MTU %d' % mtu, path, {'bench_mtu': mtu})

    def ssh_argv(self, host, multiplex=False):
        """Plain ssh to a lab host (no connection sharing unless ``multiplex``)."""
        argv = ['ssh', '-i', self.key, '-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null',
                '-o', 'LogLevel=ERROR', '-o', 'BatchMode=yes', '-o', 'ConnectTimeout=10']
        if multiplex:
            argv += ['-o', 'ControlMaster=auto', '-o', 'ControlPersist=60s',
                     '-o', 'ControlPath=%s/cm-%%h' % self.workdir]
        return argv + ['root@%s' % self.hostvars()[host]['ansible_host']]

    def ssh(self, host, argv, timeout=300, multiplex=False):
        """Run argv on a lab host (quoted for the remote shell); a CompletedProcess."""
        cmd = self.ssh_argv(host, multiplex) + ['--', ' '.join(shlex.quote(a) for a in argv)]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)

    def module(self, host, module, args, timeout=600):
        """Run a module ad hoc on ``host``; returns (result dict, wall seconds)."""
        argv = [os.path.join(BIN, 'ansible'), host, '-i', self.inventory, '-m', module, '-a', json.dumps(args)]
        # the json stdout callback; the results callback keeps its records in the work directory, no workbook
        run_env = dict(ENV, ANSIBLE_LOAD_CALLBACK_PLUGINS='1', ANSIBLE_STDOUT_CALLBACK='ansible.posix.json',
                       PERFLAB_RESULTS_DIR=os.path.join(self.workdir, 'adhoc-results'), PERFLAB_REPORT_WORKBOOK='false',
                       PERFLAB_REPORT_SUMMARY='false', PERFLAB_REPORT_PROGRESS='false')
        start = time.perf_counter()
        proc = subprocess.run(argv, cwd=ROOT, env=run_env, capture_output=True, text=True, timeout=timeout,
                              check=False)
        elapsed = time.perf_counter() - start
        try:
            document = json.JSONDecoder().raw_decode(proc.stdout[proc.stdout.find('{'):])[0]
            result = document['plays'][0]['tasks'][0]['hosts'][host]
        except (ValueError, KeyError, IndexError):
            raise RuntimeError('%s on %s: no JSON result (rc %d): %s %s'
                               % (module, host, proc.returncode, proc.stdout[-1500:], proc.stderr[-1500:]))
        return result, elapsed


def start_servers(lab, host, servers):
    """Start servers (dicts tool, port, bind, count) on ``host`` with the bench_server module."""
    for server in servers:
        result, _elapsed = lab.module(host, 'perflab.network.bench_server', dict(server, state='started'))
        if result.get('failed'):
            raise RuntimeError('cannot start %s: %s' % (server, result.get('msg')))


def stop_servers(lab, host, servers):
    for server in servers:
        try:
            lab.module(host, 'perflab.network.bench_server', dict(server, state='stopped'))
        except (RuntimeError, subprocess.SubprocessError) as exc:
            log('WARNING: stopping %s: %s' % (server, exc))


def set_up(lab, tools_installed, **lab_vars):
    """The start of every script: the lab up, the tools installed unless they are already."""
    log('lab up: %.1f s' % lab.up(**lab_vars))
    if not tools_installed:
        log('tools installed once: %.1f s' % lab.install_tools())


def set_up_servers(lab, args, cases):
    """set_up, then one server per tool and port of ``cases`` on lab1's data address; (servers, lab1's and
    lab2's data addresses, lab2's hostvars)."""
    set_up(lab, args.tools_installed)
    hosts = lab.hostvars()
    server, client = hosts['lab1']['perflab_data_address'], hosts['lab2']['perflab_data_address']
    servers = []
    for tool, _test, port in cases:
        entry = {'tool': tool, 'port': port, 'bind': server}
        if entry not in servers:
            servers.append(entry)
    start_servers(lab, 'lab1', servers)
    return servers, server, client, hosts['lab2']


def tear_down(lab, servers, keep_lab):
    """The end of every script: stop the servers it started on lab1, then bring the lab down unless kept."""
    if servers:
        stop_servers(lab, 'lab1', servers)
    if not keep_lab:
        log('lab down: %.1f s' % lab.down())


def parse_by_hand(tool, test, proc):
    """The primary metric of a hand run, parsed with the collection's own parse functions."""
    from ansible_collections.perflab.network.plugins.module_utils.tools.iperf3 import parse as parse_iperf3
    from ansible_collections.perflab.network.plugins.module_utils.tools.netperf import parse as parse_netperf
    from ansible_collections.perflab.network.plugins.module_utils.tools.nuttcp import parse as parse_nuttcp
    if tool == 'iperf3':
        parsed = parse_iperf3.parse(proc.stdout)
    elif tool == 'netperf':
        parsed = parse_netperf.parse_result(test, proc.stdout, proc.stderr, proc.returncode,
                                            parse_netperf.selectors_for(test))
    elif tool == 'nuttcp':
        parsed = parse_nuttcp.parse(proc.stdout, proc.stderr, proc.returncode, transmit=test != 'tcp_maerts')
    else:
        raise ValueError(tool)
    if parsed['error']:
        raise RuntimeError('%s %s by hand failed: %s' % (tool, test, parsed['error']))
    primary = 'transactions_per_s' if test.endswith('_rr') else 'throughput_mbps'
    return parsed['metrics'][primary]


def add_pair_arguments(parser, cases, halves, duration):
    """The options of a script that runs each case in pairs (fidelity.py, sampling.py) on a shaped link."""
    parser.add_argument('--pairs', type=int, default=5, help='%s/%s pairs per case (default 5)' % halves)
    parser.add_argument('--duration', type=int, default=duration, help='seconds per run (default %d)' % duration)
    parser.add_argument('--rate', type=int, default=1000, help='lab link rate in Mbit/s, 0 = unshaped (default 1000)')
    parser.add_argument('--mtu', type=int, default=9000,
                        help='lab data MTU (lab_mtu, default 9000: at 1500 with the lab\'s offloads off a loaded '
                             '2-core machine cannot always fill 1 Gbit/s, so the CPU, not the link, would set the numbers)')
    parser.add_argument('--cases', nargs='+', default=['%s/%s' % (t, s) for t, s, _p in cases],
                        help='tool/test cases (default: %(default)s)')
    add_lab_arguments(parser)


def pair_start(what, doc, cases, halves, duration):
    """(args, lab, the cases asked) of a pair script (fidelity.py, sampling.py), its first lines logged."""
    parser = argparse.ArgumentParser(description=doc.split('\n\n', maxsplit=1)[0])
    add_pair_arguments(parser, cases, halves, duration)
    args = parser.parse_args()
    lab = Lab(args.lab, args.mgmt, args.data, rate_mbit=args.rate, mtu=args.mtu)
    log('%s: lab %s (%s, %s), link %s, MTU %d, %d pairs of %d s runs per case; workdir %s'
        % (what, lab.name, lab.mgmt, lab.data, link_text(args.rate), args.mtu, args.pairs, args.duration,
           lab.workdir))
    log('load average at start: %s' % load_average())
    return args, lab, [case for case in cases if '%s/%s' % case[:2] in args.cases]


def link_text(rate):
    return '%d Mbit/s' % rate if rate else 'unshaped'


def print_ratios(results, halves, low, high):
    """The table of a pair script: per case the medians of both halves and of their ratio (its min and max),
    PASS when ``low <= median ratio <= high``; ``results``: (tool, test, unit, pairs), each pair a dict of both
    halves' values and ``ratio``. Returns how many cases failed."""
    print()
    print('%-8s %-11s %14s %14s %10s %10s %10s  %s' % (
        'tool', 'test', '%s (med)' % halves[0], '%s (med)' % halves[1], 'ratio med', 'ratio min', 'ratio max',
        'verdict'))
    failed = 0
    for tool, test, unit, pairs in results:
        ratio = median([p['ratio'] for p in pairs])
        verdict = 'PASS' if low <= ratio <= high else 'FAIL'
        failed += verdict == 'FAIL'
        print('%-8s %-11s %14.2f %14.2f %10.4f %10.4f %10.4f  %s  (%s)' % (
            tool, test, median([p[halves[0]] for p in pairs]), median([p[halves[1]] for p in pairs]), ratio,
            min(p['ratio'] for p in pairs), max(p['ratio'] for p in pairs), verdict, unit))
    return failed
