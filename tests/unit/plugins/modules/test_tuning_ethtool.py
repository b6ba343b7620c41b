# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json
import os
import re

import pytest

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.testing import patch_module_args

from ansible_collections.perflab.network.plugins.module_utils.host import tuning_snapshot as snapshots
from ansible_collections.perflab.network.plugins.module_utils.host.tuning_ethtool_utils import parse_features
from ansible_collections.perflab.network.plugins.modules import tuning_ethtool

FIXTURES = os.path.join(os.path.dirname(__file__), '..', '..', 'fixtures', 'ethtool', '6.1')
UNSUPPORTED = (1, '', 'netlink error: Operation not supported\n')


def fixture(name):
    with open(os.path.join(FIXTURES, name)) as handle:
        return handle.read()


class FakeEthtool(object):
    """A NIC driven through ethtool: answers from the captured outputs and keeps state.

    Feature groups follow what ethtool 6.1 showed on veth: setting a group sets its
    non-fixed members; a group prints "on" while any member is on
    (test_fake_reproduces_real_outputs holds it to the captures)."""

    def __init__(self, interface='h5a', features='features-veth.txt', driver='driver-veth.txt',
                 rings=UNSUPPORTED, coalesce=UNSUPPORTED):
        self.interface = interface
        self.features = parse_features(fixture(features))
        self.driver = fixture(driver)
        self.rings = rings
        self.coalesce = coalesce
        self.calls = []

    def render_features(self):
        lines = ['Features for %s:' % self.interface]
        for name, state in self.features.items():
            lines.append('%s%s: %s%s' % ('\t' if state['group'] else '', name, 'on' if state['on'] else 'off',
                                         ' [fixed]' if state['fixed'] else ''))
        return '\n'.join(lines) + '\n'

    def set_feature(self, name, value):
        members = [n for n, s in self.features.items() if s['group'] == name]
        for member in members:
            if not self.features[member]['fixed']:
                self.features[member]['on'] = value
        if not members:
            self.features[name]['on'] = value
        for group in set(s['group'] for s in self.features.values() if s['group']):
            self.features[group]['on'] = any(s['on'] for s in self.features.values() if s['group'] == group)

    def run_command(self, argv, **kwargs):
        self.calls.append(list(argv))
        assert argv[0] == 'ethtool' and argv[2] == self.interface
        flag = argv[1]
        if flag == '-i':
            return 0, self.driver, ''
        if flag == '-k':
            return 0, self.render_features(), ''
        if flag == '-K':
            for name, value in zip(argv[3::2], argv[4::2]):
                self.set_feature(name, value == 'on')
            return 0, '', ''
        if flag in ('-g', '-c'):
            return self.rings if flag == '-g' else self.coalesce
        if flag == '-G':
            rc, out, err = self.rings
            current = out.split('Current hardware settings:')
            for name, value in zip(argv[3::2], argv[4::2]):
                label = {'rx': 'RX', 'tx': 'TX'}[name]
                current[1] = re.sub(r'(?m)^%s:(\s+)\d+' % label, r'%s:\g<1>%s' % (label, value), current[1])
            self.rings = (rc, 'Current hardware settings:'.join(current), err)
            return 0, '', ''
        raise AssertionError('unexpected ethtool call %r' % (argv,))


@pytest.fixture
def nic(monkeypatch, tmp_path):
    sys_class_net = tmp_path / 'sys-class-net'
    monkeypatch.setattr(tuning_ethtool, 'SYS_CLASS_NET', str(sys_class_net))

    def install(**kwargs):
        fake = FakeEthtool(**kwargs)
        (sys_class_net / fake.interface).mkdir(parents=True)
        monkeypatch.setattr(AnsibleModule, 'run_command', lambda self, argv, **kw: fake.run_command(argv, **kw))
        monkeypatch.setattr(AnsibleModule, 'get_bin_path', lambda self, name, required=False, opt_dirs=None: '/usr/sbin/' + name)
        return fake
    return install


def run_module(args, capsys, check_mode=False):
    if check_mode:
        args = dict(args, _ansible_check_mode=True)
    with patch_module_args(args):
        with pytest.raises(SystemExit):
            tuning_ethtool.main()
    return json.loads(capsys.readouterr().out)


def test_fake_reproduces_real_outputs():
    fake = FakeEthtool()
    assert fake.render_features() == fixture('features-veth.txt')
    fake.set_feature('tcp-segmentation-offload', False)
    assert fake.render_features() == fixture('features-veth-tso-off.txt')
    fake = FakeEthtool()
    fake.set_feature('tx-tcp-ecn-segmentation', False)
    assert fake.render_features() == fixture('features-veth-ecn-off.txt')


def test_offloads_off_exact_commands_and_snapshot(nic, tmp_path, capsys):
    fake = nic()
    snap = str(tmp_path / 'stock.json')
    result = run_module({'interface': 'h5a', 'snapshot': snap,
                         'features': {'tso': False, 'gso': False, 'gro': False, 'large-receive-offload': True}}, capsys)
    assert fake.calls == [
        ['ethtool', '-i', 'h5a'],
        ['ethtool', '-k', 'h5a'],
        ['ethtool', '-K', 'h5a', 'tcp-segmentation-offload', 'off', 'generic-segmentation-offload', 'off'],
        ['ethtool', '-k', 'h5a'],
    ]
    assert result['changed'] is True
    assert result['summary']['applied'] == ['h5a/features/tcp-segmentation-offload', 'h5a/features/generic-segmentation-offload']
    assert result['summary']['unchanged'] == ['h5a/features/generic-receive-offload']
    assert result['summary']['skipped'] == {'h5a/features/large-receive-offload': 'fixed by driver veth'}
    assert result['interfaces'][0]['driver'] == 'veth'
    stock = snapshots.load(snap)['ethtool']['h5a']['features']
    # every non-fixed feature, as it was before the change
    assert len(stock) == 32 and stock['tx-tcp-segmentation'] is True and 'large-receive-offload' not in stock
    # the rollback puts back leaves only, as they were
    rollback = result['rollback_commands'][0]
    assert rollback[:3] == ['ethtool', '-K', 'h5a']
    assert 'tcp-segmentation-offload' not in rollback and rollback[rollback.index('tx-tcp-segmentation') + 1] == 'on'
    second = run_module({'interface': 'h5a', 'snapshot': snap, 'features': {'tso': False, 'gso': False}}, capsys)
    assert second['changed'] is False and second['commands'] == []


