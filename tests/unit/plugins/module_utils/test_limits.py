# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""limits.py: the parsers of what the runner samples (real ss, ping, /proc/stat, FreeBSD netstat output) and the
verdict of what limited a test."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json
import os

import pytest

from ansible_collections.perflab.network.plugins.module_utils.host import freebsd as bsd
from ansible_collections.perflab.network.plugins.module_utils.core import limits

FIXTURES = os.path.join(os.path.dirname(__file__), '..', '..', 'fixtures')


def fixture(*parts):
    with open(os.path.join(FIXTURES, *parts)) as handle:
        return handle.read()


@pytest.mark.parametrize('mtu, framing, share', [(1500, 'ethernet', 0.9415), (9000, 'ethernet', 0.9900),
                                                 (1500, 'tbf', 0.9564), (9000, 'tbf', 0.9927)])
def test_goodput_ceiling_is_the_header_overhead_of_tools_md(mtu, framing, share):
    assert limits.goodput_ceiling(mtu, 1000, 'tcp', framing) == pytest.approx(share * 1000, abs=0.05)


def test_goodput_ceiling_unknown_and_udp():
    assert limits.goodput_ceiling(None, 1000) is None and limits.goodput_ceiling(1500, None) is None
    assert limits.goodput_ceiling(1500, 1000, 'udp') == pytest.approx(1000 * 1472 / 1538.0, abs=0.001)


def test_ss_of_a_send_buffer_limited_connection():
    # python sender with SO_SNDBUF 4096 on loopback: rwnd_limited 45.3 %, snd_wnd 4096
    conns = limits.parse_ss(fixture('limits', 'ss-loopback-sndbuf4k.txt'))
    assert conns == [{'local': '127.0.0.1:41654', 'peer': '127.0.0.1:47011', 'rtt_ms': 0.015, 'cwnd': 100,
                      'bytes_acked': 212025345, 'data_segs_out': 103530, 'delivery_rate_mbps': 2048.0,
                      'busy_ms': 972, 'rwnd_limited_ms': 440, 'rwnd_limited_pct': 45.3, 'unacked': 2,
                      'rcv_space': 65495, 'minrtt_ms': 0.005, 'snd_wnd': 4096}]
    summary = limits.tcp_summary(conns)
    assert summary['rwnd_limited_pct'] == 45.3 and summary['sndbuf_limited_pct'] == 0.0 and summary['retrans'] == 0


def test_ss_of_a_default_connection_with_retransmits():
    conn = limits.parse_ss(fixture('limits', 'ss-loopback-default.txt'))[0]
    assert conn['retrans'] == 15 and conn['app_limited'] is True and conn['rwnd_limited_pct'] == 6.1
    assert conn['delivery_rate_mbps'] == pytest.approx(49637.259, abs=0.001) and conn['rtt_ms'] == 0.466
    # of its 15 retransmissions the receiver reported 12 as duplicates (D-SACK), reordering seen 15 times
    assert (conn['dsack_dups'], conn['reord_seen']) == (12, 15)
    summary = limits.tcp_summary([conn, dict(conn, local='127.0.0.1:1')])
    assert (summary['retrans'], summary['dsack_dups'], summary['reord_seen']) == (30, 24, 30)


def test_merge_ss_keeps_each_connections_latest_state():
    first = limits.parse_ss(fixture('limits', 'ss-loopback-sndbuf4k.txt'))
    known = limits.merge_ss({}, first)
    later = [dict(first[0], busy_ms=2000, rwnd_limited_ms=1800)]
    limits.merge_ss(known, later)
    limits.merge_ss(known, [])   # the connection closed before the last sample: its state stays
    assert limits.tcp_summary(list(known.values()))['rwnd_limited_pct'] == 90.0


def test_ping_rtt_iputils_and_freebsd():
    assert limits.parse_ping_rtt(fixture('limits', 'ping-iputils-loopback.txt')) == {
        'min_ms': 0.038, 'avg_ms': 0.043, 'max_ms': 0.048}
    assert limits.parse_ping_rtt('round-trip min/avg/max/stddev = 0.101/0.150/0.200/0.040 ms')['avg_ms'] == 0.15
    assert limits.parse_ping_rtt('3 packets transmitted, 0 received, 100% packet loss') is None


def test_cpu_usage_per_core_from_proc_stat():
    before = limits.parse_proc_stat(fixture('limits', 'proc-stat-before.txt'))
    after = limits.parse_proc_stat(fixture('limits', 'proc-stat-after.txt'))
    assert sorted(before) == ['cpu0', 'cpu1'] and 'cpu' not in before
    usage = limits.cpu_usage(before, after)
    assert [core['cpu'] for core in usage['cores']] == ['cpu0', 'cpu1']
    for core in usage['cores']:
        assert 0 <= core['busy'] <= 100
        assert core['busy'] == pytest.approx(core['user'] + core['system'] + core['irq'] + core['softirq'], abs=0.3)
    assert usage['busiest'] == max(usage['cores'], key=lambda c: c['busy'])['cpu']
    assert limits.cpu_usage(None, after) is None


