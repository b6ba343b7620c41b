# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""bench_server: argv per tool, and the real start/stop/status flow with a stand-in server program.

The stand-in (a Python script named like the tool) really listens on its port and forks a
child, so readiness checks, pidfiles, process-group kills and conflicts are exercised for real.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json
import os
import random
import socket
import sys
import time

import pytest

from ansible.module_utils.testing import patch_module_args

from ansible_collections.perflab.network.plugins.module_utils.core import limits
from ansible_collections.perflab.network.plugins.module_utils.host import process
from ansible_collections.perflab.network.plugins.module_utils.bench import servers as server_args
from ansible_collections.perflab.network.plugins.modules import bench_server

FAKE_SERVER = r'''#!%s
import os, socket, subprocess, sys, time
args = sys.argv[1:]
port = None
address = '127.0.0.1'
for i, arg in enumerate(args):
    if arg in ('-p', '-port'):
        port = int(args[i + 1])
    elif arg.startswith('-P') and arg[2:].isdigit():
        port = int(arg[2:])
    elif arg in ('-B', '-ip'):
        address = args[i + 1]
mode = os.environ.get('FAKE_SERVER_MODE', 'listen')
print('fake server %%s on %%s:%%s pid %%d' %% (mode, address, port, os.getpid()), flush=True)
if mode == 'exit':
    print('bind: address already in use', flush=True)
    sys.exit(1)
child = subprocess.Popen(['sleep', '300'])  # like netserver's per-test children
if mode == 'listen':
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((address, port))
    sock.listen(5)
    while True:
        conn, _ = sock.accept()
        conn.close()
time.sleep(300)
'''


def run_module(args, capsys, check_mode=False):
    if check_mode:
        args = dict(args, _ansible_check_mode=True)
    with patch_module_args(args):
        with pytest.raises(SystemExit):
            bench_server.main()
    return json.loads(capsys.readouterr().out)


def free_ports(count):
    for _attempt in range(50):
        first = random.randint(30000, 60000)
        socks = []
        try:
            for port in range(first, first + count):
                sock = socket.socket()
                sock.bind(('127.0.0.1', port))
                socks.append(sock)
            return first
        except OSError:
            continue
        finally:
            for sock in socks:
                sock.close()
    raise RuntimeError('no free ports')


@pytest.fixture
def fake_tool(tmp_path):
    bindir = tmp_path / 'bin'
    bindir.mkdir()
    path = bindir / 'iperf3'
    path.write_text(FAKE_SERVER % sys.executable)
    path.chmod(0o755)
    return str(path)


@pytest.fixture
def cleanup():
    pids = []
    yield pids
    for pid in pids:
        process.kill_group(pid)


@pytest.mark.parametrize('tool, bind, idle, argv', [
    ('iperf3', None, None, ['/x/iperf3', '-s', '-p', '5201']),
    ('iperf3', '10.201.1.11', 30, ['/x/iperf3', '-s', '-p', '5201', '-B', '10.201.1.11', '--idle-timeout', '30']),
    ('netperf', None, None, ['/x/netserver', '-D', '-p', '5201']),
    ('netperf', '10.201.1.11', None, ['/x/netserver', '-D', '-p', '5201', '-L', '10.201.1.11,inet']),
    ('netperf', 'fd00::11', None, ['/x/netserver', '-D', '-p', '5201', '-L', 'fd00::11,inet6']),
    ('nuttcp', '10.201.1.11', None, ['/x/nuttcp', '-S', '--nofork', '--no3rdparty', '-P5201']),
    ('nuttcp', 'fd00::11', None, ['/x/nuttcp', '-S', '--nofork', '--no3rdparty', '-P5201', '-6']),
    ('ethr', None, None, ['/x/ethr', '-s', '-port', '5201', '-no']),
    ('ethr', '10.201.1.11', None, ['/x/ethr', '-s', '-port', '5201', '-no', '-ip', '10.201.1.11']),
])
def test_server_command(tool, bind, idle, argv):
    executable = '/x/' + server_args.TOOLS[tool][0]
    assert server_args.server_command(tool, executable, 5201, bind, idle) == argv


