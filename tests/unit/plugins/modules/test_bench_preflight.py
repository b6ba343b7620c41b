# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""bench_preflight: the ping argv, the pidfiles, the listening ports of real /proc/net tables, the decisions."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json
from pathlib import Path

import pytest

from ansible.module_utils.testing import patch_module_args

from ansible_collections.perflab.network.plugins.module_utils.host import platform as host_platform
from ansible_collections.perflab.network.plugins.module_utils.bench import preflight
from ansible_collections.perflab.network.plugins.module_utils.host import process
from ansible_collections.perflab.network.plugins.module_utils.plan import suite
from ansible_collections.perflab.network.plugins.module_utils.host.process import ProcessResult
from ansible_collections.perflab.network.plugins.modules import bench_preflight

PROCNET = Path(__file__).resolve().parents[2] / 'fixtures' / 'procnet' / 'linux-6.18'


def ss_ports(text):
    """The ports of ``ss -Hltnu`` lines, as the role's Jinja read them (column 5, after the last colon)."""
    out = {'tcp': set(), 'udp': set()}
    for line in text.splitlines():
        fields = line.split()
        out[fields[0]].add(int(fields[4].rsplit(':', 1)[1]))
    return dict((key, sorted(value)) for key, value in out.items())


def test_listening_ports_of_real_proc_net_tables_are_what_ss_lists():
    listening = process.listening_ports(str(PROCNET))
    assert listening == {'tcp': [5000, 5201, 8888, 12865], 'udp': [5001, 9999]}
    assert listening == ss_ports((PROCNET / 'ss-Hltnu.txt').read_text())


def test_connected_sockets_are_not_listening():
    tcp = (PROCNET / 'tcp').read_text()
    # the connected pair: 127.0.0.1:5201 <-> :54442, state 01 on both ends
    assert process.parse_proc_net(tcp, '01') == {5201, 54442}
    assert process.parse_proc_net(tcp, '0A') == {5201, 12865}
    # the UDP socket on 40000 is connected (01): ss -l leaves it out
    assert process.parse_proc_net((PROCNET / 'udp').read_text(), '07') == {5001}


def test_a_missing_table_is_no_port(tmp_path):
    (tmp_path / 'tcp').write_text((PROCNET / 'tcp').read_text())
    assert process.listening_ports(str(tmp_path)) == {'tcp': [5201, 12865], 'udp': []}


def test_probe_payload_and_sizes():
    assert preflight.probe_payload(9000, '10.0.1.2') == 8972 and preflight.probe_payload(1500, 'fd00::2') == 1452
    assert preflight.probe_sizes(9000, '10.0.1.2') == [8000, 7000, 6000, 5000, 4000, 3000, 2000, 1500, 1492, 1400,
                                                       1280, 1000, 576]
    assert preflight.probe_sizes(1500, 'fd00::2') == [1492, 1400, 1280]


def test_pidfiles_of_registered_tools_only(tmp_path):
    for name in ('nuttcp-5000.pid', 'iperf3-5201.pid', 'iperf2-5001.pid', 'iperf3-5201.log', 'notes.pid',
                 'bogus-1.pid', 'iperf3-123456.pid', 'ethr-8888.pid'):
        (tmp_path / name).write_text('1\n')
    assert preflight.list_pidfiles(str(tmp_path)) == ['ethr-8888.pid', 'iperf2-5001.pid', 'iperf3-5201.pid', 'nuttcp-5000.pid']
    assert preflight.list_pidfiles(str(tmp_path / 'missing')) == []
    assert preflight.parse_pidfile('netperf-12865.pid') == ('netperf', 12865)
    assert preflight.parse_pidfile('netperf-12865.log') is None


SERVERS = [{'tool': 'iperf3', 'bind': '10.0.1.1', 'port': 5201, 'count': 2},
           {'tool': 'netperf', 'bind': '10.0.1.1', 'port': 12865, 'count': 1}]


