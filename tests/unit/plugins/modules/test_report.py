# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json
import os
import shutil

import pytest

from ansible.module_utils import _internal
from ansible.module_utils.testing import patch_module_args

from ansible_collections.perflab.network.plugins.modules import report as report_module

openpyxl = pytest.importorskip('openpyxl')

FIXTURES = os.path.join(os.path.dirname(__file__), '..', '..', 'fixtures', 'results')


def warning_text(warning):
    # ansible-core 2.19 returns warnings as structured summaries, earlier versions as text
    if isinstance(warning, dict):
        return warning.get('event', {}).get('msg', '')
    return warning


@pytest.fixture(autouse=True)
def target_side(monkeypatch):
    # once any controller code is imported in this pytest process (the callback tests do),
    # module warnings go to the controller's display instead of the result: run as on a target
    monkeypatch.setattr(_internal, 'is_controller', False)


def run(capsys, **args):
    with patch_module_args(args):
        with pytest.raises(SystemExit) as caught:
            report_module.main()
    result = json.loads(capsys.readouterr().out)
    return caught.value.code, result


@pytest.fixture
def results_dir(tmp_path):
    for name in ('stock.jsonl', 'tuned.jsonl', 'truncated.jsonl', 'future-schema.jsonl'):
        shutil.copy(os.path.join(FIXTURES, name), str(tmp_path / name))
    return tmp_path


def test_merges_files_into_workbook_and_exports(capsys, results_dir):
    dest = str(results_dir / 'out' / 'compare.xlsx')
    code, result = run(capsys, src=[str(results_dir / 'stock.jsonl'), str(results_dir / 'tuned.jsonl')], dest=dest)
    assert code == 0, result
    assert result['changed'] is True
    assert result['workbook'] == dest and os.path.exists(dest)
    assert result['configurations'] == ['Debian 12 stock', 'Debian 12 tuned']
    assert result['baseline'] == 'Debian 12 stock'
    assert result['records'] == 37 and result['records_failed'] == 3 and result['records_skipped'] == 1
    assert result['records_ok'] == 33
    assert result['systems'] == 4 and result['tests'] == 8
    assert result['skipped_lines'] == []
    stem = dest[:-len('.xlsx')]
    assert result['exports'] == ['%s-%s.csv' % (stem, name) for name in
                                 ('summary', 'tests', 'metrics', 'systems', 'intervals', 'raw')] + [stem + '.json']
    assert all(os.path.exists(path) for path in result['exports'])
    assert 'Netperf 2.7.0 - Duration: 10 Seconds - Test: TCP Request Response' in result['summary']
    assert openpyxl.load_workbook(dest).sheetnames == result['sheets']
    assert result['charts'] > 8
    # the text and Markdown views beside the workbook, the text one the summary returned
    assert result['views'] == [stem + '.txt', stem + '.md']
    with open(stem + '.txt') as handle:
        assert handle.read() == result['summary']
    with open(stem + '.md') as handle:
        assert '## Netperf 2.7.0 - Duration: 10 Seconds - Test: TCP Request Response' in handle.read()


def test_glob_and_baseline_and_no_exports(capsys, results_dir):
    dest = str(results_dir / 'all.xlsx')
    code, result = run(capsys, src=[str(results_dir / '[st]*.jsonl'), str(results_dir / 'nothing-*.jsonl')],
                       dest=dest, baseline='Debian 12 tuned', exports=[], group_by='run')
    assert code == 0, result
    assert [os.path.basename(path) for path in result['files']] == ['stock.jsonl', 'truncated.jsonl', 'tuned.jsonl']
    assert result['exports'] == []
    assert result['baseline'] == 'Debian 12 tuned [20261129T201500Z-cd34]'
    warnings = [warning_text(warning) for warning in result['warnings']]
    assert any('no result file matches' in warning for warning in warnings)
    # the truncated file's last line is reported, the rest of it is used
    assert len(result['skipped_lines']) == 1
    skipped = result['skipped_lines'][0]
    assert skipped['file'].endswith('truncated.jsonl') and skipped['line'] == 7
    assert any('truncated.jsonl:7' in warning for warning in warnings)


def test_strict_fails_on_a_skipped_line(capsys, results_dir):
    code, result = run(capsys, src=[str(results_dir / 'truncated.jsonl')], dest=str(results_dir / 'x.xlsx'),
                       strict=True)
    assert code == 1
    assert result['failed'] is True
    assert 'truncated.jsonl:7' in result['msg']


