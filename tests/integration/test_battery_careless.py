# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The battery, what a careless user breaks (issue 20), against a lab of our own (c20, 2 hosts).

Bad input, refused on localhost before any host is touched: names that cannot name files (run ids of
300 characters, hidden ones), study hosts that name no host, suite options of the wrong type or unit,
suite files that expand without bound or are not YAML, pair ports out of range or on one port, data
addresses that are host names. Bad input refused at the preflight, on the hosts (the run lock is taken,
nothing else changes): a data address on the management interface, a loopback or foreign one, the
wrong data interface. Roles: firewall peers wider than the peers, a sysctl name the kernel lacks.

Faults: two runs started at once on the same hosts (one refused cleanly, one correct), a stale lock,
a marked netserver without a pidfile (revert stops it), a workbook that cannot be written, a resume
with a relative results directory, a malformed record in the results folder, a test that fails to
start (a failed record all the same).
"""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import yaml

import battery
from battery import check_message, collect, key_words
from conftest import BIN, ENV, ROOT, run_playbook
from test_battery_faults import (WITNESS_PLUGINS, detach, read_jsonl_strict, results_of, short, start_play, undetach,
                                 wait_until, watcher_log, write_suite)
from test_battery_inputs import _write_yaml, failure_messages, snapshot, snapshot_diff

pytestmark = pytest.mark.lab
NAME, MGMT, DATA = 'c20', '10.220.0.0/24', '10.220.1.0/24'
HOSTS = ('lab1', 'lab2')
TOOL_PROCESSES = ('iperf3', 'netserver', 'netperf', 'nuttcp', 'ethr', 'iperf')
LOCK = '/run/perflab/run.lock'
NAME_RULE = '1 to 64 letters, digits, _ . -, starting with a letter or a digit'


@pytest.fixture(scope='module')
def lab(lab_factory, tmp_path_factory):
    lab = lab_factory(NAME, hosts=2, mgmt=MGMT, data=DATA, firewall='default-deny')
    tmp = tmp_path_factory.mktemp('tools')
    res = subprocess.run([str(BIN / 'ansible'), 'perflab_lab', '-i', str(lab.inventory), '-m', 'ansible.builtin.include_role',
                          '-a', 'name=perflab.network.tools', '-e', json.dumps({'tools_list': ['iperf3', 'netperf']})],
                         cwd=ROOT, env=dict(ENV, PERFLAB_RESULTS_DIR=str(tmp)), capture_output=True, text=True,
                         timeout=900, check=False)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-2000:]
    return lab


def tool_processes(lab):
    found = {}
    for host in HOSTS:
        res = lab.ssh(host, ['ps', '-eo', 'pid=,comm='], timeout=60, check=True)
        procs = [line.split()[1] for line in res.stdout.splitlines() if len(line.split()) == 2
                 and line.split()[1] in TOOL_PROCESSES]
        if procs:
            found[host] = procs
    return found


def locks_left(lab):
    return [host for host in HOSTS if lab.ssh(host, ['test', '-e', LOCK], timeout=60).returncode == 0]


def without_run_dir(snap):
    """A snapshot without /run/perflab (the run lock comes and goes there; its names are compared apart)."""
    out = {}
    for host, text in snap.items():
        head, sep, rest = text.partition('## ls /run/perflab\n')
        out[host] = head + (rest[rest.index('## '):] if sep else '')
    return out


def run_dir_names(lab):
    return dict((host, sorted(lab.ssh(host, ['sh', '-c', 'ls /run/perflab 2>/dev/null'], timeout=60).stdout.split()))
                for host in HOSTS)


def tiny_suite(directory, name='careless', tests=None):
    return write_suite(directory, name, tests or [{'tool': 'iperf3', 'test': 'tcp_stream'}], duration=2)


# ---------------------------------------------------------------------------
# bad input refused on localhost: (playbook, name, extra vars, field, allowed)
LONG_ID = 'r' * 300
CASES = [
    ('benchmark.yml', 'perflab_run_id of 300 characters', {'perflab_run_id': LONG_ID}, 'perflab_run_id', [NAME_RULE]),
    ('benchmark.yml', 'perflab_run_id hidden (.r1)', {'perflab_run_id': '.r1'}, 'perflab_run_id', [NAME_RULE, "'.r1'"]),
    ('benchmark.yml', 'perflab_run_id starting with -', {'perflab_run_id': '-rf'}, 'perflab_run_id', [NAME_RULE]),
    ('benchmark.yml', 'perflab_run_id with a slash', {'perflab_run_id': '../up'}, 'perflab_run_id', [NAME_RULE]),
    ('stock_vs_tuned.yml', 'perflab_run_id of 65 characters', {'perflab_run_id': 'a' * 65}, 'perflab_run_id', [NAME_RULE]),
    ('benchmark.yml', 'perflab_suite name of 65 characters', {'perflab_suite': 's' * 65}, 'suite', [NAME_RULE]),
    ('benchmark.yml', 'perflab_study_hosts naming no host', {'perflab_study_hosts': 'nohost'}, 'perflab_study_hosts',
     ['nohost names no host of the inventory']),
    ('revert.yml', 'revert perflab_study_hosts naming no host', {'perflab_study_hosts': 'lab9'}, 'perflab_study_hosts',
     ['lab9 names no host of the inventory']),
    ('benchmark.yml', 'suite bitrate "1G"', {'perflab_suite': '@bitrate-1g'}, 'bitrate',
     ['a number from 0 to 1000000', 'Mbit/s', "got '1G'"]),
    ('benchmark.yml', 'suite bitrate "10%"', {'perflab_suite': '@bitrate-pct'}, 'bitrate', ['a number', "got '10%'"]),
    ('benchmark.yml', 'suite omit 700 (range)', {'perflab_suite': '@omit'}, 'omit', ['between 0 and 600', '700']),
    ('benchmark.yml', 'suite connect_timeout "soon"', {'perflab_suite': '@timeout'}, 'connect_timeout',
     ['a whole number from 1 to 600000']),
    ('benchmark.yml', 'suite window "1Q" (unit)', {'perflab_suite': '@window'}, 'window',
     ['K, M or G suffix', "got '1Q'"]),
    ('benchmark.yml', 'suite file of nested aliases', {'perflab_suite': '@bomb'}, 'suite file',
     ['expands to more than 20000 values', 'refused']),
    ('benchmark.yml', 'suite file too big', {'perflab_suite': '@big'}, 'suite file', ['a suite file may have at most 262144']),
    ('benchmark.yml', 'suite file not YAML', {'perflab_suite': '@broken'}, 'cannot read the suite file', ['broken.yml']),
    ('benchmark.yml', 'suite named .hidden', {'perflab_suite': '@hidden'}, 'name', [NAME_RULE, "'.hidden'"]),
    ('benchmark.yml', 'pair port 70000', {'benchmark_pairs': [{'client': 'lab2', 'server': 'lab1', 'ports': {'iperf3': 70000}}]},
     'ports.iperf3', ['a port number from 1024 to 65000', '70000']),
    ('benchmark.yml', 'pair port of an unknown tool', {'benchmark_pairs': [{'client': 'lab2', 'server': 'lab1', 'ports': {'iperf9': 6000}}]},
     'ports', ["unknown tool 'iperf9'", 'iperf3, netperf']),
    ('benchmark.yml', 'two tools planned on one port', {'perflab_suite': '@two-tools',
                                                        'benchmark_pairs': [{'client': 'lab2', 'server': 'lab1', 'ports': {'iperf3': 12866}}]},
     'on lab1', ['iperf3 port 12866', 'netperf port 12865', 'both need tcp port 12866']),
    ('benchmark.yml', 'data address a host name', {'perflab_data_address': 'lab1.example'}, 'perflab_data_address',
     ['must be an IP address', "'lab1.example'"]),
]


def _bomb(path):
    lines = ['a0: &a0 [x, x, x, x, x, x, x, x, x, x]']
    lines += ['a%d: &a%d [%s]' % (i, i, ', '.join(['*a%d' % (i - 1)] * 10)) for i in range(1, 9)]
    path.write_text('\n'.join(lines) + '\nname: bomb\ntests: *a8\n')
    return path


def test_bad_inputs_refused_on_localhost(lab, tmp_path):
    one = {'tool': 'iperf3', 'test': 'udp_stream'}
    suites = {
        '@bitrate-1g': dict(one, options={'bitrate': '1G'}), '@bitrate-pct': dict(one, options={'bitrate': '10%'}),
        '@omit': {'tool': 'iperf3', 'test': 'tcp_stream', 'options': {'omit': 700}},
        '@timeout': {'tool': 'iperf3', 'test': 'tcp_stream', 'options': {'connect_timeout': 'soon'}},
        '@window': {'tool': 'iperf3', 'test': 'tcp_stream', 'options': {'window': '1Q'}},
    }
    paths = {k: str(tiny_suite(tmp_path, k[1:], [v])) for k, v in suites.items()}
    two = [{'tool': 'iperf3', 'test': 'tcp_stream'}, {'tool': 'netperf', 'test': 'tcp_stream'}]
    paths['@two-tools'] = str(tiny_suite(tmp_path, 'two-tools', two))
    paths['@bomb'] = str(_bomb(tmp_path / 'bomb.yml'))
    (tmp_path / 'big.yml').write_text('# padding\n' * 27000)
    paths['@big'] = str(tmp_path / 'big.yml')
    (tmp_path / 'broken.yml').write_text('name: broken\ntests: [\n  - {tool: iperf3\n' + 'x: y\n' * 40)
    paths['@broken'] = str(tmp_path / 'broken.yml')
    paths['@hidden'] = str(_write_yaml(tmp_path / 'hidden.yml', {'name': '.hidden', 'tests': [{'tool': 'iperf3', 'test': 'tcp_stream'}]}))

    def run(case):
        playbook, dummy, extra, dummy2, dummy3 = case
        extra = dict(extra, perflab_results_dir=str(tmp_path / 'results'))
        if 'perflab_suite' in extra:
            extra['perflab_suite'] = paths.get(extra['perflab_suite'], extra['perflab_suite'])
        started = time.monotonic()
        res = run_playbook('playbooks/' + playbook, lab.inventory, extra, timeout=600)
        return res, time.monotonic() - started

    before = snapshot(lab, HOSTS)
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(run, CASES))
    after = snapshot(lab, HOSTS)
    failures = []
    for (playbook, name, dummy, field, allowed), (res, seconds) in zip(CASES, results):
        with collect(failures, name), battery.case('bad input', '%s %s' % (playbook, name)) as case:
            failed = failure_messages(res)
            assert res.rc != 0 and failed, 'accepted: %s' % res.stdout[-2000:]
            message = ' '.join(m if isinstance(m, str) else json.dumps(m) for m in failed)
            case.detail = key_words(message)
            check_message(message, field, allowed)
            assert len(message) < 2000, 'a message of %d characters' % len(message)
            if 'run_id' in name:   # its own rule only, not the other variables' rules
                assert 'perflab_tuned_mtu' not in message and 'control characters' not in message, message
            hosts_ran = {h for p in res.plays for t in p.get('tasks', []) for h in t['hosts']}
            assert hosts_ran <= {'localhost'}, 'tasks ran on %s before the refusal' % hosts_ran
            assert before == after, 'the hosts changed: %s' % snapshot_diff(before, after)
            assert len(res.stdout) + len(res.stderr) < 200000, 'output of %d bytes' % (len(res.stdout) + len(res.stderr))
    assert not failures, '\n'.join(failures)


# ---------------------------------------------------------------------------
# bad input refused at the preflight: the data path is not the data link
def _inventory(lab, tmp_path, name, host, **hostvars):
    inv = yaml.safe_load(lab.inventory.read_text())
    inv['all']['children']['perflab_lab']['hosts'][host].update(hostvars)
    return _write_yaml(tmp_path / ('%s.yml' % name), inv)


def test_wrong_data_paths_refused_at_the_preflight(lab, tmp_path):
    hv = lab.hostvars()
    mgmt1, data1 = hv['lab1']['ansible_host'], hv['lab1']['perflab_data_address']
    cases = [
        ('server data address on the management link', 'lab1', {'perflab_data_address': mgmt1},
         ['perflab_data_address %s is on mgmt0, not on perflab_data_interface data0' % mgmt1,
          'the server data address %s routes over mgmt0, not over perflab_data_interface data0' % mgmt1]),
        ('server data address a loopback one', 'lab1', {'perflab_data_address': '127.0.0.1'},
         ['perflab_data_address 127.0.0.1 is a loopback address']),
        ('server data address of no host', 'lab1', {'perflab_data_address': '10.220.1.99'},
         ['perflab_data_address 10.220.1.99 is not an address of this host']),
        ('client data interface the management one', 'lab2', {'perflab_data_interface': 'mgmt0'},
         ['is on data0, not on perflab_data_interface mgmt0',
          'the server data address %s routes over data0, not over perflab_data_interface mgmt0' % data1]),
    ]
    suite = tiny_suite(tmp_path)
    names_before = run_dir_names(lab)
    before = without_run_dir(snapshot(lab, HOSTS))
    failures = []
    for index, (name, host, hostvars, expected) in enumerate(cases):
        with collect(failures, name), battery.case('bad input', 'preflight: ' + name) as case:
            inventory = _inventory(lab, tmp_path, 'wrong%d' % index, host, **hostvars)
            res = run_playbook('playbooks/benchmark.yml', inventory, {
                'perflab_suite': str(suite), 'perflab_install_tools': False, 'perflab_run_id': 'c20-wrong%d' % index,
                'perflab_results_dir': str(tmp_path / 'results')}, timeout=600)
            message = ' '.join(str(m) for m in failure_messages(res))
            case.detail = key_words(message)
            assert res.rc != 0, res.stdout[-2000:]
            for text in expected:
                assert text in ' '.join(message.split()), message
            assert 'check perflab_data_address and perflab_data_interface in the inventory' in ' '.join(message.split())
            assert not (tmp_path / 'results' / ('c20-wrong%d.jsonl' % index)).exists() or not results_of(
                read_jsonl_strict(tmp_path / 'results' / ('c20-wrong%d.jsonl' % index))), 'a test ran'
            after = without_run_dir(snapshot(lab, HOSTS))
            assert before == after, snapshot_diff(before, after)
            assert run_dir_names(lab) == names_before and not locks_left(lab), 'the lock was left'
            assert not tool_processes(lab)
    assert not failures, '\n'.join(failures)


# ---------------------------------------------------------------------------
# bad input to the roles: any-address firewall peers, a sysctl the kernel lacks
ROLE_CASES = [
    ('firewall peer 0.0.0.0/0', 'firewall', {'firewall_peer_addresses': ['0.0.0.0/0']}, '0.0.0.0/0',
     ['firewall_allow_wide_peers=true', 'wider than /16']),
    ('firewall peer ::/0', 'firewall', {'firewall_peer_addresses': ['10.220.1.12', '::/0']}, '::/0',
     ['firewall_allow_wide_peers=true', '/48 for IPv6']),
    ('firewall peer 10.0.0.0/8', 'firewall', {'firewall_peer_addresses': ['10.0.0.0/8']}, '10.0.0.0/8',
     ['firewall_allow_wide_peers=true']),
    ('tuning sysctl name mistyped', 'tuning', {'tuning_profile': 'none', 'tuning_sysctls': {'net.ipv4.tcp_rmme': '4096 1 2'}},
     'net.ipv4.tcp_rmme', ['no such sysctl on this kernel', 'a typo?']),
    ('tuning sysctl of another kernel', 'tuning', {'tuning_profile': 'none', 'tuning_sysctls': {'net.inet.tcp.sendspace': 65536}},
     'net.inet.tcp.sendspace', ['no such sysctl on this kernel']),
]


def test_bad_role_inputs(lab, tmp_path):
    tasks = battery.role_case_tasks([(i, c[1], dict(c[2], firewall_backend='nftables') if c[1] == 'firewall' else c[2])
                                     for i, c in enumerate(ROLE_CASES)])
    playbook = _write_yaml(tmp_path / 'roles.yml', [{'name': 'Careless role input', 'hosts': 'lab2', 'gather_facts': True,
                                                     'tasks': tasks}])
    # /run/perflab is compared by its names: its listing shows the mtime of /run itself, which every SSH login moves
    names_before = run_dir_names(lab)
    before = without_run_dir(snapshot(lab, ('lab2',)))
    res = run_playbook(str(playbook), lab.inventory)
    after = without_run_dir(snapshot(lab, ('lab2',)))
    assert run_dir_names(lab) == names_before
    assert res.plays, res.stdout[-3000:] + res.stderr[-2000:]

    def host_checks():
        assert before == after, 'the host changed (a snapshot file left?): %s' % snapshot_diff(before, after)

    battery.check_role_cases(res, ROLE_CASES, host_checks)


# ---------------------------------------------------------------------------
# faults
def test_two_runs_at_once_one_refused_one_correct(lab, tmp_path):
    with battery.case('fault', 'two runs at once on the same hosts') as case:
        suite = tiny_suite(tmp_path, tests=[{'tool': 'iperf3', 'test': 'tcp_stream'}, {'tool': 'netperf', 'test': 'tcp_stream'}])
        runs = [start_play(lab, tmp_path, 'c20-twin-%s' % letter, suite=suite) for letter in 'ab']
        for run in runs:
            run.wait(600)
        rcs = [run.proc.returncode for run in runs]
        refused = [run for run in runs if run.proc.returncode != 0]
        done = [run for run in runs if run.proc.returncode == 0]
        assert len(refused) == 1 and len(done) == 1, (rcs, [r.output()[-2500:] for r in runs])
        out = ' '.join(refused[0].output().split())
        assert 'is in use by run %s' % done[0].run_id in out and 'is refused before it changed anything' in out, out[-3000:]
        records = done[0].records()
        assert sorted(r['test_id'].split('/')[0] for r in records) == ['iperf3', 'netperf'], records
        assert all(r['status'] == 'ok' for r in records), [(r['test_id'], r['error']) for r in records]
        assert not results_of(read_jsonl_strict(refused[0].jsonl)), 'the refused run recorded tests'
        assert 'Stop the test servers' not in refused[0].output(), 'the refused run stopped servers'
        case.lost = sum(run.lost() for run in runs)
        assert case.lost == 0
        assert not tool_processes(lab) and not locks_left(lab)
        case.detail = 'rc %s; %s refused ("%s"), %s: %d/%d ok' % (
            rcs, refused[0].run_id, short(out[out.index('is in use by'):], 60), done[0].run_id,
            sum(r['status'] == 'ok' for r in records), len(records))


def test_a_stale_lock_is_taken_over(lab, tmp_path):
    with battery.case('fault', 'stale run lock (its controller is gone)') as case:
        dead = subprocess.Popen(['true'])
        dead.wait()
        stale = {'run_id': 'c20-gone', 'controller': socket.gethostname(), 'pid': dead.pid,
                 'token': '%s:%d:1' % (socket.gethostname(), dead.pid), 'started': '2026-01-01T00:00:00Z',
                 'expires_at': int(time.time()) + 86400}
        for host in HOSTS:
            res = subprocess.run(lab.ssh_argv(host) + ['--', 'mkdir -p /run/perflab && cat > %s' % LOCK],
                                 input=json.dumps(stale), text=True, capture_output=True, timeout=60, check=False)
            assert res.returncode == 0, res.stderr
        run = start_play(lab, tmp_path, 'c20-after-stale', suite=tiny_suite(tmp_path))
        run.wait(600)
        out = run.output()
        assert run.proc.returncode == 0, out[-3000:]
        assert [r['status'] for r in run.records()] == ['ok']
        assert "Take over the first host's lock when its run is gone" in out
        case.lost = run.lost()
        assert case.lost == 0 and not locks_left(lab)
        case.detail = 'lock of run c20-gone (pid %d, exited) taken over on lab1, lab2; run ok, lock released' % dead.pid


def test_revert_stops_a_marked_server_without_pidfile(lab, tmp_path):
    with battery.case('fault', 'netserver left without pidfile, revert') as case:
        server = {'tool': 'netperf', 'port': 12900, 'bind': lab.hostvars()['lab1']['perflab_data_address']}
        start = _write_yaml(tmp_path / 'start.yml', [{
            'name': 'A netserver as the role starts it', 'hosts': 'lab1', 'gather_facts': False,
            'tasks': [{'name': 'Start', 'perflab.network.bench_server': server}]}])
        res = run_playbook(str(start), lab.inventory)
        assert res.rc == 0, res.stdout[-2000:]
        lab.ssh('lab1', ['rm', '-f', '/run/perflab/netperf-12900.pid'], check=True)
        assert 'netserver' in tool_processes(lab).get('lab1', [])
        revert = run_playbook('playbooks/revert.yml', lab.inventory, timeout=600)
        assert revert.rc == 0, revert.stdout[-3000:]
        stopped = [s for s in revert.task_results('Stop the test servers an interrupted run left behind')['lab1']['servers']
                   if s.get('mark')]
        assert [(s['mark'], s['state']) for s in stopped] == [('netperf-12900', 'stopped')], stopped
        assert not tool_processes(lab)
        case.detail = 'no pidfile; revert stopped pid %d by its PERFLAB_SERVER mark (netperf-12900)' % stopped[0]['pid']


def test_a_workbook_that_cannot_be_written_fails_the_run(lab, tmp_path):
    with battery.case('fault', 'workbook cannot be written') as case:
        results = tmp_path / 'results'
        (results / 'c20-nowb.xlsx').mkdir(parents=True)      # the workbook's place is taken by a directory
        run = start_play(lab, tmp_path, 'c20-nowb', suite=tiny_suite(tmp_path), results=results)
        run.wait(600)
        out = ' '.join(run.output().split())
        assert run.proc.returncode == 1, out[-3000:]
        assert 'the workbook of %s was not written (see above); the results are safe in that file; the run is marked failed' \
            % run.jsonl in out, out[-3000:]
        assert 'Traceback' not in run.output()
        assert [r['status'] for r in run.records()] == ['ok']
        case.lost = run.lost()
        assert case.lost == 0
        case.detail = 'rc 1, one message; the JSONL holds the record'


def test_resume_with_a_relative_results_dir(lab, tmp_path):
    with battery.case('fault', 'resume, relative results dir') as case:
        suite = tiny_suite(tmp_path, tests=[{'tool': 'iperf3', 'test': 'tcp_stream'}, {'tool': 'netperf', 'test': 'tcp_stream'}])
        here = tmp_path / 'user'
        here.mkdir()
        outputs = []
        for attempt in range(2):
            ev = {'perflab_run_id': 'c20-rel', 'perflab_results_dir': 'rel-results', 'perflab_install_tools': False,
                  'perflab_suite': str(suite)}
            env = dict(ENV, ANSIBLE_CALLBACKS_ENABLED='perflab.network.results', ANSIBLE_CALLBACK_PLUGINS=str(WITNESS_PLUGINS))
            env.pop('PERFLAB_RESULTS_DIR', None)
            res = subprocess.run([str(BIN / 'ansible-playbook'), str(ROOT / 'playbooks' / 'benchmark.yml'), '-i',
                                  str(lab.inventory), '-e', json.dumps(ev)], cwd=here, env=env, capture_output=True,
                                 text=True, timeout=600, check=False)
            assert res.returncode == 0, res.stdout[-3000:]
            outputs.append(' '.join(res.stdout.split()))
        jsonl = here / 'rel-results' / 'c20-rel.jsonl'
        records = results_of(read_jsonl_strict(jsonl))
        assert 'results: %s' % jsonl in outputs[0], outputs[0][-3000:]
        assert '2 already recorded' in outputs[1] and '0 runs to do' in outputs[1], outputs[1][-3000:]
        assert len(records) == 2 and len(set(r['test_id'] for r in records)) == 2, [r['test_id'] for r in records]
        assert not (ROOT / 'playbooks' / 'rel-results').exists() and not (ROOT / 'rel-results' / 'c20-rel.jsonl').exists()
        case.detail = 'results in <cwd>/rel-results both times; resume: 2 already recorded, 0 runs, no duplicate'


def test_one_bad_record_does_not_break_the_report(lab, tmp_path):
    with battery.case('fault', 'malformed record in the results folder') as case:
        run = start_play(lab, tmp_path, 'c20-good', suite=tiny_suite(tmp_path))
        run.wait(600)
        assert run.proc.returncode == 0, run.output()[-3000:]
        good = run.records()[0]
        bad = dict(good, config={'label': 'x'}, test_id='iperf3/tcp_stream/parallel=9')
        ctrl = dict(good, status='failed', error='iperf3: error - \x1b[31mboom\x00\x07', test_id='iperf3/tcp_stream/parallel=8',
                    metrics={})
        other = run.results / 'c20-bad.jsonl'
        other.write_text(json.dumps(ctrl) + '\n' + json.dumps(bad) + '\n')
        res = run_playbook('playbooks/report.yml', None, {'perflab_results_dir': str(run.results)}, timeout=300)
        assert res.rc == 0, res.stdout[-3000:]
        report = res.task_results('Build the workbook and the exports')['localhost']
        skipped = report['skipped_lines']
        assert [(Path(s['file']).name, s['line'], s['error']) for s in skipped] == [
            ('c20-bad.jsonl', 2, 'field config must be a string, got dict, line skipped')], skipped
        assert os.path.getsize(report['workbook']) > 0
        case.detail = 'report.yml rc 0: c20-bad.jsonl:2 skipped (config a dict); control characters cleaned'


def test_a_test_that_fails_to_start_leaves_a_failed_record(lab, tmp_path):
    with battery.case('fault', 'test fails to start (tool gone mid-run)') as case:
        # iperf3 is found by the plan, then removed from lab2 while netperf runs: its module cannot start it
        suite = tiny_suite(tmp_path, tests=[{'tool': 'netperf', 'test': 'tcp_stream'}, {'tool': 'iperf3', 'test': 'tcp_stream'}])
        detach(lab, 'lab2', 'c20-rm-iperf3', '''
for i in $(seq 1 6000); do pgrep -x netperf >/dev/null && break; sleep 0.1; done
mv /usr/bin/iperf3 /usr/bin/iperf3.c20away && echo "iperf3 moved away during netperf"''')
        try:
            run = start_play(lab, tmp_path, 'c20-nostart', suite=suite)
            run.wait(600)
        finally:
            undetach(lab, 'lab2', 'c20-rm-iperf3')
            lab.ssh('lab2', ['sh', '-c', '[ -e /usr/bin/iperf3.c20away ] && mv /usr/bin/iperf3.c20away /usr/bin/iperf3; true'])
        out = ' '.join(run.output().split())
        assert 'moved away' in watcher_log(lab, 'lab2', 'c20-rm-iperf3')
        assert run.proc.returncode == 0, out[-3000:]
        records = dict((r['test_id'].split('/')[0], r) for r in run.records())
        assert records['netperf']['status'] == 'ok'
        assert records['iperf3']['status'] == 'failed', records['iperf3']
        assert records['iperf3']['error'].startswith('the test did not start: '), records['iperf3']['error']
        assert '1 ok, 1 failed' in out, out[-2000:]
        case.lost = run.lost()
        assert case.lost == 0 and not tool_processes(lab)
        case.detail = 'failed record: %s' % short(records['iperf3']['error'], 70)


# ---------------------------------------------------------------------------
# issue 29: the run lock before any change, malformed lock files, the firewall's own rules only
def input_chain(lab, host):
    """The lab firewall's input chain as nft prints it (handles left out)."""
    return lab.ssh(host, ['nft', 'list', 'chain', 'inet', 'filter', 'input'], timeout=60, check=True).stdout


