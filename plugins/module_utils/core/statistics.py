# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The statistics of a sample that both the report and the runs need, without scipy: mean, variance, Student's t
distribution and the confidence interval of a mean (the report's ``report/stats.py`` and the repetition rule of
``repetitions.py`` import them from here, the one copy).

The Student t distribution is computed from the regularized incomplete beta
function (continued fraction, modified Lentz's method, as in Numerical
Recipes 6.4): for ``df`` degrees of freedom,
``P(|T| > t) = I_x(df/2, 1/2)`` with ``x = df / (df + t^2)``; its quantiles
by bisection of that function (``student_t_quantile``).
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import math

# the confidence of every interval the report shows and the repetition rule aims at
CONFIDENCE = 0.95

_EPSILON = 1e-15
_TINY = 1e-300
_MAX_ITERATIONS = 1000


def mean(values):
    values = list(values)
    if not values:
        return None
    return math.fsum(values) / len(values)


def median(values):
    ordered = sorted(values)
    count = len(ordered)
    if not count:
        return None
    middle = count // 2
    if count % 2:
        return float(ordered[middle])
    return (ordered[middle - 1] + ordered[middle]) / 2.0


def variance(values):
    """Sample variance (n - 1); None below two values."""
    values = list(values)
    count = len(values)
    if count < 2:
        return None
    average = math.fsum(values) / count
    return math.fsum((value - average) ** 2 for value in values) / (count - 1)


def stdev(values):
    """Sample standard deviation (n - 1); None below two values."""
    var = variance(values)
    return None if var is None else math.sqrt(var)


def cv_percent(values):
    """Coefficient of variation, stdev / |mean| in percent; None below two values or at mean 0."""
    values = list(values)
    deviation = stdev(values)
    average = mean(values)
    if deviation is None or not average:
        return None
    return deviation / abs(average) * 100.0


def _not_tiny(value):
    return _TINY if abs(value) < _TINY else value


def _lentz_step(aa, c, d):
    """One step of the modified Lentz method: the new ``(c, d)``, whose product multiplies the fraction."""
    d = 1.0 / _not_tiny(1.0 + aa * d)
    c = _not_tiny(1.0 + aa / c)
    return c, d


def _beta_continued_fraction(a, b, x):
    qab = a + b
    qap = a + 1.0
    qam = a - 1.0
    c = 1.0
    d = 1.0 / _not_tiny(1.0 - qab * x / qap)
    h = d
    for m in range(1, _MAX_ITERATIONS + 1):
        m2 = 2 * m
        # even step
        c, d = _lentz_step(m * (b - m) * x / ((qam + m2) * (a + m2)), c, d)
        h *= d * c
        # odd step
        c, d = _lentz_step(-(a + m) * (qab + m) * x / ((a + m2) * (qap + m2)), c, d)
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < _EPSILON:
            return h
    raise ArithmeticError('incomplete beta: no convergence for a=%r b=%r x=%r' % (a, b, x))


def regularized_incomplete_beta(a, b, x):
    """I_x(a, b) for a, b > 0 and 0 <= x <= 1."""
    if a <= 0 or b <= 0:
        raise ValueError('a and b must be positive')
    if x < 0 or x > 1:
        raise ValueError('x must be within [0, 1]')
    if x == 0 or x == 1:
        return float(x)
    log_front = (math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
                 + a * math.log(x) + b * math.log1p(-x))
    front = math.exp(log_front)
    # the continued fraction converges fast for x < (a + 1) / (a + b + 2);
    # use the symmetry I_x(a, b) = 1 - I_(1-x)(b, a) beyond that
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _beta_continued_fraction(a, b, x) / a
    return 1.0 - front * _beta_continued_fraction(b, a, 1.0 - x) / b


def student_t_two_sided_p(t, df):
    """P(|T| >= |t|) for Student's t with ``df`` (> 0, may be fractional) degrees of freedom."""
    if df <= 0:
        raise ValueError('degrees of freedom must be positive')
    if math.isinf(t):
        return 0.0
    if t == 0:
        return 1.0
    x = df / (df + t * t)
    return min(1.0, max(0.0, regularized_incomplete_beta(df / 2.0, 0.5, x)))


def student_t_cdf(t, df):
    """P(T <= t) for Student's t with ``df`` degrees of freedom."""
    tail = student_t_two_sided_p(t, df) / 2.0
    return 1.0 - tail if t > 0 else tail


def student_t_quantile(probability, df):
    """The t with P(T <= t) = ``probability`` for Student's t with ``df`` (> 0, may be fractional) degrees of
    freedom: ``student_t_two_sided_p`` inverted by bisection (monotone, so it cannot miss), to 1e-12 relative."""
    if not 0.0 < probability < 1.0:
        raise ValueError('probability must be within (0, 1), got %r' % (probability,))
    if df <= 0:
        raise ValueError('degrees of freedom must be positive')
    if probability == 0.5:
        return 0.0
    # the two-sided tail beyond |t|: P(|T| >= |t|) = 2 min(probability, 1 - probability)
    tail = 2.0 * min(probability, 1.0 - probability)
    low, high = 0.0, 1.0
    while student_t_two_sided_p(high, df) > tail:
        low, high = high, high * 2.0
    for _step in range(_MAX_ITERATIONS):
        middle = (low + high) / 2.0
        if student_t_two_sided_p(middle, df) > tail:
            low = middle
        else:
            high = middle
        if high - low <= 1e-12 * high:
            break
    t = (low + high) / 2.0
    return t if probability > 0.5 else -t


def mean_interval(values, confidence=CONFIDENCE):
    """The ``confidence`` interval of the mean, ``(low, high)``: mean -/+ t((1 + confidence) / 2, n - 1) s / sqrt(n)
    (Student); None below two values."""
    values = [float(value) for value in values]
    count = len(values)
    if count < 2:
        return None
    average = mean(values)
    half = student_t_quantile((1.0 + confidence) / 2.0, count - 1) * stdev(values) / math.sqrt(count)
    return average - half, average + half