def test_unknown_schema_major_fails_clearly(capsys, results_dir):
    code, result = run(capsys, src=[str(results_dir / 'future-schema.jsonl')], dest=str(results_dir / 'x.xlsx'))
    assert code == 1
    assert "'perflab.result/9' is not supported" in result['msg']
    assert not os.path.exists(str(results_dir / 'x.xlsx'))


def test_check_mode_writes_nothing(capsys, results_dir):
    dest = str(results_dir / 'check' / 'r.xlsx')
    code, result = run(capsys, src=[str(results_dir / 'stock.jsonl')], dest=dest, _ansible_check_mode=True)
    assert code == 0, result
    assert result['changed'] is True
    assert result['workbook'] == dest
    assert not os.path.exists(str(results_dir / 'check'))
    assert result['exports'][-1] == dest[:-len('.xlsx')] + '.json'
    assert result['records'] == 18 and result['sheets'] == []
    assert result['views'] == [dest[:-len('.xlsx')] + '.txt', dest[:-len('.xlsx')] + '.md']


@pytest.mark.parametrize('args, message', [
    ({'dest': 'r.csv'}, 'dest must be an .xlsx path'),
    ({'exports': ['xml']}, 'exports'),
    ({'group_by': 'host'}, 'group_by'),
    ({'src': []}, 'src is empty'),
    ({'min_change_percent': -1}, 'min_change_percent must be a number of percent, 0 or more'),
    ({'min_change_percent': 'five'}, 'min_change_percent must be a number of percent, 0 or more'),
    ({'min_change_percent': True}, 'min_change_percent must be a number of percent, 0 or more'),
])
def test_bad_input_fails_before_anything_runs(capsys, results_dir, args, message):
    params = {'src': [str(results_dir / 'stock.jsonl')], 'dest': str(results_dir / 'r.xlsx')}
    params.update(args)
    code, result = run(capsys, **params)
    assert code == 1
    assert message in result['msg']
    assert not os.path.exists(str(results_dir / 'r.xlsx'))


def test_no_matching_file_fails(capsys, tmp_path):
    code, result = run(capsys, src=[str(tmp_path / '*.jsonl')], dest=str(tmp_path / 'r.xlsx'))
    assert code == 1
    assert result['msg'].startswith('no result file matches')


def test_a_copied_results_file_is_counted_once_and_said(capsys, results_dir):
    # a backup copy of a run's file in the results folder (issue 29.15): the same records, counted once
    shutil.copy(str(results_dir / 'stock.jsonl'), str(results_dir / 'stock-backup.jsonl'))
    dest = str(results_dir / 'out' / 'dedupe.xlsx')
    code, once = run(capsys, src=[str(results_dir / 'stock.jsonl')], dest=dest, exports=[])
    code2, twice = run(capsys, src=[str(results_dir / 'stock.jsonl'), str(results_dir / 'stock-backup.jsonl')],
                       dest=dest, exports=[])
    assert code == code2 == 0, twice
    assert once['duplicates'] == {}
    assert (twice['records'], twice['records_ok'], twice['records_failed'], twice['systems']) == \
        (once['records'], once['records_ok'], once['records_failed'], once['systems'])
    copies = twice['duplicates'][str(results_dir / 'stock-backup.jsonl')]
    assert copies == once['records'] + once['systems']
    warned = [warning_text(w) for w in twice.get('warnings', [])]
    assert any('%d record(s) were read more than once and counted once' % copies in w and 'stock-backup.jsonl' in w
               for w in warned), warned
    assert 'read more than once' in twice['summary']


def test_min_change_reaches_the_verdicts(capsys, results_dir):
    dest = str(results_dir / 'minimum.xlsx')
    code, result = run(capsys, src=[str(results_dir / 'stock.jsonl'), str(results_dir / 'tuned.jsonl')], dest=dest,
                       min_change_percent='30', exports=['json'])
    assert code == 0, result
    assert result['min_change_percent'] == 30.0
    with open(dest[:-len('.xlsx')] + '.json') as handle:
        document = json.load(handle)
    tests = document['tables']['tests']
    rows = [dict(zip(tests['columns'], row)) for row in tests['rows']]
    # TCP_RR: +23.8 %, significant after Holm, below the 30 % the study cares about
    tuned_rr = [row for row in rows if row['test_id'] == 'netperf/TCP_RR' and row['configuration'] == 'Debian 12 tuned']
    assert tuned_rr[0]['verdict'] == 'below minimum change' and tuned_rr[0]['significant'] is True
    assert document['overview']['min_change_percent'] == 30.0
    assert 'minimum change (30 %)' in result['summary']
