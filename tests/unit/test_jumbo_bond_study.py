# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The jumbo-bond study changes one thing by default, as the seed did (issue #28.4).

The seed kept the bond and changed only the MTU (4.87 -> 9.08 Gbit/s). The study's configurations come
from module_utils/plan/study.py (bond_study); here the study's own task file and stages are templated with
ansible-core's Templar over a VM lab host's variables (its perflab_bond as the lab writes it: apply
tuned, MTU 9000), so what is asserted is what the playbook does by default, not only what the function can do.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

from pathlib import Path

import pytest
import yaml
from ansible.errors import AnsibleError
from ansible.parsing.dataloader import DataLoader
from ansible.template import Templar

from ansible_collections.perflab.network.plugins.filter.study_bond import study_bond
from ansible_collections.perflab.network.plugins.module_utils.plan import study

try:
    from ansible.template import trust_as_template   # ansible-core 2.19+: only trusted text is templated
except ImportError:  # pragma: no cover - older ansible-core templates any text
    def trust_as_template(text):
        return text

ROOT = Path(__file__).resolve().parents[2]
PLAYBOOK = ROOT / 'playbooks' / 'studies' / 'jumbo-bond.yml'
TASKS = ROOT / 'playbooks' / 'tasks' / 'jumbo_bond.yml'
STAGE = ROOT / 'playbooks' / 'stages' / 'stock_vs_tuned.yml'
SYSTEMS = ROOT / 'playbooks' / 'stages' / 'validate_systems.yml'
# a VM lab host (roles/lab/templates/hosts.yml.j2 with LAB_VM_BOND=balance-alb)
LAB_BOND = {'name': 'bond0', 'members': ['eth1', 'eth2'], 'mode': 'balance-alb', 'mtu': 9000,
            'address': '10.224.1.11/24', 'apply': 'tuned'}
HOST = {'inventory_hostname': 'lab1', 'perflab_data_interface': 'eth1', 'perflab_data_mtu': 1500,
        'perflab_bond': LAB_BOND}


def render(template, variables):
    templar = Templar(loader=DataLoader(), variables=variables)
    # the task file calls perflab.network.study_bond; the unit tests import the collection from .collections
    # (pytest.ini) without Ansible's collection loader, so the filter is handed to the template engine
    templar._engine.environment.filters['perflab.network.study_bond'] = study_bond
    return templar.template(trust_as_template(template))


def study_of(**extra):
    """What the study's task file sets on the host: its __study, templated as the playbook templates it."""
    tasks = yaml.safe_load(TASKS.read_text())
    return render(tasks[0]['vars']['__study'], dict(HOST, **extra))


def differences(result):
    stock, tuned = result['configurations']['stock'], result['configurations']['tuned']
    return sorted(key for key in stock if stock[key] != tuned[key])


def test_the_study_runs_the_task_file_and_applies_no_tuning_profile():
    plays = yaml.safe_load(PLAYBOOK.read_text())
    assert plays[0]['tasks'][0]['ansible.builtin.include_tasks'] == '../tasks/jumbo_bond.yml'
    assert plays[0]['any_errors_fatal'] is True
    assert plays[1]['ansible.builtin.import_playbook'] == '../stock_vs_tuned.yml'
    assert plays[1]['vars']['stage_apply_tuning'] is False
    assert 'perflab_jumbo_bond_change' not in plays[1]['vars']  # the default is the task file's, -e changes it
    # the header documents the variable and both forms
    header = PLAYBOOK.read_text().split('\n- name:')[0]
    assert 'perflab_jumbo_bond_change' in header and 'link_and_mtu' in header and 'mtu (the default' in header


def test_by_default_only_the_mtu_changes_the_bond_is_in_both_configurations():
    result = study_of()
    assert differences(result) == ['mtu']
    assert result['configurations'] == {'stock': {'interface': 'bond0', 'links': 2, 'mtu': 1500},
                                        'tuned': {'interface': 'bond0', 'links': 2, 'mtu': 9000}}
    # the bond is built before the stock run at the stock MTU; the tuned run raises it to perflab_tuned_mtu
    assert result['bond'] == dict(LAB_BOND, apply='both', mtu=1500)
    assert result['tuned_mtu'] == 9000
    assert result['states'] == {'stock': 'bond MTU 1500', 'tuned': 'bond MTU 9000'}


