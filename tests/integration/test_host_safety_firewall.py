# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The firewall role's changes under the collection's rollback guard (roles/host_safety), for real.

On lab1 with a default-drop nftables policy, SSH from the control node is let in only by a rule of
the firewall role (firewall_ports 22/tcp from the control node's address, allowed by
firewall_allow_management_change). Removing that rule (firewall_state=absent) really cuts new SSH
connections: the guard's check fails, the host's own timer puts the saved ruleset back, SSH answers
again and the role fails saying so; with the lab's own SSH rule back the removal is confirmed and the
guard's records are removed. Without the opt-in the management port is refused before
anything changes.
"""
from __future__ import annotations

import pytest

from conftest import run_playbook
# the default-drop ruleset whose `tcp dport 22 accept` (the lab's own SSH rule) is taken out below
from test_firewall_bonding import DEFAULT_DROP_NFT, FIREWALL_PLAY

pytestmark = pytest.mark.lab
NAME, MGMT, DATA = 'safe35', '10.245.0.0/24', '10.245.1.0/24'

# the handle of the lab's own `tcp dport 22 accept` (not the role's, which names a source and a comment)
DROP_LAB_SSH_RULE = '''h=$(nft -a list chain inet filter input | awk '$1=="tcp" && $2=="dport" && $3=="22" && $4=="accept" {print $NF}')
[ -n "$h" ] && nft delete rule inet filter input handle "$h"'''


@pytest.fixture(scope='module')
def lab(lab_factory):
    return lab_factory(NAME, hosts=2, mgmt=MGMT, data=DATA)


def sh(lab, script, *args):
    return lab.ssh('lab1', ['sh', '-c', script, 'sh'] + list(args), check=True).stdout


def firewall(lab, tmp_path, **variables):
    play = tmp_path / 'firewall.yml'
    play.write_text(FIREWALL_PLAY)
    return run_playbook(str(play), lab.inventory, dict(target='lab1', **variables))


def test_firewall_rule_that_cuts_ssh_is_rolled_back_by_the_guard(lab, tmp_path):
    sh(lab, 'nft flush ruleset && printf "%s" "$1" | nft -f -', DEFAULT_DROP_NFT)
    try:
        control = sh(lab, 'echo $SSH_CONNECTION').split()[0]
        ssh_port = {'firewall_ports': [{'port': 22, 'protocol': 'tcp'}], 'firewall_peer_addresses': [control],
                    'firewall_backend': 'nftables'}
        guard = {'firewall_allow_management_change': True, 'firewall_rollback_delay': 15,
                 'firewall_management_check_timeout': 5}

        # without the opt-in: refused before anything changes
        before = sh(lab, 'nft list ruleset')
        res = firewall(lab, tmp_path, **ssh_port)
        assert res.rc != 0 and 'include the management port 22/tcp' in res.stdout, res.stdout[-3000:]
        assert sh(lab, 'nft list ruleset') == before

        # with it: the opening is made under the guard, confirmed by a new connection
        res = firewall(lab, tmp_path, **ssh_port, **guard)
        assert res.rc == 0, res.stdout[-4000:]
        assert 'confirmed' in sh(lab, 'ls /var/lib/perflab/firewall')
        assert 'comment "perflab:tcp4:' in sh(lab, 'nft list ruleset')

        # now only the role's rule lets SSH in: removing it cuts new connections
        sh(lab, DROP_LAB_SSH_RULE)
        opened = sh(lab, 'nft list ruleset')
        res = firewall(lab, tmp_path, firewall_state='absent', firewall_backend='nftables', **guard)
        assert res.rc != 0, res.stdout[-4000:]
        assert 'the rollback timer put the packet filter rulesets (nftables' in res.stdout, res.stdout[-4000:]
        # the host healed itself: SSH answers again, the ruleset is the one before the change
        assert lab.ssh('lab1', ['true'], timeout=30).returncode == 0
        assert sh(lab, 'nft list ruleset') == opened
        assert sh(lab, 'cat /var/lib/perflab/firewall/rolled-back-firewall').strip()
        assert 'nft -f /var/lib/perflab/firewall/before-firewall/ruleset.nft' in sh(
            lab, 'cat /var/lib/perflab/firewall/rollback-firewall.log')

        # with the lab's SSH rule back, the same removal is confirmed, and the guard's records go with it
        sh(lab, 'nft add rule inet filter input tcp dport 22 accept')
        res = firewall(lab, tmp_path, firewall_state='absent', firewall_backend='nftables', **guard)
        assert res.rc == 0, res.stdout[-4000:]
        assert 'perflab' not in sh(lab, 'nft list ruleset')
        left = sh(lab, 'ls -A /var/lib/perflab/firewall 2>/dev/null; true').split()
        assert [name for name in left if name.endswith('-firewall') or 'rollback' in name] == [], left
    finally:
        sh(lab, 'nft flush ruleset; rm -rf /var/lib/perflab/firewall')
