# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The AWX surveys and job templates (awx/vars/templates.yml) against the study
playbooks' contract: playbooks/vars/study_argument_spec.yml (types, choices,
defaults) and playbooks/vars/study_ranges.yml (integer ranges).

Values are checked with ansible-core's own ArgumentSpecValidator, the validator
behind ansible.builtin.validate_argument_spec that the playbooks run.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from ansible.module_utils.common.arg_spec import ArgumentSpecValidator

ROOT = Path(__file__).resolve().parents[2]
SPEC = yaml.safe_load((ROOT / 'playbooks' / 'vars' / 'study_argument_spec.yml').read_text())['argument_specs']['study']['options']
RANGES = yaml.safe_load((ROOT / 'playbooks' / 'vars' / 'study_ranges.yml').read_text())['perflab_ranges']
AWX = yaml.safe_load((ROOT / 'awx' / 'vars' / 'templates.yml').read_text())
JOB_TEMPLATES = AWX['perflab_awx_job_templates']
WORKFLOW = AWX['perflab_awx_workflow']

# survey question type -> argument spec type it may set
SURVEY_TYPES = {
    'text': 'str', 'textarea': 'str', 'password': 'str', 'multiplechoice': 'str',
    'integer': 'int', 'float': 'float', 'multiselect': 'list',
}
# study variables whose spec takes more than a survey question can ask (type raw): the survey asks the
# integer form, the command line may give the rest
ASKED_AS_INTEGER = {'perflab_repetitions': 'also `auto` (docs/studies.md), which the integer question cannot ask'}
QUESTION_KEYS = {'question_name', 'question_description', 'variable', 'type', 'required', 'default', 'min', 'max', 'choices'}
IPV4_MIN_MTU = 68  # the one rule of perflab_tuned_mtu beyond its range: 0, or at least 68


def surveys():
    """(owner, survey) of every non-empty survey that awx/configure.yml sends."""
    found = [(jt['name'], jt['survey_spec']) for jt in JOB_TEMPLATES if jt['survey_spec']]
    found.append((WORKFLOW['name'], WORKFLOW['survey_spec']))
    return found


def questions():
    return [pytest.param(owner, q, id='%s:%s' % (owner, q.get('variable'))) for owner, s in surveys() for q in s['spec']]


def spec_accepts(variable, value):
    """What validate_argument_spec says of this one value, plus the range of study_ranges.yml."""
    result = ArgumentSpecValidator({variable: SPEC[variable]}).validate({variable: value})
    if result.error_messages:
        return False
    value = result.validated_parameters[variable]
    if variable in RANGES:
        low, high = RANGES[variable]
        if not low <= value <= high:
            return False
    if variable == 'perflab_tuned_mtu' and 0 < value < IPV4_MIN_MTU:
        return False
    return True


def test_every_survey_is_well_formed():
    assert len(surveys()) == 4  # perflab stock, perflab tuned, perflab fleet, the workflow
    for owner, survey in surveys():
        assert survey['name'] and survey['description'], owner
        variables = [q['variable'] for q in survey['spec']]
        assert len(variables) == len(set(variables)), '%s asks for a variable twice: %s' % (owner, variables)


@pytest.mark.parametrize('owner,question', questions())
def test_question_maps_to_a_study_variable(owner, question):
    assert set(question) <= QUESTION_KEYS, 'unknown keys %s' % (set(question) - QUESTION_KEYS)
    assert question['question_name'] and isinstance(question['required'], bool)
    variable = question['variable']
    assert variable in SPEC, '%s: %s is not in study_argument_spec.yml' % (owner, variable)
    spec = SPEC[variable]
    asked_type = 'raw' if variable in ASKED_AS_INTEGER and question['type'] == 'integer' else SURVEY_TYPES[question['type']]
    assert asked_type == spec['type'], \
        '%s: question type %s cannot set a %s' % (variable, question['type'], spec['type'])

    # choices: the same list, in a multiple choice question
    if 'choices' in spec:
        assert question['type'] in ('multiplechoice', 'multiselect'), '%s has choices: ask with a choice list' % variable
        assert question['choices'] == spec['choices']
        assert not spec_accepts(variable, 'not-one-of-the-choices')
    else:
        assert 'choices' not in question, '%s: the spec takes any value, the survey must not restrict it' % variable
    for choice in question.get('choices', []):
        assert spec_accepts(variable, choice), choice

    # the default: the spec's, and one the playbooks accept
    if 'default' in question:
        if 'default' in spec:
            assert question['default'] == spec['default'], variable
        assert spec_accepts(variable, question['default']), question['default']
    elif question['required']:
        pytest.fail('%s: a required question without a default forces an answer the spec does not ask for' % variable)


@pytest.mark.parametrize('owner,question', [p for p in questions() if p.values[1]['type'] in ('integer', 'float')])
def test_numeric_question_has_the_study_range(owner, question):
    variable = question['variable']
    assert variable in RANGES, '%s has no range in study_ranges.yml' % variable
    low, high = RANGES[variable]
    assert (question['min'], question['max']) == (low, high), '%s: survey range differs from study_ranges.yml' % variable
    # the bounds pass validate_argument_spec and the range check; one step outside does not
    assert spec_accepts(variable, low) and spec_accepts(variable, high)
    assert not spec_accepts(variable, low - 1) and not spec_accepts(variable, high + 1)
    if 'default' in question:
        assert low <= question['default'] <= high


