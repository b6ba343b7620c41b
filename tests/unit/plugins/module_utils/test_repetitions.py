# -*- coding: utf-8 -*-
from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json

import pytest

from ansible_collections.perflab.network.plugins.module_utils.plan import records as plan_records
from ansible_collections.perflab.network.plugins.module_utils.plan import repetitions as r
from ansible_collections.perflab.network.plugins.module_utils.core import statistics
from ansible_collections.perflab.network.plugins.module_utils.plan import suite as s
from ansible_collections.perflab.network.plugins.module_utils.report import stats
from ansible_collections.perflab.network.plugins.module_utils.report import store

RULE = {'min': 3, 'max': 10, 'ci_percent': 5.0}
HOSTS = {'lab1': {'data_address': '10.0.1.11', 'data_interface': 'data0'},
         'lab2': {'data_address': '10.0.1.12', 'data_interface': 'data0', 'peer': 'lab1'}}
AUTO_SUITE = {'name': 'a', 'tests': [{'tool': 'iperf3', 'test': 'tcp_stream', 'repetitions': 'auto'},
                                     {'tool': 'netperf', 'test': 'tcp_rr', 'repetitions': 2}]}


def test_the_report_and_the_rule_share_one_interval():
    # one copy of the math: the report's stats are the lower module's functions
    assert stats.mean_interval is statistics.mean_interval and stats.student_t_quantile is statistics.student_t_quantile
    values = [100.0, 104.0, 96.0, 102.0]
    low, high = statistics.mean_interval(values)
    assert r.ci_half_percent(values) == pytest.approx((high - low) / 2 / 100.5 * 100)


@pytest.mark.parametrize('values, stop, reason', [
    ([], False, '0 of at least 3 runs'),
    ([100.0], False, '1 of at least 3 runs'),
    # fewer than min never stop on a narrow interval
    ([100.0, 100.0], False, '2 of at least 3 runs'),
    # identical values: an interval of width 0, stop at the minimum
    ([100.0, 100.0, 100.0], True, 'ci 0.0 % <= 5 % after 3 runs'),
    ([100.0, 101.0, 99.0, 100.0], True, 'ci 1.3 % <= 5 % after 4 runs'),
    ([100.0, 130.0, 70.0], False, 'ci 74.5 % > 5 % after 3 runs'),
    ([100.0, 130.0, 70.0, 100.0, 130.0, 70.0, 100.0, 130.0, 70.0, 100.0], True, 'maximum 10 reached, ci 17.5 %'),
    # a mean of 0 has no share: no interval, on to the maximum
    ([0.0, 0.0, 0.0], False, 'ci undefined (mean 0) > 5 % after 3 runs'),
    ([0.0] * 10, True, 'maximum 10 reached, ci undefined (mean 0)'),
    ([1.0, -1.0, 1.0, -1.0], False, 'ci undefined (mean 0) > 5 % after 4 runs'),
    # a failed run stops the test, before the minimum too
    ([100.0, None], True, 'a run failed (run 2 of at most 10)'),
    ([None], True, 'a run failed (run 1 of at most 10)'),
])
def test_the_stop_rule(values, stop, reason):
    decision = r.decide(values, RULE)
    assert (decision['stop'], decision['reason']) == (stop, reason)
    assert decision['runs'] == len(values)


def test_the_rule_stops_exactly_at_the_share():
    values = [100.0, 102.0, 98.0]
    share = r.ci_half_percent(values)
    assert r.decide(values, dict(RULE, ci_percent=share))['stop']
    assert not r.decide(values, dict(RULE, ci_percent=share * 0.999))['stop']


@pytest.mark.parametrize('rule, message', [
    ({'min': 1}, 'min must be an integer from 2 to 100'),
    ({'max': 101}, 'max must be an integer from 2 to 100'),
    ({'min': 'three'}, 'min must be an integer'),
    ({'min': 2.5}, 'min must be an integer'),
    ({'min': True}, 'min must be an integer'),
    ({'min': 5, 'max': 4}, 'min 5 is more than max 4'),
    ({'ci_percent': 0}, 'ci_percent must be a number above 0'),
    ({'ci_percent': -5}, 'ci_percent must be a number above 0'),
    ({'ci_percent': 150}, 'at most 100'),
    ({'ci_percent': 'x'}, 'ci_percent must be a number'),
    ({'confidence': 99}, "unknown key 'confidence'"),
    ('five', 'must be a mapping'),
])
def test_bad_rules_are_refused_naming_the_key(rule, message):
    assert any(message in problem for problem in r.rule_problems(rule))
    if isinstance(rule, dict):
        with pytest.raises(ValueError, match=message.replace('(', r'\(')):
            r.make_rule(rule)


