#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

DOCUMENTATION = r'''
module: tools_plan
short_description: Plan how the tools role installs each requested benchmark tool on one host
version_added: 0.1.0
description:
  - The resolution step of the C(perflab.network.tools) role, in Python. From the request (the role's
    C(tools_*) variables), the host's facts and the role's per-OS data (its layered C(vars/)), it works
    out for each tool of O(tools) its method (C(package), C(source), C(release_zip), C(release_binary)
    or C(unavailable)), its packages and their pinned specs, its source, where ethr comes from, the apt
    components and EPEL the packages need and the extra packages (compiler, unzip).
  - It checks the request first (timeouts, pins of unknown tools, a relative prefix), then that the OS is
    supported, then, with O(state=present), everything this OS cannot do; one failure names every problem.
  - Runs on the controller (the role delegates it to C(localhost)) - the sources O(ethr_src) and the
    C(src) of O(os_data) C(sources) are controller paths, and it needs no Python on the host (Windows).
  - Changes nothing.
extends_documentation_fragment:
  - perflab.network.attributes
attributes:
  check_mode:
    details: The module only computes, and does the same in check mode.
  platform:
    details: It runs on the controller; the host it plans for can be any OS of the tools role.
options:
  tools:
    description: The tools to plan (C(tools_list)); each once, in this order.
    type: list
    elements: str
    required: true
  default_list:
    description:
      - O(tools) is the tools role's default C(tools_list) (the role passes whether it is). Then a tool this OS
        has no way to install (netperf on Windows) is left out with a note in RV(skipped) instead of refused; a
        list of the user's own naming it is still refused.
    type: bool
    default: false
  state:
    description: C(tools_state). With V(absent) nothing is refused but the request and the OS.
    type: str
    choices: [present, absent]
    default: present
  versions:
    description: Pinned package versions, tool -> version (C(tools_versions)).
    type: dict
    default: {}
  build_from_source:
    description: Tools to build from source even where a package exists (C(tools_build_from_source)).
    type: list
    elements: str
    default: []
  ethr_version:
    description: The ethr release whose zip for this OS is used (C(tools_ethr_version)).
    type: str
    default: 1.0.0
  ethr_url:
    description: A URL of ethr (binary or zip) instead of the release zip (C(tools_ethr_url)).
    type: str
    default: ''
  ethr_checksum:
    description: The checksum of O(ethr_url) (C(tools_ethr_checksum)).
    type: str
    default: ''
  ethr_src:
    description: A controller file of ethr (binary or zip), first choice when set (C(tools_ethr_src)).
    type: str
    default: ''
  ethr_optional:
    description: Skip ethr (in RV(skipped)) rather than fail where it has no source (C(tools_ethr_optional)).
    type: bool
    default: true
  nuttcp_windows_src:
    description: The release build of nuttcp.exe on Windows (C(tools_nuttcp_windows_src)).
    type: str
    default: ''
  download_timeout:
    description: C(tools_download_timeout), checked to be above 0.
    type: raw
    default: 30
  apt_cache_valid_time:
    description: C(tools_apt_cache_valid_time), checked to be 0 or more.
    type: raw
    default: 3600
  prefix:
    description: C(tools_prefix), checked to be absolute.
    type: str
    default: /opt/perflab
  installed:
    description:
      - What the prefix and its C(bin) folder hold on the host, each C({path, islnk, isdir}) (what
        C(ansible.builtin.find) returns). A tool installed from a file, a download or a build that is found there is kept when no source is
        given (RV(kept)) - C(tools_ethr_src) or C(tools_ethr_url) for ethr, C(tools_nuttcp_windows_src) for nuttcp on
        Windows; a source build is made again when C(tools_build_from_source) names the tool or the C(bin) link is the
        role's build of another version (C(<prefix>/<tool>-<version>)).
    type: list
    elements: dict
    default: []
  facts:
    description: The host's C(distribution), C(distribution_major_version) and C(os_family) (more keys are ignored).
    type: dict
    required: true
  os_data:
    description:
      - The role's per-OS data, its C(__tools_*) variables without that prefix - C(all) (every tool),
        C(supported_platforms), C(supported_windows), C(supported_text), C(plan) (tool -> C(method),
        C(packages), C(apt_component), C(repo), C(asset), C(reason)), C(sources) (tool -> C(src),
        C(checksum), C(version)), C(ethr_releases), C(pin_template), C(can_build), C(build_packages),
        C(unzip_packages), C(version_probes) (tool -> C(binary), the name RV(kept) looks for).
    type: dict
    required: true
seealso:
  - module: perflab.network.bench_preflight
'''

EXAMPLES = r'''
- name: Plan iperf3 and netperf for a Debian 12 host
  perflab.network.tools_plan:
    tools: [iperf3, netperf]
    facts: {distribution: Debian, distribution_major_version: "12", os_family: Debian}
    os_data:
      all: [iperf3, netperf]
      supported_platforms: {Debian: 9}
      supported_text: Debian 9+
      plan:
        iperf3: {method: package, packages: [iperf3]}
        netperf: {method: package, packages: [netperf], apt_component: non-free}
      pin_template: "{name}={version}"
  delegate_to: localhost
  register: tools_planned
'''

