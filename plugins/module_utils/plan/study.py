# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The system under test and the configuration labels of a study (pure: facts are passed in).

A study changes one side of its pairs (``perflab_system_under_test``): the servers (the OSv
study measures the netserver side), the clients, or both (the default, as before). Only that
side is tuned, and the records of a pair take that side's label.

A label names one system: the default is ``[<perflab_system_label> ]<OS> <full version> <state>``
(``Ubuntu 18.04 stock``, ``Server 1 CentOS 7.9 tuned-latency``): the full version, so Ubuntu
18.04 and 18.10 never pool; the tuning profile in the state, so two profiles never pool; and
the per host group ``perflab_system_label`` (the seeds' "Server 1", "ConnectX"). A label that
two different systems would share (a ``perflab_config_label`` set for hosts that differ) is
refused before the study changes anything (:func:`label_problems`).
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import random

SIDES = ('servers', 'clients', 'both')
DEFAULT_SIDE = 'both'
# what makes two hosts the same system, in the order the label names them
IDENTITY = ('system_label', 'distribution', 'version', 'vcpus', 'profile')


def check_side(side):
    """The side, or ValueError naming the choices."""
    side = side or DEFAULT_SIDE
    if side not in SIDES:
        raise ValueError('perflab_system_under_test must be one of %s, got %r' % (', '.join(SIDES), side))
    return side


def flip_side(side):
    """The side under test once the pairs run the other way round (servers <-> clients)."""
    return {'servers': 'clients', 'clients': 'servers'}.get(check_side(side), 'both')


def under_test(side, is_server, is_client):
    """Whether a host with these roles is on the side the study changes."""
    side = check_side(side)
    return side == 'both' or (side == 'servers' and is_server) or (side == 'clients' and is_client)


def state_name(tuned, profile):
    """``stock``, or ``tuned-<profile>`` (the profile is part of what the system is)."""
    return 'tuned-%s' % (profile or 'throughput') if tuned else 'stock'


def vcpus_value(value):
    """``perflab_system_vcpus`` as a count of vCPUs (1 to 4096), None when not given; ValueError otherwise."""
    if value in (None, ''):
        return None
    if isinstance(value, bool) or not isinstance(value, (int, str)) or not str(value).strip().isdigit() \
            or not 1 <= int(value) <= 4096:
        raise ValueError('perflab_system_vcpus must be a whole number of vCPUs from 1 to 4096, got %r' % (value,))
    return int(value)


def vcpus_name(vcpus):
    """``<n> vCPU`` (the seed's "1 vCPU", "4 vCPU" runs), '' when not given."""
    count = vcpus_value(vcpus)
    return '%d vCPU' % count if count else ''


def identity(facts, system_label='', tuned=False, profile='', vcpus=None):
    """What tells one system from another: the host group's label, the OS and its full version, its vCPU count
    where the study names it, and what the study did to it (stock, or tuned with which profile): what the
    default label names."""
    return {'system_label': (system_label or '').strip(),
            'distribution': facts.get('distribution') or '',
            'version': facts.get('distribution_version') or facts.get('distribution_major_version') or '',
            'vcpus': vcpus_name(vcpus),
            'profile': state_name(tuned, profile)}


def base_label(facts, system_label='', vcpus=None):
    """``[<system label> ]<OS> <full version>[ <n> vCPU]``: the label without the state."""
    ident = identity(facts, system_label, vcpus=vcpus)
    return ' '.join(part for part in (ident['system_label'], ident['distribution'], ident['version'], ident['vcpus'])
                    if part)


def default_label(facts, system_label='', tuned=False, profile='', vcpus=None):
    return '%s %s' % (base_label(facts, system_label, vcpus), state_name(tuned, profile))


def unmanaged_label(name, config_label='', system_label='', vcpus=None):
    """The label of a server we do not manage (no facts: its OS is unknown): its ``perflab_config_label``, else
    ``[<system label> ]<inventory name>[ <n> vCPU] unmanaged``."""
    if config_label:
        return str(config_label)
    parts = [(system_label or '').strip(), name, vcpus_name(vcpus), 'unmanaged']
    return ' '.join(part for part in parts if part)


def pair_label(labels, client, server, side):
    """The label of a pair's records: the side under test's; both sides, the client's when both
    hosts carry the same label, else ``<client label> / <server label>``."""
    side = check_side(side)
    if side == 'servers':
        return labels.get(server, '')
    client_label = labels.get(client, '')
    if side == 'clients':
        return client_label
    server_label = labels.get(server, '')
    if not server_label or server_label == client_label:
        return client_label
    return '%s / %s' % (client_label, server_label)


def label_problems(hosts):
    """Labels that two different systems would share, one message each (empty: none).

    hosts: name -> {'label': str, 'identity': dict (see identity())}.
    """
    by_label = {}
    for name in sorted(hosts):
        entry = hosts[name]
        by_label.setdefault(entry['label'], []).append((name, entry['identity']))
    problems = []
    for label in sorted(by_label):
        members = by_label[label]
        first_name, first = members[0]
        for name, ident in members[1:]:
            differ = [key for key in IDENTITY if ident.get(key) != first.get(key)]
            if differ:
                problems.append(
                    'the label %r would be shared by %s and %s, which are different systems (%s): give each system '
                    'its own perflab_config_label, or set perflab_system_label per host group'
                    % (label, first_name, name, '; '.join('%s %r vs %r' % (key, first.get(key), ident.get(key))
                                                          for key in differ)))
                break
    return problems


# The jumbo-bond study (playbooks/studies/jumbo-bond.yml): what its stock and tuned configurations
# differ in. `mtu` (the default, the seed's comparison: the post kept the bond and changed only the
# MTU, 4.87 -> 9.08 Gbit/s): the bond in both configurations, at the stock MTU, then at the jumbo MTU.
# `link_and_mtu`: one link at the stock MTU against the bond at the jumbo MTU (two changes at once).
BOND_CHANGES = ('mtu', 'link_and_mtu')
DEFAULT_BOND_CHANGE = 'mtu'


def _link_name(links, mtu):
    return '%s MTU %d' % ('bond' if links > 1 else '1 link', mtu)


def bond_study(bond, change=DEFAULT_BOND_CHANGE, stock_mtu=1500, jumbo_mtu=9000, data_interface=''):
    """One host's part of the jumbo-bond study, or ValueError naming the bad value.

    bond: the host's ``perflab_bond`` (docs/study.md), or None for a host without one (it runs on its data
    interface in both configurations). Returns ``bond`` (perflab_bond with ``apply`` and ``mtu`` set for the
    study, or None), ``tuned_mtu`` (perflab_tuned_mtu: the MTU the tuned configuration sets on the data
    interface, the bond's once built), ``states`` (the labels' state words, saying what differs:
    ``bond MTU 1500`` / ``bond MTU 9000``) and ``configurations`` (stock and tuned: interface, links, MTU).
    The study applies no tuning profile: only what ``change`` names differs.
    """
    change = change or DEFAULT_BOND_CHANGE
    if change not in BOND_CHANGES:
        raise ValueError('perflab_jumbo_bond_change must be one of %s, got %r' % (', '.join(BOND_CHANGES), change))
    for name, value in (('the stock MTU (perflab_data_mtu)', stock_mtu), ('perflab_tuned_mtu', jumbo_mtu)):
        if isinstance(value, bool) or not isinstance(value, int) or not 68 <= value <= 9216:
            raise ValueError('%s must be an MTU from 68 to 9216, got %r' % (name, value))
    if jumbo_mtu == stock_mtu:
        raise ValueError('perflab_tuned_mtu (%d) must differ from the stock MTU: the study compares the two' % jumbo_mtu)
    if bond is not None and not isinstance(bond, dict):
        raise ValueError('perflab_bond must be a mapping, got %r' % (bond,))
    link = {'interface': data_interface, 'links': 1}
    if bond:
        bonded = {'interface': bond.get('name') or 'bond0', 'links': len(bond.get('members') or [])}
        if change == 'mtu':
            # built before the stock run at the stock MTU; the tuned run raises its MTU (members follow)
            bond = dict(bond, apply='both', mtu=stock_mtu)
            stock = dict(bonded, mtu=stock_mtu)
        else:
            bond = dict(bond, apply='tuned', mtu=jumbo_mtu)
            stock = dict(link, mtu=stock_mtu)
        tuned = dict(bonded, mtu=jumbo_mtu)
    else:
        bond = None
        stock, tuned = dict(link, mtu=stock_mtu), dict(link, mtu=jumbo_mtu)
    return {'bond': bond, 'tuned_mtu': jumbo_mtu,
            'states': {'stock': _link_name(stock['links'], stock['mtu']), 'tuned': _link_name(tuned['links'], tuned['mtu'])},
            'configurations': {'stock': stock, 'tuned': tuned}}


# -- the study's design: in which order the repetitions of its two configurations run ------------------------
# interleaved: configurations that switch in place (tuning, sysctls, MTU, firewall, bond) alternate by blocks of
# one repetition of every test, so that what drifts in time (load, heat, a neighbour) lands on both sides;
# sequential: every repetition of the first configuration, then of the second (one OS after another cannot switch)
DESIGNS = ('interleaved', 'sequential')
DESIGN_ORDERS = ('abba', 'random')
DEFAULT_DESIGN = 'interleaved'
DEFAULT_DESIGN_ORDER = 'abba'
# a seed the records keep, so that a random order can be made again (Python's random, any non-negative int)
MAX_DESIGN_SEED = 2 ** 31 - 1


def design_problems(design=None, order=None, seed=None, repetitions=None):
    """Every problem of the design variables (perflab_design, perflab_design_order, perflab_design_seed) with the
    study's perflab_repetitions, one message each: what the study validates before any host changes."""
    problems = []
    if design not in (None, '') and design not in DESIGNS:
        problems.append('perflab_design must be one of %s, got %r' % (', '.join(DESIGNS), design))
    if order not in (None, '') and order not in DESIGN_ORDERS:
        problems.append('perflab_design_order must be one of %s, got %r' % (', '.join(DESIGN_ORDERS), order))
    if seed not in (None, ''):
        text = str(seed).strip()
        if isinstance(seed, bool) or not text.isdigit() or int(text) > MAX_DESIGN_SEED:
            problems.append('perflab_design_seed must be an integer from 0 to %d, got %r' % (MAX_DESIGN_SEED, seed))
    if (design or DEFAULT_DESIGN) == 'interleaved' and isinstance(repetitions, str) \
            and repetitions.strip().lower() == 'auto':
        problems.append('perflab_repetitions auto cannot be interleaved (its rule decides after each run of a test '
                        'whether another follows, which a block of one repetition per configuration cannot wait '
                        'for): give a number of repetitions, or perflab_design=sequential')
    return problems


def design_order(states, repetitions, order=DEFAULT_DESIGN_ORDER, seed=None):
    """The order of the blocks of an interleaved study: a list of state names, each ``repetitions`` times.

    ``abba`` (two states): A B B A A B B A ..., cut where each state has its ``repetitions``: each pair of
    blocks starts with the state the last pair ended with, so that neither side is always first (a linear drift
    lands equally on both after every four blocks). ``random``: each state ``repetitions`` times in the order of
    ``random.Random(seed).shuffle`` (the same seed gives the same order). More than two states: ``abba`` goes
    round them forward, then backward (A B C C B A ...).
    """
    states = list(states)
    repetitions = int(repetitions)
    if not states or repetitions < 1:
        return []
    if order == 'random':
        blocks = [state for _repetition in range(repetitions) for state in states]
        random.Random(int(seed or 0)).shuffle(blocks)
        return blocks
    if order != 'abba':
        raise ValueError('unknown design order %r (%s)' % (order, ', '.join(DESIGN_ORDERS)))
    blocks = []
    for sweep in range(repetitions):
        blocks += states if sweep % 2 == 0 else states[::-1]
    return blocks


def design_blocks(states, repetitions, design=DEFAULT_DESIGN, order=DEFAULT_DESIGN_ORDER, seed=None):
    """The blocks of a study: one mapping per block, in the order they run.

    Each block says its 1-based ``block`` index, its ``state`` (a key of the study's states: stock, tuned),
    which ``repetition`` of every test it runs (the n-th block of a state runs repetition n: the run keys stay
    those of a sequential run, so a resume finds what is done), the ``design`` and the whole ``order`` (what the
    records keep). ``sequential``: one block per state with every repetition (``repetition`` 0: all of them).
    """
    design = design or DEFAULT_DESIGN
    if design == 'sequential':
        order_list = list(states)
        return [{'block': index + 1, 'state': state, 'repetition': 0, 'design': design, 'order': order_list,
                 'order_name': None, 'seed': None} for index, state in enumerate(order_list)]
    order_list = design_order(states, repetitions, order=order or DEFAULT_DESIGN_ORDER, seed=seed)
    seen = {}
    blocks = []
    for index, state in enumerate(order_list):
        seen[state] = seen.get(state, 0) + 1
        blocks.append({'block': index + 1, 'state': state, 'repetition': seen[state], 'design': design,
                       'order': order_list, 'order_name': order or DEFAULT_DESIGN_ORDER,
                       'seed': int(seed) if (order == 'random' and seed not in (None, '')) else None})
    return blocks