def test_cpu_usage_split_softirq():
    before = {'cpu0': dict.fromkeys(limits.PROC_STAT_FIELDS, 0)}
    after = {'cpu0': dict(before['cpu0'], user=10, system=20, softirq=60, idle=10)}
    assert limits.cpu_usage(before, after) == {'busiest': 'cpu0', 'cores': [
        {'cpu': 'cpu0', 'user': 10.0, 'system': 20.0, 'irq': 0.0, 'softirq': 60.0, 'busy': 90.0}]}


def test_freebsd_cp_times_and_netstat_drops():
    cores = limits.parse_kern_cp_times('10 0 5 2 83 20 0 10 4 66')
    assert cores['cpu1'] == dict(dict.fromkeys(limits.PROC_STAT_FIELDS, 0), user=20, system=10, irq=4, idle=66)
    counters = bsd.parse_netstat_link(fixture('freebsd', 'netstat-ibdn-ohai-vtnet0.txt'), 'vtnet0')
    assert limits.counter_deltas(counters, dict(counters, rx_dropped=7)) == {
        'rx_dropped': 7, 'tx_dropped': 0, 'rx_errors': 0, 'tx_errors': 0}


def record(value, protocol='tcp', mtu=1500, link=1000.0, **extra):
    rec = {'status': 'ok', 'protocol': protocol, 'primary': 'throughput_mbps', 'options': {},
           'metrics': {'throughput_mbps': {'value': value, 'unit': 'Mbit/s'}},
           'client': {'mtu': mtu, 'link_mbps': link}, 'server': {'mtu': None}}
    rec.update(extra)
    return rec


def test_verdict_link_at_the_ceiling():
    out = limits.verdict(record(930.0), {})
    assert out['verdict'] == 'link' and out['ceiling_mbps'] == pytest.approx(941.482, abs=0.01)
    assert '99 % of the goodput ceiling' in out['evidence']
    # the server's smaller MTU sets the ceiling
    assert limits.verdict(record(930.0, mtu=9000, server={'mtu': 1500}), {})['ceiling_mbps'] == out['ceiling_mbps']


def test_verdict_target_for_udp():
    out = limits.verdict(record(99.0, protocol='udp', options={'bitrate': 100}), {})
    assert out['verdict'] == 'target' and '100.0 Mbit/s target' in out['evidence']
    lossy = record(60.0, protocol='udp', options={'bitrate': 100})
    lossy['metrics']['lost_percent'] = {'value': 12.5, 'unit': '%'}
    assert limits.verdict(lossy, {})['verdict'] == 'loss'


def test_a_udp_target_is_per_stream():
    # iperf3 -u -b 1000M -P 20 asks for 20 Gbit/s: 1346 Mbit/s is far from it (seen live as "limited by target")
    out = limits.verdict(record(1346.3, protocol='udp', link=None, options={'bitrate': 1000}, parallel=20), {})
    assert out['verdict'] != 'target', out
    out = limits.verdict(record(1960.0, protocol='udp', link=None, options={'bitrate': 100}, parallel=20), {})
    assert out['verdict'] == 'target' and '2000.0 Mbit/s target (98 %, 20 streams of 100)' in out['evidence'], out


def test_verdict_window_from_real_ss():
    tcp = limits.tcp_summary(limits.parse_ss(fixture('limits', 'ss-loopback-sndbuf4k.txt')))
    out = limits.verdict(record(300.0), {'tcp': tcp})
    assert out['verdict'] == 'window' and 'the receive window limited 45 %' in out['evidence']
    assert out['bdp_bytes'] == int(941.482 * 1e6 / 8 * 0.005 / 1e3) and 'window of 4096 bytes' in out['evidence']


