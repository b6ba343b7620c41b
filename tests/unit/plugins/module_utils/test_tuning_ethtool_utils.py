# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os

from ansible_collections.perflab.network.plugins.module_utils.host.tuning_ethtool_utils import (
    canonical_feature, coalesce_argv, features_argv, features_diff, first_error_line,
    parse_coalesce, parse_driver, parse_features, parse_rings, rings_argv,
)

FIXTURES = os.path.join(os.path.dirname(__file__), '..', '..', 'fixtures', 'ethtool', '6.1')


def fixture(name):
    with open(os.path.join(FIXTURES, name)) as handle:
        return handle.read()


def test_features_stock_veth():
    features = parse_features(fixture('features-veth.txt'))
    assert len(features) == 63  # every line but the header
    assert list(features)[:3] == ['rx-checksumming', 'tx-checksumming', 'tx-checksum-ipv4']
    assert features['tcp-segmentation-offload'] == {'on': True, 'fixed': False, 'requested': None, 'group': None}
    assert features['tx-tcp-ecn-segmentation'] == {'on': True, 'fixed': False, 'requested': None,
                                                   'group': 'tcp-segmentation-offload'}
    assert features['large-receive-offload'] == {'on': False, 'fixed': True, 'requested': None, 'group': None}
    assert features['generic-receive-offload']['on'] is False
    # A top-level line after a group is not part of the group.
    assert features['generic-segmentation-offload']['group'] is None


def test_features_tso_off_and_partly_on_group():
    off = parse_features(fixture('features-veth-tso-off.txt'))
    assert [n for n, s in off.items() if s['group'] == 'tcp-segmentation-offload' and s['on']] == []
    mixed = parse_features(fixture('features-veth-ecn-off.txt'))
    # ethtool prints the group "on" while one of its members is off.
    assert mixed['tcp-segmentation-offload']['on'] is True
    assert mixed['tx-tcp-ecn-segmentation']['on'] is False


def test_features_requested_annotation():
    features = parse_features(fixture('features-veth-sg-off.txt'))
    assert features['scatter-gather']['on'] is False
    assert features['generic-segmentation-offload'] == {'on': False, 'fixed': False, 'requested': True, 'group': None}
    assert features['tx-tcp-segmentation']['requested'] is True


def test_rings_virtio():
    assert parse_rings(fixture('rings-virtio_net.txt')) == {
        'max': {'rx': 256, 'rx-mini': None, 'rx-jumbo': None, 'tx': 256},
        'current': {'rx': 256, 'rx-mini': None, 'rx-jumbo': None, 'tx': 256},
    }


def test_rings_unsupported_output_is_empty():
    assert fixture('rings-veth.stdout.txt') == ''
    assert parse_rings('') == {'max': {}, 'current': {}}
    assert first_error_line(fixture('rings-veth.stderr.txt')) == 'netlink error: Operation not supported'


def test_coalesce_virtio():
    values = parse_coalesce(fixture('coalesce-virtio_net.txt'))
    assert values['adaptive-rx'] is False
    assert values['adaptive-tx'] is None
    assert values['rx-usecs'] == 0
    assert values['rx-frames'] == 1
    assert values['tx-frames'] == 1
    assert values['stats-block-usecs'] is None
    # printed as rx-frame-low, set as rx-frames-low
    assert 'rx-frames-low' in values and 'rx-frame-low' not in values
    assert values['cqe-mode-rx'] is None


def test_driver():
    assert parse_driver(fixture('driver-veth.txt')) == 'veth'
    assert parse_driver(fixture('driver-virtio_net.txt')) == 'virtio_net'
    assert parse_driver('') is None


def test_argv_builders():
    assert canonical_feature('tso') == 'tcp-segmentation-offload'
    assert canonical_feature('tx-tcp-segmentation') == 'tx-tcp-segmentation'
    assert features_argv('data0', {'tcp-segmentation-offload': False, 'generic-receive-offload': True}) == [
        'ethtool', '-K', 'data0', 'tcp-segmentation-offload', 'off', 'generic-receive-offload', 'on']
    assert rings_argv('eth1', {'rx': 4096, 'tx': 1024}) == ['ethtool', '-G', 'eth1', 'rx', '4096', 'tx', '1024']
    assert coalesce_argv('eth1', {'adaptive-rx': False, 'rx-usecs': 0}) == [
        'ethtool', '-C', 'eth1', 'adaptive-rx', 'off', 'rx-usecs', '0']


def test_features_diff_skips_fixed_and_unknown():
    current = parse_features(fixture('features-veth.txt'))
    assert features_diff(current, {'tcp-segmentation-offload': False, 'large-receive-offload': True,
                                   'no-such-feature': True, 'highdma': True}) == {'tcp-segmentation-offload': False}