def test_leftovers_on_planned_ports_are_the_servers_with_a_pidfile_in_their_range():
    assert preflight.leftovers_on_planned_ports(SERVERS, ['iperf3-5202.pid']) == [SERVERS[0]]
    assert preflight.leftovers_on_planned_ports(SERVERS, ['netperf-12865.pid', 'iperf3-5201.pid']) == SERVERS
    # another tool's pidfile on a planned port is not this server's
    assert preflight.leftovers_on_planned_ports(SERVERS, ['nuttcp-5201.pid', 'iperf3-5203.pid']) == []


def test_leftovers_of_unplanned_tools_and_ports_are_stopped():
    pidfiles = ['iperf3-5201.pid', 'iperf3-5202.pid', 'iperf3-5203.pid', 'netperf-12865.pid', 'nuttcp-5000.pid',
                'ethr-8888.pid', 'iperf2-5001.pid', 'notes.pid']
    assert preflight.leftovers_on_unplanned_ports(SERVERS, pidfiles) == [
        {'tool': 'ethr', 'port': 8888}, {'tool': 'iperf2', 'port': 5001}, {'tool': 'iperf3', 'port': 5203},
        {'tool': 'nuttcp', 'port': 5000}]
    assert preflight.leftovers_on_unplanned_ports(SERVERS, ['iperf3-5201.pid', 'netperf-12865.pid']) == []
    assert preflight.leftovers_on_unplanned_ports(SERVERS, []) == []


def test_taken_ports_are_the_first_planned_ports_listening_tcp_or_udp():
    listening = process.listening_ports(str(PROCNET))
    assert preflight.taken_ports(SERVERS, listening) == [5201, 12865]
    assert preflight.taken_ports([{'tool': 'iperf2', 'port': 5001, 'count': 1}], listening) == [5001]   # UDP
    assert preflight.taken_ports([{'tool': 'iperf3', 'port': 5202, 'count': 1}], listening) == []
    assert preflight.taken_ports(SERVERS + SERVERS, listening) == [5201, 12865]


# -- the module ------------------------------------------------------------------------------------
def run_module(args, capsys, check_mode=False):
    if check_mode:
        args = dict(args, _ansible_check_mode=True)
    with patch_module_args(args):
        with pytest.raises(SystemExit):
            bench_preflight.main()
    return json.loads(capsys.readouterr().out)


def fake_pings(answering):
    calls = []

    def run_many(argvs, timeout):
        calls.append((argvs, timeout))
        return [ProcessResult(argv, rc=0 if argv[-1] in answering else 1) for argv in argvs]
    return run_many, calls


def test_result_pings_each_address_once_and_decides_on_the_host_state(tmp_path):
    for name in ('iperf3-5202.pid', 'nuttcp-5000.pid', 'iperf3-5201.log'):
        (tmp_path / name).write_text('1\n')
    run_many, calls = fake_pings({'10.0.1.2'})
    params = dict(addresses=['10.0.1.2', '10.0.1.3'], servers=[dict(s) for s in SERVERS], pid_dir=str(tmp_path), ping_wait=3,
                  path_mtu=False)
    pauses = []
    result = preflight.preflight_result(params, run_many=run_many,
                                        listening_ports=lambda: process.listening_ports(str(PROCNET)), pause=pauses.append)
    # the address that did not answer is asked twice more, alone, each after a pause (one lost echo is no broken path)
    assert calls == [([['ping', '-c', '1', '-W', '3', '10.0.1.2'], ['ping', '-c', '1', '-W', '3', '10.0.1.3']], 8),
                     ([['ping', '-c', '1', '-W', '3', '10.0.1.3']], 8), ([['ping', '-c', '1', '-W', '3', '10.0.1.3']], 8)]
    assert pauses == [1.0, 1.0]
    assert result == dict(
        changed=False, unanswered=['10.0.1.3'], pidfiles=['iperf3-5202.pid', 'nuttcp-5000.pid'], path_problems=[],
        stop_planned=[SERVERS[0]], stop_unplanned=[{'tool': 'nuttcp', 'port': 5000}],
        listening={'tcp': [5000, 5201, 8888, 12865], 'udp': [5001, 9999]}, taken=[5201, 12865],
        connections=[], unconnected=[], path_mtu=[], path_mtu_problems=[],
        pings=[['ping', '-c', '1', '-W', '3', '10.0.1.2'], ['ping', '-c', '1', '-W', '3', '10.0.1.3'],
               ['ping', '-c', '1', '-W', '3', '10.0.1.3'], ['ping', '-c', '1', '-W', '3', '10.0.1.3']])


