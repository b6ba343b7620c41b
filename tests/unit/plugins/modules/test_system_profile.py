# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json
import os

import pytest

from ansible.module_utils.testing import patch_module_args

from ansible_collections.perflab.network.plugins.module_utils.host import sysprofile
from ansible_collections.perflab.network.plugins.modules import system_profile


def run_module(args, capsys, check_mode=False):
    if check_mode:
        args = dict(args, _ansible_check_mode=True)
    with patch_module_args(args):
        with pytest.raises(SystemExit):
            system_profile.main()
    return json.loads(capsys.readouterr().out)


def test_profile_of_this_host(capsys):
    result = run_module({'interface': 'lo', 'config': 'Debian 12 stock', 'run_id': '20261129T184000Z-ab12',
                         'host_name': 'lab1'}, capsys)
    assert result['changed'] is False
    profile = result['perflab_system']
    assert profile['schema'] == 'perflab.system/1'
    assert (profile['run_id'], profile['config'], profile['host']) == ('20261129T184000Z-ab12', 'Debian 12 stock',
                                                                       'lab1')
    assert profile['collected_at'].endswith('Z')
    assert set(profile['table']) == set(sysprofile.TABLE_FIELDS)
    assert profile['table']['Kernel'] == '%s (%s)' % (os.uname()[2], os.uname()[4])
    network = profile['network']
    assert network['interface'] == 'lo'
    assert network['mtu'] == int(open('/sys/class/net/lo/mtu').read())
    assert set(network['sysctls']) == set(sysprofile.NETWORK_SYSCTLS)
    with open('/proc/sys/net/ipv4/tcp_congestion_control') as handle:
        assert network['congestion_control'] == handle.read().strip()


def test_check_mode_collects_too(capsys):
    result = run_module({'interface': 'lo'}, capsys, check_mode=True)
    assert result['perflab_system']['network']['interface'] == 'lo'
    assert result['perflab_system']['run_id']


def test_no_tools_installed(capsys, monkeypatch):
    monkeypatch.setattr(system_profile.process, 'which', lambda tool: None)
    result = run_module({'interface': 'lo'}, capsys)
    profile = result['perflab_system']
    assert profile['table']['Compiler'] == 'unknown'
    assert profile['network']['offloads'] is None
    assert profile['network']['qdisc'] is None


def test_run_tool_absent_and_present(monkeypatch):
    monkeypatch.setattr(system_profile.process, 'which', lambda tool: None)
    assert system_profile.run_tool(['ethtool', '-k', 'lo']) is None


@pytest.mark.parametrize('interface, message', [
    ('h2-nonexistent', 'interface h2-nonexistent does not exist on this host'),
    ('eth0; reboot', 'interface must be an interface name'),
])
def test_bad_interface(capsys, interface, message):
    result = run_module({'interface': interface}, capsys)
    assert result['failed'] is True
    assert message in result['msg']
