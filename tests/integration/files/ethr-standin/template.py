#!/bin/sh
# a shell line, and a Python string: the tools role copies one file, run by whichever python3 the host has
''''exec python3 "$0" "$@" #'''
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A stand-in for ethr v1.0.0-5 (no package registry has ethr): written by build.py, do not edit ``ethr``.

It replays the real output of ethr v1.0.0-5-g86e0704 (tests/unit/fixtures/ethr/1.0.0-5/) for
the argv it gets, paced over the asked duration, and behaves like ethr where the collection
depends on it:

* ``-h``: the real help.
* client ``-c HOST -port P -t b|c|l -p tcp|udp|http [-r] [-n N] -d 3s``: connects to HOST:P first
  (the real ``unreachable`` output, exit 0, when nothing listens); ``-p http`` is refused as the
  real one refuses it (exit 1); latency ignores ``-n`` like ethr 1.0.
* server ``-s -port P [-ip A]``: really listens on A:P (TCP and UDP); a connections/s client
  makes it print the real server console, or, when its soft RLIMIT_NOFILE is below
  EXHAUSTED_BELOW, the accept errors ethr prints when it runs out of file descriptors: as many as
  real ethr 1.0 logs, about ERRORS_PER_THREAD per client thread (``-n``) in a test (82114 with
  ``-n 2``), over a second. A log that cannot take more (its bound) loses the rest, as with ethr.
"""
import os
import re
import resource
import socket
import sys
import threading
import time

OUTPUTS = {}  # filled in by build.py
EXHAUSTED_BELOW = 8192
ERRORS_PER_THREAD = 30000
MAX_PACE_S = 30.0


def option(argv, name, default=None):
    return argv[argv.index(name) + 1] if name in argv and argv.index(name) + 1 < len(argv) else default


def seconds(text):
    if text.endswith('ms'):
        return float(text[:-2]) / 1000
    if text.endswith('s'):
        return float(text[:-1])
    return float(text)


def out(text):
    sys.stdout.write(text)
    sys.stdout.flush()


def log(text):
    """Write to the server's output as Go does: a write the log's bound refuses is lost, not fatal."""
    try:
        os.write(1, text.encode())
    except OSError:
        pass


def replay(text, duration):
    """Print ``text`` as ethr prints it in a run of ``duration`` seconds.

    The measurement lines of each second come a second apart (scaled down beyond MAX_PACE_S), and
    only those of the asked duration (ethr prints one interval per second; its latency test one
    row per second and one at the end): the captured 5 s runs give a 2 s run its first 2 seconds.
    """
    seconds_wanted = max(1, int(round(duration)))
    groups, latency_rows = [], 0
    for line in text.splitlines(True):
        match = re.search(r'\b(\d{3})-(\d{3}) sec\b', line)
        if match:
            group = int(match.group(2))
        elif re.match(r'^\s*[0-9.]+us\s', line):
            latency_rows += 1
            group = latency_rows if latency_rows <= seconds_wanted else seconds_wanted + 1
            if latency_rows > seconds_wanted + 1:
                continue
        else:
            group = None
        if group is not None and group > seconds_wanted + (1 if latency_rows else 0):
            continue
        groups.append((group, line))
    count = len(set(group for group, _line in groups if group is not None)) or 1
    step = min(duration, MAX_PACE_S) / count
    current = None
    for group, line in groups:
        if group is not None and group != current:
            time.sleep(step)
            current = group
        out(line)


def client(argv):
    host, port = option(argv, '-c'), int(option(argv, '-port', '8888'))
    test, proto = option(argv, '-t', 'b'), option(argv, '-p', 'tcp')
    duration = seconds(option(argv, '-d', '10s'))
    if proto == 'http':
        out(OUTPUTS['http_bw'])
        return 1
    try:
        conn = socket.create_connection((host, port), timeout=3)
    except OSError:
        out(OUTPUTS['unreachable'])
        return 0
    conn.sendall(('t=%s n=%s\n' % (test, option(argv, '-n', '1'))).encode())
    if test == 'l':
        name = 'tcp_lat'
    elif test == 'c':
        name = 'tcp_cps'
    elif test == 'b' and proto == 'udp':
        name = 'udp_bw'
    elif test == 'b' and '-r' in argv:
        name = 'tcp_bw_reverse'
    elif test == 'b':
        name = 'tcp_bw_n4' if int(option(argv, '-n', '1')) > 1 else 'tcp_bw'
    else:
        conn.close()
        out('Error: this ethr stand-in has no real output for -t %s\n' % test)
        return 2
    replay(OUTPUTS[name], duration)
    conn.close()
    return 0


def serve_one(conn, address, port):
    try:
        conn.settimeout(5)
        request = conn.recv(64).decode('ascii', 'replace')
    except OSError:
        request = ''
    finally:
        conn.close()
    if not request.startswith('t=c'):
        return
    threads = re.search(r'\bn=(\d+)', request)
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    if soft < EXHAUSTED_BELOW:
        line = 'Error accepting new TCP connection: accept tcp %s:%d: accept4: too many open files\n' % (address, port)
        total = ERRORS_PER_THREAD * int(threads.group(1) if threads else 1)
        for dummy in range(10):
            log(line * (total // 10))
            time.sleep(0.1)
    else:
        console = OUTPUTS['server_cps_rerun.condensed']
        log(console[console.index('[RemoteAddress]'):].split('\n', 1)[1])


def server(argv):
    port = int(option(argv, '-port', '8888'))
    address = option(argv, '-ip') or '::'
    family = socket.AF_INET6 if ':' in address else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind((address, port))
    listener.listen(128)
    udp = socket.socket(family, socket.SOCK_DGRAM)
    udp.bind((address, port))
    console = OUTPUTS['server_cps_rerun.condensed']
    log(console[:console.index('\n', console.index('[RemoteAddress]')) + 1])
    while True:
        conn, _peer = listener.accept()
        threading.Thread(target=serve_one, args=(conn, address, port), daemon=True).start()


def main(argv):
    if '-h' in argv or not argv:
        out(OUTPUTS['help'])
        return 0
    if '-s' in argv:
        return server(argv)
    if '-c' in argv:
        return client(argv)
    out(OUTPUTS['help'])
    return 1


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
