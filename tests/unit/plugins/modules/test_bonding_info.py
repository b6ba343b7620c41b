# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""bonding_info: the members' NetworkManager state, on real nmcli 1.52 output (a VM lab host with
NetworkManager started: eth1 holds an address the lab set at run time, eth2 NetworkManager's own
"Wired connection 2")."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

from ansible_collections.perflab.network.plugins.modules import bonding_info as bi

NMCLI = {
    ('nmcli', '-t', '-f', 'RUNNING', 'general'): (0, 'running\n', ''),
    ('nmcli', '-t', '-f', 'NAME,DEVICE', 'connection', 'show', '--active'):
        (0, 'Wired connection 2:eth2\neth1:eth1\nlo:lo\nperflab-bond0:bond0\n', ''),
    ('nmcli', '-g', 'GENERAL.STATE,GENERAL.CONNECTION', 'device', 'show', 'eth1'):
        (0, '100 (connected (externally))\neth1\n', ''),
    ('nmcli', '-g', 'GENERAL.STATE,GENERAL.CONNECTION', 'device', 'show', 'eth2'):
        (0, '70 (connecting (getting IP configuration))\nWired connection 2\n', ''),
}


class FakeModule(object):
    def __init__(self, answers, bins, tmp_path):
        self.answers, self.bins, self.calls = answers, bins, []
        self.params = dict(members=['eth1', 'eth2'], management_address='', own_prefix='perflab', root_dir=str(tmp_path))

    def get_bin_path(self, name):
        return '/usr/bin/' + name if name in self.bins else None

    def run_command(self, argv, environ_update=None):
        argv = tuple(a.replace('/usr/bin/', '') for a in argv)
        self.calls.append((argv, environ_update))
        return self.answers.get(argv, (1, '', 'not faked'))


def test_a_member_networkmanager_only_found_configured_is_external_not_configured_elsewhere(tmp_path):
    module = FakeModule(NMCLI, {'nmcli'}, tmp_path)
    finder = bi.Finder(module)
    external = finder.nm_external(['eth1', 'eth2'], finder.stacks()['networkmanager']['running'])
    assert external == ['eth1']
    assert finder.member_configs(['eth1', 'eth2'], external) == {'eth1': [], 'eth2': ['NetworkManager profile Wired connection 2']}
    # the state's words are translated: read in the C locale
    states = [env for argv, env in module.calls if 'GENERAL.STATE,GENERAL.CONNECTION' in argv]
    assert states == [{'LC_ALL': 'C'}] * 2


def test_without_networkmanager_running_no_member_is_external(tmp_path):
    stopped = dict(NMCLI)
    stopped[('nmcli', '-t', '-f', 'RUNNING', 'general')] = (0, 'stopped\n', '')
    for answers, bins, members in ((stopped, {'nmcli'}, ['eth1']), (NMCLI, set(), ['eth1']), (NMCLI, {'nmcli'}, [])):
        finder = bi.Finder(FakeModule(answers, bins, tmp_path))
        assert finder.nm_external(members, finder.stacks()['networkmanager']['running']) == []
