#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

DOCUMENTATION = r'''
module: firewall_nftables
short_description: Open test ports to peer addresses in nftables, remove them exactly, or switch nftables off and back on
version_added: 0.1.0
description:
  - Opens a list of TCP/UDP ports to a list of peer addresses only, on a host filtered by nftables.
  - In nftables every base chain registered on a hook sees the packet, and an C(accept) in one base chain
    does not stop a C(drop) in another one on the same hook. An C(accept) in a table of our own would
    therefore open nothing on a host whose own table drops by default. So this module inserts its
    C(accept) rules at the top of B(every) C(filter) base chain on the C(input) hook (families C(ip),
    C(ip6) and C(inet)), whatever table it belongs to.
  - Every rule it inserts carries a comment C(<tag>:<proto><4|6>:<digest>), the digest being taken
    over the rule text. A second run finds the same comments and changes nothing; O(state=absent)
    deletes by handle exactly the rules it added and nothing else. A rule is its own only when its
    comment has that exact form and, with O(record), is among the comments recorded there when they
    were added. A user's rule whose comment merely starts with C(<tag>:) is never touched. All changes
    of one run are applied as one atomic C(nft -f) transaction.
  - The module only ever adds C(accept) rules (or removes those it added), so it cannot lock out the
    management connection.
  - O(state=disabled) saves the full ruleset to O(snapshot_path) (after checking with C(nft --check)
    that it can be loaded back), then flushes it. O(state=restored) loads the snapshot back atomically
    (C(flush ruleset) and the saved ruleset in one transaction) and moves it aside to
    C(<snapshot_path>.restored).
  - Changes are runtime only (the kernel's ruleset); they do not survive a reboot or a reload of
    C(nftables.service).
extends_documentation_fragment:
  - perflab.network.attributes
attributes:
  check_mode:
    details:
      - The transaction is still validated against the kernel with C(nft --check).
  diff_mode:
    support: full
requirements:
  - nft (nftables 0.9.3 or later, for C(nft -j))
notes:
  - A host with no C(filter) base chain on the C(input) hook filters no inbound traffic with nftables;
    O(state=present) then has nothing to open and reports so in RV(msg).
  - Chains of tables written by C(iptables-nft) are changed too, but C(iptables-nft) then lists them as
    incompatible; the module warns. Use the C(iptables) backend of the C(perflab.network.firewall) role there.
  - Drops in C(prerouting), C(ingress) or C(netdev)/C(bridge) families are not bypassed.
options:
  state:
    description:
      - V(present) inserts the rules for O(peers) and O(ports) (and replaces rules with the same O(tag)
        that differ); V(absent) deletes every rule carrying O(tag).
      - V(disabled) saves the ruleset and flushes it; V(restored) loads the saved ruleset back.
    type: str
    choices: [present, absent, disabled, restored]
    default: present
  peers:
    description:
      - Source addresses (IPv4/IPv6 addresses or networks) allowed to reach O(ports).
      - Required and non-empty with O(state=present), unless O(openings) is given.
    type: list
    elements: str
    default: []
  ports:
    description:
      - Destination ports to open. Required and non-empty with O(state=present), unless O(openings) is given.
    type: list
    elements: dict
    default: []
    suboptions:
      port:
        description: First (or only) port, 1-65535.
        type: int
        required: true
      end_port:
        description: Last port of a range (inclusive), not lower than O(ports[].port).
        type: int
      protocol:
        description: Transport protocol.
        type: str
        choices: [tcp, udp]
        required: true
  openings:
    description:
      - Per-peer openings instead of O(peers) and O(ports), each peer reaching only its own ports, as the
        C(perflab.network.benchmark_plan) module returns them per server host under C(firewall).
      - Peers with the same ports share a rule.
    type: list
    elements: dict
    default: []
    suboptions:
      peer:
        description: Source address (IPv4/IPv6 address or network).
        type: str
        required: true
      port:
        description: First (or only) port, 1-65535.
        type: int
        required: true
      end_port:
        description: Last port of a range (inclusive), not lower than O(openings[].port).
        type: int
      protocol:
        description: Transport protocol.
        type: str
        choices: [tcp, udp]
        required: true
  record:
    description:
      - The snapshot file of the C(perflab.network.firewall) role (a C(perflab.network.host_snapshot) file). The comments
        of the rules added are recorded in its C(records) section under O(record_key) B(before) they are inserted
        (so a run cut short still knows them) and set to what is in place after; O(state=absent) removes only
        recorded rules and drops the record. Without it, the comment's form alone tells the module's rules.
      - Nothing recorded means no rule is the module's; rules added by versions before the record (0.x, without
        O(record)) are left in place by O(state=absent) - remove them by their handle, or call the module once
        without O(record).
    type: path
  record_key:
    description: The key of the record in the snapshot's C(records) section.
    type: str
    default: nftables-rules
  tag:
    description:
      - Prefix of the comment of every rule this module inserts; O(state=absent) removes the rules this module
        added with it (see O(record)).
      - Letters, digits, C(.), C(_) and C(-), at most 32 characters.
    type: str
    default: perflab
  snapshot_path:
    description: Where O(state=disabled) saves the ruleset and O(state=restored) reads it.
    type: path
    default: /var/lib/perflab/firewall/nftables.ruleset
'''

