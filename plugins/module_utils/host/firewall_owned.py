# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Which firewall rules the firewall role owns, for the backends that record what they add
(firewalld's rich rules, ufw's rules): only what it recorded adding is ever removed.

A wanted rule the host already had before the role added it (a user's own rule of the same
source, port and protocol) is the user's: adding it changes nothing, so the role neither records
it nor ever removes it. nftables tells its own rules by their recorded comments
(plugins/modules/firewall_nftables.py); iptables, pf and ipfw keep theirs in a chain, anchor or
rule numbers of their own.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import re


def owned_plan(wanted, recorded, present):
    """{add, remove, record_first, record, users'}: what to add (wanted and not the user's), what to
    remove (recorded and no longer wanted), the record before the change (every rule the change may
    add, so a run cut short still knows them) and after it; ``users`` the wanted rules the host had of
    its own (left alone). Rules are compared whole (strings or mappings)."""
    recorded = list(recorded or [])
    users = [rule for rule in (present or []) if rule not in recorded]
    add = [rule for rule in wanted if rule not in users]
    return {'add': add,
            'remove': [rule for rule in recorded if rule not in wanted],
            'record_first': recorded + [rule for rule in add if rule not in recorded],
            'record': add,
            'users': [rule for rule in wanted if rule in users]}


# `ufw show added`: "ufw allow from 10.20.1.5 to any port 3306 proto tcp comment 'mysql'"
_UFW_ADDED = re.compile(r"^ufw allow (?:in )?from (?P<from_ip>\S+) to any port (?P<to_port>[0-9,:]+) "
                        r"proto (?P<proto>tcp|udp)(?: comment '.*')?$")


def ufw_added(text):
    """The allow rules of `ufw show added` in the role's record form ({from_ip, proto, to_port});
    other rules (by application name, to one address, routed) can never equal one of the role's."""
    rules = []
    for line in (text or '').splitlines():
        match = _UFW_ADDED.match(line.strip())
        if match:
            rules.append({'from_ip': match.group('from_ip'), 'proto': match.group('proto'),
                          'to_port': match.group('to_port')})
    return rules


def ipfw_owned(lines, rule_set, tag):
    """[(rule number, comment)] of `ipfw -S list` lines that are the role's: in its set, with a comment
    of exactly ``<tag>:<12 hex>``. Other rules of the set (a user's, even commented ``<tag>: ...``)
    are not: the role deletes its rules by number, never the whole set."""
    pattern = re.compile(r'^(\d+) set %d .* // (%s:[0-9a-f]{12})$' % (int(rule_set), re.escape(tag)))
    found = []
    for line in lines or []:
        match = pattern.match(line.strip())
        if match:
            found.append((int(match.group(1)), match.group(2)))
    return found


def covering(entries, port, protocol='tcp'):
    """The entries of ``firewall_ports`` / ``firewall_openings`` ({port, end_port, protocol}) whose
    range holds ``port`` of ``protocol`` (the management port: a rule there can cut the connection)."""
    port = int(port)
    return [entry for entry in entries or []
            if entry.get('protocol', protocol) == protocol
            and int(entry['port']) <= port <= int(entry.get('end_port') or entry['port'])]
