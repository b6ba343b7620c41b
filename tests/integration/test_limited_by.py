# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What limited a test (issue 27.4/27.5), each verdict provoked for real on one lab ("lim35").

One playbook: lab1 serves iperf3, lab2 runs a 2 s test per case with the NIC sampler on data0, each case
labelled by its ``config`` and set up and undone around its test:
- link: tbf shapes lab2's data0 to 200 Mbit/s (link_mbps 200) -> ``link``
- cpu: lab2 receives (tcp_maerts); its sshd is pinned to core 0 and the connection renewed, so the module,
  iperf3 and the sampler run on core 0 beside a busy loop there -> ``cpu`` with cpu0 saturated (veth has no
  line rate: link_mbps 100000 says the link is not it)
- window: iperf3 ``window: 4K`` -> ``window`` (rwnd/sndbuf limited, the BDP against the buffer)
- loss: nftables drops 5 % of lab2's packets on lab1's input at random -> ``loss``
- target: UDP at 20 Mbit/s -> ``target``
- cpu_server: lab2 sends (tcp_stream) to lab1's iperf3 server pinned to lab1's core 0 beside a busy loop there,
  lab2's side on core 1 -> ``cpu`` on the server's side, core 0 (issue 27.4: the server host sampled too); when
  the sender retransmits over 0.5 % (CI once saw 0.52 % called loss), still ``cpu``: the starved receiver takes
  the segments in late and out of order and reports the retransmitted ones as duplicates (D-SACK; seen here: its
  stack's TcpExt and softnet drops stayed 0), or drops them in its own stack (``host_drops``)

The server's side is sampled by bench_server's sampler (``sample_interface``) for the whole play; every test
is held (bench_test ``hold``) and one status read of the sampler at the end gives each record the server's
window of it (bench_record ``sampled``): one round trip for all the cases.
"""
from __future__ import annotations

import json
import time

import pytest

from conftest import run_playbook

from ansible_collections.perflab.network.plugins.module_utils.core import limits

pytestmark = pytest.mark.lab
NAME, MGMT, DATA = 'lim35', '10.246.0.0/24', '10.246.1.0/24'

PLAYBOOK = '''---
- name: Tools
  hosts: perflab_lab
  gather_facts: false
  tasks:
    - name: Install iperf3
      ansible.builtin.include_role:
        name: perflab.network.tools
      vars:
        tools_list: [iperf3]

- name: A server
  hosts: perflab_servers
  gather_facts: false
  tasks:
    - name: Start an iperf3 server and the server side's sampler
      perflab.network.bench_server:
        tool: iperf3
        bind: "{{ perflab_data_address }}"
        idle_timeout: 120
        sample_interface: "{{ perflab_data_interface }}"
      register: __lim_server

- name: One test per verdict
  hosts: perflab_clients
  gather_facts: false
  vars:
    server: "{{ hostvars[perflab_peer].perflab_data_address }}"
    __common: &common
      tool: iperf3
      hold: true
      server: "{{ server }}"
      duration: 2
      nic_interface: "{{ perflab_data_interface }}"
      client_name: "{{ inventory_hostname }}"
      server_name: "{{ perflab_peer }}"
      server_interface: "{{ hostvars[perflab_peer].perflab_data_interface }}"
      run_id: lim35
  tasks:
    - name: Link
      block:
        - name: Shape data0 with tbf
          ansible.builtin.command:
            argv: [tc, qdisc, replace, dev, "{{ perflab_data_interface }}", root, tbf, rate, 200mbit,
                   burst, "32kb", latency, 50ms]
          changed_when: true
        - name: TCP through the shaped link
          perflab.network.bench_test:
            <<: *common
            config: link
            link_mbps: 200
          register: __lim_link
          ignore_errors: true
      always:
        - name: Unshape
          ansible.builtin.command:
            argv: [tc, qdisc, del, dev, "{{ perflab_data_interface }}", root]
          changed_when: true

    - name: CPU
      vars:
        __lim_core: 0
      block:
        # every process the next SSH connection starts (the module, iperf3, the sampler) inherits the core
        - &pin_sshd
          name: Pin lab2's sshd to one core (its mask kept)
          ansible.builtin.command:
            argv: [sh, -c, 'p=$(pgrep -o -x sshd); taskset -p "$p" | sed "s/.*: //" > /tmp/lim35-sshd.mask;
                            taskset -p -c "$1" "$p"', sh, "{{ __lim_core }}"]
          changed_when: true
        - &reconnect
          name: A new connection, from the pinned sshd
          ansible.builtin.meta: reset_connection
        - name: A busy loop on core 0 (bounded, its pid kept to stop it)
          ansible.builtin.command:
            argv: [sh, -c, 'echo $$ > /tmp/lim35-busy.pid; exec timeout 20 taskset -c 0 sh -c "while :; do :; done"']
          async: 25
          poll: 0
          changed_when: true
        - name: The receiver pinned to core 0
          perflab.network.bench_test:
            <<: *common
            test: tcp_maerts
            config: cpu
            link_mbps: 100000
          register: __lim_cpu
          ignore_errors: true
      always:
        - name: Stop the busy loop (timeout passes the TERM on)
          ansible.builtin.command:
            argv: [sh, -c, 'kill "$(cat /tmp/lim35-busy.pid)"']
          changed_when: true
          failed_when: false
        - &unpin_sshd
          name: Give sshd its mask back
          ansible.builtin.command:
            argv: [sh, -c, 'taskset -p "$(cat /tmp/lim35-sshd.mask)" "$(pgrep -o -x sshd)"']
          changed_when: true
        - *reconnect

    - name: A tiny socket buffer
      perflab.network.bench_test:
        <<: *common
        config: window
        options: {window: 4K}
      register: __lim_window
      ignore_errors: true

    - name: Loss
      block:
        - name: Drop 5 % of lab2's packets on lab1's input
          ansible.builtin.command:
            argv: [nft, -f, "-"]
            stdin: |
              table inet lim35_loss {
                chain input {
                  type filter hook input priority -10;
                  ip saddr {{ perflab_data_address }} tcp dport 5201 numgen random mod 100 < 5 drop
                }
              }
          delegate_to: "{{ perflab_peer }}"
          changed_when: true
        - name: TCP with random drops
          perflab.network.bench_test:
            <<: *common
            config: loss
          register: __lim_loss
          ignore_errors: true
      always:
        - name: Remove the drops
          ansible.builtin.command:
            argv: [nft, delete, table, inet, lim35_loss]
          delegate_to: "{{ perflab_peer }}"
          changed_when: true
          failed_when: false

    - name: UDP below line rate
      perflab.network.bench_test:
        <<: *common
        test: udp_stream
        config: target
        options: {bitrate: 20}
      register: __lim_target
      ignore_errors: true

    - name: Receiver's CPU
      vars:
        __server_pid: "{{ hostvars[perflab_peer].__lim_server.servers[0].pid }}"
        # the client's side (the module, iperf3, its sampler) on core 1, as the cpu case does on core 0
        __lim_core: 1
      block:
        - *pin_sshd
        - *reconnect
        - name: Pin lab1's iperf3 server (all its threads) to core 0
          ansible.builtin.command:
            argv: [taskset, -a, -p, -c, "0", "{{ __server_pid }}"]
          delegate_to: "{{ perflab_peer }}"
          changed_when: true
        - name: A busy loop on lab1's core 0 (bounded, its pid kept to stop it)
          ansible.builtin.command:
            argv: [sh, -c, 'echo $$ > /tmp/lim35-busy1.pid; exec timeout 20 taskset -c 0 sh -c "while :; do :; done"']
          async: 25
          poll: 0
          delegate_to: "{{ perflab_peer }}"
          changed_when: true
        - name: The client sends to the receiver pinned to a busy core
          perflab.network.bench_test:
            <<: *common
            test: tcp_stream
            config: cpu_server
            link_mbps: 100000
          register: __lim_cpu_server
          ignore_errors: true
      always:
        - name: Stop lab1's busy loop
          ansible.builtin.command:
            argv: [sh, -c, 'kill "$(cat /tmp/lim35-busy1.pid)"']
          delegate_to: "{{ perflab_peer }}"
          changed_when: true
          failed_when: false
        - name: Give lab1's iperf3 server every core back
          ansible.builtin.command:
            argv: [sh, -c, 'taskset -a -p -c "0-$(($(nproc --all) - 1))" "$1"', sh, "{{ __server_pid }}"]
          delegate_to: "{{ perflab_peer }}"
          changed_when: true
          failed_when: false
        - *unpin_sshd
        - *reconnect

    # one read of the server side's sampler for every held record: each takes its own test's seconds
    - name: Read the server side's samples and stop the server
      perflab.network.bench_server:
        tool: iperf3
        state: stopped
        sample_interface: "{{ hostvars[perflab_peer].perflab_data_interface }}"
      delegate_to: "{{ perflab_peer }}"
      register: __lim_sampled

    - name: Store the records, judged with both sides
      perflab.network.bench_record:
        records: "{{ [__lim_link, __lim_cpu, __lim_window, __lim_loss, __lim_target, __lim_cpu_server]
                     | map(attribute='perflab_held', default=[]) | flatten(levels=1) }}"
        sampled: "{{ {perflab_peer: __lim_sampled.sampled} }}"
      delegate_to: localhost
'''


@pytest.fixture(scope='module')
def lab(lab_factory):
    return lab_factory(NAME, hosts=2, mgmt=MGMT, data=DATA)


def test_each_verdict_provoked_on_the_lab(lab, tmp_path):
    play = tmp_path / 'limited_by.yml'
    play.write_text(PLAYBOOK)
    results = tmp_path / 'results'
    started = time.monotonic()
    res = run_playbook(str(play), lab.inventory, {'perflab_results_dir': str(results)},
                       env={'PERFLAB_RESULTS_DIR': str(results)}, timeout=900)
    print('limited_by playbook: %.1f s' % (time.monotonic() - started))
    assert res.rc == 0, res.stdout[-5000:] + res.stderr[-2000:]
    records = [json.loads(line) for line in (results / 'lim35.jsonl').read_text().splitlines() if line.strip()]
    by_case = dict((r['config'], r) for r in records if r.get('schema') and r.get('config'))
    assert sorted(by_case) == ['cpu', 'cpu_server', 'link', 'loss', 'target', 'window'], (sorted(by_case),
                                                                                          res.stdout[-6000:])
    server_facts = lab.hostvars()['lab1']
    for case, record in sorted(by_case.items()):
        assert record['status'] == 'ok', (case, record['error'])
        limited = record['limited_by']
        # the whole judged record on a wrong verdict (CI once saw the cpu_server case said 'loss')
        assert limited['verdict'] == case.split('_')[0], '%s: %s' % (case, json.dumps(
            {'limited_by': limited, 'metrics': record['metrics'], 'direction': record['direction']}, sort_keys=True))
        # the server's side: its interface, MTU and link speed in the record (the kernel's for a veth: 10000), its
        # per-core CPU and drop counters over this test's seconds
        assert record['server']['interface'] == server_facts['perflab_data_interface'], record['server']
        assert record['server']['mtu'] == record['client']['mtu'] > 0 and record['server']['link_mbps'] == 10000.0, \
            record['server']
        assert limited['server']['cpu']['busiest'] and limited['server']['nic_drops'] is not None, (case, limited)
        # ... and the host stack's receive drops on both sides (TcpExt per namespace, softnet_stat the kernel's)
        for side in (limited, limited['server']):
            assert set(side['host_drops']) == set(limits.HOST_COUNTERS), (case, side['host_drops'])
        assert limited['server']['window'][0] >= limits.epoch_of(record['started_at']) - 1.0, (case, limited['server'])
        # what every sampled record carries: the path's RTT, per-core CPU, the NIC's drop counters
        assert limited['path_rtt']['min_ms'] > 0, (case, limited)
        assert limited['cpu']['busiest'] and limited['nic_drops'] is not None, (case, limited)
    link = by_case['link']['limited_by']
    assert link['ceiling_tbf_mbps'] == pytest.approx(200 * 1448 / 1514.0, abs=0.01), link
    assert 'of the goodput ceiling' in link['evidence']
    cpu = by_case['cpu']['limited_by']
    # core 0 is saturated. The namespaces share one kernel: on a machine loaded by other work (make test runs
    # three lab modules at once on two cores) the server's core 1 can be saturated too and be the busier, and
    # the verdict names the busier side; the client's core 0 must then be named beside it
    print('cpu:', cpu['evidence'])
    assert 'cpu0' in cpu['saturated'] and 'softirq' in cpu['evidence'], cpu
    assert cpu['side'] == 'client' or 'the client core cpu0 was' in cpu['evidence'], cpu
    window = by_case['window']['limited_by']
    limited = max(window['tcp']['rwnd_limited_pct'], window['tcp']['sndbuf_limited_pct'])
    assert limited >= 30 or (limited >= 10 and min(window['tcp']['snd_wnd']) < window['bdp_bytes']), window['tcp']
    assert window['bdp_bytes'] and 'bandwidth-delay product' in window['evidence'], window
    loss = by_case['loss']['limited_by']
    assert loss['tcp']['retrans'] > 0 and 'retransmitted' in loss['evidence'], loss
    print('loss:', loss['evidence'], '| host drops: client %s, server %s' % (
        loss['host_drops'], loss['server']['host_drops']))
    assert 'target' in by_case['target']['limited_by']['evidence']
    server = by_case['cpu_server']['limited_by']
    print('cpu_server:', server['evidence'], '| host drops: client %s, server %s | tcp %s' % (
        server['host_drops'], server['server']['host_drops'], server['tcp']))
    assert server['server']['process_cpu'] == 'cpu0' and 'softirq' in server['evidence'], server
    # the mirror of the cpu case: the client's core 1, loaded by other work, may be as busy (a tie names the client)
    if server['side'] == 'server':
        assert server['core'] == 'cpu0' and "the server's tool ran there" in server['evidence'], server
    else:
        assert 'the server core cpu0 was' in server['evidence'], server
    # retransmissions over the loss share: the receiver's account of them is the evidence's
    if 100.0 * server['tcp']['retrans'] / server['tcp']['data_segs_out'] >= limits.LOSS_PCT:
        assert 'as duplicates (D-SACK' in server['evidence'] or "the receiver's host dropped" in server['evidence'], \
            server
    # the progress line says each record's verdict in its short form ("cpu cpu0", or "cpu server cpu0" when the
    # server's side was the busier: CI once saw the cpu case's server core named, see above)
    for case in ('window', 'cpu'):
        short = limits.short(by_case[case]['limited_by'])
        assert short.startswith(case) and 'limited by %s' % short in res.stdout, (case, short, res.stdout[-3000:])