def test_verdict_loss_nic_cpu_and_unknown():
    tcp = {'retrans': 300, 'data_segs_out': 10000, 'busy_ms': 1000}
    assert limits.verdict(record(300.0), {'tcp': tcp})['verdict'] == 'loss'
    drops = {'rx_dropped': 500, 'rx_errors': 0}
    out = limits.verdict(record(300.0), {'nic_drops': drops, 'nic_packets': 20000})
    assert out['verdict'] == 'nic' and 'rx_dropped 500' in out['evidence']
    # a few drops among many packets (IPv6 multicast on a quiet link) are no limit
    assert limits.verdict(record(300.0), {'nic_drops': {'rx_dropped': 3}, 'nic_packets': 20000})['verdict'] != 'nic'
    before = {'cpu0': dict.fromkeys(limits.PROC_STAT_FIELDS, 0), 'cpu1': dict.fromkeys(limits.PROC_STAT_FIELDS, 0)}
    after = {'cpu0': dict(before['cpu0'], idle=100), 'cpu1': dict(before['cpu1'], user=40, softirq=55, idle=5)}
    out = limits.verdict(record(300.0), {'cpu': limits.cpu_usage(before, after)})
    assert out['verdict'] == 'cpu' and out['side'] == 'client' and 'cpu1 95 % busy' in out['evidence']
    assert 'softirq 55 %' in out['evidence'] and limits.short(out) == 'cpu cpu1'
    out = limits.verdict(record(300.0, link=None), {'not_sampled': ['FreeBSD: no ss']})
    assert out['verdict'] == 'unknown' and 'link speed or MTU is unknown' in out['evidence']
    assert 'FreeBSD: no ss' in out['evidence'] and 'server side is not sampled' in out['evidence']
    latency = record(None)
    latency['metrics'] = {'transactions_per_s': {'value': 5000.0, 'unit': 'trans/s'}}
    latency['primary'] = 'transactions_per_s'
    assert limits.verdict(latency, {})['verdict'] == 'unknown'


def test_nic_sampler_samples_cpu_drops_and_the_tcp_state_of_a_real_transfer():
    # a real TCP transfer on loopback while the sampler runs: ss sees it, /proc/stat and lo's counters are read
    import socket
    import threading
    import time
    from ansible_collections.perflab.network.plugins.module_utils.host import nic
    server = socket.socket()
    server.bind(('127.0.0.1', 0))
    server.listen(1)

    def sink():
        conn, _address = server.accept()
        while conn.recv(65536):
            pass
        conn.close()
    threading.Thread(target=sink, daemon=True).start()
    client = socket.create_connection(server.getsockname())
    with nic.NicSampler('lo', interval=0.2, peer='127.0.0.1') as sampler:
        end = time.monotonic() + 0.7
        while time.monotonic() < end:
            client.send(b'x' * 65536)
    client.close()
    server.close()
    sampled = sampler.limits()
    assert sampled['cpu']['busiest'] in [core['cpu'] for core in sampled['cpu']['cores']]
    assert set(sampled['nic_drops']) == set(limits.DROP_COUNTERS) and sampled['nic_packets'] > 0
    assert sampled['tcp']['connections'] >= 1 and sampled['tcp']['busy_ms'] > 0
    assert nic.NicSampler('lo').limits() is None   # no peer: nothing sampled beyond the counters


SAMPLED = ('cpu', 'tcp', 'nic_drops', 'nic_packets', 'path_rtt', 'not_sampled')


@pytest.mark.parametrize('case', ['link', 'cpu', 'window', 'loss', 'target'])
def test_verdict_on_the_samples_of_the_lab(case):
    # records of tests/integration/test_limited_by.py on lab lim35 (2026-12-03, a loaded 2-core machine: both
    # cores 100 % busy in every case, which is why cpu comes last): the verdict again from their samples
    records = dict((r['config'], r) for r in json.loads(fixture('limits', 'lab-lim35-records.json')))
    record = records[case]
    samples = dict((key, record['limited_by'].get(key)) for key in SAMPLED)
    out = limits.verdict(dict(record, limited_by=None), samples)
    assert out['verdict'] == case, out['evidence']
    # the evidence of then, which now goes on (cpu: the softirq share of the core's busy time)
    assert out['evidence'].startswith(record['limited_by']['evidence']) or case == 'window'


def test_the_lab_window_case_without_its_control_connection():
    window = json.loads(fixture('limits', 'lab-lim35-records.json'))
    tcp = [r for r in window if r['config'] == 'window'][0]['limited_by']['tcp']
    assert tcp['rwnd_limited_pct'] == 58.0 and tcp['snd_wnd'] == [65536, 2896]   # as sampled: control + data
    data = {'data_segs_out': 40800, 'busy_ms': 2000, 'rwnd_limited_ms': 1160, 'snd_wnd': 2896, 'minrtt_ms': 0.007}
    control = {'data_segs_out': 27, 'busy_ms': 0, 'snd_wnd': 65536, 'minrtt_ms': 0.005}
    summary = limits.tcp_summary([control, data])
    assert summary['connections'] == 1 and summary['snd_wnd'] == [2896] and summary['rwnd_limited_pct'] == 58.0