def test_layers_make_one_rule_and_refuse_min_above_a_later_max():
    assert r.make_rule() == RULE
    assert r.make_rule({'min': 4}, 'auto', None, {'ci_percent': '2.5'}) == {'min': 4, 'max': 10, 'ci_percent': 2.5}
    with pytest.raises(ValueError, match='min 4 is more than max 3'):
        r.make_rule({'min': 4}, {'max': 3})


def test_auto_expands_up_to_the_maximum_with_its_rule():
    tests = s.expand_suite(AUTO_SUITE)
    assert [(t['repetitions'], t['repetitions_auto']) for t in tests] == [(10, RULE), (2, None)]
    # the override: auto for every test, the role's rule winning over the suite's mapping
    suite = {'name': 'a', 'tests': [{'tool': 'iperf3', 'test': 'tcp_stream', 'repetitions': {'min': 4, 'max': 6}}]}
    assert s.expand_suite(suite)[0]['repetitions_auto'] == {'min': 4, 'max': 6, 'ci_percent': 5.0}
    tests = s.expand_suite(suite, repetitions_auto={'max': 8, 'ci_percent': 2})
    assert (tests[0]['repetitions'], tests[0]['repetitions_auto']) == (8, {'min': 4, 'max': 8, 'ci_percent': 2.0})
    tests = s.expand_suite(AUTO_SUITE, repetitions='AUTO', repetitions_auto={'min': 2, 'max': 5})
    assert [t['repetitions'] for t in tests] == [5, 5]
    assert s.expand_suite(AUTO_SUITE, repetitions=3)[0]['repetitions_auto'] is None
    items, skipped = s.build_plan(s.expand_suite(AUTO_SUITE), s.make_pairs(HOSTS, servers=['lab1'], clients=['lab2']),
                                  {'lab2': 'L'})
    assert skipped == 0 and len(items) == 12
    assert all(i['repetitions_earlier'] == [] for i in items if i['tool'] == 'iperf3')
    assert all('repetitions_earlier' not in i for i in items if i['tool'] == 'netperf')


@pytest.mark.parametrize('kwargs, suite, message', [
    ({'repetitions': 'often'}, AUTO_SUITE, 'override: repetitions must be an integer from 1 to 100'),
    ({'repetitions_auto': {'min': 1}}, AUTO_SUITE, 'override: repetitions_auto: min must be an integer from 2'),
    ({'repetitions_auto': {'ci_percent': 0}}, AUTO_SUITE, 'ci_percent must be a number above 0'),
    ({'repetitions_auto': {'min': 6, 'max': 5}}, AUTO_SUITE, 'min 6 is more than max 5'),
    ({}, {'name': 'a', 'tests': [{'tool': 'iperf3', 'test': 'tcp_stream', 'repetitions': {'max': 1}}]},
     'suite a test 1: repetitions: max must be an integer from 2 to 100'),
    ({}, {'name': 'a', 'defaults': {'repetitions': {'mni': 3}}, 'tests': [{'tool': 'iperf3', 'test': 'tcp_stream'}]},
     "suite a defaults: repetitions: unknown key 'mni'"),
    # min of the suite above the role's max: caught when the layers meet
    ({'repetitions_auto': {'max': 3}}, {'name': 'a', 'tests': [{'tool': 'iperf3', 'test': 'tcp_stream',
                                                                'repetitions': {'min': 5}}]}, 'min 5 is more than max 3'),
])
def test_bad_auto_settings_refuse_the_plan(kwargs, suite, message):
    with pytest.raises(s.PlanError, match=message):
        s.expand_suite(suite, **kwargs)


def _record(value, rep, status='ok', test_id='iperf3/tcp_stream/parallel=1', auto=None):
    rec = {'schema': 'perflab.result/2', 'status': status, 'config': 'L', 'client': {'name': 'lab2'},
           'server': {'name': 'lab1'}, 'test_id': test_id, 'repetition': rep, 'primary': 'throughput_mbps',
           'metrics': {'throughput_mbps': {'value': value, 'unit': 'Mbit/s'}} if status == 'ok' else {}}
    if auto is not None:
        rec['repetitions_auto'] = auto
    return rec


def _auto_items():
    tests = s.expand_suite(AUTO_SUITE, tools=['iperf3'])
    tests[0]['test_id'] = 'iperf3/tcp_stream/parallel=1'
    return tests, s.make_pairs(HOSTS, servers=['lab1'], clients=['lab2'])


