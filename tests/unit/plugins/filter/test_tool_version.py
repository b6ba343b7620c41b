# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The tools role's versions (perflab_tools) and the records' (tool_version, report titles) are read one way."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

from pathlib import Path

import pytest
import yaml

from ansible_collections.perflab.network.plugins.filter.tool_version import tool_version
from ansible_collections.perflab.network.plugins.filter.tool_version_probes import tool_version_probes
from ansible_collections.perflab.network.plugins.module_utils.tools import registry

ROOT = Path(__file__).resolve().parents[4]
FIXTURES = ROOT / 'tests' / 'unit' / 'fixtures'


@pytest.mark.parametrize('tool, text, version', [
    ('iperf3', 'iperf 3.12 (cJSON 1.7.15)\nLinux lab1 6.1.0-18-amd64', '3.12'),
    ('iperf2', 'iperf version 2.1.8 (12 August 2022) pthreads', '2.1.8'),
    ('netperf', 'Netperf version 2.7.0', '2.7.0'),
    ('nuttcp', 'nuttcp-6.1.2', '6.1.2'),
    ('nuttcp', 'nuttcp-v8.2.2', '8.2.2'),
    ('ethr', 'Ethr (Version: v1.0.0)', '1.0.0'),
    ('ethr', 'nothing', None),
])
def test_the_role_reads_each_version_as_the_registry_does(tool, text, version):
    assert tool_version(text, tool) == version


def test_ethr_s_title_version_is_the_tools_role_s():
    # issue 29: titles said "Ethr v1.0.0" where the tools role said 1.0.0
    help_text = (FIXTURES / 'ethr' / '1.0.0-5' / 'help.txt').read_text()
    version = registry.get('ethr').parse_version(help_text)
    assert version == tool_version(help_text, 'ethr') == '1.0.0-5-g86e0704'
    title = registry.get('ethr').report_title('tcp_stream', versions=[version], protocol='tcp', duration=60)
    assert title.startswith('Ethr 1.0.0-5-g86e0704 - Duration: 60 Seconds')
    # the role has no reading of its own left (a regex beside the registry's), nor a probe of its own: it
    # asks the registry through the tool_version_probes filter
    role_vars = yaml.safe_load((ROOT / 'roles' / 'tools' / 'vars' / 'main.yml').read_text())
    assert role_vars['__tools_version_probes'] == '{{ [] | perflab.network.tool_version_probes }}'
    probes = tool_version_probes([])
    assert list(probes) == list(registry.TOOLS)
    assert all(set(probe) == {'binary', 'args', 'server'} for probe in probes.values())
    assert probes['iperf2'] == {'binary': 'iperf', 'args': ['-v'], 'server': None}
    assert probes['ethr'] == {'binary': 'ethr', 'args': ['-h'], 'server': None}
    # a server of its own: the tools role finds it beside the client (perflab_tools' server_path)
    assert probes['netperf']['server'] == 'netserver'
    assert [name for name, probe in probes.items() if probe['server']] == [
        name for name, tool in registry.TOOLS.items() if tool.server_executable != tool.client_executable]
    assert dict((name, [probe['binary']] + probe['args']) for name, probe in probes.items()) == dict(
        (name, tool.version_argv(tool.client_executable)) for name, tool in registry.TOOLS.items())


def test_the_ethr_titles_docs_reports_md_shows_can_be_made():
    # issue 29: docs/reports.md showed "Latency - Threads: 8", which no record can give (latency runs 1 connection)
    import re
    text = ' '.join((ROOT / 'docs' / 'reports.md').read_text().split())
    shown = re.findall(r'"(Ethr [^"]+)"', text)
    assert shown
    ethr = registry.get('ethr')
    made = set()
    for name, test in ethr.tests.items():
        for parallel in (1, 8):
            for protocol in ('tcp', 'udp'):
                params = ethr.params_of(name, parallel)
                record_test, protocol, direction = ethr.record_test(dict(params, protocol=protocol, reverse=False))
                made.add(ethr.report_title(record_test, versions=['1.0.0'], protocol=protocol, direction=direction,
                                           parallel=ethr.effective_parallel(params), duration=60))
    assert set(shown) <= made, sorted(set(shown) - made)