@pytest.mark.parametrize('args, msg', [
    ({'tool': 'nuttcp', 'idle_timeout': 5}, 'idle_timeout applies to iperf3 only, not nuttcp'),
    ({'tool': 'iperf3', 'count': 0}, 'count must be between 1 and 64, got 0'),
    ({'tool': 'iperf3', 'count': 65}, 'count must be between 1 and 64, got 65'),
    ({'tool': 'iperf3', 'port': 0}, 'port must be between 1 and 65535, got 0'),
    ({'tool': 'iperf3', 'port': 65535, 'count': 2}, 'port + count - 1 must be at most 65535'),
    ({'tool': 'iperf3', 'bind': 'lab2; reboot'}, "bind must be an IP address, got 'lab2; reboot'"),
    ({'tool': 'ethr', 'nofile': 10}, 'nofile must be between 1024 and 1048576, got 10'),
    ({'tool': 'tcpdump'}, 'tool: unknown tool tcpdump (known: ethr, iperf2, iperf3, netperf, nuttcp, sockperf)'),
    ({}, 'state is started but any of the following are missing: tool, servers'),
    ({'tool': 'iperf3', 'servers': [{'tool': 'iperf3'}]}, 'parameters are mutually exclusive: tool|servers'),
    ({'servers': [{'tool': 'iperf3'}], 'executable': '/bin/true'},
     'parameters are mutually exclusive: executable|servers'),
    ({'servers': []}, 'servers must name at least one group of servers'),
    ({'servers': [{'tool': 'iperf3'}, {'tool': 'nuttcp', 'count': 0, 'bind': 'x;y'}]},
     "servers[1]: count must be between 1 and 64, got 0; servers[1]: bind must be an IP address, got 'x;y'"),
    ({'servers': [{'tool': 'nc'}]}, 'servers[0].tool: unknown tool nc (known: ethr, iperf2, iperf3, netperf, nuttcp, sockperf)'),
])
def test_bad_input(capsys, tmp_path, args, msg):
    result = run_module(dict(args, pid_dir=str(tmp_path / 'pids')), capsys)
    assert result['failed'] is True and msg in result['msg']
    assert not (tmp_path / 'pids').exists()


def test_missing_tool(capsys, tmp_path, monkeypatch):
    monkeypatch.setattr(process, 'which', lambda tool, tool_paths=None: None)
    result = run_module({'tool': 'netperf', 'pid_dir': str(tmp_path), 'tool_paths': ['/opt/x/bin']}, capsys)
    # netperf's server is netserver: the message names the executable and where it was looked for
    assert result['msg'].startswith('netserver is not installed on this host (looked in ')
    assert ', /opt/x/bin, ' in result['msg']


