# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The reliability battery, faults: a real run between two lab hosts while something breaks.

Every case checks what the issue asks of a fault: a clear error (in the record, or at
play start), the tests that can still run do, every finished result is in the JSON
lines (counted against an independent witness callback,
tests/integration/files/callback_plugins/fault_witness.py), the report still builds,
no test server is left running, and stock comes back (revert or the next preflight).

To stay within a few minutes, runs are shared: run A breaks three tools' servers in
three different ways (one case each), run B hangs a server, takes the client's data
link down and kills the client's SSH session (three cases, then one resume run), and
the SIGINT, SIGTERM and resume runs are one chain on one run id, and the leftovers of killed
runs (a tuned stock_vs_tuned, a run with the firewall switched off, an immutable file in the way
of the revert) are one chain of short runs. The hosts run a default-deny firewall (as `make lab`).
"""
from __future__ import annotations

import itertools
import json
import os
import re
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

import battery
from conftest import BIN, ENV, ROOT

pytestmark = pytest.mark.lab
NAME, MGMT, DATA = 'itfault', '10.241.0.0/24', '10.241.1.0/24'
STATE = Path('/var/lib/perflab') / NAME / 'hosts'   # each host's overlay upper layer is seen from here
WITNESS_PLUGINS = ROOT / 'tests' / 'integration' / 'files' / 'callback_plugins'
TOOL_PROCESSES = ('iperf3', 'netserver', 'netperf', 'nuttcp', 'ethr')
PORTS = {'iperf3': 5201, 'netperf': 12865, 'nuttcp': 5000}   # suite.PORT_BASE: the first pair's ports
NFT_TABLE = 'perflab_itfault_block'
_COUNTER = itertools.count(1)


# -- helpers ---------------------------------------------------------------------------------------
def write_suite(directory, name, tests, duration=2):
    path = Path(directory) / ('%s.yml' % name)
    path.write_text(yaml.safe_dump({'name': name, 'description': 'fault battery: %s' % name,
                                    'defaults': {'duration': duration, 'repetitions': 1}, 'tests': tests}))
    return path


def record_key(rec):
    return (rec.get('run_id'), rec.get('test_id'), rec.get('repetition'), rec.get('started_at'))


def read_jsonl_strict(path):
    """Every line must be one complete JSON object (a torn line fails the test)."""
    records = []
    if not Path(path).exists():
        return records
    with open(path) as handle:
        for number, line in enumerate(handle, 1):
            if line.strip():
                try:
                    records.append(json.loads(line))
                except ValueError as exc:
                    raise AssertionError('%s:%d is not complete JSON (%s): %r' % (path, number, exc, line[:120]))
    return records


def results_of(records):
    return [r for r in records if r.get('schema') == 'perflab.result/2']


@dataclass
class Run:
    proc: subprocess.Popen
    log: Path
    witness: Path
    results: Path
    run_id: str
    started: float

    @property
    def jsonl(self):
        return self.results / ('%s.jsonl' % self.run_id)

    def wait(self, timeout):
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=30)
            raise AssertionError('ansible-playbook hung: killed after %d s; log ends with %s'
                                 % (timeout, self.output()[-1500:]))

    def interrupt(self, sig, timeout=90):
        os.killpg(self.proc.pid, sig)
        return self.wait(timeout)

    def output(self):
        return self.log.read_text(errors='replace') if self.log.exists() else ''

    def events(self):
        if not self.witness.exists():
            return []
        return [json.loads(line) for line in self.witness.read_text().splitlines() if line.strip()]

    def reported(self):
        """The test results the run reported (witness), by key."""
        return dict((record_key(e), e) for e in self.events() if e.get('test_id'))

    def records(self):
        return results_of(read_jsonl_strict(self.jsonl))

    def lost(self, *extra_files):
        stored = set(record_key(r) for r in self.records())
        for path in extra_files:
            stored |= set(record_key(r) for r in results_of(read_jsonl_strict(path)))
        return len(set(self.reported()) - stored)


def start_play(lab, tmp, run_id, suite=None, extra=None, playbook='playbooks/benchmark.yml', results=None):
    results = Path(results or tmp / 'results')
    ev = {'perflab_run_id': run_id, 'perflab_results_dir': str(results), 'perflab_install_tools': False}
    if suite:
        ev['perflab_suite'] = str(suite)
    ev.update(extra or {})
    number = next(_COUNTER)
    log, witness, tmpdir = tmp / ('play-%d.log' % number), tmp / ('witness-%d.jsonl' % number), tmp / 'tmp'
    tmpdir.mkdir(exist_ok=True)
    env = dict(ENV, PERFLAB_RESULTS_DIR=str(results), TMPDIR=str(tmpdir), PERFLAB_WITNESS=str(witness),
               ANSIBLE_CALLBACK_PLUGINS=str(WITNESS_PLUGINS),
               ANSIBLE_CALLBACKS_ENABLED='perflab.network.results,fault_witness')
    argv = [str(BIN / 'ansible-playbook'), str(ROOT / playbook), '-i', str(lab.inventory), '-e', json.dumps(ev)]
    with open(log, 'wb') as out:
        proc = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True)
    return Run(proc, log, witness, results, run_id, time.monotonic())


def play(lab, tmp, run_id, timeout=420, **kwargs):
    run = start_play(lab, tmp, run_id, **kwargs)
    run.wait(timeout)
    return run


def wait_until(predicate, timeout, what, run=None, interval=0.2):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        if run is not None and run.proc.poll() is not None:
            raise AssertionError('the play ended (rc %s) before %s; log ends with %s'
                                 % (run.proc.returncode, what, run.output()[-2000:]))
        time.sleep(interval)
    raise AssertionError('timed out after %d s waiting for %s' % (timeout, what))


def host_sh(lab, host, script, timeout=60):
    return lab.ssh(host, ['sh', '-c', script], timeout=timeout)


def detach(lab, host, name, script):
    """Run ``script`` on ``host`` in the background (it outlives this SSH session); output in /tmp/<name>.log."""
    script = 'echo $$ >/tmp/%s.pid\n%s' % (name, script)
    res = lab.ssh(host, ['sh', '-c', 'setsid -f sh -c "$1" >"$2" 2>&1 </dev/null', 'fault', script,
                         '/tmp/%s.log' % name], timeout=60)
    assert res.returncode == 0, res.stderr


def undetach(lab, host, name):
    """Stop a detached script (if still running) by the pid it wrote."""
    return lab.ssh(host, ['sh', '-c', 'kill $(cat /tmp/%s.pid) 2>/dev/null; true' % name], timeout=60)


def watcher_log(lab, host, name):
    res = lab.ssh(host, ['cat', '/tmp/%s.log' % name], timeout=60)
    return res.stdout.strip() if res.returncode == 0 else '(no log: %s)' % res.stderr.strip()


def tool_processes(lab):
    """Benchmark tool processes on the lab hosts: {host: ['comm pid', ...]}."""
    found = {}
    for host in ('lab1', 'lab2'):
        res = lab.ssh(host, ['ps', '-eo', 'pid=,comm='], timeout=60, check=True)
        procs = ['%s %s' % (line.split()[1], line.split()[0]) for line in res.stdout.splitlines()
                 if len(line.split()) == 2 and line.split()[1] in TOOL_PROCESSES]
        if procs:
            found[host] = procs
    return found


def report_builds(paths, out):
    from ansible_collections.perflab.network.plugins.module_utils.report import build
    out.mkdir(parents=True, exist_ok=True)
    workbook = out / 'report.xlsx'
    dummy, result = build.build_report([str(p) for p in paths], workbook_path=str(workbook), export_stem=None)
    assert workbook.stat().st_size > 0 and result['summary'], result
    return result


def by_test(records):
    found = {}
    for rec in records:
        found.setdefault(rec['test_id'], []).append(rec)
    return found


def kind(test_id):
    """'iperf3/tcp_stream/parallel=1' -> 'iperf3/tcp_stream'."""
    return '/'.join(test_id.split('/')[:2])


def last(records, what):
    """The last record of the test ``what`` ('tool/test')."""
    matching = [r for r in records if kind(r['test_id']) == what]
    assert matching, 'no record of %s in %s' % (what, sorted(set(r['test_id'] for r in records)))
    return matching[-1]


def contains(text, part):
    """``part`` in ``text``, whatever the line wrapping of Ansible's messages."""
    return ''.join(str(part).split()) in ''.join(text.split())


