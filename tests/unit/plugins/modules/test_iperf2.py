# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The iperf2 module with process.run answering from iperf2 output (tests/unit/fixtures/iperf2/):
its argv (-m for the TCP tests, issue #28.4) and what the record keeps (the MSS 2.0.x prints after
the test, a stalled stream's note and the total of its streams, issue #29.5)."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import pytest

from ansible_collections.perflab.network.plugins.modules import iperf2
from ansible_collections.perflab.network.plugins.module_utils.tools import registry
from ansible_collections.perflab.network.tests.unit.plugins.modules.tool_fakes import FakeTool, install_fake_tool, read_fixture
from ansible_collections.perflab.network.tests.unit.plugins.modules import tool_fakes

IPERF = '/usr/bin/iperf'


@pytest.fixture
def tools(monkeypatch):
    def install(outputs):
        fake = FakeTool(outputs, ['-v'], '', result_defaults={'stderr': ''})
        fake.version_text = read_fixture('iperf2', '2.1.8', 'version.txt')
        return install_fake_tool(monkeypatch, IPERF, fake)
    return install


@pytest.mark.parametrize('test, has_m', [('tcp_stream', True), ('tcp_maerts', True), ('tcp_bidir', True),
                                         ('udp_stream', False)])
def test_the_tcp_tests_ask_for_the_mss(test, has_m):
    tool = registry.get('iperf2')
    params = dict(tool.params_of(test, 4, 1, {'bitrate': 100} if test == 'udp_stream' else {}),
                  server='10.172.1.12', duration=2, port=5401)
    argv = tool.client_argv(params, IPERF)
    assert ('-m' in argv) == has_m
    assert argv.count('-m') <= 1


@pytest.mark.parametrize('test, flags', [('tcp_stream', ['-m']), ('tcp_maerts', ['-R', '-m']),
                                         ('tcp_bidir', ['--full-duplex', '-m']), ('udp_stream', ['-u', '-b', '100m'])])
def test_the_exact_client_argv(test, flags):
    # -m only on the TCP tests (real 2.1.8 takes it with -R and --full-duplex: fk-tcp-R-P2-m, fk-tcp-fullduplex-m)
    tool = registry.get('iperf2')
    params = dict(tool.params_of(test, 4, 1, {'bitrate': 100} if test == 'udp_stream' else {}),
                  server='10.172.1.12', duration=2, port=5401)
    assert tool.client_argv(params, IPERF) == [IPERF, '-c', '10.172.1.12', '-p', '5401', '-t', '2', '-e', '-f', 'k',
                                               '-i', '1', '-P', '4'] + flags


def test_the_mss_2_0_prints_after_the_test_is_recorded(tools, capsys):
    fake = tools([read_fixture('iperf2', '2.0.13', 'tcp-e-m.txt')])
    result = tool_fakes.run_module(iperf2, {'server': '10.172.1.12', 'duration': 2, 'port': 5401}, capsys)
    assert fake.test_calls[0] == [IPERF, '-c', '10.172.1.12', '-p', '5401', '-t', '2', '-e', '-f', 'k', '-i', '1',
                                  '-P', '1', '-m']
    record = result['perflab_result'][0]
    assert record['status'] == 'ok', record['error']
    assert record['metrics']['mss_bytes']['value'] == 1448.0
    assert record['metrics']['throughput_mbps']['value'] == 942.142


def test_a_stalled_stream_is_counted_and_said(tools, capsys):
    tools([read_fixture('iperf2', '2.1.8', 'edited-fk-tcp-P4-stall-no-final-sum.txt')])
    result = tool_fakes.run_module(iperf2, {'server': '10.172.1.12', 'duration': 3, 'port': 5401, 'parallel': 4},
                                   capsys)
    # a stalled stream is a fault: the record fails, saying which stream and what iperf2 counted in all
    # (the streams' own finals added up: no final [SUM]), never 0 Mbit/s ok
    record = result['perflab_result'][0]
    assert record['status'] == 'failed'
    assert record['error'].startswith('1 of 4 iperf2 stream(s) stalled during the test (iperf2 counted 26198.4 Mbit/s '
                                      'in all): iperf2 stream 1 (sending) stalled: 0 bytes in its last interval')
    assert [note for note in record['notes'] if note.startswith('iperf2 stream 1 (sending) stalled')]