def test_freebsd_sampler_gives_cpu_and_drops_and_says_it_has_no_tcp_state():
    from ansible_collections.perflab.network.plugins.module_utils.host import platform as host_platform
    netstat = [fixture('freebsd', 'netstat-ibdn-ohai-vtnet0.txt')]
    cp_times = ['10 0 5 2 83 20 0 10 4 66', '60 0 15 12 83 25 0 12 4 129']

    def read():
        return bsd.parse_netstat_link(netstat[0], 'vtnet0')
    sampler = host_platform.FreeBSDNicSampler('vtnet0', interval=5, read=read, peer='10.0.0.1',
                                              cp_times=lambda: cp_times.pop(0))
    with sampler:
        # the real row with 12 more input drops at the end of the test
        netstat[0] = netstat[0].replace('  579     0     0      46746', '  679     0    12      56746')
    sampled = sampler.limits()
    assert sampled['cpu']['busiest'] == 'cpu0' and sampled['cpu']['cores'][0]['busy'] == 100.0
    assert sampled['nic_drops']['rx_dropped'] == 12 and sampled['tcp'] is None
    assert any('FreeBSD: no ss' in text for text in sampled['not_sampled'])
    out = limits.verdict(record(300.0, link=None), sampled)
    assert out['verdict'] == 'nic' and 'rx_dropped 12' in out['evidence']


def test_ss_argv_brackets_an_ipv6_peer():
    import subprocess
    from ansible_collections.perflab.network.plugins.module_utils.host import nic
    assert nic.ss_argv('10.0.0.2')[-1] == '10.0.0.2' and nic.ss_argv('::1')[-1] == '[::1]'
    # the real ss accepts both (it refuses a bare ::1: "an inet prefix is expected")
    for peer in ('127.0.0.1', '::1'):
        assert subprocess.run(nic.ss_argv(peer), capture_output=True, check=False).returncode == 0


def test_window_for_a_while_with_a_window_below_the_bdp():
    # lab lim35's second run of the window case (iperf3 -w 4K): rwnd limited 38 % of the first second sampled
    tcp = {'connections': 1, 'busy_ms': 936, 'rwnd_limited_ms': 360, 'rwnd_limited_pct': 38.5, 'sndbuf_limited_pct': 0.0,
           'retrans': 1, 'data_segs_out': 39761, 'snd_wnd': [4344], 'minrtt_ms': 0.008}
    assert limits.verdict(record(427.6, link=10000.0, mtu=1500), {'tcp': tcp})['verdict'] == 'window'
    # 15 %: window only because 4344 bytes are below the 9414-byte BDP; with a window above it, not
    some = dict(tcp, rwnd_limited_pct=15.0)
    out = limits.verdict(record(427.6, link=10000.0, mtu=1500), {'tcp': some})
    assert out['verdict'] == 'window' and out['bdp_bytes'] == 9414
    assert limits.verdict(record(427.6, link=10000.0, mtu=1500), {'tcp': dict(some, snd_wnd=[65536])})['verdict'] \
        == 'unknown'
    assert limits.verdict(record(427.6, link=10000.0, mtu=1500), {'tcp': dict(some, rwnd_limited_pct=5.0)})['verdict'] \
        == 'unknown'


# ---- the server's side (issue 27.4: the server host sampled too) ----------------------------------------

def cores(**busy):
    """cpu_usage of cores each ``busy`` % busy (user 30, the rest softirq), e.g. cores(cpu0=100, cpu1=20)."""
    before = dict((name, dict.fromkeys(limits.PROC_STAT_FIELDS, 0)) for name in busy)
    after = dict((name, dict(before[name], user=min(30, pct), softirq=max(0, pct - 30), idle=100 - pct))
                 for name, pct in busy.items())
    return limits.cpu_usage(before, after)


def test_cpu_verdict_names_the_server_side_its_core_and_the_softirq_share():
    out = limits.verdict(record(300.0), {'cpu': cores(cpu0=20, cpu1=30),
                                         'server': {'cpu': cores(cpu0=98, cpu1=10), 'interface': 'data0'}})
    assert out['verdict'] == 'cpu' and out['side'] == 'server' and out['saturated'] == ['cpu0']
    assert out['evidence'] == ('server core cpu0 98 % busy: user 30, system 0, irq 0, softirq 68 % (softirq 69 % of '
                               'its busy time)')
    assert out['core'] == 'cpu0' and limits.short(out) == 'cpu server cpu0'


def test_cpu_verdict_on_a_shared_kernel_goes_by_the_core_each_sides_tool_ran_on():
    # the namespace lab: both sides read the same /proc/stat; the server's iperf3 ran on the saturated core 0,
    # the client's on core 1 (60 %): the server
    shared = cores(cpu0=100, cpu1=60)
    samples = {'cpu': shared, 'process_cpu': 'cpu1', 'server': {'cpu': shared, 'process_cpu': 'cpu0'}}
    out = limits.verdict(record(300.0), samples)
    assert (out['verdict'], out['side']) == ('cpu', 'server')
    assert out['evidence'].endswith("; the server's tool ran there")
    # the other way round: the client
    samples = {'cpu': shared, 'process_cpu': 'cpu0', 'server': {'cpu': shared, 'process_cpu': 'cpu1'}}
    assert limits.verdict(record(300.0), samples)['side'] == 'client'
    # without the processes' cores, each side's busiest core: both saturated, equal: the client, the other named
    out = limits.verdict(record(300.0), {'cpu': shared, 'server': {'cpu': shared}})
    assert out['side'] == 'client' and out['evidence'].endswith('; the server core cpu0 was 100 % busy too')