def short(text, size=90):
    text = ' '.join(str(text or '').split())
    return text if len(text) <= size else text[:size - 3] + '...'


VOLATILE = ('net.netfilter.nf_conntrack_count',)   # a counter: the default-deny firewall tracks every connection


def sysctl_dump(lab, host):
    res = lab.ssh(host, ['sh', '-c', 'sysctl -a -r "^net\\." 2>/dev/null'], timeout=60)
    return dict(line.split(' = ', 1) for line in res.stdout.splitlines() if ' = ' in line and line.split(' = ')[0] not in VOLATILE)


# -- fixtures --------------------------------------------------------------------------------------
@pytest.fixture(scope='module')
def lab(lab_factory, tmp_path_factory):
    # the hosts drop inbound traffic as `make lab`'s do: every run passes only through the openings of its
    # firewall stage (a run that opened nothing, or closed what another opened, shows here)
    lab = lab_factory(NAME, hosts=2, mgmt=MGMT, data=DATA, firewall='default-deny')
    # the tools once for the whole module (every run below passes perflab_install_tools=false)
    tmp = tmp_path_factory.mktemp('tools')
    res = subprocess.run([str(BIN / 'ansible'), 'perflab_lab', '-i', str(lab.inventory),
                          '-m', 'ansible.builtin.include_role', '-a', 'name=perflab.network.tools'],
                         cwd=ROOT, env=dict(ENV, PERFLAB_RESULTS_DIR=str(tmp)), capture_output=True, text=True,
                         timeout=900, check=False)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-2000:]
    return lab


@pytest.fixture(scope='module')
def run_a(lab, tmp_path_factory):
    """iperf3's port dropped by nftables on lab1 (case 3), netserver killed -9 mid-test (case 1), nuttcp untouched."""
    tmp = tmp_path_factory.mktemp('run_a')
    suite = write_suite(tmp, 'faults-a', [
        {'tool': 'iperf3', 'test': 'tcp_stream', 'parallel': [1], 'options': {'connect_timeout': 3000}},
        {'tool': 'netperf', 'test': 'tcp_stream', 'duration': 5},
        {'tool': 'nuttcp', 'test': 'tcp_stream'},
    ])
    data = {'tmp': tmp}
    try:
        # dropped once iperf3's server listens: after the benchmark preflight, whose TCP connection to
        # every planned port would refuse the whole run before any server starts (a firewall that
        # changes mid-run is the fault here)
        detach(lab, 'lab1', 'drop-iperf3', '''
for i in $(seq 1 6000); do
  if [ -n "$(ss -Hltn '( sport = :%d )')" ]; then
    nft add table inet %s
    nft 'add chain inet %s input { type filter hook input priority -10 ; policy accept ; }'
    nft add rule inet %s input iifname data0 tcp dport %d drop
    echo "dropped %d"; exit 0
  fi
  sleep 0.1
done
echo "no iperf3 server seen"''' % (PORTS['iperf3'], NFT_TABLE, NFT_TABLE, NFT_TABLE, PORTS['iperf3'], PORTS['iperf3']))
        # netperf's data connection (control port + 1) is up only while a test runs
        detach(lab, 'lab1', 'kill-netserver', '''
for i in $(seq 1 6000); do
  if [ -n "$(ss -Htn state established '( sport = :%d )')" ]; then
    sleep 1.5; pids=$(pgrep -x netserver); kill -9 $pids; echo "killed netserver $pids"; exit 0
  fi
  sleep 0.1
done
echo "no netperf test seen"''' % (PORTS['netperf'] + 1))
        run = play(lab, tmp, 'itfault-a', suite=suite)
        data.update(run=run, kill_log=watcher_log(lab, 'lab1', 'kill-netserver'),
                    drop_log=watcher_log(lab, 'lab1', 'drop-iperf3'))
    finally:
        undetach(lab, 'lab1', 'kill-netserver')
        undetach(lab, 'lab1', 'drop-iperf3')
        lab.ssh('lab1', ['sh', '-c', 'nft delete table inet %s 2>/dev/null; true' % NFT_TABLE], timeout=60)
    data['rules_left'] = lab.ssh('lab1', ['nft', 'list', 'tables'], timeout=60).stdout
    data['left'] = tool_processes(lab)
    return data


