# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Host safety facts shared by the configuration roles (tuning, mtu, bonding) and
perflab.network.host_network_info / bonding_info: which interface carries the management
connection, and which network stack manages an interface.

Pure functions: the module runs the commands and hands their output here.

Management interface, rules tried in this order (every address found counts, the
interfaces of all of them are management interfaces):

1. ``ssh_connection`` - the server address of ``$SSH_CONNECTION``: the address the
   current SSH connection arrived on, as seen on the host (right behind NAT or a jump host).
2. ``ansible_host`` - the address Ansible connects to (``ansible_host``) when the host holds it.
3. ``default_route`` - only when neither found an interface (and the caller allows it):
   the interface of the IPv4 default route, else of the IPv6 one (lowest metric first).

Network stack, one order (the first stack that manages wins)::

    netplan, networkmanager, networkd, ifupdown, ifcfg, freebsd, windows

netplan comes first because it renders for NetworkManager or networkd: writing their
files under netplan is overwritten by the next ``netplan apply``. NetworkManager before
ifcfg because NetworkManager reads the ifcfg files on EL (ifcfg-rh) and must reload them.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json
import re

STACK_ORDER = ('netplan', 'networkmanager', 'networkd', 'ifupdown', 'ifcfg', 'freebsd', 'windows')
RULES = ('ssh_connection', 'ansible_host', 'default_route')

IFUPDOWN_SOURCE_RE = re.compile(r'(?m)^[ \t]*source(-directory)?[ \t]+/etc/network/interfaces\.d')
NETWORKD_FILE_RE = re.compile(r'Network File: (/\S+)')
# ours: <prefix>..., NN-<prefix>... or ifcfg-<prefix>...
OWN_NAME_RE = re.compile(r'^(\d+-|ifcfg-)')


# the options of the modules that read a host's network configuration files (bonding_info, host_network_info;
# their docs: the host_config doc fragment)
CONFIG_FILE_ARGS = dict(
    own_prefix=dict(type='str', default='perflab'),
    root_dir=dict(type='path', default='/'),
)


def normalize_address(address):
    """The bare address: no zone (fe80::1%eth0), IPv4-mapped IPv6 (::ffff:10.0.0.1) as IPv4."""
    address = (address or '').strip().split('%')[0]
    if address.startswith('[') and address.endswith(']'):
        address = address[1:-1]
    if address.lower().startswith('::ffff:') and '.' in address:
        address = address[len('::ffff:'):]
    return address


def looks_like_address(text):
    text = normalize_address(text)
    return bool(re.match(r'^\d{1,3}(\.\d{1,3}){3}$', text)) or (':' in text and bool(re.match(r'^[0-9A-Fa-f:.]+$', text)))


def ssh_server_address(ssh_connection):
    """The server address of $SSH_CONNECTION ("client cport server sport"), '' if none."""
    parts = (ssh_connection or '').split()
    return normalize_address(parts[2]) if len(parts) >= 4 else ''


def parse_links(ip_json):
    """``ip -j addr`` (or ``ip -d -j addr``) output as a list of links."""
    if isinstance(ip_json, list):
        return ip_json
    return json.loads(ip_json or '[]')


def interfaces_of_address(links, address):
    """Names of the links holding ``address`` (normally one)."""
    address = normalize_address(address)
    if not address:
        return []
    found = []
    for link in links:
        for info in link.get('addr_info', []):
            if normalize_address(info.get('local', '')) == address and link.get('ifname') not in found:
                found.append(link.get('ifname', ''))
    return found


def interface_of_address(ip_json, address):
    """The interface holding ``address`` in ``ip -j addr`` output ('' if none)."""
    found = interfaces_of_address(parse_links(ip_json), address)
    return found[0] if found else ''