def test_cpu_verdict_the_busier_side_wins_and_none_below_the_threshold():
    out = limits.verdict(record(300.0), {'cpu': cores(cpu0=91), 'server': {'cpu': cores(cpu0=99)}})
    assert out['side'] == 'server' and 'client core cpu0 was 91 % busy too' in out['evidence']
    out = limits.verdict(record(300.0), {'cpu': cores(cpu0=89), 'server': {'cpu': cores(cpu0=89)}})
    assert out['verdict'] == 'unknown'
    assert 'client core cpu0 89 %' in out['evidence'] and 'server core cpu0 89 %' in out['evidence']
    assert 'server side is not sampled' not in out['evidence']


def test_nic_verdict_counts_both_sides():
    # 6 + 6 drops: neither side alone reaches NIC_DROP_MIN (10), both together do
    samples = {'nic_drops': {'rx_dropped': 6, 'tx_dropped': 0}, 'nic_packets': 3000,
               'server': {'interface': 'data0', 'nic_drops': {'rx_missed_errors': 6}, 'nic_packets': 3100}}
    out = limits.verdict(record(300.0), samples)
    assert out['verdict'] == 'nic'
    assert out['evidence'] == ("the data NICs counted drops or errors during the test: the client's data NIC "
                               "rx_dropped 6 (3000 packets); the server's data0 rx_missed_errors 6 (3100 packets)")
    assert limits.verdict(record(300.0), dict(samples, server=None))['verdict'] != 'nic'
    # the share is of the packets one side counted (the same packets pass both NICs), not their sum
    many = {'nic_drops': {'rx_dropped': 6}, 'nic_packets': 10000,
            'server': {'nic_drops': {'rx_dropped': 6}, 'nic_packets': 10000}}
    assert limits.verdict(record(300.0), many)['verdict'] == 'nic'    # 12 > 0.1 % of 10000
    many['nic_packets'] = many['server']['nic_packets'] = 20000
    assert limits.verdict(record(300.0), many)['verdict'] != 'nic'   # 12 < 0.1 % of 20000


def test_the_servers_link_sets_the_ceiling_when_the_client_has_none():
    rec = record(470.0, link=None)
    rec['server'] = {'mtu': 1500, 'link_mbps': 500.0}
    out = limits.verdict(rec, {})
    assert out['verdict'] == 'link' and out['ceiling_mbps'] == pytest.approx(500 * 1448 / 1538.0, abs=0.01)
    # the client's (a link_mbps given: the path's) wins
    rec['client']['link_mbps'] = 1000.0
    assert limits.verdict(rec, {})['verdict'] == 'unknown'


def series_sample(t, user_idle, drops=0, packets=0, ticks=0, core=0):
    """One sample of server_sampler's series: core 0's cumulative (user, idle) jiffies, core 1 idle."""
    stat = {'cpu0': dict(dict.fromkeys(limits.PROC_STAT_FIELDS, 0), user=user_idle[0], idle=user_idle[1]),
            'cpu1': dict(dict.fromkeys(limits.PROC_STAT_FIELDS, 0), idle=1000)}
    return {'t': t, 'cpu': stat, 'drops': {'rx_dropped': drops, 'rx_errors': 0}, 'packets': packets,
            'procs': {'4242': [ticks, core]}}


def test_epoch_of_a_records_time():
    assert limits.epoch_of('2026-12-03T11:20:00.250Z') == pytest.approx(1796296800.25)
    assert limits.epoch_of('2026-12-03T11:20:00Z') == 1796296800
    assert limits.epoch_of(None) is None and limits.epoch_of('yesterday') is None


def test_server_window_takes_the_samples_inside_the_test():
    start = limits.epoch_of('2026-12-03T11:20:00.000Z')
    series = [series_sample(start - 1.0, (0, 0)), series_sample(start + 0.2, (10, 90), 1, 100, 5, 1),
              series_sample(start + 1.2, (20, 180), 3, 1100, 50, 0), series_sample(start + 2.2, (30, 270), 21, 2100, 95, 0),
              series_sample(start + 3.2, (900, 270), 500, 9000, 500, 1)]
    facts = {'interface': 'data0', 'mtu': 9000, 'link_mbps': 10000.0}
    out = limits.server_window(series, '2026-12-03T11:20:00.000Z', '2026-12-03T11:20:02.500Z', facts)
    assert out['window'] == [round(start + 0.2, 3), round(start + 2.2, 3)]
    assert out['nic_drops'] == {'rx_dropped': 20, 'rx_errors': 0} and out['nic_packets'] == 2000
    assert out['cpu']['busiest'] == 'cpu0' and out['cpu']['cores'][0]['busy'] == 10.0
    assert out['process_cpu'] == 'cpu0' and (out['interface'], out['mtu'], out['link_mbps']) == ('data0', 9000, 10000.0)
    assert 'not_sampled' not in out