def openings(lab, host):
    return [line.strip() for line in input_chain(lab, host).splitlines() if 'comment "perflab:' in line
            and 'jump host' not in line]


def put_lock(lab, host, script):
    res = lab.ssh(host, ['sh', '-c', 'rm -rf %s; mkdir -p /run/perflab; %s' % (LOCK, script)], timeout=60)
    assert res.returncode == 0, res.stderr


def test_a_second_run_started_later_changes_nothing_of_the_first(lab, tmp_path):
    """The issue's case: on firewalled hosts, a second run with another run id started while the first
    one's tests run is refused before any change, and leaves the first run's openings and servers in place."""
    with battery.case('fault', 'second run while the first runs (firewalled)') as case:
        suite = write_suite(tmp_path, 'long', [{'tool': 'iperf3', 'test': 'tcp_stream'},
                                               {'tool': 'netperf', 'test': 'tcp_stream'}], duration=4)
        first = start_play(lab, tmp_path, 'c20-first', suite=suite)
        wait_until(lambda: 'iperf3' in tool_processes(lab).get('lab1', []), 300, 'the first run to start its servers',
                   run=first)
        opened = dict((host, openings(lab, host)) for host in HOSTS)
        assert opened['lab1'], 'the first run opened nothing on lab1'
        # the first run's controller is held still while the second one runs (its test goes on on the hosts):
        # the second run meets the first one's openings and servers for sure, however slow the machine
        os.killpg(first.proc.pid, signal.SIGSTOP)
        try:
            second = start_play(lab, tmp_path, 'c20-second', suite=suite)
            second.wait(300)
            assert dict((host, openings(lab, host)) for host in HOSTS) == opened, 'the refused run changed the firewall'
            assert 'iperf3' in tool_processes(lab).get('lab1', []), 'the refused run stopped the first run\'s server'
        finally:
            os.killpg(first.proc.pid, signal.SIGCONT)
        first.wait(600)
        out = ' '.join(second.output().split())
        assert second.proc.returncode != 0 and 'is in use by run c20-first' in out, out[-3000:]
        assert 'is refused before it changed anything' in out, out[-3000:]
        for task in ('Open the plan', 'Install the tools', 'Close the firewall', 'Stop the test servers',
                     'Remove the openings'):
            assert 'TASK [%s' % task not in second.output(), 'the refused run ran "%s"' % task
        records = first.records()
        assert first.proc.returncode == 0, first.output()[-3000:]
        assert sorted(r['status'] for r in records) == ['ok', 'ok'], [(r['test_id'], r['error']) for r in records]
        assert not results_of(read_jsonl_strict(second.jsonl)) if second.jsonl.exists() else True
        case.lost = first.lost() + second.lost()
        assert case.lost == 0
        assert not tool_processes(lab) and not locks_left(lab)
        assert not any(openings(lab, host) for host in HOSTS), 'openings left after the first run'
        case.detail = 'c20-second refused at the lock stage, %d opening(s) of c20-first kept; c20-first 2/2 ok' % (
            len(opened['lab1']))


