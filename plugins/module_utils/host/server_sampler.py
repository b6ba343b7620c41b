# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The server host's side of what limited a test: a sampler started with the servers (bench_server
``sample_interface``) that runs as long as they do and writes, every second, the host's per-core CPU
(/proc/stat), the data interface's drop/error/missed and packet counters, the host stack's receive drops
(limits.HOST_COUNTERS: /proc/net/netstat's TcpExt, /proc/net/softnet_stat) and the CPU ticks and last core of
each of our servers (their pidfiles); bench_server's ``status`` and ``stopped`` return its series, and each
test's record takes its own window of it (limits.server_window, by the record's start and end).

Why a sampler beside the servers and not a read per test: the servers already run for the whole run on that
host, the client's module cannot reach it, and a task on the server host before and after each test would
cost two round trips per test (seconds per test); one process waking once a second reads two small files.

The sampler is a small standalone script (``SCRIPT``: Ansible removes the module's files when it returns, so it
imports nothing of the collection); it stops when its pidfile is removed or no longer names it (bench_server
``stopped``), at its ``lifetime`` at the latest, and keeps its file bounded (``MAX_BYTES``, one older
generation in ``<file>.1``). Linux only: on FreeBSD and Windows the server side is not sampled (the record says so).
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json
import os
import signal
import sys

from ansible_collections.perflab.network.plugins.module_utils.core import limits
from ansible_collections.perflab.network.plugins.module_utils.host import nic
from ansible_collections.perflab.network.plugins.module_utils.host import process

INTERVAL_S = 1.0
MAX_BYTES = 4 * 1024 * 1024
# a sampler left behind (its servers' stop never came) ends by itself
LIFETIME_S = 86400
MARK = 'perflab-server-sampler'

SCRIPT = r'''
import json, os, sys, time
mark, interface, interval, out, pid_dir, pidfile, lifetime, max_bytes, host_names, drops = sys.argv[1:11]
interval, lifetime, max_bytes, host_names = float(interval), float(lifetime), int(max_bytes), host_names.split(',')
stats = '/sys/class/net/%s/statistics/' % interface
drops = drops.split(',')
me = str(os.getpid())
end = time.monotonic() + lifetime


def read(path):
    try:
        with open(path) as handle:
            return handle.read()
    except (IOError, OSError):
        return None


def number(name):
    value = read(stats + name)
    return int(value) if value and value.strip().isdigit() else None


def host():
    # limits.host_counters' reduction (this script imports nothing of the collection: test_bench_server holds the
    # two to the same counters): only the counters of limits.HOST_COUNTERS, to keep each sample small. TcpExt is
    # this network namespace's; softnet_stat is the kernel's: in the namespace lab both sides count the same
    rows = [line.split() for line in (read('/proc/net/netstat') or '').splitlines() if line[:7] == 'TcpExt:']
    found = dict((k, v) for k, v in zip(rows[0], rows[1]) if k in host_names and v.isdigit()) if len(rows) > 1 else {}
    found = dict((k, int(v)) for k, v in found.items())
    try:
        softnet = [int(line.split()[1], 16) for line in (read('/proc/net/softnet_stat') or '').splitlines()
                   if len(line.split()) > 1]
    except ValueError:
        softnet = []
    if softnet:
        found['softnet_dropped'] = sum(softnet)
    return found


while time.monotonic() < end and (read(pidfile) or '').strip() == me:
    stat = read('/proc/stat') or ''
    procs = {}
    for name in os.listdir(pid_dir):
        if name.endswith('.pid') and not name.startswith('sampler-'):
            pid = (read(os.path.join(pid_dir, name)) or '').strip()
            line = read('/proc/%s/stat' % pid) if pid.isdigit() else None
            if line:
                procs[pid] = line
    rx, tx = number('rx_packets'), number('tx_packets')
    counters = dict((k, number(k)) for k in drops)
    sample = {'t': time.time(), 'stat': ''.join(l + '\n' for l in stat.splitlines() if l[:3] == 'cpu' and l[3:4].isdigit()),
              'drops': dict((k, v) for k, v in counters.items() if v is not None),
              'packets': rx + tx if rx is not None and tx is not None else None, 'procs': procs, 'host': host()}
    try:
        if os.path.getsize(out) > max_bytes:
            os.rename(out, out + '.1')
    except OSError:
        pass
    with open(out, 'a') as handle:
        handle.write(json.dumps(sample) + '\n')
    time.sleep(interval)
'''