def test_an_echo_lost_once_is_asked_again_and_the_path_passes(tmp_path):
    lost = []

    def run_many(argvs, timeout):
        # the first echo to 10.0.1.3 and its first full-size probe are lost (ARP in a burst), the second answer
        out = []
        for argv in argvs:
            first = argv[-1] == '10.0.1.3' and tuple(argv) not in lost
            if first:
                lost.append(tuple(argv))
            out.append(ProcessResult(argv, rc=1 if first else 0))
        return out
    result = preflight.preflight_result(mtu_params(addresses=['10.0.1.2', '10.0.1.3']), run_many=run_many,
                                        host=FakeLinux(9000), pause=lambda seconds: None)
    assert result['unanswered'] == [] and result['path_mtu_problems'] == []
    assert [p['answered'] for p in result['path_mtu']] == [{9000: True}, {9000: True}]
    assert result['pings'][-2:] == [['ping', '-c', '1', '-W', '3', '10.0.1.3'],
                                    ['ping', '-c', '1', '-W', '3', '-M', 'do', '-s', '8972', '10.0.1.3']]


def test_a_client_only_host_pings_and_looks_for_no_pidfile(tmp_path):
    (tmp_path / 'iperf3-5201.pid').write_text('1\n')
    run_many, calls = fake_pings(set())
    params = dict(addresses=['10.0.1.1'], servers=[], pid_dir=str(tmp_path), ping_wait=2, path_mtu=False)
    result = preflight.preflight_result(params, run_many=run_many, listening_ports=lambda: {'tcp': [], 'udp': []},
                                        pause=lambda seconds: None)
    assert result['unanswered'] == ['10.0.1.1'] and calls[0][1] == 7
    assert result['pidfiles'] == [] and result['stop_unplanned'] == [] and result['taken'] == []


def test_no_address_runs_no_ping(tmp_path):
    def run_many(argvs, timeout):
        raise AssertionError('no ping expected')
    params = dict(addresses=[], servers=[dict(s) for s in SERVERS], pid_dir=str(tmp_path), ping_wait=3)
    result = preflight.preflight_result(params, run_many=run_many, listening_ports=lambda: {'tcp': [], 'udp': []})
    assert result['pings'] == [] and result['unanswered'] == [] and result['stop_planned'] == []


def test_module_runs_in_check_mode_and_changes_nothing(tmp_path, capsys):
    (tmp_path / 'iperf3-5201.pid').write_text('1\n')
    out = run_module(dict(servers=[{'tool': 'iperf3', 'port': 5201, 'count': 1, 'bind': '127.0.0.1'}],
                          pid_dir=str(tmp_path)), capsys, check_mode=True)
    assert out['changed'] is False and not out.get('failed') and 'unreachable' not in out
    assert out['stop_planned'] == [{'tool': 'iperf3', 'bind': '127.0.0.1', 'port': 5201, 'count': 1}]
    assert sorted(out['listening']) == ['tcp', 'udp']
    assert (tmp_path / 'iperf3-5201.pid').exists()


