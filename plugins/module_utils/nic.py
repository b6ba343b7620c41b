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
import re
import threading
import time

SYS_CLASS_NET = '/sys/class/net'
COUNTERS = ('rx_bytes', 'tx_bytes', 'rx_packets', 'tx_packets')

# Linux interface names: at most 15 bytes, no '/', no whitespace, not '.' or '..'
_IFNAME_RE = re.compile(r'^[A-Za-z0-9_.:@+-]{1,15}$')


def valid_interface_name(name):
    return bool(name) and bool(_IFNAME_RE.match(name)) and name not in ('.', '..')


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


def read_counters(name, sys_class_net=SYS_CLASS_NET):
    """The four counters of ``name`` as ints."""
    values = {}
    for counter in COUNTERS:
        with open(os.path.join(sys_class_net, name, 'statistics', counter)) as handle:
            values[counter] = int(handle.read().strip())
    return values


class NicSampler(object):
    """Context manager sampling ``interface`` every ``interval`` seconds in a thread.

    >>> with NicSampler('eth0') as sampler:
    ...     run_the_test()
    >>> sampler.result()
    {'interface': 'eth0', 'samples': [{'t': 0.0, 'rx_bytes': ...}, ...], 'rx_mbps': ..., 'tx_mbps': ...}

    Raises ValueError at construction for a missing interface.
    """

    def __init__(self, interface, interval=1.0, sys_class_net=SYS_CLASS_NET, check=True):
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

    def __enter__(self):
        self._start = None
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
        return False

    def elapsed(self):
        """Seconds since the first sample, on the samples' clock (None before it)."""
        return None if self._start is None else round(time.monotonic() - self._start, 3)

    def result(self, window=None):
        """``{interface, samples, rx_mbps, tx_mbps, window}``.

        ``window``: ``(t0, t1)`` on the samples' clock, the seconds in which the tool measured;
        the rates are over it (see :func:`window_rates`), else over the whole sampled window.
        """
        rx_mbps, tx_mbps, used = window_rates(self.samples, window)
        result = {'interface': self.interface, 'samples': list(self.samples),
                  'rx_mbps': rx_mbps, 'tx_mbps': tx_mbps, 'window': used}
        if self._error:
            result['error'] = self._error
        if self._skipped:
            result['skipped_samples'] = self._skipped
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
