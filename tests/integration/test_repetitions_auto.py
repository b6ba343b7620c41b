# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""repetitions: auto on the namespace lab (lab "auto27"): one pair, iperf3 TCP for 1 s.

The benchmark playbook runs a test whose repetitions stop when the 95 % confidence interval of its
throughput's mean is within the rule's share: every record says the rule, only the last one stops, with
why, and the count is between min and max (the repetitions not needed have no record, no failed one).
A resume with a higher minimum goes on from the recorded values instead of starting again.
"""
from __future__ import annotations

import json
import re

import pytest
import yaml

from conftest import run_playbook

pytestmark = pytest.mark.lab
NAME, MGMT, DATA = 'auto27', '10.237.0.0/24', '10.237.1.0/24'
STOP = re.compile(r'^(ci \d+\.\d % <= [\d.]+ % after \d+ runs|maximum \d+ reached, ci .+)$')


@pytest.fixture(scope='module')
def lab(lab_factory):
    return lab_factory(NAME, hosts=2, mgmt=MGMT, data=DATA)


def records(path):
    return [r for r in (json.loads(line) for line in path.read_text().splitlines() if line.strip())
            if r.get('schema') == 'perflab.result/2' and r.get('test_id')]


# long: two benchmark runs in a row; the stop rule has its unit tests, a resume its make test cases (docs/testing.md)
@pytest.mark.long
def test_auto_repetitions_stop_on_the_interval_and_a_resume_goes_on(lab, tmp_path):
    results = tmp_path / 'results'
    suite = tmp_path / 'auto.yml'
    suite.write_text(yaml.safe_dump({'name': 'auto', 'description': 'repetitions auto',
                                     'defaults': {'duration': 1, 'repetitions': 'auto'},
                                     'tests': [{'tool': 'iperf3', 'test': 'tcp_stream'}]}))
    run_id = 'auto27-run'
    extra = {'perflab_suite': str(suite), 'perflab_run_id': run_id, 'perflab_results_dir': str(results),
             # a share a loaded 2-core machine reaches: the test stops on the interval, between min and max
             'perflab_repetitions_auto': {'min': 2, 'max': 5, 'ci_percent': 50}}
    res = run_playbook('playbooks/benchmark.yml', lab.inventory, extra, env={'PERFLAB_RESULTS_DIR': str(results)},
                       timeout=1500)
    assert res.rc == 0, res.stdout[-5000:] + res.stderr[-2000:]
    first = records(results / (run_id + '.jsonl'))
    assert all(r['status'] == 'ok' for r in first), [(r['repetition'], r['status'], r['error']) for r in first]
    assert 2 <= len(first) <= 5 and [r['repetition'] for r in first] == list(range(1, len(first) + 1))
    rules = [r['repetitions_auto'] for r in first]
    assert all((a['min'], a['max'], a['ci_percent']) == (2, 5, 50.0) for a in rules), rules
    assert [a['stop'] for a in rules] == [False] * (len(first) - 1) + [True], rules
    assert STOP.match(rules[-1]['reason']), rules[-1]
    assert rules[-1]['runs'] == len(first)

    # a resume asking for more runs: it goes on from the recorded values (repetition len+1 on), not from 1
    more = dict(extra, perflab_install_tools=False,
                perflab_repetitions_auto={'min': len(first) + 1, 'max': len(first) + 1, 'ci_percent': 50})
    res = run_playbook('playbooks/benchmark.yml', lab.inventory, more, env={'PERFLAB_RESULTS_DIR': str(results)},
                       timeout=1500)
    assert res.rc == 0, res.stdout[-5000:] + res.stderr[-2000:]
    added = records(results / (run_id + '.jsonl'))[len(first):]
    assert [r['repetition'] for r in added] == [len(first) + 1], [(r['repetition'], r['status']) for r in added]
    last = added[0]['repetitions_auto']
    assert last['stop'] and last['runs'] == len(first) + 1, last
    assert STOP.match(last['reason']), last
