# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""firewall_nftables: rule text and planning on real `nft -j` output, then the real module
against the real kernel in throwaway network namespaces, with real TCP/UDP traffic.

The namespaces (h6fw-*) are made and removed by the fixtures; the live tests need root and
skip with a reason elsewhere.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ansible_collections.perflab.network.plugins.modules import firewall_nftables as fw

ROOT = Path(__file__).resolve().parents[4]
FIXTURES = ROOT / 'tests' / 'unit' / 'fixtures' / 'nftables' / '1.0.6'
MODULE = ROOT / 'plugins' / 'modules' / 'firewall_nftables.py'


def load(name):
    return json.loads((FIXTURES / name).read_text())['nftables']


# ---------------------------------------------------------------- pure functions

def test_split_peers_normalizes_and_collapses_like_nft():
    v4, v6 = fw.split_peers(['10.206.1.12', '10.206.1.0/28', '10.206.1.40', 'FD00::0012', '10.206.1.40/32'])
    assert v4 == ['10.206.1.0/28', '10.206.1.40']
    assert v6 == ['fd00::12']


def test_split_peers_rejects_a_bad_address():
    with pytest.raises(ValueError):
        fw.split_peers(['10.206.1.300'])


def test_ports_are_merged_per_protocol():
    sets = fw.ports_by_protocol([
        {'port': 5201, 'end_port': 5204, 'protocol': 'tcp'},
        {'port': 5205, 'end_port': None, 'protocol': 'tcp'},
        {'port': 12865, 'end_port': None, 'protocol': 'tcp'},
        {'port': 5201, 'end_port': 5201, 'protocol': 'udp'},
    ])
    assert sets == {'tcp': ['5201-5205', '12865'], 'udp': ['5201']}


def test_desired_rules_exact_text_per_family():
    sets = {'tcp': ['5201-5204', '12865'], 'udp': ['5201']}
    inet = fw.desired_rules('inet', ['10.206.1.12'], ['fd00::12'], sets, 'perflab')
    assert [r.split(' comment ')[0] for r in inet] == [
        'ip saddr 10.206.1.12 tcp dport { 5201-5204, 12865 } accept',
        'ip saddr 10.206.1.12 udp dport 5201 accept',
        'ip6 saddr fd00::12 tcp dport { 5201-5204, 12865 } accept',
        'ip6 saddr fd00::12 udp dport 5201 accept',
    ]
    assert [fw.rule_comment(r).rsplit(':', 1)[0] for r in inet] == ['perflab:tcp4', 'perflab:udp4', 'perflab:tcp6', 'perflab:udp6']
    # an ip chain takes only IPv4 rules, an ip6 chain only IPv6 ones
    assert all(r.startswith('ip saddr') for r in fw.desired_rules('ip', ['10.206.1.12'], ['fd00::12'], sets, 'perflab'))
    assert all(r.startswith('ip6 saddr') for r in fw.desired_rules('ip6', ['10.206.1.12'], ['fd00::12'], sets, 'perflab'))


def test_the_digest_follows_the_rule():
    a = fw.desired_rules('inet', ['10.206.1.12'], [], {'tcp': ['5201']}, 'perflab')[0]
    b = fw.desired_rules('inet', ['10.206.1.13'], [], {'tcp': ['5201']}, 'perflab')[0]
    assert fw.rule_comment(a) != fw.rule_comment(b)
    assert a == fw.desired_rules('inet', ['10.206.1.12'], [], {'tcp': ['5201']}, 'perflab')[0]


def test_input_chains_of_a_real_ruleset():
    chains = fw.input_chains(load('default-drop.json'))
    # forward/output chains and the nat table are no input filter chains
    assert [(c['family'], c['table'], c['name'], c['policy']) for c in chains] == [
        ('inet', 'filter', 'input', 'drop'), ('ip6', 'my-t', 'in-6', 'accept')]


def test_plan_on_a_fresh_real_ruleset_inserts_in_every_input_chain():
    lines, added, removed, chains, _rules = fw.plan(
        load('default-drop.json'), 'present', ['10.206.1.12'], ['fd00::12'], {'tcp': ['5201'], 'udp': []}, 'perflab')
    assert chains == ['inet filter input', 'ip6 my-t in-6']
    assert (added, removed) == (3, 0)
    assert [line.split(' comment ')[0] for line in lines] == [
        'insert rule inet filter input ip6 saddr fd00::12 tcp dport 5201 accept',
        'insert rule inet filter input ip saddr 10.206.1.12 tcp dport 5201 accept',
        'insert rule ip6 my-t in-6 ip6 saddr fd00::12 tcp dport 5201 accept',
    ]