def test_the_two_change_form_is_an_option_and_its_labels_say_both_changes():
    result = study_of(perflab_jumbo_bond_change='link_and_mtu')
    assert differences(result) == ['interface', 'links', 'mtu']
    assert result['bond'] == dict(LAB_BOND, apply='tuned', mtu=9000)
    assert result['states'] == {'stock': '1 link MTU 1500', 'tuned': 'bond MTU 9000'}


def test_a_host_without_a_bond_and_another_jumbo_mtu():
    result = study_of(perflab_bond=None, perflab_tuned_mtu=4000)
    assert result['bond'] is None and differences(result) == ['mtu']
    assert result['states'] == {'stock': '1 link MTU 1500', 'tuned': '1 link MTU 4000'}


@pytest.mark.parametrize('extra, message', [
    ({'perflab_jumbo_bond_change': 'both'}, "perflab_jumbo_bond_change must be one of mtu, link_and_mtu, got 'both'"),
    ({'perflab_tuned_mtu': 1500}, 'perflab_tuned_mtu (1500) must differ from the stock MTU'),
    ({'perflab_tuned_mtu': 20000}, 'perflab_tuned_mtu must be an MTU from 68 to 9216, got 20000'),
    ({'perflab_data_mtu': 'x'}, "the stock MTU (perflab_data_mtu) must be an MTU from 68 to 9216, got 'x'"),
    ({'perflab_bond': 'bond0'}, "perflab_bond must be a mapping, got 'bond0'"),
])
def test_bad_study_values_are_refused_naming_the_variable(extra, message):
    with pytest.raises(AnsibleError, match='jumbo-bond study: ' + message.replace('(', r'\(').replace(')', r'\)')):
        study_of(**extra)


def test_the_filter_reads_string_mtus_from_the_inventory():
    assert study_bond(LAB_BOND, 'mtu', '1500', '9000')['states'] == {'stock': 'bond MTU 1500', 'tuned': 'bond MTU 9000'}
    assert study.bond_study(None)['configurations']['stock'] == {'interface': '', 'links': 1, 'mtu': 1500}


def _stage_vars(path):
    play = yaml.safe_load(path.read_text())[0]
    return dict((name, trust_as_template(value) if isinstance(value, str) else value) for name, value in play['vars'].items())


@pytest.mark.parametrize('names, stock, tuned', [
    (None, 'stock', 'tuned-throughput'),     # every other study: stock and tuned-<profile>
    ({'stock': 'bond MTU 1500', 'tuned': 'bond MTU 9000'}, 'bond MTU 1500', 'bond MTU 9000'),
])
def test_the_stage_labels_the_runs_with_the_study_states(names, stock, tuned):
    variables = dict(_stage_vars(STAGE), inventory_hostname='lab1', groups={'perflab_clients': ['lab1']},
                     perflab_system_under_test='both')
    if names:
        variables['stage_state_names'] = names
    assert render('{{ __states.stock }}|{{ __tuned_state }}', variables) == '%s|%s' % (stock, tuned)
    # each block of the study (playbooks/tasks/study_block.yml) runs the suite labelled with its state
    block_tasks = yaml.safe_load((ROOT / 'playbooks' / 'tasks' / 'study_block.yml').read_text())
    run = [task for task in block_tasks if task.get('ansible.builtin.include_tasks') == 'run_suite.yml'][0]
    labels = [render(run['vars']['benchmark_config_label'],
                     dict(variables, __base_label='Debian 12.15', __stage_block={'state': state}))
              for state in ('stock', 'tuned')]
    assert labels == ['Debian 12.15 ' + stock, 'Debian 12.15 ' + tuned]
    # validate_systems names the labels it checks with the same states
    systems = dict(_stage_vars(SYSTEMS), **{key: value for key, value in variables.items() if key == 'stage_state_names'})
    assert render('{{ __states.stock }}|{{ __states.tuned }}', systems) == '%s|%s' % (stock, tuned)


@pytest.mark.parametrize('apply_tuning, applied', [(None, True), (False, False)])
def test_the_tuned_configuration_applies_the_tuning_profile_unless_the_study_says_not(apply_tuning, applied):
    tasks = yaml.safe_load((ROOT / 'playbooks' / 'tasks' / 'configure_tuned.yml').read_text())
    tuning = [task for task in tasks if task.get('ansible.builtin.include_role', {}).get('name') == 'perflab.network.tuning'][0]
    variables = {'inventory_hostname': 'lab1', 'groups': {'perflab_clients': ['lab1']}}
    if apply_tuning is not None:
        variables['stage_apply_tuning'] = apply_tuning
    assert render('{{ %s }}' % tuning['when'], variables) is applied
