# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""The study's design (issue 27, point 1): the order of an interleaved study's blocks (ABBA, seeded random),
the validation of its variables, the plan of one block, the records' design fields and the report saying which
design produced each comparison."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import collections

import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.perflab.network.plugins.filter.study_design import study_design
from ansible_collections.perflab.network.plugins.module_utils.core import record
from ansible_collections.perflab.network.plugins.module_utils.plan import study
from ansible_collections.perflab.network.plugins.module_utils.plan import suite as s
from ansible_collections.perflab.network.plugins.module_utils.report import tables, text

STATES = ['stock', 'tuned']


@pytest.mark.parametrize('repetitions, order', [
    (1, 'AB'), (2, 'ABBA'), (3, 'ABBAAB'), (4, 'ABBAABBA'), (5, 'ABBAABBAAB')])
def test_abba_alternates_and_gives_each_configuration_its_repetitions(repetitions, order):
    blocks = study.design_order(STATES, repetitions)
    assert ''.join('A' if state == 'stock' else 'B' for state in blocks) == order
    assert collections.Counter(blocks) == {'stock': repetitions, 'tuned': repetitions}


def test_abba_balances_a_linear_drift_every_four_blocks():
    # a drift growing by 1 a block adds as much to each side after every 4 blocks: no side is always first
    blocks = study.design_order(STATES, 4)
    drift = dict((state, sum(i for i, b in enumerate(blocks) if b == state)) for state in STATES)
    assert drift['stock'] == drift['tuned']


def test_more_states_go_forward_then_back():
    assert study.design_order(['a', 'b', 'c'], 2) == ['a', 'b', 'c', 'c', 'b', 'a']


def test_a_seeded_random_order_is_reproducible_and_complete():
    first = study.design_order(STATES, 10, order='random', seed=1234)
    assert first == study.design_order(STATES, 10, order='random', seed=1234)
    assert collections.Counter(first) == {'stock': 10, 'tuned': 10}
    # another seed, another order (of the 20 seeds tried, most give an order of their own)
    orders = set(tuple(study.design_order(STATES, 10, order='random', seed=seed)) for seed in range(20))
    assert len(orders) > 15
    assert first != study.design_order(STATES, 10)


def test_the_blocks_run_repetition_n_in_the_nth_block_of_a_configuration():
    blocks = study.design_blocks(STATES, 3)
    assert [(b['block'], b['state'], b['repetition']) for b in blocks] == [
        (1, 'stock', 1), (2, 'tuned', 1), (3, 'tuned', 2), (4, 'stock', 2), (5, 'stock', 3), (6, 'tuned', 3)]
    assert all(b['design'] == 'interleaved' and b['order'] == [x['state'] for x in blocks] and b['seed'] is None
               for b in blocks)
    randomized = study.design_blocks(STATES, 2, order='random', seed=7)
    assert all(b['seed'] == 7 and b['order_name'] == 'random' for b in randomized)
    for state in STATES:
        assert [b['repetition'] for b in randomized if b['state'] == state] == [1, 2]


def test_the_sequential_design_is_one_block_a_configuration_with_every_repetition():
    blocks = study.design_blocks(STATES, 5, design='sequential')
    assert [(b['block'], b['state'], b['repetition'], b['design']) for b in blocks] == [
        (1, 'stock', 0, 'sequential'), (2, 'tuned', 0, 'sequential')]


@pytest.mark.parametrize('kwargs, message', [
    ({'design': 'zigzag'}, 'perflab_design must be one of interleaved, sequential'),
    ({'order': 'abab'}, 'perflab_design_order must be one of abba, random'),
    ({'seed': '-1'}, 'perflab_design_seed must be an integer from 0'),
    ({'seed': 2 ** 31}, 'perflab_design_seed must be an integer from 0'),
    ({'seed': True}, 'perflab_design_seed must be an integer from 0'),
    ({'repetitions': 'auto'}, 'perflab_repetitions auto cannot be interleaved'),
    ({'repetitions': ' AUTO ', 'design': 'interleaved'}, 'perflab_repetitions auto cannot be interleaved'),
])
def test_bad_design_variables_are_refused_each_with_its_rule(kwargs, message):
    problems = study.design_problems(**kwargs)
    assert len(problems) == 1 and message in problems[0], problems


@pytest.mark.parametrize('kwargs', [
    {}, {'design': 'sequential', 'repetitions': 'auto'}, {'design': 'interleaved', 'order': 'random', 'seed': '42'},
    {'repetitions': 3}, {'seed': 0}, {'design': '', 'order': '', 'seed': ''}])
def test_good_design_variables_pass(kwargs):
    assert study.design_problems(**kwargs) == []


def test_the_filter_gives_blocks_or_problems():
    assert [b['state'] for b in study_design(STATES, repetitions='2')] == ['stock', 'tuned', 'tuned', 'stock']
    assert study_design([], problems=True, design='zigzag', repetitions='auto') == [
        "perflab_design must be one of interleaved, sequential, got 'zigzag'"]
    with pytest.raises(AnsibleFilterError, match='perflab_design_order'):
        study_design(STATES, order='abab')


