# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""The ratio form of a comparison (the OSv seed's "OSv as a ratio of Linux": 104 %, 150 %), in the Summary, the
test sheets and the text views, against the means computed here from the record files."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json
import os
import statistics

import pytest

from ansible_collections.perflab.network.plugins.module_utils.report import build, store, tables, text

FIXTURES = os.path.join(os.path.dirname(__file__), '..', '..', 'fixtures', 'results')
STOCK = os.path.join(FIXTURES, 'stock.jsonl')
TUNED = os.path.join(FIXTURES, 'tuned.jsonl')


def _means(test_id):
    out = {}
    for path in (STOCK, TUNED):
        with open(path) as handle:
            for record in (json.loads(line) for line in handle if line.strip()):
                if record.get('test_id') == test_id and record.get('status') == 'ok':
                    out.setdefault(record['config'], []).append(record['metrics'][record['primary']]['value'])
    return dict((config, statistics.mean(values)) for config, values in out.items())


def test_ratio_form_shows_b_over_a_in_the_summary_and_the_text(tmp_path):
    report = tables.Report(store.ResultFiles([STOCK, TUNED]), form='ratio')
    base, other = report.compare[report.others[0]], report.others[0]
    test = report.tests[0]
    means = _means(test.test_id)
    ratio = means[other] / means[base] * 100.0
    columns = report.summary_columns()
    row = dict(zip(columns, report.summary_rows()[0]))
    assert row['%s vs %s ratio (%%)' % (other, base)] == pytest.approx(ratio)
    column = test.by_label[other]
    # the ratio's interval is the change's moved by 100 (A > 0)
    assert row['%s vs %s ratio CI low (%%)' % (other, base)] == pytest.approx(100.0 + column.change_low)
    assert not any(name.endswith('vs %s (%%)' % base) for name in columns)
    assert any(note.startswith('Ratio: configuration / its baseline x 100') for note in report.summary_notes())
    view = text.render(report)
    assert '%.1f%% of %s' % (ratio, base) in view and 'Ratio (%) to the baseline' in view
    # the change form is the default and unchanged
    plain = tables.Report(store.ResultFiles([STOCK, TUNED]))
    assert dict(zip(plain.summary_columns(), plain.summary_rows()[0]))['%s vs %s (%%)' % (other, base)] == \
        pytest.approx(ratio - 100.0)


def test_ratio_form_in_the_workbook(tmp_path):
    openpyxl = pytest.importorskip('openpyxl')
    report, result = build.build_report([STOCK, TUNED], workbook_path=str(tmp_path / 'r.xlsx'), form='ratio')
    book = openpyxl.load_workbook(result['workbook'])
    test = report.tests[0]
    other = report.others[0]
    sheet = book[book.sheetnames[1]]
    rows = [[cell.value for cell in row] for row in sheet.iter_rows()]
    header = next(index for index, row in enumerate(rows) if row[:2] == ['Comparison', 'Ratio (%)'])
    assert rows[header + 1][1] == pytest.approx(test.by_label[other].ratio_percent)
    assert sheet.cell(row=header + 2, column=2).number_format == '0.0"%"'


def test_a_bad_form_is_refused():
    with pytest.raises(ValueError, match="form must be one of change, ratio, got 'share'"):
        tables.Report(store.RecordList([]), form='share')


def test_the_osv_study_reports_in_the_seeds_ratio_form():
    import yaml
    path = os.path.join(os.path.dirname(__file__), '..', '..', '..', '..', 'playbooks', 'studies', 'osv-netperf.yml')
    with open(path) as handle:
        plays = yaml.safe_load(handle)
    forms = dict((play['ansible.builtin.import_playbook'], (play.get('vars') or {}).get('perflab_report_form'))
                 for play in plays)
    # the report and the benchmark stages (whose callback writes the run's own workbook) show B/A
    assert forms['../report.yml'] == 'ratio' and forms['../stages/benchmark.yml'] == 'ratio'