EXAMPLES = r'''
- name: Let only the peer reach iperf3 and netperf
  perflab.network.firewall_nftables:
    peers: [10.206.1.12]
    ports:
      - {port: 5201, end_port: 5204, protocol: tcp}
      - {port: 5201, end_port: 5204, protocol: udp}
      - {port: 12865, protocol: tcp}

- name: Open what a benchmark plan needs on this server, each port to its own client
  perflab.network.firewall_nftables:
    openings:
      - {peer: 10.206.1.12, port: 5201, end_port: 5201, protocol: tcp}
      - {peer: 10.206.1.13, port: 5202, end_port: 5202, protocol: tcp}

- name: Remove exactly the rules added above
  perflab.network.firewall_nftables:
    state: absent

- name: Firewall off for a "no firewall" run (the ruleset is saved first)
  perflab.network.firewall_nftables:
    state: disabled

- name: Firewall back as it was
  perflab.network.firewall_nftables:
    state: restored
'''

RETURN = r'''
chains:
  description: The input base chains (C(family table chain)) the rules go to (or were removed from).
  returned: state is present or absent
  type: list
  elements: str
  sample: ["inet filter input"]
rules:
  description: The rules wanted in each chain of RV(chains) (nft syntax), empty with O(state=absent).
  returned: state is present or absent
  type: list
  elements: str
  sample:
    - 'ip saddr 10.206.1.12 tcp dport { 5201-5204, 12865 } accept comment "perflab:tcp4:0c1f4e2a9b7d"'
added:
  description: Number of rules inserted (or that would be, in check mode).
  returned: always
  type: int
  sample: 2
removed:
  description: Number of rules deleted (or that would be, in check mode).
  returned: always
  type: int
  sample: 0
batch:
  description: The nft transaction applied (or that would be, in check mode); empty when nothing changes.
  returned: always
  type: str
  sample: |
    insert rule inet filter input ip saddr 10.206.1.12 tcp dport 5201 accept comment "perflab:tcp4:0c1f4e2a9b7d"
snapshot_path:
  description: The snapshot file used by O(state=disabled) or O(state=restored).
  returned: state is disabled or restored
  type: str
  sample: /var/lib/perflab/firewall/nftables.ruleset
owned:
  description: The comments of the rules of O(tag) this module added that are in place after the change (what O(record) holds).
  returned: state is present or absent
  type: list
  elements: str
  sample: ["perflab:tcp4:0c1f4e2a9b7d"]
msg:
  description: What was done, in words.
  returned: always
  type: str
  sample: "inserted 2 rule(s) in 1 input chain(s)"
'''

import hashlib
import ipaddress
import json
import os
import re

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.common.text.converters import to_text

from ansible_collections.perflab.network.plugins.module_utils.host import snapshot as host_snapshot

INPUT_FAMILIES = ('ip', 'ip6', 'inet')
TAG_RE = re.compile(r'^[A-Za-z0-9._-]{1,32}$')
# names nft's text syntax can address (nft 1.0.6 accepts no quoted table or chain names)
NFT_NAME_RE = re.compile(r'^[A-Za-z_.][A-Za-z0-9_./-]*$')


def nft_name(name):
    """A table or chain name for an nft command; ValueError where nft text cannot name it."""
    if not NFT_NAME_RE.match(name):
        raise ValueError('nft cannot address the table or chain name %r in a command' % name)
    return name


