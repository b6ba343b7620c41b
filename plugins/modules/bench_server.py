#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

DOCUMENTATION = r'''
---
module: bench_server
short_description: Start, stop or check the servers of the collection's benchmark tools
version_added: 0.1.0
description:
  - Starts O(count) servers of one tool on the ports O(port) .. O(port) + O(count) - 1, each detached
    in its own session (so the whole process group can be stopped later), with a pidfile and a log
    in O(pid_dir).
  - Or, with O(servers), the servers of several tools in one call (one task for all the servers of a
    host, because each task costs a round trip and a study starts and stops its servers around every pair).
  - A server is reported started only once its port accepts TCP connections and the listening socket
    belongs to the server's process group; otherwise the module fails naming the port and showing the
    end of the server's log, and stops what this call started.
  - A port already used by another process is a clear error. Starting what runs already changes nothing.
  - Each server starts with C(PERFLAB_SERVER=TOOL-PORT) in its environment, which its children inherit.
    O(state=stopped) without O(tool) and O(servers) (what C(playbooks/revert.yml) runs) stops, besides the
    servers of the pidfiles, every process of this network namespace that carries that mark - provably
    ours even when its pidfile is gone (a netserver's forked child, a run that collided with another).
  - Stopping kills each server's whole process group (SIGTERM, SIGKILL after 2 s; netserver forks a
    child per test) and verifies that no process of it is left.
  - On FreeBSD the same, with FreeBSD's own facts (host_platform) - the listeners from C(sockstat -46l),
    the processes from C(ps) and C(procstat -a); a server is detached the way C(daemon(8)) detaches
    (own session, stdin C(/dev/null), output to its log) by the module itself, so that its pid stays its
    process group's and the open-files limit and the log bound apply. RV(servers[].nofile) is null there.
    Tested on real FreeBSD command output (unit tests), not on a live FreeBSD host.
  - On a Windows host the action plugin starts each server as a background process with C(Win32_Process)
    C(Create) (outside the WinRM shell's job, which would end it with the task) from its argv joined by the C
    runtime's quoting (no shell), writes its pid to C(TOOL-PORT.pid) in O(pid_dir) (C(C:\perflab\run) there)
    once its port listens (C(Get-NetTCPConnection)) and belongs to it, and stops it with its whole tree
    (C(taskkill /T /F)); a taken port is found with C(netstat -ano). No server logs there (RV(servers[].log) and
    RV(servers[].log_problems) null) and no open-files limit (O(nofile) refused). Tested on real Windows command
    output (unit tests), not on a live Windows host.
  - "Server commands: iperf3 C(iperf3 -s -p PORT [-B BIND] [--idle-timeout N]);
    netperf C(netserver -D -p PORT [-L BIND,inet|inet6]) (C(-D) keeps netserver in the foreground,
    it daemonizes by default and the pidfile would be wrong); nuttcp C(nuttcp -S --nofork --no3rdparty -PPORT)
    (nuttcp 6 servers cannot bind an address, they listen on all); ethr C(ethr -s -port PORT -no [-ip BIND]);
    iperf2 C(iperf -s -p PORT [-B BIND]) (its TCP server). Each is the tool's registry file's
    (C(plugins/module_utils/tools/<tool>/tool.py))."
extends_documentation_fragment:
  - perflab.network.attributes.windows_action
  - perflab.network.attributes
attributes:
  check_mode:
    details:
      - In check mode nothing is started or stopped; RV(servers[].state) says what would happen.
options:
  tool:
    description:
      - The benchmark tool whose server to manage, a name of the collection's tool registry (the tool modules;
        an unknown name is refused naming the known ones).
      - Required to start servers unless O(servers) is given; mutually exclusive with it.
      - With O(state=stopped) or O(state=status) and neither O(tool) nor O(servers), every server of every
        tool with a pidfile in O(pid_dir) is meant (what an interrupted run can leave behind).
    type: str
  servers:
    description:
      - Several groups of servers managed in one call, each as O(tool), O(port), O(count) and O(bind) would
        give it; O(state), O(pid_dir), O(nofile), O(ready_timeout) apply to all, O(idle_timeout) to the iperf3 ones.
      - When one fails to start, every server this call started is stopped again.
    type: list
    elements: dict
    suboptions:
      tool:
        description: The tool.
        type: str
        required: true
      port:
        description: First (control) port, as O(port).
        type: int
      count:
        description: Number of servers, as O(count).
        type: int
        default: 1
      bind:
        description: Data address, as O(bind).
        type: str
  state:
    description:
      - V(started) starts the servers not running yet; V(stopped) stops them; V(status) only reports.
      - With V(stopped) or V(status) and no O(port), every server of O(tool) with a pidfile in O(pid_dir) is meant.
    type: str
    choices: [started, stopped, status]
    default: started
  bind:
    description:
      - Data address the servers listen on (an IP address); all addresses when omitted.
      - Also the address the readiness check connects to (C(127.0.0.1) or C(::1) when omitted).
    type: str
  port:
    description:
      - First (control) port, 1-65535. Default, the tool's own port (its module's O(port) names it).
    type: int
  count:
    description: Number of servers, 1-64, on O(port), O(port)+1, ...; one iperf3 (or nuttcp) server runs one test at a time.
    type: int
    default: 1
  pid_dir:
    description: Directory of the pidfiles (C(<tool>-<port>.pid)) and logs (C(<tool>-<port>.log)).
    type: path
    default: /run/perflab
  idle_timeout:
    description:
      - iperf3 only, seconds (1-86400), C(--idle-timeout); restarts a server left busy by a client that vanished.
    type: int
  nofile:
    description:
      - Raised open-files limit (RLIMIT_NOFILE) of the servers, 1024-1048576; ethr's connections/s test
        otherwise runs out of file descriptors.
      - The soft limit the server starts with. A Go program raises its own soft limit to the hard one when it
        starts (Go 1.19 and later, ethr's release builds among them), so a O(nofile) below the hard limit has no
        effect on ethr; RV(servers[].nofile) reports the limit the running server really has (read from the
        process), and that is what a record's note names.
    type: int
  ready_timeout:
    description: Seconds (1-300) to wait for each server's port to accept connections.
    type: int
    default: 10
  executable:
    description:
      - Server executable; default C(iperf3), C(netserver), C(iperf), C(nuttcp) or C(ethr) found by the
        lookup of every test module (PATH, then O(tool_paths), then the usual folders).
      - Not with O(servers).
    type: path
  tool_paths:
    description:
      - Absolute folders searched for the servers' executables after PATH, before C(/usr/local/sbin),
        C(/usr/local/bin), C(/usr/sbin), C(/usr/bin), C(/sbin), C(/bin), C(/opt/perflab/bin) (the tools role's default
        C(tools_prefix)) and C(/opt/ethr); on Windows before C(C:\ProgramData\chocolatey\bin), C(C:\perflab\bin) and
        C(C:\perflab\ethr). The benchmark role passes its C(benchmark_tool_paths) and the tools role's
        C(<tools_prefix>/bin), the folders its plan found the tools in.
      - A tool found nowhere fails the module naming every folder looked in, before anything starts.
    type: list
    elements: str
  sample_interface:
    description:
      - The server host's data interface (Linux); with O(state=started) a sampler starts beside the servers and
        reads, every second until O(state=stopped), the host's per-core CPU (C(/proc/stat)), this interface's
        drop, error and missed counters and the CPU ticks and core of each server, for the records'
        C(limited_by) on the server's side (each record takes the seconds of its own test).
      - With O(state=status) or O(state=stopped), RV(sampled) returns what it sampled (O(state=stopped) then
        stops it and removes its files, unless other servers of ours still run on the host, as another client's
        pairs to this server host; the call that stops the last of them stops it). On FreeBSD
        and Windows nothing is sampled (RV(sampled) says so).
    type: str
seealso:
  - module: perflab.network.bench_test
notes:
  - The pidfiles and ports are per host (network namespace); a pidfile whose process is gone, runs
    another program or lives in another network namespace is stale and replaced.
'''