@pytest.fixture(scope='module')
def run_b(lab, tmp_path_factory):
    """iperf3 server SIGSTOPped (case 2), client data0 down mid-test (case 4), client sshd killed (case 5)."""
    tmp = tmp_path_factory.mktemp('run_b')
    suite = write_suite(tmp, 'faults-b', [
        {'tool': 'iperf3', 'test': 'tcp_stream', 'parallel': [1]},
        {'tool': 'netperf', 'test': 'tcp_stream', 'duration': 5},
        {'tool': 'netperf', 'test': 'tcp_rr'},
        {'tool': 'nuttcp', 'test': 'tcp_stream', 'duration': 5},
    ])
    data = {'tmp': tmp, 'suite': suite}
    try:
        # stop the iperf3 server once it listens (the kernel still accepts, the server never answers)
        detach(lab, 'lab1', 'stop-iperf3', '''
for i in $(seq 1 6000); do
  if [ -n "$(ss -Hltn '( sport = :%d )')" ]; then pids=$(pgrep -x iperf3); kill -STOP $pids; echo "stopped iperf3 $pids"; exit 0; fi
  sleep 0.05
done
echo "no iperf3 server seen"''' % PORTS['iperf3'])
        detach(lab, 'lab2', 'link-and-sshd', '''
for i in $(seq 1 6000); do pgrep -x netperf >/dev/null && break; sleep 0.1; done
sleep 1; ip link set data0 down; echo "data0 down during netperf"; sleep 4; ip link set data0 up; echo "data0 up"
for i in $(seq 1 6000); do pgrep -x nuttcp >/dev/null && break; sleep 0.1; done
sleep 1
pids=$(ps -eo pid=,comm= | awk '$2 == "sshd" && $1 != 1 {print $1}')
kill -9 $pids; echo "killed sshd sessions $pids during nuttcp"''')
        run = play(lab, tmp, 'itfault-b', suite=suite)
        data['run'], data['records'] = run, run.records()
        data['lab1_log'] = watcher_log(lab, 'lab1', 'stop-iperf3')
        data['lab2_log'] = watcher_log(lab, 'lab2', 'link-and-sshd')
        data['data0'] = lab.ssh('lab2', ['ip', '-o', 'link', 'show', 'data0'], timeout=60).stdout
        data['left'] = tool_processes(lab)
    finally:
        undetach(lab, 'lab2', 'link-and-sshd')
        undetach(lab, 'lab1', 'stop-iperf3')
        host_sh(lab, 'lab2', 'ip link set data0 up')
        host_sh(lab, 'lab1', 'pkill -CONT -x iperf3; true')
    # what a user runs after a broken study: revert stops the servers the broken play left
    data['revert'] = play(lab, tmp, 'itfault-b-revert', playbook='playbooks/revert.yml', timeout=300)
    data['left_after_revert'] = tool_processes(lab)
    # the resume: same run id, nothing broken
    data['resume'] = play(lab, tmp, 'itfault-b', suite=suite)
    data['left_after_resume'] = tool_processes(lab)
    return data


@pytest.fixture(scope='module')
def interrupts(lab, tmp_path_factory):
    """One run id: SIGINT after the first record, resumed and SIGTERM'ed after one more, resumed to the end."""
    tmp = tmp_path_factory.mktemp('interrupts')
    suite = write_suite(tmp, 'faults-int', [
        {'tool': 'iperf3', 'test': 'tcp_stream', 'parallel': [1]},
        {'tool': 'netperf', 'test': ['tcp_rr', 'udp_rr']},
        {'tool': 'nuttcp', 'test': 'tcp_stream'},
    ])
    run_id = 'itfault-int'
    data = {'tmp': tmp, 'runs': []}
    seen = 0
    for sig in (signal.SIGINT, signal.SIGTERM):
        run = start_play(lab, tmp, run_id, suite=suite)
        try:
            wait_until(lambda: len(run.records()) > seen, 300, 'a new record in %s' % run.jsonl, run=run)
            time.sleep(0.5)  # into the next test
            rc = run.interrupt(sig)
        finally:
            if run.proc.poll() is None:
                os.killpg(run.proc.pid, signal.SIGKILL)
                run.proc.wait(timeout=30)
        seen = len(run.records())
        data['runs'].append({'signal': sig.name, 'run': run, 'rc': rc, 'records': run.records(),
                             'left': tool_processes(lab)})
    data['final'] = play(lab, tmp, run_id, suite=suite)
    data['left_final'] = tool_processes(lab)
    return data


# -- run A: a server killed, a port blocked --------------------------------------------------------
def test_server_killed_mid_test(request):
    with battery.case('fault', 'netserver killed -9 mid-test') as case:
        data = request.getfixturevalue('run_a')
        run = data['run']
        records = run.records()
        case.lost = run.lost()
        netperf = last(records, 'netperf/tcp_stream')
        case.detail = 'netperf: %s %s' % (netperf['status'], short(netperf['error'], 80))
        assert 'killed netserver' in data['kill_log'], data['kill_log']
        assert netperf['status'] == 'failed' and netperf['error'], netperf
        assert last(records, 'nuttcp/tcp_stream')['status'] == 'ok'
        assert case.lost == 0
        report_builds([run.jsonl], data['tmp'] / 'report-killed')
        assert not data['left'], data['left']