def test_module_ping_of_loopback_answers(capsys):
    out = run_module(dict(addresses=['127.0.0.1']), capsys)
    assert out['unanswered'] == [] and out['pings'] == [['ping', '-c', '1', '-W', '3', '127.0.0.1']]


@pytest.mark.parametrize('args, words', [
    (dict(servers=[{'tool': 'bogus', 'port': 5201}]), ['servers[0].tool', 'ethr, iperf2, iperf3, netperf, nuttcp', "'bogus'"]),
    (dict(servers=[{'tool': 'iperf3', 'port': 65535, 'count': 2}]), ['servers[0]', '65535 .. 65536']),
    (dict(servers=[{'tool': 'iperf3', 'port': 0}]), ['servers[0]', '0 .. 0']),
    (dict(ping_wait=0), ['ping_wait', 'from 1 to 60']),
    (dict(connect_timeout=61), ['connect_timeout', 'from 1 to 60']),
    (dict(connect=[{'address': '127.0.0.1', 'port': 0}]), ['connect[0].port', 'from 1 to 65535, got 0']),
])
def test_module_refuses_bad_input(args, words, capsys):
    out = run_module(args, capsys)
    assert out['failed'] and all(word in out['msg'] for word in words), out['msg']


# the plan's servers as benchmark_plan returns them (tests/unit/plugins/module_utils/test_suite.py builds real ones)
PLANNED = [
    {'client': 'lab2', 'server': 'lab1', 'server_address': '10.0.1.11', 'openings': [
        {'port': 5201, 'end_port': 5202, 'protocol': 'tcp'}, {'port': 5201, 'end_port': 5202, 'protocol': 'udp'}]},
    {'client': 'lab2', 'server': 'lab1', 'server_address': '10.0.1.11', 'openings': [
        {'port': 12865, 'end_port': 12865, 'protocol': 'tcp'}, {'port': 12866, 'end_port': 12866, 'protocol': 'tcp'},
        {'port': 12866, 'end_port': 12866, 'protocol': 'udp'}]},
    {'client': 'lab4', 'server': 'lab3', 'server_address': '10.0.1.13', 'openings': [
        {'port': 5201, 'end_port': 5201, 'protocol': 'tcp'}]},
]


def test_connect_checks_are_every_tcp_port_of_the_clients_servers_once():
    checks = suite.connect_checks(PLANNED + PLANNED)
    assert checks['lab2'] == [{'address': '10.0.1.11', 'port': port, 'server': 'lab1'} for port in (5201, 5202, 12865, 12866)]
    assert checks['lab4'] == [{'address': '10.0.1.13', 'port': 5201, 'server': 'lab3'}]


def test_reach_all_keeps_the_order_and_unreached_is_neither_connected_nor_refused():
    answers = {5201: 'connected', 5202: 'refused', 12865: 'timed out after 2 s', 12866: 'No route to host'}
    calls = []

    def reach(address, port, source, timeout):
        calls.append((address, port, source, timeout))
        return answers[port]
    out = preflight.reach_all(suite.connect_checks(PLANNED)['lab2'], '10.0.1.12', 2, reach=reach)
    assert [item['outcome'] for item in out] == [answers[p] for p in (5201, 5202, 12865, 12866)]
    assert sorted(calls) == [('10.0.1.11', p, '10.0.1.12', 2) for p in (5201, 5202, 12865, 12866)]
    assert [item['port'] for item in preflight.unreached(out)] == [12865, 12866]


def test_real_connections_on_loopback_connected_and_refused(capsys):
    import socket
    listener = socket.socket()
    listener.bind(('127.0.0.1', 0))
    listener.listen(1)
    free = socket.socket()
    free.bind(('127.0.0.1', 0))
    closed_port = free.getsockname()[1]
    free.close()  # nothing listens there now: the kernel answers with a reset
    try:
        out = run_module(dict(connect=[{'address': '127.0.0.1', 'port': listener.getsockname()[1], 'server': 'me'},
                                       {'address': '127.0.0.1', 'port': closed_port}],
                              connect_source='127.0.0.1'), capsys)
    finally:
        listener.close()
    assert [c['outcome'] for c in out['connections']] == ['connected', 'refused']
    assert out['connections'][0]['server'] == 'me' and out['unconnected'] == [] and out['changed'] is False


