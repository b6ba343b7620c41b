# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""lab_preflight.preflight's messages about subnets: they name the field and what is allowed.

The machine's routes, the tools, root and the kernel probe are stubbed: nothing is created."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import ipaddress

import pytest

from ansible_collections.perflab.network.plugins.module_utils.lab import preflight as lab_preflight
from ansible_collections.perflab.network.plugins.module_utils.lab.spec import LabSpec


@pytest.fixture
def quiet_machine(monkeypatch):
    monkeypatch.setattr(lab_preflight.os, 'geteuid', lambda: 0)
    monkeypatch.setattr(lab_preflight.shutil, 'which', lambda tool: '/usr/bin/' + tool)
    monkeypatch.setattr(lab_preflight, 'kernel_problems', lambda: [])
    monkeypatch.setattr(lab_preflight, '_routes', lambda: [(ipaddress.ip_network('10.250.0.0/24'), 'other-br')])


def test_overlapping_mgmt_and_data_subnets_are_refused_saying_they_must_not_overlap(quiet_machine):
    spec = LabSpec(name='t1', mgmt_subnet='10.251.0.0/24', data_subnet='10.251.0.128/25')
    assert lab_preflight.preflight(spec, need_base=False) == [
        'mgmt_subnet 10.251.0.0/24 and data_subnet 10.251.0.128/25 overlap: they must not overlap '
        '(give two disjoint IPv4 networks)']


def test_a_subnet_overlapping_a_route_is_refused(quiet_machine):
    spec = LabSpec(name='t1', mgmt_subnet='10.250.0.0/24', data_subnet='10.251.1.0/24')
    assert lab_preflight.preflight(spec, need_base=False) == [
        "mgmt_subnet 10.250.0.0/24 overlaps this machine's route 10.250.0.0/24 (dev other-br): choose another subnet"]


def test_disjoint_subnets_pass(quiet_machine):
    spec = LabSpec(name='t1', mgmt_subnet='10.251.0.0/24', data_subnet='10.251.1.0/24')
    assert lab_preflight.preflight(spec, need_base=False) == []