def split_peers(peers):
    """(ipv4, ipv6) lists of addresses/networks, overlaps collapsed as nft's interval sets do.

    Raises ValueError on a bad address.
    """
    networks = {4: [], 6: []}
    for peer in peers:
        net = ipaddress.ip_network(to_text(peer).strip(), strict=False)
        networks[net.version].append(net)
    result = []
    for version in (4, 6):
        collapsed = ipaddress.collapse_addresses(networks[version])
        result.append([str(net.network_address) if net.prefixlen == net.max_prefixlen else str(net)
                       for net in sorted(collapsed)])
    return result[0], result[1]


def ports_by_protocol(ports):
    """{'tcp': ['5201-5204', '12865'], 'udp': [...]}: merged, sorted, as nft set elements."""
    ranges = {'tcp': [], 'udp': []}
    for item in ports:
        first = item['port']
        last = item.get('end_port') or first
        ranges[item['protocol']].append((first, last))
    result = {}
    for proto, spans in ranges.items():
        merged = []
        for first, last in sorted(spans):
            if merged and first <= merged[-1][1] + 1:
                merged[-1][1] = max(merged[-1][1], last)
            else:
                merged.append([first, last])
        result[proto] = ['%d' % a if a == b else '%d-%d' % (a, b) for a, b in merged]
    return result


def _set_text(elements):
    # nft prints a one-element set (even a range or a prefix) without braces
    if len(elements) == 1:
        return elements[0]
    return '{ %s }' % ', '.join(elements)


def desired_rules(family, peers4, peers6, port_sets, tag):
    """The rules (nft text) to insert in one input chain of ``family``."""
    rules = []
    by_version = []
    if family in ('ip', 'inet') and peers4:
        by_version.append(('ip', '4', peers4))
    if family in ('ip6', 'inet') and peers6:
        by_version.append(('ip6', '6', peers6))
    for match, version, peers in by_version:
        for proto in ('tcp', 'udp'):
            if not port_sets.get(proto):
                continue
            body = '%s saddr %s %s dport %s accept' % (match, _set_text(peers), proto, _set_text(port_sets[proto]))
            digest = hashlib.sha256(body.encode('utf-8')).hexdigest()[:12]
            rules.append('%s comment "%s:%s%s:%s"' % (body, tag, proto, version, digest))
    return rules


def rule_comment(rule_text):
    match = re.search(r'comment "([^"]*)"$', rule_text)
    return match.group(1) if match else None


def input_chains(ruleset):
    """Filter base chains on the input hook, as dicts (family, table, name, policy)."""
    chains = []
    for obj in ruleset:
        chain = obj.get('chain')
        if not chain or chain.get('hook') != 'input' or chain.get('type') != 'filter':
            continue
        if chain.get('family') not in INPUT_FAMILIES:
            continue
        chains.append(chain)
    return chains


def chain_key(obj):
    return (obj.get('family'), obj.get('table'), obj.get('chain', obj.get('name')))


def ours(comment, tag, owned=None):
    """Whether a rule's comment is one this module wrote (``tag:<proto><4|6>:<12 hex>``) and, when
    ``owned`` (the recorded comments) is given, recorded as added: a user's rule whose comment only
    starts with ``tag:`` is not ours."""
    if not re.match(r'^%s:(tcp|udp)[46]:[0-9a-f]{12}$' % re.escape(tag), comment or ''):
        return False
    return owned is None or comment in owned


def tagged_rules(ruleset, tag, owned=None):
    """{(family, table, chain): [(handle, comment)]} of the rules this module added (see ``ours``)."""
    found = {}
    for obj in ruleset:
        rule = obj.get('rule')
        if not rule:
            continue
        comment = rule.get('comment') or ''
        if ours(comment, tag, owned):
            found.setdefault(chain_key(rule), []).append((rule['handle'], comment))
    return found


def chains_with_xt(ruleset):
    """Chains holding iptables-nft compat ('xt') expressions."""
    keys = set()
    for obj in ruleset:
        rule = obj.get('rule')
        if rule and any('xt' in expr for expr in rule.get('expr', [])):
            keys.add(chain_key(rule))
    return keys