def test_start_idempotent_status_stop(capsys, tmp_path, fake_tool, cleanup):
    pid_dir = str(tmp_path / 'pids')
    port = free_ports(2)
    args = {'tool': 'iperf3', 'bind': '127.0.0.1', 'port': port, 'count': 2, 'pid_dir': pid_dir,
            'executable': fake_tool, 'nofile': 4096}
    result = run_module(args, capsys)
    servers = result['servers']
    cleanup.extend(server['pid'] for server in servers if server['pid'])
    assert result['changed'] is True
    assert [(s['port'], s['state'], s['bind'], s['tool']) for s in servers] == [
        (port, 'started', '127.0.0.1', 'iperf3'), (port + 1, 'started', '127.0.0.1', 'iperf3')]
    assert servers[0]['command'] == [fake_tool, '-s', '-p', str(port), '-B', '127.0.0.1']
    for server in servers:
        pid = server['pid']
        assert os.getsid(pid) == pid  # own session
        assert len(process.group_members(pid)) == 2  # the server and its child
        with open(server['pidfile']) as handle:
            assert int(handle.read()) == pid
        assert process.port_accepts('127.0.0.1', server['port'])
        with open('/proc/%d/limits' % pid) as handle:
            assert 'Max open files            4096' in handle.read()

    again = run_module(args, capsys)
    assert again['changed'] is False
    assert [(s['state'], s['pid']) for s in again['servers']] == [('running', s['pid']) for s in servers]

    status = run_module({'tool': 'iperf3', 'state': 'status', 'pid_dir': pid_dir, 'executable': fake_tool}, capsys)
    assert status['changed'] is False
    assert [(s['port'], s['state']) for s in status['servers']] == [(port, 'running'), (port + 1, 'running')]

    check_stop = run_module({'tool': 'iperf3', 'state': 'stopped', 'pid_dir': pid_dir, 'executable': fake_tool},
                            capsys, check_mode=True)
    assert check_stop['changed'] is True
    assert [s['state'] for s in check_stop['servers']] == ['would stop', 'would stop']
    assert all(process.group_members(s['pid']) for s in servers)

    stop = run_module({'tool': 'iperf3', 'state': 'stopped', 'pid_dir': pid_dir, 'executable': fake_tool}, capsys)
    assert stop['changed'] is True
    assert [(s['port'], s['state']) for s in stop['servers']] == [(port, 'stopped'), (port + 1, 'stopped')]
    for server in servers:
        assert process.group_members(server['pid']) == []
        assert not os.path.exists(server['pidfile'])
        assert not process.port_accepts('127.0.0.1', server['port'])

    stop_again = run_module({'tool': 'iperf3', 'state': 'stopped', 'pid_dir': pid_dir, 'port': port,
                             'executable': fake_tool}, capsys)
    assert stop_again['changed'] is False
    assert [s['state'] for s in stop_again['servers']] == ['absent']


@pytest.fixture
def fake_tools_on_path(tmp_path, monkeypatch):
    """Stand-ins named iperf3, netserver and nuttcp first on PATH (servers takes no executable)."""
    bindir = tmp_path / 'toolbin'
    bindir.mkdir()
    for name in ('iperf3', 'netserver', 'nuttcp'):
        path = bindir / name
        path.write_text(FAKE_SERVER % sys.executable)
        path.chmod(0o755)
    monkeypatch.setenv('PATH', '%s%s%s' % (bindir, os.pathsep, os.environ.get('PATH', '')))
    return str(bindir)


def test_servers_of_several_tools_in_one_call(capsys, tmp_path, fake_tools_on_path, cleanup):
    pid_dir = str(tmp_path / 'pids')
    port = free_ports(4)
    groups = [{'tool': 'iperf3', 'bind': '127.0.0.1', 'port': port, 'count': 2},
              {'tool': 'netperf', 'bind': '127.0.0.1', 'port': port + 2},
              {'tool': 'nuttcp', 'bind': '127.0.0.1', 'port': port + 3}]
    args = {'servers': groups, 'pid_dir': pid_dir, 'idle_timeout': 30}
    result = run_module(args, capsys)
    cleanup.extend(server['pid'] for server in result['servers'] if server['pid'])
    assert result['changed'] is True
    tool_path = os.path.join(fake_tools_on_path, '%s')
    assert [(s['tool'], s['port'], s['state'], s['command']) for s in result['servers']] == [
        ('iperf3', port, 'started', [tool_path % 'iperf3', '-s', '-p', str(port), '-B', '127.0.0.1',
                                     '--idle-timeout', '30']),
        ('iperf3', port + 1, 'started', [tool_path % 'iperf3', '-s', '-p', str(port + 1), '-B', '127.0.0.1',
                                         '--idle-timeout', '30']),
        ('netperf', port + 2, 'started', [tool_path % 'netserver', '-D', '-p', str(port + 2), '-L', '127.0.0.1,inet']),
        ('nuttcp', port + 3, 'started', [tool_path % 'nuttcp', '-S', '--nofork', '--no3rdparty', '-P%d' % (port + 3)]),
    ]
    for server in result['servers']:
        assert process.port_accepts('127.0.0.1', server['port'])
        assert os.path.basename(server['pidfile']) == '%s-%d.pid' % (server['tool'], server['port'])

    again = run_module(args, capsys)
    assert again['changed'] is False
    assert [s['state'] for s in again['servers']] == ['running'] * 4

    stop = run_module({'servers': groups, 'state': 'stopped', 'pid_dir': pid_dir}, capsys)
    assert stop['changed'] is True
    assert [(s['tool'], s['state']) for s in stop['servers']] == [
        ('iperf3', 'stopped'), ('iperf3', 'stopped'), ('netperf', 'stopped'), ('nuttcp', 'stopped')]
    for server in result['servers']:
        assert process.group_members(server['pid']) == []
        assert not os.path.exists(server['pidfile'])
    assert not [name for name in os.listdir(pid_dir) if name.endswith('.pid')]


