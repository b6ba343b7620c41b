# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The tools role's probe (bench/tool_probe.py, module tools_info): real executables in folders of a
scratch PATH and prefix, printing the tools' real version output; each logs the argv it was run with."""
from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os
import shlex
from pathlib import Path

import pytest

from ansible_collections.perflab.network.plugins.module_utils.bench import tool_probe
from ansible_collections.perflab.network.plugins.module_utils.host import process

FIXTURES = Path(__file__).resolve().parents[2] / 'fixtures'


def executable(folder, name, log, stdout=None, stderr=None):
    """A script ``name`` that logs its argv to ``log`` and prints the fixture files given."""
    folder.mkdir(parents=True, exist_ok=True)
    lines = ['#!/bin/sh', 'echo "$0 $*" >> %s' % shlex.quote(str(log))]
    if stdout:
        lines.append('cat %s' % shlex.quote(str(FIXTURES / stdout)))
    if stderr:
        lines.append('cat %s >&2' % shlex.quote(str(FIXTURES / stderr)))
    path = folder / name
    path.write_text('\n'.join(lines) + '\n')
    path.chmod(0o755)
    return str(path)


@pytest.fixture
def host(tmp_path, monkeypatch):
    """A prefix with iperf3 3.12 in its bin; on PATH another iperf3, netperf 2.7.0 with its netserver,
    nuttcp 8.2.2 (its version on stderr) and an iperf that is not executable; no usual folder."""
    monkeypatch.setattr(process, 'EXTRA_BIN_DIRS', ())
    log = tmp_path / 'argv.log'
    prefix, on_path = tmp_path / 'opt', tmp_path / 'path'
    made = {
        'prefix_iperf3': executable(prefix / 'bin', 'iperf3', log, stdout='iperf3/3.12/version.txt'),
        'path_iperf3': executable(on_path, 'iperf3', log, stdout='iperf3/3.12/version.txt'),
        'netperf': executable(on_path, 'netperf', log, stdout='netperf/2.7.0/version.stdout'),
        'netserver': executable(on_path, 'netserver', log),
        'nuttcp': executable(on_path, 'nuttcp', log, stderr='nuttcp/8.2.2/version.txt'),
    }
    (on_path / 'iperf').write_text('#!/bin/sh\n')
    return dict(made, prefix=str(prefix), path=str(on_path), log=log)


def test_every_tool_found_with_its_version_and_server_the_prefix_first(host):
    found = tool_probe.probe(tool_probe.search_dirs(host['prefix'], path_env=host['path']))
    assert found == {
        'iperf3': {'version': '3.12', 'path': host['prefix_iperf3'], 'server_path': host['prefix_iperf3']},
        'netperf': {'version': '2.7.0', 'path': host['netperf'], 'server_path': host['netserver']},
        'nuttcp': {'version': '8.2.2', 'path': host['nuttcp'], 'server_path': host['nuttcp']},
    }
    assert list(found) == [name for name in ('iperf3', 'iperf2', 'netperf', 'nuttcp', 'ethr', 'sockperf') if name in found]
    # each found once, asked once with the registry's version argv; the PATH's iperf3 never ran
    assert sorted(host['log'].read_text().splitlines()) == sorted([
        host['prefix_iperf3'] + ' --version', host['netperf'] + ' -V', host['nuttcp'] + ' -V'])


def test_a_missing_separate_server_is_null_and_a_silent_tool_has_no_version(host):
    os.remove(host['netserver'])
    Path(host['netperf']).write_text('#!/bin/sh\n')
    found = tool_probe.probe(tool_probe.search_dirs(host['prefix'], path_env=host['path']))
    assert found['netperf'] == {'version': None, 'path': host['netperf'], 'server_path': None}


def test_the_search_order_is_the_prefix_then_the_modules_one(host, monkeypatch):
    monkeypatch.setattr(process, 'EXTRA_BIN_DIRS', ('/usr/bin', '/opt/perflab/bin'))
    assert tool_probe.search_dirs('/opt/perflab', path_env='/usr/local/bin:/usr/bin') == \
        ['/opt/perflab/bin', '/usr/local/bin', '/usr/bin']
    assert tool_probe.search_dirs('', path_env='/usr/bin') == ['/usr/bin', '/opt/perflab/bin']