def test_the_lock_of_a_killed_run_is_taken_over(lab, tmp_path):
    with battery.case('fault', 'lock left by a killed run (SIGKILL)') as case:
        suite = write_suite(tmp_path, 'killed', [{'tool': 'iperf3', 'test': 'tcp_stream'}], duration=10)
        killed = start_play(lab, tmp_path, 'c20-killed', suite=suite)
        wait_until(lambda: 'iperf3' in tool_processes(lab).get('lab1', []), 300, 'the run to start its servers',
                   run=killed)
        killed.interrupt(signal.SIGKILL, timeout=60)
        assert sorted(locks_left(lab)) == list(HOSTS), 'the killed run left no lock to take over'
        left_open = openings(lab, 'lab1')
        run = start_play(lab, tmp_path, 'c20-after-kill', suite=tiny_suite(tmp_path))
        run.wait(600)
        out = ' '.join(run.output().split())
        assert run.proc.returncode == 0, out[-3000:]
        assert 'took over the run lock of run c20-killed' in out and 'is gone' in out, out[-3000:]
        assert [r['status'] for r in run.records()] == ['ok']
        case.lost = run.lost()
        assert case.lost == 0 and not locks_left(lab) and not tool_processes(lab)
        # the killed run's openings were recorded before they were made: the next run's close removed them
        assert not any(openings(lab, host) for host in HOSTS), input_chain(lab, 'lab1')
        case.detail = 'lock of c20-killed taken over ("its ansible-playbook ... is gone"); %d opening(s) it left closed' \
            % len(left_open)


