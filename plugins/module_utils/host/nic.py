# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""NIC cross-check: sample an interface's own byte/packet counters during a test.

The counters come from /sys/class/net/<if>/statistics, i.e. the network
namespace the module runs in.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os
import subprocess
import threading
import time

from ansible_collections.perflab.network.plugins.module_utils.core import limits
from ansible_collections.perflab.network.plugins.module_utils.core.common_args import valid_interface_name

SYS_CLASS_NET = '/sys/class/net'
COUNTERS = ('rx_bytes', 'tx_bytes', 'rx_packets', 'tx_packets')


def interface_exists(name, sys_class_net=SYS_CLASS_NET):
    return valid_interface_name(name) and os.path.isdir(os.path.join(sys_class_net, name))


def existing_interfaces(sys_class_net=SYS_CLASS_NET):
    """The interface names of this host, sorted (for messages that say what is allowed)."""
    try:
        return sorted(os.listdir(sys_class_net))
    except OSError:
        return []


def interface_mtu(name, sys_class_net=SYS_CLASS_NET):
    """MTU of ``name`` as an int, or None when unknown."""
    if not valid_interface_name(name):
        return None
    try:
        with open(os.path.join(sys_class_net, name, 'mtu')) as handle:
            return int(handle.read().strip())
    except (IOError, OSError, ValueError):
        return None


def interface_speed_mbps(name, sys_class_net=SYS_CLASS_NET):
    """The link speed of ``name`` in Mbit/s as the kernel reports it (ethtool's Speed), None when unknown.

    /sys/class/net/<name>/speed is -1 (or unreadable: EINVAL) for a link without a speed, e.g. down.
    """
    if not valid_interface_name(name):
        return None
    try:
        with open(os.path.join(sys_class_net, name, 'speed')) as handle:
            speed = int(handle.read().strip())
    except (IOError, OSError, ValueError):
        return None
    return float(speed) if speed > 0 else None


def links_without_speed(names, sys_class_net=SYS_CLASS_NET):
    """Those of ``names`` whose link is up (carrier) but report no speed: a NIC that never tells one,
    such as virtio's by default. A link that is down or administratively down says nothing (its
    carrier and speed are unreadable), so it is not listed."""
    found = []
    for name in names:
        if not valid_interface_name(name):
            continue
        try:
            with open(os.path.join(sys_class_net, name, 'carrier')) as handle:
                up = handle.read().strip() == '1'
        except (IOError, OSError):
            continue
        if up and interface_speed_mbps(name, sys_class_net) is None:
            found.append(name)
    return found


def read_counters(name, sys_class_net=SYS_CLASS_NET, counters=COUNTERS):
    """The four counters of ``name`` as ints (``counters``: others of its statistics folder)."""
    values = {}
    for counter in counters:
        with open(os.path.join(sys_class_net, name, 'statistics', counter)) as handle:
            values[counter] = int(handle.read().strip())
    return values


PROC_NET_BONDING = '/proc/net/bonding'


def parse_proc_net_bonding(text):
    """The bond's mode, active member and each member's MII status and link failures, from
    /proc/net/bonding/<bond> (the kernel's text; the members' blocks start at "Slave Interface:")."""
    state = {'mode': None, 'active': None, 'members': {}}
    member = None
    for line in text.splitlines():
        key, sep, value = line.partition(':')
        if not sep:
            continue
        key, value = key.strip(), value.strip()
        if key == 'Slave Interface':
            member = state['members'].setdefault(value, {'mii_status': None, 'link_failures': None})
        elif member is None and key == 'Bonding Mode':
            state['mode'] = value
        elif member is None and key == 'Currently Active Slave':
            state['active'] = None if value == 'None' else value
        elif member is not None and key == 'MII Status':
            member['mii_status'] = value
        elif member is not None and key == 'Link Failure Count':
            member['link_failures'] = int(value) if value.isdigit() else None
    return state


def read_bond_state(interface, proc_net_bonding=PROC_NET_BONDING):
    """parse_proc_net_bonding of ``interface``, or None when it is no bond (or the file is gone)."""
    if not valid_interface_name(interface):
        return None
    try:
        with open(os.path.join(proc_net_bonding, interface)) as handle:
            return parse_proc_net_bonding(handle.read())
    except (IOError, OSError):
        return None