def interfaces_of_address_freebsd(ifconfig_text, address):
    """Names of the interfaces holding ``address`` in FreeBSD ``ifconfig -a`` output."""
    address = normalize_address(address)
    current, found = '', []
    for line in (ifconfig_text or '').splitlines():
        head = re.match(r'^([A-Za-z0-9_.]+): flags=', line)
        if head:
            current = head.group(1)
            continue
        parts = line.split()
        if len(parts) >= 2 and parts[0] in ('inet', 'inet6') and normalize_address(parts[1]) == address and current not in found:
            found.append(current)
    return found


def interface_of_address_freebsd(ifconfig_text, address):
    found = interfaces_of_address_freebsd(ifconfig_text, address)
    return found[0] if found else ''


def default_route_interface(routes):
    """The interface of the default route with the lowest metric in ``ip -j route show default``
    output (a list, or several lists: IPv4 first), '' if none."""
    best = None
    for position, route in enumerate(routes or []):
        if route.get('dst') != 'default' or not route.get('dev'):
            continue
        key = (int(route.get('metric', 0) or 0), position)
        if best is None or key < best[0]:
            best = (key, route['dev'])
    return best[1] if best else ''


def default_route_interface_freebsd(route_text):
    """The interface of ``route -n get default`` output ('' if none)."""
    match = re.search(r'^\s*interface:\s*(\S+)', route_text or '', re.M)
    return match.group(1) if match else ''


def management(links_or_finder, ansible_host='', ssh_connection='', default_route_dev='', use_default_route=True):
    """Which interfaces carry the management connection, and by which rule.

    ``links_or_finder`` is the list of ``ip -j addr`` links, or a function address -> [names]
    (FreeBSD). Returns dict(interface, interfaces, addresses, rule, rules, reason).
    """
    if callable(links_or_finder):
        find = links_or_finder
    else:
        def find(address):
            return interfaces_of_address(links_or_finder, address)
    candidates = [('ssh_connection', ssh_server_address(ssh_connection))]
    if looks_like_address(ansible_host):
        candidates.append(('ansible_host', normalize_address(ansible_host)))
    interfaces, addresses, rules, reasons = [], [], {}, []
    for rule, address in candidates:
        if not address:
            continue
        held = find(address)
        if address not in addresses:
            addresses.append(address)
        for name in held:
            if name not in interfaces:
                interfaces.append(name)
                rules[name] = rule
        reasons.append('%s %s %s' % (rule, address, ('is held by ' + ', '.join(held)) if held else 'is not an address of this host'))
    if not interfaces and use_default_route and default_route_dev:
        interfaces.append(default_route_dev)
        rules[default_route_dev] = 'default_route'
        reasons.append('default_route: no connection address is held here, the default route leaves through %s' % default_route_dev)
    elif not interfaces:
        reasons.append('no rule found a management interface')
    return dict(
        interface=interfaces[0] if interfaces else '',
        interfaces=interfaces,
        address=addresses[0] if addresses else '',
        addresses=addresses,
        rule=rules[interfaces[0]] if interfaces else 'none',
        rules=rules,
        reason='; '.join(reasons),
    )


def windows_interfaces(facts_interfaces):
    """Names (``connection_name``) of the Windows setup facts' ``interfaces`` list."""
    return [item.get('connection_name', '') for item in facts_interfaces or [] if item.get('connection_name')]


def interfaces_of_address_windows(facts_interfaces, address):
    """Names of the Windows interfaces holding ``address``, read from the setup facts' ``interfaces``
    (``ipv4.address`` / ``ipv6.address``; an IPv6 address carries its zone, ``fe80::1%12``).
    Facts of older Windows setups hold no address per interface: nothing is found there."""
    address = normalize_address(address)
    found = []
    for item in facts_interfaces or []:
        held = [normalize_address((item.get(family) or {}).get('address', '')) for family in ('ipv4', 'ipv6')]
        if address and address in held and item.get('connection_name') not in found:
            found.append(item.get('connection_name', ''))
    return found