def test_plan_replaces_stale_tagged_rules_and_leaves_foreign_ones():
    ruleset = load('default-drop-tagged.json')
    lines, added, removed, _chains, _rules = fw.plan(
        ruleset, 'present', ['10.206.1.12'], [], {'tcp': ['5201'], 'udp': []}, 'perflab')
    handles = sorted(rule['rule']['handle'] for rule in ruleset
                     if 'rule' in rule and rule['rule'].get('comment', '').startswith('perflab:'))
    assert removed == 2 and added == 1
    assert sorted(int(line.rsplit(' ', 1)[1]) for line in lines if line.startswith('delete')) == handles
    # the rule tagged "other:" is not ours
    assert not any('my-t' in line and line.startswith('delete') for line in lines)


def test_plan_absent_deletes_only_our_tag():
    lines, added, removed, _chains, _rules = fw.plan(load('default-drop-tagged.json'), 'absent', [], [], {}, 'perflab')
    assert (added, removed) == (0, 2)
    assert all(line.startswith('delete rule inet filter input handle ') for line in lines)


def test_plan_is_empty_when_the_rules_are_in_place():
    ruleset = load('default-drop-tagged.json')
    # rebuild the comments the module would write for the fixture's rules
    wanted = fw.desired_rules('inet', ['10.206.1.12'], [], {'tcp': ['5201', '12865'], 'udp': ['5201']}, 'perflab')
    for obj in ruleset:
        rule = obj.get('rule')
        if rule and rule.get('comment', '').startswith('perflab:tcp4'):
            rule['comment'] = fw.rule_comment(wanted[0])
        elif rule and rule.get('comment', '').startswith('perflab:udp4'):
            rule['comment'] = fw.rule_comment(wanted[1])
    ruleset = [o for o in ruleset if not (o.get('chain', {}).get('name') == 'in-6')]
    lines, added, removed, _chains, _rules = fw.plan(
        ruleset, 'present', ['10.206.1.12'], [], {'tcp': ['5201', '12865'], 'udp': ['5201']}, 'perflab')
    assert (lines, added, removed) == ([], 0, 0)


def test_openings_group_peers_by_their_own_ports():
    groups = fw.opening_groups([
        {'peer': '10.206.1.12', 'port': 5201, 'end_port': 5201, 'protocol': 'tcp'},
        {'peer': '10.206.1.12', 'port': 5201, 'end_port': 5201, 'protocol': 'udp'},
        {'peer': '10.206.1.13', 'port': 5202, 'end_port': 5202, 'protocol': 'tcp'},
        {'peer': '10.206.1.14', 'port': 5201, 'end_port': 5201, 'protocol': 'udp'},
        {'peer': '10.206.1.14', 'port': 5201, 'end_port': None, 'protocol': 'tcp'},
    ])
    # .12 and .14 have the same ports and share a rule; .13 reaches only 5202
    assert groups == [(['10.206.1.12', '10.206.1.14'], [], {'tcp': ['5201'], 'udp': ['5201']}),
                      (['10.206.1.13'], [], {'tcp': ['5202'], 'udp': []})]
    rules = [r.split(' comment ')[0] for r in fw.group_rules('inet', groups, 'perflab')]
    assert rules == ['ip saddr { 10.206.1.12, 10.206.1.14 } tcp dport 5201 accept',
                     'ip saddr { 10.206.1.12, 10.206.1.14 } udp dport 5201 accept',
                     'ip saddr 10.206.1.13 tcp dport 5202 accept']


def test_a_name_nft_cannot_address_is_refused():
    with pytest.raises(ValueError):
        fw.nft_name('bad name')
    assert fw.nft_name('my-t') == 'my-t'


# ---------------------------------------------------------------- live, in network namespaces

def _live_problem():
    if os.geteuid() != 0:
        return 'needs root (network namespaces, nftables)'
    for tool in ('ip', 'nft'):
        if not shutil.which(tool):
            return '%s is not installed' % tool
    return None


live = pytest.mark.skipif(_live_problem() is not None, reason=str(_live_problem()))

