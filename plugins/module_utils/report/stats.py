# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Descriptive statistics, confidence intervals, Welch's t-test, Holm's correction and the verdicts, without scipy.

The sample statistics and the Student t distribution live in ``module_utils/core/statistics.py`` (the runs' repetition
rule needs them too); they are imported here under their names, so that the report has one module to ask.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import math

# pylint: disable=unused-import
from ansible_collections.perflab.network.plugins.module_utils.core.statistics import (  # noqa: F401
         CONFIDENCE, cv_percent, mean, mean_interval, median, regularized_incomplete_beta, stdev, student_t_cdf,
         student_t_quantile, student_t_two_sided_p, variance)
# pylint: enable=unused-import

SIGNIFICANCE_LEVEL = 0.05
# fewer successful runs than this on either side of a comparison: no verdict but "too noisy"
MIN_RUNS = 3

# the verdict words of a comparison (docs/reports.md, "Statistics and verdicts")
BETTER = 'better'
WORSE = 'worse'
NO_CHANGE = 'no significant change'
TOO_NOISY = 'too noisy'
BELOW_MINIMUM = 'below minimum change'
VERDICTS = (BETTER, WORSE, NO_CHANGE, TOO_NOISY, BELOW_MINIMUM)


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


def _moments(sample):
    """``(n, mean, s^2 / n)`` of a sample of two values or more (the squared standard error of its mean), else None."""
    values = [float(value) for value in sample]
    if len(values) < 2:
        return None
    return len(values), mean(values), variance(values) / len(values)


def _satterthwaite(*parts):
    """Welch-Satterthwaite's degrees of freedom of a sum of variance parts, each ``(part, n)``."""
    return sum(part for part, _count in parts) ** 2 / sum(part ** 2 / (count - 1) for part, count in parts)


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
