# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""tools_plan: the tools role's resolution, pure, on the role's own per-OS data for a few OSes.

The layers are loaded the way tasks/set_vars.yml does (each file's variables over the ones before);
tests/integration/roles/test_tools_plan.py runs the role itself over every fact fixture.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json
import re
from pathlib import Path

import pytest
import yaml

from ansible.module_utils.testing import patch_module_args

from ansible_collections.perflab.network.plugins.filter.tool_install_plan import tool_install_plan
from ansible_collections.perflab.network.plugins.filter.tool_version_probes import tool_version_probes
from ansible_collections.perflab.network.plugins.module_utils.plan import tools_plan as tp
from ansible_collections.perflab.network.plugins.modules import tools_plan as module

ROLE = Path(__file__).resolve().parents[4] / 'roles' / 'tools'
DEFAULTS = yaml.safe_load((ROLE / 'defaults' / 'main.yml').read_text())
FACTS = {
    'debian-12': {'distribution': 'Debian', 'distribution_major_version': '12', 'os_family': 'Debian'},
    'ubuntu-22.04': {'distribution': 'Ubuntu', 'distribution_major_version': '22', 'os_family': 'Debian'},
    'rocky-9': {'distribution': 'Rocky', 'distribution_major_version': '9', 'os_family': 'RedHat'},
    'freebsd-12': {'distribution': 'FreeBSD', 'distribution_major_version': '12', 'os_family': 'FreeBSD'},
    'windows-2019': {'distribution': 'Microsoft Windows Server 2019 Datacenter', 'distribution_major_version': '10',
                     'os_family': 'Windows'},
    'ubuntu-16.04': {'distribution': 'Ubuntu', 'distribution_major_version': '16', 'os_family': 'Debian'},
}


def _render(value):
    """The public variables the vars files name ({{ tools_* }}), from the role's defaults."""
    if isinstance(value, str):
        return re.sub(r'{{\s*(tools_\w+)\s*}}', lambda m: str(DEFAULTS[m.group(1)]), value)
    if isinstance(value, dict):
        return dict((k, _render(v)) for k, v in value.items())
    if isinstance(value, list):
        return [_render(v) for v in value]
    return value


def os_data(facts):
    merged = dict(yaml.safe_load((ROLE / 'vars' / 'main.yml').read_text()))
    family, dist, major = facts['os_family'], facts['distribution'], facts['distribution_major_version']
    for layer in (family, '%s_%s' % (family, major), dist, '%s_%s' % (dist, major)):
        path = ROLE / 'vars' / ('%s.yml' % layer)
        if path.exists():
            merged.update(yaml.safe_load(path.read_text()) or {})
    # what vars/main.yml takes from the registry through a filter (the role templates it on the host)
    assert merged['__tools_version_probes'] == '{{ [] | perflab.network.tool_version_probes }}'
    assert merged['__tools_all'] == '{{ __tools_version_probes | list }}'
    merged['__tools_version_probes'] = tool_version_probes([])
    merged['__tools_all'] = list(merged['__tools_version_probes'])
    # the plan table: the tool files' install data of the OS's install family
    assert merged['__tools_plan'] == "{{ __tools_install_family | default('') | perflab.network.tool_install_plan }}"
    merged['__tools_plan'] = tool_install_plan(merged.get('__tools_install_family'))
    data = dict((key[len('__tools_'):], _render(value)) for key, value in merged.items())
    data.setdefault('plan', {})
    return data


def request(**changes):
    out = dict(list=list(DEFAULTS['tools_list']), state='present', versions={}, build_from_source=[],
               ethr_version='1.0.0', ethr_url='', ethr_checksum='', ethr_src='', ethr_optional=True,
               nuttcp_windows_src='', download_timeout=30, apt_cache_valid_time=3600, prefix='/opt/perflab')
    out.update(changes)
    return out


def plan(name, no_files=True, **changes):
    facts = FACTS[name]
    if no_files:
        return tp.build_plan(request(**changes), facts, os_data(facts), is_file=lambda path: False)
    return tp.build_plan(request(**changes), facts, os_data(facts))


def refused(name, **changes):
    with pytest.raises(tp.PlanError) as info:
        plan(name, **changes)
    return str(info.value)


def methods(result):
    return dict((entry['tool'], entry['method']) for entry in result['resolved'])


def test_debian_12_packages_from_main_and_non_free_and_ethr_from_the_release_zip():
    result = plan('debian-12', list=['iperf3', 'iperf2', 'netperf', 'nuttcp', 'ethr'])
    assert methods(result) == {'iperf3': 'package', 'iperf2': 'package', 'netperf': 'package', 'nuttcp': 'package',
                               'ethr': 'release_zip'}
    assert result['package_specs'] == ['iperf3', 'iperf', 'netperf', 'nuttcp']
    assert result['apt_components'] == ['non-free'] and result['needs_epel'] is False
    assert result['ethr_wanted'] is True and result['skipped'] == {}
    assert result['ethr_source'] == {
        'from': 'url', 'src': 'https://github.com/microsoft/ethr/releases/download/v1.0.0/ethr_linux.zip',
        'checksum': 'sha256:781f48294b6623ef22fd95b432e1c9c113acc4c45cd223d538da2e6976783721', 'zip': True}
    assert result['extra_packages'] == ['unzip']
    [netperf] = [e for e in result['resolved'] if e['tool'] == 'netperf']
    assert netperf == {'tool': 'netperf', 'method': 'package', 'packages': ['netperf'], 'specs': ['netperf'], 'pin': '',
                       'apt_component': 'non-free'}


def test_ubuntu_components_and_a_pin():
    result = plan('ubuntu-22.04', list=['iperf3', 'netperf', 'iperf3'], versions={'iperf3': '3.9-1'})
    assert [e['tool'] for e in result['resolved']] == ['iperf3', 'netperf']   # each once, in order
    assert result['package_specs'] == ['iperf3=3.9-1', 'netperf']
    assert result['apt_components'] == ['universe', 'multiverse']


def test_rocky_9_epel_and_netperf_from_source_with_the_compiler():
    result = plan('rocky-9', list=['iperf3', 'netperf', 'nuttcp'], versions={'nuttcp': 8.2})
    assert methods(result) == {'iperf3': 'package', 'netperf': 'source', 'nuttcp': 'package'}
    [netperf] = result['source_entries']
    assert netperf['src'] == DEFAULTS['tools_netperf_src'] and netperf['version'] == '2.7.0'
    assert netperf['checksum'] == DEFAULTS['tools_netperf_src_checksum']
    assert result['needs_epel'] is True and 'nuttcp-8.2' in result['package_specs']   # a float pin as Jinja's string
    assert set(os_data(FACTS['rocky-9'])['build_packages']) <= set(result['extra_packages'])
    assert 'unzip' not in result['extra_packages']


def test_freebsd_skips_an_optional_ethr_and_refuses_a_required_one_and_pins():
    result = plan('freebsd-12')
    assert result['ethr_wanted'] is False and 'no FreeBSD build' in result['skipped']['ethr']
    message = refused('freebsd-12', list=['iperf3', 'ethr'], ethr_optional=False, versions={'iperf3': '3.5'})
    assert message.startswith('tools: ethr cannot be installed on FreeBSD 12: ')
    assert 'tools_ethr_optional: true to skip it with a warning. | tools_versions.iperf3=3.5 cannot be honoured on ' \
           'FreeBSD 12: its package manager installs only the version its repository carries.' in message
    assert 'only on Linux (not on FreeBSD)' in refused('freebsd-12', list=['nuttcp'], build_from_source=['nuttcp'])


def test_windows_needs_the_nuttcp_build_and_has_no_netperf():
    message = refused('windows-2019', list=['iperf3', 'netperf', 'nuttcp'])
    assert 'netperf cannot be installed on Microsoft Windows Server 2019 Datacenter 10: ' in message
    assert 'Remove it from tools_list for this host. | nuttcp on Microsoft Windows Server 2019 Datacenter 10 is ' \
           'installed from a release build: set tools_nuttcp_windows_src' in message
    result = plan('windows-2019', list=['iperf3', 'nuttcp', 'ethr'], nuttcp_windows_src='https://example.invalid/n.exe')
    assert methods(result) == {'iperf3': 'package', 'nuttcp': 'release_binary', 'ethr': 'release_zip'}
    assert result['ethr_source']['src'].endswith('/ethr_windows.zip')


def test_windows_default_list_leaves_netperf_out_with_a_note():
    # the role's default tools_list (iperf3, netperf, nuttcp, ethr) on Windows: netperf skipped, not refused
    data = os_data(FACTS['windows-2019'])
    assert data['default_list'] == DEFAULTS['tools_list']   # vars/main.yml's copy is the default's
    result = plan('windows-2019', default_list=True, nuttcp_windows_src='https://example.invalid/n.exe')
    assert result['skipped'] == {'netperf': 'left out of the default tools_list on Microsoft Windows Server 2019 '
                                            'Datacenter 10: netperf has no maintained Windows build, package or '
                                            'Chocolatey package (a tools_list of your own naming it is refused)'}
    assert [entry['tool'] for entry in result['pkg_entries']] == ['iperf3']
    # a list of the user's own that names netperf is still refused
    assert 'netperf cannot be installed on Microsoft Windows Server 2019' in refused(
        'windows-2019', nuttcp_windows_src='https://example.invalid/n.exe')


def test_default_list_changes_nothing_where_every_tool_installs():
    assert plan('debian-12', default_list=True) == plan('debian-12')


def test_absent_refuses_nothing_but_the_request_and_the_os():
    result = plan('windows-2019', list=['netperf', 'nuttcp'], state='absent')
    assert [e['method'] for e in result['unavailable']] == ['unavailable'] and result['binary_entries']


def test_ethr_sources_in_order_controller_url_release():
    controller = plan('debian-12', no_files=False, list=['ethr'], ethr_src=__file__, ethr_url='https://example.invalid/e')
    assert controller['ethr_source'] == {'from': 'controller', 'src': __file__, 'checksum': '', 'zip': False}
    assert controller['extra_packages'] == []
    url = plan('debian-12', list=['ethr'], ethr_url='https://example.invalid/ethr.zip', ethr_checksum='sha256:1')
    assert url['ethr_source'] == {'from': 'url', 'src': 'https://example.invalid/ethr.zip', 'checksum': 'sha256:1', 'zip': True}
    assert plan('debian-12', list=['ethr'], ethr_version='0.9.9')['skipped'] == {'ethr': 'no known release zip for ethr 0.9.9'}
    assert 'no known release zip for ethr 0.9.9; set tools_ethr_url and tools_ethr_checksum, or tools_ethr_src.' in \
        refused('debian-12', list=['ethr'], ethr_version='0.9.9', ethr_optional=False)
    assert refused('debian-12', list=['ethr'], ethr_src='/nonexistent/ethr') == \
        'tools: ethr: tools_ethr_src=/nonexistent/ethr is not a file on the controller.'


def test_a_source_that_is_neither_a_url_nor_a_controller_file():
    assert plan('debian-12', list=['nuttcp'], build_from_source=['nuttcp'])['source_entries'][0]['src'].startswith('https://')
    facts = FACTS['debian-12']
    data = os_data(facts)
    data['sources']['nuttcp']['src'] = '/nonexistent/nuttcp-8.2.2.tar.bz2'
    with pytest.raises(tp.PlanError) as info:
        tp.build_plan(request(list=['nuttcp'], build_from_source=['nuttcp']), facts, data, is_file=lambda path: False)
    assert str(info.value) == ('tools: nuttcp cannot be built from source here: the source /nonexistent/nuttcp-8.2.2.tar.bz2 '
                               'is neither a URL nor a file on the controller.')


def test_the_request_and_the_os_are_checked_first():
    assert refused('debian-12', versions={'iperf9': '2.0'}, download_timeout=0, prefix='opt') == (
        'tools: invalid request: tools_download_timeout must be > 0 (got 0), tools_apt_cache_valid_time >= 0 (got 3600), '
        'tools_versions may only name iperf3, iperf2, netperf, nuttcp, ethr, sockperf (got iperf9), '
        'tools_prefix must be an absolute path (got opt).')
    message = refused('ubuntu-16.04')
    assert message.startswith('tools: Ubuntu 16 (Debian) is not supported. Supported: Debian 9+, Ubuntu 18.04+')


# -- the module --------------------------------------------------------------------------------
def run_module(args, capsys):
    with patch_module_args(args):
        with pytest.raises(SystemExit):
            module.main()
    return json.loads(capsys.readouterr().out)


def test_module_returns_the_plan_in_check_mode(capsys):
    facts = FACTS['debian-12']
    out = run_module(dict(tools=['iperf3', 'netperf'], facts=facts, os_data=os_data(facts), _ansible_check_mode=True), capsys)
    assert out['changed'] is False and out['package_specs'] == ['iperf3', 'netperf'] and out['apt_components'] == ['non-free']


def test_module_fails_with_the_role_message(capsys):
    facts = FACTS['ubuntu-16.04']
    out = run_module(dict(tools=['iperf3'], facts=facts, os_data=os_data(facts)), capsys)
    assert out['failed'] and 'is not supported' in out['msg']
    out = run_module(dict(tools=['iperf3'], facts=facts, os_data={}), capsys)
    assert out['failed'] and out['msg'] == 'tools_plan: os_data lacks all, supported_platforms, supported_text'


def _found(*paths, **links):
    """What ansible.builtin.find returns for the prefix and its bin folder ({path, islnk, isdir})."""
    return ([{'path': path, 'islnk': path in links.get('links', ()), 'isdir': not path.split('/')[-2] == 'bin'}
             for path in paths])


def test_an_installed_ethr_is_kept_when_no_source_is_given():
    # issue 29: ethr installed from a file, then a run with the defaults: no download, no "skipped", "kept"
    installed = _found('/opt/perflab/bin', '/opt/perflab/bin/ethr')
    result = plan('debian-12', installed=installed)
    assert result['ethr_wanted'] is False and result['skipped'] == {}
    assert result['kept'] == {'ethr': 'kept the installed /opt/perflab/bin/ethr: no tools_ethr_src or tools_ethr_url '
                                      'given (give one to replace it)'}
    assert 'unzip' not in result['extra_packages']
    # where ethr has no release (FreeBSD) and even when it is required: kept, not refused nor skipped
    bsd = plan('freebsd-12', list=['iperf3', 'ethr'], ethr_optional=False, installed=installed)
    assert 'ethr' in bsd['kept'] and bsd['skipped'] == {}
    # a source given replaces it (the role's ethr tasks compare it with the manifest's)
    given = plan('debian-12', installed=installed, ethr_url='https://example.invalid/ethr.zip')
    assert given['ethr_wanted'] is True and given['kept'] == {}
    # not installed: the release zip, as before
    assert plan('debian-12', installed=_found('/opt/perflab/bin/iperf3'))['ethr_wanted'] is True


def test_a_windows_nuttcp_is_kept_without_its_source_and_not_refused():
    installed = [{'path': 'C:\\perflab\\bin\\nuttcp.exe', 'islnk': False, 'isdir': False}]
    result = plan('windows-2019', list=['iperf3', 'nuttcp'], installed=installed)
    assert result['binary_entries'] == [] and result['kept']['nuttcp'].startswith(
        'kept the installed C:\\perflab\\bin\\nuttcp.exe: no tools_nuttcp_windows_src given')


def test_source_builds_are_kept_unless_another_version_or_a_build_is_asked_for():
    ours = _found('/opt/perflab/netperf-2.7.0', '/opt/perflab/bin/netperf', links=['/opt/perflab/bin/netperf'])
    same = plan('rocky-9', list=['netperf'], installed=ours)
    assert same['source_entries'] == [] and same['kept']['netperf'].startswith('kept the build of netperf 2.7.0')
    assert same['extra_packages'] == []   # no compiler for a build that is not made
    # the role's build of another version: the version asked for changed, it is built
    older = _found('/opt/perflab/netperf-2.6.0', '/opt/perflab/bin/netperf', links=['/opt/perflab/bin/netperf'])
    assert [e['tool'] for e in plan('rocky-9', list=['netperf'], installed=older)['source_entries']] == ['netperf']
    # the user's own binary in the bin folder: kept, never replaced silently
    users = _found('/opt/perflab/bin/netperf')
    kept = plan('rocky-9', list=['netperf'], installed=users)
    assert kept['source_entries'] == [] and 'not built by the role' in kept['kept']['netperf']
    # unless the build is asked for by name
    asked = plan('rocky-9', list=['netperf'], installed=users, build_from_source=['netperf'])
    assert [e['tool'] for e in asked['source_entries']] == ['netperf'] and asked['kept'] == {}
