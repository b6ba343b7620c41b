# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Issue 29 point 14: the firewall role removes only what it recorded adding, on every backend that
records (firewalld, ufw) and on ipfw (its rules by number, not its set). nftables: test_firewall_nftables.py."""
from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

from ansible_collections.perflab.network.plugins.filter.firewall_owned import FilterModule
from ansible_collections.perflab.network.plugins.module_utils.host import firewall_owned as owned

FILTERS = FilterModule().filters()
RICH = 'rule family="ipv4" source address="10.0.1.12" port port="%s" protocol="tcp" accept'


def test_a_users_identical_rich_rule_is_neither_added_recorded_nor_removed():
    users = RICH % 5201
    wanted = [users, RICH % 5202]
    plan = FILTERS['firewall_owned'](wanted, [], [users, 'rule family="ipv4" source address="10.9.9.9" accept'])
    assert plan == {'add': [RICH % 5202], 'remove': [], 'record_first': [RICH % 5202], 'record': [RICH % 5202],
                    'users': [users]}
    # the next run (ours in place now) changes nothing; closing removes only ours
    again = FILTERS['firewall_owned'](wanted, plan['record'], [users, RICH % 5202])
    assert again['add'] == [RICH % 5202] and again['remove'] == [] and again['record'] == [RICH % 5202]
    closing = FILTERS['firewall_owned']([], plan['record'], [])
    assert closing['remove'] == [RICH % 5202] and closing['record'] == []


def test_rules_no_longer_wanted_are_removed_and_recorded_first():
    plan = owned.owned_plan([RICH % 5203], [RICH % 5201], [RICH % 5201])
    assert plan['remove'] == [RICH % 5201] and plan['add'] == [RICH % 5203]
    assert plan['record_first'] == [RICH % 5201, RICH % 5203] and plan['record'] == [RICH % 5203]


# `ufw show added` as real ufw 0.36 prints it (lines seen in others' documentation of real hosts)
UFW_ADDED = """Added user rules (see 'ufw status' for running firewall):
ufw allow 22/tcp
ufw allow OpenSSH comment 'ssh admin'
ufw allow from 10.20.1.5 to any port 3306 proto tcp comment 'mysql dal client'
ufw allow from 192.168.122.0/24 to 192.168.122.9 port 8000 proto tcp comment 'VM network access'
ufw route allow in on eth0 out on podman1 to any port 443,1514 proto tcp
ufw allow from 10.0.1.12 to any port 5201,5202 proto tcp
ufw allow from 10.0.1.12 to any port 5201:5204 proto udp comment 'perflab'
"""


def test_ufw_show_added_is_read_into_the_record_form():
    assert owned.ufw_added(UFW_ADDED) == [
        {'from_ip': '10.20.1.5', 'proto': 'tcp', 'to_port': '3306'},
        {'from_ip': '10.0.1.12', 'proto': 'tcp', 'to_port': '5201,5202'},
        {'from_ip': '10.0.1.12', 'proto': 'udp', 'to_port': '5201:5204'}]


def test_a_users_identical_ufw_rule_is_left_alone():
    users = {'from_ip': '10.0.1.12', 'proto': 'tcp', 'to_port': '5201,5202'}
    ours = {'from_ip': '10.0.1.12', 'proto': 'udp', 'to_port': '5201:5204'}
    plan = FILTERS['firewall_owned']([users, ours], [ours], UFW_ADDED)
    assert plan['users'] == [users] and plan['add'] == [ours] and plan['record'] == [ours]
    assert FILTERS['firewall_owned']([], [ours], UFW_ADDED)['remove'] == [ours]


IPFW = """00100 set 0 allow ip from any to any via lo0
01000 set 21 allow tcp from 10.0.0.9 to me 22 in keep-state // perflab: ssh of the jump host
10000 set 21 allow tcp from 10.0.1.12 to me 5201 in keep-state // perflab:0c1f4e2a9b7d
10001 set 21 allow udp from 10.0.1.12 to me 5201 in keep-state // perflab:9b7d0c1f4e2a
10002 set 3 allow udp from 10.0.1.12 to me 5201 in keep-state // perflab:aaaaaaaaaaaa
10003 set 21 allow udp from 10.0.1.13 to me 5201 in keep-state // other:bbbbbbbbbbbb
65535 set 31 deny ip from any to any""".splitlines()


def test_ipfw_rules_are_ours_by_set_and_exact_comment_and_deleted_by_number():
    assert FILTERS['ipfw_owned'](IPFW, 21, 'perflab') == [
        {'number': 10000, 'comment': 'perflab:0c1f4e2a9b7d'}, {'number': 10001, 'comment': 'perflab:9b7d0c1f4e2a'}]
