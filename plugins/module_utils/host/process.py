# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The one process runner of perflab.network.

Every tool runs from an argv list (never a shell), in its own session, so that
a hung tool and everything it forked can be killed as one process group.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import errno
import os
import signal
import socket
import subprocess
import threading
import time

from ansible_collections.perflab.network.plugins.module_utils.core.units import iso_utc

# SIGTERM first, SIGKILL this many seconds later
KILL_GRACE_S = 2.0

# Where the tools role installs tools that come without a package (its tools_install_dir
# defaults to this; tests/unit/test_registry.py checks the two agree).
INSTALL_DIR = '/opt/perflab/bin'
# Directories searched besides PATH: Ansible runs modules with a minimal PATH
# on some hosts, and netserver lives in sbin on some distributions.
EXTRA_BIN_DIRS = ('/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin', INSTALL_DIR,
                  '/opt/ethr')


class ProcessResult(object):
    """What one process did: argv, rc, stdout, stderr, timed_out, started_at, ended_at, elapsed_s."""

    def __init__(self, argv, rc=None, stdout='', stderr='', timed_out=False,
                 started_at=None, ended_at=None, elapsed_s=0.0, pid=None):
        self.argv = list(argv)
        self.rc = rc
        self.stdout = stdout
        self.stderr = stderr
        self.timed_out = timed_out
        self.started_at = started_at
        self.ended_at = ended_at
        self.elapsed_s = elapsed_s
        self.pid = pid

    def to_dict(self):
        return {
            'argv': self.argv, 'rc': self.rc, 'stdout': self.stdout, 'stderr': self.stderr,
            'timed_out': self.timed_out, 'started_at': self.started_at,
            'ended_at': self.ended_at, 'elapsed_s': self.elapsed_s, 'pid': self.pid,
        }

    def __repr__(self):
        return 'ProcessResult(argv=%r, rc=%r, timed_out=%r, elapsed_s=%.3f)' % (
            self.argv, self.rc, self.timed_out, self.elapsed_s)


def _decode(data):
    if data is None:
        return ''
    if isinstance(data, bytes):
        return data.decode('utf-8', 'replace')
    return data


def _merged_env(env):
    if env is None:
        return None
    merged = dict(os.environ)
    merged.update(env)
    return merged


def signal_group(pgid, sig):
    """Send ``sig`` to process group ``pgid``; False when the group is gone."""
    try:
        os.killpg(pgid, sig)
    except OSError as exc:
        if exc.errno == errno.ESRCH:
            return False
        raise
    return True


class _Running(object):
    """One started process and the bookkeeping to finish it."""

    def __init__(self, argv, env=None):
        self.argv = [str(arg) for arg in argv]
        self.started_wall = time.time()
        self.started_mono = time.monotonic()
        self.popen = None
        self.spawn_error = None
        try:
            self.popen = subprocess.Popen(
                self.argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, start_new_session=True, close_fds=True,
                env=_merged_env(env))
        except OSError as exc:
            self.spawn_error = exc

    def wait(self, timeout):
        if self.popen is None:
            # argv[0] missing or not executable: report it like a shell would
            rc = 127 if self.spawn_error.errno == errno.ENOENT else 126
            now = time.time()
            return ProcessResult(self.argv, rc=rc, stderr='%s: %s' % (self.argv[0], self.spawn_error),
                                 started_at=iso_utc(self.started_wall), ended_at=iso_utc(now),
                                 elapsed_s=now - self.started_wall)
        popen = self.popen
        timed_out = False
        remaining = max(0.0, timeout - (time.monotonic() - self.started_mono))
        try:
            out, err = popen.communicate(timeout=remaining)
        except subprocess.TimeoutExpired:
            timed_out = True
            out, err = self._kill_group()
        ended = time.time()
        return ProcessResult(self.argv, rc=popen.returncode, stdout=_decode(out), stderr=_decode(err),
                             timed_out=timed_out, started_at=iso_utc(self.started_wall),
                             ended_at=iso_utc(ended), elapsed_s=round(time.monotonic() - self.started_mono, 3),
                             pid=popen.pid)

    def _kill_group(self):
        popen = self.popen
        # the child is the leader of its own session and group: pgid == pid
        signal_group(popen.pid, signal.SIGTERM)
        try:
            out, err = popen.communicate(timeout=KILL_GRACE_S)
        except subprocess.TimeoutExpired:
            out = err = None
        # Stragglers of the group (children that ignored SIGTERM) die now.
        signal_group(popen.pid, signal.SIGKILL)
        if out is None:
            try:
                out, err = popen.communicate(timeout=5)
            except subprocess.TimeoutExpired:
                # A descendant that left our group still holds the pipes: give up on them.
                for stream in (popen.stdout, popen.stderr):
                    if stream is not None:
                        stream.close()
                popen.wait()
                out, err = b'', b''
        return out, err


