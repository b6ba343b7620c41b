# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Descriptive statistics, confidence intervals, Welch's t-test, Holm's correction and the verdicts, without scipy.

The Student t distribution is computed from the regularized incomplete beta
function (continued fraction, modified Lentz's method, as in Numerical
Recipes 6.4): for ``df`` degrees of freedom,
``P(|T| > t) = I_x(df/2, 1/2)`` with ``x = df / (df + t^2)``; its quantiles
by bisection of that function (``student_t_quantile``).
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import math

SIGNIFICANCE_LEVEL = 0.05
# the confidence of every interval the report shows
CONFIDENCE = 0.95
# fewer successful runs than this on either side of a comparison: no verdict but "too noisy"
MIN_RUNS = 3

# the verdict words of a comparison (docs/reports.md, "Statistics and verdicts")
BETTER = 'better'
WORSE = 'worse'
NO_CHANGE = 'no significant change'
TOO_NOISY = 'too noisy'
BELOW_MINIMUM = 'below minimum change'
VERDICTS = (BETTER, WORSE, NO_CHANGE, TOO_NOISY, BELOW_MINIMUM)

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


def summarize(values):
    """``{n, mean, median, stdev, cv_percent, min, max}`` (None where undefined)."""
    values = [float(value) for value in values]
    return {
        'n': len(values),
        'mean': mean(values),
        'median': median(values),
        'stdev': stdev(values),
        'cv_percent': cv_percent(values),
        'min': min(values) if values else None,
        'max': max(values) if values else None,
    }


def relative_change_percent(value, baseline):
    """(value - baseline) / |baseline| in percent; None when either is missing or baseline is 0."""
    if value is None or baseline is None or baseline == 0:
        return None
    return (value - baseline) / abs(baseline) * 100.0


def _beta_continued_fraction(a, b, x):
    qab = a + b
    qap = a + 1.0
    qam = a - 1.0
    c = 1.0
    d = 1.0 - qab * x / qap
    if abs(d) < _TINY:
        d = _TINY
    d = 1.0 / d
    h = d
    for m in range(1, _MAX_ITERATIONS + 1):
        m2 = 2 * m
        # even step
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        if abs(d) < _TINY:
            d = _TINY
        c = 1.0 + aa / c
        if abs(c) < _TINY:
            c = _TINY
        d = 1.0 / d
        h *= d * c
        # odd step
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        if abs(d) < _TINY:
            d = _TINY
        c = 1.0 + aa / c
        if abs(c) < _TINY:
            c = _TINY
        d = 1.0 / d
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


def _moments(sample):
    """``(n, mean, s^2 / n)`` of a sample of two values or more (the squared standard error of its mean), else None."""
    values = [float(value) for value in sample]
    if len(values) < 2:
        return None
    return len(values), mean(values), variance(values) / len(values)


def _satterthwaite(*parts):
    """Welch-Satterthwaite's degrees of freedom of a sum of variance parts, each ``(part, n)``."""
    return sum(part for part, _count in parts) ** 2 / sum(part ** 2 / (count - 1) for part, count in parts)


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


def change_interval(sample, baseline, confidence=CONFIDENCE):
    """The relative change of ``sample``'s mean against ``baseline``'s, in percent, with its ``confidence`` interval:
    ``{change, low, high, df}``; None below two values on either side or at a baseline mean of 0.

    The change is ``g = (mean_b - mean_a) / |mean_a| x 100`` (``relative_change_percent``); its standard error is
    the delta method's, both means uncertain: ``Var(g) = 100^2 (u_b + u_a)`` with ``u_b = s_b^2 / (n_b mean_a^2)``
    and ``u_a = mean_b^2 s_a^2 / (n_a mean_a^4)``, and its degrees of freedom Welch-Satterthwaite's over these
    two parts, ``(u_a + u_b)^2 / (u_a^2 / (n_a - 1) + u_b^2 / (n_b - 1))`` (Welch's own df when the means are
    equal). The interval is ``g -/+ t((1 + confidence) / 2, df) sqrt(Var(g))``, symmetric around the change.
    Two samples without any spread: the interval is the change itself (df None).
    """
    moments_a, moments_b = _moments(baseline), _moments(sample)
    if moments_a is None or moments_b is None:
        return None
    count_a, mean_a, share_a = moments_a
    count_b, mean_b, share_b = moments_b
    if mean_a == 0:
        return None
    change = relative_change_percent(mean_b, mean_a)
    part_b = share_b / mean_a ** 2
    part_a = share_a * mean_b ** 2 / mean_a ** 4
    total = part_a + part_b
    if total == 0:
        return {'change': change, 'low': change, 'high': change, 'df': None}
    df = _satterthwaite((part_a, count_a), (part_b, count_b))
    half = student_t_quantile((1.0 + confidence) / 2.0, df) * 100.0 * math.sqrt(total)
    return {'change': change, 'low': change - half, 'high': change + half, 'df': df}