def test_blocked_port(request):
    with battery.case('fault', 'server port dropped (nft, lab1)') as case:
        data = request.getfixturevalue('run_a')
        run = data['run']
        records = run.records()
        case.lost = run.lost()
        iperf3 = last(records, 'iperf3/tcp_stream')
        case.detail = 'iperf3: %s %s' % (iperf3['status'], short(iperf3['error'], 80))
        assert data['drop_log'].startswith('dropped'), data['drop_log']
        assert iperf3['status'] == 'failed' and 'connect' in iperf3['error'].lower(), iperf3
        assert last(records, 'nuttcp/tcp_stream')['status'] == 'ok'
        assert case.lost == 0
        assert NFT_TABLE not in data['rules_left']
        assert not data['left'], data['left']


# -- run B: a hung server, the data link down, SSH gone --------------------------------------------
def test_hung_server_times_out(request):
    with battery.case('fault', 'iperf3 server hung (SIGSTOP)') as case:
        data = request.getfixturevalue('run_b')
        run, records = data['run'], data['records']
        case.lost = run.lost()
        iperf3 = last(records, 'iperf3/tcp_stream')
        case.detail = 'iperf3: %s %s' % (iperf3['status'], short(iperf3['error'], 80))
        assert 'stopped iperf3' in data['lab1_log'], data['lab1_log']
        assert iperf3['status'] == 'failed' and 'timeout' in iperf3['error'], iperf3
        assert last(records, 'netperf/tcp_rr')['status'] == 'ok'
        assert case.lost == 0
        report_builds([run.jsonl], data['tmp'] / 'report-hung')
        assert not data['left_after_resume'], data['left_after_resume']


def test_data_link_down_mid_test(request):
    with battery.case('fault', 'client data link down mid-test') as case:
        data = request.getfixturevalue('run_b')
        run, records = data['run'], data['records']
        case.lost = run.lost()
        stream = last(records, 'netperf/tcp_stream')
        if stream['status'] == 'ok':
            seen = 'netperf tcp_stream survived the 4 s outage: %.0f Mbit/s' % stream['metrics'][stream['primary']]['value']
        else:
            seen = 'netperf tcp_stream %s: %s' % (stream['status'], short(stream['error'], 70))
        case.detail = seen + '; tcp_rr after it ok'
        assert 'data0 up' in data['lab2_log'], data['lab2_log']
        assert stream['status'] == 'ok' or stream['error'], stream
        assert last(records, 'netperf/tcp_rr')['status'] == 'ok'
        assert 'state UP' in data['data0'] or ',UP' in data['data0'], data['data0']
        assert case.lost == 0


def test_client_sshd_killed_mid_run(request):
    with battery.case('fault', 'client sshd session killed') as case:
        data = request.getfixturevalue('run_b')
        run, resume = data['run'], data['resume']
        unreachable = [e for e in run.events() if e['event'] == 'unreachable']
        case.lost = run.lost() + resume.lost()
        resumed = resume.records()[len(data['records']):]
        case.detail = 'UNREACHABLE %s (%s); %d server(s) left, stopped by revert.yml; resume: %d/%d ok' % (
            ','.join(sorted(set(e['host'] for e in unreachable))), short(unreachable[0]['msg'] if unreachable else '', 50),
            sum(len(v) for v in data['left'].values()), sum(r['status'] == 'ok' for r in resumed), len(resumed))
        assert data['revert'].proc.returncode == 0, data['revert'].output()[-3000:]
        assert 'lab1' not in data['left_after_revert'], data['left_after_revert']
        assert 'killed sshd sessions' in data['lab2_log'], data['lab2_log']
        assert run.proc.returncode != 0 and unreachable and unreachable[0]['host'] == 'lab2', run.output()[-3000:]
        assert 'nuttcp/tcp_stream' not in [kind(r['test_id']) for r in data['records']]   # no half record: the test is simply not done
        assert resume.proc.returncode == 0, resume.output()[-4000:]
        assert last(resumed, 'nuttcp/tcp_stream')['status'] == 'ok'
        assert not set(r['test_id'] for r in resumed if r['status'] == 'ok') & \
            set(r['test_id'] for r in data['records'] if r['status'] == 'ok')
        assert case.lost == 0
        report_builds([run.jsonl], data['tmp'] / 'report-sshd')
        assert not data['left_after_resume'], data['left_after_resume']
        assert lab_ping(request.getfixturevalue('lab')) == 0


def lab_ping(lab):
    return max(lab.ssh(host, ['true'], timeout=60).returncode for host in ('lab1', 'lab2'))


# -- interrupts ------------------------------------------------------------------------------------
def check_interrupted(case, data, index):
    entry = data['runs'][index]
    run = entry['run']
    case.lost = run.lost()
    report_builds([run.jsonl], data['tmp'] / ('report-%d' % index))
    # the next run (same run id) stops what was left, and resumes with what was missing
    nxt = data['runs'][index + 1]['run'] if index + 1 < len(data['runs']) else data['final']
    done = set(r['test_id'] for r in entry['records'] if r['status'] == 'ok')
    redone = set(r['test_id'] for r in nxt.records()[len(entry['records']):] if r['status'] == 'ok')
    left = sum(len(v) for v in entry['left'].values())
    case.detail = '%s: rc %s, %d record(s) whole; %d tool process(es) left, next run stopped them, redid %s' % (
        entry['signal'], entry['rc'], len(entry['records']), left, ','.join(sorted(redone)) or 'nothing')
    assert entry['rc'] != 0
    assert entry['records'], run.output()[-2000:]
    assert not done & redone, (done, redone)
    assert 'Stop test servers an interrupted run left' in nxt.output()
    assert case.lost == 0


def test_sigint(request):
    with battery.case('fault', 'play interrupted (SIGINT)') as case:
        data = request.getfixturevalue('interrupts')
        check_interrupted(case, data, 0)