def run(argv, timeout, env=None):
    """Run ``argv`` (a list, never a shell) in its own session and wait up to ``timeout`` seconds.

    ``env`` entries are added to the current environment. On timeout the whole
    process group gets SIGTERM, then SIGKILL after KILL_GRACE_S, and the result
    has ``timed_out`` set. A missing executable gives rc 127 and the error on stderr.
    """
    if isinstance(argv, (str, bytes)):
        raise TypeError('argv must be a list, not a string')
    return _Running(argv, env).wait(timeout)


def run_many(argvs, timeout, env=None):
    """Start every argv at once, wait for all; each has its own ``timeout`` handling.

    Returns the ProcessResults in the order of ``argvs``.
    """
    for argv in argvs:
        if isinstance(argv, (str, bytes)):
            raise TypeError('each argv must be a list, not a string')
    running = [_Running(argv, env) for argv in argvs]
    results = [None] * len(running)

    def _wait(index):
        results[index] = running[index].wait(timeout)

    threads = [threading.Thread(target=_wait, args=(index,)) for index in range(len(running))]
    for thread in threads:
        thread.daemon = True
        thread.start()
    for thread in threads:
        thread.join()
    return results


def search_dirs(tool_paths=None, path_env=None):
    """The one search order of the tools' executables, every module's and the benchmark plan's:
    PATH (``path_env``, default this process'), then ``tool_paths`` (the benchmark role's
    benchmark_tool_paths and the tools role's ``<tools_prefix>/bin``), then EXTRA_BIN_DIRS; each once."""
    if path_env is None:
        path_env = os.environ.get('PATH', '')
    dirs = []
    for directory in [d for d in path_env.split(os.pathsep) if d] + list(tool_paths or []) + list(EXTRA_BIN_DIRS):
        if directory not in dirs:
            dirs.append(directory)
    return dirs


def find_in(executable, dirs):
    """The first executable file ``executable`` in the folders ``dirs``, else None."""
    for directory in dirs:
        candidate = os.path.join(directory, executable)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


def which(tool, tool_paths=None):
    """Full path of ``tool`` in search_dirs(tool_paths), else None; a path is checked as it is."""
    if os.sep in tool:
        return tool if os.path.isfile(tool) and os.access(tool, os.X_OK) else None
    return find_in(tool, search_dirs(tool_paths))


def missing_tool_message(tool, searched=None):
    """The error of a tool not found, naming where it was looked for (``searched``: the folders, in order)."""
    where = (' (looked in %s)' % ', '.join(searched)) if searched else ''
    return ('%s is not installed on this host%s: install it with the perflab.network.tools role, or add its folder '
            'to tool_paths (the benchmark role\'s benchmark_tool_paths, benchmark_windows_tool_paths)' % (tool, where))


# ---------------------------------------------------------------------------
# Long-running (server) processes: used by bench_server

# a server's log is truncated when it starts and cannot grow beyond this (RLIMIT_FSIZE; the
# writes past it fail, SIGXFSZ is ignored so that the server is not killed for it)
LOG_MAX_BYTES = 8 * 1024 * 1024


def nofile_limits():
    """(soft, hard) RLIMIT_NOFILE of this process; an unlimited hard limit reads as fs.nr_open."""
    import resource
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY:
        try:
            with open('/proc/sys/fs/nr_open') as handle:
                hard = int(handle.read().strip())
        except (IOError, OSError, ValueError):
            hard = 1048576
    return soft, hard


def nofile_problem(nofile):
    """None, or why a server cannot get ``nofile`` open files here (above the hard limit)."""
    hard = nofile_limits()[1]
    if nofile is not None and nofile > hard:
        return ('nofile %d is above the hard open-files limit of this host (%d, ulimit -Hn): give nofile at most %d, '
                'or leave it out (the servers get the hard limit)' % (nofile, hard, hard))
    return None


def process_nofile(pid):
    """The soft open-files limit of a running ``pid`` (/proc/<pid>/limits), None when unknown."""
    try:
        with open('/proc/%d/limits' % pid) as handle:
            for line in handle:
                if line.startswith('Max open files'):
                    value = line.split()[3]
                    return None if value == 'unlimited' else int(value)
    except (IOError, OSError, ValueError, IndexError):
        return None
    return None