def test_the_next_repetition_runs_while_the_rule_says_so():
    tests, pairs = _auto_items()
    items, _skipped = s.build_plan(tests, pairs, {'lab2': 'L'})
    other = _record(5.0, 1, test_id='iperf3/udp_stream/parallel=1')
    assert r.next_run(items[0], [])['run']
    done = [other, _record(100.0, 1), _record(100.0, 2)]
    assert r.next_run(items[2], done) == {'run': True, 'earlier': [100.0, 100.0], 'reason': '2 of at least 3 runs'}
    done.append(_record(100.0, 3))
    assert not r.next_run(items[3], done)['run']
    # a failed run stops its test
    assert r.next_run(items[2], [_record(100.0, 1), _record(None, 2, 'failed')])['reason'].startswith('a run failed')
    # a fixed test always runs
    assert r.next_run({'repetitions_auto': None}, done)['run']


def test_every_record_says_the_rule_and_the_last_why_it_stopped():
    rec = r.annotate(_record(100.0, 3), RULE, [101.0, 99.0])
    assert rec['repetitions_auto'] == dict(RULE, runs=3, stop=True, ci_half_percent=pytest.approx(2.484, abs=1e-3),
                                           reason='ci 2.5 % <= 5 % after 3 runs')
    assert r.annotate(_record(100.0, 1), RULE, [])['repetitions_auto']['stop'] is False
    assert r.annotate(_record(None, 2, 'failed'), RULE, [100.0])['repetitions_auto']['reason'] == \
        'a run failed (run 2 of at most 10)'
    assert r.annotate(_record(None, 1, 'skipped'), RULE, [])['repetitions_auto']['reason'] == 'the run was skipped'


def test_the_repetitions_not_needed_are_not_recorded_failed():
    tests, pairs = _auto_items()
    items, _skipped = s.build_plan(tests, pairs, {'lab2': 'L'})
    done = [_record(100.0, 1, auto=dict(RULE, stop=False)), _record(100.0, 2, auto=dict(RULE, stop=False)),
            _record(100.0, 3, auto=dict(RULE, stop=True))]
    assert plan_records.unrun_records(items, 'the stage failed', done) == []
    # before its stop the rest of the test is what a failed stage kept from running
    unrun = plan_records.unrun_records(items, 'the stage failed', done[:2])
    assert [u['repetition'] for u in unrun] == list(range(3, 11))
    assert unrun[0]['repetitions_auto']['reason'] == 'a run failed (run 1 of at most 10)'


def test_a_resumed_auto_test_goes_on_from_its_recorded_values(tmp_path):
    tests, pairs = _auto_items()
    path = tmp_path / 'run.jsonl'
    # two ok runs and a failed third (a failed run is done again by a resume)
    recs = [_record(100.0, 1), _record(120.0, 2), _record(None, 3, 'failed')]
    path.write_text(''.join(json.dumps(rec) + '\n' for rec in recs))
    recorded = store.read_run(str(path))
    items, skipped = s.build_plan(tests, pairs, {'lab2': 'L'}, s.recorded_keys(recorded),
                                  recorded=s.recorded_values(recorded))
    assert skipped == 2 and [i['repetition'] for i in items] == list(range(3, 11))
    assert items[0]['repetitions_earlier'] == [100.0, 120.0]
    assert r.next_run(items[0], [])['run']
    # a test whose recorded runs stopped it plans nothing more
    recs = [_record(100.0, 1), _record(100.0, 2), _record(100.0, 3)]
    path.write_text(''.join(json.dumps(rec) + '\n' for rec in recs))
    recorded = store.read_run(str(path))
    items, skipped = s.build_plan(tests, pairs, {'lab2': 'L'}, s.recorded_keys(recorded),
                                  recorded=s.recorded_values(recorded))
    assert (items, skipped) == ([], 3)
    # and its records are no resume problem (repetitions up to the maximum)
    assert s.resume_problems(tests, pairs, recorded, 'a') == []


def test_bench_test_refuses_a_bad_rule_before_the_test_and_annotates_with_a_good_one():
    from ansible_collections.perflab.network.plugins.module_utils.bench import runner
    assert runner.bench_test_annotator({'repetitions_auto': None}) == (None, [])
    annotate, errors = runner.bench_test_annotator({'repetitions_auto': {'min': 9, 'max': 4}, 'repetitions_earlier': []})
    assert annotate is None and errors == ['repetitions_auto: repetitions auto: min 9 is more than max 4']
    annotate, errors = runner.bench_test_annotator({'repetitions_auto': RULE, 'repetitions_earlier': [100, None]})
    assert errors == [] and annotate(_record(100.0, 3))['repetitions_auto']['reason'].startswith('a run failed')
