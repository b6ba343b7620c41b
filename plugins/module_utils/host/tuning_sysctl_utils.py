# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Linux sysctls through /proc/sys: read, write, read back, restore.

Kernel traps handled here (seen on kernel 6.18 inside a network namespace):
- net.core.rmem_max, wmem_max, rmem_default, wmem_default are visible but
  read-only in a child network namespace, and ``sysctl -w`` still exits 0:
  so we write the /proc/sys file ourselves and always read the value back.
- net.core.netdev_max_backlog, busy_poll, busy_read, default_qdisc,
  net.ipv4.tcp_mem and udp_mem do not exist in a child namespace.
- Every key outside net.* (kernel.*, vm.*, fs.*) and every /sys attribute is
  machine-wide: a lab host (a network namespace on a shared kernel) must never
  write one.
- The kernel prints multi-value sysctls with tabs ("4096\t131072\t6291456"):
  values are compared after collapsing whitespace.
- sysfs choice files (transparent hugepages) list every choice and bracket the
  selected one ("always [madvise] never"): their value is the bracketed word.
- A host without a cpufreq driver (a VM, a container) has no
  /sys/devices/system/cpu/cpufreq/policy*: the governor is skipped, said so.
- C-states are limited by holding /dev/cpu_dma_latency open with a value
  written to it (the PM QoS request lasts while the file is open): a service
  (or tuned's force_latency) holds it; nothing can on a namespaced host.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import errno
import os
import re

PROC_SYS = '/proc/sys'
CONGESTION_KEY = 'net.ipv4.tcp_congestion_control'
AVAILABLE_CONGESTION_KEY = 'net.ipv4.tcp_available_congestion_control'
# Present in every initial network namespace, absent in every child one.
NETNS_PROBE_ABSENT = 'net.core.netdev_max_backlog'
NETNS_PROBE_READONLY = 'net.core.rmem_max'
# The net.* keys that exist only in the initial network namespace: absent in a child one (measured on
# kernel 6.18 by listing /proc/sys/net in the initial namespace and in a fresh child namespace; the
# per-interface conf/neigh keys are left out, they follow the interfaces). Inside a namespace, a missing
# key of this list is skipped with that reason; any other missing key does not exist on this kernel at
# all (a typo): refused.
INIT_NETNS_ONLY = frozenset([
    'net.core.bpf_jit_enable', 'net.core.bpf_jit_harden', 'net.core.bpf_jit_kallsyms', 'net.core.bpf_jit_limit',
    'net.core.busy_poll', 'net.core.busy_read', 'net.core.default_qdisc', 'net.core.dev_weight',
    'net.core.dev_weight_rx_bias', 'net.core.dev_weight_tx_bias', 'net.core.devconf_inherit_init_net',
    'net.core.fb_tunnels_only_for_init_net', 'net.core.flow_limit_cpu_bitmap', 'net.core.flow_limit_table_len',
    'net.core.gro_normal_batch', 'net.core.high_order_alloc_disable', 'net.core.max_skb_frags',
    'net.core.mem_pcpu_rsv', 'net.core.message_burst', 'net.core.message_cost', 'net.core.netdev_budget',
    'net.core.netdev_budget_usecs', 'net.core.netdev_max_backlog', 'net.core.netdev_rss_key',
    'net.core.netdev_tstamp_prequeue', 'net.core.netdev_unregister_timeout_secs', 'net.core.rps_sock_flow_entries',
    'net.core.skb_defer_max', 'net.core.warnings', 'net.ipv4.cipso_cache_bucket_size', 'net.ipv4.cipso_cache_enable',
    'net.ipv4.cipso_rbm_optfmt', 'net.ipv4.cipso_rbm_strictvalid', 'net.ipv4.fib_sync_mem',
    'net.ipv4.inet_peer_maxttl', 'net.ipv4.inet_peer_minttl', 'net.ipv4.inet_peer_threshold',
    'net.ipv4.ipfrag_secret_interval', 'net.ipv4.route.error_burst', 'net.ipv4.route.error_cost',
    'net.ipv4.route.gc_elasticity', 'net.ipv4.route.gc_interval', 'net.ipv4.route.gc_min_interval',
    'net.ipv4.route.gc_min_interval_ms', 'net.ipv4.route.gc_thresh', 'net.ipv4.route.gc_timeout',
    'net.ipv4.route.max_size', 'net.ipv4.route.redirect_load', 'net.ipv4.route.redirect_number',
    'net.ipv4.route.redirect_silence', 'net.ipv4.tcp_available_ulp', 'net.ipv4.tcp_low_latency',
    'net.ipv4.tcp_max_orphans', 'net.ipv4.tcp_mem', 'net.ipv4.udp_mem', 'net.ipv6.calipso_cache_bucket_size',
    'net.ipv6.calipso_cache_enable', 'net.ipv6.ip6frag_secret_interval', 'net.ipv6.mld_max_msf', 'net.ipv6.mld_qrv',
    'net.netfilter.nf_log_all_netns', 'net.nf_conntrack_max',
])
KEY_RE = re.compile(r'^[A-Za-z0-9_]+([./][A-Za-z0-9_@:+-]+)+$')
# sysfs attributes (the CPU frequency governor) are handled like sysctls,
# keyed by their absolute path; all of them are machine-wide.
SYSFS_RE = re.compile(r'^/sys(/[A-Za-z0-9_.:@+-]+)+$')
SYS = '/sys'
CPUFREQ_DIR = '/sys/devices/system/cpu/cpufreq'
GOVERNOR_KEY = 'cpu_governor'
THP_KEY = '/sys/kernel/mm/transparent_hugepage/enabled'
CPU_DMA_LATENCY_KEY = 'cpu_dma_latency'
CPU_DMA_LATENCY_DEVICE = '/dev/cpu_dma_latency'
SYSTEMD_RUN_DIR = '/run/systemd/system'
CHOICE_RE = re.compile(r'\[([^\]\s]+)\]')

STATUS_APPLIED = 'applied'
STATUS_UNCHANGED = 'unchanged'
STATUS_SKIPPED = 'skipped'
STATUS_RESTORED = 'restored'
STATUS_FAILED = 'failed'


def normalize(value):
    """The text a sysctl value is compared as: single spaces, no padding."""
    if value is None:
        return None
    if isinstance(value, bool):
        return '1' if value else '0'
    if isinstance(value, (list, tuple)):
        return ' '.join(normalize(item) for item in value)
    return ' '.join(str(value).split())


def selected_choice(text):
    """The bracketed word of a sysfs choice file ("always [madvise] never" -> madvise), else text."""
    if text is None:
        return None
    match = CHOICE_RE.search(text)
    return match.group(1) if match else text


def is_sysfs(key):
    return isinstance(key, str) and key.startswith('/sys/')


def validate_key(key):
    """Raise ValueError unless key is a plain sysctl name or a /sys path."""
    if is_sysfs(key):
        if not SYSFS_RE.match(key) or '/../' in key + '/' or '/./' in key + '/':
            raise ValueError('%r is not a sysfs attribute path' % (key,))
        return key
    if not isinstance(key, str) or not KEY_RE.match(key):
        raise ValueError('%r is not a sysctl name (expected like net.ipv4.tcp_rmem)' % (key,))
    for part in key.replace('/', '.').split('.'):
        if part in ('', '.', '..'):
            raise ValueError('%r is not a sysctl name' % (key,))
    return key


def key_to_relpath(key):
    """net.ipv4.tcp_rmem -> net/ipv4/tcp_rmem.

    As procps does, a '/' in the key stands for a '.' inside one component
    (net.ipv4.conf.eth0/100.rp_filter -> net/ipv4/conf/eth0.100/rp_filter).
    """
    validate_key(key)
    return ''.join('/' if ch == '.' else '.' if ch == '/' else ch for ch in key)


def is_machine_wide(key):
    """True for keys that are never per network namespace."""
    if is_sysfs(validate_key(key)):
        return True
    return key.split('.', 1)[0].split('/', 1)[0] != 'net'


class ProcSys(object):
    """Access to sysctls under a /proc/sys style root (and /sys paths)."""

    def __init__(self, root=PROC_SYS, sys_root=SYS, dev_root='/dev', run_root='/run'):
        self.root = root
        self.sys_root = sys_root
        self.dev_root = dev_root
        self.run_root = run_root

    def path(self, key):
        if is_sysfs(key):
            validate_key(key)
            return self.sys_root + key[len(SYS):]
        return os.path.join(self.root, key_to_relpath(key))

    def read(self, key):
        """Normalized value, or None when the key does not exist here."""
        try:
            with open(self.path(key), 'r') as handle:
                value = normalize(handle.read())
            return selected_choice(value) if is_sysfs(key) else value
        except (IOError, OSError) as exc:
            if exc.errno in (errno.ENOENT, errno.ENOTDIR):
                return None
            raise

    def writable(self, key):
        # access(2) on /proc/sys applies the sysctl table's mode even to root,
        # so a read-only key in a child namespace reports False here.
        return os.access(self.path(key), os.W_OK)

    def write(self, key, value):
        with open(self.path(key), 'w') as handle:
            handle.write(value + '\n')

    def exists(self, path):
        """Whether a /sys or /dev path exists under this host's roots (tests give other roots)."""
        for prefix, root in ((SYS + '/', self.sys_root), ('/dev/', self.dev_root)):
            if path.startswith(prefix):
                return os.path.exists(root + path[len(prefix) - 1:])
        return os.path.exists(path)

    def governor_paths(self):
        """The scaling_governor file of every CPU frequency policy, as /sys paths (none without cpufreq)."""
        base = self.sys_root + CPUFREQ_DIR[len(SYS):]
        try:
            names = sorted(name for name in os.listdir(base) if re.match(r'^policy[0-9]+$', name))
        except (IOError, OSError):
            names = []
        return ['%s/%s/scaling_governor' % (CPUFREQ_DIR, name) for name in names
                if os.path.exists(os.path.join(base, name, 'scaling_governor'))]

    def systemd_running(self):
        return os.path.isdir(self.run_root + SYSTEMD_RUN_DIR[len('/run'):])


def detect_netns(fs):
    """(True, evidence) when this looks like a child network namespace."""
    if fs.read(NETNS_PROBE_ABSENT) is None and fs.read('net.ipv4.tcp_rmem') is not None:
        return True, '%s does not exist (it exists only in the initial network namespace)' % NETNS_PROBE_ABSENT
    if fs.read(NETNS_PROBE_READONLY) is not None and not fs.writable(NETNS_PROBE_READONLY):
        return True, '%s is read-only (it is writable only in the initial network namespace)' % NETNS_PROBE_READONLY
    return False, None


def _result(key, status, wanted=None, before=None, after=None, reason=None):
    return {'key': key, 'status': status, 'wanted': wanted, 'before': before,
            'after': after, 'reason': reason}


def _guard(fs, key, namespaced, ns_reason):
    """A skip reason when key must not be written on this host, else None."""
    if namespaced and is_machine_wide(key):
        return 'machine-wide setting: never changed on a network-namespaced host (%s)' % ns_reason
    return None


def _write_verified(fs, key, wanted, before, namespaced, check_mode, ok_status):
    """Write wanted, read it back, and classify the outcome."""
    if not fs.writable(key):
        if namespaced:
            return _result(key, STATUS_SKIPPED, wanted, before, before,
                           'read-only in this network namespace (a machine-wide setting)')
        if is_sysfs(key):
            return _result(key, STATUS_SKIPPED, wanted, before, before,
                           'read-only on this host (/sys is mounted read-only, e.g. in a container)')
        return _result(key, STATUS_FAILED, wanted, before, before, 'read-only on this host')
    if check_mode:
        return _result(key, ok_status, wanted, before, wanted, 'check mode: not written')
    try:
        fs.write(key, wanted)
    except (IOError, OSError) as exc:
        if key == CONGESTION_KEY and exc.errno == errno.ENOENT:
            return _result(key, STATUS_SKIPPED, wanted, before, before,
                           'congestion control %s is not available on this kernel' % wanted)
        if namespaced and exc.errno in (errno.EACCES, errno.EPERM):
            return _result(key, STATUS_SKIPPED, wanted, before, before,
                           'read-only in this network namespace (%s)' % exc.strerror)
        return _result(key, STATUS_FAILED, wanted, before, fs.read(key),
                       'writing failed: %s' % (exc.strerror or exc))
    after = fs.read(key)
    if after == wanted:
        return _result(key, ok_status, wanted, before, after)
    if namespaced and after == before:
        # The trap: the write "succeeded" but the namespace kept its value.
        return _result(key, STATUS_SKIPPED, wanted, before, after,
                       'write ignored in this network namespace: read back %s' % after)
    return _result(key, STATUS_FAILED, wanted, before, after,
                   'read back %s after writing %s' % (after, wanted))


def apply_key(fs, key, wanted, namespaced=False, ns_reason=None, check_mode=False, optional=False):
    """Bring one key to wanted (normalized text). Returns a result dict.

    optional: a key this kernel may lack (a profile's, a sysfs knob): skipped when missing, not refused."""
    wanted = normalize(wanted)
    reason = _guard(fs, key, namespaced, ns_reason)
    if reason:
        return _result(key, STATUS_SKIPPED, wanted, reason=reason)
    before = fs.read(key)
    if before is None:
        if namespaced and key in INIT_NETNS_ONLY:
            return _result(key, STATUS_SKIPPED, wanted,
                           reason='does not exist in this network namespace (only in the initial one)')
        if optional or is_sysfs(key):
            return _result(key, STATUS_SKIPPED, wanted, reason='does not exist on this kernel (%s)'
                           % (key if is_sysfs(key) else '/proc/sys/' + key_to_relpath(key)))
        return _result(key, STATUS_FAILED, wanted,
                       reason='no such sysctl on this kernel (%s): a typo?' % ('/proc/sys/' + key_to_relpath(key)))
    if before == wanted:
        return _result(key, STATUS_UNCHANGED, wanted, before, before)
    if key.endswith('/scaling_governor'):
        available = (fs.read(key[:-len('scaling_governor')] + 'scaling_available_governors') or '').split()
        if available and wanted not in available:
            return _result(key, STATUS_SKIPPED, wanted, before, before,
                           'governor %s is not available (available: %s)' % (wanted, ' '.join(available)))
    if key == CONGESTION_KEY:
        available = (fs.read(AVAILABLE_CONGESTION_KEY) or '').split()
        if wanted not in available and namespaced:
            # Writing it would make the kernel load tcp_<name>: machine-wide.
            return _result(key, STATUS_SKIPPED, wanted, before, before,
                           'congestion control %s is not loaded (available: %s) and loading a kernel module is machine-wide'
                           % (wanted, ' '.join(available)))
    return _write_verified(fs, key, wanted, before, namespaced, check_mode, STATUS_APPLIED)


def restore_key(fs, key, stock, namespaced=False, ns_reason=None, check_mode=False):
    """Bring one key back to its recorded stock value."""
    reason = _guard(fs, key, namespaced, ns_reason)
    if reason:
        return _result(key, STATUS_SKIPPED, stock, reason=reason)
    if stock is None:
        return _result(key, STATUS_SKIPPED, None, reason='did not exist when the snapshot was taken')
    current = fs.read(key)
    if current is None:
        return _result(key, STATUS_SKIPPED, stock, reason='does not exist any more')
    if current == stock:
        return _result(key, STATUS_UNCHANGED, stock, current, current)
    return _write_verified(fs, key, stock, current, namespaced, check_mode, STATUS_RESTORED)


def governor_skip_reason(fs, namespaced=False, ns_reason=None):
    """Why the CPU frequency governor cannot be set here (None when it can: see fs.governor_paths())."""
    reason = _guard(fs, CPUFREQ_DIR, namespaced, ns_reason)
    if reason:
        return reason
    if not fs.governor_paths():
        return 'no CPU frequency scaling here: %s has no policy (no cpufreq driver, e.g. a VM)' % CPUFREQ_DIR
    return None


def skipped(key, wanted, reason):
    """The result of a knob this host cannot take (cpu_governor, cpu_dma_latency): skipped, with why."""
    return _result(key, STATUS_SKIPPED, None if wanted is None else normalize(wanted), reason=reason)


def cpu_dma_latency_problem(fs, namespaced=False, ns_reason=None, by='service'):
    """Why /dev/cpu_dma_latency cannot be held on this host (None when it can), by a service or tuned."""
    if namespaced:
        return 'machine-wide setting: never changed on a network-namespaced host (%s)' % ns_reason
    if not fs.exists(CPU_DMA_LATENCY_DEVICE):
        return '%s does not exist on this kernel (no PM QoS)' % CPU_DMA_LATENCY_DEVICE
    if by == 'service' and not fs.systemd_running():
        return ('systemd is not running (%s is missing): no service can hold %s open'
                % (SYSTEMD_RUN_DIR, CPU_DMA_LATENCY_DEVICE))
    return None


def cpu_dma_latency_text(microseconds):
    """What the holder writes: the kernel reads a 4-byte write as a binary s32 and any other
    length as hex text, so the text is always 10 bytes (0x%08x)."""
    value = int(microseconds)
    if not 0 <= value <= 0x7fffffff:
        raise ValueError('cpu_dma_latency must be from 0 to %d microseconds, got %d' % (0x7fffffff, value))
    return '0x%08x' % value


def summarize(results):
    """Group per-key results by status (the role prints this)."""
    summary = {'applied': [], 'unchanged': [], 'restored': [], 'skipped': {}, 'failed': {}}
    for res in results:
        if res['status'] in (STATUS_SKIPPED, STATUS_FAILED):
            summary[res['status']][res['key']] = res['reason']
        else:
            summary[res['status']].append(res['key'])
    return summary