MALFORMED = [
    ('lab1', 'empty', ': > %s' % LOCK, 'the lock file is malformed (empty)'),
    ('lab2', 'garbage', 'echo "<<garbage>>" > %s' % LOCK, 'the lock file is malformed (not a lock: "<<garbage>>")'),
]


def test_malformed_locks_are_taken_over_and_a_users_perflab_rule_survives(lab, tmp_path):
    """One run meets an empty lock on lab1 and a garbage one on lab2, and a user's own nftables rule
    whose comment starts with "perflab:" on lab1."""
    for host, dummy, script, dummy in MALFORMED:
        put_lock(lab, host, script)
    lab.ssh('lab1', ['nft', 'add', 'rule', 'inet', 'filter', 'input', 'tcp', 'dport', '2222', 'accept', 'comment',
                     '"perflab: ssh from the jump host"'], timeout=60, check=True)
    user_rule = 'tcp dport 2222 accept comment "perflab: ssh from the jump host"'
    try:
        run = start_play(lab, tmp_path, 'c20-malformed', suite=tiny_suite(tmp_path))
        run.wait(600)
        out = ' '.join(run.output().split())
        failures = []
        for host, name, dummy, said in MALFORMED:
            with collect(failures, name), battery.case('bad input', 'run lock file %s' % name) as case:
                assert run.proc.returncode == 0, out[-3000:]
                assert '%s: took over the run lock of a malformed lock file %s' % (host, LOCK) in out, out[-3000:]
                assert said in out, out[-3000:]
                assert [r['status'] for r in run.records()] == ['ok'] and not locks_left(lab)
                case.detail = 'taken over: "%s"' % short(said, 70)
        with collect(failures, 'user rule'), battery.case('security', 'user nftables rule commented "perflab: ..."') as case:
            assert user_rule in input_chain(lab, 'lab1'), input_chain(lab, 'lab1')
            assert not openings(lab, 'lab1') and not openings(lab, 'lab2')
            case.detail = 'kept after the run closed its own openings'
        assert not failures, '\n'.join(failures)
    finally:
        lab.ssh('lab1', ['sh', '-c', 'h=$(nft -a list chain inet filter input | sed -n "s/.*jump host\\" # handle //p"); '
                         '[ -z "$h" ] || nft delete rule inet filter input handle $h'], timeout=60)


