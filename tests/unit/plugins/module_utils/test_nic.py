# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import copy
import os
from pathlib import Path
import shutil
import threading
import time

import pytest

from ansible_collections.perflab.network.plugins.module_utils.host import nic
from ansible_collections.perflab.network.plugins.module_utils.core import record as rec


def _fake_interface(root, name, mtu=1500):
    stats = root / name / 'statistics'
    stats.mkdir(parents=True)
    for counter in nic.COUNTERS:
        (stats / counter).write_text('0\n')
    (root / name / 'mtu').write_text('%d\n' % mtu)
    return stats


def _write_counter(stats, counter, value):
    # a sysfs read is atomic; a plain write_text truncates first and a reader could see ''
    tmp = stats / ('.%s.tmp' % counter)
    tmp.write_text('%d\n' % value)
    os.replace(str(tmp), str(stats / counter))


def test_valid_interface_name():
    assert nic.valid_interface_name('eth0')
    assert nic.valid_interface_name('h1-a.100')
    assert not nic.valid_interface_name('..')
    assert not nic.valid_interface_name('eth0/../x')
    assert not nic.valid_interface_name('a' * 16)
    assert not nic.valid_interface_name('eth0;reboot')
    assert not nic.valid_interface_name('')


def test_missing_interface_raises(tmp_path):
    with pytest.raises(ValueError, match='does not exist'):
        nic.NicSampler('nope0', sys_class_net=str(tmp_path))
    with pytest.raises(ValueError, match='invalid'):
        nic.NicSampler('../etc', sys_class_net=str(tmp_path))


def test_interface_mtu(tmp_path):
    _fake_interface(tmp_path, 'veth9', mtu=9000)
    assert nic.interface_mtu('veth9', sys_class_net=str(tmp_path)) == 9000
    assert nic.interface_mtu('absent', sys_class_net=str(tmp_path)) is None
    assert nic.interface_mtu('lo') == 65536


def test_sampler_rates_over_whole_window(tmp_path):
    stats = _fake_interface(tmp_path, 'veth9')
    stop = threading.Event()

    def traffic():
        # 1 MB every 0.05 s received, half of that sent: 160 Mbit/s rx, 80 Mbit/s tx
        rx = tx = 0
        while not stop.is_set():
            time.sleep(0.05)
            rx += 1000000
            tx += 500000
            _write_counter(stats, 'rx_bytes', rx)
            _write_counter(stats, 'tx_bytes', tx)

    writer = threading.Thread(target=traffic)
    with nic.NicSampler('veth9', interval=0.1, sys_class_net=str(tmp_path)) as sampler:
        writer.start()
        time.sleep(1.0)
        stop.set()
        writer.join()
    result = sampler.result()
    assert result['interface'] == 'veth9'
    samples = result['samples']
    assert samples[0]['t'] == 0.0 and samples[0]['rx_bytes'] == 0
    assert len(samples) >= 3  # ~10 on an idle machine; as few as 4 seen with the load average at 20 on 2 cores
    assert all(b['t'] > a['t'] for a, b in zip(samples, samples[1:]))
    assert set(samples[0]) == {'t', 'rx_bytes', 'tx_bytes', 'rx_packets', 'tx_packets'}
    first, last = samples[0], samples[-1]
    window = last['t'] - first['t']
    assert result['rx_mbps'] == pytest.approx((last['rx_bytes'] - first['rx_bytes']) * 8 / window / 1e6, abs=0.001)
    assert result['tx_mbps'] == pytest.approx((last['tx_bytes'] - first['tx_bytes']) * 8 / window / 1e6, abs=0.001)
    assert 0 < result['rx_mbps'] <= 200
    assert result['tx_mbps'] == pytest.approx(result['rx_mbps'] / 2, rel=0.1)


def test_failed_read_skips_one_sample_and_sampling_goes_on(tmp_path):
    stats = _fake_interface(tmp_path, 'veth9')
    (stats / 'rx_bytes').write_text('')  # what a reader racing a non-atomic write sees
    with nic.NicSampler('veth9', interval=0.05, sys_class_net=str(tmp_path)) as sampler:
        pass
    assert sampler.samples == [] and sampler.result()['skipped_samples'] == 2  # enter and exit reads
    with nic.NicSampler('veth9', interval=0.05, sys_class_net=str(tmp_path)) as sampler:
        deadline = time.monotonic() + 30
        while sampler.result().get('skipped_samples', 0) < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        _write_counter(stats, 'rx_bytes', 4000000)
        while len(sampler.samples) < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
    result = sampler.result()
    assert result['skipped_samples'] >= 2 and 'error' not in result
    assert len(result['samples']) >= 2 and result['samples'][0]['t'] == 0.0
    assert all(sample['rx_bytes'] == 4000000 for sample in result['samples'])


