# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json
import os

import pytest

from ansible_collections.perflab.network.plugins.module_utils.core import record as rec
from ansible_collections.perflab.network.plugins.module_utils.report import store

FIXTURES = os.path.join(os.path.dirname(__file__), '..', '..', 'fixtures', 'results')


def fixture(name):
    return os.path.join(FIXTURES, name)


def json_lines(name):
    with open(fixture(name)) as handle:
        return [json.loads(line) for line in handle if line.strip()]


def test_schema_strings_follow_the_record_builder():
    assert store.RESULT_SCHEMA == rec.SCHEMA == 'perflab.result/2'
    assert store.SYSTEM_SCHEMA == 'perflab.system/1'
    assert store.parse_schema('perflab.result/1') == ('perflab.result', 1)
    assert store.parse_schema('perflab.result/2.1') == ('perflab.result', 2)
    assert store.parse_schema('perflab.result') is None
    assert store.parse_schema(None) is None


def test_reads_results_and_system_profiles():
    results, systems, problems = store.read_files([fixture('stock.jsonl')])
    every_line = json_lines('stock.jsonl')
    assert problems == []
    assert len(results) == sum(1 for obj in every_line if obj['schema'] == 'perflab.result/1')
    assert len(systems) == sum(1 for obj in every_line if obj['schema'] == 'perflab.system/1') == 2
    # raw is dropped by default (64 KiB a record, no table needs it), everything else is kept
    expected = [dict((k, v) for k, v in obj.items() if k != 'raw')
                for obj in every_line if obj['schema'] == 'perflab.result/1']
    assert results == expected
    results_with_raw, _systems, _problems = store.read_files([fixture('stock.jsonl')], drop=())
    assert results_with_raw[0]['raw'].startswith('synthetic')


def test_a_line_cut_short_is_reported_with_file_and_line_and_skipped():
    results, systems, problems = store.read_files([fixture('truncated.jsonl')])
    with open(fixture('truncated.jsonl'), 'rb') as handle:
        content = handle.read()
    assert not content.endswith(b'\n')
    complete_lines = content.count(b'\n')
    assert len(results) + len(systems) == complete_lines
    assert len(problems) == 1
    assert problems[0].path == fixture('truncated.jsonl')
    assert problems[0].line == complete_lines + 1
    assert 'incomplete' in problems[0].message
    assert str(problems[0]).startswith('%s:%d: ' % (fixture('truncated.jsonl'), complete_lines + 1))


def test_garbage_lines_are_skipped_one_by_one():
    results, systems, problems = store.read_files([fixture('corrupt.jsonl')])
    assert len(results) == 3
    assert [(problem.line, problem.message.split(' ')[0]) for problem in problems] == [
        (2, 'not'), (4, 'not'), (5, 'no')]
    assert 'not valid JSON' in problems[0].message
    assert 'not a JSON object' in problems[1].message
    assert "'someone.else/1'" in problems[2].message
    assert [problem.as_dict()['line'] for problem in problems] == [2, 4, 5]


def test_an_unknown_schema_major_is_an_error_not_a_skip():
    with pytest.raises(store.SchemaError) as caught:
        store.read_files([fixture('future-schema.jsonl')])
    message = str(caught.value)
    assert 'future-schema.jsonl:2' in message
    assert "'perflab.result/9'" in message
    assert 'perflab.result/2' in message


def test_record_list_source_classifies_and_reports():
    source = store.RecordList([{'schema': 'perflab.result/1', 'test_id': 'a', 'raw': 'x'}, 'text',
                               {'schema': 'perflab.system/1', 'host': 'h'}], drop=('raw',))
    items = list(source)
    assert items == [('result', {'schema': 'perflab.result/1', 'test_id': 'a'}),
                     ('system', {'schema': 'perflab.system/1', 'host': 'h'})]
    assert [problem.line for problem in source.problems] == [2]


