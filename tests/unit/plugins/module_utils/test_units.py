# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import pytest

from ansible_collections.perflab.network.plugins.module_utils.core import units


@pytest.mark.parametrize('value, unit, expected', [
    (1e9, 'bits/s', 1000.0),
    (1e9, 'bit/s', 1000.0),
    (2500, 'Kbit/s', 2.5),
    (2500, 'Kbps', 2.5),
    (940, 'Mbit/s', 940.0),
    (940, 'Mbps', 940.0),
    (9.4, 'Gbit/s', 9400.0),
    (9.4, 'Gbps', 9400.0),
    (9410.12, '10^6bits/s', 9410.12),
    (5000, '10^3bits/s', 5.0),
    (2, '10^9bits/s', 2000.0),
    (125e6, 'bytes/s', 1000.0),
    (125, 'MB/s', 1000.0),
    (125, 'MBps', 1000.0),
    (1000, 'Mb/s', 1000.0),
    (1, '10^6bits/s', 1.0),
    (3.0, 'Gbits/sec', 3000.0),
])
def test_to_mbps(value, unit, expected):
    assert units.to_mbps(value, unit) == pytest.approx(expected)


@pytest.mark.parametrize('unit', ['furlongs/s', '', 'mb/s', 'Trans/s', None])
def test_to_mbps_unknown_unit(unit):
    with pytest.raises(ValueError):
        units.to_mbps(1, unit)


def test_from_mbps_is_inverse():
    assert units.from_mbps(1000, 'bits/s') == 1e9
    assert units.from_mbps(1.5, 'Kbps') == 1500.0
    assert units.from_mbps(units.to_mbps(123.4, 'MB/s'), 'MB/s') == pytest.approx(123.4)


@pytest.mark.parametrize('value, unit, expected', [
    (850, 'ns', 0.85),
    (29.689, 'us', 29.689),
    (29.689, u'\u00b5s', 29.689),
    (29.689, u'\u03bcs', 29.689),
    (1.2, 'ms', 1200.0),
    (3, 's', 3e6),
])
def test_to_us(value, unit, expected):
    assert units.to_us(value, unit) == pytest.approx(expected)


def test_to_us_unknown():
    with pytest.raises(ValueError):
        units.to_us(1, 'fortnight')


@pytest.mark.parametrize('text, expected', [
    ('12.5G', 12.5e9), ('11.5K', 11500.0), ('900', 900.0), ('1.05M', 1.05e6),
    (' 3T ', 3e12), ('0', 0.0), ('7k', 7000.0),
])
def test_parse_si(text, expected):
    assert units.parse_si(text) == pytest.approx(expected)


@pytest.mark.parametrize('text', ['', 'G', '12.5X', '1.2.3', 'abc', None])
def test_parse_si_rejects(text):
    with pytest.raises(ValueError):
        units.parse_si(text)


@pytest.mark.parametrize('text, expected', [
    ('29.689us', 29.689), (u'29.689\u00b5s', 29.689), ('1.2ms', 1200.0), ('3s', 3e6),
    ('850ns', 0.85), ('1m2.5s', 62.5e6), ('1h', 3600e6),
])
def test_parse_duration_us(text, expected):
    assert units.parse_duration_us(text) == pytest.approx(expected)


@pytest.mark.parametrize('text', ['', '12', 'ms', '1.2 parsecs', '3s junk', 5])
def test_parse_duration_us_rejects(text):
    with pytest.raises(ValueError):
        units.parse_duration_us(text)


def test_netperf_units_are_the_ones_it_prints():
    # netperf -f: capitals are powers of two (bytes), lower case powers of ten (bits)
    assert units.netperf_to_mbps(1, 'KBytes/s') == 8 * 1024 / 1e6
    assert units.netperf_to_mbps(1, 'MBytes/s') == 8 * 2 ** 20 / 1e6
    assert units.netperf_to_mbps(1, 'GBytes/s') == 8 * 2 ** 30 / 1e6
    assert units.netperf_to_mbps(1, '10^9bits/s') == 1000.0
    for fake in ('2^20bytes/s', '2^10Bytes/s', 'Mbit/s'):
        with pytest.raises(ValueError):
            units.netperf_to_mbps(1, fake)


def test_human_bytes():
    assert units.human_bytes(39000) == '39 KB'
    assert units.human_bytes(2523136) == '2.5 MB'
    assert units.human_bytes(0) == '0 bytes'