def test_revert_clears_a_lock_that_is_a_directory_or_has_no_owner(lab, tmp_path):
    put_lock(lab, 'lab1', 'mkdir %s' % LOCK)
    put_lock(lab, 'lab2', 'echo \'{"run_id": "x"}\' > %s' % LOCK)
    res = run_playbook('playbooks/revert.yml', lab.inventory, timeout=600)
    failures = []
    for host, name, found in (('lab1', 'a directory', 'a directory, not a file'),
                              ('lab2', 'JSON without an owner', 'a JSON object without controller, pid, token')):
        with collect(failures, name), battery.case('bad input', 'run lock %s, revert' % name) as case:
            assert res.rc == 0, res.stdout[-3000:]
            removed = res.task_results('Remove the lock of a run that is gone')[host]
            assert removed['changed'] and removed['holder']['malformed'] == found, removed
            assert host not in locks_left(lab)
            case.detail = 'revert.yml removed it (%s)' % found
    assert not failures, '\n'.join(failures)


def test_a_lock_that_cannot_be_written_refuses_the_run_saying_why(lab, tmp_path):
    with battery.case('bad input', 'run lock directory read-only') as case:
        # lab2's /run/perflab a read-only file system: lab1 (locked first) is given back, nothing changes
        res = lab.ssh('lab2', ['sh', '-c', 'rm -rf /run/perflab && mkdir -p /run/perflab && '
                                           'mount -t tmpfs -o ro,mode=755 tmpfs /run/perflab'], timeout=60)
        assert res.returncode == 0, res.stderr
        try:
            before = dict((host, input_chain(lab, host)) for host in HOSTS)
            run = start_play(lab, tmp_path, 'c20-rofs', suite=tiny_suite(tmp_path))
            run.wait(600)
            out = ' '.join(run.output().split())
            assert run.proc.returncode != 0
            said = 'cannot write the run lock /run/perflab/run.lock: '
            assert said in out and 'Read-only file system' in out, out[-3000:]
            assert '/run/perflab is on a read-only file system' in out, out[-3000:]
            assert 'in use by' not in out
            assert 'The run c20-rofs is refused on lab1 too, having changed nothing' in out, out[-3000:]
            assert dict((host, input_chain(lab, host)) for host in HOSTS) == before
            assert not locks_left(lab) and not tool_processes(lab)
            assert not run.jsonl.exists() or not run.records()
            case.detail = key_words(out[out.index(said):], 100)
        finally:
            lab.ssh('lab2', ['sh', '-c', 'umount /run/perflab; true'], timeout=60)
