# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import math
import random
import statistics

import pytest

from ansible_collections.perflab.network.plugins.module_utils.report import stats


@pytest.mark.parametrize('values', [
    [9412.3],
    [1.0, 2.0],
    [9400.1, 9388.7, 9423.9, 9391.0],
    [29.7, 30.1, 29.4, 31.2, 28.9],
])
def test_descriptive_statistics_match_the_standard_library(values):
    summary = stats.summarize(values)
    assert summary['n'] == len(values)
    assert summary['mean'] == pytest.approx(statistics.mean(values), rel=1e-12)
    assert summary['median'] == pytest.approx(statistics.median(values), rel=1e-12)
    assert summary['min'] == min(values)
    assert summary['max'] == max(values)
    if len(values) > 1:
        assert summary['stdev'] == pytest.approx(statistics.stdev(values), rel=1e-12)
        assert summary['cv_percent'] == pytest.approx(statistics.stdev(values) / statistics.mean(values) * 100)
    else:
        assert summary['stdev'] is None
        assert summary['cv_percent'] is None


def test_empty_sample_has_no_statistics():
    assert stats.summarize([]) == {'n': 0, 'mean': None, 'median': None, 'stdev': None,
                                   'cv_percent': None, 'min': None, 'max': None}


def test_relative_change():
    assert stats.relative_change_percent(110.0, 100.0) == pytest.approx(10.0)
    assert stats.relative_change_percent(90.0, 100.0) == pytest.approx(-10.0)
    # against a negative baseline the sign still says "larger" / "smaller"
    assert stats.relative_change_percent(-50.0, -100.0) == pytest.approx(50.0)
    assert stats.relative_change_percent(1.0, 0.0) is None
    assert stats.relative_change_percent(None, 1.0) is None


@pytest.mark.parametrize('t', [-30.0, -3.0, -1.0, -0.1, 0.0, 0.1, 0.5, 1.0, 2.0, 3.0, 10.0, 100.0])
def test_student_t_cdf_against_closed_forms(t):
    # df = 1 is the Cauchy distribution; df = 2 has a closed form too
    assert stats.student_t_cdf(t, 1) == pytest.approx(0.5 + math.atan(t) / math.pi, abs=1e-12)
    assert stats.student_t_cdf(t, 2) == pytest.approx(0.5 + t / (2.0 * math.sqrt(2.0 + t * t)), abs=1e-12)


# (t, df, two-sided p) of Student's t tables
T_TABLE = [
    # two-sided 5 % critical values
    (12.706204736, 1, 0.05),
    (4.302652730, 2, 0.05),
    (2.776445105, 4, 0.05),
    (2.570581836, 5, 0.05),
    (2.228138852, 10, 0.05),
    (2.042272456, 30, 0.05),
    # two-sided 1 % critical values
    (63.656741163, 1, 0.01),
    (3.169272673, 10, 0.01),
    # the normal limit
    (1.959963985, 1e9, 0.05),
    (2.575829304, 1e9, 0.01),
]


@pytest.mark.parametrize('t, df, p', T_TABLE)
def test_student_t_two_sided_p_at_table_critical_values(t, df, p):
    assert stats.student_t_two_sided_p(t, df) == pytest.approx(p, rel=1e-6)
    assert stats.student_t_two_sided_p(-t, df) == pytest.approx(p, rel=1e-6)


def test_incomplete_beta_known_values():
    # I_x(1, 1) = x, I_x(a, 1) = x^a, I_x(1, b) = 1 - (1 - x)^b, I_0.5(a, a) = 0.5
    assert stats.regularized_incomplete_beta(1, 1, 0.3) == pytest.approx(0.3)
    assert stats.regularized_incomplete_beta(3, 1, 0.4) == pytest.approx(0.4 ** 3)
    assert stats.regularized_incomplete_beta(1, 4, 0.2) == pytest.approx(1 - 0.8 ** 4)
    assert stats.regularized_incomplete_beta(7.5, 7.5, 0.5) == pytest.approx(0.5)
    assert stats.regularized_incomplete_beta(2, 3, 0.0) == 0.0
    assert stats.regularized_incomplete_beta(2, 3, 1.0) == 1.0
    with pytest.raises(ValueError):
        stats.regularized_incomplete_beta(0, 1, 0.5)


def test_welch_against_r_sleep_data():
    # R: t.test(extra ~ group, data = sleep) -> t = -1.8608, df = 17.776, p-value = 0.07939
    group1 = [0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0]
    group2 = [1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4]
    result = stats.welch_t_test(group1, group2)
    assert result['t'] == pytest.approx(-1.8608, abs=5e-5)
    assert result['df'] == pytest.approx(17.776, abs=5e-4)
    assert result['p'] == pytest.approx(0.07939, abs=5e-6)