def spawn_detached(argv, log_path, env=None, nofile=None, cwd='/', log_max_bytes=LOG_MAX_BYTES):
    """Start ``argv`` detached: own session, stdin /dev/null, stdout+stderr to ``log_path``.

    The working directory is ``cwd`` (``/``: Ansible deletes the module's temporary directory).
    The log is truncated first, written in append mode (it can be emptied while the server runs:
    ``empty_log``) and bounded to ``log_max_bytes``.

    The child's soft RLIMIT_NOFILE is ``nofile``, or the hard limit when None (a server that
    accepts many connections runs out of descriptors at the usual soft 1024); ``nofile`` above
    the hard limit raises ValueError before anything starts (see nofile_problem).
    Returns the pid (also the process group id).
    """
    problem = nofile_problem(nofile)
    if problem:
        raise ValueError(problem)
    soft_wanted = nofile or nofile_limits()[1]

    def preexec():
        # nothing here may raise: the values were checked above
        import resource
        hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft_wanted, hard))
        if log_max_bytes:
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (log_max_bytes, log_max_bytes))
    # truncated, then opened for appending: the server writes at the end of the file whatever its
    # size, so a log emptied between tests (bench_server status) takes lines again up to the bound
    open(log_path, 'wb').close()
    log = open(log_path, 'ab')
    try:
        popen = subprocess.Popen(
            [str(arg) for arg in argv], stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
            start_new_session=True, close_fds=True, env=_merged_env(env), preexec_fn=preexec, cwd=cwd)
    finally:
        log.close()
    # The server outlives this module; it is reparented to init when we exit.
    return popen.pid


def log_matches(path, patterns, offset=0, max_bytes=LOG_MAX_BYTES, max_lines=5):
    """Lines of the log ``path`` from byte ``offset`` that match a regex of ``patterns``.

    Returns ``(count, first lines (at most max_lines), size of the log)``; reads at most
    ``max_bytes`` (the log is bounded anyway).
    """
    import re
    compiled = [re.compile(pattern) for pattern in patterns]
    try:
        with open(path, 'rb') as handle:
            handle.seek(0, os.SEEK_END)
            size = handle.tell()
            handle.seek(min(max(0, offset), size))
            text = handle.read(max_bytes).decode('utf-8', 'replace')
    except (IOError, OSError):
        return 0, [], 0
    found = [line.strip() for line in text.splitlines() if any(regex.search(line) for regex in compiled)]
    return len(found), found[:max_lines], size


def empty_log(path):
    """Empty the log ``path`` of a running server spawned by spawn_detached (append mode: its next
    line goes to the start again); False when it could not be emptied."""
    try:
        os.truncate(path, 0)
        return True
    except (IOError, OSError):
        return False


def pid_alive(pid):
    """True when ``pid`` exists and is not a zombie."""
    try:
        os.kill(pid, 0)
    except OSError as exc:
        if exc.errno == errno.ESRCH:
            return False
    try:
        with open('/proc/%d/stat' % pid) as handle:
            stat = handle.read()
        return stat[stat.rfind(')') + 2:].split()[0] != 'Z'
    except (IOError, OSError):
        return True


def group_members(pgid):
    """Pids of the live (non-zombie) processes in process group ``pgid`` (Linux /proc)."""
    members = []
    for entry in os.listdir('/proc'):
        if not entry.isdigit():
            continue
        try:
            with open('/proc/%s/stat' % entry) as handle:
                stat = handle.read()
        except (IOError, OSError):
            continue
        fields = stat[stat.rfind(')') + 2:].split()
        # fields[0] = state, fields[2] = pgrp
        if len(fields) > 2 and fields[2] == str(pgid) and fields[0] != 'Z':
            members.append(int(entry))
    return members