def test_append_is_one_line_per_record_and_readable_back(tmp_path):
    path = str(tmp_path / 'run.jsonl')
    records = json_lines('stock.jsonl')[:4]
    store.append_record(path, records[0])
    store.append_records(path, records[1:])
    with open(path) as handle:
        lines = handle.read().splitlines()
    assert len(lines) == 4
    assert [json.loads(line) for line in lines] == records
    results, systems, problems = store.read_files([path], drop=())
    assert systems + results == records
    assert problems == []


def test_append_after_a_crash_mid_line_starts_a_new_line(tmp_path):
    path = str(tmp_path / 'run.jsonl')
    records = json_lines('stock.jsonl')
    with open(path, 'w') as handle:
        handle.write(json.dumps(records[2]) + '\n' + json.dumps(records[3])[:50])   # the crash
    store.append_record(path, records[4])
    results, _systems, problems = store.read_files([path], drop=())
    assert results == [records[2], records[4]]
    assert [problem.line for problem in problems] == [2]


def test_append_survives_non_json_types(tmp_path):
    import datetime
    path = str(tmp_path / 'run.jsonl')
    store.append_record(path, {'schema': 'perflab.result/1', 'when': datetime.date(2026, 11, 29), 'name': 'é'})
    with open(path, encoding='utf-8') as handle:
        assert json.loads(handle.read()) == {'schema': 'perflab.result/1', 'when': '2026-11-29', 'name': 'é'}


def test_check_writable(tmp_path):
    target = tmp_path / 'new' / 'results'
    assert store.check_writable(str(target)) is None
    assert target.is_dir()
    assert os.listdir(str(target)) == []          # the probe file is gone
    a_file = tmp_path / 'file'
    a_file.write_text('x')
    problem = store.check_writable(str(a_file / 'results'))
    assert 'cannot create the results directory' in problem
    assert str(a_file / 'results') in problem
    assert 'is not a directory' in store.check_writable(str(a_file))


def test_expand_sources_globs_directories_and_files(tmp_path):
    for name in ('b.jsonl', 'a.jsonl', 'notes.txt'):
        (tmp_path / name).write_text('')
    paths, unmatched = store.expand_sources([str(tmp_path / '*.jsonl'), str(tmp_path),
                                             str(tmp_path / 'notes.txt'), str(tmp_path / 'missing-*.jsonl')])
    assert paths == [str(tmp_path / 'a.jsonl'), str(tmp_path / 'b.jsonl'), str(tmp_path / 'notes.txt')]
    assert unmatched == [str(tmp_path / 'missing-*.jsonl')]