def bond_events(before, after):
    """What changed in a bond during a test, in words for the record's notes."""
    if not before or not after:
        return []
    events = []
    if before.get('active') != after.get('active'):
        events.append('the bond\'s active member changed from %s to %s during the test'
                      % (before.get('active') or 'none', after.get('active') or 'none'))
    for name in sorted(set(before['members']) | set(after['members'])):
        b, a = before['members'].get(name), after['members'].get(name)
        if b is None or a is None:
            events.append('member %s %s the bond during the test' % (name, 'left' if a is None else 'joined'))
            continue
        failures = (a.get('link_failures') or 0) - (b.get('link_failures') or 0)
        if failures > 0:
            events.append('member %s lost its link %d time(s) during the test (MII status now %s)'
                          % (name, failures, a.get('mii_status')))
        elif a.get('mii_status') != b.get('mii_status'):
            events.append('member %s went %s during the test' % (name, a.get('mii_status')))
    return events


def ss_argv(peer):
    """``ss -tin`` of the established connections to ``peer`` (an IPv6 address in brackets: ss reads
    ``::1`` as a port separator)."""
    return ['ss', '-tin', 'state', 'established', 'dst', '[%s]' % peer if ':' in peer else peer]


class NicSampler(object):
    """Context manager sampling ``interface`` every ``interval`` seconds in a thread.

    >>> with NicSampler('eth0') as sampler:
    ...     run_the_test()
    >>> sampler.result()
    {'interface': 'eth0', 'samples': [{'t': 0.0, 'rx_bytes': ...}, ...], 'rx_mbps': ..., 'tx_mbps': ...}

    With ``peer`` (the server's address) it also samples what says what limited the test (limits.py):
    per-core CPU and the data NIC's drop/error/missed counters at the start and the end, the TCP state of
    the connections to ``peer`` (``ss -tin``) every interval; ``limits()`` returns them.

    Raises ValueError at construction for a missing interface.
    """

    # what this OS's counters cannot tell (a subclass names its own)
    not_sampled = ()

    def __init__(self, interface, interval=1.0, sys_class_net=SYS_CLASS_NET, check=True, peer=None):
        # check=False: a subclass with its own counters has checked the interface already
        if check and not valid_interface_name(interface):
            raise ValueError('invalid interface name: %r' % (interface,))
        if check and not os.path.isdir(os.path.join(sys_class_net, interface)):
            raise ValueError('interface %s does not exist on this host' % interface)
        if interval <= 0:
            raise ValueError('interval must be > 0')
        self.interface = interface
        self.interval = float(interval)
        self.sys_class_net = sys_class_net
        self.samples = []
        self._start = None
        self._stop = threading.Event()
        self._thread = None
        self._error = None
        self._skipped = 0
        self._bond = [None, None]
        self.peer = peer
        self._cpu = [None, None]
        self._drops = [None, None]
        self._host = [None, None]
        self._tcp = {}
        self._procs = {}

    def read_cpu(self):
        """Per-core CPU time now (limits.parse_proc_stat's shape), None when unreadable."""
        try:
            with open('/proc/stat') as handle:
                return limits.parse_proc_stat(handle.read())
        except (IOError, OSError):
            return None

    def read_drops(self):
        """The drop/error/missed counters of the interface now (those this OS has), None when unreadable."""
        try:
            return read_counters(self.interface, self.sys_class_net, limits.DROP_COUNTERS)
        except (IOError, OSError, ValueError):
            return None

    def read_host_drops(self):
        """The host stack's receive drop counters now (limits.host_counters; /proc/net/netstat is this network
        namespace's, /proc/net/softnet_stat the kernel's: in the namespace lab both sides count the same softnet
        drops), None where neither file is (FreeBSD)."""
        texts = []
        for path in ('/proc/net/netstat', '/proc/net/softnet_stat'):
            try:
                with open(path) as handle:
                    texts.append(handle.read())
            except (IOError, OSError):
                texts.append(None)
        return limits.host_counters(*texts)

    def read_tcp(self):
        """The connections to the peer now (limits.parse_ss), [] when ss is missing or fails."""
        try:
            out = subprocess.run(ss_argv(self.peer), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                 timeout=5, check=False, universal_newlines=True)
        except (OSError, subprocess.SubprocessError):
            return []
        return limits.parse_ss(out.stdout) if out.returncode == 0 else []

    def read_processes(self):
        """``{pid: (utime + stime ticks, last core)}`` of this process' children (the tool's processes the
        runner started), {} where /proc has no ``children`` lists."""
        found = {}
        try:
            tasks = os.listdir('/proc/self/task')
        except OSError:
            return found
        for task in tasks:
            try:
                with open('/proc/self/task/%s/children' % task) as handle:
                    pids = handle.read().split()
            except (IOError, OSError):
                continue
            for pid in pids:
                try:
                    with open('/proc/%s/stat' % pid) as handle:
                        parsed = limits.parse_proc_pid_stat(handle.read())
                except (IOError, OSError):
                    continue
                if parsed:
                    found[pid] = parsed
        return found

    def _sample_limits(self, index):
        if self.peer is None:
            return
        if index is not None:
            self._cpu[index] = self.read_cpu()
            self._drops[index] = self.read_drops()
            self._host[index] = self.read_host_drops()
        else:
            # the tool's processes, while they run (at the end they are gone): where they ran
            self._procs.update(self.read_processes())
        limits.merge_ss(self._tcp, self.read_tcp())

    def limits(self):
        """What was sampled for limits.verdict: ``{cpu, tcp, nic_drops, nic_packets, host_drops, not_sampled}``."""
        if self.peer is None:
            return None
        packets = None
        if len(self.samples) >= 2:
            packets = sum(self.samples[-1][key] - self.samples[0][key] for key in ('rx_packets', 'tx_packets'))
        return {'cpu': limits.cpu_usage(self._cpu[0], self._cpu[1]),
                'interface': self.interface,
                # the core the tool's busiest process last ran on (its ticks counted from its start)
                'process_cpu': limits.busiest_process_cpu(dict((pid, (0, core)) for pid, (_t, core) in self._procs.items()),
                                                          self._procs),
                'tcp': limits.tcp_summary(list(self._tcp.values())),
                'nic_drops': limits.counter_deltas(self._drops[0], self._drops[1]),
                'nic_packets': packets,
                'host_drops': limits.counter_deltas(self._host[0], self._host[1], limits.HOST_COUNTERS),
                'not_sampled': list(self.not_sampled)}

    def read_bond_state(self):
        """The bond's state when the interface is a Linux bond, else None (another OS: None)."""
        return read_bond_state(self.interface)

    def read_counters(self):
        """The four counters now (a subclass reads another OS's; host_platform.FreeBSDNicSampler)."""
        return read_counters(self.interface, self.sys_class_net)

    def interface_present(self):
        return os.path.isdir(os.path.join(self.sys_class_net, self.interface))

    def _sample(self):
        now = time.monotonic()
        counters = self.read_counters()
        if self._start is None:  # t counts from the first sample: exactly 0.0 there, however busy the CPU
            self._start = now
        sample = {'t': round(now - self._start, 3)}
        sample.update(counters)
        self.samples.append(sample)

    def _try_sample(self):
        """Take one sample; False once the interface is gone (the error is kept).

        A read that fails while the interface still exists (a counter file read
        while it is rewritten, an EINTR) only skips this sample: the next one
        covers the window, since the rates use the first and last samples.
        """
        try:
            self._sample()
        except (IOError, OSError, ValueError) as exc:
            if not self.interface_present():
                self._error = 'interface %s vanished mid-test: %s' % (self.interface, exc)
                return False
            self._skipped += 1
        return True

    def _loop(self):
        while not self._stop.wait(self.interval):
            if not self._try_sample():
                return  # keep what we have
            self._sample_limits(None)

    def __enter__(self):
        self._start = None
        self._bond[0] = self.read_bond_state()
        self._sample_limits(0)
        self._try_sample()
        self._thread = threading.Thread(target=self._loop)
        self._thread.daemon = True
        self._thread.start()
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        self._stop.set()
        self._thread.join()
        if self._error is None:
            self._try_sample()
        self._sample_limits(1)
        if self._bond[0] is not None:
            self._bond[1] = self.read_bond_state()
        return False

    def elapsed(self):
        """Seconds since the first sample, on the samples' clock (None before it)."""
        return None if self._start is None else round(time.monotonic() - self._start, 3)

    def result(self, window=None):
        """``{interface, samples, rx_mbps, tx_mbps, window, rx_peak_mbps, tx_peak_mbps, peak_at}``.

        ``window``: ``(t0, t1)`` on the samples' clock, the seconds in which the tool measured;
        the rates are over it (see :func:`window_rates`), else over the whole sampled window.
        """
        rx_mbps, tx_mbps, used = window_rates(self.samples, window)
        result = {'interface': self.interface, 'samples': list(self.samples),
                  'rx_mbps': rx_mbps, 'tx_mbps': tx_mbps, 'window': used}
        result.update(peak_rates(self.samples, used))
        if self._error:
            result['error'] = self._error
        if self._skipped:
            result['skipped_samples'] = self._skipped
        if self._bond[0] is not None:
            # a bond: its members and their links before and after, and what changed (a failover)
            result['bond'] = {'before': self._bond[0], 'after': self._bond[1],
                              'events': bond_events(self._bond[0], self._bond[1])}
        return result


