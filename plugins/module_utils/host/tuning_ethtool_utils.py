# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Parsers for ``ethtool -k / -g / -c / -i`` text output and argv builders.

Pure functions, tested on output captured with ethtool 6.1 (see
tests/unit/fixtures/ethtool/). The text form is used because ethtool 6.1 has
no ``--json`` for -g and -c ("bad command line argument(s)").
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import re

ETHTOOL = 'ethtool'

# Legacy short names accepted by ``ethtool -K`` -> the name ``ethtool -k``
# prints. ethtool -K accepts the printed names too (checked on 6.1).
FEATURE_ALIASES = {
    'rx': 'rx-checksumming',
    'tx': 'tx-checksumming',
    'sg': 'scatter-gather',
    'tso': 'tcp-segmentation-offload',
    'ufo': 'udp-fragmentation-offload',
    'gso': 'generic-segmentation-offload',
    'gro': 'generic-receive-offload',
    'lro': 'large-receive-offload',
    'rxvlan': 'rx-vlan-offload',
    'txvlan': 'tx-vlan-offload',
    'ntuple': 'ntuple-filters',
    'rxhash': 'receive-hashing',
}

# ``ethtool -g`` labels -> ``ethtool -G`` parameter names.
RING_LABELS = {'RX': 'rx', 'RX Mini': 'rx-mini', 'RX Jumbo': 'rx-jumbo', 'TX': 'tx'}
RING_PARAMS = tuple(RING_LABELS.values())

# ``ethtool -c`` prints a few names differently from what ``-C`` accepts.
COALESCE_PRINTED_TO_PARAM = {
    'rx-frame-low': 'rx-frames-low',
    'tx-frame-low': 'tx-frames-low',
    'rx-frame-high': 'rx-frames-high',
    'tx-frame-high': 'tx-frames-high',
}
COALESCE_PARAMS = (
    'adaptive-rx', 'adaptive-tx', 'stats-block-usecs', 'sample-interval',
    'pkt-rate-low', 'pkt-rate-high',
    'rx-usecs', 'rx-frames', 'rx-usecs-irq', 'rx-frames-irq',
    'tx-usecs', 'tx-frames', 'tx-usecs-irq', 'tx-frames-irq',
    'rx-usecs-low', 'rx-frames-low', 'tx-usecs-low', 'tx-frames-low',
    'rx-usecs-high', 'rx-frames-high', 'tx-usecs-high', 'tx-frames-high',
    'cqe-mode-rx', 'cqe-mode-tx',
)
COALESCE_BOOL_PARAMS = ('adaptive-rx', 'adaptive-tx', 'cqe-mode-rx', 'cqe-mode-tx')

_FEATURE_RE = re.compile(r'^(\t?)([A-Za-z0-9_-]+): (on|off)(?: \[(fixed|requested on|requested off|not requested)\])?\s*$')
_PAIR_RE = re.compile(r'(RX|TX): (on|off|n/a)')


def canonical_feature(name):
    return FEATURE_ALIASES.get(name, name)


def _onoff(text):
    if text == 'on':
        return True
    if text == 'off':
        return False
    return None


def _number(text):
    text = text.strip()
    if text in ('n/a', ''):
        return None
    try:
        return int(text)
    except ValueError:
        return text


def parse_features(text):
    """``ethtool -k`` -> {name: {on, fixed, requested, group}} in print order.

    ``requested`` is the state asked for when the driver kept another one
    ("off [requested on]"), else None. ``group`` names the parent line of an
    indented (tab) feature.
    """
    features = {}
    group = None
    for line in text.splitlines():
        match = _FEATURE_RE.match(line)
        if not match:
            continue
        indent, name, state, note = match.groups()
        requested = None
        if note in ('requested on', 'requested off'):
            requested = note.endswith(' on')
        features[name] = {
            'on': state == 'on',
            'fixed': note == 'fixed',
            'requested': requested,
            'group': group if indent else None,
        }
        if not indent:
            group = name
    return features


def parse_rings(text):
    """``ethtool -g`` -> {'max': {rx, rx-mini, rx-jumbo, tx}, 'current': {...}}.

    A value the driver does not report ("n/a") is None.
    """
    rings = {'max': {}, 'current': {}}
    section = None
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith('Pre-set maximums'):
            section = 'max'
            continue
        if stripped.startswith('Current hardware settings'):
            section = 'current'
            continue
        if section is None or ':' not in stripped:
            continue
        label, value = stripped.split(':', 1)
        if label in RING_LABELS:
            rings[section][RING_LABELS[label]] = _number(value)
    return rings


def parse_coalesce(text):
    """``ethtool -c`` -> {param: int | bool | None} keyed by ``-C`` names."""
    values = {}
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith('Coalesce parameters'):
            continue
        if stripped.startswith('Adaptive ') or stripped.startswith('CQE mode '):
            prefix = 'adaptive' if stripped.startswith('Adaptive') else 'cqe-mode'
            for direction, state in _PAIR_RE.findall(stripped):
                values['%s-%s' % (prefix, direction.lower())] = _onoff(state)
            continue
        if ':' not in stripped:
            continue
        name, value = stripped.split(':', 1)
        name = COALESCE_PRINTED_TO_PARAM.get(name.strip(), name.strip())
        values[name] = _number(value)
    return values


def parse_driver(text):
    """``ethtool -i`` -> driver name (None when not printed)."""
    for line in text.splitlines():
        if line.startswith('driver:'):
            return line.split(':', 1)[1].strip() or None
    return None


def _onoff_word(value):
    return 'on' if value else 'off'


def features_argv(interface, changes):
    """{name: bool} -> ethtool -K argv (one call: the kernel resolves dependencies)."""
    argv = [ETHTOOL, '-K', interface]
    for name, value in changes.items():
        argv.extend([name, _onoff_word(value)])
    return argv


def rings_argv(interface, changes):
    argv = [ETHTOOL, '-G', interface]
    for name, value in changes.items():
        argv.extend([name, str(int(value))])
    return argv


def coalesce_argv(interface, changes):
    argv = [ETHTOOL, '-C', interface]
    for name, value in changes.items():
        if name in COALESCE_BOOL_PARAMS:
            argv.extend([name, _onoff_word(value)])
        else:
            argv.extend([name, str(int(value))])
    return argv


def features_diff(current, wanted):
    """Names whose state differs from wanted ({name: bool}), fixed ones excluded."""
    return dict(
        (name, value) for name, value in wanted.items()
        if name in current and not current[name]['fixed'] and current[name]['on'] != value)


def first_error_line(text):
    for line in (text or '').splitlines():
        if line.strip():
            return line.strip()
    return ''