def test_append_that_fills_the_disk_leaves_no_torn_line(tmp_path, monkeypatch):
    """ENOSPC part way through: the file keeps only its complete lines, a retry stores each record once."""
    import errno
    path = str(tmp_path / 'run.jsonl')
    records = json_lines('stock.jsonl')[:3]
    store.append_record(path, records[0])
    real_write = os.write
    calls = []

    def full_disk(fd, data):
        calls.append(len(data))
        if len(calls) == 1:
            return real_write(fd, bytes(data[:len(data) // 2]))   # a short write, then the disk is full
        raise OSError(errno.ENOSPC, 'No space left on device')

    monkeypatch.setattr(store.os, 'write', full_disk)
    with pytest.raises(OSError):
        store.append_records(path, records[1:])
    monkeypatch.setattr(store.os, 'write', real_write)
    with open(path) as handle:
        assert [json.loads(line) for line in handle.read().splitlines()] == records[:1]
    store.append_records(path, records[1:])   # the callback's retry, once there is room again
    with open(path) as handle:
        assert [json.loads(line) for line in handle.read().splitlines()] == records


def test_records_read_twice_are_yielded_once_and_counted(tmp_path):
    result = {'schema': 'perflab.result/2', 'run_id': 'r1', 'config': 'c', 'test_id': 'iperf3/tcp_stream/parallel=1',
              'repetition': 1, 'client': {'name': 'lab2'}, 'server': {'name': 'lab1'}, 'status': 'ok',
              'started_at': '2026-12-02T10:00:00Z', 'ended_at': '2026-12-02T10:00:02Z', 'metrics': {}}
    rerun = dict(result, status='failed', started_at='2026-12-02T11:00:00Z')   # a resume's new attempt: its own
    system = {'schema': 'perflab.system/1', 'run_id': 'r1', 'config': 'c', 'host': 'lab1', 'collected_at': 't'}
    first, copy = tmp_path / 'r1.jsonl', tmp_path / 'r1-copy.jsonl'
    store.append_records(str(first), [system, result, rerun])
    store.append_records(str(copy), [system, result])
    source = store.ResultFiles([str(first), str(copy)])
    for dummy in range(2):   # the report reads its source twice: the same both times
        assert [obj.get('status', 'system') for kind, obj in source] == ['system', 'ok', 'failed']
        assert source.duplicates == {str(copy): 2}
    assert store.duplicates_note(source.duplicates) == (
        '2 record(s) were read more than once and counted once (a copy of a results file, or a file given twice): '
        '2 in %s' % copy)
    listed = store.RecordList([result, dict(result), rerun])
    assert len(list(listed)) == 2 and listed.duplicates == {'<records>': 1}
    assert [r['status'] for r in store.read_run(str(first))] == ['ok', 'failed']


def test_an_amendment_replaces_its_fields_of_the_first_copy_and_a_crash_before_it_keeps_the_first(tmp_path):
    result = {'schema': 'perflab.result/2', 'run_id': 'r1', 'config': 'c', 'test_id': 'iperf3/tcp_stream/parallel=1',
              'repetition': 1, 'client': {'name': 'lab2', 'mtu': 1500}, 'server': {'name': 'lab1', 'mtu': None},
              'status': 'ok', 'started_at': '2026-12-02T10:00:00Z', 'ended_at': '2026-12-02T10:00:02Z',
              'metrics': {'throughput_mbps': {'value': 900.0}}, 'limited_by': {'verdict': 'unknown'}, 'raw': 'x'}
    other = dict(result, repetition=2, started_at='2026-12-02T10:00:05Z', ended_at='2026-12-02T10:00:07Z')
    amended = dict(result, server={'name': 'lab1', 'interface': 'data0', 'mtu': 1500, 'link_mbps': 10000.0},
                   limited_by={'verdict': 'cpu', 'server': {'cpu': {'busiest': 'cpu0'}}},
                   metrics={'throughput_mbps': {'value': 1.0}}, status='ok')
    line = rec.amendment(amended)
    # the line carries the record's identity and the amendable fields only: not its values nor its raw output
    assert line['schema'] == 'perflab.amendment/1' and 'metrics' not in line and 'raw' not in line
    path = tmp_path / 'r1.jsonl'
    store.append_records(str(path), [result, other])
    # a crash before the amendment: the first copies as they were
    assert [obj['server'].get('interface') for kind, obj in store.ResultFiles([str(path)])] == [None, None]
    store.append_records(str(path), [line])
    source = store.ResultFiles([str(path)], drop=())
    for dummy in range(2):
        read = [obj for kind, obj in source]
        assert len(read) == 2 and source.duplicates == {}, read
        first = read[0]
        assert first['server'] == amended['server'] and first['limited_by']['verdict'] == 'cpu'
        # what the amendment does not carry stays the first copy's
        assert first['metrics'] == result['metrics'] and first['raw'] == 'x' and first['schema'] == 'perflab.result/2'
        assert read[1]['server'] == other['server'] and read[1]['limited_by'] == {'verdict': 'unknown'}
    # the resume's reader and a source in memory take it the same way
    assert [r['server'].get('interface') for r in store.read_run(str(path))] == ['data0', None]
    listed = [obj for kind, obj in store.RecordList([result, other, line])]
    assert [r['limited_by']['verdict'] for r in listed] == ['cpu', 'unknown']
    # an amendment of another run (its start differs) amends nothing
    stray = dict(line, started_at='2026-12-02T09:00:00Z')
    assert [obj['limited_by']['verdict'] for kind, obj in store.RecordList([result, stray])] == ['unknown']
