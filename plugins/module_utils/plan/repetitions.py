# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""``repetitions: auto``: repeat a test until the confidence interval of its primary metric's mean is narrow enough.

A rule is a mapping ``{min, max, ci_percent}``: at least ``min`` runs, at most ``max``, and stop as soon as the
half-width of the 95 % confidence interval of the mean (``statistics.mean_interval``, the report's own) is within
``ci_percent`` % of the mean, as netperf's ``-I 95,<width>`` and the Phoronix Test Suite's extra runs do. The plan
expands an auto test to ``max`` repetitions; the benchmark role runs the next one only while ``decide`` on the
values so far says to go on, and each record carries the decision (``repetitions_auto``, docs/result-record.md).
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

from ansible_collections.perflab.network.plugins.module_utils.core import record as records
from ansible_collections.perflab.network.plugins.module_utils.core import statistics

AUTO = 'auto'
KEYS = ('min', 'max', 'ci_percent')
DEFAULTS = {'min': 3, 'max': 10, 'ci_percent': 5.0}
# the confidence interval needs two values; the plan's repetitions are bounded as a fixed count is (suite.LIMITS)
MIN_LOW = 2
MAX_HIGH = 100


def is_auto(value):
    """True for ``auto`` (any case) and for a rule mapping: what makes a suite entry or an override automatic."""
    return isinstance(value, dict) or (isinstance(value, str) and value.strip().lower() == AUTO)


def _number(value, integer):
    if isinstance(value, bool):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    if integer:
        return int(number) if number == int(number) else None
    return number


def rule_problems(rule, where='repetitions auto'):
    """Every problem of a rule mapping (partial: only the keys given are checked), one message each."""
    if rule in (None, ''):
        return []
    if not isinstance(rule, dict):
        return ['%s must be a mapping of %s, got %r' % (where, ', '.join(KEYS), rule)]
    problems = ['%s: unknown key %r (allowed: %s)' % (where, str(key)[:64], ', '.join(KEYS))
                for key in rule if key not in KEYS]
    low = high = None
    for key in ('min', 'max'):
        if key in rule:
            number = _number(rule[key], True)
            if number is None or not MIN_LOW <= number <= MAX_HIGH:
                problems.append('%s: %s must be an integer from %d to %d (the confidence interval needs two runs), '
                                'got %r' % (where, key, MIN_LOW, MAX_HIGH, rule[key]))
            elif key == 'min':
                low = number
            else:
                high = number
    if low is not None and high is not None and low > high:
        problems.append('%s: min %d is more than max %d' % (where, low, high))
    if 'ci_percent' in rule:
        share = _number(rule['ci_percent'], False)
        if share is None or not 0 < share <= 100:
            problems.append('%s: ci_percent must be a number above 0 and at most 100 (the half-width of the 95 %% '
                            'confidence interval as a share of the mean), got %r' % (where, rule['ci_percent']))
    return problems


def make_rule(*layers):
    """The complete rule from DEFAULTS and ``layers`` (mappings, later ones win; None and 'auto' add nothing).

    Raises ValueError with every problem when a layer or the result is wrong (min above max across layers).
    """
    rule = dict(DEFAULTS)
    problems = []
    for layer in layers:
        if not isinstance(layer, dict):
            continue
        problems += rule_problems(layer)
        rule.update((key, value) for key, value in layer.items() if key in KEYS)
    if not problems:
        problems = rule_problems(rule)
    if problems:
        raise ValueError('; '.join(problems))
    return {'min': int(float(rule['min'])), 'max': int(float(rule['max'])), 'ci_percent': float(rule['ci_percent'])}


def ci_half_percent(values):
    """Half-width of the 95 % confidence interval of the mean, in percent of |mean|; None below two values or at
    mean 0 (no share of zero exists)."""
    interval = statistics.mean_interval(values)
    average = statistics.mean(values)
    if interval is None or not average:
        return None
    return (interval[1] - interval[0]) / 2.0 / abs(average) * 100.0


def _ci_text(share):
    return 'undefined (mean 0)' if share is None else '%.1f %%' % share


def decide(values, rule):
    """Whether an auto test goes on after the runs ``values`` (the primary metric of each run in order, None for
    a run that failed), and why: ``{'stop', 'reason', 'runs', 'ci_half_percent'}`` (the last None below two
    values or at mean 0).

    A failed run stops the test (its interval would mix in a run that measured nothing); fewer than ``min`` runs
    go on; an interval within ``ci_percent`` stops; ``max`` runs stop whatever the interval.
    """
    runs = len(values)
    measured = [float(value) for value in values if value is not None]
    share = ci_half_percent(measured) if len(measured) == runs else None
    result = {'stop': True, 'runs': runs, 'ci_half_percent': None if share is None else round(share, 3)}
    target = '%g %%' % rule['ci_percent']
    if len(measured) < runs:
        result['reason'] = 'a run failed (run %d of at most %d)' % (values.index(None) + 1, rule['max'])
    elif runs < rule['min']:
        result.update(stop=False, reason='%d of at least %d runs' % (runs, rule['min']))
    elif share is not None and share <= rule['ci_percent']:
        result['reason'] = 'ci %.1f %% <= %s after %d runs' % (share, target, runs)
    elif runs >= rule['max']:
        result['reason'] = 'maximum %d reached, ci %s' % (rule['max'], _ci_text(share))
    else:
        result.update(stop=False, reason='ci %s > %s after %d runs' % (_ci_text(share), target, runs))
    return result


def annotate(record, rule, earlier):
    """Put the rule and the decision after this run into ``record['repetitions_auto']``: ``earlier`` are the
    values of the test's earlier runs, this record's primary metric (None unless ok) is the last."""
    if record.get('status') == 'skipped':
        decision = {'stop': True, 'runs': len(earlier), 'ci_half_percent': None, 'reason': 'the run was skipped'}
    else:
        decision = decide(list(earlier) + [records.primary_value(record)], rule)
    record['repetitions_auto'] = dict(rule, **decision)
    return record


def test_key(rec, test_id=None):
    """What the runs of one test share (configuration, pair, test id): a record's or a plan item's."""
    return records.record_run_key(dict(rec, repetition=1), test_id)


def values_of(found_records, key=None):
    """The primary values of the records (of test ``key`` when given, in repetition order): what an auto test
    measured so far (None for a failed run; skipped records are no run)."""
    found = []
    for rec in found_records:
        if not isinstance(rec, dict) or rec.get('status') == 'skipped' or (key is not None and test_key(rec) != key):
            continue
        found.append((int(rec.get('repetition') or 1), records.primary_value(rec)))
    return [value for _rep, value in sorted(found, key=lambda pair: pair[0])]


def next_run(item, found_records):
    """Whether plan ``item`` of an auto test runs, given the records this run stored so far: ``{'run', 'earlier',
    'reason'}`` (``earlier``: the values before it, what the resumed run recorded and this run's). A fixed test's
    item always runs."""
    rule = item.get('repetitions_auto')
    if not rule:
        return {'run': True, 'earlier': [], 'reason': ''}
    earlier = list(item.get('repetitions_earlier') or []) + values_of(found_records, test_key(item))
    if not earlier:
        return {'run': True, 'earlier': earlier, 'reason': 'first run'}
    decision = decide(earlier, rule)
    return {'run': not decision['stop'], 'earlier': earlier, 'reason': decision['reason']}


def stopped(found_records):
    """The test keys whose records say they stopped: their planned repetitions beyond are not run and not
    failures (plan_records.unrun_records leaves them out)."""
    return set(test_key(rec) for rec in found_records
               if isinstance(rec, dict) and (rec.get('repetitions_auto') or {}).get('stop'))