def paths(pid_dir, interface):
    """(pidfile, samples file, log) of the sampler of ``interface``."""
    base = os.path.join(pid_dir, 'sampler-%s' % interface)
    return base + '.pid', base + '.jsonl', base + '.log'


def parse_series(text):
    """The samples of a sampler's file: ``[{t, cpu, drops, packets, procs, host}]`` (cpu: limits.parse_proc_stat,
    procs: pid -> limits.parse_proc_pid_stat, host: limits.host_counters' shape, None where the host has none); a
    line cut short (the sampler writing it) is skipped."""
    series = []
    for line in (text or '').splitlines():
        try:
            raw = json.loads(line)
        except ValueError:
            continue
        if not isinstance(raw, dict) or not isinstance(raw.get('t'), (int, float)):
            continue
        procs = dict((pid, limits.parse_proc_pid_stat(stat)) for pid, stat in (raw.get('procs') or {}).items())
        series.append({'t': raw['t'], 'cpu': limits.parse_proc_stat(raw.get('stat')), 'drops': raw.get('drops') or {},
                       'packets': raw.get('packets'), 'host': raw.get('host') or None,
                       'procs': dict((pid, list(value)) for pid, value in procs.items() if value)})
    return series


def _read(path):
    try:
        with open(path) as handle:
            return handle.read()
    except (IOError, OSError):
        return ''


def running_pid(pid_dir, interface):
    """The pid of the sampler of ``interface`` when it runs (its pidfile names a live process of ours)."""
    pidfile = paths(pid_dir, interface)[0]
    pid = _read(pidfile).strip()
    if not pid.isdigit() or not process.pid_alive(int(pid)):
        return None
    return int(pid) if MARK in _read('/proc/%s/cmdline' % pid).replace('\0', ' ') else None


def servers_left(pid_dir):
    """Whether a server of ours still runs in ``pid_dir`` (a pidfile other than a sampler's naming a live process):
    another client's servers on this host, whose tests the sampler still watches."""
    try:
        names = os.listdir(pid_dir)
    except OSError:
        return False
    for name in names:
        if name.endswith('.pid') and not name.startswith('sampler-'):
            pid = _read(os.path.join(pid_dir, name)).strip()
            if pid.isdigit() and process.pid_alive(int(pid)):
                return True
    return False


def facts(interface):
    """The server's data interface, its MTU and link speed (Mbit/s, None when the kernel has none: veth)."""
    return {'interface': interface, 'mtu': nic.interface_mtu(interface),
            'link_mbps': nic.interface_speed_mbps(interface)}


def start(pid_dir, interface, interval=INTERVAL_S, lifetime=LIFETIME_S):
    """Start the sampler of ``interface`` unless it runs: (pid, started). Its old samples are removed."""
    pid = running_pid(pid_dir, interface)
    if pid:
        return pid, False
    pidfile, out, log = paths(pid_dir, interface)
    for path in (out, out + '.1'):
        if os.path.exists(path):
            os.unlink(path)
    argv = [sys.executable, '-c', SCRIPT, MARK, interface, interval, out, pid_dir, pidfile, lifetime, MAX_BYTES,
            ','.join(limits.HOST_COUNTERS), ','.join(limits.DROP_COUNTERS)]
    pid = process.spawn_detached(argv, log)
    with open(pidfile, 'w') as handle:
        handle.write('%d\n' % pid)
    return pid, True


def read(pid_dir, interface):
    """``{interface, mtu, link_mbps, running, series}``: the sampler's samples so far (its older generation
    first), for limits.server_window."""
    out = paths(pid_dir, interface)[1]
    result = facts(interface)
    result.update(running=running_pid(pid_dir, interface) is not None,
                  series=parse_series(_read(out + '.1') + _read(out)))
    return result


def stop(pid_dir, interface):
    """Stop the sampler (its pidfile removed: it ends at its next sample; TERM for good measure) and remove its
    files; True when one ran."""
    pid = running_pid(pid_dir, interface)
    pidfile, out, log = paths(pid_dir, interface)
    if pid:
        try:
            os.kill(pid, signal.SIGTERM)
        except OSError:
            pass
    for path in (pidfile, out, out + '.1', log):
        if os.path.exists(path):
            os.unlink(path)
    return pid is not None