def holm_adjust(p_values):
    """Holm's step-down adjusted p-values of one family of tests, in the order given (None stays None, and is
    no member of the family): sorted ascending, ``p_(i)`` becomes ``max over j <= i of min(1, (m - j + 1) p_(j))``
    with ``m`` the number of p-values. ``adjusted < alpha`` rejects exactly what Holm's procedure rejects at
    ``alpha``, and the chance of any false finding in the family stays below ``alpha``."""
    ranked = sorted((p, index) for index, p in enumerate(p_values) if p is not None)
    count = len(ranked)
    adjusted = [None] * len(p_values)
    running = 0.0
    for rank, (p, index) in enumerate(ranked):
        running = max(running, min(1.0, (count - rank) * p))
        adjusted[index] = running
    return adjusted


def verdict(runs_sample, runs_baseline, interval, p_adjusted, higher_is_better, min_change_percent=0.0,
            level=SIGNIFICANCE_LEVEL):
    """The verdict word of one comparison (docs/reports.md, "Statistics and verdicts"), None when there is nothing
    to judge (no change: a side without a successful run, or a baseline mean of 0).

    ``interval`` is ``change_interval``'s result (or a mapping with ``change``), ``p_adjusted`` the Holm-adjusted
    p-value, ``higher_is_better`` the metric's direction (True, False). In order:

    * ``too noisy``: fewer than MIN_RUNS successful runs on either side (or no interval);
    * significant (``p_adjusted < level``) and ``|change| < min_change_percent``: ``below minimum change``;
    * significant and its interval wider (``high - low``) than ``|change|``: ``too noisy`` (a difference whose
      size is not known to within itself is no finding);
    * significant otherwise: ``better`` or ``worse``, as the metric's direction says;
    * not significant, with a minimum change declared, and the interval reaching beyond ``-/+ min_change_percent``:
      ``too noisy`` (a change that matters cannot be ruled out);
    * not significant otherwise: ``no significant change``.
    """
    if interval is None or interval.get('change') is None:
        return None
    if runs_sample < MIN_RUNS or runs_baseline < MIN_RUNS or interval.get('low') is None:
        return TOO_NOISY
    change = interval['change']
    minimum = min_change_percent or 0.0
    if p_adjusted is not None and p_adjusted < level:
        if abs(change) < minimum:
            return BELOW_MINIMUM
        if interval['high'] - interval['low'] > abs(change):
            return TOO_NOISY
        if higher_is_better is None:
            return None
        return BETTER if (change > 0) == bool(higher_is_better) else WORSE
    if minimum > 0 and (interval['low'] < -minimum or interval['high'] > minimum):
        return TOO_NOISY
    return NO_CHANGE


def welch_t_test(sample_a, sample_b):
    """Welch's two-sample t-test (unequal variances), two-sided.

    Returns ``{t, df, p}``, or None when either sample has fewer than two values.
    When both samples have no spread at all, t is infinite (p = 0) if the means
    differ and the samples are equal (p = 1) if they do not.
    """
    moments_a, moments_b = _moments(sample_a), _moments(sample_b)
    if moments_a is None or moments_b is None:
        return None
    count_a, mean_a, share_a = moments_a
    count_b, mean_b, share_b = moments_b
    spread = share_a + share_b
    if spread == 0:
        if mean_a == mean_b:
            return {'t': 0.0, 'df': None, 'p': 1.0}
        return {'t': math.copysign(float('inf'), mean_a - mean_b), 'df': None, 'p': 0.0}
    t = (mean_a - mean_b) / math.sqrt(spread)
    df = _satterthwaite((share_a, count_a), (share_b, count_b))
    return {'t': t, 'df': df, 'p': student_t_two_sided_p(t, df)}
