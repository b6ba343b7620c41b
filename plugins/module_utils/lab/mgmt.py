# -*- coding: utf-8 -*-
# Copyright: perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The management network in the root namespace: the bridge the lab hosts'
mgmt0 hang off, the nftables masquerade for their package installs, and IPv4
forwarding (turned on, and restored when the last lab goes)."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import ipaddress
import os

from ansible_collections.perflab.network.plugins.module_utils.lab.spec import FORWARD_ORIG, STATE_ROOT
from ansible_collections.perflab.network.plugins.module_utils.lab.util import ip, link_exists, run


def mgmt_present(spec):
    return link_exists(spec.bridge) and run(['nft', 'list', 'table', 'ip', spec.nft_table], check=False).returncode == 0


def ensure_mgmt(spec):
    changed = False
    net = ipaddress.ip_network(spec.mgmt_subnet)
    if not link_exists(spec.bridge):
        ip(None, 'link', 'add', spec.bridge, 'type', 'bridge')
        ip(None, 'addr', 'add', '%s/%d' % (spec.gateway(), net.prefixlen), 'dev', spec.bridge)
        ip(None, 'link', 'set', spec.bridge, 'up')
        changed = True
    if run(['nft', 'list', 'table', 'ip', spec.nft_table], check=False).returncode != 0:
        # lab hosts install packages like real servers: NAT them out through this machine
        rules = ('table ip %s {\n chain postrouting {\n  type nat hook postrouting priority srcnat; policy accept;\n'
                 '  ip saddr %s oifname != "%s" masquerade\n }\n}\n') % (spec.nft_table, net, spec.bridge)
        run(['nft', '-f', '-'], input_text=rules)
        changed = True
    with open('/proc/sys/net/ipv4/ip_forward') as f:
        forward = f.read().strip()
    if forward != '1':
        os.makedirs(STATE_ROOT, exist_ok=True)
        if not os.path.exists(FORWARD_ORIG):
            with open(FORWARD_ORIG, 'w') as f:
                f.write(forward + '\n')
        run(['sysctl', '-qw', 'net.ipv4.ip_forward=1'])
        changed = True
    return changed


def remove_mgmt(spec):
    changed = False
    if link_exists(spec.bridge):
        ip(None, 'link', 'del', spec.bridge)
        changed = True
    if run(['nft', 'list', 'table', 'ip', spec.nft_table], check=False).returncode == 0:
        run(['nft', 'delete', 'table', 'ip', spec.nft_table])
        changed = True
    # restore forwarding only when no other lab is up
    others = [d for d in os.listdir(STATE_ROOT) if not d.startswith('.') and d != spec.name] \
        if os.path.isdir(STATE_ROOT) else []
    if not others and os.path.exists(FORWARD_ORIG):
        with open(FORWARD_ORIG) as f:
            orig = f.read().strip()
        run(['sysctl', '-qw', 'net.ipv4.ip_forward=%s' % orig])
        os.unlink(FORWARD_ORIG)
        changed = True
    return changed