def management_windows(facts_interfaces, ansible_host='', ssh_connection='', gateway_fallback=False):
    """``management()`` of a Windows host from its setup facts (no command runs there for it): the
    connection rules as on Linux; the default-route rule is the one interface with a
    ``default_gateway`` (only with ``gateway_fallback``). Returns the same dict, plus ``interfaces_all``."""
    gateways = [item.get('connection_name', '') for item in facts_interfaces or [] if item.get('default_gateway')]
    found = management(lambda address: interfaces_of_address_windows(facts_interfaces, address),
                       ansible_host=ansible_host, ssh_connection=ssh_connection,
                       default_route_dev=gateways[0] if len(gateways) == 1 else '',
                       use_default_route=gateway_fallback)
    found['interfaces_all'] = windows_interfaces(facts_interfaces)
    return found


def is_own(name, own_prefix):
    """A configuration file named by one of ours (``own_prefix`` after an optional NN- or ifcfg-)."""
    return bool(own_prefix) and OWN_NAME_RE.sub('', name).startswith(own_prefix)


def netplan_configs(names, own_prefix=''):
    """The netplan configurations among the names in /etc/netplan (netplan reads *.yaml only)."""
    return [n for n in sorted(names) if n.endswith('.yaml') and not is_own(n, own_prefix)]


# nmcli's device state (C locale); "connected (externally)": NetworkManager found the device
# configured by something else (an address set by hand or by a lab) and leaves it alone
NM_EXTERNAL_STATE = '(connected (externally))'


def nm_device(nmcli_rc, nmcli_out):
    """The connection of ``nmcli -g GENERAL.STATE,GENERAL.CONNECTION device show IF`` ('' when none)
    and whether NetworkManager only found the device configured (``external``): such a connection is
    in memory, made up of what was there, and no profile of NetworkManager's configures the device."""
    if nmcli_rc != 0:
        return dict(connection='', external=False)
    state, _sep, connection = nmcli_out.partition('\n')
    return dict(connection=connection.strip(), external=state.strip().endswith(NM_EXTERNAL_STATE))


def networkd_file(networkctl_rc, networkctl_out):
    """The .network file of ``networkctl status IF`` ('' when networkd does not configure it)."""
    if networkctl_rc != 0:
        return ''
    found = NETWORKD_FILE_RE.findall(networkctl_out or '')
    return found[0] if found else ''


def ifupdown_sources_dir(interfaces_text):
    """/etc/network/interfaces includes /etc/network/interfaces.d (where our files go)."""
    return bool(IFUPDOWN_SOURCE_RE.search(interfaces_text or ''))


def host_stack_reason(stack, evidence):
    """Why ``stack`` manages the host ('' when it does not), from the evidence of that stack."""
    ev = evidence.get(stack) or {}
    if stack == 'netplan' and ev.get('installed') and ev.get('configs'):
        return 'netplan is installed and /etc/netplan holds %s' % ', '.join(ev['configs'])
    if stack == 'networkmanager' and ev.get('running'):
        return 'NetworkManager is running'
    if stack == 'networkd' and ev.get('running'):
        return 'systemd-networkd is running'
    if stack == 'ifupdown' and ev.get('installed') and ev.get('interfaces_file'):
        return 'ifupdown is installed and /etc/network/interfaces exists'
    if stack == 'ifcfg' and ev.get('directory'):
        return '/etc/sysconfig/network-scripts exists'
    if stack == 'freebsd' and ev.get('system') == 'FreeBSD':
        return 'FreeBSD configures interfaces in rc.conf'
    if stack == 'windows' and ev.get('system') == 'Windows':
        return 'Windows configures interfaces itself'
    return ''


def interface_stack_reason(stack, evidence, interface):
    """Why ``stack`` manages ``interface`` ('' when it does not)."""
    ev = evidence.get(stack) or {}
    per = (ev.get('interfaces') or {}).get(interface) or {}
    if stack == 'netplan' and ev.get('configs'):
        return '/etc/netplan holds %s' % ', '.join(ev['configs'])
    if stack == 'networkmanager' and per.get('connection') and not per.get('external'):
        return 'NetworkManager connection %s' % per['connection']
    if stack == 'networkd' and per.get('network_file'):
        return 'systemd-networkd file %s' % per['network_file']
    if stack == 'ifupdown' and ev.get('interfaces_file'):
        return '/etc/network/interfaces exists'
    if stack == 'ifcfg' and per.get('ifcfg_file'):
        return '%s exists' % per['ifcfg_file']
    if stack in ('freebsd', 'windows'):
        return host_stack_reason(stack, evidence)
    return ''