LISTENER = r'''
import socket, sys, threading
port = int(sys.argv[1])
def tcp():
    s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(('0.0.0.0', port)); s.listen(16)
    while True:
        c, _ = s.accept(); c.sendall(b'hello'); c.close()
def udp():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(('0.0.0.0', port))
    while True:
        data, peer = s.recvfrom(64); s.sendto(b'echo ' + data, peer)
threading.Thread(target=tcp, daemon=True).start()
print('listening', flush=True)
udp()
'''

PROBE = r'''
import socket, sys
proto, host, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
try:
    if proto == 'tcp':
        s = socket.create_connection((host, port), timeout=1.5); ok = s.recv(5) == b'hello'
    else:
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.settimeout(1.5)
        s.sendto(b'x', (host, port)); ok = s.recvfrom(64)[0] == b'echo x'
except OSError:
    ok = False
print('open' if ok else 'closed')
'''


def sh(argv, **kwargs):
    return subprocess.run(argv, capture_output=True, text=True, check=True, **kwargs)


class Triangle(object):
    """Namespace srv with two links: to peer (allowed) and to other (a third host)."""

    def __init__(self, tag):
        self.srv, self.peer, self.other = 'h6fw-%s-s' % tag, 'h6fw-%s-p' % tag, 'h6fw-%s-o' % tag
        self.listener = None

    def up(self):
        for ns in (self.srv, self.peer, self.other):
            subprocess.run(['ip', 'netns', 'del', ns], capture_output=True, check=False)
            sh(['ip', 'netns', 'add', ns])
            sh(['ip', '-n', ns, 'link', 'set', 'lo', 'up'])
        for ns, side, mine, theirs in ((self.peer, 'p', '10.206.1.201', '10.206.1.202'),
                                       (self.other, 'o', '10.206.1.205', '10.206.1.206')):
            sh(['ip', 'link', 'add', 'h6fw' + side + '0', 'netns', self.srv, 'type', 'veth',
                'peer', 'name', 'h6fw' + side + '1', 'netns', ns])
            sh(['ip', '-n', self.srv, 'addr', 'add', mine + '/30', 'dev', 'h6fw' + side + '0'])
            sh(['ip', '-n', ns, 'addr', 'add', theirs + '/30', 'dev', 'h6fw' + side + '1'])
            sh(['ip', '-n', self.srv, 'link', 'set', 'h6fw' + side + '0', 'up'])
            sh(['ip', '-n', ns, 'link', 'set', 'h6fw' + side + '1', 'up'])
        self.listener = subprocess.Popen(['ip', 'netns', 'exec', self.srv, sys.executable, '-c', LISTENER, '5201'],
                                         stdout=subprocess.PIPE, text=True)
        assert self.listener.stdout.readline().strip() == 'listening'

    def down(self):
        if self.listener:
            self.listener.kill()
            self.listener.wait()
        for ns in (self.srv, self.peer, self.other):
            subprocess.run(['ip', 'netns', 'del', ns], capture_output=True, check=False)

    def reach(self, who, proto='tcp'):
        ns, address = (self.peer, '10.206.1.201') if who == 'peer' else (self.other, '10.206.1.205')
        out = sh(['ip', 'netns', 'exec', ns, sys.executable, '-c', PROBE, proto, address, '5201'])
        return out.stdout.strip()

    def nft(self, *args, **kwargs):
        return sh(['ip', 'netns', 'exec', self.srv, 'nft'] + list(args), **kwargs).stdout

    def module(self, args, check=False, diff=False):
        payload = dict(args, _ansible_check_mode=check, _ansible_diff=diff)
        env = dict(os.environ, PYTHONPATH=str(ROOT / '.collections'))
        proc = subprocess.run(['ip', 'netns', 'exec', self.srv, sys.executable, str(MODULE)],
                              input=json.dumps({'ANSIBLE_MODULE_ARGS': payload}), capture_output=True, text=True, env=env, check=False)
        return json.loads(proc.stdout)


DEFAULT_DROP = '''
table inet filter {
  chain input {
    type filter hook input priority filter; policy drop;
    ct state established,related accept
    iif lo accept
    tcp dport 22 accept
  }
}
'''

OPEN = {'peers': ['10.206.1.202'], 'ports': [{'port': 5201, 'protocol': 'tcp'}, {'port': 5201, 'protocol': 'udp'}]}


