#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

DOCUMENTATION = r'''
module: firewall_info
short_description: Tell which firewall filters inbound traffic on a Linux or FreeBSD host
version_added: 0.1.0
description:
  - Looks for firewalld, ufw, nftables, iptables (and its variant, C(nf_tables) or C(legacy)), pf and ipfw,
    reads whether each is active and how its input path is set up, and names the backend the
    C(perflab.network.firewall) role should use (RV(backend)).
  - Reads only; changes nothing.
  - "The choice, first match wins: firewalld running; ufw active; iptables whose C(INPUT) chain has rules or a
    C(DROP) policy; nftables installed; iptables installed; pf enabled; ipfw enabled; pf installed; else C(none)."
extends_documentation_fragment:
  - perflab.network.attributes.info_module
  - perflab.network.attributes
options:
  pf_anchor:
    description: The pf anchor whose presence in the main ruleset C(anchor_hooked) in RV(pf) reports.
    type: str
    default: perflab
  iptables_chain:
    description: The chain of our own that the iptables backend jumps to; its jump is not counted as a rule of C(INPUT).
    type: str
    default: PERFLAB-INPUT
'''

EXAMPLES = r'''
- name: Find the firewall
  perflab.network.firewall_info:
  register: firewall_found

- name: Show the backend
  ansible.builtin.debug:
    msg: "{{ firewall_found.backend }}"
'''

RETURN = r'''
backend:
  description: The backend to use, C(none) where nothing filters inbound traffic.
  returned: always
  type: str
  sample: nftables
reason:
  description: Why RV(backend) was chosen.
  returned: always
  type: str
  sample: nft is installed and no other firewall is active
firewalld:
  description: C(installed), C(running).
  returned: always
  type: dict
  sample: {installed: false, running: false}
ufw:
  description: C(installed), C(active).
  returned: always
  type: dict
  sample: {installed: false, active: false}
nftables:
  description: C(installed), C(input_chains) (C(family table chain) of each filter base chain on the input hook),
    C(drop_policy_chains) (those with policy drop).
  returned: always
  type: dict
  sample: {installed: true, input_chains: ["inet filter input"], drop_policy_chains: ["inet filter input"]}
iptables:
  description: C(installed), C(variant) (C(nf_tables), C(legacy) or C("")), C(input_policy), C(input_rules)
    (rules of C(INPUT) besides our own jump).
  returned: always
  type: dict
  sample: {installed: false, variant: "", input_policy: "", input_rules: 0}
pf:
  description: C(installed), C(enabled), C(anchor_hooked) (the main ruleset references O(pf_anchor)).
  returned: always
  type: dict
  sample: {installed: false, enabled: false, anchor_hooked: false}
ipfw:
  description: C(installed), C(enabled).
  returned: always
  type: dict
  sample: {installed: false, enabled: false}
'''

import json
import re

from ansible.module_utils.basic import AnsibleModule


def parse_nft_input_chains(text):
    """(input chains, drop-policy chains) from ``nft -j list ruleset`` output."""
    chains, drops = [], []
    if not text.strip():
        return chains, drops
    for obj in json.loads(text).get('nftables', []):
        chain = obj.get('chain')
        if not chain or chain.get('hook') != 'input' or chain.get('type') != 'filter':
            continue
        if chain.get('family') not in ('ip', 'ip6', 'inet'):
            continue
        name = '%s %s %s' % (chain['family'], chain['table'], chain['name'])
        chains.append(name)
        if chain.get('policy') == 'drop':
            drops.append(name)
    return chains, drops


def parse_iptables_input(text, own_chain):
    """(policy, rule count) of ``iptables -S INPUT`` output, our own jump not counted."""
    policy, rules = '', 0
    for line in text.splitlines():
        parts = line.split()
        if parts[:2] == ['-P', 'INPUT'] and len(parts) > 2:
            policy = parts[2]
        elif parts[:2] == ['-A', 'INPUT'] and parts[-2:] != ['-j', own_chain]:
            rules += 1
    return policy, rules


def parse_iptables_variant(text):
    match = re.search(r'\((nf_tables|legacy)\)', text)
    return match.group(1) if match else ''