def test_servers_roll_back_every_group_when_one_cannot_start(capsys, tmp_path, fake_tools_on_path):
    pid_dir = str(tmp_path / 'pids')
    port = free_ports(3)
    squatter = socket.socket()
    squatter.bind(('127.0.0.1', port + 2))
    squatter.listen(1)
    try:
        result = run_module({'servers': [{'tool': 'iperf3', 'bind': '127.0.0.1', 'port': port, 'count': 2},
                                         {'tool': 'nuttcp', 'bind': '127.0.0.1', 'port': port + 2}],
                             'pid_dir': pid_dir}, capsys)
    finally:
        squatter.close()
    assert result['failed'] is True and result['changed'] is False
    assert result['msg'].startswith('port %d is already in use by another process' % (port + 2))
    started = result['servers']
    assert [(s['tool'], s['port'], s['state']) for s in started] == [('iperf3', port, 'stopped'),
                                                                     ('iperf3', port + 1, 'stopped')]
    for server in started:   # the groups before the failing one were stopped again
        assert process.group_members(server['pid']) == []
        assert not os.path.exists(server['pidfile'])


def test_port_in_use_by_someone_else(capsys, tmp_path, fake_tool):
    port = free_ports(1)
    squatter = socket.socket()
    squatter.bind(('127.0.0.1', port))
    squatter.listen(1)
    try:
        result = run_module({'tool': 'iperf3', 'bind': '127.0.0.1', 'port': port, 'pid_dir': str(tmp_path),
                             'executable': fake_tool}, capsys)
    finally:
        squatter.close()
    assert result['failed'] is True
    assert result['msg'].startswith('port %d is already in use by another process (pid %d (' % (port, os.getpid()))
    assert 'on 127.0.0.1): not a server of iperf3 started by this module' in result['msg']


def test_server_that_exits_at_once(capsys, tmp_path, fake_tool, monkeypatch):
    monkeypatch.setenv('FAKE_SERVER_MODE', 'exit')
    port = free_ports(1)
    result = run_module({'tool': 'iperf3', 'port': port, 'pid_dir': str(tmp_path), 'executable': fake_tool}, capsys)
    assert result['failed'] is True
    assert result['msg'].startswith('the server on port %d exited at once; its log %s/iperf3-%d.log ends with: '
                                    % (port, tmp_path, port))
    assert 'bind: address already in use' in result['msg']
    assert not os.path.exists(os.path.join(str(tmp_path), 'iperf3-%d.pid' % port))


def test_server_that_never_listens(capsys, tmp_path, fake_tool, monkeypatch):
    monkeypatch.setenv('FAKE_SERVER_MODE', 'silent')
    port = free_ports(1)
    start = time.monotonic()
    result = run_module({'tool': 'iperf3', 'port': port, 'pid_dir': str(tmp_path), 'executable': fake_tool,
                         'ready_timeout': 1}, capsys)
    assert time.monotonic() - start < 10
    assert result['msg'].startswith('the server on port %d did not accept TCP connections on 127.0.0.1 within 1 s'
                                    % port)
    # rolled back: nothing of it is left
    assert not os.path.exists(os.path.join(str(tmp_path), 'iperf3-%d.pid' % port))
    with open(os.path.join(str(tmp_path), 'iperf3-%d.log' % port)) as handle:
        pid = int(handle.read().split(' pid ')[1].split()[0])
    assert process.group_members(pid) == []