RETURN = r'''
resolved:
  description: One entry per tool of O(tools) - the OS's plan entry with C(tool), C(method), C(packages), C(specs) (the
    packages with the pin applied to the first), C(pin), and with C(method=source) the source (C(src), C(checksum), C(version)).
  returned: success
  type: list
  elements: dict
  sample: [{tool: netperf, method: package, packages: [netperf], specs: [netperf], pin: "", apt_component: non-free}]
pkg_entries:
  description: The entries of RV(resolved) installed from packages.
  returned: success
  type: list
  elements: dict
source_entries:
  description: The entries of RV(resolved) built from source.
  returned: success
  type: list
  elements: dict
binary_entries:
  description: The entries of RV(resolved) installed from a release build (nuttcp on Windows).
  returned: success
  type: list
  elements: dict
unavailable:
  description: The entries of RV(resolved) this OS has no source for.
  returned: success
  type: list
  elements: dict
ethr_wanted:
  description: Whether ethr is installed (from a release zip, a URL or a controller file).
  returned: success
  type: bool
ethr_source:
  description: Where ethr comes from (C(from) C(controller) or C(url), C(src), C(checksum), C(zip)); empty when nowhere.
  returned: success
  type: dict
  sample: {from: url, src: "https://github.com/microsoft/ethr/releases/download/v1.0.0/ethr_linux.zip", checksum: "sha256:...", zip: true}
skipped:
  description: Tools skipped with a warning, tool -> why (an optional ethr with no source here; with O(default_list),
    a tool this OS cannot install, such as netperf on Windows).
  returned: success
  type: dict
  sample: {ethr: no FreeBSD build}
kept:
  description: Tools already installed under the prefix and kept, tool -> why (no source given, so nothing is
    downloaded nor replaced); the role says so and reports them as C(perflab_tools_kept), never as skipped.
  returned: success
  type: dict
  sample: {ethr: "kept the installed /opt/perflab/bin/ethr: no tools_ethr_src or tools_ethr_url given (give one to replace it)"}
package_specs:
  description: The package specs to install, each once.
  returned: success
  type: list
  elements: str
  sample: [iperf3, netperf]
apt_components:
  description: The apt components the packages need.
  returned: success
  type: list
  elements: str
  sample: [non-free]
needs_epel:
  description: Whether a package comes from EPEL.
  returned: success
  type: bool
extra_packages:
  description: The build packages (when something is built from source) and unzip (when ethr comes in a zip).
  returned: success
  type: list
  elements: str
  sample: [unzip]
'''

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.perflab.network.plugins.module_utils.plan import tools_plan

REQUEST_KEYS = ('default_list', 'state', 'versions', 'build_from_source', 'ethr_version', 'ethr_url', 'ethr_checksum', 'ethr_src',
                'ethr_optional', 'nuttcp_windows_src', 'download_timeout', 'apt_cache_valid_time', 'prefix', 'installed')
OS_DATA_REQUIRED = ('all', 'supported_platforms', 'supported_text')


def argument_spec():
    return dict(
        tools=dict(type='list', elements='str', required=True),
        default_list=dict(type='bool', default=False),
        state=dict(type='str', choices=['present', 'absent'], default='present'),
        versions=dict(type='dict', default={}),
        build_from_source=dict(type='list', elements='str', default=[]),
        ethr_version=dict(type='str', default='1.0.0'),
        ethr_url=dict(type='str', default=''),
        ethr_checksum=dict(type='str', default=''),
        ethr_src=dict(type='str', default=''),
        ethr_optional=dict(type='bool', default=True),
        nuttcp_windows_src=dict(type='str', default=''),
        download_timeout=dict(type='raw', default=30),
        apt_cache_valid_time=dict(type='raw', default=3600),
        prefix=dict(type='str', default='/opt/perflab'),
        installed=dict(type='list', elements='dict', default=[]),
        facts=dict(type='dict', required=True),
        os_data=dict(type='dict', required=True),
    )


def plan_of(params, is_file=None):
    """(plan, None) or (None, message) for the module's parameters."""
    missing = [key for key in OS_DATA_REQUIRED if key not in params['os_data']]
    if missing:
        return None, 'tools_plan: os_data lacks %s' % ', '.join(missing)
    request = dict((key, params[key]) for key in REQUEST_KEYS)
    request['list'] = params['tools']
    try:
        if is_file is None:
            return tools_plan.build_plan(request, params['facts'], params['os_data']), None
        return tools_plan.build_plan(request, params['facts'], params['os_data'], is_file=is_file), None
    except tools_plan.PlanError as exc:
        return None, str(exc)


def main():
    module = AnsibleModule(argument_spec=argument_spec(), supports_check_mode=True)
    plan, message = plan_of(module.params)
    if message:
        module.fail_json(msg=message)
    module.exit_json(changed=False, **plan)


if __name__ == '__main__':
    main()