def opening_groups(openings):
    """[(peers4, peers6, port_sets)] of per-peer openings: peers with the same ports share rules.

    openings: [{peer, port, end_port, protocol}], what the benchmark plan returns per server host;
    each peer gets exactly its own ports. Raises ValueError on a bad address.
    """
    per_peer = {}
    for item in openings:
        per_peer.setdefault(to_text(item['peer']).strip(), []).append(item)
    by_ports = {}
    for peer in sorted(per_peer):
        sets = ports_by_protocol(per_peer[peer])
        key = (tuple(sets['tcp']), tuple(sets['udp']))
        by_ports.setdefault(key, []).append(peer)
    groups = []
    for (tcp, udp), peers in sorted(by_ports.items()):
        peers4, peers6 = split_peers(peers)
        groups.append((peers4, peers6, {'tcp': list(tcp), 'udp': list(udp)}))
    return groups


def group_rules(family, groups, tag):
    """desired_rules of each (peers4, peers6, port_sets) group, in order."""
    rules = []
    for peers4, peers6, port_sets in groups:
        rules.extend(desired_rules(family, peers4, peers6, port_sets, tag))
    return rules


def plan(ruleset, state, peers4, peers6, port_sets, tag, groups=None, owned=None):
    """(batch lines, added, removed, chains, rules) to reach ``state`` (present/absent).

    groups: [(peers4, peers6, port_sets)] instead of one peers/ports set (see opening_groups);
    owned: the comments recorded as added (None: the comment's form alone, see ``ours``).
    """
    if groups is None:
        groups = [(peers4, peers6, port_sets)]
    lines = []
    added = removed = 0
    chains = []
    wanted_any = []
    existing = tagged_rules(ruleset, tag, owned)
    chain_keys = set()
    for chain in input_chains(ruleset):
        key = (chain['family'], chain['table'], chain['name'])
        chain_keys.add(key)
        chains.append('%s %s %s' % key)
        wanted = group_rules(chain['family'], groups, tag) if state == 'present' else []
        wanted_any = wanted_any or wanted
        have = existing.get(key, [])
        if sorted(c for _h, c in have) == sorted(rule_comment(r) for r in wanted):
            continue
        where = '%s %s %s' % (key[0], nft_name(key[1]), nft_name(key[2]))
        for handle, _comment in have:
            lines.append('delete rule %s handle %d' % (where, handle))
            removed += 1
        # insert puts a rule first; reversed keeps the wanted order in the chain
        for rule in reversed(wanted):
            lines.append('insert rule %s %s' % (where, rule))
            added += 1
    # tagged rules in chains that are no input chain (any more): removed too
    for key, have in sorted(existing.items()):
        if key in chain_keys:
            continue
        where = '%s %s %s' % (key[0], nft_name(key[1]), nft_name(key[2]))
        for handle, _comment in have:
            lines.append('delete rule %s handle %d' % (where, handle))
            removed += 1
    return lines, added, removed, chains, wanted_any


class Nft(object):
    def __init__(self, module):
        self.module = module
        self.bin = module.get_bin_path('nft', required=True)

    def run(self, args, data=None, check_rc=True):
        rc, out, err = self.module.run_command([self.bin] + args, data=data, binary_data=data is not None)
        if check_rc and rc != 0:
            self.module.fail_json(msg='nft %s failed (rc %d): %s' % (' '.join(args), rc, err.strip() or out.strip()),
                                  rc=rc, stdout=out, stderr=err)
        return rc, out, err

    def ruleset(self):
        _rc, out, _err = self.run(['-j', 'list', 'ruleset'])
        if not out.strip():
            return []
        return json.loads(out).get('nftables', [])

    def ruleset_text(self):
        return self.run(['list', 'ruleset'])[1]

    def apply(self, batch, check_only=False):
        args = ['--check', '-f', '-'] if check_only else ['-f', '-']
        self.run(args, data=batch)

    def tagged_text(self, tag, owned=None):
        """The rules this module added as nft prints them, one line each with its chain, for diffs."""
        lines = []
        table = chain = ''
        for raw in self.ruleset_text().splitlines():
            text = raw.strip()
            head = re.match(r'^(table|chain) (.+?) \{$', text)
            if head and head.group(1) == 'table':
                table, chain = head.group(2), ''
            elif head:
                chain = head.group(2)
            elif ours(rule_comment(text), tag, owned):
                lines.append('%s %s: %s' % (table, chain, text))
        return '\n'.join(lines) + ('\n' if lines else '')