def test_welch_is_symmetric_and_detects_a_clear_difference():
    rng = random.Random(3)
    stock = [rng.gauss(9400, 15) for _number in range(5)]
    tuned = [rng.gauss(9650, 15) for _number in range(5)]
    forward = stats.welch_t_test(tuned, stock)
    backward = stats.welch_t_test(stock, tuned)
    assert forward['p'] == pytest.approx(backward['p'])
    assert forward['t'] == pytest.approx(-backward['t'])
    assert forward['t'] > 0
    assert forward['p'] < 1e-4


def test_welch_needs_two_values_each():
    assert stats.welch_t_test([1.0], [1.0, 2.0]) is None
    assert stats.welch_t_test([1.0, 2.0], []) is None


def test_welch_without_spread():
    assert stats.welch_t_test([5.0, 5.0], [5.0, 5.0])['p'] == 1.0
    assert stats.welch_t_test([5.0, 5.0], [6.0, 6.0])['p'] == 0.0


# --- issue 27.2: intervals, Holm's correction, verdicts --------------------------------------------------------

@pytest.mark.parametrize('probability, df, t', [
    # the tables' critical values: t(1 - p / 2, df), t(0.975, 2) = 4.303, df 4 2.776, df 10 2.228, df 30 2.042
    (1 - p / 2, df, t) for t, df, p in T_TABLE if df < 1e9
] + [
    # fractional degrees of freedom (Welch) and a lower tail: scipy 1.17.1, scipy.stats.t.ppf(probability, df)
    (0.975, 3.7, 2.8675207071911895),
    (0.975, 17.776, 2.102821310380221),
    (0.05, 4, -2.131846786326651),
    (0.05, 10, -1.812461122811676),
    (0.5, 7, 0.0),
])
def test_student_t_quantile_at_table_values(probability, df, t):
    assert stats.student_t_quantile(probability, df) == pytest.approx(t, rel=1e-9, abs=1e-12)
    if t:
        # the inverse of the distribution function
        found = stats.student_t_quantile(probability, df)
        assert stats.student_t_cdf(found, df) == pytest.approx(probability, rel=1e-9)
        assert stats.student_t_quantile(1 - probability, df) == pytest.approx(-t, rel=1e-9)


@pytest.mark.parametrize('probability, df', [(0.0, 4), (1.0, 4), (-0.1, 4), (0.975, 0), (0.975, -1)])
def test_student_t_quantile_refuses_what_has_none(probability, df):
    with pytest.raises(ValueError):
        stats.student_t_quantile(probability, df)


def test_mean_interval_is_students():
    values = [9400.1, 9388.7, 9423.9, 9391.0, 9410.2]
    # scipy 1.17.1: scipy.stats.t.interval(0.95, 4, loc=mean, scale=scipy.stats.sem(values))
    assert stats.mean_interval(values) == pytest.approx((9384.729818096286, 9420.830181903719), rel=1e-12)
    # by hand: mean -/+ t(0.975, 4) s / sqrt(n), t from the tables
    half = 2.776445105 * statistics.stdev(values) / math.sqrt(5)
    assert stats.mean_interval(values) == pytest.approx((statistics.mean(values) - half,
                                                         statistics.mean(values) + half), rel=1e-9)
    # three latencies (ms): scipy.stats.t.interval(0.95, 2, loc=mean, scale=scipy.stats.sem(values))
    reference = (0.04725218664253897, 0.055481146690794375)
    assert stats.mean_interval([0.0512, 0.0498, 0.0531]) == pytest.approx(reference, rel=1e-10)
    assert stats.mean_interval([5.0, 5.0, 5.0]) == (5.0, 5.0)
    assert stats.mean_interval([5.0]) is None and stats.mean_interval([]) is None