EXAMPLES = r'''
- name: Four iperf3 servers on 10.213.1.11, ports 5201-5204
  perflab.network.bench_server:
    tool: iperf3
    bind: 10.213.1.11
    count: 4
    idle_timeout: 30

- name: netserver on the default control port
  perflab.network.bench_server:
    tool: netperf
    bind: 10.213.1.11

- name: ethr with a raised open-files limit for the connections/s test
  perflab.network.bench_server:
    tool: ethr
    bind: 10.213.1.11
    nofile: 65536

- name: The servers of a study's pair in one call
  perflab.network.bench_server:
    servers:
      - {tool: iperf3, bind: 10.213.1.11, port: 5201, count: 2}
      - {tool: netperf, bind: 10.213.1.11, port: 12865}
      - {tool: nuttcp, bind: 10.213.1.11, port: 5000}

- name: Stop every iperf3 server this module started on the host
  perflab.network.bench_server:
    tool: iperf3
    state: stopped
'''

RETURN = r'''
sampled:
  description:
    - With O(sample_interface), the server's side for C(limited_by) (C(perflab.network.bench_record)'s
      O(perflab.network.bench_record#module:sampled)), the interface, its MTU and link speed (Mbit/s, null on a
      link without one such as veth), whether the sampler runs, and its samples (C(t) in seconds since the epoch,
      C(cpu) per core in jiffies, C(drops), C(packets), C(procs), each server's CPU ticks and last core).
  returned: when O(sample_interface) is given
  type: dict
  sample: {interface: data0, mtu: 1500, link_mbps: 10000.0, running: true, series: []}
servers:
  description: The servers concerned, one per port (with O(servers), in the order of its groups).
  returned: always
  type: list
  elements: dict
  contains:
    tool:
      description: The tool (O(tool), or the group's).
      type: str
      sample: iperf3
    port:
      description: The (control) port.
      type: int
      sample: 5201
    pid:
      description: Server pid (also its process group id); null when not running.
      type: int
      sample: 12345
    bind:
      description: The address it listens on as asked (O(bind)), null for all.
      type: str
      sample: 10.213.1.11
    state:
      description:
        - C(started) (by this call), C(running) (already), C(stopped) (by this call, also when a failed start
          stopped again what the call had started), C(absent) (not running), or, in check mode, C(would start) /
          C(would stop).
      type: str
      sample: started
    command:
      description: The server's argv.
      type: list
      elements: str
      sample: [/usr/bin/iperf3, -s, -p, '5201', -B, 10.213.1.11]
    pidfile:
      description: Path of the pidfile.
      type: str
      sample: /run/perflab/iperf3-5201.pid
    log:
      description:
        - Path of the server's log (stdout and stderr; truncated at start, at most 8 MiB). For a tool with
          server log problems (ethr), C(state=status) empties it after reading it, so that each test's window starts
          empty.
      type: str
      sample: /run/perflab/iperf3-5201.log
    nofile:
      description: The running server's soft open-files limit; null when not running or unknown.
      type: int
      sample: 1048576
    log_problems:
      description:
        - For a tool whose server log can show that a test's values are wrong (ethr's accept errors when it
          runs out of file descriptors), the lines of that kind logged since the previous call's mark
          (C(count), at most 5 C(lines), C(since) and C(size) in bytes); the mark moves to the end of
          the log (not in check mode). Null for the other tools.
        - With C(state=status) the log is then emptied (C(emptied) true; a server started by an earlier
          version, whose log is not in append mode, only gets the mark), so that each test is checked on
          its own window, which the tests before it cannot have filled.
        - C(full) is true when the log reached its 8 MiB bound in the window (lines after it were lost),
          C(count) is a lower bound, and a C(count) of 0 means the window could not be checked.
        - The benchmark role reads it after each such test and M(perflab.network.bench_record) says it in the record.
      type: dict
      sample: {count: 5, lines: ['Error accepting new TCP connection: ... too many open files'], since: 0, size: 1210,
               full: false, emptied: true}
'''