def test_check_mode_start_runs_nothing(capsys, tmp_path, fake_tool):
    port = free_ports(1)
    pid_dir = tmp_path / 'pids'
    result = run_module({'tool': 'iperf3', 'port': port, 'pid_dir': str(pid_dir), 'executable': fake_tool},
                        capsys, check_mode=True)
    assert result['changed'] is True
    assert [(s['state'], s['pid']) for s in result['servers']] == [('would start', None)]
    assert not pid_dir.exists()
    assert not process.port_accepts('127.0.0.1', port)


def test_stale_pidfile_is_replaced(capsys, tmp_path, fake_tool, cleanup):
    port = free_ports(1)
    dead = process.run(['true'], 5).pid
    (tmp_path / ('iperf3-%d.pid' % port)).write_text('%d\n' % dead)
    result = run_module({'tool': 'iperf3', 'port': port, 'pid_dir': str(tmp_path), 'executable': fake_tool}, capsys)
    cleanup.append(result['servers'][0]['pid'])
    assert result['changed'] is True and result['servers'][0]['state'] == 'started'
    assert result['servers'][0]['pid'] != dead
    stop = run_module({'tool': 'iperf3', 'state': 'stopped', 'port': port, 'pid_dir': str(tmp_path),
                       'executable': fake_tool}, capsys)
    assert stop['servers'][0]['state'] == 'stopped'


def test_stop_without_a_tool_stops_every_server_ours(capsys, tmp_path, fake_tools_on_path, cleanup, monkeypatch):
    """What revert.yml does after an interrupted run: every tool's pidfiles, no tool named."""
    pid_dir = str(tmp_path / 'pids')
    port = free_ports(3)
    groups = [{'tool': 'iperf3', 'bind': '127.0.0.1', 'port': port},
              {'tool': 'netperf', 'bind': '127.0.0.1', 'port': port + 1},
              {'tool': 'nuttcp', 'bind': '127.0.0.1', 'port': port + 2}]
    started = run_module({'servers': groups, 'pid_dir': pid_dir}, capsys)
    cleanup.extend(server['pid'] for server in started['servers'] if server['pid'])
    # the real scan of /proc, narrowed to this test's servers: a lab or a loopback test running beside the
    # unit tests has marked servers of its own in this network namespace, which are not this test's to stop
    ours = set(server['pid'] for server in started['servers'] if server['pid'])
    every_marked = process.marked_processes
    monkeypatch.setattr(process, 'marked_processes',
                        lambda: [(pid, mark) for pid, mark in every_marked() if process.process_pgid(pid) in ours])
    assert [s['state'] for s in started['servers']] == ['started'] * 3
    stop = run_module({'state': 'stopped', 'pid_dir': pid_dir}, capsys)
    assert stop['changed'] is True
    assert sorted((s['tool'], s['port'], s['state']) for s in stop['servers']) == [
        ('iperf3', port, 'stopped'), ('netperf', port + 1, 'stopped'), ('nuttcp', port + 2, 'stopped')]
    for server in started['servers']:
        assert process.group_members(server['pid']) == []
    assert run_module({'state': 'stopped', 'pid_dir': pid_dir}, capsys)['changed'] is False
    refused = run_module({'pid_dir': pid_dir}, capsys)
    assert refused['failed'] is True and 'tool' in refused['msg'] and 'servers' in refused['msg']