def test_sigterm(request):
    with battery.case('fault', 'play terminated (SIGTERM)') as case:
        data = request.getfixturevalue('interrupts')
        check_interrupted(case, data, 1)
        final = data['final']
        assert final.proc.returncode == 0, final.output()[-4000:]
        everything = final.records()
        ok = set(kind(r['test_id']) for r in everything if r['status'] == 'ok')
        assert ok == {'iperf3/tcp_stream', 'netperf/tcp_rr', 'netperf/udp_rr', 'nuttcp/tcp_stream'}, by_test(everything)
        assert not data['left_final'], data['left_final']


# -- tuning interrupted ----------------------------------------------------------------------------
def test_tuning_interrupted_then_reverted(lab, tmp_path):
    """lab2's tuning module is frozen right after its first sysctl write (tcp_rmem), the play gets SIGTERM."""
    with battery.case('fault', 'tuning interrupted (SIGTERM)') as case:
        hosts = ('lab1', 'lab2')
        before = dict((host, sysctl_dump(lab, host)) for host in hosts)
        suite = write_suite(tmp_path, 'faults-tune', [{'tool': 'nuttcp', 'test': 'tcp_stream'}])
        snapshots = [STATE / host / 'upper' / 'var' / 'lib' / 'perflab' / 'tuning' / 'stock.json' for host in hosts]
        marker = STATE / 'lab2' / 'upper' / 'tmp' / 'itfault-tuning-hit'
        assert not any(p.exists() for p in snapshots), 'a tuning snapshot is there already'
        host_sh(lab, 'lab2', 'rm -f /tmp/itfault-tuning-hit')
        # the snapshot file comes just before the sysctl task: from then on, watch tcp_rmem without a pause
        detach(lab, 'lab2', 'tuning-freeze', '''
read stock < /proc/sys/net/ipv4/tcp_rmem
while [ ! -e /var/lib/perflab/tuning/stock.json ]; do sleep 0.05; done
deadline=$(( $(date +%s) + 240 )) i=0
while :; do
  read now < /proc/sys/net/ipv4/tcp_rmem
  if [ "$now" != "$stock" ]; then kill -STOP $(pgrep '^python3'); touch /tmp/itfault-tuning-hit; echo "froze at tcp_rmem=$now"; exit 0; fi
  i=$((i + 1))
  if [ $((i % 20000)) = 0 ] && [ "$(date +%s)" -gt $deadline ]; then break; fi
done
echo "tcp_rmem stayed $stock"''')
        run = start_play(lab, tmp_path, 'itfault-tune', suite=suite, extra={'perflab_profile': 'tuned'})
        try:
            wait_until(lambda: any(p.exists() for p in snapshots), 300, 'the tuning snapshot', run=run, interval=0.02)
            try:   # the watcher freezes lab2 between two writes; the snapshot alone is already mid-tuning
                wait_until(marker.exists, 3, 'the first sysctl write on lab2', run=run, interval=0.02)
            except AssertionError:
                pass
            rc = run.interrupt(signal.SIGTERM)
        finally:
            if run.proc.poll() is None:
                os.killpg(run.proc.pid, signal.SIGKILL)
                run.proc.wait(timeout=30)
            undetach(lab, 'lab2', 'tuning-freeze')
            host_sh(lab, 'lab2', 'pkill -KILL -x python3; pkill -KILL -x python3.11; true')   # the frozen module: its controller is gone
        during = dict((host, sysctl_dump(lab, host)) for host in hosts)
        changed = dict((host, sorted(k for k in during[host] if during[host][k] != before[host].get(k))) for host in hosts)
        revert = play(lab, tmp_path, 'itfault-revert', playbook='playbooks/revert.yml', timeout=300)
        after = dict((host, sysctl_dump(lab, host)) for host in hosts)
        differ = dict((host, sorted(k for k in set(before[host]) | set(after[host])
                                    if before[host].get(k) != after[host].get(k))) for host in hosts)
        case.lost = run.lost()
        froze = watcher_log(lab, 'lab2', 'tuning-freeze')
        case.detail = 'SIGTERM (rc %s) %s, lab1 %d, lab2 %d key(s) changed (%s); revert rc %s, net.* differences after: %d' % (
            rc, 'with lab2 frozen' if 'froze' in froze else 'after the snapshot', len(changed['lab1']), len(changed['lab2']),
            ','.join(k.split('.')[-1] for k in changed['lab2']), revert.proc.returncode, sum(len(v) for v in differ.values()))
        assert revert.proc.returncode == 0, revert.output()[-4000:]
        assert not any(differ.values()), differ
        assert not any(p.exists() for p in snapshots), 'the snapshot outlived the revert'
        assert not any((STATE / h / 'upper' / 'etc' / 'sysctl.d' / '90-perflab-tuning.conf').exists() for h in hosts)
        assert not tool_processes(lab)
        assert case.lost == 0


def test_tuning_fails_between_two_settings(lab, tmp_path):
    """The kernel refuses the last sysctl after tcp_rmem and tcp_wmem were written: the role puts them back itself."""
    with battery.case('fault', 'tuning fails between two settings') as case:
        hosts = ('lab1', 'lab2')
        before = dict((host, sysctl_dump(lab, host)) for host in hosts)
        suite = write_suite(tmp_path, 'faults-tune-fail', [{'tool': 'nuttcp', 'test': 'tcp_stream'}])
        # a port range whose low end is above its high end: EINVAL from the kernel, after the profile's keys
        run = play(lab, tmp_path, 'itfault-tune-fail', suite=suite, timeout=300,
                   extra={'perflab_profile': 'tuned', 'tuning_sysctls': {'net.ipv4.ip_local_port_range': '2000 1000'}})
        after = dict((host, sysctl_dump(lab, host)) for host in hosts)
        differ = dict((host, sorted(k for k in set(before[host]) | set(after[host])
                                    if before[host].get(k) != after[host].get(k))) for host in hosts)
        output = run.output()
        case.lost = run.lost()
        case.detail = 'rc %s, "%s"; net.* differences after: %d, no test ran' % (
            run.proc.returncode, short(re.search(r'tuning: sysctls failed: [^"\n]*', output).group(0) if 'tuning: sysctls failed' in output else '?', 70),
            sum(len(v) for v in differ.values()))
        assert run.proc.returncode != 0
        assert 'tuning: sysctls failed: net.ipv4.ip_local_port_range' in output and 'put back to stock' in output, output[-3000:]
        assert not any(differ.values()), differ
        snapshots = [STATE / host / 'upper' / 'var' / 'lib' / 'perflab' / 'tuning' / 'stock.json' for host in hosts]
        assert not any(p.exists() for p in snapshots), 'the snapshot outlived the rollback'
        assert not run.records()
        assert not tool_processes(lab)
        assert case.lost == 0


