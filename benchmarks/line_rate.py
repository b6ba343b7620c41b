# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""Line rate: TCP throughput of iperf3, netperf and nuttcp as a fraction of a 1 Gbit/s shaped lab link.

It brings up a private two-host lab (``playbooks/lab_up.yml``, lab ``bperf``)
whose switch ports are shaped to ``--rate`` Mbit/s (``lab_rate_mbit``, tbf by
default), installs the tools once and, for each MTU of ``--mtus`` (the
``perflab.network.mtu`` role on data0 of both hosts; the lab switch carries
9216), starts the three servers on lab1 and runs ``tcp_stream`` of each tool
through its module on lab2 (``ansible lab2 -m perflab.network.<tool>``),
``--reps`` rounds with the tools in turn. It prints, per tool and MTU, the
median goodput and its fraction of the shaped rate; the fraction of the
rate seen on the wire (data0's transmitted bytes from the record's NIC
samples, Ethernet headers included); and the best goodput TCP can have over
that MTU: (MTU - 52) / (MTU + 14) of the rate (IP, TCP and timestamp headers
in each frame of MTU + 14 bytes that tbf counts). It also prints the switch
qdisc's counters (sent, dropped, overlimits). Target: goodput >= 0.93 of the
shaped rate.

    .venv/bin/python benchmarks/line_rate.py --reps 3 --duration 10
"""

from __future__ import (absolute_import, division, print_function)

import argparse
import subprocess
import sys
import time

import labbench
from labbench import load_average, log, median

TARGET = 0.93
TOOLS = [('iperf3', 5201), ('netperf', 12865), ('nuttcp', 5000)]


def header_limit(mtu):
    """Best TCP goodput / L2 rate over this MTU: 20 IP + 20 TCP + 12 timestamp bytes per frame of MTU + 14."""
    return (mtu - 52.0) / (mtu + 14.0)


def qdisc_stats(lab):
    """The switch's qdisc counters of the lab (our own namespace <lab>-sw, read only)."""
    proc = subprocess.run(['ip', 'netns', 'exec', '%s-sw' % lab.name, 'tc', '-s', 'qdisc', 'show'],
                          capture_output=True, text=True, check=False)
    return proc.stdout.strip()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n', maxsplit=1)[0])
    parser.add_argument('--reps', type=int, default=3, help='runs per tool and MTU (default 3)')
    parser.add_argument('--duration', type=int, default=10, help='seconds per run (default 10)')
    parser.add_argument('--rate', type=int, default=1000, help='shaped link rate in Mbit/s (default 1000)')
    parser.add_argument('--shaper', choices=['tbf', 'htb'], default='tbf', help='lab shaper (default tbf)')
    parser.add_argument('--offloads', action='store_true',
                        help='lab NICs with TSO/GSO/GRO on (lab_offloads; default off, as the lab has them); '
                             'only when the lab is created, so not with a lab kept up without them')
    parser.add_argument('--mtus', type=int, nargs='+', default=[1500, 9000], help='MTUs (default 1500 9000)')
    labbench.add_lab_arguments(parser)
    args = parser.parse_args()

    started = time.perf_counter()
    lab = labbench.Lab(args.lab, args.mgmt, args.data, rate_mbit=args.rate)
    log('line rate: lab %s (%s, %s), link shaped to %d Mbit/s (%s), offloads %s, MTUs %s, %d runs of %d s per tool; workdir %s'
        % (lab.name, lab.mgmt, lab.data, args.rate, args.shaper, 'on' if args.offloads else 'off', args.mtus, args.reps,
           args.duration, lab.workdir))
    log('load average at start: %s' % load_average())
    rows = []
    servers = []
    try:
        labbench.set_up(lab, args.tools_installed, lab_shaper=args.shaper, lab_offloads=args.offloads)
        hosts = lab.hostvars()
        server, client = hosts['lab1']['perflab_data_address'], hosts['lab2']['perflab_data_address']
        servers = [{'tool': tool, 'port': port, 'bind': server} for tool, port in TOOLS]
        for mtu in args.mtus:
            log('MTU %d on data0 of both hosts: %.1f s' % (mtu, lab.set_mtu(mtu)))
            labbench.start_servers(lab, 'lab1', servers)
            values = dict((tool, []) for tool, _port in TOOLS)
            for rep in range(args.reps):
                for tool, port in TOOLS:
                    module_args = {'server': server, 'port': port, 'test': 'tcp_stream', 'duration': args.duration,
                                   'nic_interface': 'data0'}
                    if tool != 'nuttcp':
                        module_args['bind'] = client
                    if tool == 'netperf':
                        module_args['data_port'] = port + 1
                    result, _elapsed = lab.module('lab2', 'perflab.network.' + tool, module_args)
                    if result.get('failed'):
                        raise RuntimeError('%s at MTU %d failed: %s' % (tool, mtu, result.get('msg')))
                    record = result['perflab_result'][0]
                    goodput = record['metrics']['throughput_mbps']['value']
                    wire = (record.get('nic') or {}).get('tx_mbps')
                    retrans = (record['metrics'].get('retransmits') or {}).get('value')
                    values[tool].append((goodput, wire, retrans))
                    log('MTU %d %s run %d: %.1f Mbit/s goodput, %s Mbit/s on the wire, retransmits %s; load %s'
                        % (mtu, tool, rep + 1, goodput, '%.1f' % wire if wire else '?', retrans, load_average()))
            labbench.stop_servers(lab, 'lab1', servers)
            stats = qdisc_stats(lab)
            for tool, _port in TOOLS:
                goodput = median([v[0] for v in values[tool]])
                wires = [v[1] for v in values[tool] if v[1]]
                rows.append((mtu, tool, goodput, median(wires) if wires else float('nan'),
                             median([v[2] for v in values[tool] if v[2] is not None] or [float('nan')])))
            log('switch qdiscs after MTU %d:\n%s' % (mtu, stats))
    finally:
        labbench.tear_down(lab, servers, args.keep_lab)

    print()
    print('%5s %-8s %12s %10s %12s %10s %12s %10s  %s' % ('MTU', 'tool', 'goodput', 'fraction', 'on the wire',
                                                          'wire frac', 'header max', 'retrans', 'verdict'))
    failed = 0
    for mtu, tool, goodput, wire, retrans in rows:
        fraction = goodput / args.rate
        verdict = 'PASS' if fraction >= TARGET else 'FAIL'
        failed += verdict == 'FAIL'
        print('%5d %-8s %12.1f %10.4f %12.1f %10.4f %12.4f %10.0f  %s' % (
            mtu, tool, goodput, fraction, wire, wire / args.rate, header_limit(mtu), retrans, verdict))
    print()
    print('target: TCP goodput >= %.2f of the shaped %d Mbit/s for each tool and MTU (median of %d runs of %d s): %s'
          % (TARGET, args.rate, args.reps, args.duration, 'PASS' if not failed and rows else 'FAIL'))
    print('how: the tool modules ad hoc (lab2 -> lab1 over data0, %s shaping on the switch ports, offloads %s); '
          '"on the wire" is data0\'s '
          'tx bytes (Ethernet headers included) over the run; "header max" is the best goodput fraction over that MTU; '
          'load average now %s; total %.0f s' % (args.shaper, 'on' if args.offloads else 'off', load_average(),
                                                 time.perf_counter() - started))
    return 0 if not failed and rows else 1


if __name__ == '__main__':
    sys.exit(main())