def test_the_server_sides_sampler_runs_with_the_servers(capsys, tmp_path, fake_tool, cleanup):
    """sample_interface: started with the server, its series read by status, read and stopped with the server."""
    pid_dir = str(tmp_path / 'pids')
    port = free_ports(2)
    args = {'tool': 'iperf3', 'bind': '127.0.0.1', 'port': port, 'pid_dir': pid_dir, 'executable': fake_tool,
            'sample_interface': 'lo'}
    started = run_module(args, capsys)
    cleanup.extend(server['pid'] for server in started['servers'] if server['pid'])
    assert started['sampled']['interface'] == 'lo' and started['sampled']['mtu'] == 65536
    assert started['sampled']['running'] is True and started['sampled']['link_mbps'] is None   # lo has no speed
    sampler_pid = int(open(os.path.join(pid_dir, 'sampler-lo.pid')).read())
    cleanup.append(sampler_pid)
    assert run_module(args, capsys)['changed'] is False    # the same sampler goes on
    time.sleep(2.3)
    status = run_module(dict(args, state='status'), capsys)['sampled']
    series = status['series']
    assert status['running'] is True and len(series) >= 2
    assert sorted(series[0]['cpu']) == sorted('cpu%d' % n for n in range(os.cpu_count()))
    assert set(series[0]['drops']) == {'rx_dropped', 'tx_dropped', 'rx_errors', 'tx_errors'} | (
        {'rx_missed_errors'} if 'rx_missed_errors' in series[0]['drops'] else set())
    # the server's own ticks and core, by its pidfile
    assert list(series[-1]['procs']) == [str(started['servers'][0]['pid'])]
    # the host stack's receive drops: the script's own reduction gives limits.host_counters' counters
    with open('/proc/net/netstat') as netstat, open('/proc/net/softnet_stat') as softnet:
        assert set(series[-1]['host']) == set(limits.host_counters(netstat.read(), softnet.read())) == set(
            limits.HOST_COUNTERS)
    # another client's server on this host: stopping the first leaves the sampler to it
    other = run_module(dict(args, port=port + 1), capsys)
    cleanup.extend(server['pid'] for server in other['servers'] if server['pid'])
    first_stopped = run_module(dict(args, state='stopped'), capsys)
    assert first_stopped['sampled']['running'] is True and process.pid_alive(sampler_pid)
    assert len(first_stopped['sampled']['series']) >= len(series)
    stopped = run_module(dict(args, port=port + 1, state='stopped'), capsys)
    assert stopped['changed'] is True and len(stopped['sampled']['series']) >= len(series)
    assert not [name for name in os.listdir(pid_dir) if name.startswith('sampler-')]
    for _wait in range(30):
        if not process.pid_alive(sampler_pid):
            break
        time.sleep(0.1)
    assert not process.pid_alive(sampler_pid)


def test_a_sample_interface_that_is_not_there_fails_before_anything_starts(capsys, tmp_path, fake_tool):
    pid_dir = str(tmp_path / 'pids')
    args = {'tool': 'iperf3', 'port': free_ports(1), 'pid_dir': pid_dir, 'executable': fake_tool}
    result = run_module(dict(args, sample_interface='nope0'), capsys)
    assert result['failed'] and result['msg'].startswith('sample_interface nope0 does not exist on this host')
    assert not os.path.exists(pid_dir)
    result = run_module(dict(args, sample_interface='../x'), capsys)
    assert result['failed'] and "sample_interface must be an interface name, got '../x'" in result['msg']


def test_stopping_everything_ours_stops_every_sampler_too(tmp_path):
    """revert.yml's bench_server state=stopped without a tool: the samplers of the pid dir go with the servers."""
    from ansible_collections.perflab.network.plugins.module_utils.host import server_sampler
    pid_dir = str(tmp_path)
    pid, started = server_sampler.start(pid_dir, 'lo')
    assert started and server_sampler.running_pid(pid_dir, 'lo') == pid
    params = {'state': 'stopped', 'pid_dir': pid_dir, 'tool': None, 'servers': None, 'sample_interface': None}
    assert bench_server.sample_server(params, True) == ({}, True)       # check mode: it would stop it
    assert server_sampler.running_pid(pid_dir, 'lo') == pid
    assert bench_server.sample_server(params, False) == ({}, True)
    assert os.listdir(pid_dir) == [] and server_sampler.running_pid(pid_dir, 'lo') is None
    assert bench_server.sample_server(params, False) == ({}, False)    # nothing left