def test_vanished_interface_stops_sampling_and_keeps_samples(tmp_path):
    _fake_interface(tmp_path, 'veth9')
    with nic.NicSampler('veth9', interval=0.05, sys_class_net=str(tmp_path)) as sampler:
        shutil.rmtree(str(tmp_path / 'veth9'))
        deadline = time.monotonic() + 30
        while 'error' not in sampler.result() and time.monotonic() < deadline:
            time.sleep(0.01)
    result = sampler.result()
    assert len(result['samples']) == 1 and result['samples'][0]['t'] == 0.0
    assert result['error'].startswith('interface veth9 vanished mid-test: ')
    assert 'skipped_samples' not in result and result['rx_mbps'] is None


def test_sampler_on_loopback_sees_traffic():
    import socket
    server = socket.socket()
    server.bind(('127.0.0.1', 0))
    server.listen(1)
    client = socket.create_connection(server.getsockname())
    conn = server.accept()[0]
    sender = threading.Thread(target=client.sendall, args=(b'x' * 4000000,))
    with nic.NicSampler('lo', interval=0.2) as sampler:
        sender.start()
        got = 0
        while got < 4000000:
            got += len(conn.recv(1 << 20))
        sender.join()
    for sock in (client, conn, server):
        sock.close()
    result = sampler.result()
    first, last = result['samples'][0], result['samples'][-1]
    assert last['rx_bytes'] - first['rx_bytes'] >= 4000000
    assert result['rx_mbps'] > 0


def test_rates_over_the_window_the_tool_measured_not_its_start_up():
    from ansible_collections.perflab.network.plugins.module_utils.host.nic import window_rates
    # 1 s of start-up with no traffic, then 3 s at 1000 Mbit/s (125e6 bytes/s), sampled every second
    samples = [{'t': float(t), 'rx_bytes': 0, 'tx_bytes': max(0, t - 1) * 125000000, 'rx_packets': 0,
                'tx_packets': 0} for t in range(6)]
    samples[-1]['tx_bytes'] = samples[-2]['tx_bytes']   # the report after the test: no traffic
    whole = window_rates(samples)
    assert whole[1] == 600.0       # 40 % under: what the whole sampled window gave
    rx, tx, used = window_rates(samples, (1.0, 4.0))
    assert tx == 1000.0 and used == [1.0, 4.0] and rx == 0.0
    # edges between samples are interpolated; a window beyond the samples is clamped to them
    assert window_rates(samples, (1.5, 3.5))[1] == 1000.0
    assert window_rates(samples, (-3.0, 9.0))[2] == [0.0, 5.0]
    assert window_rates(samples[:1], (0, 1)) == (None, None, None)


BONDING = Path(__file__).resolve().parents[2] / 'fixtures' / 'bonding'


def test_proc_net_bonding_of_a_real_balance_alb_bond():
    state = nic.parse_proc_net_bonding((BONDING / 'proc-net-bonding-balance-alb-6.1.txt').read_text())
    assert state == {'mode': 'adaptive load balancing', 'active': 'eth1',
                     'members': {'eth1': {'mii_status': 'up', 'link_failures': 0},
                                 'eth2': {'mii_status': 'up', 'link_failures': 0}}}


def test_a_failover_during_the_test_is_said_in_words():
    before = nic.parse_proc_net_bonding((BONDING / 'proc-net-bonding-balance-alb-6.1.txt').read_text())
    after = copy.deepcopy(before)
    after['active'] = 'eth2'
    after['members']['eth1'] = {'mii_status': 'down', 'link_failures': 1}
    assert nic.bond_events(before, after) == [
        "the bond's active member changed from eth1 to eth2 during the test",
        'member eth1 lost its link 1 time(s) during the test (MII status now down)']
    assert nic.bond_events(before, before) == []
    assert nic.bond_events(None, after) == []