def kill_group(pgid, grace=KILL_GRACE_S, members=None):
    """SIGTERM the group, SIGKILL what is left after ``grace`` s; True when none is left.

    ``members(pgid)``: the group's live pids (default group_members, Linux /proc; host_platform
    passes FreeBSD's).
    """
    alive = members or group_members
    if not alive(pgid):
        return True
    signal_group(pgid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        if not alive(pgid):
            return True
        time.sleep(0.05)
    signal_group(pgid, signal.SIGKILL)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        if not alive(pgid):
            return True
        time.sleep(0.05)
    return False


def port_accepts(host, port, timeout=1.0):
    """True when a TCP connection to host:port succeeds (the connection is closed at once)."""
    try:
        conn = socket.create_connection((host, port), timeout=timeout)
    except (OSError, socket.error):
        return False
    conn.close()
    return True


def _decode_proc_net_address(text):
    """'0100007F:13B9' -> ('127.0.0.1', 5049); IPv6 words are little-endian 32-bit groups too."""
    import ipaddress
    import struct
    address_hex, port_hex = text.split(':')
    raw = bytes(bytearray.fromhex(address_hex))
    # each 32-bit word is in host (little-endian) order
    words = struct.unpack('<%dI' % (len(raw) // 4), raw)
    packed = struct.pack('>%dI' % len(words), *words)
    return str(ipaddress.ip_address(packed)), int(port_hex, 16)


# /proc/net state column: 0A = TCP_LISTEN; 07 = TCP_CLOSE, which a bound, unconnected UDP socket shows
LISTEN_STATES = {'tcp': '0A', 'udp': '07'}


def parse_proc_net(text, state):
    """Local ports of the sockets in ``state`` in one /proc/net/{tcp,tcp6,udp,udp6} table."""
    ports = set()
    for line in text.splitlines()[1:]:
        fields = line.split()
        if len(fields) < 4 or fields[3] != state:
            continue
        ports.add(_decode_proc_net_address(fields[1])[1])
    return ports


def listening_ports(net_dir='/proc/net'):
    """{'tcp': [ports], 'udp': [ports]} of this network namespace, IPv4 and IPv6, sorted."""
    out = {}
    for protocol, state in sorted(LISTEN_STATES.items()):
        ports = set()
        for table in (protocol, protocol + '6'):
            try:
                with open(os.path.join(net_dir, table)) as handle:
                    text = handle.read()
            except (IOError, OSError):
                continue
            ports |= parse_proc_net(text, state)
        out[protocol] = sorted(ports)
    return out


def tcp_listeners(port, proc_root='/proc'):
    """Sockets listening on TCP ``port`` in this network namespace: ``[{address, port, pid, comm}]``.

    ``pid``/``comm`` are None when the owner cannot be seen (another pid namespace).
    """
    found = {}
    for table in ('tcp', 'tcp6'):
        try:
            with open(os.path.join(proc_root, 'net', table)) as handle:
                lines = handle.read().splitlines()[1:]
        except (IOError, OSError):
            continue
        for line in lines:
            fields = line.split()
            if len(fields) < 10 or fields[3] != '0A':  # 0A = LISTEN
                continue
            address, local_port = _decode_proc_net_address(fields[1])
            if local_port == port:
                found[fields[9]] = {'address': address, 'port': local_port, 'pid': None, 'comm': None}
    if not found:
        return []
    for entry in os.listdir(proc_root):
        if not entry.isdigit():
            continue
        fd_dir = os.path.join(proc_root, entry, 'fd')
        try:
            fds = os.listdir(fd_dir)
        except (IOError, OSError):
            continue
        for fd in fds:
            try:
                target = os.readlink(os.path.join(fd_dir, fd))
            except (IOError, OSError):
                continue
            if target.startswith('socket:[') and target[8:-1] in found:
                owner = found[target[8:-1]]
                if owner['pid'] is None:
                    owner['pid'] = int(entry)
                    try:
                        with open(os.path.join(proc_root, entry, 'comm')) as handle:
                            owner['comm'] = handle.read().strip()
                    except (IOError, OSError):
                        pass
    return sorted(found.values(), key=lambda item: (item['address'], item['pid'] or 0))


def process_pgid(pid):
    """Process group of ``pid``, None when it is gone."""
    try:
        return os.getpgid(pid)
    except OSError:
        return None


def process_cmdline(pid):
    """argv of ``pid`` as a list ([] when gone or a kernel thread)."""
    try:
        with open('/proc/%d/cmdline' % pid, 'rb') as handle:
            data = handle.read()
    except (IOError, OSError):
        return []
    return [part.decode('utf-8', 'replace') for part in data.split(b'\0') if part]


def same_network_namespace(pid):
    """True when ``pid`` shares our network namespace (False when gone or unknown)."""
    try:
        return os.readlink('/proc/%d/ns/net' % pid) == os.readlink('/proc/self/ns/net')
    except OSError:
        return False


# the mark bench_server puts in each test server's environment; a server's children (netserver forks one per
# test) inherit it, so a process that carries it is provably one of ours even without a pidfile
SERVER_MARK = 'PERFLAB_SERVER'


def marked_processes(mark=SERVER_MARK, proc='/proc'):
    """[(pid, value of the mark)] of the processes of our network namespace whose environment has ``mark``."""
    found = []
    needle = mark.encode('ascii') + b'='
    for name in os.listdir(proc):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            with open(os.path.join(proc, name, 'environ'), 'rb') as handle:
                environ = handle.read()
        except (IOError, OSError):
            continue
        for entry in environ.split(b'\0'):
            if entry.startswith(needle) and same_network_namespace(int(name)):
                found.append((int(name), entry[len(needle):].decode('utf-8', 'replace')))
                break
    return sorted(found)
