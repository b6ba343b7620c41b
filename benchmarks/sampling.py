# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""Cost of the runner's sampling: the same test with sampling on and off, side by side in one run.

It brings up a private two-host lab (``playbooks/lab_up.yml``, lab ``bperf``) shaped to ``--rate`` Mbit/s at
MTU ``--mtu`` (as fidelity.py: the link, not the CPU noise of a shared machine, sets a stream's rate),
installs iperf3 and netperf once, starts their servers on lab1, then for each case (iperf3 ``tcp_stream``:
throughput; netperf ``tcp_rr``: latency as transactions/s) runs ``--pairs`` pairs through the module on lab2,
alternating which half goes first:

* ``on``: with ``nic_interface`` (the NIC counters every second, and what says what limited the test:
  a ping before it, /proc/stat and the drop counters at its ends, ``ss -tin`` every second);
  and the server side's sampler on lab1 (bench_server ``sample_interface``: per-core CPU, the data NIC's
  drop counters and the servers' ticks every second), started before the run and stopped after it;
* ``off``: the same arguments without ``nic_interface`` and no sampler on lab1: nothing is sampled.

It first measures the sampler's own CPU time per second of a test on this host (``lo``, 10 s: its reads and
its ``ss`` children) and the server side's sampler's (its process' ticks over 10 s), then prints every pair,
the median on/off ratio per case with its spread, and PASS/FAIL against the goal 0.99 <= median ratio <= 1.01,
with the load average (the machine may be shared: read the spread too).

    .venv/bin/python benchmarks/sampling.py --pairs 5 --duration 5
"""

from __future__ import (absolute_import, division, print_function)

import sys
import time

import labbench
from labbench import load_average, log

LOW, HIGH = 0.99, 1.01
CASES = [('iperf3', 'tcp_stream', 5201), ('netperf', 'tcp_rr', 12865)]


def module_args(tool, test, port, duration, server, client, link_mbps=None):
    args = {'server': server, 'port': port, 'test': test, 'duration': duration, 'bind': client}
    if link_mbps:
        args['link_mbps'] = link_mbps   # the shaped rate: limited_by judges the link against it
    if tool == 'netperf':
        args['data_port'] = port + 1
    return args


def sampler_cpu_cost(seconds, peer='127.0.0.1', interface='lo'):
    """CPU seconds the sampler itself spends per second of a test (its thread's reads and its ss children), on
    this host: a figure that a loaded machine does not move the way it moves a throughput or a rate."""
    import resource
    from ansible_collections.perflab.network.plugins.module_utils.host import nic

    def used():
        own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime
    before = used()
    with nic.NicSampler(interface, peer=peer):
        time.sleep(seconds)
    return (used() - before) / seconds


def server_sampler_cpu_cost(seconds, interface='lo'):
    """CPU seconds the server side's sampler (server_sampler.py's process) spends per second, on this host."""
    import os
    import tempfile
    from ansible_collections.perflab.network.plugins.module_utils.host import server_sampler

    pid_dir = tempfile.mkdtemp(prefix='perflab-sampling-')
    pid = server_sampler.start(pid_dir, interface)[0]
    try:
        time.sleep(seconds)
        with open('/proc/%d/stat' % pid) as handle:
            fields = handle.read().rsplit(')', 1)[1].split()
        ticks = int(fields[11]) + int(fields[12])
    finally:
        server_sampler.stop(pid_dir, interface)
        os.rmdir(pid_dir)
    return ticks / float(os.sysconf('SC_CLK_TCK')) / seconds


def server_sampler(lab, state, interface, port):
    """Start or stop lab1's server-side sampler (bench_server: the server on ``port`` runs already)."""
    result, _elapsed = lab.module('lab1', 'perflab.network.bench_server', {
        'tool': 'iperf3', 'port': port, 'state': state, 'sample_interface': interface})
    if result.get('failed'):
        raise RuntimeError('the server side\'s sampler: %s' % result.get('msg'))


def run_half(lab, tool, args):
    result, _elapsed = lab.module('lab2', 'perflab.network.' + tool, args)
    if result.get('failed'):
        raise RuntimeError('%s through the module failed: %s' % (tool, result.get('msg')))
    record = result['perflab_result'][0]
    return record['metrics'][record['primary']]['value'], record.get('limited_by')


def main():
    started = time.perf_counter()
    args, lab, cases = labbench.pair_start('sampling', __doc__, CASES, ('on', 'off'), 5)
    cost = sampler_cpu_cost(10)
    log('the sampler\'s own CPU on this host (lo, 10 s): %.2f ms per second = %.3f %% of one core'
        % (cost * 1e3, cost * 100))
    server_cost = server_sampler_cpu_cost(10)
    log('the server side\'s sampler (lo, 10 s): %.2f ms per second = %.3f %% of one core'
        % (server_cost * 1e3, server_cost * 100))
    servers = []
    results = []
    try:
        servers, server, client, lab2 = labbench.set_up_servers(lab, args, cases)
        interface = lab2['perflab_data_interface']
        server_interface = lab.hostvars()['lab1']['perflab_data_interface']
        for tool, test, port in cases:
            pairs = []
            for number in range(args.pairs):
                values = {}
                for kind in (('on', 'off') if number % 2 == 0 else ('off', 'on')):
                    half = module_args(tool, test, port, args.duration, server, client, args.rate)
                    if kind == 'on':
                        half['nic_interface'] = interface
                        server_sampler(lab, 'started', server_interface, CASES[0][2])
                    values[kind], limited = run_half(lab, tool, half)
                    if kind == 'on':
                        values['verdict'] = (limited or {}).get('verdict')
                        # stopped by a port no server has: the servers go on, the sampler stops
                        server_sampler(lab, 'stopped', server_interface, 1)
                values['ratio'] = values['on'] / values['off']
                values['load'] = load_average()
                pairs.append(values)
                log('%s %s pair %d: on %.2f, off %.2f, ratio %.4f (limited by %s); load %s'
                    % (tool, test, number + 1, values['on'], values['off'], values['ratio'], values['verdict'],
                       values['load']))
            results.append((tool, test, 'transactions/s' if test.endswith('_rr') else 'Mbit/s', pairs))
    finally:
        labbench.tear_down(lab, servers, args.keep_lab)

    failed = labbench.print_ratios(results, ('on', 'off'), LOW, HIGH)
    print()
    print('goal: %.2f <= median(on / off) <= %.2f for each case, %d pairs of %d s runs alternated: %s'
          % (LOW, HIGH, args.pairs, args.duration, 'PASS' if not failed and results else 'FAIL'))
    print('how: ad-hoc module runs with and without nic_interface (the one sampler: NIC counters, ping, /proc/stat, '
          'drop counters, ss -tin); link %s at MTU %d; load average now %s; total %.0f s'
          % (labbench.link_text(args.rate), args.mtu, load_average(), time.perf_counter() - started))
    return 0 if not failed and results else 1


if __name__ == '__main__':
    sys.exit(main())