@pytest.fixture
def triangle(request, tmp_path):
    net = Triangle(str(os.getpid() % 10000))
    try:
        net.up()
        yield net
    finally:
        net.down()


@live
def test_an_accept_in_our_own_table_does_not_open_what_another_table_drops(triangle):
    """Why the module inserts into the existing chains: nft runs every base chain on a hook."""
    triangle.nft('-f', '-', input=DEFAULT_DROP)
    triangle.nft('-f', '-', input='table inet perflab {\n chain input {\n type filter hook input priority -10; policy accept;\n'
                                  ' ip saddr 10.206.1.202 tcp dport 5201 accept\n }\n}\n')
    assert triangle.reach('peer') == 'closed'
    # while the same accept in the dropping chain itself opens the port
    triangle.nft('insert', 'rule', 'inet', 'filter', 'input', 'ip', 'saddr', '10.206.1.202', 'tcp', 'dport', '5201', 'accept')
    assert triangle.reach('peer') == 'open'
    triangle.nft('delete', 'table', 'inet', 'perflab')


@live
def test_only_the_peer_gets_in_and_removal_is_exact(triangle, tmp_path):
    triangle.nft('-f', '-', input=DEFAULT_DROP)
    before = triangle.nft('list', 'ruleset')
    assert (triangle.reach('peer'), triangle.reach('other')) == ('closed', 'closed')

    checked = triangle.module(OPEN, check=True, diff=True)
    assert checked['changed'] is True and checked['added'] == 2
    assert triangle.nft('list', 'ruleset') == before  # check mode changed nothing
    assert '+inet filter input: ip saddr 10.206.1.202 tcp dport 5201 accept' in \
        ''.join('+' + line + '\n' for line in checked['diff']['after'].splitlines())

    first = triangle.module(OPEN)
    assert first['changed'] is True and first['chains'] == ['inet filter input']
    assert triangle.reach('peer') == 'open' and triangle.reach('peer', 'udp') == 'open'
    assert triangle.reach('other') == 'closed' and triangle.reach('other', 'udp') == 'closed'

    second = triangle.module(OPEN)
    assert second['changed'] is False and second['batch'] == ''

    removed = triangle.module({'state': 'absent'})
    assert removed['changed'] is True and removed['removed'] == 2
    assert triangle.reach('peer') == 'closed'
    assert triangle.nft('list', 'ruleset') == before
    assert triangle.module({'state': 'absent'})['changed'] is False


@live
def test_openings_let_each_peer_reach_only_its_own_ports(triangle):
    triangle.nft('-f', '-', input=DEFAULT_DROP)
    before = triangle.nft('list', 'ruleset')
    # the peer gets 5201 (where the listener is); the other host only 5202
    openings = [{'peer': '10.206.1.202', 'port': 5201, 'protocol': 'tcp'},
                {'peer': '10.206.1.206', 'port': 5202, 'protocol': 'tcp'}]
    first = triangle.module({'openings': openings})
    assert first['changed'] is True and first['added'] == 2, first
    assert (triangle.reach('peer'), triangle.reach('other')) == ('open', 'closed')
    assert triangle.module({'openings': openings})['changed'] is False
    assert triangle.module({'state': 'absent'})['removed'] == 2
    assert triangle.nft('list', 'ruleset') == before
    both = triangle.module({'openings': openings, 'peers': ['10.206.1.202']})
    assert both['failed'] and 'openings replaces peers and ports' in both['msg']


@live
def test_off_and_back_restores_the_same_ruleset(triangle, tmp_path):
    triangle.nft('-f', '-', input=DEFAULT_DROP)
    before = triangle.nft('list', 'ruleset')
    snapshot = str(tmp_path / 'state' / 'nftables.ruleset')
    off = triangle.module({'state': 'disabled', 'snapshot_path': snapshot})
    assert off['changed'] is True and triangle.nft('list', 'ruleset').strip() == ''
    assert oct(os.stat(snapshot).st_mode & 0o777) == '0o600'
    assert triangle.reach('other') == 'open'  # firewall off: everyone gets in
    assert triangle.module({'state': 'disabled', 'snapshot_path': snapshot})['changed'] is False
    back = triangle.module({'state': 'restored', 'snapshot_path': snapshot})
    assert back['changed'] is True
    assert triangle.nft('list', 'ruleset') == before
    assert triangle.reach('other') == 'closed'
    assert triangle.module({'state': 'restored', 'snapshot_path': snapshot})['changed'] is False