import os
import signal
import time

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.perflab.network.plugins.module_utils.core import common_args
from ansible_collections.perflab.network.plugins.module_utils.host import platform as host_platform
from ansible_collections.perflab.network.plugins.module_utils.core import limits
from ansible_collections.perflab.network.plugins.module_utils.host import nic
from ansible_collections.perflab.network.plugins.module_utils.host import process
from ansible_collections.perflab.network.plugins.module_utils.tools import registry
from ansible_collections.perflab.network.plugins.module_utils.host import server_sampler
from ansible_collections.perflab.network.plugins.module_utils.bench import servers as server_args
from ansible_collections.perflab.network.plugins.module_utils.bench.servers import (
    ARGUMENT_RULES, TOOLS, argument_spec, call_errors, groups_of, listen_address, server_command)

LOG_TAIL_CHARS = 600


def probe_address(bind):
    if bind:
        return bind
    return '127.0.0.1'


def paths(pid_dir, tool, port):
    base = os.path.join(pid_dir, '%s-%d' % (tool, port))
    return base + '.pid', base + '.log'


def mark_path(log):
    return log[:-len('.log')] + '.mark'


# a mark's flag: the server's log was opened in append mode (started by this version), so a status read
# may empty it (servers of earlier versions wrote at their own offset: their logs only get the offset)
APPEND_MARK = 'append'