# -- the results directory -------------------------------------------------------------------------
def test_results_dir_not_writable(lab, tmp_path):
    with battery.case('fault', 'results dir not writable') as case:
        mount = tmp_path / 'ro'
        mount.mkdir()
        (tmp_path / 'a-file').write_text('not a directory\n')
        for host in ('lab1', 'lab2'):
            host_sh(lab, host, 'touch /tmp/itfault-ro-marker')
        subprocess.run(['mount', '-t', 'tmpfs', '-o', 'ro,size=64k', 'tmpfs', str(mount)], check=True, timeout=30)
        seen = []
        try:
            for results in (mount / 'results', mount, tmp_path / 'a-file' / 'results'):
                run = play(lab, tmp_path, 'itfault-ro', results=results, timeout=180,
                           suite=write_suite(tmp_path, 'faults-ro', [{'tool': 'nuttcp', 'test': 'tcp_stream'}]))
                out = run.output()
                assert run.proc.returncode != 0, out[-3000:]
                assert contains(out, 'perflab.network.results: ') and contains(out, results) and contains(out, 'before any test'), \
                    out[-3000:]
                assert not [e for e in run.events() if e['event'] == 'task'], 'tasks ran: %s' % run.events()[:5]
                found = re.search(r'results directory \S+?(?::| is not writable:) ([^.]+)', ' '.join(out.split()))
                seen.append(found.group(1) if found else '?')
        finally:
            subprocess.run(['umount', str(mount)], check=False, timeout=30)
        find = 'find /etc /var/lib/perflab /run/perflab /opt /usr/local -newer /tmp/itfault-ro-marker 2>/dev/null'
        changed = dict((host, host_sh(lab, host, find).stdout.split()) for host in ('lab1', 'lab2'))
        case.detail = 'stopped at play start, no task ran: %s' % '; '.join(short(s, 30) for s in seen)
        assert not any(changed.values()), changed
        case.lost = 0


def test_results_dir_fills_up(lab, tmp_path):
    with battery.case('fault', 'results dir fills up (tmpfs)') as case:
        mount = tmp_path / 'full'
        mount.mkdir()
        subprocess.run(['mount', '-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', str(mount)], check=True, timeout=30)
        try:
            suite = write_suite(tmp_path, 'faults-full', [
                {'tool': 'iperf3', 'test': 'tcp_stream', 'parallel': [1]},
                {'tool': 'netperf', 'test': 'tcp_rr'},
                {'tool': 'nuttcp', 'test': 'tcp_stream'},
            ])
            run = start_play(lab, tmp_path, 'itfault-full', suite=suite, results=mount)
            try:
                wait_until(run.records, 300, 'the first record', run=run)
                with open(mount / 'filler', 'wb', buffering=0) as filler:   # fill what is left
                    try:
                        while True:
                            filler.write(b'\0' * 4096)
                    except OSError:
                        pass
                rc = run.wait(300)
            finally:
                if run.proc.poll() is None:
                    os.killpg(run.proc.pid, signal.SIGKILL)
                    run.proc.wait(timeout=30)
            out = run.output()
            stored = run.records()        # every line complete JSON
            fallback = tmp_path / 'tmp' / run.jsonl.name
            saved = results_of(read_jsonl_strict(fallback))
            case.lost = run.lost(fallback)
            case.detail = 'rc %s; %d record(s) in the JSONL, %d saved to $TMPDIR/%s, errors name it' % (
                rc, len(stored), len(saved), fallback.name)
            assert stored
            assert contains(out, 'cannot append to %s' % run.jsonl) and contains(out, 'No space left'), out[-3000:]
            assert saved and contains(out, 'record(s) saved to %s' % fallback), out[-3000:]
            # results not where they were asked to be: the run must not look like a success
            assert rc == 1 and contains(out, 'the run is marked failed'), (rc, out[-3000:])
            assert set(kind(r['test_id']) for r in stored + saved) == \
                {'iperf3/tcp_stream', 'netperf/tcp_rr', 'nuttcp/tcp_stream'}
            assert not tool_processes(lab)
            report_builds([run.jsonl, fallback], tmp_path / 'report')
            assert case.lost == 0
        finally:
            subprocess.run(['umount', str(mount)], check=False, timeout=30)


# -- leftovers of killed runs ----------------------------------------------------------------------
SYSCTL_FILE = '/etc/sysctl.d/90-perflab-tuning.conf'


def on_host(host, path):
    """A file of a lab host, seen from the controller (its overlay's upper layer)."""
    return STATE / host / 'upper' / path.lstrip('/')


def snapshot_of(host, role):
    path = on_host(host, '/var/lib/perflab/%s/stock.json' % role)
    return json.loads(path.read_text()) if path.exists() else None


def data_mtu(lab, host):
    return int(lab.ssh(host, ['cat', '/sys/class/net/data0/mtu'], timeout=60, check=True).stdout)


def filtered(lab, host):
    """Whether the host's default-deny firewall is loaded (its input chain drops by default)."""
    return 'policy drop' in lab.ssh(host, ['nft', 'list', 'ruleset'], timeout=60, check=True).stdout