def test_change_interval_by_the_delta_method():
    baseline = [9400.1, 9388.7, 9423.9, 9391.0, 9410.2]
    sample = [9650.3, 9671.8, 9642.0, 9660.5]
    result = stats.change_interval(sample, baseline)
    # reference, computed apart with numpy 2 and scipy 1.17.1 (a one-off script):
    #   g = (mb - ma) / |ma| * 100; ub = vb / nb / ma**2; ua = mb**2 * va / na / ma**4
    #   df = (ua + ub)**2 / (ua**2 / (na - 1) + ub**2 / (nb - 1)); half = t.ppf(0.975, df) * 100 * sqrt(ua + ub)
    assert result['change'] == pytest.approx(2.6946286098366343, rel=1e-12)
    assert result['df'] == pytest.approx(6.918480197812138, rel=1e-10)
    assert result['low'] == pytest.approx(2.460722919469351, rel=1e-9)
    assert result['high'] == pytest.approx(2.928534300203918, rel=1e-9)
    # equal means: the df is Welch's own
    equal = stats.change_interval([10.0, 12.0, 11.0, 9.0], [10.5, 11.5, 10.0, 11.0, 9.5])
    assert equal['change'] == pytest.approx(0.0)
    assert equal['df'] == pytest.approx(stats.welch_t_test([10.0, 12.0, 11.0, 9.0], [10.5, 11.5, 10.0, 11.0, 9.5])['df'])
    assert equal['low'] < 0 < equal['high'] and equal['low'] == pytest.approx(-equal['high'])
    # no spread: the interval is the change; nothing to say below two values or against a mean of 0
    assert stats.change_interval([11.0, 11.0], [10.0, 10.0]) == {'change': pytest.approx(10.0), 'low': pytest.approx(10.0),
                                                                 'high': pytest.approx(10.0), 'df': None}
    assert stats.change_interval([1.0], [1.0, 2.0]) is None
    assert stats.change_interval([1.0, 2.0], [0.0, 0.0]) is None


def test_holm_worked_example():
    # by hand (R: p.adjust(c(0.01, 0.04, 0.03, 0.005), "holm") -> 0.03 0.06 0.06 0.02):
    # sorted 0.005 x 4 = 0.02, 0.01 x 3 = 0.03, 0.03 x 2 = 0.06, 0.04 x 1 = 0.04 -> kept monotone: 0.06
    assert stats.holm_adjust([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    # a test without a p is no member of the family (m = 2 here), and stays None
    assert stats.holm_adjust([None, 0.02, None, 0.04]) == [None, pytest.approx(0.04), None, pytest.approx(0.04)]
    # capped at 1, ties keep one value, one test is its own p
    assert stats.holm_adjust([0.5, 0.6, 0.9]) == [1.0, 1.0, 1.0]
    assert stats.holm_adjust([0.01, 0.01, 0.2]) == pytest.approx([0.03, 0.03, 0.2])
    assert stats.holm_adjust([0.03]) == [0.03] and stats.holm_adjust([]) == []


def _interval(change, low, high):
    return {'change': change, 'low': low, 'high': high}


@pytest.mark.parametrize('runs, interval, p, higher, minimum, expected', [
    # fewer than 3 runs on either side: too noisy, however clear
    ((2, 5), _interval(10.0, 9.0, 11.0), 0.001, True, 0, 'too noisy'),
    ((5, 2), _interval(10.0, 9.0, 11.0), 0.001, True, 0, 'too noisy'),
    # a single run each: a change, no interval
    ((1, 1), _interval(10.0, None, None), None, True, 0, 'too noisy'),
    # significant after Holm, narrow: the metric's direction decides
    ((3, 3), _interval(10.0, 8.0, 12.0), 0.01, True, 0, 'better'),
    ((3, 3), _interval(10.0, 8.0, 12.0), 0.01, False, 0, 'worse'),
    ((3, 3), _interval(-10.0, -12.0, -8.0), 0.01, False, 0, 'better'),
    ((3, 3), _interval(-10.0, -12.0, -8.0), 0.01, True, 0, 'worse'),
    # significant, but the interval (9.5 wide) is wider than the change (9)
    ((3, 3), _interval(9.0, 4.25, 13.75), 0.03, True, 0, 'too noisy'),
    # not significant after Holm
    ((3, 3), _interval(10.0, 8.0, 12.0), 0.05, True, 0, 'no significant change'),
    ((5, 5), _interval(0.5, -2.0, 3.0), 0.6, True, 0, 'no significant change'),
    # a minimum change: a significant change below it is never better or worse
    ((3, 3), _interval(3.0, 2.5, 3.5), 0.001, True, 5.0, 'below minimum change'),
    ((3, 3), _interval(-5.0, -5.5, -4.5), 0.001, True, 5.0, 'worse'),
    # not significant: inside -/+ minimum no change, reaching beyond it too noisy
    ((5, 5), _interval(0.5, -2.0, 3.0), 0.6, True, 5.0, 'no significant change'),
    ((5, 5), _interval(0.5, -6.0, 7.0), 0.6, True, 5.0, 'too noisy'),
    # nothing to judge
    ((3, 0), None, None, True, 0, None),
])
def test_verdict_rules(runs, interval, p, higher, minimum, expected):
    assert stats.verdict(runs[0], runs[1], interval, p, higher, minimum) == expected