def test_server_window_of_a_short_test_takes_the_samples_around_it_and_says_when_it_has_none():
    start = limits.epoch_of('2026-12-03T11:20:00.000Z')
    series = [series_sample(start - 0.5, (0, 0)), series_sample(start + 0.4, (200, 100)),
              series_sample(start + 1.1, (500, 300))]
    out = limits.server_window(series, '2026-12-03T11:20:00.000Z', '2026-12-03T11:20:00.900Z')
    assert out['window'] == [round(start - 0.5, 3), round(start + 1.1, 3)] and out['cpu']['cores'][0]['busy'] == 62.5
    late = limits.server_window(series, '2026-12-03T11:20:05.000Z', '2026-12-03T11:20:07.000Z', {'interface': 'e0'})
    assert late == {'interface': 'e0', 'mtu': None, 'link_mbps': None,
                    'not_sampled': ["the server's sampler has no samples around this test"]}
    assert limits.server_window([], '2026-12-03T11:20:00.000Z', '2026-12-03T11:20:01.000Z')['not_sampled']


def test_busiest_process_cpu_and_apply_server():
    assert limits.busiest_process_cpu({'1': [10, 0], '2': [10, 1]}, {'1': [11, 0], '2': [90, 1]}) == 'cpu1'
    assert limits.busiest_process_cpu({'1': [10, 0]}, {'1': [10, 1], '3': [50, 0]}) is None
    rec = {'server': {'interface': None, 'mtu': 1500}}
    limits.apply_server(rec, {'interface': 'data0', 'mtu': 9000, 'link_mbps': 1000.0})
    assert rec['server'] == {'interface': 'data0', 'mtu': 1500, 'link_mbps': 1000.0}   # the record's own MTU wins


def test_a_receiver_whose_core_was_saturated_is_cpu_not_window():
    # the client sent against the server's window most of the time (rwnd_limited 70 %) and the server's core
    # 0, where its iperf3 ran, was saturated: cpu on the server's side, the window named as the symptom
    tcp = {'retrans': 0, 'data_segs_out': 50000, 'busy_ms': 2000, 'rwnd_limited_pct': 70.0, 'sndbuf_limited_pct': 0.0,
           'snd_wnd': [30000], 'minrtt_ms': 0.05}
    server = {'cpu': cores(cpu0=100, cpu1=40), 'process_cpu': 'cpu0'}
    out = limits.verdict(record(300.0, link=None), {'tcp': tcp, 'cpu': cores(cpu0=100, cpu1=40), 'process_cpu': 'cpu1',
                                                    'server': server})
    assert (out['verdict'], out['side'], out['core']) == ('cpu', 'server', 'cpu0')
    assert out['evidence'] == ("server core cpu0 100 % busy: user 30, system 0, irq 0, softirq 70 % (softirq 70 % of "
                               "its busy time); the server's tool ran there; the receiver could not keep up: its "
                               "window limited the client 70 % of the busy time (rwnd_limited)")
    # a socket buffer the test set (iperf3 window: 4K): that window, whatever the server's core
    assert limits.verdict(record(300.0, link=None, options={'window': '4K'}), {'tcp': tcp, 'server': server})[
        'verdict'] == 'window'
    # the server's core not saturated: the window
    idle = dict(server, cpu=cores(cpu0=50, cpu1=40))
    assert limits.verdict(record(300.0, link=None), {'tcp': tcp, 'server': idle})['verdict'] == 'window'
    # the send buffer (the client's own): the window, whatever the server's core
    sndbuf = dict(tcp, rwnd_limited_pct=0.0, sndbuf_limited_pct=70.0)
    assert limits.verdict(record(300.0, link=None), {'tcp': sndbuf, 'server': server})['verdict'] == 'window'


def test_a_handful_of_segments_says_nothing_of_loss():
    # seen live in the cpu case: 1 of 5 segments retransmitted (20 %) was called 'loss'
    out = limits.verdict(record(805.6, link=None), {'tcp': {'retrans': 1, 'data_segs_out': 5}})
    assert out['verdict'] != 'loss', out
    out = limits.verdict(record(805.6, link=None), {'tcp': {'retrans': 10, 'data_segs_out': 1000}})
    assert out['verdict'] == 'loss', out


