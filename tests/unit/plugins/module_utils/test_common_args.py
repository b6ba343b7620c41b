# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import pytest

from ansible_collections.perflab.network.plugins.module_utils.core import common_args as ca
from ansible_collections.perflab.network.plugins.module_utils.host import platform as host_platform
from ansible_collections.perflab.network.plugins.module_utils.host import nic


def _params(**kw):
    params = {name: spec.get('default') for name, spec in ca.TEST_COMMON_ARGS.items()}
    params['server'] = '10.201.1.2'
    params.update(kw)
    return params


def test_spec_shape():
    spec = ca.common_argument_spec()
    assert spec['server'] == {'type': 'str', 'required': True}
    assert spec['duration']['default'] == 10
    assert spec['parallel']['default'] == 1
    assert spec['processes']['default'] == 1
    assert spec['suite']['default'] == 'adhoc'
    spec['server']['required'] = False
    assert ca.TEST_COMMON_ARGS['server']['required'] is True  # a copy


@pytest.mark.parametrize('server', ['10.201.1.2', 'fe80::1%lo', '::1', 'lab-2', 'lab2.example.org', 'h_1'])
def test_good_servers(server):
    assert ca.common_errors(_params(server=server)) == []


@pytest.mark.parametrize('server', ['10.0.0.1; reboot', '$(id)', 'a b', 'host`x`', '', None, '-oProxy', '1.2.3.4.5',
                                    'a|b', 'x&', "h'"])
def test_bad_servers(server):
    errors = ca.common_errors(_params(server=server))
    assert len(errors) == 1 and errors[0].startswith('server must be an IP address or a host name')


@pytest.mark.parametrize('field, value, text', [
    ('parallel', 0, 'parallel must be between 1 and 128, got 0'),
    ('parallel', 129, 'parallel must be between 1 and 128, got 129'),
    ('duration', 0, 'duration must be between 1 and 86400, got 0'),
    ('duration', -5, 'duration must be between 1 and 86400, got -5'),
    ('processes', 65, 'processes must be between 1 and 64, got 65'),
    ('port', 0, 'port must be between 1 and 65535, got 0'),
    ('timeout', 0, 'timeout must be between 1 and 604800, got 0'),
    ('repetition', 0, 'repetition must be between 1 and 1000000, got 0'),
])
def test_ranges(field, value, text):
    assert ca.common_errors(_params(**{field: value})) == [text]


def test_port_plus_processes():
    assert ca.common_errors(_params(port=65535, processes=2)) == [
        'port + processes - 1 must be at most 65535 (processes use port..port+processes-1), '
        'got port 65535 with processes 2']
    assert ca.common_errors(_params(port=65534, processes=2)) == []
    assert ca.common_errors(_params(processes=3), default_port=65534) != []


def test_bind_and_interface():
    linux = host_platform.LinuxHost
    assert ca.common_errors(_params(bind='10.201.1.1', nic_interface='lo'), host=linux) == []
    assert 'bind must be' in ca.common_errors(_params(bind='1.1.1.1 && x'))[0]
    errors = ca.common_errors(_params(nic_interface='perflabnope0'), host=linux)
    # the message names the field and the interfaces this host does have
    assert len(errors) == 1 and errors[0].startswith('nic_interface perflabnope0 does not exist on this host (it has: ')
    assert 'lo' in errors[0].split('(it has: ', 1)[1]
    assert ca.common_errors(_params(nic_interface='perflabnope0'), check_interface=False, host=linux) == []
    # without a host (an argument check does no host I/O) only the name's syntax is checked, with the same words
    assert ca.common_errors(_params(nic_interface='perflabnope0')) == []
    for host in (None, linux):
        assert ca.common_errors(_params(nic_interface='../x'), host=host) == [
            'nic_interface must be an interface name (1-15 of letters, digits, "_.:@+-"), got \'../x\'']


def test_existing_interfaces_are_sorted_names(tmp_path):
    for name in ('eth1', 'eth0', 'lo'):
        (tmp_path / name).mkdir()
    assert nic.existing_interfaces(str(tmp_path)) == ['eth0', 'eth1', 'lo']
    assert nic.existing_interfaces(str(tmp_path / 'missing')) == []


def test_labels_refuse_control_characters():
    assert ca.common_errors(_params(config='Debian 12 stock')) == []
    assert ca.common_errors(_params(config='a\nb')) == ['config must not contain control characters']


def test_effective_timeout():
    assert ca.effective_timeout({'duration': 10, 'timeout': None}) == 40
    assert ca.effective_timeout({'duration': 10, 'timeout': None}, extra=3) == 43
    assert ca.effective_timeout({'duration': 10, 'timeout': 7}) == 7


class _FailModule(object):
    def __init__(self, params):
        self.params = params

    def fail_json(self, **kwargs):
        raise RuntimeError(kwargs['msg'])


def test_validate_common_fails_module():
    with pytest.raises(RuntimeError, match='parallel must be between 1 and 128, got 0; server must be'):
        ca.validate_common(_FailModule(_params(parallel=0, server='x;y')))
    ca.validate_common(_FailModule(_params()))  # no failure