def _counter_at(samples, key, t):
    """``key`` at time ``t``, linear between the samples around it (``t`` within the samples)."""
    for before, after in zip(samples, samples[1:]):
        if before['t'] <= t <= after['t']:
            span = after['t'] - before['t']
            if span <= 0:
                return float(after[key])
            return before[key] + (after[key] - before[key]) * (t - before['t']) / span
    return float(samples[-1][key] if t >= samples[-1]['t'] else samples[0][key])


def window_rates(samples, window=None):
    """(rx_mbps, tx_mbps, [t0, t1]) over ``window`` (clamped to the samples), else over all samples.

    A tool measures for its duration only: the seconds before (its start-up, connecting) and
    after (its report) carry little traffic, and a rate over the whole sampled time reads low.
    The counters at the window's edges are interpolated between the samples around them.
    """
    if len(samples) < 2:
        return None, None, None
    first, last = samples[0]['t'], samples[-1]['t']
    t0, t1 = (first, last) if window is None else (max(first, window[0]), min(last, window[1]))
    if t1 - t0 <= 0:
        t0, t1 = first, last
    if t1 - t0 <= 0:
        return None, None, None
    rates = [round((_counter_at(samples, key, t1) - _counter_at(samples, key, t0)) * 8 / (t1 - t0) / 1e6, 3)
             for key in ('rx_bytes', 'tx_bytes')]
    return rates[0], rates[1], [round(t0, 3), round(t1, 3)]


