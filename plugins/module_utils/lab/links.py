# -*- coding: utf-8 -*-
# Copyright: perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The data links: the switch namespace with its bridge, and the shaping and
offloads of the ports."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

from ansible_collections.perflab.network.plugins.module_utils.lab.spec import SWITCH_PORT_MTU
from ansible_collections.perflab.network.plugins.module_utils.lab.util import ip, link_exists, netns_list, run


def ensure_switch(spec):
    if spec.switch_ns in netns_list() and link_exists('br0', spec.switch_ns):
        return False
    if spec.switch_ns not in netns_list():
        run(['ip', 'netns', 'add', spec.switch_ns])
    ip(spec.switch_ns, 'link', 'add', 'br0', 'type', 'bridge')
    ip(spec.switch_ns, 'link', 'set', 'br0', 'mtu', str(SWITCH_PORT_MTU), 'up')
    ip(spec.switch_ns, 'link', 'set', 'lo', 'up')
    return True


def shape_port(spec, port):
    """A switch port's egress is the link rate towards its host."""
    if not spec.rate_mbit:
        run(['ip', 'netns', 'exec', spec.switch_ns, 'tc', 'qdisc', 'del', 'dev', port, 'root'], check=False)
        return
    rate = '%dmbit' % spec.rate_mbit
    # tbf needs a bucket of at least rate/HZ; 10 ms of traffic, never below 64 jumbo frames
    burst = max(spec.rate_mbit * 1000000 // 8 // 100, 64 * 9216)
    tc = ['ip', 'netns', 'exec', spec.switch_ns, 'tc']
    if spec.shaper == 'tbf':
        run(tc + ['qdisc', 'replace', 'dev', port, 'root', 'tbf', 'rate', rate, 'burst', str(burst), 'latency', '50ms'])
    else:
        run(tc + ['qdisc', 'replace', 'dev', port, 'root', 'handle', '1:', 'htb', 'default', '10'])
        run(tc + ['class', 'replace', 'dev', port, 'parent', '1:', 'classid', '1:10', 'htb', 'rate', rate,
                  'burst', str(burst)])


def set_offloads(netns, dev, on):
    state = 'on' if on else 'off'
    # gro/gso/tso off make MTU matter as it does on a real NIC without offloads
    run(['ip', 'netns', 'exec', netns, 'ethtool', '-K', dev, 'tso', state, 'gso', state, 'gro', state,
         'tx', state, 'rx', state, 'sg', state], check=False)