IPROUTE2 = Path(__file__).resolve().parents[2] / 'fixtures' / 'iproute2'


def _iproute2_run_many(argvs, timeout):
    """ip -j address/route get answered from real output (tests/unit/fixtures/iproute2/README.md)."""
    out = []
    for argv in argvs:
        if argv[:3] == ['ip', '-j', 'address']:
            text = (IPROUTE2 / 'address-show.json').read_text()
        elif argv[:4] == ['ip', '-j', 'route', 'get']:
            text = (IPROUTE2 / ('route-get-mgmt.json' if argv[4].startswith('10.220.0.') else 'route-get-data.json')).read_text()
        else:
            text = ''
        out.append(ProcessResult(argv, rc=0, stdout=text))
    return out


def test_the_data_path_must_be_on_the_data_interface(tmp_path):
    def check(data_address, addresses):
        params = dict(addresses=addresses, servers=[], pid_dir=str(tmp_path), ping_wait=2,
                      data_address=data_address, data_interface='data0')
        return preflight.preflight_result(params, run_many=_iproute2_run_many,
                                          listening_ports=lambda: {'tcp': [], 'udp': []})['path_problems']
    assert check('10.220.1.11', ['10.220.1.12']) == []
    assert check('10.220.0.11', ['10.220.0.12']) == [
        'perflab_data_address 10.220.0.11 is on mgmt0, not on perflab_data_interface data0',
        'the server data address 10.220.0.12 routes over mgmt0, not over perflab_data_interface data0']
    assert check('127.0.0.1', ['10.220.1.11']) == [
        'perflab_data_address 127.0.0.1 is a loopback address',
        'the server data address 10.220.1.11 is an address of this host itself']
    assert check('10.9.9.9', []) == [
        'perflab_data_address 10.9.9.9 is not an address of this host (it has 10.220.0.11, 10.220.1.11, 127.0.0.1, ::1, '
        'fe80::b82e:40ff:fe55:57d8, fe80::bcd6:16ff:fe7c:a1e4)']


# -- the path MTU (issue 29.11) ----------------------------------------------------------------------
class FakeLinux(object):
    """A Linux host whose data interface has ``mtu``; its ping argv are the real ones."""
    name = 'Linux'

    def __init__(self, mtu):
        self.mtu = mtu

    ping_argv = staticmethod(host_platform.LinuxHost.ping_argv)

    def interface_mtu(self, name):
        return self.mtu if name == 'data0' else None

    @staticmethod
    def listening_ports():
        return {'tcp': [], 'udp': []}


def black_hole(largest):
    """ping through a path that drops packets larger than ``largest`` bytes (payload + 28)."""
    calls = []

    def run_many(argvs, timeout):
        if argvs[0][0] == 'ip':   # the data path check (path_problems), not a ping
            return [ProcessResult(argv, rc=0, stdout='[]') for argv in argvs]
        calls.append(argvs)
        out = []
        for argv in argvs:
            size = int(argv[argv.index('-s') + 1]) + 28 if '-s' in argv else 84
            out.append(ProcessResult(argv, rc=0 if size <= largest else 1))
        return out
    return run_many, calls


def mtu_params(**extra):
    return dict(dict(addresses=['10.0.1.2'], servers=[], pid_dir='/nonexistent', ping_wait=3, data_interface='data0',
                     address_names={'10.0.1.2': 'lab2'}, path_mtu=True), **extra)


