# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""bench_server's open-files limit and bounded logs, with the ethr stand-in (tests/integration/files/ethr-standin:
it replays real ethr v1.0.0-5 output and logs ethr's accept errors when its soft limit is too low)."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os
import re
import subprocess

import pytest

from ansible_collections.perflab.network.plugins.module_utils.host import process
from ansible_collections.perflab.network.tests.unit.plugins.modules.test_bench_server import free_ports, run_module

STANDIN = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..', 'integration', 'files',
                       'ethr-standin', 'ethr')
EXHAUSTED_BELOW = 8192   # the stand-in's: below it, a connections/s client makes it log accept errors


@pytest.fixture
def servers(capsys, tmp_path):
    started = []

    def start(**args):
        port = free_ports(1)
        args = dict({'tool': 'ethr', 'bind': '127.0.0.1', 'port': port, 'pid_dir': str(tmp_path),
                     'executable': STANDIN}, **args)
        result = run_module(args, capsys)
        started.extend(server['pid'] for server in result.get('servers', []) if server.get('pid'))
        return port, result
    yield start
    for pid in started:
        process.kill_group(pid)


def connections_test(port, threads=1):
    out = subprocess.run([STANDIN, '-c', '127.0.0.1', '-port', str(port), '-t', 'c', '-p', 'tcp', '-n', str(threads),
                          '-d', '1s', '-no'], capture_output=True, text=True, timeout=30, check=True).stdout
    assert 'Conn/s' in out   # the client says nothing of the server's trouble


def status(capsys, tmp_path, port):
    return run_module({'tool': 'ethr', 'state': 'status', 'port': port, 'pid_dir': str(tmp_path),
                       'executable': STANDIN}, capsys)['servers'][0]


def test_servers_get_the_hard_limit_by_default_and_no_accept_errors(servers, capsys, tmp_path):
    hard = process.nofile_limits()[1]
    if hard < EXHAUSTED_BELOW:
        pytest.skip('the hard open-files limit here (%d) is below what the connections test needs' % hard)
    port, result = servers()
    server = result['servers'][0]
    assert server['state'] == 'started' and server['nofile'] == hard
    with open('/proc/%d/limits' % server['pid']) as handle:
        assert re.search(r'Max open files\s+%d' % hard, handle.read())
    connections_test(port)
    assert status(capsys, tmp_path, port)['log_problems']['count'] == 0


def test_a_server_that_hits_its_limit_says_so_in_status(servers, capsys, tmp_path):
    port, result = servers(nofile=4096)
    assert result['servers'][0]['nofile'] == 4096
    assert status(capsys, tmp_path, port)['log_problems']['count'] == 0
    connections_test(port)
    import time
    time.sleep(1.5)   # the stand-in logs its accept errors over a second
    problems = status(capsys, tmp_path, port)['log_problems']
    assert problems['count'] == 30000 and 'too many open files' in problems['lines'][0]
    assert len(problems['lines']) == 5 and problems['full'] is False and problems['emptied'] is True
    # the log was emptied: the next status shows only what came since
    assert os.path.getsize(str(tmp_path / ('ethr-%d.log' % port))) == 0
    assert status(capsys, tmp_path, port)['log_problems']['count'] == 0


def test_each_test_is_checked_on_its_own_window_of_a_log_it_filled(servers, capsys, tmp_path):
    # issue #29.2: accept errors filled the 8 MiB log; the tests after it were no longer checked
    import time
    port, _result = servers(nofile=4096)
    log = str(tmp_path / ('ethr-%d.log' % port))
    windows = []
    for threads in (2, 2, 2):
        connections_test(port, threads)
        time.sleep(1.5)
        problems = status(capsys, tmp_path, port)['log_problems']
        windows.append((problems['count'], problems.get('full'), problems.get('emptied'), os.path.getsize(log)))
    # 60000 lines (5.6 MB) each: without a fresh window the second filled the log and the third read 0
    assert windows == [(60000, False, True, 0)] * 3
    # one test alone beyond the bound: its count is a lower bound, and the status says the log was full
    connections_test(port, 4)
    time.sleep(2)
    problems = status(capsys, tmp_path, port)['log_problems']
    assert problems['full'] is True and problems['size'] == process.LOG_MAX_BYTES
    assert 0 < problems['count'] < 120000
    # emptied, the log takes lines again (append mode: the server writes at its new end)
    connections_test(port, 1)
    time.sleep(1.5)
    problems = status(capsys, tmp_path, port)['log_problems']
    assert problems['count'] == 30000 and problems['full'] is False


def test_a_log_not_in_append_mode_is_not_emptied(tmp_path):
    # a server started before logs were appended to (its mark has no flag): only the mark moves
    from ansible_collections.perflab.network.plugins.modules import bench_server
    log = tmp_path / 'ethr-8888.log'
    log.write_text('Error accepting new TCP connection: accept4: too many open files\n' * 3)
    (tmp_path / 'ethr-8888.mark').write_text('0\n')
    problems = bench_server.log_problems('ethr', str(log), empty=True)
    assert (problems['count'], problems['emptied']) == (3, False) and log.stat().st_size > 0
    assert bench_server.log_problems('ethr', str(log), empty=True)['count'] == 0


def test_nofile_above_the_hard_limit_fails_before_anything_starts(servers, tmp_path):
    hard = process.nofile_limits()[1]
    if hard >= 1048576:
        pytest.skip('the hard limit is the maximum nofile takes')
    port, result = servers(nofile=hard + 1)
    assert result['failed'] is True
    assert result['msg'].startswith('nofile %d is above the hard open-files limit of this host (%d' % (hard + 1, hard))
    assert 'preexec' not in result['msg']
    assert os.listdir(str(tmp_path)) == []


def test_the_log_is_truncated_at_start_and_bounded(tmp_path):
    log = tmp_path / 'x.log'
    log.write_text('an old run\n' * 1000)
    pid = process.spawn_detached(['sh', '-c', 'echo new; head -c 100000 /dev/zero; echo survived >&2; sleep 30'],
                                 str(log), log_max_bytes=4096)
    try:
        import time
        time.sleep(0.5)
        text = log.read_bytes()
        assert text.startswith(b'new\n') and b'an old run' not in text
        assert len(text) == 4096
        # the writes past the cap failed; the server was not killed for them (SIGXFSZ ignored)
        assert process.pid_alive(pid)
    finally:
        process.kill_group(pid)
