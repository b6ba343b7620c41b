# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The tools role's plan (tools_plan): how each requested tool gets installed on one host.

Pure: the request (the role's tools_* variables), the host's facts and the role's per-OS data
(the __tools_* variables of roles/tools/vars, layered) go in, the plan the role's task files
consume comes out, or the problems that refuse it, every one of them at once. The only thing
read is whether a controller path is a file (``is_file``, a parameter).
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os
import re

METHODS = ('package', 'source', 'release_zip', 'release_binary', 'unavailable')
URL_RE = re.compile(r'^(https?|ftp)://')


class PlanError(Exception):
    """The request cannot be planned on this host; str() is the role's message."""


def _int(value, default=0):
    """Jinja's ``int`` filter: a number, else ``default``."""
    try:
        return int(value)
    except (TypeError, ValueError):
        try:
            return int(float(value))
        except (TypeError, ValueError):
            return default


def _unique(items):
    out = []
    for item in items:
        if item not in out:
            out.append(item)
    return out


def _text(value):
    """Jinja's ``string`` filter on a pin: '' for None."""
    if value is None:
        return ''
    return value if isinstance(value, str) else str(value)


def request_errors(request, all_tools):
    """The message of an invalid request (timeouts, pins naming unknown tools, a relative prefix), or None."""
    versions = request.get('versions') or {}
    ok = (_int(request.get('download_timeout')) > 0 and _int(request.get('apt_cache_valid_time'), -1) >= 0
          and not [name for name in versions if name not in all_tools]
          and os.path.isabs(str(request.get('prefix') or '')))
    if ok:
        return None
    return ('tools: invalid request: tools_download_timeout must be > 0 (got %s), tools_apt_cache_valid_time >= 0 (got %s), '
            'tools_versions may only name %s (got %s), tools_prefix must be an absolute path (got %s).'
            % (request.get('download_timeout'), request.get('apt_cache_valid_time'), ', '.join(all_tools),
               ', '.join(str(name) for name in versions), request.get('prefix')))


def os_supported(facts, supported_platforms, supported_windows):
    distribution = facts.get('distribution') or ''
    if distribution in supported_platforms and \
            _int(facts.get('distribution_major_version')) >= _int(supported_platforms[distribution]):
        return True
    return facts.get('os_family') == 'Windows' and re.match(supported_windows or r'(?!)', distribution) is not None


def os_name(facts):
    return '%s %s' % (facts.get('distribution'), facts.get('distribution_major_version'))


def resolve_tool(name, request, os_data):
    """One tool's plan entry: the OS's entry with its method, packages, package specs (pins) and source."""
    table = os_data['plan']
    method = 'source' if name in (request.get('build_from_source') or []) else table[name]['method']
    packages = list(table[name].get('packages') or []) if method == 'package' else []
    pin = _text((request.get('versions') or {}).get(name, ''))
    template = os_data.get('pin_template') or ''
    if pin and packages and template not in ('', 'chocolatey'):
        specs = [template.replace('{name}', packages[0]).replace('{version}', pin)]
    else:
        specs = packages[:1]
    entry = dict(table[name], tool=name, method=method, packages=packages, specs=specs + packages[1:], pin=pin)
    if method == 'source':
        entry.update((os_data.get('sources') or {}).get(name) or {})
    return entry


def ethr_source(request, os_data):
    """Where ethr comes from: a controller file, a URL, the known release zip of this OS, or {} (nowhere)."""
    src, url = request.get('ethr_src') or '', request.get('ethr_url') or ''
    if src:
        return {'from': 'controller', 'src': src, 'checksum': '', 'zip': src.endswith('.zip')}
    if url:
        return {'from': 'url', 'src': url, 'checksum': request.get('ethr_checksum') or '', 'zip': url.endswith('.zip')}
    entry = os_data['plan'].get('ethr') or {}
    releases = (os_data.get('ethr_releases') or {}).get(_text(request.get('ethr_version')), {})
    if entry.get('method') == 'release_zip' and entry.get('asset') in releases:
        release = releases[entry['asset']]
        return {'from': 'url', 'src': release['url'], 'checksum': release['checksum'], 'zip': True}
    return {}


def _base(path):
    return re.split(r'[\\/]', path or '')[-1]


def _installed_binary(installed, binary):
    """The file of ``installed`` in a ``bin`` folder named ``binary`` (or ``binary``.exe), else None."""
    for item in installed or []:
        parts = re.split(r'[\\/]', item.get('path') or '')
        if len(parts) > 1 and parts[-2] == 'bin' and parts[-1] in (binary, binary + '.exe'):
            return item
    return None


def keep_installed(plan, request, os_data):
    """Keep what the prefix holds of a tool that comes from a file, a download or a build, when no source is given.

    ``request['installed']``: what the prefix and its bin folder hold, [{path, islnk, isdir}] (ansible.builtin.find).
    A tool found in the bin folder stays (``plan['kept']``: tool -> why) and is taken out of what the role
    installs: never a download nor a replacement the user did not ask for. A source given replaces it:
    tools_ethr_src or tools_ethr_url (ethr), tools_nuttcp_windows_src (nuttcp on Windows); a source build is
    made again when tools_build_from_source names the tool, or when the bin folder's link is the role's build
    of another version (<prefix>/<tool>-<other version>: the source version asked for changed).
    """
    installed = request.get('installed') or []
    probes = os_data.get('version_probes') or {}
    folders = set(_base(item.get('path')) for item in installed if item.get('isdir'))

    def found(tool):
        return _installed_binary(installed, (probes.get(tool) or {}).get('binary') or tool)

    ethr = found('ethr')
    if 'ethr' in (request.get('list') or []) and ethr and not (request.get('ethr_src') or request.get('ethr_url')):
        plan['kept']['ethr'] = ('kept the installed %s: no tools_ethr_src or tools_ethr_url given (give one to replace '
                                'it)' % ethr['path'])
        plan['ethr_wanted'] = False
    for entry in list(plan['binary_entries']):
        binary = found(entry['tool'])
        if binary and not request.get('nuttcp_windows_src'):
            plan['kept'][entry['tool']] = ('kept the installed %s: no tools_nuttcp_windows_src given (give one to '
                                           'replace it)' % binary['path'])
            plan['binary_entries'].remove(entry)
    for entry in list(plan['source_entries']):
        binary = found(entry['tool'])
        if not binary:
            continue
        builds = [name for name in folders if name.startswith(entry['tool'] + '-')]
        if '%s-%s' % (entry['tool'], entry.get('version')) in builds:
            why = 'kept the build of %s %s (%s)' % (entry['tool'], entry.get('version'), binary['path'])
        elif (binary.get('islnk') and builds) or entry['tool'] in (request.get('build_from_source') or []):
            continue   # the role's build of another version, or a build asked for: built from the source given
        else:
            why = ('kept the installed %s: not built by the role (name the tool in tools_build_from_source to build '
                   'it from its source instead)' % binary['path'])
        plan['kept'][entry['tool']] = why
        plan['source_entries'].remove(entry)


def problems_of(plan, request, facts, os_data, is_file=os.path.isfile):
    """Every reason the plan cannot be carried out (tools_state present); also marks an optional ethr skipped."""
    name = os_name(facts)
    problems = []
    tools = request.get('list') or []
    ethr_entry = os_data['plan'].get('ethr') or {}
    version = _text(request.get('ethr_version'))
    for entry in plan['unavailable']:
        if entry['tool'] != 'ethr' and request.get('default_list'):
            # the role's default list names every tool: what this OS cannot have is left out, with a note
            plan['skipped'][entry['tool']] = ('left out of the default tools_list on %s: %s (a tools_list of your own '
                                              'naming it is refused)' % (name, entry.get('reason')))
        elif entry['tool'] != 'ethr':
            problems.append('%s cannot be installed on %s: %s. Remove it from tools_list for this host.'
                            % (entry['tool'], name, entry.get('reason')))
    ethr_missing = 'ethr' in tools and 'ethr' not in plan['kept'] and (not plan['ethr_wanted'] or not plan['ethr_source'])
    if ethr_missing and not request.get('ethr_optional'):
        reason = ethr_entry.get('reason', 'no known release zip for ethr %s; set tools_ethr_url and tools_ethr_checksum, '
                                          'or tools_ethr_src' % version)
        problems.append('ethr cannot be installed on %s: %s. Remove it from tools_list, or set tools_ethr_optional: true '
                        'to skip it with a warning.' % (name, reason))
    if ethr_missing and request.get('ethr_optional'):
        plan['skipped'] = {'ethr': ethr_entry.get('reason', 'no known release zip for ethr %s' % version)}
        plan['ethr_wanted'] = False
    template = os_data.get('pin_template') or ''
    for entry in plan['resolved']:
        if entry['pin'] and (entry['method'] != 'package' or not template):
            why = ('its package manager installs only the version its repository carries' if entry['method'] == 'package'
                   else '%s is not installed from a package here (%s)' % (entry['tool'], entry['method']))
            problems.append('tools_versions.%s=%s cannot be honoured on %s: %s.' % (entry['tool'], entry['pin'], name, why))
    can_build = os_data.get('can_build', True)
    for entry in plan['source_entries']:
        src = entry.get('src') or ''
        if not can_build:
            problems.append('%s cannot be built from source here: the role builds from source only on Linux (not on %s).'
                            % (entry['tool'], facts.get('os_family')))
        elif not (URL_RE.match(src) or is_file(src)):
            problems.append('%s cannot be built from source here: the source %s is neither a URL nor a file on the controller.'
                            % (entry['tool'], src))
    if plan['binary_entries'] and not request.get('nuttcp_windows_src'):
        problems.append('nuttcp on %s is installed from a release build: set tools_nuttcp_windows_src to the URL or '
                        'controller path of nuttcp.exe (and tools_nuttcp_windows_src_checksum), or remove nuttcp from '
                        'tools_list for this host.' % name)
    if plan['ethr_wanted'] and request.get('ethr_src') and not is_file(request['ethr_src']):
        problems.append('ethr: tools_ethr_src=%s is not a file on the controller.' % request['ethr_src'])
    return problems


def build_plan(request, facts, os_data, is_file=os.path.isfile):
    """The plan of one host, as the role's task files use it; PlanError with the role's message when refused.

    ``request``: list, state, versions, build_from_source, ethr_src, ethr_url, ethr_checksum, ethr_version,
    ethr_optional, nuttcp_windows_src, download_timeout, apt_cache_valid_time, prefix (the tools_* variables),
    installed (the files of the prefix's bin folder, [{path, lnk_source}]: keep_installed);
    default_list (true when list is the role's default tools_list: the tools this OS cannot install are
    skipped with a note instead of refused).
    ``facts``: distribution, distribution_major_version, os_family. ``os_data``: all, supported_platforms,
    supported_windows, supported_text, plan, sources, ethr_releases, pin_template, can_build, build_packages,
    unzip_packages (the __tools_* variables, without the prefix).
    """
    all_tools = list(os_data.get('all') or [])
    message = request_errors(request, all_tools)
    if message:
        raise PlanError(message)
    if not os_supported(facts, os_data.get('supported_platforms') or {}, os_data.get('supported_windows') or ''):
        raise PlanError('tools: %s (%s) is not supported. Supported: %s.'
                        % (os_name(facts), facts.get('os_family'), os_data.get('supported_text')))
    unknown = [name for name in _unique(request.get('list') or []) if name not in (os_data.get('plan') or {})]
    if unknown:
        raise PlanError('tools: tools_list names %s, which this OS data has no plan for (known: %s).'
                        % (', '.join(unknown), ', '.join(sorted(os_data.get('plan') or {}))))
    resolved = [resolve_tool(name, request, os_data) for name in _unique(request.get('list') or [])]

    def having(method):
        return [entry for entry in resolved if entry['method'] == method]

    plan = {
        'resolved': resolved,
        'pkg_entries': having('package'),
        'source_entries': having('source'),
        'binary_entries': having('release_binary'),
        'unavailable': having('unavailable'),
        'ethr_wanted': bool(having('release_zip')),
        'ethr_source': ethr_source(request, os_data),
        'skipped': {},
        'kept': {},
    }
    problems = []
    if request.get('state', 'present') == 'present':
        keep_installed(plan, request, os_data)
        problems = problems_of(plan, request, facts, os_data, is_file)
    if problems:
        raise PlanError('tools: ' + ' | '.join(problems))
    plan['package_specs'] = _unique(spec for entry in plan['pkg_entries'] for spec in entry['specs'])
    plan['apt_components'] = _unique(entry['apt_component'] for entry in plan['pkg_entries'] if 'apt_component' in entry)
    plan['needs_epel'] = any(entry.get('repo') == 'epel' for entry in plan['pkg_entries'])
    plan['extra_packages'] = (list(os_data.get('build_packages') or []) if plan['source_entries'] else []) + \
        (list(os_data.get('unzip_packages') or []) if plan['ethr_wanted'] and plan['ethr_source'].get('zip') else [])
    return plan
