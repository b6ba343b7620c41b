# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""The seed studies against the seeds' rows, as the shared reference states them: phoronix-10gbe (its Phoronix
rows), osv-netperf (seed 003) and parallel-netperf (seed 004).

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


# --- the other seeds: the OSv netperf comparison (seed 003) and the parallel netperf post (seed 004) ---------------
# Their rows in the shared reference are the matrix's lines "netperf the OSv way: ..." and "netperf the "many
# processes" way: ..."; the study's side, suites and reversed part are read from its playbook, the records as the plan
# builds them with the pairs each part runs (the OSv study's second part reversed: the system under test sends).

def _plays(name):
    with open(os.path.join(ROOT, 'playbooks', 'studies', name)) as handle:
        return yaml.safe_load(handle)


def _parts(plays):
    """Each benchmark stage (or the benchmark playbook) the study imports, with its vars: the study's parts."""
    return [play.get('vars') or {} for play in plays
            if play.get('ansible.builtin.import_playbook') in ('../stages/benchmark.yml', '../benchmark.yml')]


def _records_of(part, sut='sut', peer='peer'):
    """The records a study's part plans, with the system under test ``sut`` on the side the part names."""
    with open(s.find_suite(part['perflab_suite'], [SUITES])) as handle:
        tests = s.expand_suite(yaml.safe_load(handle))
    side = part.get('perflab_system_under_test', 'both')
    # the system under test is the server of its pairs when the study says servers; a reversed part swaps the ends
    client, server = (peer, sut) if side == 'servers' else (sut, peer)
    if part.get('benchmark_reverse_pairs'):
        client, server = server, client
    out = []
    for test in tests:
        item = dict(test, repetition=1, client=client, server=server, client_address='10.0.0.1',
                    server_address='10.0.0.2', run_id='R1', config='c', suite=part['perflab_suite'])
        out.append(plan_records.planned_record(item, 'skipped', 'planned'))
    return out


@pytest.fixture(scope='module')
def seed_lines():
    with open(TOOLS_MD) as handle:
        matrix = _section(handle.read(), "The seeds' test matrix")
    osv = re.search(r'^- netperf the OSv way: (\d+) s, (\d+) runs averaged, relative % against a baseline', matrix, re.M)
    many = re.search(r'^- netperf the "many processes" way: N parallel ([A-Z_]+) clients summed, and\s+the NIC\'s own '
                     r'byte counters sampled each second', matrix, re.M)
    netperf = re.search(r'^- netperf, \d+ s: ([A-Z_, ]+)', matrix, re.M).group(1)
    return {'osv': {'duration': int(osv.group(1)), 'runs': int(osv.group(2))},
            'many': {'test': many.group(1)}, 'netperf_tests': re.findall(r'[A-Z_]+', netperf)}


def test_seed_003_the_osv_study_measures_the_netserver_side_as_the_seed_did(seed_lines):
    plays = _plays('osv-netperf.yml')
    parts = _parts(plays)
    assert [part['perflab_suite'] for part in parts] == ['osv-netperf', 'osv-netperf-udp']
    # the system under test is the netserver host (the appliance), in both parts
    assert [part['perflab_system_under_test'] for part in parts] == ['servers', 'servers']
    first, second = [_records_of(part, sut='osv', peer='linux') for part in parts]
    # the seed's netperf tests, every one 30 s and averaged over 5 runs
    assert sorted(r['test'] for r in first if r['tool'] == 'netperf') == sorted(
        name for name, spec in parse_netperf.TESTS.items() if spec[0] in ('TCP_STREAM', 'TCP_MAERTS', 'TCP_RR', 'UDP_RR'))
    for record in first + second:
        assert record['duration_s'] == seed_lines['osv']['duration'], record['test_id']
    for part in parts:
        with open(s.find_suite(part['perflab_suite'], [SUITES])) as handle:
            suite = yaml.safe_load(handle)
        assert suite['defaults']['repetitions'] == seed_lines['osv']['runs']
    # the directions in our terms: the appliance is the server, TCP_STREAM sends to it, TCP_MAERTS from it
    by_test = dict((r['test'], r) for r in first if r['tool'] == 'netperf')
    for name, record in by_test.items():
        assert record['direction'] == parse_netperf.TESTS[name][2]
        assert (record['client']['name'], record['server']['name']) == ('linux', 'osv')
    assert (by_test['tcp_stream']['direction'], by_test['tcp_maerts']['direction']) == (
        'client_to_server', 'server_to_client')
    # the second part: UDP_STREAM sent FROM the appliance (netperf's client on it: the pair reversed), its own title
    assert [(r['test'], r['direction'], r['client']['name'], r['server']['name'], r['title']) for r in second] == [
        ('udp_stream', 'client_to_server', 'osv', 'linux', 'UDP stream, 1400-byte messages, from the system under test')]
    assert second[0]['options']['message_size'] == 1400
    # our own titles (the seed's table names the tests by netperf's names): none of pts/netperf's menu titles
    assert not any(r['title'] and ' - ' in r['title'] for r in first + second)
    # "relative % against a baseline": the seed's ratio form, in the study's report
    assert all(part['perflab_report_form'] == 'ratio' for part in parts)
    assert [p for p in plays if p['ansible.builtin.import_playbook'] == '../report.yml'][0]['vars'][
        'perflab_report_form'] == 'ratio'


def test_seed_004_the_parallel_study_sums_n_processes_and_samples_the_nic(seed_lines):
    plays = _plays('parallel-netperf.yml')
    parts = _parts(plays)
    assert len(parts) == 1 and parts[0]['perflab_suite'] == 'parallel-netperf'
    # "the NIC's own byte counters sampled each second to cross-check the tools"
    assert parts[0]['benchmark_nic_sampling'] is True
    records = _records_of(parts[0])
    seed_test = [name for name, spec in parse_netperf.TESTS.items() if spec[0] == seed_lines['many']['test']][0]
    # one process, and N processes summed into one record: the seed's TCP_STREAM, from the client (the host running
    # netperf) to the netserver, as the record says
    assert [(r['tool'], r['test'], r['direction'], r['test_id']) for r in records] == [
        ('netperf', seed_test, 'client_to_server', 'netperf/%s/parallel=1' % seed_test),
        ('netperf', seed_test, 'client_to_server', 'netperf/%s/processes=4/parallel=1' % seed_test)]
    assert [r['title'] for r in records] == ['TCP stream, one process', 'TCP stream, 4 processes summed']
    assert len(set(r['duration_s'] for r in records)) == 1 and records[0]['duration_s'] > 0
    # netperf's stream figure is the receiver's (the netserver host): both records read it the same way
    assert [r['reading'] for r in records] == [{'side': 'receiver', 'host': 'server'}] * 2
    # the side under test: neither end is singled out by the seed, so the study changes and labels both
    assert parts[0].get('perflab_system_under_test', 'both') == 'both'