def read_mark(mark):
    """(offset where the previous status read stopped, whether the log may be emptied) of a log's mark."""
    try:
        with open(mark) as handle:
            fields = handle.read().split()
        return int(fields[0]), APPEND_MARK in fields[1:]
    except (IOError, OSError, ValueError, IndexError):
        return 0, False


def write_mark(mark, offset, append):
    try:
        with open(mark, 'w') as handle:
            handle.write('%d%s\n' % (offset, (' ' + APPEND_MARK) if append else ''))
    except (IOError, OSError):
        pass


def log_problems(tool, log, move_mark=True, empty=False):
    """The log lines of ``tool``'s server_log_problems since the mark (None for tools without any).

    ``full``: the log reached its bound (process.LOG_MAX_BYTES) in this window, so lines after it were
    lost: the count is a lower bound, and 0 means the window was not checked. With ``empty`` (a status
    read after a test) the log is emptied after it is read, so that each test gets a window of its own
    that a test before it cannot have filled.
    """
    patterns = registry.get(tool).server_log_problems
    if not patterns:
        return None
    mark = mark_path(log)
    since, append = read_mark(mark)
    count, lines, size = process.log_matches(log, patterns, since)
    if size < since:   # a new log (the server restarted): from its start
        since = 0
        count, lines, size = process.log_matches(log, patterns, 0)
    emptied = False
    if move_mark:
        # read after the test ended: what the server writes between the read and this is not counted
        emptied = empty and append and process.empty_log(log)
        write_mark(mark, 0 if emptied else size, append)
    return {'count': count, 'lines': lines, 'since': since, 'size': size,
            'full': size >= process.LOG_MAX_BYTES, 'emptied': emptied}


def read_pidfile(path):
    try:
        with open(path) as handle:
            return int(handle.read().strip())
    except (IOError, OSError, ValueError):
        return None


def is_our_server(pid, executable, port):
    """True when ``pid`` runs ``executable`` for ``port`` in our network namespace."""
    host = host_platform.current()
    if not pid or not host.pid_alive(pid) or not host.same_network_namespace(pid):
        return False
    argv = host.process_cmdline(pid)
    # argv[1] too: a script run by its interpreter (python3 /path/iperf3 ...)
    if os.path.basename(executable) not in [os.path.basename(arg) for arg in argv[:2]]:
        return False
    port_text = str(port)
    return any(arg == port_text or arg.endswith('P' + port_text) for arg in argv[1:])


def conflicting_listeners(port, address, own_pgid=None):
    """Listeners on ``port`` that keep a server on ``address`` (None = all) from binding it."""
    conflicts = []
    for listener in host_platform.current().tcp_listeners(port):
        if own_pgid is not None and listener['pid'] and process.process_pgid(listener['pid']) == own_pgid:
            continue
        wildcard = listener['address'] in ('0.0.0.0', '::')
        if address is None or wildcard or listener['address'] == address:
            conflicts.append(listener)
    return conflicts


def describe_listeners(listeners):
    return ', '.join(('pid %s (%s) on %s' % (item['pid'], item['comm'] or 'unknown', item['address'])) if item['pid']
                     else ('a socket on %s whose process is not visible here (another server of this run, or a process of '
                           'another user or namespace: ss -ltnp shows it)' % item['address'])
                     for item in listeners)


def log_tail(path):
    try:
        with open(path, 'rb') as handle:
            handle.seek(0, os.SEEK_END)
            size = handle.tell()
            handle.seek(max(0, size - LOG_TAIL_CHARS))
            return handle.read().decode('utf-8', 'replace').strip()
    except (IOError, OSError):
        return ''


def wait_ready(pid, port, bind, log, ready_timeout):
    """None when ``pid``'s group listens on ``port`` and it accepts a connection, else the reason."""
    deadline = time.monotonic() + ready_timeout
    address = probe_address(bind)
    host = host_platform.current()
    while True:
        if not host.pid_alive(pid):
            return 'the server on port %d exited at once; its log %s ends with: %s' % (port, log, log_tail(log))
        ours = [item for item in host.tcp_listeners(port)
                if item['pid'] and process.process_pgid(item['pid']) == pid]
        if ours and process.port_accepts(address, port, timeout=1.0):
            return None
        if time.monotonic() >= deadline:
            return ('the server on port %d did not accept TCP connections on %s within %d s; its log %s ends with: %s'
                    % (port, address, ready_timeout, log, log_tail(log)))
        time.sleep(0.1)


