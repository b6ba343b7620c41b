# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""roles/tools on real Debian 12 hosts: a private lab (tag h4) that starts without the tools.

The role installs iperf3, netperf (non-free) and nuttcp over SSH from Debian's repositories
(the hosts reach them through the control node's NAT), a second run changes nothing, check
mode changes nothing, and ``tools_state: absent`` leaves each host as it found it (package
list, apt sources, /etc, users, /opt). A source build (nuttcp, from Debian's own source
tarball of it) and its failure path, and ethr's optional and required failure paths, run too.
The lab comes up through the documented playbook (``make lab-up`` runs it) in the
``lab_factory`` fixture, which brings it down at the end of the session on every path.

Timings go to stdout (``pytest -s``) as ``TIMING name seconds``.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from conftest import ROOT, run_playbook

pytestmark = pytest.mark.lab
NAME, MGMT, DATA = 'h4', '10.204.0.0/24', '10.204.1.0/24'
HOSTS = ('lab1', 'lab2')
TOOLS = ['iperf3', 'netperf', 'nuttcp']

PLAYBOOK = '''---
- name: Run the tools role
  hosts: "{{ target_hosts | default('perflab_lab') }}"
  gather_facts: false
  tasks:
    - name: Run perflab.network.tools
      ansible.builtin.include_role:
        name: perflab.network.tools

    - name: Report the tools
      ansible.builtin.debug:
        var: report
      vars:
        report:
          tools: "{{ perflab_tools }}"
          skipped: "{{ perflab_tools_skipped }}"
          kept: "{{ perflab_tools_kept | default({}) }}"
'''

# What a host looks like, to compare before and after: installed packages, apt sources,
# files under /etc, users, and /opt.
STATE_COMMAND = ('dpkg-query -W -f="\\${db:Status-Abbrev}\\${Package}=\\${Version}\\n" | sort; '
                 'echo ---; cat /etc/apt/sources.list /etc/apt/sources.list.d/* 2>/dev/null; '
                 'echo ---; find /etc -xdev -type f | sort; echo ---; cut -d: -f1 /etc/passwd /etc/group; '
                 'echo ---; find /opt | sort')


def timing(name, started):
    print('TIMING %s %.1f' % (name, time.monotonic() - started))


@pytest.fixture(scope='module')
def lab(lab_factory):
    started = time.monotonic()
    built = lab_factory(NAME, hosts=len(HOSTS), mgmt=MGMT, data=DATA)
    timing('lab_up', started)
    return built


@pytest.fixture(scope='module')
def playbook(tmp_path_factory):
    path = tmp_path_factory.mktemp('tools-role') / 'tools.yml'
    path.write_text(PLAYBOOK)
    return path


def host_state(lab, host):
    res = lab.ssh(host, ['sh', '-c', STATE_COMMAND])
    assert res.returncode == 0, res.stderr
    return res.stdout


def task_results(res, name):
    """Each host's result of the tasks called name (role tasks are prefixed with the role)."""
    found = {}
    for play in res.plays:
        for task in play.get('tasks', []):
            if task['task']['name'] == name or task['task']['name'].endswith(' : ' + name):
                found.update(task['hosts'])
    return found


def report(res):
    found = task_results(res, 'Report the tools')
    return {host: found[host]['report'] for host in found if 'report' in found[host]}


def run(playbook, lab, extra, check=False, name=None, hosts=None):
    started = time.monotonic()
    if hosts:
        extra = dict(extra, target_hosts=hosts)
    res = run_playbook(str(playbook), lab.inventory, extra, check=check)
    if name:
        timing(name, started)
    return res


def test_install_idempotence_check_mode_and_removal(lab, playbook):
    before = {host: host_state(lab, host) for host in HOSTS}
    for host in HOSTS:
        for tool in TOOLS:
            assert lab.ssh(host, ['sh', '-c', 'command -v %s' % tool]).returncode != 0, '%s already on %s' % (tool, host)

    first = run(playbook, lab, {'tools_list': TOOLS}, name='install')
    assert first.rc == 0, first.stdout[-4000:] + first.stderr[-2000:]
    for host in HOSTS:
        assert first.stats[host]['changed'] > 0 and first.stats[host]['failures'] == 0
        tools = report(first)[host]['tools']
        assert sorted(tools) == TOOLS
        assert tools['iperf3']['version'] == '3.12' and tools['iperf3']['path'] == '/usr/bin/iperf3'
        assert tools['netperf']['version'] == '2.7.0' and tools['netperf']['server_path'] == '/usr/bin/netserver'
        assert tools['nuttcp']['version'] == '6.1.2'
        # the reported binaries run on the host and say the same
        out = lab.ssh(host, [tools['netperf']['path'], '-V']).stdout
        assert 'Netperf version 2.7.0' in out
        manifest = lab.ssh(host, ['cat', '/opt/perflab/.tools-manifest.json']).stdout
        assert '"non-free"' in manifest and '"netperf"' in manifest and '"libiperf0"' in manifest

    second = run(playbook, lab, {'tools_list': TOOLS}, name='second_run')
    assert second.rc == 0, second.stdout[-4000:]
    for host in HOSTS:
        assert second.stats[host]['changed'] == 0, 'second run changed %s' % host
        assert report(second)[host]['tools'] == report(first)[host]['tools']

    checked = run(playbook, lab, {'tools_list': TOOLS}, check=True, name='check_mode_installed')
    assert checked.rc == 0 and all(checked.stats[h]['changed'] == 0 for h in HOSTS), checked.stdout[-3000:]

    removed = run(playbook, lab, {'tools_state': 'absent'}, name='absent')
    assert removed.rc == 0, removed.stdout[-4000:]
    for host in HOSTS:
        assert removed.stats[host]['changed'] > 0
        assert report(removed)[host]['tools'] == {}
        assert host_state(lab, host) == before[host], 'absent did not restore %s' % host

    again = run(playbook, lab, {'tools_state': 'absent'}, name='absent_again')
    assert again.rc == 0 and all(again.stats[h]['changed'] == 0 for h in HOSTS)

    # check mode on a host without the tools: it reports what it would do, changes nothing,
    # including the netperf package of the non-free component it would only add
    dry = run(playbook, lab, {'tools_list': TOOLS}, check=True, name='check_mode_fresh')
    assert dry.rc == 0, dry.stdout[-4000:]
    for host in HOSTS:
        assert dry.stats[host]['changed'] > 0
        assert host_state(lab, host) == before[host]
    would = task_results(dry, 'Report the packages that would come from a component added in check mode')
    assert set(would) == set(HOSTS) and all(r.get('changed') for r in would.values())


def debian_source(name, dest):
    """Debian's own source tarball of a package, through apt with a private configuration
    (deb-src entries derived from this machine's deb822 sources; nothing on the machine changes)."""
    sources = Path('/etc/apt/sources.list.d/debian.sources')
    if not sources.exists() or not shutil.which('apt-get'):
        return None
    state = dest / 'apt'
    for sub in ('lists/partial', 'cache/archives/partial', 'parts'):
        (state / sub).mkdir(parents=True, exist_ok=True)
    (state / 'parts' / 'src.sources').write_text(sources.read_text().replace('Types: deb\n', 'Types: deb-src\n'))
    (state / 'apt.conf').write_text('Dir::Etc::SourceList "/dev/null";\nDir::Etc::SourceParts "%s";\n'
                                    'Dir::State::Lists "%s";\nDir::Cache "%s";\n'
                                    % (state / 'parts', state / 'lists', state / 'cache'))
    env = dict(os.environ, APT_CONFIG=str(state / 'apt.conf'))
    for argv in (['apt-get', '-q', 'update'], ['apt-get', '-q', 'source', '--download-only', name]):
        if subprocess.run(argv, cwd=dest, env=env, capture_output=True, text=True, timeout=300, check=False).returncode != 0:
            return None
    found = sorted(dest.glob('%s_*.orig.tar.*' % name))
    return found[0] if found else None


def test_source_build_and_a_failed_build(lab, playbook, tmp_path):
    tarball = debian_source('nuttcp', tmp_path)
    if tarball is None:
        pytest.skip("Debian's nuttcp source tarball could not be fetched with apt-get source")
    version = tarball.name.split('_')[1].split('.orig')[0]  # nuttcp_6.1.2.orig.tar.gz
    checksum = 'sha256:' + hashlib.sha256(tarball.read_bytes()).hexdigest()
    host = 'lab1'
    before = host_state(lab, host)
    build = {'tools_list': ['nuttcp'], 'tools_build_from_source': ['nuttcp'], 'tools_nuttcp_src': str(tarball),
             'tools_nuttcp_src_checksum': checksum, 'tools_nuttcp_src_version': version}

    built = run(playbook, lab, build, name='source_build', hosts=host)
    assert built.rc == 0, built.stdout[-4000:]
    tools = report(built)[host]['tools']
    assert tools['nuttcp'] == {'path': '/opt/perflab/bin/nuttcp', 'server_path': '/opt/perflab/bin/nuttcp',
                               'version': version}
    assert lab.ssh(host, ['/opt/perflab/bin/nuttcp', '-V']).stdout.strip() == 'nuttcp-%s' % version
    rebuilt = run(playbook, lab, build, name='source_build_second_run', hosts=host)
    assert rebuilt.rc == 0 and rebuilt.stats[host]['changed'] == 0

    # a build that fails (the tarball does not hold this version) names the tool and the cause,
    # and leaves nothing of itself behind: the earlier build and its link stay as they were
    listing = lab.ssh(host, ['find', '/opt/perflab']).stdout
    broken = dict(build, tools_nuttcp_src_version='9.9.9')
    failed = run(playbook, lab, broken, name='failed_build', hosts=host)
    assert failed.rc != 0
    assert 'tools: building nuttcp 9.9.9 from source' in failed.stdout
    assert 'nuttcp-9.9.9' in failed.stdout and 'No such file or directory' in failed.stdout
    assert lab.ssh(host, ['find', '/opt/perflab']).stdout == listing
    assert lab.ssh(host, ['sh', '-c', 'ls -d /tmp/*perflab* 2>/dev/null']).stdout == ''

    # a checksum that does not match stops before anything is built
    wrong = dict(build, tools_nuttcp_src_version='6.9.9', tools_nuttcp_src_checksum='sha256:' + '0' * 64)
    mismatch = run(playbook, lab, wrong, hosts=host)
    assert mismatch.rc != 0 and 'checksum mismatch' in mismatch.stdout
    assert lab.ssh(host, ['find', '/opt/perflab']).stdout == listing

    removed = run(playbook, lab, {'tools_state': 'absent'}, name='source_build_absent', hosts=host)
    assert removed.rc == 0, removed.stdout[-4000:]
    assert host_state(lab, host) == before  # compiler, links, /opt/perflab: all gone


def test_ethr_that_cannot_be_downloaded(lab, playbook):
    """Skipped with a warning when optional, a failure naming ethr when not. The URL is a closed
    port on the host's own loopback: no traffic leaves the machine."""
    host = 'lab2'
    before = host_state(lab, host)
    unreachable = {'tools_list': ['ethr'], 'tools_ethr_url': 'http://127.0.0.1:9/ethr_linux.zip'}
    optional = run(playbook, lab, unreachable, name='ethr_optional', hosts=host)
    assert optional.rc == 0, optional.stdout[-3000:]
    skipped = report(optional)[host]['skipped']
    assert 'ethr' in skipped and 'Connection refused' in skipped['ethr']
    assert 'WARNING: tools: ethr skipped on %s' % host in optional.stdout

    required = run(playbook, lab, dict(unreachable, tools_ethr_optional=False), hosts=host)
    assert required.rc != 0
    assert 'tools: ethr could not be installed from http://127.0.0.1:9/ethr_linux.zip' in required.stdout

    removed = run(playbook, lab, {'tools_state': 'absent'}, hosts=host)
    assert removed.rc == 0
    assert host_state(lab, host) == before


def test_pinned_versions(lab, playbook):
    """A version apt does not have fails before anything is installed, naming the tool; one it
    has is installed exactly."""
    host = 'lab2'
    before = host_state(lab, host)
    missing = run(playbook, lab, {'tools_list': ['iperf3'], 'tools_versions': {'iperf3': '3.99-1'}},
                  name='pin_missing', hosts=host)
    assert missing.rc != 0
    assert 'tools: iperf3: version 3.99-1 of package iperf3 is not available here (available: 3.12-' in missing.stdout
    assert host_state(lab, host) == before

    madison = lab.ssh(host, ['apt-cache', 'madison', 'iperf3']).stdout.splitlines()
    version = madison[0].split('|')[1].strip()
    pinned = run(playbook, lab, {'tools_list': ['iperf3'], 'tools_versions': {'iperf3': version}},
                 name='pin_present', hosts=host)
    assert pinned.rc == 0, pinned.stdout[-3000:]
    assert report(pinned)[host]['tools']['iperf3']['version'] == '3.12'
    installed = lab.ssh(host, ['dpkg-query', '-W', '-f=${Version}', 'iperf3']).stdout
    assert installed == version

    removed = run(playbook, lab, {'tools_state': 'absent'}, hosts=host)
    assert removed.rc == 0
    assert host_state(lab, host) == before


def test_ethr_from_a_controller_file(lab, playbook):
    binary = os.environ.get('PERFLAB_ETHR_BINARY')
    if not binary or not Path(binary).is_file():
        pytest.skip('no real ethr binary here (no registry has ethr): set PERFLAB_ETHR_BINARY to an ethr '
                    'binary or release zip to test the tools_ethr_src path')
    host = 'lab1'
    installed = run(playbook, lab, {'tools_list': ['ethr'], 'tools_ethr_src': binary, 'tools_ethr_optional': False},
                    name='ethr_from_controller', hosts=host)
    assert installed.rc == 0, installed.stdout[-3000:]
    ethr = report(installed)[host]['tools']['ethr']
    assert ethr['path'] == '/opt/perflab/bin/ethr' and ethr['version']
    again = run(playbook, lab, {'tools_list': ['ethr'], 'tools_ethr_src': binary}, hosts=host)
    assert again.rc == 0 and again.stats[host]['changed'] == 0
    removed = run(playbook, lab, {'tools_state': 'absent'}, hosts=host)
    assert removed.rc == 0
    assert lab.ssh(host, ['test', '-e', '/opt/perflab']).returncode != 0


def test_an_ethr_installed_from_a_file_is_kept_by_a_run_without_a_source(lab, playbook):
    """Issue 29: ethr installed from a file, then the defaults (no source: the release zip, which cannot be
    downloaded here): kept and said so, not skipped, not downloaded, the binary untouched; the same for a
    binary of the user's own in the prefix, which the role did not install."""
    host = 'lab2'
    before = host_state(lab, host)
    standin = str(ROOT / 'tests' / 'integration' / 'files' / 'ethr-standin' / 'ethr')
    installed = run(playbook, lab, {'tools_list': ['ethr'], 'tools_ethr_src': standin, 'tools_ethr_optional': False},
                    hosts=host)
    assert installed.rc == 0, installed.stdout[-3000:]
    digest = lab.ssh(host, ['sha256sum', '/opt/perflab/bin/ethr']).stdout
    rerun = run(playbook, lab, {'tools_list': ['ethr'], 'tools_ethr_optional': False}, name='ethr_kept', hosts=host)
    assert rerun.rc == 0, rerun.stdout[-3000:]
    assert report(rerun)[host]['skipped'] == {}
    assert report(rerun)[host]['kept']['ethr'].startswith('kept the installed /opt/perflab/bin/ethr: no tools_ethr_src')
    assert 'NOTE: tools: ethr kept on %s' % host in rerun.stdout and 'WARNING' not in rerun.stdout
    assert rerun.stats[host]['changed'] == 0 and 'Download ethr' not in rerun.stdout
    assert lab.ssh(host, ['sha256sum', '/opt/perflab/bin/ethr']).stdout == digest
    removed = run(playbook, lab, {'tools_state': 'absent'}, hosts=host)
    assert removed.rc == 0
    assert host_state(lab, host) == before
