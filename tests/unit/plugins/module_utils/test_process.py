# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os
import re
import sys
import time

import pytest

from ansible_collections.perflab.network.plugins.module_utils.core import common_args
from ansible_collections.perflab.network.plugins.module_utils.host import process

ISO_RE = re.compile(r'^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')


def test_run_captures_output_and_rc():
    res = process.run([sys.executable, '-c', 'import sys; print("out"); sys.stderr.write("err"); sys.exit(3)'], 10)
    assert res.rc == 3
    assert res.stdout == 'out\n'
    assert res.stderr == 'err'
    assert res.timed_out is False
    assert ISO_RE.match(res.started_at) and ISO_RE.match(res.ended_at)
    assert 0 <= res.elapsed_s < 10


def test_run_is_not_a_shell():
    res = process.run(['echo', 'a;b', '$(id)', '|', '*'], 10)
    assert res.stdout == 'a;b $(id) | *\n'
    with pytest.raises(TypeError):
        process.run('echo hi', 10)


def test_run_env_is_added_to_environment():
    res = process.run([sys.executable, '-c', 'import os; print(os.environ["PERFLAB_X"], "PATH" in os.environ)'],
                      10, env={'PERFLAB_X': 'y'})
    assert res.stdout.split() == ['y', 'True']


def test_run_in_own_session():
    res = process.run([sys.executable, '-c', 'import os; print(os.getsid(0) == os.getpid())'], 10)
    assert res.stdout.strip() == 'True'


def test_timeout_kills_whole_group(tmp_path):
    # the child ignores SIGTERM and forks a grandchild: both must be gone afterwards
    pidfile = tmp_path / 'grandchild'
    script = (
        'import os, signal, subprocess, sys, time\n'
        'signal.signal(signal.SIGTERM, signal.SIG_IGN)\n'
        'p = subprocess.Popen(["sleep", "300"])\n'
        'open(sys.argv[1], "w").write(str(p.pid))\n'
        'print("started", flush=True)\n'
        'time.sleep(300)\n'
    )
    start = time.monotonic()
    res = process.run([sys.executable, '-c', script, str(pidfile)], 1.5)
    took = time.monotonic() - start
    assert res.timed_out is True
    assert res.rc == -9
    assert 'started' in res.stdout
    assert 3.0 <= took < 10
    grandchild = int(pidfile.read_text())
    time.sleep(0.2)
    assert not process.pid_alive(grandchild)


def test_timeout_sigterm_is_enough_for_polite_process():
    start = time.monotonic()
    res = process.run(['sleep', '300'], 0.5)
    assert res.timed_out is True
    assert res.rc == -15
    assert time.monotonic() - start < 0.5 + process.KILL_GRACE_S  # did not wait for the SIGKILL


def test_missing_executable():
    res = process.run(['/nonexistent/perflab-tool', '-x'], 5)
    assert res.rc == 127
    assert 'perflab-tool' in res.stderr
    assert res.timed_out is False


def test_run_many_runs_at_once_and_keeps_order():
    # each child prints its index, then when it started and ended: at once means every one
    # started before any ended (a wall-clock bound would fail on a loaded CI machine)
    child = 'import time,sys; s=time.monotonic(); time.sleep(1); print(sys.argv[1], s, time.monotonic())'
    argvs = [[sys.executable, '-c', child, str(i)] for i in range(4)]
    results = process.run_many(argvs, 60)
    lines = [r.stdout.split() for r in results]
    assert [line[0] for line in lines] == ['0', '1', '2', '3']
    assert [r.argv for r in results] == argvs
    assert max(float(line[1]) for line in lines) < min(float(line[2]) for line in lines)


def test_run_many_timeout_per_process():
    results = process.run_many([['sleep', '300'], ['true']], 0.5)
    assert results[0].timed_out is True
    assert results[1].timed_out is False and results[1].rc == 0


def test_which():
    assert process.which('sh') is not None
    assert process.which('perflab-no-such-tool') is None
    assert process.which('/bin/sh') == '/bin/sh'


def test_search_order_is_path_then_tool_paths_then_the_usual_folders():
    dirs = process.search_dirs(['/opt/x/bin', '/usr/bin'], path_env='/usr/bin:/home/u/bin::/usr/bin')
    assert dirs[:3] == ['/usr/bin', '/home/u/bin', '/opt/x/bin']
    # each folder once, the usual ones (the tools role's default prefix among them) after the given ones
    assert dirs[3:] == [d for d in process.EXTRA_BIN_DIRS if d != '/usr/bin']
    assert len(dirs) == len(set(dirs))