def stop_server(pid, port):
    """Kill ``pid``'s process group; None when nothing is left, else the reason."""
    host = host_platform.current()
    if not host.kill_group(pid):
        return 'the server on port %d (pid %d) left processes behind: %s' % (
            port, pid, ', '.join(str(p) for p in host.group_members(pid)))
    return None


def ports_of(params, pid_dir):
    """Ports concerned: the asked range, or (stop/status without port) every pidfile of the tool."""
    try:
        names = os.listdir(pid_dir)
    except (IOError, OSError):
        names = []
    return server_args.ports_of(params, params['state'], names)


def _remove(path):
    try:
        os.unlink(path)
    except OSError:
        pass


def main():
    module = AnsibleModule(argument_spec=argument_spec(), supports_check_mode=True, **ARGUMENT_RULES)
    params = module.params
    errors = call_errors(params) + common_args.tool_paths_errors(params.get('tool_paths'))
    if errors:
        module.fail_json(msg='; '.join(errors))
    groups = groups_of(params)
    executables = {}
    for group in groups:   # every tool found before anything starts
        tool = group['tool']
        if tool not in executables:
            executables[tool] = process.which(params.get('executable') or TOOLS[tool][0], params.get('tool_paths'))
            if not executables[tool] and params['state'] != 'started' and params.get('tool') is None:
                # stopping everything ours: a tool that is not installed may still have a server
                # to stop (its pidfile says so; is_our_server compares the executable's name)
                executables[tool] = TOOLS[tool][0]
        if not executables[tool]:
            if params.get('executable'):
                module.fail_json(msg='executable %s is not an executable file' % params['executable'])
            module.fail_json(msg=process.missing_tool_message(TOOLS[tool][0], process.search_dirs(params.get('tool_paths'))))
    pid_dir, state = params['pid_dir'], params['state']
    sample = params.get('sample_interface')
    if sample is not None and not host_platform.current().valid_interface_name(sample):
        module.fail_json(msg='sample_interface must be an interface name, got %r' % (sample,))
    if sample and state == 'started' and host_platform.current().name == 'Linux' and not nic.interface_exists(sample):
        module.fail_json(msg='sample_interface %s does not exist on this host (its interfaces: %s)'
                         % (sample, ', '.join(nic.existing_interfaces())))
    if state == 'started':
        problem = process.nofile_problem(params.get('nofile'))
        if problem:
            module.fail_json(msg=problem)

    servers = []
    changed = False
    started_now = []   # (tool, pid, port) of this call, stopped again when a later one fails

    def entry(tool, bind, port, pid, server_state, argv):
        pidfile, log = paths(pid_dir, tool, port)
        problems = None
        if server_state in ('running', 'stopped', 'started'):
            problems = log_problems(tool, log, move_mark=not module.check_mode, empty=state == 'status')
        return {'tool': tool, 'port': port, 'pid': pid, 'bind': bind, 'state': server_state,
                'command': argv, 'pidfile': pidfile, 'log': log, 'log_problems': problems,
                'nofile': host_platform.current().process_nofile(pid) if pid and server_state in ('running', 'started') else None}

    def rollback_and_fail(msg):
        for tool, pid, port in started_now:
            stop_server(pid, port)
            _remove(paths(pid_dir, tool, port)[0])
        for server in servers:
            if server['state'] == 'started':
                server['state'] = 'stopped'   # rolled back
        module.fail_json(msg=msg, servers=servers, changed=False)

    for group in groups:
        tool, bind = group['tool'], group.get('bind')
        executable = executables[tool]
        for port in ports_of(group, pid_dir):
            pidfile, log = paths(pid_dir, tool, port)
            argv = server_command(tool, executable, port, bind, group.get('idle_timeout'))
            pid = read_pidfile(pidfile)
            running = is_our_server(pid, executable, port)

            if state == 'status':
                servers.append(entry(tool, bind, port, pid if running else None, 'running' if running else 'absent',
                                     argv))
                continue

            if state == 'stopped':
                if not running:
                    if pid is not None and not module.check_mode:
                        _remove(pidfile)  # stale
                    servers.append(entry(tool, bind, port, None, 'absent', argv))
                    continue
                changed = True
                if module.check_mode:
                    servers.append(entry(tool, bind, port, pid, 'would stop', argv))
                    continue
                problem = stop_server(pid, port)
                if problem:
                    module.fail_json(msg=problem, servers=servers, changed=True)
                _remove(pidfile)
                servers.append(entry(tool, bind, port, pid, 'stopped', argv))
                continue

            # started
            if running:
                servers.append(entry(tool, bind, port, pid, 'running', argv))
                continue
            conflicts = conflicting_listeners(port, listen_address(tool, bind))
            if conflicts:
                rollback_and_fail('port %d is already in use by another process (%s): not a server of %s started '
                                  'by this module (no live pidfile %s)'
                                  % (port, describe_listeners(conflicts), tool, pidfile))
            changed = True
            if module.check_mode:
                servers.append(entry(tool, bind, port, None, 'would start', argv))
                continue
            if not os.path.isdir(pid_dir):
                os.makedirs(pid_dir, 0o755)
            _remove(mark_path(log))   # the log starts empty
            pid = process.spawn_detached(argv, log, nofile=params.get('nofile'),
                                         env={process.SERVER_MARK: '%s-%d' % (tool, port)})
            write_mark(mark_path(log), 0, True)   # its log is in append mode: a status read may empty it
            with open(pidfile, 'w') as handle:
                handle.write('%d\n' % pid)
            started_now.append((tool, pid, port))
            problem = wait_ready(pid, port, bind, log, params['ready_timeout'])
            if problem:
                rollback_and_fail(problem)
            servers.append(entry(tool, bind, port, pid, 'started', argv))

    if state == 'stopped' and params.get('tool') is None and params.get('servers') is None:
        # every server of ours, also those without a pidfile (a netserver's forked child, a pidfile lost):
        # the mark in their environment proves them ours
        for pid, mark in process.marked_processes():
            if not process.pid_alive(pid):
                continue
            changed = True
            if module.check_mode:
                servers.append({'tool': mark.rsplit('-', 1)[0], 'pid': pid, 'state': 'would stop', 'mark': mark})
                continue
            process.kill_group(process.process_pgid(pid) or pid)
            if process.pid_alive(pid):
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            servers.append({'tool': mark.rsplit('-', 1)[0], 'pid': pid, 'state': 'stopped', 'mark': mark})

    sampled, sampler_changed = sample_server(params, module.check_mode)
    module.exit_json(changed=changed or sampler_changed, servers=servers, **sampled)