def run_rules(module, nft, result):
    params = module.params
    state = params['state']
    tag = params['tag']
    peers4, peers6 = [], []
    port_sets = {}
    groups = None
    if state == 'present' and params['openings']:
        try:
            groups = opening_groups(params['openings'])
        except ValueError as exc:
            module.fail_json(msg='openings: %s' % to_text(exc))
    elif state == 'present':
        try:
            peers4, peers6 = split_peers(params['peers'])
        except ValueError as exc:
            module.fail_json(msg='peers: %s' % to_text(exc))
        port_sets = ports_by_protocol(params['ports'])
    ruleset = nft.ruleset()
    record = Record(module)
    owned = record.read()
    try:
        lines, added, removed, chains, rules = plan(ruleset, state, peers4, peers6, port_sets, tag, groups, owned)
    except ValueError as exc:
        module.fail_json(msg=to_text(exc))
    wanted = sorted(set(rule_comment(r) for r in rules)) if chains else []
    result.update(chains=chains, rules=rules, added=added, removed=removed, owned=wanted)
    xt = [('%s %s %s' % key) for key in chains_with_xt(ruleset) if ('%s %s %s' % key) in chains]
    if xt and state == 'present':
        module.warn('chain(s) %s are written by iptables-nft; iptables will list them as incompatible: '
                    'use firewall_backend=iptables on this host' % ', '.join(sorted(xt)))
    if not lines:
        record.write(wanted)
        if state == 'present' and not chains:
            result['msg'] = 'no nftables filter chain on the input hook: nothing filters inbound traffic, nothing to open'
        else:
            result['msg'] = 'rules already as wanted in %d input chain(s)' % len(chains)
        return
    batch = '\n'.join(lines) + '\n'
    result['batch'] = batch
    result['changed'] = True
    before = nft.tagged_text(tag, owned) if module._diff else ''
    # recorded before they exist: a run cut short still knows every rule it may have added
    record.write(sorted(set(wanted) | set(owned or [])))
    # nft --check validates the whole transaction against the kernel without committing it
    nft.apply(batch, check_only=module.check_mode)
    record.write(wanted)
    if module._diff:
        if module.check_mode:
            after = ''.join('%s: %s\n' % (c, r) for c in chains for r in rules)
        else:
            after = nft.tagged_text(tag, wanted)
        result['diff'] = dict(before=before, after=after,
                              before_header='nftables rules tagged %s' % tag,
                              after_header='nftables rules tagged %s' % tag)
    result['msg'] = 'inserted %d and deleted %d rule(s) in %d input chain(s)' % (added, removed, len(chains))


class Record(object):
    """The comments of the rules added, in the firewall role's snapshot (``record``), if one is given."""

    def __init__(self, module):
        self.module = module
        self.path = module.params['record']
        self.key = module.params['record_key']

    def read(self):
        """The recorded comments ([] when nothing is recorded), or None without ``record`` (the comment's
        form alone tells the module's rules)."""
        if not self.path:
            return None
        try:
            snap = host_snapshot.load(self.path)
        except host_snapshot.SnapshotError as exc:
            self.module.fail_json(msg=to_text(exc))
        found = ((snap or {}).get('records') or {}).get(self.key)
        return list(found) if isinstance(found, list) else []

    def write(self, comments):
        """Set the record to ``comments`` (none: the record goes, and the snapshot once it is empty)."""
        if not self.path or self.module.check_mode:
            return
        try:
            snap = host_snapshot.load(self.path) or host_snapshot.new_snapshot('firewall')
            if host_snapshot.set_entry(snap, 'records', self.key, sorted(comments) or None):
                if host_snapshot.is_empty(snap):
                    host_snapshot.remove(self.path, snap)
                else:
                    host_snapshot.save(self.path, snap)
        except (host_snapshot.SnapshotError, OSError) as exc:
            self.module.fail_json(msg='cannot record the rules added in %s: %s' % (self.path, to_text(exc)))


def _write_private(path, text):
    directory = os.path.dirname(path)
    if not os.path.isdir(directory):
        os.makedirs(directory, 0o700)
    host_snapshot.write_private(path, text.encode('utf-8'), '.nftables.')


def restore_batch(snapshot_path):
    # one transaction: the kernel never sees an empty ruleset in between
    return 'flush ruleset\ninclude "%s"\n' % snapshot_path


