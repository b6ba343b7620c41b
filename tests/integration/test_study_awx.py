# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The AWX workflow of awx/vars/templates.yml against the default-deny lab, each node a job of
its own through ansible-runner's remote path (transmit | worker --delete | process, the path AWX
takes through receptor): the worker's directory, the job's "container", is gone after each job.

With no container group, what keeps the result files is a host directory exposed to the jobs
(AWX_ISOLATION_SHOW_PATHS, docs/awx.md): here a directory outside the worker's. It already holds
an older study with the same labels; the report node must merge only this workflow's runs (the
run ids the nodes hand down as artifacts), the templates must run the whole flow (tools,
firewall), and every host must be stock and closed at the end. (This replaces the workflow
replay test_runner.py had, on a lab with no firewall.)
"""
from __future__ import annotations

import json
import sys

import pytest

pytest.importorskip('ansible_runner')

from conftest import ROOT  # noqa: E402  (tests/integration is on sys.path under pytest)
# _venv_on_path: test_runner's autouse fixture (runner starts ansible-playbook from PATH), used here too
from test_runner import (AWX, _venv_on_path, artifact_dir, job_extravars, make_private_data_dir,  # noqa: E402,F401 pylint: disable=unused-import
                         runner_pipeline, stats_event)
from test_study_firewall import host_state  # noqa: E402

# a lab of its own: pytest-xdist runs this module and test_study_firewall.py on different workers at
# once, and a lab name shared by two modules is taken down and rebuilt under the other one
NAME, MGMT, DATA = 'awx16', '10.236.0.0/24', '10.236.1.0/24'

pytestmark = pytest.mark.lab
ANSWERS = {'perflab_suite': 'quick', 'perflab_duration': 1, 'perflab_repetitions': 1,
           'perflab_tuning_profile': 'throughput', 'perflab_tuned_mtu': 9000, 'perflab_firewall_mode': 'open'}
OLD_STUDY = ROOT / 'tests' / 'unit' / 'fixtures' / 'results'


@pytest.fixture(scope='module')
def lab(lab_factory):
    return lab_factory(NAME, hosts=3, mgmt=MGMT, data=DATA, firewall='default-deny')


def old_run(results):
    """An older study's results file in the results directory, with our stock run's label; its run id.

    The records are the synthetic ones of tests/unit/fixtures/results/stock.jsonl (its README says
    how they are made), labelled "Debian 12 stock" like the workflow's stock run.
    """
    text = (OLD_STUDY / 'stock.jsonl').read_text()
    run_id = json.loads(text.splitlines()[0])['run_id']
    (results / (run_id + '.jsonl')).write_text(text)
    return run_id


@pytest.mark.long
def test_the_workflow_runs_the_flow_and_reports_only_its_own_runs(lab, tmp_path):
    templates = {jt['name']: jt for jt in AWX['perflab_awx_job_templates']}
    nodes = {n['identifier']: n for n in AWX['perflab_awx_workflow']['workflow_nodes']}
    results = tmp_path / 'exposed-results'  # the host path exposed to every job
    results.mkdir()
    old = old_run(results)
    stock = {h: host_state(lab, h) for h in ('lab1', 'lab2')}
    artifacts, visited, published, state_after = {}, [], {}, {}
    queue = ['stock']
    while queue:
        identifier = queue.pop(0)
        if identifier in visited:
            continue
        node = nodes[identifier]
        jt = templates[node['unified_job_template']['name']]
        extravars = job_extravars(jt, artifacts, ANSWERS)
        extravars['benchmark_tools'] = ['iperf3']  # short: one tool through the firewall
        pdd = make_private_data_dir(tmp_path / identifier, lab.inventory, results_dir=results, extravars=extravars)
        worker = tmp_path / (identifier + '-worker')
        ran = runner_pipeline(pdd, worker, tmp_path / (identifier + '-controller'), jt['playbook'], identifier)
        adir = artifact_dir(tmp_path / (identifier + '-controller'), identifier)
        stdout = (adir / 'stdout').read_text() if (adir / 'stdout').exists() else ''
        assert (adir / 'status').read_text() == 'successful', '%s: %s\n%s' % (identifier, ran, stdout[-4000:])
        assert not worker.exists()  # the job's "container" is gone
        events = [json.loads(p.read_text()) for p in (adir / 'job_events').glob('*.json')]
        published[identifier] = stats_event(events)['artifact_data']
        if identifier in ('stock', 'tuned'):
            actions = {(e['event_data'].get('task_action') or '') for e in events if e['event'] == 'runner_on_ok'}
            # the template runs the whole flow: tools, the firewall, the connection check
            assert {'perflab.network.firewall_nftables', 'perflab.network.bench_preflight'} <= actions, identifier
            assert any('Install the tools' in (e['event_data'].get('task') or '') for e in events), identifier
        artifacts.update(published[identifier])
        state_after[identifier] = {h: host_state(lab, h) for h in ('lab1', 'lab2')}
        if identifier == 'tuned':  # the tuned node leaves the hosts tuned, for the revert node
            for host in ('lab1', 'lab2'):
                assert lab.ssh(host, ['cat', '/sys/class/net/data0/mtu'], check=True).stdout.strip() == '9000'
                assert lab.ssh(host, ['test', '-e', '/var/lib/perflab/tuning/stock.json']).returncode == 0
        visited.append(identifier)
        queue += [c['identifier'] for c in node['related']['success_nodes'] + node['related']['always_nodes']]

    assert visited == ['stock', 'tuned', 'report', 'revert']
    ids = published['tuned']['perflab_run_ids']
    assert old not in ids and ids == published['report'].get('perflab_run_ids', ids)
    # the files outlived every job's container, and the report read only this workflow's
    for run_id in ids:
        assert (results / (run_id + '.jsonl')).exists()
    report = published['report']['perflab_report']
    ours = sum(1 for run_id in ids for line in (results / (run_id + '.jsonl')).read_text().splitlines()
               if line.strip() and json.loads(line).get('schema', '').startswith('perflab.result/'))
    assert report['records'] + report['records_failed'] == ours, report
    assert sorted(report['configurations']) == sorted({s['config'] for n in ('stock', 'tuned')
                                                       for s in published[n]['perflab_summary']})
    # the stock node left the hosts as they were (its openings closed again); the revert node
    # put every change of the tuned node back: stock and closed again
    assert state_after['stock'] == stock and state_after['tuned'] != stock
    assert state_after['revert'] == stock


def test_the_report_refuses_run_ids_whose_files_did_not_survive(tmp_path):
    from conftest import run_playbook
    res = run_playbook('playbooks/report.yml', extra_vars={'perflab_run_ids': ['20260101T000000Z-dead']},
                       env={'PERFLAB_RESULTS_DIR': str(tmp_path)})
    assert res.rc != 0
    assert ('the result files of 20260101T000000Z-dead are not in %s' % tmp_path) in ' '.join(res.stdout.split())
    assert not list(tmp_path.iterdir())  # no workbook of nothing


@pytest.mark.parametrize('answer,refused', [(None, False), ('', False), ('firewall off', False), ('bad\x01', True)],
                         ids=['null', 'empty', 'a-label', 'control-character'])
def test_a_blank_system_label_answer_is_no_label(tmp_path, answer, refused):
    """The survey's optional System label left blank reaches the job as an empty string or, on
    some controller versions, as null (ansible/awx issue 16205): both mean no system label, not a
    refused run. The stage runs on two local hosts (it only reads the OS facts)."""
    from conftest import run_playbook
    host = {'ansible_connection': 'local', 'ansible_python_interpreter': sys.executable}
    inventory = tmp_path / 'hosts.yml'
    # the stage also checks the pairs, which need each host's data address
    inventory.write_text(json.dumps({'perflab_servers': {'hosts': {'s1': dict(host, perflab_data_address='127.0.0.1')}},
                                     'perflab_clients': {'hosts': {'c1': dict(host, perflab_data_address='127.0.0.2')}}}))
    res = run_playbook('playbooks/stages/validate_systems.yml', inventory=inventory, timeout=300,
                       extra_vars={'perflab_system_label': answer, 'perflab_profile': 'tuned'})
    assert (res.rc != 0) is refused, res.stdout[-3000:]
    if refused:
        assert 'perflab_system_label must be a string without control characters' in ' '.join(res.stdout.split())