@pytest.mark.parametrize('owner,question', [p for p in questions() if p.values[1]['type'] in ('text', 'textarea')])
def test_text_question_length_bounds(owner, question):
    assert isinstance(question['min'], int) and isinstance(question['max'], int)
    assert 0 <= question['min'] <= question['max']
    if not question['required']:
        # the controller checks the length of an optional answer left empty too
        assert question['min'] == 0, '%s: an optional answer may be empty' % question['variable']
    if 'default' in question:
        assert question['min'] <= len(question['default']) <= question['max']


def test_ranges_belong_to_integer_study_variables():
    for variable, bounds in RANGES.items():
        assert SPEC[variable]['type'] == ('raw' if variable in ASKED_AS_INTEGER else 'int'), variable
        assert len(bounds) == 2 and bounds[0] <= bounds[1], variable
    unbounded = [v for v, s in SPEC.items() if s['type'] == 'int' and v not in RANGES]
    assert unbounded == []


def test_same_question_is_asked_the_same_way_everywhere():
    seen = {}
    for owner, survey in surveys():
        for q in survey['spec']:
            assert seen.setdefault(q['variable'], q) == q, '%s asks %s differently' % (owner, q['variable'])


def test_workflow_survey_leaves_per_node_variables_to_the_nodes():
    # workflow answers reach every node: one label would name stock and tuned alike
    variables = {q['variable'] for q in WORKFLOW['survey_spec']['spec']}
    assert 'perflab_config_label' not in variables
    assert variables >= {'perflab_suite', 'perflab_duration', 'perflab_repetitions', 'perflab_tuning_profile', 'perflab_tuned_mtu',
                         'perflab_system_under_test'}


# the study variables no survey asks, and why; every other one is asked somewhere
NOT_ASKED = {
    'perflab_profile': 'fixed by each template (extra_vars): stock or tuned',
    'perflab_firewall_backend': "per host: auto finds each host's own; the inventory sets one that differs",
    'perflab_keep_tuned': 'stock_vs_tuned.yml only; the templates run benchmark.yml and the workflow reverts',
    'perflab_restore_leftovers': 'what a killed job left is put back by the revert template, which names it first',
    'perflab_run_id': 'one answer would reach both workflow nodes; each job starts a run of its own',
    'perflab_run_ids': 'handed down by the workflow nodes (artifacts), not a user answer',
    'perflab_repetitions_auto': 'the rule of auto repetitions, a mapping: no survey question type holds one',
    # the templates run benchmark.yml, one configuration each: nothing to interleave
    'perflab_design': 'stock_vs_tuned.yml only; the templates run benchmark.yml (one configuration a job)',
    'perflab_design_order': 'stock_vs_tuned.yml only; the templates run benchmark.yml (one configuration a job)',
    'perflab_design_seed': 'stock_vs_tuned.yml only; the templates run benchmark.yml (one configuration a job)',
    'perflab_results_dir': 'the results credential injects PERFLAB_RESULTS_DIR (docs/awx.md)',
    # AWX sends a blank optional answer too ("" or null), and a survey answer wins over the
    # inventory for every host: the question would erase the per host group labels it is for
    'perflab_system_label': "per host group in the inventory ('Server 1', 'Server 2'); one answer would replace them all",
}
# what the stock and tuned runs must share or their records do not pair up: which side
# is tuned and labelled (the system label, which both default labels start with, comes from
# the inventory: NOT_ASKED)
SYSTEM = {'perflab_system_under_test'}


def test_every_study_variable_a_user_sets_is_asked():
    asked = {q['variable'] for dummy, survey in surveys() for q in survey['spec']}
    assert set(NOT_ASKED) <= set(SPEC), 'NOT_ASKED names variables the spec no longer has'
    assert not asked & set(NOT_ASKED), asked & set(NOT_ASKED)
    assert set(SPEC) - set(NOT_ASKED) - asked == set(), 'asked by no survey (add a question or a reason)'
    for jt in JOB_TEMPLATES:
        if jt['survey_spec']:
            assert 'perflab_profile' in jt['extra_vars'], jt['name']


def test_stock_tuned_and_the_workflow_ask_the_system_under_test():
    # a fleet labels and changes no side: every host is a sender and a receiver
    owners = {owner: {q['variable'] for q in survey['spec']} for owner, survey in surveys() if owner != 'perflab fleet'}
    assert set(owners) == {'perflab stock', 'perflab tuned', WORKFLOW['name']}
    for owner, variables in owners.items():
        assert SYSTEM <= variables, '%s does not ask %s' % (owner, SYSTEM - variables)
    asked = {q['variable']: q for dummy, survey in surveys() for q in survey['spec']}
    side = asked['perflab_system_under_test']
    # one choice a run, 'both' as before
    assert (side['type'], side['required'], side['default']) == ('multiplechoice', True, 'both')
    assert not spec_accepts('perflab_system_under_test', 'server')