def run_disabled(module, nft, result):
    path = module.params['snapshot_path']
    current = nft.ruleset_text()
    has_rules = bool(current.strip())
    result['snapshot_path'] = path
    if os.path.exists(path):
        # an earlier run saved the original: never overwrite it with a flushed ruleset
        if not has_rules:
            result['msg'] = 'nftables already off (ruleset empty; original saved in %s)' % path
            return
        result['msg'] = 'ruleset flushed again (the snapshot taken first in %s is kept)' % path
    else:
        if not module.check_mode:
            _write_private(path, current)
            # refuse to switch off what could not be put back
            rc, out, err = nft.run(['--check', '-f', '-'], data=restore_batch(path), check_rc=False)
            if rc != 0:
                os.unlink(path)
                module.fail_json(msg='the current ruleset cannot be loaded back by nft (%s); not switching it off'
                                 % (err.strip() or out.strip()))
        result['msg'] = 'ruleset saved to %s and flushed' % path
    result['changed'] = True
    result['batch'] = 'flush ruleset\n'
    if module._diff:
        result['diff'] = dict(before=current, after='', before_header='nft list ruleset', after_header='nft list ruleset')
    if not module.check_mode:
        nft.apply('flush ruleset\n')


def run_restored(module, nft, result):
    path = module.params['snapshot_path']
    result['snapshot_path'] = path
    if not os.path.exists(path):
        result['msg'] = 'no snapshot at %s: nothing to restore' % path
        return
    before = nft.ruleset_text()
    batch = restore_batch(path)
    nft.apply(batch, check_only=module.check_mode)
    result['changed'] = True
    result['batch'] = batch
    if not module.check_mode:
        os.rename(path, path + '.restored')
    if module._diff:
        if module.check_mode:
            with open(path) as handle:
                after = handle.read()
        else:
            after = nft.ruleset_text()
        result['diff'] = dict(before=before, after=after, before_header='nft list ruleset', after_header='nft list ruleset')
    result['msg'] = 'ruleset restored from %s' % path


def validate(module):
    params = module.params
    if not TAG_RE.match(params['tag']):
        module.fail_json(msg='tag must be 1-32 letters, digits, ".", "_" or "-", got %r' % params['tag'])
    if params['state'] != 'present':
        return
    if params['openings'] and (params['peers'] or params['ports']):
        module.fail_json(msg='openings replaces peers and ports: give one or the other')
    if not params['openings']:
        if not params['peers']:
            module.fail_json(msg='peers must list at least one address with state=present')
        if not params['ports']:
            module.fail_json(msg='ports must list at least one port with state=present')
    name = 'openings' if params['openings'] else 'ports'
    for index, item in enumerate(params['openings'] or params['ports']):
        for field in ('port', 'end_port'):
            value = item.get(field)
            if value is not None and not 1 <= value <= 65535:
                module.fail_json(msg='%s[%d].%s must be within 1-65535, got %d' % (name, index, field, value))
        if item.get('end_port') is not None and item['end_port'] < item['port']:
            module.fail_json(msg='%s[%d].end_port (%d) is lower than port (%d)' % (name, index, item['end_port'], item['port']))


def main():
    module = AnsibleModule(
        argument_spec=dict(
            state=dict(type='str', default='present', choices=['present', 'absent', 'disabled', 'restored']),
            peers=dict(type='list', elements='str', default=[]),
            ports=dict(type='list', elements='dict', default=[], options=dict(
                port=dict(type='int', required=True),
                end_port=dict(type='int'),
                protocol=dict(type='str', required=True, choices=['tcp', 'udp']),
            )),
            openings=dict(type='list', elements='dict', default=[], options=dict(
                peer=dict(type='str', required=True),
                port=dict(type='int', required=True),
                end_port=dict(type='int'),
                protocol=dict(type='str', required=True, choices=['tcp', 'udp']),
            )),
            tag=dict(type='str', default='perflab'),
            record=dict(type='path'),
            record_key=dict(type='str', default='nftables-rules', no_log=False),
            snapshot_path=dict(type='path', default='/var/lib/perflab/firewall/nftables.ruleset'),
        ),
        supports_check_mode=True,
    )
    validate(module)
    nft = Nft(module)
    result = dict(changed=False, added=0, removed=0, batch='', msg='')
    state = module.params['state']
    if state in ('present', 'absent'):
        run_rules(module, nft, result)
    elif state == 'disabled':
        run_disabled(module, nft, result)
    else:
        run_restored(module, nft, result)
    module.exit_json(**result)


if __name__ == '__main__':
    main()
