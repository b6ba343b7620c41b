# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import threading
import time

import pytest

from ansible_collections.perflab.network.plugins.module_utils import nic


def _fake_interface(root, name, mtu=1500):
    stats = root / name / 'statistics'
    stats.mkdir(parents=True)
    for counter in nic.COUNTERS:
        (stats / counter).write_text('0\n')
    (root / name / 'mtu').write_text('%d\n' % mtu)
    return stats


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
            (stats / 'rx_bytes').write_text('%d\n' % rx)
            (stats / 'tx_bytes').write_text('%d\n' % tx)

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