@live
def test_bad_input_fails_before_anything_runs(triangle):
    result = triangle.module({'peers': ['10.206.1.202'], 'ports': [{'port': 70000, 'protocol': 'tcp'}]})
    assert result['failed'] and 'ports[0].port must be within 1-65535' in result['msg']
    result = triangle.module({'peers': ['not-an-address'], 'ports': [{'port': 5201, 'protocol': 'tcp'}]})
    assert result['failed'] and result['msg'].startswith('peers:')
    result = triangle.module({'peers': ['10.206.1.202'], 'ports': [{'port': 5201, 'protocol': 'sctp'}]})
    assert result['failed'] and 'sctp' in result['msg']
    assert triangle.nft('list', 'ruleset').strip() == ''


# issue 29 point 14: only the rules the module added are removed, never a user's rule whose comment
# starts with the tag
def _with_user_rules(ruleset, comments):
    ruleset = [dict(o) for o in ruleset]
    handle = 900
    for comment in comments:
        handle += 1
        ruleset.append({'rule': {'family': 'inet', 'table': 'filter', 'chain': 'input', 'handle': handle,
                                 'comment': comment, 'expr': []}})
    return ruleset


@pytest.mark.parametrize('comment', ['perflab: allow ssh from the jump host', 'perflab:', 'perflab:tcp4:aaaa',
                                     'perflab:tcp4:AAAAAAAAAAAA', 'perflab:tcp4:aaaaaaaaaaaa extra', 'perflab:sctp4:aaaaaaaaaaaa'])
def test_a_users_rule_with_a_tag_like_comment_is_not_ours(comment):
    assert fw.ours(comment, 'perflab') is False
    ruleset = _with_user_rules(load('default-drop-tagged.json'), [comment])
    lines, _added, removed, _chains, _rules = fw.plan(ruleset, 'absent', [], [], {}, 'perflab')
    assert removed == 2 and not any(line.endswith('handle 901') for line in lines)


def test_with_a_record_only_recorded_rules_are_ours():
    # a rule of the module's form that this host's record does not hold (another tool's, copied) stays
    ruleset = load('default-drop-tagged.json')
    lines, _added, removed, _chains, _rules = fw.plan(ruleset, 'absent', [], [], {}, 'perflab',
                                                      owned=['perflab:udp4:bbbbbbbbbbbb'])
    assert removed == 1 and len(lines) == 1
    assert fw.plan(ruleset, 'absent', [], [], {}, 'perflab', owned=[])[2] == 0


@live
def test_a_users_perflab_rule_survives_and_the_record_follows_the_rules(triangle, tmp_path):
    triangle.nft('-f', '-', input=DEFAULT_DROP)
    # the user's own rules: a comment starting with "perflab:", and one of the module's very form
    triangle.nft('add', 'rule', 'inet', 'filter', 'input', 'tcp', 'dport', '2222', 'accept', 'comment',
                 '"perflab: ssh from the jump host"')
    triangle.nft('add', 'rule', 'inet', 'filter', 'input', 'tcp', 'dport', '2223', 'accept', 'comment',
                 '"perflab:tcp4:0123456789ab"')
    before = triangle.nft('list', 'ruleset')
    record = tmp_path / 'firewall' / 'stock.json'
    first = triangle.module(dict(OPEN, record=str(record)))
    assert first['changed'] is True and first['added'] == 2 and first['removed'] == 0, first
    saved = json.loads(record.read_text())['records']['nftables-rules']
    assert saved == sorted(first['owned']) and len(saved) == 2 and 'perflab:tcp4:0123456789ab' not in saved
    assert triangle.reach('peer') == 'open'
    assert triangle.module(dict(OPEN, record=str(record)))['changed'] is False
    removed = triangle.module({'state': 'absent', 'record': str(record)})
    assert removed['removed'] == 2 and removed['owned'] == [], removed
    assert triangle.nft('list', 'ruleset') == before          # both user rules are still there
    assert not record.exists()                                 # the record went with the rules
    assert triangle.module({'state': 'absent', 'record': str(record)})['changed'] is False
    # without a record, the comment's form still keeps the first user rule
    assert triangle.module({'state': 'absent'})['removed'] == 1
    assert 'perflab: ssh from the jump host' in triangle.nft('list', 'ruleset')