def sample_server(params, check_mode):
    """The server side's sampler (server_sampler.py) of O(sample_interface): started with the servers, read by
    O(state=status), read and stopped by O(state=stopped) (which also stops every sampler of ours when it
    stops everything ours); ({'sampled': ...} or {}, changed)."""
    name, state, pid_dir = params.get('sample_interface'), params['state'], params['pid_dir']
    if state == 'stopped' and params.get('tool') is None and params.get('servers') is None and not name:
        names = [entry[len('sampler-'):-len('.pid')] for entry in _listdir(pid_dir)
                 if entry.startswith('sampler-') and entry.endswith('.pid')]
        return {}, bool([n for n in names if check_mode or server_sampler.stop(pid_dir, n)])
    if not name:
        return {}, False
    if host_platform.current().name != 'Linux':
        return {'sampled': limits.server_not_sampled(host_platform.current().name, name)}, False
    if state == 'started':
        if check_mode:
            return {'sampled': dict(server_sampler.facts(name), running=False, series=[])}, False
        started = server_sampler.start(pid_dir, name)[1]
        return {'sampled': dict(server_sampler.facts(name), running=True, series=[])}, started
    sampled = server_sampler.read(pid_dir, name)
    # the sampler stops with the last of our servers on the host: one client's pairs may end while another
    # client's tests to the same server host still run (the benchmark role starts and stops servers per client)
    if state == 'stopped' and not check_mode and not server_sampler.servers_left(pid_dir):
        return {'sampled': sampled}, server_sampler.stop(pid_dir, name)
    return {'sampled': sampled}, False


def _listdir(path):
    try:
        return os.listdir(path)
    except OSError:
        return []


if __name__ == '__main__':
    main()