def choose_backend(info):
    """(backend, reason) from the collected info; first match wins."""
    if info['firewalld']['running']:
        return 'firewalld', 'firewalld is running'
    if info['ufw']['active']:
        return 'ufw', 'ufw is active'
    ipt = info['iptables']
    if ipt['installed'] and (ipt['input_rules'] or ipt['input_policy'] == 'DROP'):
        return 'iptables', 'the iptables INPUT chain filters (%d rule(s), policy %s)' % (ipt['input_rules'], ipt['input_policy'])
    if info['nftables']['installed']:
        return 'nftables', 'nft is installed and no other firewall is active'
    if ipt['installed']:
        return 'iptables', 'iptables is installed and no other firewall is active'
    if info['pf']['enabled']:
        return 'pf', 'pf is enabled'
    if info['ipfw']['enabled']:
        return 'ipfw', 'ipfw is enabled'
    if info['pf']['installed']:
        return 'pf', 'pfctl is installed and no other firewall is active'
    return 'none', 'no firewall tool found'


def collect(module):
    params = module.params

    def run(argv):
        return module.run_command(argv)

    def which(name):
        return module.get_bin_path(name)

    info = dict(
        firewalld=dict(installed=False, running=False),
        ufw=dict(installed=False, active=False),
        nftables=dict(installed=False, input_chains=[], drop_policy_chains=[]),
        iptables=dict(installed=False, variant='', input_policy='', input_rules=0),
        pf=dict(installed=False, enabled=False, anchor_hooked=False),
        ipfw=dict(installed=False, enabled=False),
    )
    firewall_cmd = which('firewall-cmd')
    if firewall_cmd:
        info['firewalld']['installed'] = True
        info['firewalld']['running'] = run([firewall_cmd, '--state'])[0] == 0
    ufw = which('ufw')
    if ufw:
        info['ufw']['installed'] = True
        rc, out, _err = run([ufw, 'status'])
        info['ufw']['active'] = rc == 0 and out.strip().startswith('Status: active')
    nft = which('nft')
    if nft:
        info['nftables']['installed'] = True
        rc, out, err = run([nft, '-j', 'list', 'ruleset'])
        if rc != 0:
            module.fail_json(msg='nft -j list ruleset failed: %s' % err.strip())
        chains, drops = parse_nft_input_chains(out)
        info['nftables'].update(input_chains=chains, drop_policy_chains=drops)
    iptables = which('iptables')
    if iptables:
        info['iptables']['installed'] = True
        info['iptables']['variant'] = parse_iptables_variant(run([iptables, '-V'])[1])
        rc, out, _err = run([iptables, '-w', '-S', 'INPUT'])
        if rc == 0:
            policy, rules = parse_iptables_input(out, params['iptables_chain'])
            info['iptables'].update(input_policy=policy, input_rules=rules)
    pfctl = which('pfctl')
    if pfctl:
        info['pf']['installed'] = True
        rc, out, _err = run([pfctl, '-s', 'info'])
        info['pf']['enabled'] = rc == 0 and 'Status: Enabled' in out
        rc, out, _err = run([pfctl, '-s', 'Anchors'])
        info['pf']['anchor_hooked'] = rc == 0 and params['pf_anchor'] in [line.strip() for line in out.splitlines()]
    ipfw = which('ipfw')
    if ipfw:
        info['ipfw']['installed'] = True
        sysctl = which('sysctl')
        if sysctl:
            rc, out, _err = run([sysctl, '-n', 'net.inet.ip.fw.enable'])
            info['ipfw']['enabled'] = rc == 0 and out.strip() == '1'
    return info


def main():
    module = AnsibleModule(
        argument_spec=dict(
            pf_anchor=dict(type='str', default='perflab'),
            iptables_chain=dict(type='str', default='PERFLAB-INPUT'),
        ),
        supports_check_mode=True,
    )
    info = collect(module)
    backend, reason = choose_backend(info)
    module.exit_json(changed=False, backend=backend, reason=reason, **info)


if __name__ == '__main__':
    main()
