# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""The phoronix-10gbe study against the seeds' rows, as the shared reference states them.

The seeds' rows (which test each Phoronix row ran, how long, whose count it read, which host ran the
client) are parsed from ../shared/reference/TOOLS.md ("The seeds' test matrix" and "How the Phoronix
Test Suite profiles ran each row"); the study's side is read from its playbook, its titles, directions,
durations and readings from the records the collection's own code builds for each planned test.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os
import re

import pytest
import yaml

from ansible_collections.perflab.network.plugins.module_utils.tools.netperf import parse as parse_netperf
from ansible_collections.perflab.network.plugins.module_utils.plan import records as plan_records
from ansible_collections.perflab.network.plugins.module_utils.tools import registry
from ansible_collections.perflab.network.plugins.module_utils.plan import suite as s
from ansible_collections.perflab.network.plugins.module_utils.report import tables

ROOT = os.path.join(os.path.dirname(__file__), '..', '..', '..', '..')
TOOLS_MD = os.path.join(ROOT, '..', 'shared', 'reference', 'TOOLS.md')
SUITES = os.path.join(ROOT, 'roles', 'benchmark', 'files', 'suites')
STUDY = os.path.join(ROOT, 'playbooks', 'studies', 'phoronix-10gbe.yml')

pytestmark = pytest.mark.skipif(not os.path.isfile(TOOLS_MD), reason='the seeds reference %s is not here' % TOOLS_MD)


def _section(text, heading):
    start = text.index('## ' + heading)
    end = text.find('\n## ', start + 3)
    return text[start:end if end > 0 else len(text)]


@pytest.fixture(scope='module')
def seed():
    """The seeds' rows: {tool: {duration, rows: {seed title: test}, reading: {protocol: side}, client_argv}}."""
    with open(TOOLS_MD) as handle:
        text = handle.read()
    matrix = _section(text, "The seeds' test matrix")
    profiles = _section(text, 'How the Phoronix Test Suite profiles ran each row')
    rows = {}
    for line in profiles.splitlines():
        cells = [cell.strip() for cell in line.strip().strip('|').split('|')]
        match = re.match(r'pts/(\w+) ', cells[0]) if len(cells) == 4 else None
        if match:
            rows[match.group(1)] = {'argv': cells[1], 'reading': cells[2], 'runs': cells[3]}
    out = {}
    # durations: the matrix's "<tool>, 60 s" lines, else the profile's own argv (-T30, -d 10s of the seed era)
    for tool in ('iperf3', 'netperf'):
        out[tool] = {'duration': int(re.search(r'^- %s, (\d+) s:' % tool, matrix, re.M).group(1))}
    out['nuttcp'] = {'duration': int(re.search(r'-T(\d+)', rows['nuttcp']['argv']).group(1))}
    out['ethr'] = {'duration': int(re.search(r'-d (\d+)s', rows['ethr']['argv']).group(1))}
    # netperf's menu: "TCP Stream - Client To Server" = `TCP_MAERTS`
    out['netperf']['rows'] = dict(re.findall(r'"([^"]+)" = `([A-Z_]+)`', rows['netperf']['reading']))
    # iperf: the sender line for TCP, the receiver's line for UDP
    reading = rows['iperf']['reading']
    out['iperf3']['reading'] = {'tcp': 'sender' if re.search(r'`sender` line \(TCP', reading) else 'receiver',
                                'udp': 'receiver' if re.search(r"receiver's \w+ line for UDP", reading) else 'sender'}
    # every profile runs the tool's client on the Phoronix system (the system under test) against a server
    for name, row in rows.items():
        if name in ('netperf', 'iperf', 'nuttcp', 'ethr'):
            tool = 'iperf3' if name == 'iperf' else name
            out[tool]['client_runs_on_the_system'] = bool(re.search(r'`-[Hc] <server>', row['argv'])) \
                or name == 'nuttcp'   # nuttcp's profile passes the server as the last argument
    return out


@pytest.fixture(scope='module')
def planned():
    """A record for every test of the study's suite, as the plan builds it (title, direction, reading, duration)."""
    with open(STUDY) as handle:
        study = yaml.safe_load(handle)
    variables = study[0]['vars']
    with open(s.find_suite(variables['perflab_suite'], [SUITES])) as handle:
        tests = s.expand_suite(yaml.safe_load(handle))
    records = []
    for test in tests:
        item = dict(test, repetition=1, client='sut', server='peer', client_address='10.0.0.1',
                    server_address='10.0.0.2', run_id='R1', config='c', suite=variables['perflab_suite'])
        record = plan_records.planned_record(item, 'skipped', 'planned')
        record['report_title'] = tables.default_title(
            record['tool'], ['X'], record['test'], record['protocol'], record['direction'], record['parallel'],
            record['test_id'], duration=record['duration_s'], options=record['options'], title=record['title'])
        records.append(record)
    return variables, records


def test_the_seed_reference_was_read(seed):
    assert seed['netperf']['rows'] == {'TCP Stream - Client To Server': 'TCP_MAERTS',
                                       'TCP Stream - Server To Client': 'TCP_STREAM'}
    assert (seed['nuttcp']['duration'], seed['ethr']['duration']) == (30, 10)


def test_the_system_under_test_is_the_client_as_in_the_seeds(seed, planned):
    variables, _records = planned
    assert all(seed[tool]['client_runs_on_the_system'] for tool in ('iperf3', 'netperf', 'nuttcp', 'ethr'))
    assert variables['perflab_system_under_test'] == 'clients'


def test_netperf_stream_rows_carry_the_seeds_titles_and_run_what_the_profile_ran(seed, planned):
    _variables, records = planned
    for title, netperf_test in seed['netperf']['rows'].items():
        found = [r for r in records if r['tool'] == 'netperf' and r['title'] == title]
        assert len(found) == 1, title
        record = found[0]
        # the test the profile ran under that title, and its real direction in our terms
        ours = [name for name, spec in parse_netperf.TESTS.items() if spec[0] == netperf_test][0]
        assert record['test'] == ours
        assert record['direction'] == parse_netperf.TESTS[ours][2]
        assert record['report_title'] == 'Netperf X - Duration: %d Seconds - Test: %s' % (seed['netperf']['duration'], title)
        # netperf's stream figure is the receiver's: with TCP_MAERTS that is the host that runs netperf
        assert record['reading'] == {'side': 'receiver',
                                     'host': 'client' if record['direction'] == 'server_to_client' else 'server'}
    # "Client To Server" in the seeds' terms is the netserver host sending: TCP_MAERTS, server_to_client
    maerts = [r for r in records if r['test'] == 'tcp_maerts'][0]
    assert maerts['title'] == 'TCP Stream - Client To Server' and maerts['direction'] == 'server_to_client'


def test_every_row_runs_as_long_as_its_profile(seed, planned):
    _variables, records = planned
    for record in records:
        assert record['duration_s'] == seed[record['tool']]['duration'], record['test_id']
        assert 'Duration: %d Seconds' % seed[record['tool']]['duration'] in record['report_title']


def test_iperf3_rows_are_ranked_by_the_side_the_profile_read(seed, planned):
    _variables, records = planned
    iperf3 = [r for r in records if r['tool'] == 'iperf3']
    assert len(iperf3) == 6
    for record in iperf3:
        side = seed['iperf3']['reading'][record['protocol']]
        assert record['reading'] == {'side': side, 'host': 'client' if side == 'sender' else 'server'}
        tool = registry.get('iperf3')
        params = tool.params_of(record['test'], record['parallel'], 1, record['options'])
        assert tool.primary(params) == ('throughput_sent_mbps' if side == 'sender' else 'throughput_mbps')
    assert [r['report_title'] for r in iperf3 if r['protocol'] == 'tcp'] == [
        'iPerf X - Duration: 60 Seconds - Test: TCP - Parallel: %d' % p for p in (1, 5, 20)]


def test_our_own_names_stay_everywhere_else():
    # outside the seed's suite, the tool's own titles: the client is the host that runs netperf
    netperf = registry.get('netperf')
    assert netperf.report_title('tcp_stream') == 'Netperf - Test: TCP Stream (Client To Server)'
    assert netperf.report_title('tcp_maerts') == 'Netperf - Test: TCP Stream (Server To Client)'
    for name in ('quick', 'osv-netperf'):
        with open(s.find_suite(name, [SUITES])) as handle:
            tests = s.expand_suite(yaml.safe_load(handle))
        assert not any(t['title'] and ' - ' in t['title'] for t in tests if t['tool'] == 'netperf')
        assert not any(t['options'].get('reading') for t in tests)
