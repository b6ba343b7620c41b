# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The system under test and the configuration labels (module_utils/plan/study.py, the study_label filters)."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json
import os

import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.perflab.network.plugins.filter.study_label import study_label
from ansible_collections.perflab.network.plugins.filter.study_label_problems import study_label_problems
from ansible_collections.perflab.network.plugins.module_utils.plan import study

FACTS = os.path.join(os.path.dirname(__file__), '..', '..', 'fixtures', 'facts')


def facts(name):
    with open(os.path.join(FACTS, name)) as handle:
        return json.load(handle)['ansible_facts']


UBUNTU_1804 = {'distribution': 'Ubuntu', 'distribution_version': '18.04', 'distribution_major_version': '18'}
UBUNTU_1810 = {'distribution': 'Ubuntu', 'distribution_version': '18.10', 'distribution_major_version': '18'}


def test_default_labels_name_the_full_version_the_profile_and_the_group():
    debian = facts('debian-12.json')
    assert study_label(debian) == 'Debian 12.15 stock'
    assert study_label(debian, tuned=True, profile='latency') == 'Debian 12.15 tuned-latency'
    assert study_label(debian, system_label='Server 1', part='base') == 'Server 1 Debian 12.15'
    # Ubuntu 18.04 and 18.10 were both "Ubuntu 18" and pooled
    assert study_label(UBUNTU_1804) != study_label(UBUNTU_1810)
    assert study_label(UBUNTU_1804, tuned=True) == 'Ubuntu 18.04 tuned-throughput'
    expected = {'system_label': '', 'distribution': 'Ubuntu', 'version': '18.04', 'vcpus': '', 'profile': 'stock'}
    assert study_label(UBUNTU_1804, part='identity') == expected
    with pytest.raises(AnsibleFilterError):
        study_label('Ubuntu')


def test_pair_label_is_the_side_under_tests():
    labels = {'c': 'Ubuntu 18.04 stock', 's': 'OSv 0.53 tuned-latency'}
    assert study.pair_label(labels, 'c', 's', 'servers') == 'OSv 0.53 tuned-latency'
    assert study.pair_label(labels, 'c', 's', 'clients') == 'Ubuntu 18.04 stock'
    assert study.pair_label(labels, 'c', 's', 'both') == 'Ubuntu 18.04 stock / OSv 0.53 tuned-latency'
    assert study.pair_label({'c': 'A', 's': 'A'}, 'c', 's', 'both') == 'A'
    assert study.under_test('servers', True, False) and not study.under_test('servers', False, True)
    assert study.under_test('both', False, True) and study.under_test(None, True, False)
    with pytest.raises(ValueError, match="perflab_system_under_test must be one of servers, clients, both, got 'server'"):
        study.pair_label(labels, 'c', 's', 'server')


def test_a_label_shared_by_different_systems_is_refused_with_the_reason():
    def ident(host_facts, group='', tuned=False, profile=''):
        return study_label(host_facts, system_label=group, tuned=tuned, profile=profile, part='identity')

    hosts = {'a': {'label': 'Ubuntu 18', 'identity': ident(UBUNTU_1804)},
             'b': {'label': 'Ubuntu 18', 'identity': ident(UBUNTU_1810)},
             'c': {'label': 'X', 'identity': ident(UBUNTU_1804, 'Server 1')},
             'd': {'label': 'X', 'identity': ident(UBUNTU_1804, 'Server 1')}}
    assert study_label_problems(hosts) == [
        "the label 'Ubuntu 18' would be shared by a and b, which are different systems (version '18.04' vs '18.10'): "
        "give each system its own perflab_config_label, or set perflab_system_label per host group"]
    hosts['d']['identity'] = ident(UBUNTU_1804, 'Server 1', tuned=True, profile='latency')
    assert study_label_problems(hosts)[1].startswith("the label 'X' would be shared by c and d, which are different "
                                                     "systems (profile 'stock' vs 'tuned-latency')")
    # the defaults never collide: they name every part of the identity
    defaults = dict((name, {'label': study_label(f, system_label=g), 'identity': ident(f, g)})
                    for name, f, g in (('a', UBUNTU_1804, ''), ('b', UBUNTU_1810, ''), ('c', UBUNTU_1804, 'Server 1')))
    assert study_label_problems(defaults) == []
    with pytest.raises(AnsibleFilterError):
        study_label_problems({'a': 'x'})


def test_the_vcpu_count_is_named_in_the_label_and_tells_two_systems_apart():
    # the OSv seed's runs: the same system with 1 vCPU and with 4
    osv = {'ansible_distribution': 'OSv', 'ansible_distribution_version': '0.57'}
    assert study_label(osv, vcpus=1) == 'OSv 0.57 1 vCPU stock'
    assert study_label(osv, vcpus='4', part='base', system_label='Guest') == 'Guest OSv 0.57 4 vCPU'
    assert study_label(osv) == 'OSv 0.57 stock'
    hosts = {'a': {'label': 'Same', 'identity': study_label(osv, vcpus=1, part='identity')},
             'b': {'label': 'Same', 'identity': study_label(osv, vcpus=4, part='identity')}}
    assert "vcpus '1 vCPU' vs '4 vCPU'" in study_label_problems(hosts)[0]
    for bad in (0, -1, '2x', 5000, True, 1.5):
        with pytest.raises(AnsibleFilterError, match='perflab_system_vcpus must be a whole number of vCPUs from 1 to 4096'):
            study_label(osv, vcpus=bad)