def peak_rates(samples, window=None, span=1.0):
    """The highest rate over any ``span`` seconds within ``window`` (the seconds the tool measured):
    ``{rx_peak_mbps, tx_peak_mbps, peak_at}``, ``peak_at`` giving where each peak starts ``{rx, tx}``.

    The parallel-netperf seed reported the NIC's one-second peak beside its mean (98 % of the link): a
    mean over the whole test hides it. Spans start at each sample and at the window's start; their
    ends are interpolated between the samples (:func:`window_rates`). None where the window is
    shorter than ``span``, there are fewer than two samples, or two samples in it are more than two
    spans apart (then a "peak" would only be a mean).
    """
    empty = {'rx_peak_mbps': None, 'tx_peak_mbps': None, 'peak_at': None}
    if len(samples) < 2:
        return empty
    t0, t1 = (samples[0]['t'], samples[-1]['t']) if not window else (window[0], window[1])
    t0, t1 = max(t0, samples[0]['t']), min(t1, samples[-1]['t'])
    inside = [sample['t'] for sample in samples if t0 - span < sample['t'] < t1 + span]
    if any(after - before > 2 * span for before, after in zip(inside, inside[1:])):
        return empty   # counters read only at the ends (Windows) or far apart: no second to speak of
    starts = sorted(set([t0] + [t for t in inside if t0 <= t <= t1 - span]))
    starts = [start for start in starts if start + span <= t1 + 1e-9]
    if not starts:
        return empty
    out = dict(empty, peak_at={})
    for key, name in (('rx_bytes', 'rx'), ('tx_bytes', 'tx')):
        best = max(starts, key=lambda start: _counter_at(samples, key, start + span) - _counter_at(samples, key, start))
        out[name + '_peak_mbps'] = round((_counter_at(samples, key, best + span) - _counter_at(samples, key, best))
                                         * 8 / span / 1e6, 3)
        out['peak_at'][name] = round(best, 3)
    return out