def test_a_path_that_carries_the_mtu_passes_in_one_round():
    run_many, calls = black_hole(9000)
    result = preflight.preflight_result(mtu_params(), run_many=run_many, host=FakeLinux(9000))
    assert calls[0] == [['ping', '-c', '1', '-W', '3', '10.0.1.2'],
                        ['ping', '-c', '1', '-W', '3', '-M', 'do', '-s', '8972', '10.0.1.2']]
    assert result['path_mtu'] == [{'address': '10.0.1.2', 'interface': 'data0', 'mtu': 9000, 'answered': {9000: True}}]
    assert result['path_mtu_problems'] == [] and result['unanswered'] == []


def test_an_mtu_black_hole_is_named_with_the_sizes_that_passed_and_failed():
    run_many, calls = black_hole(1600)   # both ends at 9000, a path that drops what is above 1600 bytes
    result = preflight.preflight_result(mtu_params(), run_many=run_many, host=FakeLinux(9000), pause=lambda seconds: None)
    assert result['unanswered'] == []
    # the full-size probe asked twice more (it is never answered), then the ladder
    assert len(calls) == 4 and calls[1] == calls[2] == [['ping', '-c', '1', '-W', '3', '-M', 'do', '-s', '8972', '10.0.1.2']]
    assert ['ping', '-c', '1', '-W', '3', '-M', 'do', '-s', '1472', '10.0.1.2'] in calls[3]
    answered = result['path_mtu'][0]['answered']
    assert answered[9000] is False and answered[2000] is False and answered[1500] is True
    (problem,) = result['path_mtu_problems']
    for words in ('lab2 (10.0.1.2)', 'MTU of data0, 9000 bytes', "don't-fragment ping of 9000 bytes (payload 8972)",
                  'largest that passed is 1500 bytes (payload 1472), 2000 bytes did not', 'MTU black hole'):
        assert words in problem, problem


def test_the_probe_at_1500_catches_a_smaller_path_too():
    run_many, dummy = black_hole(1400)
    result = preflight.preflight_result(mtu_params(), run_many=run_many, host=FakeLinux(1500), pause=lambda seconds: None)
    assert 'largest that passed is 1400 bytes (payload 1372), 1492 bytes did not' in result['path_mtu_problems'][0]


def test_nothing_answered_at_any_size_and_an_unanswered_address_is_not_probed_again():
    run_many, calls = black_hole(100)
    result = preflight.preflight_result(mtu_params(), run_many=run_many, host=FakeLinux(1500), pause=lambda seconds: None)
    assert "no don't-fragment probe was answered (smallest tried: 576 bytes)" in result['path_mtu_problems'][0]
    run_many, calls = black_hole(0)   # the plain ping fails: that message only, no ladder
    result = preflight.preflight_result(mtu_params(), run_many=run_many, host=FakeLinux(9000), pause=lambda seconds: None)
    assert result['unanswered'] == ['10.0.1.2'] and result['path_mtu_problems'] == [] and len(calls) == 3


def test_path_mtu_off_or_mtu_unknown_probes_nothing():
    run_many, calls = black_hole(1600)
    result = preflight.preflight_result(mtu_params(path_mtu=False), run_many=run_many, host=FakeLinux(9000))
    assert calls == [[['ping', '-c', '1', '-W', '3', '10.0.1.2']]] and result['path_mtu'] == []
    run_many, calls = black_hole(1600)
    result = preflight.preflight_result(mtu_params(data_interface='nope0'), run_many=run_many, host=FakeLinux(9000))
    assert len(calls[0]) == 1 and result['path_mtu_problems'] == []


def test_path_mtu_problem_is_pure():
    assert preflight.path_mtu_problem('10.0.1.2', 9000, {9000: True}) is None
    text = preflight.path_mtu_problem('fd00::2', 1500, {1500: False, 1492: True, 1400: True, 1280: True})
    assert 'the path to fd00::2 does not carry packets of the MTU, 1500 bytes' in text
    assert 'largest that passed is 1492 bytes (payload 1444), 1500 bytes did not' in text