def test_job_templates_run_existing_playbooks_that_validate_their_survey():
    assert [jt['name'] for jt in JOB_TEMPLATES] == [
        'perflab stock', 'perflab tuned', 'perflab fleet', 'perflab revert', 'perflab report']
    for jt in JOB_TEMPLATES:
        playbook = ROOT / jt['playbook']
        assert playbook.is_file(), '%s runs %s, which does not exist' % (jt['name'], jt['playbook'])
        if jt['survey_spec']:
            assert 'validate_study.yml' in playbook.read_text(), '%s does not validate the study variables' % jt['playbook']


@pytest.mark.parametrize('jt', JOB_TEMPLATES, ids=lambda jt: jt['name'])
def test_fixed_extra_vars_are_study_variables(jt):
    for variable, value in jt['extra_vars'].items():
        assert variable in SPEC, (
            '%s sets %s, which playbooks/vars/study_argument_spec.yml does not declare' % (jt['name'], variable))
        assert spec_accepts(variable, value), '%s: %s=%r is refused by the spec' % (jt['name'], variable, value)


def test_workflow_graph():
    nodes = {n['identifier']: n for n in WORKFLOW['workflow_nodes']}
    names = {jt['name'] for jt in JOB_TEMPLATES}
    for node in nodes.values():
        ujt = node['unified_job_template']
        assert ujt['type'] == 'job_template' and ujt['name'] in names
        assert ujt['organization'] == {'name': '{{ perflab_awx_organization }}'}
        for kind in ('success_nodes', 'failure_nodes', 'always_nodes'):
            for child in node['related'][kind]:
                assert set(child) == {'identifier'} and child['identifier'] in nodes

    def children(identifier, kind):
        return [c['identifier'] for c in nodes[identifier]['related'][kind]]

    template = {i: n['unified_job_template']['name'] for i, n in nodes.items()}
    assert template == {'stock': 'perflab stock', 'tuned': 'perflab tuned',
                        'report': 'perflab report', 'revert': 'perflab revert'}
    # the happy path, and revert after every failure that may leave a host tuned
    assert children('stock', 'success_nodes') == ['tuned']
    assert children('tuned', 'success_nodes') == ['report']
    assert children('report', 'always_nodes') == ['revert']
    assert children('stock', 'failure_nodes') == ['revert']
    assert children('tuned', 'failure_nodes') == ['revert']
    assert children('revert', 'success_nodes') + children('revert', 'failure_nodes') + children('revert', 'always_nodes') == []
    # revert has three parents: any one must start it
    assert nodes['revert']['all_parents_must_converge'] is False
    roots = set(nodes) - {c for i in nodes for k in ('success_nodes', 'failure_nodes', 'always_nodes') for c in children(i, k)}
    assert roots == {'stock'}


def test_fleet_workflow_slices_the_fleet_then_reports_every_slice():
    fleet = {jt['name']: jt for jt in JOB_TEMPLATES}['perflab fleet']
    # sliced by the setting; the inventory's perflab_fleet says the schedule and the slices
    assert fleet['job_slice_count'] == '{{ perflab_awx_fleet_slices }}' and fleet['playbook'] == 'playbooks/benchmark.yml'
    settings = yaml.safe_load((ROOT / 'awx' / 'vars' / 'settings.yml').read_text())
    assert settings['perflab_awx_fleet_slices'] >= 2
    nodes = {n['identifier']: n for n in AWX['perflab_awx_fleet_workflow']['workflow_nodes']}
    template = {i: n['unified_job_template']['name'] for i, n in nodes.items()}
    assert template == {'fleet': 'perflab fleet', 'report': 'perflab report'}
    # the report whatever the slices' jobs ended with (a host left out fails its slice's job, its results kept)
    assert nodes['fleet']['related']['always_nodes'] == [{'identifier': 'report'}]
    assert all(not nodes[i]['related'][k] for i in nodes for k in ('success_nodes', 'failure_nodes'))


def test_configure_playbook_uses_these_definitions():
    text = (ROOT / 'awx' / 'configure.yml').read_text()
    for needle in ('vars/templates.yml', 'loop: "{{ perflab_awx_job_templates }}"',
                   'survey_spec: "{{ item.survey_spec }}"', 'workflow_nodes: "{{ perflab_awx_workflow.workflow_nodes }}"',
                   'survey_spec: "{{ perflab_awx_workflow.survey_spec }}"',
                   'workflow_nodes: "{{ perflab_awx_fleet_workflow.workflow_nodes }}"',
                   'job_slice_count: "{{ item.job_slice_count | default(1) }}"'):
        assert needle in text
    # no secret in the repository: the controller's address and login come from
    # the environment, the only key material is read from a file given at run time
    for option in ('controller_host', 'controller_username', 'controller_password', 'controller_oauthtoken'):
        assert option not in text
    keys = re.findall(r"ssh_key_data.{0,80}", text)
    assert keys and all(k.startswith("ssh_key_data': lookup('ansible.builtin.file', perflab_awx_machine_ssh_key_file)") for k in keys)