def kill_when(run, predicate, what, timeout=300):
    """SIGKILL the whole play once predicate holds: no `always`, no cleanup, as a lost controller."""
    try:
        wait_until(predicate, timeout, what, run=run, interval=0.3)
    finally:
        os.killpg(run.proc.pid, signal.SIGKILL)
        run.proc.wait(timeout=30)


@pytest.fixture(scope='module')
def leftovers(lab, tmp_path_factory):
    """One chain of short runs: stock_vs_tuned (MTU 9000) SIGKILLed in its tuned half; a plain benchmark.yml
    (refused); lab1's sysctl.d file made immutable and a run restoring the leftovers first (lab1's revert half
    fails: refused); chattr -i and a run restoring first with the firewall switched off, SIGKILLed once both
    hosts are unfiltered; a plain run restoring first (the firewall back on), measured through it."""
    tmp = tmp_path_factory.mktemp('leftovers')
    suite = write_suite(tmp, 'faults-left', [{'tool': 'nuttcp', 'test': 'tcp_stream'}])
    hosts = ('lab1', 'lab2')
    data = {'tmp': tmp, 'stock': dict((h, sysctl_dump(lab, h)) for h in hosts),
            'stock_mtu': dict((h, data_mtu(lab, h)) for h in hosts), 'filtered_before': [filtered(lab, h) for h in hosts]}
    assert not any(snapshot_of(h, r) for h in hosts for r in ('tuning', 'mtu')), 'a snapshot is there already'
    started = time.monotonic()
    # 1. the study killed once both hosts are at MTU 9000 (tuned, after the stock half's record)
    svt = start_play(lab, tmp, 'itfault-left-svt', suite=suite, playbook='playbooks/stock_vs_tuned.yml',
                     extra={'perflab_tuned_mtu': 9000})
    kill_when(svt, lambda: svt.records() and all(snapshot_of(h, 'mtu') for h in hosts)
              and all(data_mtu(lab, h) == 9000 for h in hosts), 'the tuned half at MTU 9000')
    for host in hosts:
        host_sh(lab, host, 'pkill -KILL -x python3; true')   # a module the killed controller left
    data.update(svt=svt, tuned=dict((h, sysctl_dump(lab, h)) for h in hosts),
                tuned_mtu=dict((h, data_mtu(lab, h)) for h in hosts))
    # 2. the next plain run
    data['plain'] = play(lab, tmp, 'itfault-left-plain', suite=suite, timeout=300)
    data['after_plain'] = dict((h, (data_mtu(lab, h), sysctl_dump(lab, h))) for h in hosts)
    # 3. lab1's sysctl.d file immutable, a run that restores the leftovers first
    data['persisted'] = on_host('lab1', SYSCTL_FILE).exists()
    host_sh(lab, 'lab1', 'chattr +i %s' % SYSCTL_FILE, timeout=60)
    try:
        data['stuck'] = play(lab, tmp, 'itfault-left-stuck', suite=suite, timeout=300,
                             extra={'perflab_restore_leftovers': True})
        data['after_stuck'] = dict((h, (data_mtu(lab, h), sysctl_dump(lab, h), snapshot_of(h, 'tuning'), snapshot_of(h, 'mtu')))
                                   for h in hosts)
        data['file_kept'] = on_host('lab1', SYSCTL_FILE).exists()
    finally:
        host_sh(lab, 'lab1', 'chattr -i %s 2>/dev/null; true' % SYSCTL_FILE, timeout=60)
    # 4. restore first again (the file now goes), the firewall off, killed once both hosts are unfiltered
    marker = [on_host(h, '/var/lib/perflab/firewall/disabled-backend') for h in hosts]
    off = start_play(lab, tmp, 'itfault-left-off', suite=suite,
                     extra={'perflab_restore_leftovers': True, 'perflab_firewall_mode': 'disabled'})
    kill_when(off, lambda: all(p.exists() for p in marker) and not any(filtered(lab, h) for h in hosts),
              'both firewalls off')
    data.update(off=off, filtered_after_off=[filtered(lab, h) for h in hosts], file_after_off=on_host('lab1', SYSCTL_FILE).exists(),
                after_off=dict((h, (data_mtu(lab, h), sysctl_dump(lab, h), snapshot_of(h, 'tuning'))) for h in hosts))
    # 5. the next plain run, restoring first: the firewall back on, then the test through its openings
    data['plain2'] = play(lab, tmp, 'itfault-left-plain2', suite=suite, timeout=300, extra={'perflab_restore_leftovers': True})
    data['end'] = dict((h, (filtered(lab, h), [r for r in ('tuning', 'mtu', 'firewall') if snapshot_of(h, r)],
                            on_host(h, '/var/lib/perflab/firewall/disabled-backend').exists(), sysctl_dump(lab, h),
                            data_mtu(lab, h))) for h in hosts)
    data['left'] = tool_processes(lab)
    data['seconds'] = time.monotonic() - started
    return data


def differences(before, after):
    return sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))


@pytest.mark.long
def test_killed_tuned_study_then_a_plain_run_is_refused(request):
    with battery.case('fault', 'stock_vs_tuned killed (SIGKILL) in its tuned half, then benchmark.yml') as case:
        data = request.getfixturevalue('leftovers')
        plain, out = data['plain'], ' '.join(data['plain'].output().split())
        case.lost = data['svt'].lost()
        found = re.search(r'Refused before any change[^"]*', out)
        case.detail = 'refused: %s' % short(found.group(0) if found else out[-200:], 110)
        assert data['tuned_mtu'] == {'lab1': 9000, 'lab2': 9000}, data['tuned_mtu']
        assert all(differences(data['stock'][h], data['tuned'][h]) for h in ('lab1', 'lab2'))   # left tuned
        assert plain.proc.returncode != 0, out[-3000:]
        for host in ('lab1', 'lab2'):
            assert contains(out, 'an earlier run (killed before its cleanup, or a tuned run not reverted) left %s changed'
                            % host), out[-3000:]
        assert contains(out, 'tuning snapshot /var/lib/perflab/tuning/stock.json') and contains(out, 'sysctls net.')
        assert contains(out, 'mtu snapshot /var/lib/perflab/mtu/stock.json') and contains(out, 'mtu:data0=%d' % data['stock_mtu']['lab1'])
        assert contains(out, 'perflab_restore_leftovers=true') and contains(out, 'playbooks/revert.yml')
        assert not plain.records()                                # nothing measured under a wrong label
        ran = [e['name'] for e in plain.events() if e.get('event') == 'task']
        assert 'Open the plan\'s ports to the peers that use them' not in ran and 'Tune' not in ran, ran
        assert data['after_plain'] == dict((h, (9000, data['tuned'][h])) for h in ('lab1', 'lab2'))   # nothing changed
        assert case.lost == 0