def test_restore_is_exact_even_for_a_partly_on_group(nic, tmp_path, capsys):
    fake = nic(features='features-veth-ecn-off.txt')
    snap = str(tmp_path / 'stock.json')
    run_module({'interface': 'h5a', 'snapshot': snap, 'features': {'tso': False, 'sg': False}}, capsys)
    assert fake.features['tx-tcp-segmentation']['on'] is False
    result = run_module({'snapshot': snap, 'state': 'stock'}, capsys)
    restore_call = fake.calls[-2]
    # Group lines are never set on restore: "tso on" would also switch ecn on.
    assert 'tcp-segmentation-offload' not in restore_call and 'scatter-gather' not in restore_call
    assert 'tx-tcp-ecn-segmentation' not in restore_call
    assert fake.render_features() == fixture('features-veth-ecn-off.txt')
    assert 'h5a/features/tx-tcp-segmentation' in result['summary']['restored']
    assert run_module({'snapshot': snap, 'state': 'stock'}, capsys)['changed'] is False


def test_veth_has_no_rings_or_coalescing(nic, tmp_path, capsys):
    fake = nic()
    result = run_module({'interface': 'h5a', 'snapshot': str(tmp_path / 's.json'), 'rings': {'rx': 'max'},
                         'coalesce': {'rx-usecs': 0}}, capsys)
    assert result['changed'] is False
    assert result['summary']['skipped'] == {
        'h5a/rings/rx': 'ring sizes are not supported by driver veth: netlink error: Operation not supported',
        'h5a/coalesce/rx-usecs': 'interrupt coalescing settings are not supported by driver veth: '
                                 'netlink error: Operation not supported',
    }
    assert [c[1] for c in fake.calls] == ['-i', '-g', '-c']


def test_rings_on_virtio(nic, tmp_path, capsys):
    fake = nic(interface='eth0', driver='driver-virtio_net.txt', rings=(0, fixture('rings-virtio_net.txt'), ''))
    snap = str(tmp_path / 's.json')
    result = run_module({'interface': 'eth0', 'snapshot': snap, 'rings': {'rx': 128, 'tx': 'max'}}, capsys)
    assert ['ethtool', '-G', 'eth0', 'rx', '128'] in fake.calls
    assert result['summary']['applied'] == ['eth0/rings/rx'] and result['summary']['unchanged'] == ['eth0/rings/tx']
    assert result['rollback_commands'] == [['ethtool', '-G', 'eth0', 'rx', '256']]
    assert snapshots.load(snap)['ethtool']['eth0']['rings'] == {'rx': 256, 'tx': 256}
    too_big = run_module({'interface': 'eth0', 'snapshot': snap, 'rings': {'tx': 4096}}, capsys)
    assert too_big['failed'] is True and 'eth0/rings/tx: larger than the driver maximum 256' in too_big['msg']
    run_module({'snapshot': snap, 'state': 'stock'}, capsys)
    assert fake.calls[-2] == ['ethtool', '-G', 'eth0', 'rx', '256']


def test_check_mode_changes_nothing(nic, tmp_path, capsys):
    fake = nic()
    snap = tmp_path / 's.json'
    result = run_module({'interface': 'h5a', 'snapshot': str(snap), 'features': {'tso': False}}, capsys, check_mode=True)
    assert result['changed'] is True
    assert result['commands'] == [['ethtool', '-K', 'h5a', 'tcp-segmentation-offload', 'off']]
    assert [c[1] for c in fake.calls] == ['-i', '-k']
    assert not snap.exists()


@pytest.mark.parametrize('args, message', [
    ({'interface': 'h5a', 'features': {'tso': 'no'}}, "features: tso must be true or false, got 'no'"),
    ({'interface': 'h5a', 'rings': {'rx-big': 4}}, 'rings: rx-big is not one of rx, rx-mini, rx-jumbo, tx'),
    ({'interface': 'h5a', 'rings': {'rx': 0}}, 'rings: rx must be a positive number or max, got 0'),
    ({'interface': 'h5a', 'coalesce': {'adaptive-rx': 1}}, 'coalesce: adaptive-rx must be true or false, got 1'),
    ({'interface': 'h5a; reboot', 'features': {}}, "interface: 'h5a; reboot' is not an interface name"),
    ({'features': {'tso': False}}, 'interface is required with state=tuned'),
    ({'interface': 'nosuch0', 'features': {'tso': False}}, 'interface nosuch0 does not exist on this host'),
])
def test_bad_input_fails_before_any_change(nic, tmp_path, capsys, args, message):
    fake = nic()
    result = run_module(dict(args, snapshot=str(tmp_path / 's.json')), capsys)
    assert result['failed'] is True and result['msg'] == message
    assert [c for c in fake.calls if c[1] in ('-K', '-G', '-C')] == []
