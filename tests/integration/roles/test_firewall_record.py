# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The firewall role's record of added rules, kept in its snapshot (host_snapshot).

record-read.yml and record-write.yml run for real on localhost with the state
directory in tmp_path; a record file of an earlier version is taken in.
Nothing outside tmp_path is touched (no firewall is changed).
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
BIN = Path(sys.executable).parent

PLAY = '''
- hosts: localhost
  connection: local
  gather_facts: false
  vars:
    ansible_python_interpreter: %s
  tasks:
    - name: Read
      ansible.builtin.include_role:
        name: perflab.network.firewall
        tasks_from: record-read.yml
    - name: Show what was read
      ansible.builtin.copy:
        content: "{{ __firewall_recorded | to_json }}"
        dest: "{{ out }}"
        mode: "0600"
    - name: Write
      ansible.builtin.include_role:
        name: perflab.network.firewall
        tasks_from: record-write.yml
      vars:
        __firewall_record_rules: "{{ rules }}"
'''


def run(tmp_path, rules):
    play = tmp_path / 'play.yml'
    play.write_text(PLAY % sys.executable)
    state = tmp_path / 'state'
    extra = {'__firewall_state_dir': str(state), '__firewall_record_path': str(state / 'ufw-rules.json'),
             'out': str(tmp_path / 'read.json'), 'rules': rules}
    env = dict(os.environ, ANSIBLE_CONFIG=str(ROOT / 'ansible.cfg'), ANSIBLE_LOCALHOST_WARNING='false',
               ANSIBLE_INVENTORY_UNPARSED_WARNING='false', PATH='%s:%s' % (BIN, os.environ.get('PATH', '')))
    proc = subprocess.run([str(BIN / 'ansible-playbook'), '-i', 'localhost,', str(play), '-e', json.dumps(extra)],
                          cwd=str(ROOT), env=env, capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return json.loads((tmp_path / 'read.json').read_text())


def test_an_old_record_file_is_taken_in_then_replaced_then_removed(tmp_path):
    state = tmp_path / 'state'
    state.mkdir()
    old = [{'from_ip': '10.249.0.2', 'proto': 'tcp', 'to_port': '5201'}]
    # as earlier versions wrote it (copy of to_nice_json)
    (state / 'ufw-rules.json').write_text(json.dumps(old, indent=4) + '\n')
    new = [{'from_ip': '10.249.0.2', 'proto': 'tcp', 'to_port': '5202'}]
    assert run(tmp_path, new) == old
    assert os.listdir(str(state)) == ['stock.json']
    snap = json.loads((state / 'stock.json').read_text())
    assert snap['role'] == 'firewall' and snap['records'] == {'ufw-rules': new}
    # the next run reads the snapshot; an empty record leaves nothing
    assert run(tmp_path, []) == new
    assert os.listdir(str(state)) == []