@pytest.mark.long
def test_immutable_sysctl_file_during_the_revert(request):
    with battery.case('fault', 'sysctl.d file immutable (chattr +i) during the revert') as case:
        data = request.getfixturevalue('leftovers')
        stuck, out = data['stuck'], ' '.join(data['stuck'].output().split())
        mtu1, sysctls1, tuning1, mtu_snap1 = data['after_stuck']['lab1']
        case.lost = 0
        found = re.search(r'Not everything could be put back on lab1: [^"]*', out)
        case.detail = short(found.group(0) if found else out[-200:], 130)
        assert data['persisted'], 'the tuned run wrote no %s' % SYSCTL_FILE
        assert stuck.proc.returncode != 0 and found, out[-3000:]
        assert contains(out, 'files:%s ([Errno 1] Operation not permitted)' % SYSCTL_FILE), out[-3000:]
        assert contains(out, 'Restoring what an earlier run left on lab1: tuning snapshot')
        assert contains(out, 'Refused: what an earlier run left could not all be put back on lab1'), out[-3000:]
        # the runtime values and the MTU are back; only the file is left, and the snapshot keeps it
        assert not differences(data['stock']['lab1'], sysctls1), differences(data['stock']['lab1'], sysctls1)
        assert mtu1 == data['stock_mtu']['lab1'] and mtu_snap1 is None
        assert tuning1 and sorted(tuning1['files']) == [SYSCTL_FILE] and not tuning1['sysctls'] and not tuning1['values']
        assert data['file_kept']
        # lab2 (nothing in the way) is all back
        mtu2, sysctls2, tuning2, mtu_snap2 = data['after_stuck']['lab2']
        assert mtu2 == data['stock_mtu']['lab2'] and tuning2 is None and mtu_snap2 is None
        assert not differences(data['stock']['lab2'], sysctls2)
        assert not stuck.records()
        # after chattr -i, the next restore takes the file and the snapshot goes
        off = ' '.join(data['off'].output().split())
        assert contains(off, 'Restoring what an earlier run left on lab1: tuning snapshot') and contains(off, 'files %s' % SYSCTL_FILE)
        assert not on_host('lab1', SYSCTL_FILE).exists()


@pytest.mark.long
def test_killed_tuned_study_restored_first(request):
    with battery.case('fault', 'killed tuned study restored before measuring (perflab_restore_leftovers)') as case:
        data = request.getfixturevalue('leftovers')
        stuck, off = ' '.join(data['stuck'].output().split()), ' '.join(data['off'].output().split())
        records = data['plain2'].records()
        case.lost = data['plain2'].lost()
        case.detail = 'said which (tuning, mtu per host), restored, then %s at MTU %s' % (
            ', '.join('%s %s' % (r['config'], r['status']) for r in records), data['end']['lab1'][4])
        for host in ('lab1', 'lab2'):   # said which, before anything else changed
            assert contains(stuck, 'Restoring what an earlier run left on %s: tuning snapshot /var/lib/perflab/tuning/stock.json' % host)
            assert contains(stuck, 'mtu snapshot /var/lib/perflab/mtu/stock.json'), stuck[-3000:]
        assert contains(off, 'Restoring what an earlier run left on lab1: tuning snapshot') and contains(off, 'files %s' % SYSCTL_FILE)
        for host in ('lab1', 'lab2'):   # stock again before the run measured anything
            mtu, sysctls, tuning = data['after_off'][host]
            assert mtu == data['stock_mtu'][host] and tuning is None and not differences(data['stock'][host], sysctls)
        assert not data['file_after_off']
        assert records and all(r['config'].endswith(' stock') and r['status'] == 'ok' for r in records), records
        assert case.lost == 0


@pytest.mark.long
def test_killed_firewall_disabled_run_then_a_normal_run(request):
    with battery.case('fault', 'run with the firewall off killed (SIGKILL), then benchmark.yml') as case:
        data = request.getfixturevalue('leftovers')
        plain, out = data['plain2'], ' '.join(data['plain2'].output().split())
        case.lost = data['off'].lost() + plain.lost()
        found = re.search(r'Restoring what an earlier run left on lab1: (firewall: the \S+ firewall switched off)', out)
        case.detail = 'the next run restored first (%s), then measured through it: %s; chain %.0f s' % (
            found.group(1) if found else '?', ', '.join(r['status'] for r in plain.records()), data['seconds'])
        assert data['filtered_before'] == [True, True]
        assert data['filtered_after_off'] == [False, False]          # what the killed run left: unfiltered hosts
        for host in ('lab1', 'lab2'):
            assert contains(out, 'Restoring what an earlier run left on %s: firewall: the nftables firewall switched off '
                                 '(/var/lib/perflab/firewall/disabled-backend)' % host), out[-3000:]
        assert plain.proc.returncode == 0, out[-3000:]
        assert plain.records() and all(r['status'] == 'ok' for r in plain.records()), plain.records()
        for host in ('lab1', 'lab2'):
            is_filtered, snaps, marker, sysctls, mtu = data['end'][host]
            assert is_filtered and not snaps and not marker, data['end'][host][:3]
            assert mtu == data['stock_mtu'][host] and not differences(data['stock'][host], sysctls)
        assert not data['left'], data['left']
        assert case.lost == 0
