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

SIDES = ('servers', 'clients', 'both')
DEFAULT_SIDE = 'both'
# what makes two hosts the same system, in the order the label names them
IDENTITY = ('system_label', 'distribution', 'version', 'profile')


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


def identity(facts, system_label='', tuned=False, profile=''):
    """What tells one system from another: the host group's label, the OS and its full version,
    and what the study did to it (stock, or tuned with which profile): what the default label names."""
    return {'system_label': (system_label or '').strip(),
            'distribution': facts.get('distribution') or '',
            'version': facts.get('distribution_version') or facts.get('distribution_major_version') or '',
            'profile': state_name(tuned, profile)}


def base_label(facts, system_label=''):
    """``[<system label> ]<OS> <full version>``: the label without the state."""
    ident = identity(facts, system_label)
    return ' '.join(part for part in (ident['system_label'], ident['distribution'], ident['version']) if part)


def default_label(facts, system_label='', tuned=False, profile=''):
    return '%s %s' % (base_label(facts, system_label), state_name(tuned, profile))


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
