# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""host_guard: the one rollback guard (decisions, the timer, confirm / cancel), run for real
on files under tmp_path; the timer's commands only write files there."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json
import os
import subprocess
import time

import pytest

from ansible.module_utils.testing import patch_module_args

from ansible_collections.perflab.network.plugins.module_utils.host import guard as hg
from ansible_collections.perflab.network.plugins.modules import host_guard as module


def wait_for(path, seconds=20):
    deadline = time.time() + seconds
    while not os.path.exists(path) and time.time() < deadline:
        time.sleep(0.1)
    return os.path.exists(path)


def test_decisions():
    assert hg.decide(['eth1'], ['eth0'], allow=False) == ('plain', [])
    assert hg.decide(['eth0', 'eth1'], ['eth0'], allow=False) == ('refused', ['eth0'])
    assert hg.decide(['eth0', 'eth1'], ['eth0'], allow=True) == ('guarded', ['eth0'])
    assert hg.decide([], ['eth0'], allow=True) == ('plain', [])
    assert hg.timing_problems(30, 120) == []
    assert hg.timing_problems(4, 120, 'mtu_') == ['mtu_management_check_timeout must be 5-600 (got 4)']
    assert hg.timing_problems(30, 30, 'mtu_') == [
        'mtu_rollback_delay must be larger than mtu_management_check_timeout and at most 3600 (got 30)']
    assert len(hg.timing_problems(601, 4000)) == 2


def test_script_text(tmp_path):
    text = hg.script('mtu', 'tok', 7, str(tmp_path), files=['/etc/a b'], commands=[['ip', 'link', 'set', 'dev', 'x0', 'mtu', 1500]],
                     shell='echo last\n')
    lines = text.splitlines()
    assert lines[0] == '#!/bin/sh' and 'sleep 7' in lines
    assert '[ "$(cat %s/armed-mtu 2>/dev/null)" = tok ] || exit 0' % tmp_path in lines
    assert "restore '/etc/a b' '_etc_a b'" in lines
    # the log is opened only once the timer acts (a confirmed change leaves none)
    assert lines.index('exec >%s/rollback-mtu.log 2>&1' % tmp_path) > lines.index('sleep 7')
    assert lines[-4:] == ['ip link set dev x0 mtu 1500', 'echo last', 'rm -f %s/armed-mtu' % tmp_path,
                          'date > %s/rolled-back-mtu' % tmp_path]
    subprocess.run(['sh', '-n', '-c', text], check=True)
    # what reaches the shell is quoted: a hostile interface name or path stays one word
    hostile = hg.script('mtu', 'tok', 7, str(tmp_path), files=['/tmp/x; reboot'],
                        commands=[['ip', 'link', 'set', 'dev', '$(reboot)', 'mtu', 1500]])
    assert "ip link set dev '$(reboot)' mtu 1500" in hostile.splitlines()
    assert "restore '/tmp/x; reboot' '_tmp_x; reboot'" in hostile.splitlines()


def test_unconfirmed_timer_puts_back_and_runs_the_commands(tmp_path):
    state, work = tmp_path / 'state', tmp_path / 'work'
    work.mkdir()
    kept, created = work / 'kept.conf', work / 'created.conf'
    kept.write_text('old\n')
    os.chmod(str(kept), 0o640)
    hg.arm(str(state), 'mtu', 1, [str(kept), str(created)], commands=[['touch', str(work / 'ran')]])
    assert oct(os.stat(str(state)).st_mode & 0o777) == '0o700'
    kept.write_text('new\n')
    created.write_text('made by the change\n')
    assert hg.status(str(state), 'mtu')['armed']
    assert wait_for(str(state / 'rolled-back-mtu'))
    assert kept.read_text() == 'old\n' and oct(os.stat(str(kept)).st_mode & 0o777) == '0o640'
    assert not created.exists() and (work / 'ran').exists()
    assert not hg.status(str(state), 'mtu')['armed']
    # what it did is in its log, each command traced
    assert '+ touch %s' % (work / 'ran') in hg.status(str(state), 'mtu')['log'].splitlines()
    # confirming after the timer acted is an error: the change is gone
    changed, error = hg.confirm(str(state), 'mtu')
    assert not changed and 'acted already' in error


def test_confirmed_timer_does_nothing(tmp_path):
    state = tmp_path / 'state'
    hg.arm(str(state), 'bond0', 1, commands=[['touch', str(tmp_path / 'ran')]])
    assert hg.confirm(str(state), 'bond0') == (True, None)
    assert hg.confirm(str(state), 'bond0') == (False, None)   # once
    time.sleep(2.5)
    assert not (tmp_path / 'ran').exists() and not (state / 'rolled-back-bond0').exists()
    assert not (state / 'rollback-bond0.log').exists()
    assert hg.status(str(state), 'bond0')['confirmed']


def test_an_old_timer_never_acts_on_a_newer_arm(tmp_path):
    """A timer left from an earlier run (its token gone) exits, while the newer one still can act."""
    state = tmp_path / 'state'
    hg.arm(str(state), 'tuning-x0', 1, commands=[['touch', str(tmp_path / 'old-ran')]])
    hg.arm(str(state), 'tuning-x0', 30, commands=[['touch', str(tmp_path / 'new-ran')]], start=False)
    time.sleep(2.5)
    assert not (tmp_path / 'old-ran').exists() and hg.status(str(state), 'tuning-x0')['armed']
    assert hg.cancel(str(state), 'tuning-x0') is True and hg.cancel(str(state), 'tuning-x0') is False


