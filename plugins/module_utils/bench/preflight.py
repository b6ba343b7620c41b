# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The benchmark preflight of one host: what it reads and what it decides (bench_preflight).

Reading (the ping argv is the host's, ``host_platform``): a ping of each data address and a don't-fragment
probe at its interface's MTU, a TCP connection to each planned TCP port
(the firewall check: answered or refused by the host, not dropped on the way), the pidfiles of our servers in the pid dir,
the listening ports from /proc/net (TCP in LISTEN, UDP bound and unconnected: what
``ss -Hltnu`` lists). Deciding (pure): which leftover servers to stop and which planned
ports something else holds.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import errno
import ipaddress
import json
import os
import socket
import threading
import time

from ansible_collections.perflab.network.plugins.module_utils.host import platform as host_platform
from ansible_collections.perflab.network.plugins.module_utils.host import process
from ansible_collections.perflab.network.plugins.module_utils.tools import registry
from ansible_collections.perflab.network.plugins.module_utils.bench.servers import parse_pidfile, pidfile_name

PID_DIR = '/run/perflab'
PING_WAIT_S = 3
# a ping or probe not answered is asked again, this many times, each after a pause (see preflight_result)
PING_RETRIES, PING_RETRY_PAUSE_S = 2, 1.0
CONNECT_TIMEOUT_S = 2


def server_pidfiles(names):
    """Our servers' pidfile names among ``names`` (a directory listing), sorted."""
    return sorted(name for name in names if parse_pidfile(name))


def list_pidfiles(pid_dir=PID_DIR):
    try:
        names = os.listdir(pid_dir)
    except (IOError, OSError):
        names = []
    return server_pidfiles(names)


def server_ports(server):
    """The ports of one planned server entry ({tool, port, count, ...})."""
    first = int(server['port'])
    return list(range(first, first + int(server.get('count') or 1)))


def planned_pidfiles(servers):
    """The pidfile names the planned servers would have."""
    return set(pidfile_name(server['tool'], port) for server in servers for port in server_ports(server))


def leftovers_on_planned_ports(servers, pidfiles):
    """The planned servers with a pidfile on one of their ports: stop them before checking the ports."""
    found = set(pidfiles)
    return [server for server in servers
            if any(pidfile_name(server['tool'], port) in found for port in server_ports(server))]


def leftovers_on_unplanned_ports(servers, pidfiles):
    """[{tool, port}] of our servers' pidfiles that no planned server has (sorted by pidfile name)."""
    planned = planned_pidfiles(servers)
    out = []
    for name in sorted(pidfiles):
        parsed = parse_pidfile(name)
        if parsed and name not in planned:
            out.append({'tool': parsed[0], 'port': parsed[1]})
    return out


def taken_ports(servers, listening):
    """The planned servers' ports (the first of each) that something listens on, TCP or UDP."""
    busy = set(listening.get('tcp', [])) | set(listening.get('udp', []))
    taken = []
    for server in servers:
        port = int(server['port'])
        if port in busy and port not in taken:
            taken.append(port)
    return taken


def unreachable(addresses, results):
    """The addresses whose ping (``results``: ProcessResults in the same order) did not answer."""
    return [address for address, result in zip(addresses, results) if result.rc != 0]


def tcp_reach(address, port, source=None, timeout=CONNECT_TIMEOUT_S):
    """How a TCP connection to address:port ends: 'connected', 'refused' (the host answered with a
    reset: nothing listens, but the packet got there) or an error text (timed out: dropped on the
    way; no route to host: rejected with ICMP)."""
    family = socket.AF_INET6 if ':' in address else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    try:
        if source:
            sock.bind((source, 0))
        sock.connect((address, port))
        return 'connected'
    except socket.timeout:
        return 'timed out after %s s' % timeout
    except (IOError, OSError) as exc:
        if exc.errno == errno.ECONNREFUSED:
            return 'refused'
        return os.strerror(exc.errno) if exc.errno else str(exc)
    finally:
        sock.close()


def reach_all(targets, source=None, timeout=CONNECT_TIMEOUT_S, reach=tcp_reach):
    """tcp_reach of every target at once (threads): [{address, port, server, outcome}] in order."""
    outcomes = [None] * len(targets)

    def one(index, target):
        outcomes[index] = reach(target['address'], int(target['port']), source, timeout)

    threads = [threading.Thread(target=one, args=(index, target)) for index, target in enumerate(targets)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return [dict(target, outcome=outcome) for target, outcome in zip(targets, outcomes)]


def unreached(outcomes):
    """The targets the host did not answer: neither connected nor refused."""
    return [item for item in outcomes if item['outcome'] not in ('connected', 'refused')]


# -- the data path: this host's data address on its data interface, the peers' addresses routed over it
ADDR_ARGV = ['ip', '-j', 'address', 'show']


def route_argv(address):
    return ['ip', '-j', 'route', 'get', address]


def parse_addresses(text):
    """``ip -j address show`` -> {address: interface}."""
    try:
        links = json.loads(text or '[]')
    except ValueError:
        return {}
    out = {}
    for link in links if isinstance(links, list) else []:
        for info in link.get('addr_info') or []:
            if info.get('local'):
                out[info['local']] = link.get('ifname')
    return out


def parse_route_dev(text):
    """``ip -j route get ADDRESS`` -> the interface it leaves by ('' when unknown)."""
    try:
        routes = json.loads(text or '[]')
    except ValueError:
        return ''
    return (routes[0].get('dev') or '') if isinstance(routes, list) and routes else ''


def is_loopback(address):
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False


def path_problems(data_address, data_interface, local, peers, route_devs):
    """What is wrong with this host's data path (pure).

    ``local``: {address: interface} of this host; ``peers``: the servers' data addresses this host
    (as a client) tests against; ``route_devs``: the interface each of them routes over, same order.
    """
    problems = []
    if data_address:
        if is_loopback(data_address):
            problems.append('perflab_data_address %s is a loopback address' % data_address)
        elif data_address not in local:
            problems.append('perflab_data_address %s is not an address of this host (it has %s)'
                            % (data_address, ', '.join(sorted(local)) or 'none'))
        elif data_interface and local[data_address] != data_interface:
            problems.append('perflab_data_address %s is on %s, not on perflab_data_interface %s'
                            % (data_address, local[data_address], data_interface))
    for peer, dev in zip(peers, route_devs):
        if is_loopback(peer) or peer in local:
            problems.append('the server data address %s is an address of this host itself' % peer)
        elif data_interface and dev and dev != data_interface:
            problems.append('the server data address %s routes over %s, not over perflab_data_interface %s'
                            % (peer, dev, data_interface))
    return problems


# -- the path MTU: a don't-fragment ping at the size the data interface's MTU allows
# IP + ICMP headers: the payload of a packet of exactly MTU bytes is MTU - these
ICMP_OVERHEAD = {4: 28, 6: 48}
# the packet sizes tried when the full one gets no answer (common MTUs), to say what the path does carry
MTU_LADDER = tuple(range(9000, 1000, -1000)) + (1500, 1492, 1400, 1280, 1000, 576)   # 9000, 8000 .. 2000, 1500 ..
MIN_MTU = {4: 576, 6: 1280}


def ip_version(address):
    try:
        return ipaddress.ip_address(address).version
    except ValueError:
        return 6 if ':' in str(address) else 4


def probe_payload(mtu, address):
    """The ping payload (``-s``) of a packet of exactly ``mtu`` bytes to ``address``."""
    return int(mtu) - ICMP_OVERHEAD[ip_version(address)]


def probe_sizes(mtu, address):
    """The packet sizes below ``mtu`` to try after a full-size probe got no answer (largest first)."""
    return [size for size in MTU_LADDER if MIN_MTU[ip_version(address)] <= size < int(mtu)]


def path_mtu_problem(address, mtu, answered, name=None, interface=None):
    """One message when the path to ``address`` does not carry packets of the interface's ``mtu`` (pure).

    ``answered``: {packet size: True/False} of the don't-fragment probes (the full ``mtu`` among them).
    None when the full size was answered (or not probed).
    """
    if answered.get(int(mtu)) is not False:
        return None
    passed = [size for size, ok in answered.items() if ok]
    largest = max(passed) if passed else None
    failed = min(size for size, ok in answered.items() if not ok and (largest is None or size > largest))
    target = '%s (%s)' % (name, address) if name else address
    where = ' of %s' % interface if interface else ''
    if largest is None:
        carried = 'no don\'t-fragment probe was answered (smallest tried: %d bytes)' % min(answered)
    else:
        carried = 'the largest that passed is %d bytes (payload %d), %d bytes did not' % (
            largest, probe_payload(largest, address), failed)
    return ('the path to %s does not carry packets of the MTU%s, %d bytes: a don\'t-fragment ping of %d bytes '
            '(payload %d) got no answer; %s. Something on the path (a switch port, bridge, tunnel or firewall) '
            'drops larger frames, an MTU black hole: the tests would stall or crawl. Give the path that MTU, '
            'or set the hosts\' MTU to what the path carries'
            % (target, where, int(mtu), int(mtu), probe_payload(mtu, address), carried))


# bench_preflight (the module, and its action plugin on Windows hosts): its arguments and its result

def argument_spec():
    return dict(
        addresses=dict(type='list', elements='str', default=[]),
        servers=dict(type='list', elements='dict', default=[], options=dict(
            tool=dict(type='str', required=True),
            port=dict(type='int', required=True),
            count=dict(type='int', default=1),
            bind=dict(type='str'),
        )),
        connect=dict(type='list', elements='dict', default=[], options=dict(
            address=dict(type='str', required=True),
            port=dict(type='int', required=True),
            server=dict(type='str'),
        )),
        connect_source=dict(type='str'),
        connect_timeout=dict(type='int', default=CONNECT_TIMEOUT_S),
        data_address=dict(type='str'),
        data_interface=dict(type='str'),
        pid_dir=dict(type='path', default=PID_DIR),
        ping_wait=dict(type='int', default=PING_WAIT_S),
        path_mtu=dict(type='bool', default=True),
        address_names=dict(type='dict', default={}),
    )


def param_errors(params):
    errors = []
    if not 1 <= params['ping_wait'] <= 60:
        errors.append('ping_wait must be from 1 to 60, got %d' % params['ping_wait'])
    if not 1 <= params['connect_timeout'] <= 60:
        errors.append('connect_timeout must be from 1 to 60, got %d' % params['connect_timeout'])
    for index, target in enumerate(params['connect']):
        if not 1 <= target['port'] <= 65535:
            errors.append('connect[%d].port must be from 1 to 65535, got %d' % (index, target['port']))
    for index, server in enumerate(params['servers']):
        if server['tool'] not in registry.TOOLS:
            errors.append('servers[%d].tool must be one of %s, got %r' % (index, ', '.join(registry.NAMES), server['tool']))
        if not 1 <= server['port'] <= 65535 or not 1 <= server['count'] <= 65536 - server['port']:
            errors.append('servers[%d]: the ports %d .. %d are not all from 1 to 65535'
                          % (index, server['port'], server['port'] + server['count'] - 1))
    return errors


def preflight_result(params, run_many=process.run_many, list_pidfiles=list_pidfiles,
                     listening_ports=None, host=None, reach=tcp_reach, pause=time.sleep):
    """What the module returns; the readers are parameters so that the decisions are tested without a host.

    ``host``: the OS's facts (host_platform: the ping argv, the listening ports), default this host's.
    """
    host = host or host_platform.current()
    listening_ports = listening_ports or host.listening_ports
    servers = [dict((key, server[key]) for key in ('tool', 'bind', 'port', 'count')) for server in params['servers']]
    pings = [host.ping_argv(address, params['ping_wait']) for address in params['addresses']]
    # the full-size don't-fragment probes go with the plain pings, in the same round
    mtus = interface_mtus(params, host, run_many) if params.get('path_mtu', True) else {}
    probes = [(address, mtus[address][1]) for address in params['addresses'] if address in mtus]
    argvs = pings + [host.ping_argv(address, params['ping_wait'], probe_payload(mtu, address))
                     for address, mtu in probes]
    answers = run_many(argvs, params['ping_wait'] + 5) if argvs else []
    # One lost echo is no broken path. Many hosts' first pings to many peers at once wait on ARP together, and a
    # burst of broadcasts can overflow a switch's or a host's queues (measured: 32 lab hosts pinging their 31 peers
    # at once, 11 hosts lost an echo; asked once more at once, 16 links still lost it): each ping and probe not
    # answered is asked again after a pause, up to PING_RETRIES times.
    retried = []
    for dummy in range(PING_RETRIES):
        again = [index for index, result in enumerate(answers) if result.rc != 0]
        if not again:
            break
        pause(PING_RETRY_PAUSE_S)
        for index, result in zip(again, run_many([argvs[index] for index in again], params['ping_wait'] + 5)):
            answers[index] = result
        retried += [argvs[index] for index in again]
    results = answers[:len(pings)]
    unanswered = unreachable(params['addresses'], results)
    mtu_found, mtu_problems, extra = path_mtu_check(params, host, run_many, probes, answers[len(pings):],
                                                    unanswered, mtus)
    pings = argvs + retried + extra
    pidfiles = list_pidfiles(params['pid_dir']) if servers else []
    listening = listening_ports()
    targets = params.get('connect') or []
    connections = reach_all(targets, params.get('connect_source'), params.get('connect_timeout') or CONNECT_TIMEOUT_S,
                            reach=reach) if targets else []
    problems = []
    # iproute2's view of the addresses and routes: Linux (FreeBSD and Windows are not checked here yet)
    if host.name == 'Linux' and (params.get('data_address') or params.get('data_interface')):
        local = parse_addresses(run_many([ADDR_ARGV], 10)[0].stdout)
        routes = run_many([route_argv(a) for a in params['addresses']], 10) if params['addresses'] else []
        problems = path_problems(params.get('data_address'), params.get('data_interface'), local,
                                 params['addresses'], [parse_route_dev(r.stdout) for r in routes])
    return dict(
        path_problems=problems,
        changed=False,
        unanswered=unanswered,
        path_mtu=mtu_found,
        path_mtu_problems=mtu_problems,
        pidfiles=pidfiles,
        stop_planned=leftovers_on_planned_ports(servers, pidfiles),
        stop_unplanned=leftovers_on_unplanned_ports(servers, pidfiles),
        listening=listening,
        taken=taken_ports(servers, listening),
        connections=connections,
        unconnected=unreached(connections),
        pings=pings,
    )


def interface_mtus(params, host, run_many):
    """{address: (interface, MTU)} of the interface each address is reached by: O(data_interface), else (Linux)
    the route's; an address whose MTU is unknown is left out (not probed)."""
    out = {}
    devs = {}
    if not params.get('data_interface') and host.name == 'Linux' and params['addresses']:
        routes = run_many([route_argv(a) for a in params['addresses']], 10)
        devs = dict((a, parse_route_dev(r.stdout)) for a, r in zip(params['addresses'], routes))
    for address in params['addresses']:
        interface = params.get('data_interface') or devs.get(address)
        mtu = host.interface_mtu(interface) if interface else None
        if mtu and int(mtu) >= MIN_MTU[ip_version(address)] and not is_loopback(address):
            out[address] = (interface, int(mtu))
    return out


def path_mtu_check(params, host, run_many, probes, answers, unanswered, mtus):
    """The path MTU of each address that answered a plain ping: (path_mtu, path_mtu_problems, the extra argvs run).
    A full-size probe without an answer is followed by the smaller sizes of the ladder, all at once."""
    found = []
    ladder = []
    for (address, mtu), result in zip(probes, answers):
        if address in unanswered:
            continue    # the plain ping failed already: that is the message
        item = {'address': address, 'interface': mtus[address][0], 'mtu': mtu, 'answered': {mtu: result.rc == 0}}
        found.append(item)
        if result.rc != 0:
            ladder += [(item, size) for size in probe_sizes(mtu, address)]
    argvs = [host.ping_argv(item['address'], params['ping_wait'], probe_payload(size, item['address']))
             for item, size in ladder]
    for (item, size), result in zip(ladder, run_many(argvs, params['ping_wait'] + 5) if argvs else []):
        item['answered'][size] = result.rc == 0
    names = params.get('address_names') or {}
    problems = [path_mtu_problem(item['address'], item['mtu'], item['answered'], names.get(item['address']),
                                 item['interface']) for item in found]
    return found, [problem for problem in problems if problem], argvs