def ordered(stacks=None):
    """The stacks to try, in the one order (unknown names are dropped)."""
    wanted = STACK_ORDER if stacks is None else stacks
    return [s for s in STACK_ORDER if s in wanted]


def choose_stack(evidence, stacks=None):
    """(stack, reason): the first stack (in STACK_ORDER, among ``stacks``) managing the host."""
    for stack in ordered(stacks):
        reason = host_stack_reason(stack, evidence)
        if reason:
            return stack, reason
    return 'unknown', 'no network configuration stack found (tried %s)' % ', '.join(ordered(stacks))


def choose_interface_stack(evidence, interfaces, stacks=None):
    """(stack, reason): the first stack (in STACK_ORDER, among ``stacks``) managing every one of ``interfaces``."""
    for stack in ordered(stacks):
        reasons = [interface_stack_reason(stack, evidence, i) for i in interfaces]
        if interfaces and all(reasons):
            return stack, '; '.join(sorted(set(reasons)))
    return 'unknown', 'no stack (tried %s) manages %s' % (', '.join(ordered(stacks)), ', '.join(interfaces) or 'no interface')


def interface_stacks(evidence, interfaces, stacks=None):
    """Per interface: the first stack that manages it, why, and every stack that does."""
    out = {}
    for interface in interfaces:
        managing = [(s, interface_stack_reason(s, evidence, interface)) for s in ordered(stacks)]
        managing = [(s, r) for s, r in managing if r]
        out[interface] = dict(stack=managing[0][0] if managing else 'unknown',
                              reason=managing[0][1] if managing else 'no stack manages it',
                              managed_by=[s for s, _r in managing])
    return out


