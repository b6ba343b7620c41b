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


@pytest.mark.parametrize('t, df, p', [
    # two-sided 5 % critical values of Student's t tables
    (12.706204736, 1, 0.05),
    (4.302652730, 2, 0.05),
    (2.570581836, 5, 0.05),
    (2.228138852, 10, 0.05),
    (2.042272456, 30, 0.05),
    # two-sided 1 % critical values
    (63.656741163, 1, 0.01),
    (3.169272673, 10, 0.01),
    # the normal limit
    (1.959963985, 1e9, 0.05),
    (2.575829304, 1e9, 0.01),
])
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
