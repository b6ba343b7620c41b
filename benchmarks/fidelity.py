# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""Fidelity of the tool modules: the module's primary metric vs the same command run by hand.

It brings up a private two-host lab (``playbooks/lab_up.yml``, lab ``bperf``)
whose data link is shaped to ``--rate`` Mbit/s (default 1000) at MTU ``--mtu``
(default 9000): a shaped link is the bottleneck instead of the CPU, so the
noise of a shared 2-core machine (other labs, the controller itself) matters
less; at MTU 1500 with the lab's offloads off a loaded machine cannot always
fill the link (see line_rate.py) and the CPU would set the numbers. It installs the tools once
and starts each tool's server on lab1 with ``perflab.network.bench_server``
(the same servers serve both kinds of run). Then, for each case (iperf3,
netperf and nuttcp ``tcp_stream``, netperf ``tcp_rr``), ``--pairs`` pairs,
alternating which half of the pair goes first:

* ``module``: ``ansible lab2 -m perflab.network.<tool> -a {...}`` ad hoc;
  the record's ``metrics[primary]``;
* ``hand``: the record's exact ``command`` argv run on lab2 over plain SSH,
  its output parsed with the collection's own parse functions
  (``parse_iperf3.parse``, ``parse_netperf.parse_result``,
  ``parse_nuttcp.parse``).

It prints every pair, the median module/hand ratio per case and PASS/FAIL
against the target 0.95 <= median ratio <= 1.05, with the load average.

    .venv/bin/python benchmarks/fidelity.py --pairs 5 --duration 10
"""

from __future__ import (absolute_import, division, print_function)

import sys
import time

import labbench
from labbench import load_average, log

LOW, HIGH = 0.95, 1.05
CASES = [('iperf3', 'tcp_stream', 5201), ('netperf', 'tcp_stream', 12865), ('nuttcp', 'tcp_stream', 5000),
         ('netperf', 'tcp_rr', 12865)]


def module_args(tool, test, port, duration, server, client):
    args = {'server': server, 'port': port, 'test': test, 'duration': duration}
    if tool in ('iperf3', 'netperf'):
        args['bind'] = client
    if tool == 'netperf':
        args['data_port'] = port + 1
    return args


def main():
    started = time.perf_counter()
    args, lab, cases = labbench.pair_start('fidelity', __doc__, CASES, ('module', 'hand'), 10)
    servers = []
    results = []
    try:
        servers, server, client, _lab2 = labbench.set_up_servers(lab, args, cases)
        for tool, test, port in cases:
            argv = None
            pairs = []
            for number in range(args.pairs):
                values = {}
                for kind in (('module', 'hand') if number % 2 == 0 else ('hand', 'module')):
                    if kind == 'hand' and argv is None:
                        continue   # the first pair starts with the module: its record gives the argv
                    if kind == 'module':
                        result, _elapsed = lab.module('lab2', 'perflab.network.' + tool,
                                                      module_args(tool, test, port, args.duration, server, client))
                        if result.get('failed'):
                            raise RuntimeError('%s %s through the module failed: %s' % (tool, test, result.get('msg')))
                        record = result['perflab_result'][0]
                        argv = argv or record['command']
                        values['module'] = record['metrics'][record['primary']]['value']
                    else:
                        proc = lab.ssh('lab2', argv, timeout=args.duration + 120)
                        values['hand'] = labbench.parse_by_hand(tool, test, proc)
                if 'hand' not in values:   # pair 0: the hand half after the module half
                    proc = lab.ssh('lab2', argv, timeout=args.duration + 120)
                    values['hand'] = labbench.parse_by_hand(tool, test, proc)
                values['ratio'] = values['module'] / values['hand']
                values['load'] = load_average()
                pairs.append(values)
                log('%s %s pair %d: module %.2f, hand %.2f, ratio %.4f; load %s'
                    % (tool, test, number + 1, values['module'], values['hand'], values['ratio'], values['load']))
            unit = 'transactions/s' if test.endswith('_rr') else 'Mbit/s'
            results.append((tool, test, unit, argv, pairs))
    finally:
        labbench.tear_down(lab, servers, args.keep_lab)

    failed = labbench.print_ratios([(tool, test, unit, pairs) for tool, test, unit, _argv, pairs in results],
                                   ('module', 'hand'), LOW, HIGH)
    print()
    for tool, test, unit, argv, pairs in results:
        print('%s %s by hand: %s' % (tool, test, ' '.join(argv)))
    print()
    print('target: %.2f <= median(module / hand) <= %.2f for each case, %d pairs of %d s runs alternated: %s'
          % (LOW, HIGH, args.pairs, args.duration, 'PASS' if not failed and results else 'FAIL'))
    print('how: ad-hoc module run vs the record\'s argv over plain ssh, parsed with the collection\'s parse functions; '
          'link shaped to %s at MTU %d so that the link, not the CPU noise of a shared machine, sets the rate; '
          'load average now %s; total %.0f s'
          % (labbench.link_text(args.rate), args.mtu, load_average(), time.perf_counter() - started))
    return 0 if not failed and results else 1


if __name__ == '__main__':
    sys.exit(main())