class HostProbe(object):
    """Runs the read-only commands and reads the files the pure functions above decide on.

    ``module`` is an AnsibleModule (run_command, get_bin_path); ``root`` the directory the
    configuration files are looked up under. Only the stacks asked for are probed.
    """

    def __init__(self, module, root='/', system='Linux', own_prefix=''):
        import os
        self.os = os
        self.module = module
        self.root = root or '/'
        self.system = system
        self.own_prefix = own_prefix

    def path(self, *parts):
        return self.os.path.join(self.root, *[p.lstrip('/') for p in parts])

    def listdir(self, *parts):
        directory = self.path(*parts)
        return sorted(self.os.listdir(directory)) if self.os.path.isdir(directory) else []

    def read(self, path):
        try:
            with open(path, 'rb') as handle:
                return handle.read().decode('utf-8', 'replace')
        except (IOError, OSError):
            return ''

    def run(self, argv, environ_update=None):
        if environ_update:
            return self.module.run_command(argv, environ_update=environ_update)
        return self.module.run_command(argv)

    def which(self, name):
        return self.module.get_bin_path(name)

    # -- interfaces and the management interface

    def links(self, details=False):
        """``ip -j addr show`` (with ``-d``: MTU limits too) as a list; [] off Linux or on error."""
        ip = self.which('ip')
        if self.system != 'Linux' or not ip:
            return []
        rc, out, _err = self.run([ip] + (['-d'] if details else []) + ['-j', 'addr', 'show'])
        return parse_links(out) if rc == 0 else []

    def interfaces(self, links=None):
        if self.system == 'FreeBSD':
            ifconfig = self.which('ifconfig')
            if ifconfig:
                rc, out, _err = self.run([ifconfig, '-l'])
                if rc == 0:
                    return sorted(out.split())
            return []
        if links:
            return sorted(link.get('ifname', '') for link in links)
        return sorted(self.os.listdir('/sys/class/net')) if self.os.path.isdir('/sys/class/net') else []

    def default_route_dev(self):
        if self.system == 'FreeBSD':
            route = self.which('route')
            return default_route_interface_freebsd(self.run([route, '-n', 'get', 'default'])[1]) if route else ''
        ip = self.which('ip')
        if not ip:
            return ''
        for family in (['-4'], ['-6']):
            rc, out, _err = self.run([ip] + family + ['-j', 'route', 'show', 'default'])
            if rc == 0 and out.strip():
                # IPv4 first: a lower metric of the other family does not win over it
                found = default_route_interface(json.loads(out))
                if found:
                    return found
        return ''

    def management(self, links, ansible_host='', ssh_connection='', use_default_route=True):
        if self.system == 'FreeBSD':
            ifconfig = self.which('ifconfig')
            text = self.run([ifconfig, '-a'])[1] if ifconfig else ''

            def finder(address):
                return interfaces_of_address_freebsd(text, address)
        else:
            finder = links
        return management(finder, ansible_host=ansible_host, ssh_connection=ssh_connection,
                          default_route_dev=self.default_route_dev() if use_default_route else '',
                          use_default_route=use_default_route)

    # -- network stacks

    def stack_evidence(self, stacks, interfaces):
        """What was found of each of ``stacks`` (host wide, and per interface of ``interfaces``)."""
        evidence = {}
        for stack in ordered(stacks):
            evidence[stack] = getattr(self, '_probe_' + stack)(interfaces)
        return evidence

    def _probe_netplan(self, interfaces):
        return dict(installed=bool(self.which('netplan')),
                    configs=netplan_configs(self.listdir('etc/netplan'), self.own_prefix))

    def _probe_networkmanager(self, interfaces):
        nmcli = self.which('nmcli')
        running = False
        if nmcli:
            rc, out, _err = self.run([nmcli, '-t', '-f', 'RUNNING', 'general'])
            running = rc == 0 and out.strip() == 'running'
        per = {}
        for name in interfaces:
            per[name] = self.nm_device(nmcli, name) if running else dict(connection='', external=False)
        return dict(installed=bool(nmcli), running=running, interfaces=per)

    def nm_device(self, nmcli, name):
        """nm_device() of ``name`` (the state read in the C locale: its words are translated)."""
        argv = [nmcli, '-g', 'GENERAL.STATE,GENERAL.CONNECTION', 'device', 'show', name]
        return nm_device(*self.run(argv, environ_update=dict(LC_ALL='C'))[:2])

    def _probe_networkd(self, interfaces):
        networkctl = self.which('networkctl')
        running = self.os.path.exists('/run/systemd/netif/state') and bool(networkctl)
        if running:
            running = self.run([networkctl, 'list', '--no-legend', '--no-pager'])[0] == 0
        per = {}
        for name in interfaces:
            found = ''
            if networkctl:
                found = networkd_file(*self.run([networkctl, 'status', '--no-pager', name])[:2])
            per[name] = dict(network_file=found)
        return dict(running=running, interfaces=per)

    def _probe_ifupdown(self, interfaces):
        main = self.path('etc/network/interfaces')
        exists = self.os.path.isfile(main)
        return dict(installed=bool(self.which('ifup')), interfaces_file=exists,
                    sources_dir=ifupdown_sources_dir(self.read(main)) if exists else False)

    def _probe_ifcfg(self, interfaces):
        directory = self.path('etc/sysconfig/network-scripts')
        per = {}
        for name in interfaces:
            candidate = self.os.path.join(directory, 'ifcfg-' + name)
            per[name] = dict(ifcfg_file=candidate if self.os.path.isfile(candidate) else '')
        return dict(directory=self.os.path.isdir(directory), interfaces=per)

    def _probe_freebsd(self, interfaces):
        return dict(system=self.system, rc_conf=self.os.path.isfile(self.path('etc/rc.conf')))

    def _probe_windows(self, interfaces):
        return dict(system=self.system)