# ---- the host stack's receive drops --------------------------------------------------------------------------

def test_netstat_and_softnet_stat_of_linux_6_18():
    # this machine's /proc/net/netstat and /proc/net/softnet_stat (Debian 12 userland, kernel 6.18; procnet/README.md)
    netstat = fixture('procnet', 'linux-6.18', 'netstat')
    softnet = fixture('procnet', 'linux-6.18', 'softnet_stat')
    tcpext = limits.parse_netstat(netstat)
    assert len(tcpext) == 135 and tcpext['PruneCalled'] == 1 and tcpext['TCPBacklogDrop'] == 0
    assert tcpext['TCPRcvQDrop'] == 0 and tcpext['DelayedACKs'] > 0
    assert limits.parse_softnet_stat(softnet) == 0
    assert limits.host_counters(netstat, softnet) == {'TCPBacklogDrop': 0, 'TCPRcvQDrop': 0, 'RcvPruned': 0,
                                                      'OfoPruned': 0, 'TCPOFODrop': 0, 'softnet_dropped': 0,
                                                      'PruneCalled': 1}
    # the second column is hex, one line per CPU: summed
    dropped = '\n'.join(line.split()[0] + ' 0000002a ' + ' '.join(line.split()[2:]) for line in softnet.splitlines())
    assert limits.parse_softnet_stat(dropped) == 84
    # no file (FreeBSD, a kernel without them): None, not an error
    for text in (None, '', 'IpExt: InNoRoutes\nIpExt: 0\n'):
        assert limits.parse_netstat(text) is None and limits.parse_softnet_stat(text) is None
    assert limits.host_counters(None, None) is None
    assert limits.host_counters(None, softnet) == {'softnet_dropped': 0}


def test_host_drops_over_a_test_and_in_the_servers_window():
    before = {'TCPBacklogDrop': 10, 'TCPRcvQDrop': 0, 'softnet_dropped': 5, 'PruneCalled': 1}
    after = {'TCPBacklogDrop': 410, 'TCPRcvQDrop': 2, 'softnet_dropped': 65, 'PruneCalled': 1}
    assert limits.counter_deltas(before, after, limits.HOST_COUNTERS) == {
        'TCPBacklogDrop': 400, 'TCPRcvQDrop': 2, 'softnet_dropped': 60, 'PruneCalled': 0}
    start = limits.epoch_of('2026-12-03T11:20:00.000Z')
    series = [dict(series_sample(start + 0.2, (10, 90)), host=before),
              dict(series_sample(start + 1.2, (20, 180)), host=after)]
    out = limits.server_window(series, '2026-12-03T11:20:00.000Z', '2026-12-03T11:20:01.500Z')
    assert out['host_drops']['TCPBacklogDrop'] == 400
    # a sampler (FreeBSD's absence, an older sampler's file) without them: None
    assert limits.server_window([series_sample(start + 0.2, (10, 90)), series_sample(start + 1.2, (20, 180))],
                                '2026-12-03T11:20:00.000Z', '2026-12-03T11:20:01.500Z')['host_drops'] is None


# the CI failure's numbers: the client sent (tcp_stream), the server's iperf3 pinned to its busy core 0
CI_TCP = {'retrans': 564, 'data_segs_out': 109375, 'busy_ms': 2000}
CI_DROPS = {'TCPBacklogDrop': 520, 'TCPRcvQDrop': 0, 'RcvPruned': 0, 'OfoPruned': 0, 'TCPOFODrop': 0,
            'softnet_dropped': 31, 'PruneCalled': 3}


def ci_samples(server_busy=100, server_drops='ci', client_drops=None):
    shared = cores(cpu0=server_busy, cpu1=60)
    server_drops = dict(CI_DROPS) if server_drops == 'ci' else server_drops
    return {'tcp': CI_TCP, 'cpu': shared, 'process_cpu': 'cpu1', 'host_drops': client_drops,
            'server': {'cpu': shared, 'process_cpu': 'cpu0', 'host_drops': server_drops}}


def test_retransmissions_the_receivers_saturated_host_dropped_are_its_cpu_not_loss():
    out = limits.verdict(record(1213.98, link=None, direction='client_to_server'), ci_samples())
    assert (out['verdict'], out['side'], out['core'], out['saturated']) == ('cpu', 'server', 'cpu0', ['cpu0'])
    assert out['evidence'] == (
        "server core cpu0 100 % busy: user 30, system 0, irq 0, softirq 70 % (softirq 70 % of its busy time); the "
        "server's tool ran there; 564 of 109375 segments retransmitted (0.52 %): the receiver's host dropped 551 it "
        "could not take in (TCPBacklogDrop 520, softnet_dropped 31)")
    assert out['server']['host_drops'] == CI_DROPS and limits.short(out) == 'cpu server cpu0'