def test_the_sampler_keeps_the_bond_state_and_the_record_notes_the_failover(tmp_path, monkeypatch):
    states = iter([{'mode': 'fault-tolerance (active-backup)', 'active': 'eth1',
                    'members': {'eth1': {'mii_status': 'up', 'link_failures': 0},
                                'eth2': {'mii_status': 'up', 'link_failures': 0}}},
                   {'mode': 'fault-tolerance (active-backup)', 'active': 'eth2',
                    'members': {'eth1': {'mii_status': 'down', 'link_failures': 1},
                                'eth2': {'mii_status': 'up', 'link_failures': 0}}}])
    stats = tmp_path / 'bond0' / 'statistics'
    stats.mkdir(parents=True)
    for counter in nic.COUNTERS:
        (stats / counter).write_text('0\n')
    monkeypatch.setattr(nic.NicSampler, 'read_bond_state', lambda self: next(states))
    with nic.NicSampler('bond0', interval=0.05, sys_class_net=str(tmp_path)) as sampler:
        pass
    result = sampler.result()
    assert result['bond']['events'][0] == "the bond's active member changed from eth1 to eth2 during the test"
    record = rec.new_record({'run_id': 'r'}, 'iperf3', 'tcp_stream', 'tcp', 'client_to_server', 'x')
    rec.add_nic(record, result)
    assert record['notes'] == [
        "data interface bond0: the bond's active member changed from eth1 to eth2 during the test",
        'data interface bond0: member eth1 lost its link 1 time(s) during the test (MII status now down)']


def test_no_bond_no_bond_state(tmp_path):
    assert nic.read_bond_state('eth0', proc_net_bonding=str(tmp_path)) is None
    assert nic.read_bond_state('../x') is None


def test_the_one_second_peak_within_the_measured_window():
    """The seed's 98 % was the NIC's best second, not its mean (issue #28.2)."""
    from ansible_collections.perflab.network.plugins.module_utils.host.nic import peak_rates, window_rates
    # sampled every second: 1 s of start-up, then 900, 980, 940 Mbit/s sent, then the report (no traffic)
    sent = [0, 0, 112500000, 235000000, 352500000, 352500000]
    samples = [{'t': float(t), 'rx_bytes': t * 1000, 'tx_bytes': sent[t], 'rx_packets': 0, 'tx_packets': 0}
               for t in range(6)]
    peak = peak_rates(samples, (1.0, 4.0))
    assert peak == {'rx_peak_mbps': 0.008, 'tx_peak_mbps': 980.0, 'peak_at': {'rx': 1.0, 'tx': 2.0}}
    assert window_rates(samples, (1.0, 4.0))[1] == 940.0   # the mean over the same seconds
    # a window starting between samples: its first span is interpolated, the peak second is still found
    assert peak_rates(samples, (1.5, 4.0))['tx_peak_mbps'] == 980.0
    # the window shorter than a second, or one sample: no peak
    assert peak_rates(samples, (1.0, 1.5)) == {'rx_peak_mbps': None, 'tx_peak_mbps': None, 'peak_at': None}
    assert peak_rates(samples[:1])['tx_peak_mbps'] is None
    # counters read only before and after (Windows' Get-NetAdapterStatistics): no peak, not the mean
    assert peak_rates([samples[0], samples[-1]])['tx_peak_mbps'] is None
    # a window beyond the samples is clamped to them
    assert peak_rates(samples, (-2.0, 9.0))['tx_peak_mbps'] == 980.0


def test_links_up_without_a_speed_are_listed(tmp_path):
    """virtio's NIC (carrier 1, speed -1) is listed; a link with a speed, one down (carrier 0) and one
    administratively down (carrier and speed unreadable: EINVAL, no file here) are not."""
    for name, carrier, speed in (('eth1', '1', '-1'), ('eth2', '1', '10000'), ('eth3', '0', '-1'), ('eth4', None, None),
                                 ('eth5', '1', None)):
        path = tmp_path / name
        path.mkdir()
        if carrier is not None:
            (path / 'carrier').write_text(carrier + '\n')
        if speed is not None:
            (path / 'speed').write_text(speed + '\n')
    names = ['eth1', 'eth2', 'eth3', 'eth4', 'eth5', 'absent', '../etc']
    assert nic.links_without_speed(names, sys_class_net=str(tmp_path)) == ['eth1', 'eth5']