def run_module(args, capsys, check_mode=False):
    args = dict(args, _ansible_check_mode=check_mode)
    with patch_module_args(args):
        with pytest.raises(SystemExit):
            module.main()
    return json.loads(capsys.readouterr().out)


def test_module(tmp_path, capsys):
    base = {'name': 'mtu', 'state_dir': str(tmp_path / 'state')}
    result = run_module(dict(base, state='armed', delay=60), capsys, check_mode=True)
    assert result['changed'] and not result['armed'] and not (tmp_path / 'state').exists()
    result = run_module(dict(base, state='armed', delay=60, commands=[['true']]), capsys)
    assert result['changed'] and result['armed'] and len(result['token']) == 16
    assert result['script'] == str(tmp_path / 'state' / 'rollback-mtu.sh')
    assert run_module(dict(base, state='confirmed'), capsys, check_mode=True)['armed']
    result = run_module(dict(base, state='confirmed'), capsys)
    assert result['changed'] and not result['armed'] and result['confirmed'].endswith(' ' + hg.status(
        str(tmp_path / 'state'), 'mtu')['confirmed'].split()[-1])
    assert not run_module(dict(base, state='cancelled'), capsys)['changed']
    assert run_module(dict(base, state='armed', delay=0), capsys)['failed']
    assert run_module(dict(base, name='a/b', state='query'), capsys)['failed']


def test_forget_leaves_nothing(tmp_path, capsys):
    state = tmp_path / 'state'
    (tmp_path / 'f').write_text('x\n')
    hg.arm(str(state), 'mtu', 30, [str(tmp_path / 'f')], start=False)
    hg.confirm(str(state), 'mtu')
    (state / 'other').write_text('not the guard\n')
    base = {'name': 'mtu', 'state_dir': str(state)}
    assert run_module(dict(base, state='absent'), capsys, check_mode=True)['changed']
    assert (state / 'rollback-mtu.sh').exists()
    assert run_module(dict(base, state='absent'), capsys)['changed']
    assert sorted(os.listdir(str(state))) == ['other']
    assert not run_module(dict(base, state='absent'), capsys)['changed']


def test_ruleset_commands_exact(tmp_path):
    before = str(tmp_path / 'before-firewall')
    saves, restores = hg.ruleset_plan(['nftables', 'iptables'], before)
    assert saves == [(['nft', 'list', 'ruleset'], before + '/ruleset.nft', 'flush ruleset\n'),
                     (['iptables-save'], before + '/iptables.rules', ''),
                     (['ip6tables-save'], before + '/ip6tables.rules', '')]
    assert restores == [['nft', '-f', before + '/ruleset.nft'],
                        ['iptables-restore', before + '/iptables.rules'],
                        ['ip6tables-restore', before + '/ip6tables.rules']]
    assert hg.ruleset_plan([], before) == ([], [])


def test_arm_saves_the_rulesets_and_the_timer_puts_them_back_first(tmp_path):
    ran = []

    def run(argv):
        ran.append(argv)
        return 0, 'table inet perflab {\n}\n', ''
    token, text = hg.arm(str(tmp_path), 'firewall', 60, commands=[['true']], start=False, rulesets=['nftables'], run=run)
    assert ran == [['nft', 'list', 'ruleset']]
    saved = tmp_path / 'before-firewall' / 'ruleset.nft'
    # one nft transaction: flush and load together, nothing in between lets traffic through unfiltered
    assert saved.read_text() == 'flush ruleset\ntable inet perflab {\n}\n'
    lines = text.splitlines()
    assert lines.index('nft -f %s' % saved) < lines.index('true')
    assert lines.index('nft -f %s' % saved) > lines.index('sleep 60')


def test_a_failed_ruleset_save_arms_nothing(tmp_path):
    with pytest.raises(OSError, match=r'iptables-save failed \(rc 1\): no iptables'):
        hg.arm(str(tmp_path), 'firewall', 60, start=False, rulesets=['iptables'], run=lambda argv: (1, '', 'no iptables'))
    assert not hg.status(str(tmp_path), 'firewall')['armed']


def test_the_timer_restores_a_saved_ruleset_by_its_own_command(tmp_path):
    # the restore runs the saved file through the command the plan names (a stand-in `nft` on PATH
    # records its argv: no packet filter is changed by a unit test)
    bindir = tmp_path / 'bin'
    bindir.mkdir()
    fake = bindir / 'nft'
    fake.write_text('#!/bin/sh\necho "$@" >> %s\n' % (tmp_path / 'nft-argv'))
    os.chmod(str(fake), 0o755)
    state = tmp_path / 'state'
    old_path = os.environ['PATH']
    os.environ['PATH'] = '%s:%s' % (bindir, old_path)
    try:
        hg.arm(str(state), 'firewall', 1, rulesets=['nftables'], run=lambda argv: (0, 'table ip t {\n}\n', ''))
        assert wait_for(str(state / 'rolled-back-firewall'))
    finally:
        os.environ['PATH'] = old_path
    assert (tmp_path / 'nft-argv').read_text() == '-f %s\n' % (state / 'before-firewall' / 'ruleset.nft')