def test_retransmissions_without_the_receivers_host_drops_stay_loss():
    # nftables' random drops (the lab's loss case) are no host-stack drops; PruneCalled alone drops nothing
    quiet = dict(dict.fromkeys(limits.HOST_COUNTERS, 0), PruneCalled=4)
    for drops in (quiet, None):
        out = limits.verdict(record(1213.98, link=None, direction='client_to_server'), ci_samples(server_drops=drops))
        assert (out['verdict'], out['evidence']) == ('loss', '564 of 109375 segments retransmitted (0.52 %)')
    # the sender's host dropped (the client's counters): not the receiver's, loss
    out = limits.verdict(record(1213.98, link=None, direction='client_to_server'),
                         ci_samples(server_drops=quiet, client_drops=CI_DROPS))
    assert (out['verdict'], out['evidence']) == ('loss', '564 of 109375 segments retransmitted (0.52 %)')


def test_host_drops_on_a_receiver_not_saturated_stay_loss():
    out = limits.verdict(record(1213.98, link=None, direction='client_to_server'), ci_samples(server_busy=80))
    assert (out['verdict'], out['evidence']) == ('loss', '564 of 109375 segments retransmitted (0.52 %)')


def test_the_receiver_is_the_client_in_a_reverse_test_and_either_side_without_a_direction():
    samples = dict(ci_samples(server_drops=None, client_drops=CI_DROPS), process_cpu='cpu0')
    samples['server'] = dict(samples['server'], process_cpu='cpu1')
    out = limits.verdict(record(900.0, link=None, direction='server_to_client'), samples)
    assert (out['verdict'], out['side'], out['core']) == ('cpu', 'client', 'cpu0')
    assert out['evidence'].endswith("; 564 of 109375 segments retransmitted (0.52 %): the receiver's host dropped "
                                    "551 it could not take in (TCPBacklogDrop 520, softnet_dropped 31)")
    # the client sending: its own drops are not the receiver's
    assert limits.verdict(record(900.0, link=None, direction='client_to_server'), samples)['verdict'] == 'loss'
    # no direction in the record: whichever side counted them
    assert limits.verdict(record(900.0, link=None), samples)['side'] == 'client'


def test_retransmissions_a_saturated_receiver_reported_as_duplicates_are_its_cpu():
    # seen live (lim35's cpu_server case): 1125 of 89956 retransmitted, the server's TcpExt and softnet dropped
    # nothing, the sender got D-SACKs for most: the starved receiver took the segments in late and out of order
    tcp = dict(CI_TCP, retrans=1125, data_segs_out=89956, dsack_dups=1050)
    quiet = dict.fromkeys(limits.HOST_COUNTERS, 0)
    out = limits.verdict(record(1000.8, link=None, direction='client_to_server'),
                         dict(ci_samples(server_drops=quiet), tcp=tcp))
    assert (out['verdict'], out['side'], out['core']) == ('cpu', 'server', 'cpu0')
    assert out['evidence'].endswith(
        "the server's tool ran there; 1125 of 89956 segments retransmitted (1.25 %): the receiver reported 1050 of "
        "them as duplicates (D-SACK: they had arrived, late and out of order)")
    # both accounts: the host's drops first
    out = limits.verdict(record(1000.8, link=None, direction='client_to_server'),
                         dict(ci_samples(), tcp=dict(tcp, dsack_dups=600)))
    assert out['evidence'].endswith(
        "1125 of 89956 segments retransmitted (1.25 %): the receiver's host dropped 551 it could not take in "
        "(TCPBacklogDrop 520, softnet_dropped 31); the receiver reported 600 of them as duplicates (D-SACK: they had "
        "arrived, late and out of order)")
    # the receiver's core not saturated: loss, the duplicates named
    out = limits.verdict(record(1000.8, link=None, direction='client_to_server'),
                         dict(ci_samples(server_busy=70, server_drops=quiet), tcp=tcp))
    assert (out['verdict'], out['evidence']) == (
        'loss', '1125 of 89956 segments retransmitted (1.25 %); the receiver reported 1050 of them as duplicates (D-SACK)')


def test_a_receivers_account_that_leaves_real_loss_is_loss():
    # the lab's loss case on a busy receiver: nftables dropped 5 %; some D-SACKs and host drops explain a part only
    tcp = {'retrans': 11477, 'data_segs_out': 178068, 'busy_ms': 2000, 'dsack_dups': 1388}
    out = limits.verdict(record(900.0, link=None, direction='client_to_server'), dict(ci_samples(), tcp=tcp))
    assert (out['verdict'], out['evidence']) == (
        'loss', '11477 of 178068 segments retransmitted (6.45 %); the receiver reported 1388 of them as duplicates '
                '(D-SACK)')