def _executable(folder, name):
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(u'#!/bin/sh\nexit 0\n')
    path.chmod(0o755)
    return str(path)


def test_a_tool_under_another_prefix_is_found_only_through_tool_paths(tmp_path, monkeypatch):
    # issue 29: tools_prefix /opt/x, nothing in PATH nor in the usual folders
    monkeypatch.setenv('PATH', str(tmp_path / 'empty'))
    monkeypatch.setattr(process, 'EXTRA_BIN_DIRS', (str(tmp_path / 'usual'),))
    ethr = _executable(tmp_path / 'x' / 'bin', 'ethr')
    assert process.which('ethr') is None
    assert process.which('ethr', [str(tmp_path / 'x' / 'bin')]) == ethr
    # PATH comes first, as in the plan's lookup (which with PATH + benchmark_tool_paths)
    first = _executable(tmp_path / 'empty', 'ethr')
    assert process.which('ethr', [str(tmp_path / 'x' / 'bin')]) == first
    # a file that is not executable is passed over
    (tmp_path / 'y').mkdir()
    (tmp_path / 'y' / 'nuttcp').write_text(u'')
    assert process.which('nuttcp', [str(tmp_path / 'y')]) is None


@pytest.mark.parametrize('tool_paths, problems', [
    (None, []),
    ([], []),
    (['/opt/x/bin', '/usr/local/bin'], []),
    (['opt/x/bin'], ["tool_paths must hold absolute folder paths, got 'opt/x/bin'"]),
    (['/opt/x/bin', './bin', ''], ["tool_paths must hold absolute folder paths, got './bin'",
                                   "tool_paths must hold absolute folder paths, got ''"]),
    ('/opt/x/bin', ["tool_paths must be a list of absolute folder paths, got '/opt/x/bin'"]),
])
def test_tool_paths_errors(tool_paths, problems):
    assert common_args.tool_paths_errors(tool_paths) == problems


def test_missing_tool_message():
    assert process.missing_tool_message('iperf3', ['/usr/bin', '/opt/x/bin']) == (
        'iperf3 is not installed on this host (looked in /usr/bin, /opt/x/bin): install it with the '
        "perflab.network.tools role, or add its folder to tool_paths (the benchmark role's benchmark_tool_paths, "
        'benchmark_windows_tool_paths)')


def test_spawn_detached_and_kill_group(tmp_path):
    log = tmp_path / 'server.log'
    pid = process.spawn_detached(['sh', '-c', 'echo up; sleep 300 & sleep 300'], str(log), nofile=4096)
    try:
        time.sleep(0.3)
        assert os.getsid(pid) == pid
        members = process.group_members(pid)
        assert pid in members and len(members) >= 2  # sh, the background sleep (and dash forks the last one)
        with open('/proc/%d/limits' % pid) as handle:
            limits = handle.read()
        assert re.search(r'Max open files\s+4096', limits)
        assert process.kill_group(pid) is True
        time.sleep(0.1)
        assert process.group_members(pid) == []
        assert 'up' in log.read_text()
    finally:
        process.kill_group(pid)


def test_port_accepts():
    import socket
    sock = socket.socket()
    sock.bind(('127.0.0.1', 0))
    sock.listen(1)
    port = sock.getsockname()[1]
    assert process.port_accepts('127.0.0.1', port) is True
    sock.close()
    assert process.port_accepts('127.0.0.1', port) is False


def test_marked_processes_finds_a_server_and_its_children_by_their_mark(tmp_path):
    """A process started with the mark, and a child it forks (as netserver does), are found; others are not."""
    log = str(tmp_path / 'server.log')
    script = 'import os, time\nif os.fork() == 0:\n    time.sleep(30)\nelse:\n    time.sleep(30)\n'
    pid = process.spawn_detached([sys.executable, '-c', script], log, env={process.SERVER_MARK: 'netperf-12999'})
    try:
        deadline = time.monotonic() + 10
        found = []
        while time.monotonic() < deadline and len(found) < 2:
            found = [(p, mark) for p, mark in process.marked_processes() if mark == 'netperf-12999']
            time.sleep(0.05)
        assert len(found) == 2 and pid in [p for p, dummy in found], found
        assert os.getpid() not in [p for p, dummy in process.marked_processes()]
    finally:
        process.kill_group(pid)
    assert not [p for p, mark in process.marked_processes() if mark == 'netperf-12999' and process.pid_alive(p)]