def test_a_block_plans_one_repetition_of_every_test_and_resume_finds_the_rest():
    tests = s.expand_suite({'name': 't', 'tests': [{'tool': 'iperf3', 'test': 'tcp_stream', 'repetitions': 3},
                                                   {'tool': 'netperf', 'test': 'tcp_rr', 'repetitions': 1}]})
    hosts = {'lab1': {'data_address': '10.0.0.1'}, 'lab2': {'data_address': '10.0.0.2'}}
    pairs = s.make_pairs(hosts, servers=['lab1'], clients=['lab2'])
    labels = {'lab2': 'Debian 12 stock'}
    items, skipped = s.build_plan(tests, pairs, labels, repetition=2)
    # a test with fewer repetitions has none in a later block
    assert [(i['test_id'], i['repetition']) for i in items] == [(tests[0]['test_id'], 2)] and skipped == 0
    first, dummy = s.build_plan(tests, pairs, labels, repetition=1)
    done = set(record.run_key(i['config'], i['client'], i['server'], i['test_id'], i['repetition']) for i in first)
    again, skipped = s.build_plan(tests, pairs, labels, done, repetition=1)
    assert again == [] and skipped == 2
    # the block's own repetition only: the other blocks' done runs are not counted as this block's
    later, skipped = s.build_plan(tests, pairs, labels, done, repetition=3)
    assert [i['repetition'] for i in later] == [3] and skipped == 0


def _result(config, design=None, run_id='r1', value=100.0, rep=1):
    rec = {'schema': 'perflab.result/2', 'run_id': run_id, 'config': config, 'test_id': 'iperf3-tcp_stream-p1',
           'tool': 'iperf3', 'test': 'tcp_stream', 'protocol': 'tcp', 'direction': 'client_to_server',
           'parallel': 1, 'repetition': rep, 'status': 'ok', 'client': {'name': 'lab2'}, 'server': {'name': 'lab1'},
           'metrics': {'throughput_mbps': {'value': value, 'unit': 'Mbit/s', 'higher_is_better': True}},
           'primary': 'throughput_mbps'}
    return record.add_design(rec, design) if design else rec


def test_add_design_writes_the_design_fields_once():
    design = {'design': 'interleaved', 'order': STATES + STATES[::-1], 'block': 2, 'seed': None, 'switch_s': '3.14159'}
    rec = _result('a', design)
    assert (rec['design'], rec['design_order'], rec['design_block'], rec['design_seed'], rec['design_switch_s']) == (
        'interleaved', ['stock', 'tuned', 'tuned', 'stock'], 2, None, 3.142)
    # a record that has its design keeps it; no design: as it is
    assert record.add_design(rec, dict(design, block=3))['design_block'] == 2
    assert 'design' not in record.add_design(_result('a'), {}) and 'design' not in record.add_design(_result('a'), None)


def _report(records):
    return tables.Report([('result', r) for r in records], baseline='stock')


def test_the_report_says_which_design_produced_each_comparison():
    order = ['stock', 'tuned', 'tuned', 'stock']
    interleaved = [_result(state, {'design': 'interleaved', 'order': order, 'block': block + 1},
                           value=100 + block, rep=order[:block + 1].count(state))
                   for block, state in enumerate(order)]
    report = _report(interleaved)
    assert report.comparison_design('tuned') == 'interleaved (ABBA)' and report.comparison_design('stock') is None
    assert '"tuned" vs "stock": interleaved (ABBA)' in report.design_note()
    assert report.design_note() in report.summary_notes()
    assert 'interleaved (ABBA)' in text.render(report) and 'interleaved (ABBA)' in text.render_markdown(report)
    seeded = [record.add_design(dict(r, design=None), {'design': 'interleaved', 'order': order, 'block': 1, 'seed': 9})
              for r in interleaved]
    assert _report(seeded).comparison_design('tuned') == 'interleaved (random, seed 9)'
    # one run's halves in the sequential design, separate runs, or records without a design: sequential
    sequential = [_result('stock', {'design': 'sequential', 'order': STATES, 'block': 1}),
                  _result('tuned', {'design': 'sequential', 'order': STATES, 'block': 2})]
    assert _report(sequential).comparison_design('tuned') == 'sequential'
    assert _report([_result('stock', run_id='a'), _result('tuned', run_id='b')]).comparison_design('tuned') == 'sequential'
    # an interleaved baseline against a configuration of another run: that comparison is not interleaved
    mixed = interleaved + [_result('other', run_id='r2')]
    report = tables.Report([('result', r) for r in mixed], baseline='stock')
    assert report.comparison_design('tuned') == 'interleaved (ABBA)' and report.comparison_design('other') == 'sequential'
