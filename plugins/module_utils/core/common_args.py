# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Arguments every test module shares (documented by the perflab.network.test_common fragment)."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import copy
import ipaddress
import os
import re

# Argument checks only: no host I/O here (tests/unit/test_import_layers.py). What needs the host (does an
# interface exist) is asked of the ``host`` the caller passes in (host_platform, host_windows).

# Linux and FreeBSD interface names: at most 15 bytes, no '/', no whitespace, not '.' or '..'
_IFNAME_RE = re.compile(r'^[A-Za-z0-9_.:@+-]{1,15}$')
INTERFACE_NAME_RULE = 'an interface name (1-15 of letters, digits, "_.:@+-")'


def valid_interface_name(name):
    return bool(name) and bool(_IFNAME_RE.match(name)) and name not in ('.', '..')


def tool_paths_errors(tool_paths, name='tool_paths', isabs=None):
    """Why ``tool_paths`` cannot be searched (an entry not an absolute path), as a list of messages.

    ``isabs``: the host's rule for an absolute path (default this host's, os.path.isabs)."""
    isabs = isabs or os.path.isabs
    if tool_paths is None:
        return []
    if isinstance(tool_paths, (str, bytes)) or not isinstance(tool_paths, (list, tuple)):
        return ['%s must be a list of absolute folder paths, got %r' % (name, tool_paths)]
    return ['%s must hold absolute folder paths, got %r' % (name, entry) for entry in tool_paths
            if not isinstance(entry, str) or not isabs(entry)]


TEST_COMMON_ARGS = dict(
    server=dict(type='str', required=True),
    port=dict(type='int'),
    duration=dict(type='int', default=10),
    parallel=dict(type='int', default=1),
    processes=dict(type='int', default=1),
    timeout=dict(type='int'),
    nic_interface=dict(type='str'),
    bind=dict(type='str'),
    run_id=dict(type='str'),
    config=dict(type='str', default=''),
    suite=dict(type='str', default='adhoc'),
    repetition=dict(type='int', default=1),
    client_name=dict(type='str'),
    server_name=dict(type='str'),
    server_interface=dict(type='str'),
    server_mtu=dict(type='int'),
    test_id=dict(type='str'),
    title=dict(type='str'),
    optional=dict(type='bool', default=False),
    link_mbps=dict(type='float'),
    tool_paths=dict(type='list', elements='str'),
    parallel_values=dict(type='list', elements='int'),
)

# (field, low, high) inclusive ranges checked by validate_common
RANGES = (
    ('port', 1, 65535),
    ('duration', 1, 86400),
    ('parallel', 1, 128),
    ('processes', 1, 64),
    ('timeout', 1, 7 * 86400),
    ('repetition', 1, 1000000),
)

TIMEOUT_MARGIN_S = 30

_HOSTNAME_RE = re.compile(r'^(?=.{1,253}$)([A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)'
                          r'(\.[A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)*\.?$')
_LABEL_BAD_RE = re.compile(r'[\x00-\x1f\x7f]')


def common_argument_spec():
    """A fresh copy of TEST_COMMON_ARGS, to merge into a module's argument_spec."""
    return copy.deepcopy(TEST_COMMON_ARGS)


def is_address_or_hostname(text):
    """True for an IPv4/IPv6 address or a DNS host name (no shell metacharacters, no spaces)."""
    if not text or not isinstance(text, str):
        return False
    try:
        ipaddress.ip_address(text if '%' not in text else text.split('%', 1)[0])
        # a zone index (fe80::1%eth0) must itself be an interface name
        return '%' not in text or valid_interface_name(text.split('%', 1)[1])
    except ValueError:
        pass
    return bool(_HOSTNAME_RE.match(text)) and not text.replace('.', '').isdigit()


def is_ipv6(text):
    try:
        return ipaddress.ip_address(text.split('%', 1)[0]).version == 6
    except ValueError:
        return False


def effective_timeout(params, extra=0):
    """``timeout`` if given, else duration + extra (tool warm-up such as iperf3 omit) + 30 s."""
    if params.get('timeout'):
        return int(params['timeout'])
    return int(params.get('duration') or 10) + int(extra) + TIMEOUT_MARGIN_S


def common_errors(params, default_port=None, check_interface=True, host=None):
    """The list of problems with the common params (empty when all is well).

    ``host``: the host the test runs on (host_platform, host_windows): its interface names, which interfaces
    exist (checked with ``check_interface``) and its rule for an absolute path; without it only the syntax of
    the Linux and FreeBSD names is checked.
    """
    errors = []
    for field, low, high in RANGES:
        value = params.get(field)
        if value is not None and not low <= value <= high:
            errors.append('%s must be between %d and %d, got %d' % (field, low, high, value))
    if not is_address_or_hostname(params.get('server')):
        errors.append('server must be an IP address or a host name (letters, digits, "-", "." only), got %r'
                      % (params.get('server'),))
    if params.get('bind') is not None and not is_address_or_hostname(params['bind']):
        errors.append('bind must be an IP address or a host name (letters, digits, "-", "." only), got %r'
                      % (params['bind'],))
    port = params.get('port') or default_port
    processes = params.get('processes') or 1
    if port and 1 <= port <= 65535 and port + processes - 1 > 65535:
        errors.append('port + processes - 1 must be at most 65535 (processes use port..port+processes-1), '
                      'got port %d with processes %d' % (port, processes))
    interface = params.get('nic_interface')
    if interface is not None:
        if not (host.valid_interface_name if host else valid_interface_name)(interface):
            errors.append('nic_interface must be %s, got %r'
                          % (host.interface_name_rule if host else INTERFACE_NAME_RULE, interface))
        elif check_interface and host is not None and not host.interface_exists(interface):
            errors.append('nic_interface %s does not exist on this host (it has: %s)'
                          % (interface, ', '.join(host.existing_interfaces()) or 'none'))
    errors += tool_paths_errors(params.get('tool_paths'), isabs=host.path_is_absolute if host else None)
    link = params.get('link_mbps')
    if link is not None and not 0 < link <= 10000000:
        errors.append('link_mbps must be a link speed above 0 and at most 10000000 Mbit/s, got %s' % (link,))
    for field in ('run_id', 'config', 'suite', 'client_name', 'server_name', 'test_id', 'title'):
        value = params.get(field)
        if value is not None and _LABEL_BAD_RE.search(value):
            errors.append('%s must not contain control characters' % field)
    return errors


def validate_common(module, default_port=None, host=None):
    """Cross-field checks of the common params; fails ``module`` naming the field and what is allowed."""
    errors = common_errors(module.params, default_port=default_port, host=host)
    if errors:
        module.fail_json(msg='; '.join(errors))
