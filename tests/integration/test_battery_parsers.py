# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The reliability battery, faults the tools' output shows (issue #29.5): what a real tool prints
when the network misbehaves mid-test must be recorded for what it is, never as a clean 0 Mbit/s ok.

One run of the benchmark playbook on firewalled hosts (lab_factory firewall default-deny: only
the openings of the run let the tests in): iperf2 with 4 streams, one of which is stalled 1.5 s
in by an nftables drop rule on the server (lab1) for that stream's connection alone.
"""
from __future__ import annotations

import json
import time

import pytest
import yaml

import battery
from conftest import run_playbook

pytestmark = pytest.mark.lab
NAME, MGMT, DATA = 'i29p', '10.172.0.0/24', '10.172.1.0/24'
NFT_TABLE = 'perflab_i29p_stall'
PORT = 5401   # the plan's first iperf2 port (tools/iperf2.py plan_port)
# on lab1: once 4 iperf2 connections are up, drop one of them (both ways) for 30 s
STALL = r'''
# the run installs the tools and checks the hosts first: wait up to 15 min for the test's 4 streams
for i in $(seq 1 9000); do
  n=$(ss -tnH state established '( sport = :%(port)d )' | wc -l)
  [ "$n" -ge 4 ] && break
  sleep 0.1
done
sleep 1.5
peer=$(ss -tnH state established '( sport = :%(port)d )' | awk '{print $4}' | head -1 | sed 's/.*://')
[ -n "$peer" ] || { echo "no iperf2 stream to stall"; exit 1; }
nft add table inet %(table)s
nft add chain inet %(table)s in '{ type filter hook input priority -10; }'
nft add chain inet %(table)s out '{ type filter hook output priority -10; }'
nft add rule inet %(table)s in tcp dport %(port)d tcp sport "$peer" drop
nft add rule inet %(table)s out tcp sport %(port)d tcp dport "$peer" drop
echo "stalled the stream from port $peer"
sleep 30
nft delete table inet %(table)s
echo released
''' % {'port': PORT, 'table': NFT_TABLE}


@pytest.fixture(scope='module')
def lab(lab_factory):
    return lab_factory(NAME, hosts=2, mgmt=MGMT, data=DATA, firewall='default-deny')


def test_an_iperf2_stream_stalled_mid_test(lab, tmp_path):
    with battery.case('fault', 'iperf2 stream stalled mid-test (nft drop of one of 4)') as case:
        suite = tmp_path / 'stall.yml'
        suite.write_text(yaml.safe_dump({'name': 'stall', 'description': 'one iperf2 stream stalled',
                                         'defaults': {'duration': 4, 'repetitions': 1},
                                         'tests': [{'tool': 'iperf2', 'test': 'tcp_stream', 'parallel': [4]}]}))
        lab.ssh('lab1', ['sh', '-c', 'nft delete table inet %s 2>/dev/null; rm -f /tmp/i29p-stall.log' % NFT_TABLE])
        lab.ssh('lab1', ['sh', '-c', 'setsid -f sh -c "$1" >/tmp/i29p-stall.log 2>&1 </dev/null', 'stall', STALL],
                check=True)
        started = time.monotonic()
        res = run_playbook('playbooks/benchmark.yml', lab.inventory,
                           {'perflab_suite': str(suite), 'perflab_run_id': 'i29p-stall',
                            'perflab_results_dir': str(tmp_path), 'tools_list': ['iperf2']},
                           env={'PERFLAB_RESULTS_DIR': str(tmp_path)}, timeout=900)
        print('FIGURE battery iperf2 stall run %.0f s' % (time.monotonic() - started))
        stall_log = lab.ssh('lab1', ['cat', '/tmp/i29p-stall.log']).stdout
        path = tmp_path / 'i29p-stall.jsonl'
        records = [json.loads(line) for line in path.read_text().splitlines()
                   if line.strip() and json.loads(line).get('schema') == 'perflab.result/2'] if path.exists() else []
        assert len(records) == 1, (res.rc, res.stdout[-3000:])
        rec = records[0]
        value = (rec['metrics'].get(rec['primary']) or {}).get('value')
        stalled = [note for note in rec['notes'] if 'stalled' in note]
        case.detail = '%s: %s' % (rec['status'], (rec['error'] or (stalled or [''])[0])[:110])
        assert 'stalled the stream' in stall_log, stall_log
        # never a clean 0 and never a wrong-path verdict: the record fails on the stall, says which stream
        # and what iperf2 counted in all (the final [SUM], or the streams' own finals added up)
        assert not (rec['status'] == 'ok' and not value), rec
        assert stalled and stalled[0].startswith('iperf2 stream '), (rec['status'], rec['error'], rec['notes'],
                                                                     rec['raw'][-1500:])
        assert rec['status'] == 'failed' and 'iperf2 stream(s) stalled during the test (iperf2 counted ' in rec['error'], \
            rec['error']
        assert 'wrong path' not in rec['error']
        # no iperf server is left running after the run
        left = lab.ssh('lab1', ['sh', '-c', 'pgrep -x iperf; true']).stdout.strip()
        assert not left, left
        assert res.rc == 0, res.stdout[-3000:]
        lab.ssh('lab1', ['sh', '-c', 'nft delete table inet %s 2>/dev/null; true' % NFT_TABLE])
