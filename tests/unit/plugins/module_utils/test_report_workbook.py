# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""The workbook, read back with openpyxl (and converted by LibreOffice when it is installed)."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json
import os
import re
import shutil
import statistics
import subprocess

import pytest

openpyxl = pytest.importorskip('openpyxl')

from ansible_collections.perflab.network.plugins.module_utils.report import build, store, tables, text, workbook  # noqa: E402

FIXTURES = os.path.join(os.path.dirname(__file__), '..', '..', 'fixtures', 'results')
STOCK = os.path.join(FIXTURES, 'stock.jsonl')
TUNED = os.path.join(FIXTURES, 'tuned.jsonl')
TRUNCATED = os.path.join(FIXTURES, 'truncated.jsonl')


def results_of(*paths):
    records = []
    for path in paths:
        with open(path) as handle:
            records.extend(obj for obj in (json.loads(line) for line in handle if line.strip())
                           if obj['schema'] == 'perflab.result/1')
    return records


def no_value(records, test_id, config):
    """What a value cell shows without a successful run: 'failed' if one failed, else 'skipped'."""
    return 'failed' if any(r['test_id'] == test_id and r['config'] == config and r['status'] == 'failed'
                           for r in records) else 'skipped'


def ok_values(records, test_id, config):
    return [r['metrics'][r['primary']]['value'] for r in records
            if r['test_id'] == test_id and r['config'] == config and r['status'] == 'ok']


@pytest.fixture(scope='module')
def merged(tmp_path_factory):
    """The stock and the tuned run merged side by side."""
    path = str(tmp_path_factory.mktemp('wb') / 'merged.xlsx')
    report, result = build.build_report([STOCK, TUNED], workbook_path=path)
    return report, result, openpyxl.load_workbook(path)


def test_sheets_in_order_with_valid_unique_names(merged):
    report, result, wb = merged
    names = wb.sheetnames
    assert names[0] == 'Summary'
    assert names[-3:] == ['Systems', 'Intervals', 'Raw']
    assert len(names) == len(report.tests) + 4
    assert names == result['sheets']
    assert len(set(name.lower() for name in names)) == len(names)
    assert all(len(name) <= 31 and not set(name) & set('[]:*?/\\') for name in names)
    assert 'iPerf 3.12 - TCP - Parallel 5' in names


def test_summary_sheet_values_formats_and_marks(merged):
    report, _result, wb = merged
    records = results_of(STOCK, TUNED)
    ws = wb['Summary']
    header = [cell.value for cell in ws[1]]
    assert header == report.summary_columns()
    assert header[5:7] == ['Debian 12 stock', 'Debian 12 tuned']      # two runs side by side
    assert ws.freeze_panes == 'B2'
    assert ws.auto_filter.ref == 'A1:%s%d' % (openpyxl.utils.get_column_letter(len(header)), len(report.tests) + 1)
    change_at = header.index('Debian 12 tuned vs Debian 12 stock (%)')
    p_at = header.index('Debian 12 tuned vs Debian 12 stock p')
    rows = {}
    for row in ws.iter_rows(min_row=2, max_row=len(report.tests) + 1):
        rows[row[1].value] = row
    assert list(rows) == [test.test_id for test in report.tests]
    for test_id, row in rows.items():
        stock = ok_values(records, test_id, 'Debian 12 stock')
        tuned = ok_values(records, test_id, 'Debian 12 tuned')
        assert row[5].value == (pytest.approx(statistics.mean(stock)) if stock
                                else no_value(records, test_id, 'Debian 12 stock'))
        assert row[6].value == (pytest.approx(statistics.mean(tuned)) if tuned
                                else no_value(records, test_id, 'Debian 12 tuned'))
        if stock and tuned:
            change = (statistics.mean(tuned) - statistics.mean(stock)) / statistics.mean(stock) * 100
            assert row[change_at].value == pytest.approx(change)
            assert row[change_at].number_format == workbook.FORMAT_CHANGE
            # the best value is bold with a fill, the other is not
            first = [r for r in records if r['test_id'] == test_id and r['status'] == 'ok'][0]
            higher = first['metrics'][first['primary']]['higher_is_better']
            best_is_tuned = (statistics.mean(tuned) > statistics.mean(stock)) == higher
            best, other = (row[6], row[5]) if best_is_tuned else (row[5], row[6])
            assert best.font.b and best.fill.fgColor.rgb.endswith('C6EFCE')
            assert not other.font.b
        assert row[5].number_format == workbook.FORMAT_VALUE or row[5].value in ('failed', 'skipped')
    skipped = rows['netperf/UDP_STREAM'][6]
    assert skipped.value == 'skipped' and skipped.font.i and not skipped.font.color.rgb.endswith('9C0006')
    holm_at = header.index('Debian 12 tuned vs Debian 12 stock p (Holm)')
    verdict_at = header.index('Debian 12 tuned vs Debian 12 stock verdict')
    assert header[change_at:verdict_at + 1] == ['Debian 12 tuned vs Debian 12 stock %s' % suffix
                                                for suffix in tables.COMPARISON_SUFFIXES]
    tcp_rr = rows['netperf/TCP_RR']
    assert tcp_rr[p_at].value < 0.05
    assert tcp_rr[p_at].number_format == workbook.FORMAT_P
    # only the verdict (significant after Holm) is coloured: the change, p (Holm) and the verdict, not the raw p
    assert tcp_rr[verdict_at].value == 'better' and tcp_rr[holm_at].value < 0.05
    for cell in (tcp_rr[change_at], tcp_rr[holm_at], tcp_rr[verdict_at]):
        assert cell.fill.fgColor.rgb.endswith('C6EFCE')
    assert tcp_rr[p_at].fill.patternType is None
    assert tcp_rr[change_at + 1].value < tcp_rr[change_at].value < tcp_rr[change_at + 2].value   # inside its CI
    # the latency test: p < 0.05 raw, but 2 runs a side: too noisy, no colour
    latency = rows['ethr/tcp_latency/threads=1']
    assert latency[p_at].value < 0.05 and latency[verdict_at].value == 'too noisy'
    assert all(cell.fill.patternType is None for cell in latency[change_at:verdict_at + 1])
    assert rows['nuttcp/tcp'][p_at].value is None                      # one run each: no test
    assert rows['nuttcp/tcp'][verdict_at].value == 'too noisy'
    notes = [ws.cell(row=number, column=1).value for number in range(len(report.tests) + 3, ws.max_row + 1)]
    assert any("Welch's two-sample t-test" in (note or '') and "Holm's step-down" in note for note in notes)
    assert any((note or '').startswith('Verdict: "too noisy" with fewer than 3') for note in notes)
    assert any('never averaged' in (note or '') for note in notes)


def test_test_sheets_title_units_statistics_and_bar_chart(merged):
    report, _result, wb = merged
    records = results_of(STOCK, TUNED)
    test = [t for t in report.tests if t.test_id == 'iperf3/tcp/parallel=5'][0]
    ws = wb['iPerf 3.12 - TCP - Parallel 5']
    assert ws['A1'].value == 'iPerf 3.12 - Duration: 10 Seconds - Test: TCP - Parallel: 5'
    assert ws['A2'].value == 'Mbit/s, higher is better'
    assert [cell.value for cell in ws[5]] == ['Configuration', 'Mean', '95% CI low', '95% CI high', 'Median', 'Stdev',
                                              'CV %', 'Min', 'Max', 'Runs', 'Failed', 'Skipped', 'Errors']
    assert ws.freeze_panes == 'B6'
    for number, config in ((6, 'Debian 12 stock'), (7, 'Debian 12 tuned')):
        values = ok_values(records, test.test_id, config)
        row = [cell.value for cell in ws[number]]
        assert row[0] == config
        assert row[1] == pytest.approx(statistics.mean(values))
        # 3 runs: mean -/+ t(0.975, 2) s / sqrt(3), t from the tables
        half = 4.302652729749462 * statistics.stdev(values) / 3 ** 0.5
        assert row[2] == pytest.approx(statistics.mean(values) - half) and row[3] == pytest.approx(
            statistics.mean(values) + half)
        assert row[4] == pytest.approx(statistics.median(values))
        assert row[5] == pytest.approx(statistics.stdev(values))
        assert row[7] == min(values) and row[8] == max(values)
        assert row[9] == len(values) and row[10] == 0 and row[11] == 0
    # the comparison below: the tuned run against its baseline
    width = len(workbook.TEST_COMPARISON_COLUMNS)
    assert [cell.value for cell in ws[9]][:width] == list(workbook.TEST_COMPARISON_COLUMNS)
    tuned = test.by_label['Debian 12 tuned']
    compared = [cell.value for cell in ws[10]][:width]
    assert compared == ['Debian 12 tuned vs Debian 12 stock (design sequential)', pytest.approx(tuned.change_percent),
                        pytest.approx(tuned.change_low), pytest.approx(tuned.change_high), pytest.approx(tuned.p_value),
                        pytest.approx(tuned.p_holm), tuned.verdict]
    assert ws['A11'].value.startswith('95 % confidence intervals') and ws['A12'].value.startswith('Verdict: ')
    assert 'minimum (none declared)' in ws['A12'].value
    charts = ws._charts
    assert len(charts) == 1
    chart = charts[0]
    assert isinstance(chart, openpyxl.chart.BarChart)
    assert chart.series[0].val.numRef.f == "'iPerf 3.12 - TCP - Parallel 5'!$B$6:$B$7"
    cats = chart.series[0].cat
    assert (cats.strRef or cats.numRef).f == "'iPerf 3.12 - TCP - Parallel 5'!$A$6:$A$7"


def test_failed_runs_show_in_their_test_sheet(merged):
    _report, _result, wb = merged
    ws = wb['iPerf 3.12 - TCP - Parallel 20']
    rows = dict((row[0].value, row) for row in ws.iter_rows(min_row=6, max_row=7))
    stock = rows['Debian 12 stock']
    assert stock[1].value is None and stock[9].value == 0 and stock[10].value == 2 and stock[11].value == 0
    assert stock[12].value == 'iperf3 timed out after 40 s'


def test_systems_sheet(merged):
    report, _result, wb = merged
    ws = wb['Systems']
    assert [cell.value for cell in ws[1]] == report.systems_columns()
    # the systems under test: lab1 (the client) of each configuration
    assert ws.max_row == 1 + len(report.systems_rows()) == 3
    header = [cell.value for cell in ws[1]]
    assert ws.cell(row=2, column=header.index('Processor') + 1).value.startswith('Intel Xeon')
    assert ws.cell(row=3, column=header.index('MTU') + 1).value == 9000  # Debian 12 tuned, lab1


def test_intervals_sheet_rows_and_line_charts(merged):
    report, result, wb = merged
    ws = wb['Intervals']
    assert [cell.value for cell in ws[1]] == report.interval_columns()
    assert ws.max_row == report.interval_rows + 1
    charts = ws._charts
    charted = [t for t in report.tests if any(r for r in results_of(STOCK, TUNED)
                                              if r['test_id'] == t.test_id and r['intervals'] and r['status'] == 'ok')]
    assert len(charts) == len(charted)
    assert all(isinstance(chart, openpyxl.chart.LineChart) for chart in charts)
    assert len(charts[0].series) == 2                    # stock and tuned
    bar_charts = sum(1 for t in report.tests if any(c.mean is not None for c in t.columns))
    assert result['charts'] == bar_charts + len(charts)


def test_raw_sheet_is_every_record_times_metric(merged):
    report, _result, wb = merged
    records = results_of(STOCK, TUNED)
    ws = wb['Raw']
    header = [cell.value for cell in ws[1]]
    for column in ('run_id', 'config', 'suite', 'test_id', 'tool', 'tool_version', 'test', 'protocol', 'direction',
                   'parallel', 'repetition', 'client', 'server', 'metric', 'value', 'unit', 'higher_is_better',
                   'status', 'error', 'started_at'):
        assert column in header
    assert ws.max_row - 1 == sum(max(1, len(r['metrics'])) for r in records)
    assert ws.freeze_panes == 'A2'
    index = dict((name, number) for number, name in enumerate(header))
    got = [(row[index['test_id']], row[index['config']], row[index['repetition']], row[index['metric']],
            row[index['value']], row[index['status']])
           for row in ws.iter_rows(min_row=2, values_only=True)]
    expected = []
    for r in records:
        if not r['metrics']:
            expected.append((r['test_id'], r['config'], r['repetition'], None, None, r['status']))
        for name, metric in r['metrics'].items():
            expected.append((r['test_id'], r['config'], r['repetition'], name, metric['value'], r['status']))
    assert got == expected


def test_a_file_cut_mid_line_still_yields_a_workbook(tmp_path):
    path = str(tmp_path / 'cut.xlsx')
    report, result = build.build_report([TRUNCATED], workbook_path=path)
    wb = openpyxl.load_workbook(path)
    assert [problem['line'] for problem in result['overview']['problems']] == [7]   # the cut line
    notes = [row[0].value for row in wb['Summary'].iter_rows(min_row=2) if row[0].value]
    assert any('truncated.jsonl:7' in note for note in notes)
    assert wb['Raw'].max_row > 1


def test_sheet_name_rules():
    used = ['Summary', 'Systems', 'Intervals', 'Raw']
    assert workbook.sheet_name('iPerf 3.12 - TCP - Parallel: 5', used) == 'iPerf 3.12 - TCP - Parallel 5'
    assert workbook.sheet_name('iPerf 3.12 - Duration: 60 Seconds - Test: UDP - 1000 Mbit Objective - Parallel: 5',
                               used) == 'iPerf UDP 1000M P 5'
    long_title = 'Ethr 1.0.0 - TCP - Connections/s - Threads: 64'
    name = workbook.sheet_name(long_title, used)
    assert len(name) <= 31 and '/' not in name and ':' not in name
    assert workbook.sheet_name('Raw', used) != 'Raw'
    taken = used + [name]
    second = workbook.sheet_name(long_title, taken)
    assert second != name and len(second) <= 31
    names = set()
    for number in range(40):
        names.add(workbook.sheet_name('A very long test title that is the same - Threads: 64', list(names)))
    assert len(names) == 40 and all(len(n) <= 31 for n in names)


def test_sheet_rows_stop_at_the_excel_limit(tmp_path, monkeypatch):
    monkeypatch.setattr(workbook, 'MAX_SHEET_ROWS', 11)
    path = str(tmp_path / 'limited.xlsx')
    report = tables.Report(store.ResultFiles([STOCK]))
    info = workbook.write_workbook(report, path)
    wb = openpyxl.load_workbook(path)
    assert sorted(info['truncated']) == ['Intervals', 'Raw']
    assert wb['Raw'].max_row == 11
    assert 'Truncated' in [cell.value for cell in wb['Raw'][1]][-1]


SOFFICE = shutil.which('soffice') or shutil.which('libreoffice')


@pytest.mark.skipif(SOFFICE is None, reason='LibreOffice (soffice) is not installed: apt-get install libreoffice-calc-nogui')
def test_libreoffice_converts_the_workbook_to_pdf(merged, tmp_path):
    _report, result, _wb = merged
    profile = tmp_path / 'profile'
    completed = subprocess.run(
        [SOFFICE, '--headless', '--norestore', '-env:UserInstallation=file://%s' % profile,
         '--convert-to', 'pdf', '--outdir', str(tmp_path), result['workbook']],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=300, check=False)
    assert completed.returncode == 0, completed.stderr
    pdf = tmp_path / (os.path.splitext(os.path.basename(result['workbook']))[0] + '.pdf')
    assert pdf.exists(), completed.stdout + completed.stderr
    content = pdf.read_bytes()
    assert content.startswith(b'%PDF')
    assert content.count(b'/Type /Page') + content.count(b'/Type/Page') > len(result['sheets'])


def _broken_copy(tmp_path):
    """stock.jsonl with one failed record's error full of control characters and one record whose config is a dict."""
    lines = open(STOCK).read().splitlines()
    records = [json.loads(line) for line in lines if line.strip()]
    first = next(i for i, r in enumerate(records) if r['schema'].startswith('perflab.result'))
    bad = dict(records[first], status='failed', error='iperf3: error - \x1b[31mcontrol\x00 chars\x07', test_id='x/y/z=1')
    dict_config = dict(records[first], config={'a': 1})
    path = tmp_path / 'broken.jsonl'
    path.write_text('\n'.join(lines + [json.dumps(bad), json.dumps(dict_config)]) + '\n')
    return str(path), len(lines) + 2


def test_control_characters_and_a_malformed_record_do_not_break_the_report(tmp_path):
    source, bad_line = _broken_copy(tmp_path)
    path = str(tmp_path / 'clean.xlsx')
    dummy, result = build.build_report([source], workbook_path=path)
    wb = openpyxl.load_workbook(path)
    assert [(p['line'], p['error']) for p in result['overview']['problems']] == \
        [(bad_line, 'field config must be a string, got dict, line skipped')]
    errors = [cell.value for row in wb['Raw'].iter_rows() for cell in row
              if isinstance(cell.value, str) and 'control' in cell.value]
    assert errors and all('\ufffd' in value and '\x00' not in value and '\x07' not in value for value in errors)
    assert workbook.clean_cell('a\x00b\tc\n') == 'a\ufffdb\tc\n' and workbook.clean_cell(5) == 5


# --- printing and the text views, on a realistic multi-configuration study ------------------------------
PDFTOTEXT = shutil.which('pdftotext')
STUDY_LABELS = ['Ubuntu 18.04 stock', 'Ubuntu 18.10 tuned-latency', 'Server 1 CentOS 7.9 stock',
                'Clear Linux 27000 stock', 'Scientific 7.6 tuned-latency']


@pytest.fixture(scope='module')
def study(tmp_path_factory):
    """Five OS configurations (the seeds' article shape) over a 10 Gbit/s link, from the stock and tuned runs:
    every test, failed and skipped runs, % of link; written by build_report as the callback does."""
    directory = tmp_path_factory.mktemp('study')
    lines = []
    for index, label in enumerate(STUDY_LABELS):
        with open(STOCK if index % 2 == 0 else TUNED) as handle:
            for line in handle:
                record = json.loads(line)
                record['config'], record['run_id'] = label, 'R%d' % index
                if record['schema'].startswith('perflab.result'):
                    record['client']['link_mbps'] = 10000.0
                    for metric in record['metrics'].values():
                        metric['value'] *= 1 - 0.03 * index
                lines.append(json.dumps(record))
    source = directory / 'study.jsonl'
    source.write_text('\n'.join(lines) + '\n')
    path = str(directory / 'study.xlsx')
    report, result = build.build_report([str(source)], workbook_path=path, views_stem=str(directory / 'study'))
    return report, result, openpyxl.load_workbook(path)


def _pdf_pages(workbook_path, tmp_path):
    """{sheet name: [(page text in layout, raw text, word heights)]}, each page found by its footer."""
    profile = tmp_path / 'profile'
    completed = subprocess.run(
        [SOFFICE, '--headless', '--norestore', '-env:UserInstallation=file://%s' % profile,
         '--convert-to', 'pdf', '--outdir', str(tmp_path), workbook_path],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=300, check=False)
    assert completed.returncode == 0, completed.stderr
    pdf = str(tmp_path / (os.path.splitext(os.path.basename(workbook_path))[0] + '.pdf'))
    count = int(re.search(r'^Pages:\s+(\d+)', subprocess.check_output(['pdfinfo', pdf]).decode(), re.M).group(1))
    pages = {}
    for number in range(1, count + 1):
        def text(*mode):
            return subprocess.check_output([PDFTOTEXT, '-f', str(number), '-l', str(number)] + list(mode)
                                           + [pdf, '-']).decode('utf-8')
        raw = text('-raw')
        sheet = re.search(r'^(.*) - page %d$' % number, raw, re.M).group(1)
        heights = [float(b) - float(a)
                   for a, b in re.findall(r'yMin="([\d.]+)" xMax="[\d.]+" yMax="([\d.]+)"', text('-bbox'))]
        pages.setdefault(sheet, []).append((text('-layout'), raw, heights))
    return pages


@pytest.mark.skipif(SOFFICE is None or PDFTOTEXT is None,
                    reason='LibreOffice (libreoffice-calc-nogui) and pdftotext (poppler-utils) are needed')
def test_every_sheet_prints_legibly(study, tmp_path):
    report, result, wb = study
    pages = _pdf_pages(result['workbook'], tmp_path)
    assert list(pages) == result['sheets']                     # every sheet prints, in order
    summary = wb['Summary']
    wide = summary.page_setup.fitToWidth
    # the Summary: several pages wide (35 columns cannot be read on one), one page down, every page legible
    assert summary.page_setup.orientation == 'landscape' and summary.page_setup.fitToHeight == 0
    assert summary.print_title_rows == '$1:$1' and summary.print_title_cols == '$A:$A'
    assert 2 <= wide <= 6 and len(pages['Summary']) == wide
    for layout, _raw, heights in pages['Summary']:
        # 11 pt text printed at 65 % or more: glyph boxes of 6.5 pt and up (at one page wide they were 3 pt)
        assert statistics.median(heights) >= 6.5
        # the Test column is repeated on every page, each title whole on one line
        for test in report.tests:
            assert test.title in layout
    # the "% of link" headers are whole, on one page with the Test column
    with_link = [raw for _layout, raw, _heights in pages['Summary']
                 if any('%s %% of link' % label in ' '.join(raw.split()) for label in STUDY_LABELS)]
    assert len(with_link) == 1
    words = ' '.join(with_link[0].split()).replace('- ', '-')      # a header wrapped after "tuned-"
    for label in STUDY_LABELS:
        assert '%s %% of link' % label in words
    for test in report.tests:
        assert test.title in with_link[0]
    # the comparisons' narrow columns print their whole names: which figure each is shows (4 comparisons)
    printed = ' '.join(' '.join(raw.split()) for _layout, raw, _heights in pages['Summary']).replace('- ', '-')
    for suffix in tables.COMPARISON_SUFFIXES:
        assert len(re.findall(r'Ubuntu 18\.04 stock %s(?! \()' % re.escape(suffix), printed)) == 4, suffix
    # a test sheet: its table, its other metrics and its chart on one legible page
    for name in result['sheets'][1:-3]:
        ws = wb[name]
        assert ws.page_setup.fitToWidth == 1 and len(pages[name]) == 1, name
        layout, raw, heights = pages[name][0]
        assert statistics.median(heights) >= 6.5
        assert ws['A1'].value in layout and '% of link' in layout
        assert all(label in layout for label in STUDY_LABELS)
    # the long sheets: their header row on every page (of the first page column), legible
    for name in ('Systems', 'Intervals', 'Raw'):
        ws = wb[name]
        assert ws.print_title_rows == '$1:$1' and ws.print_area
        header = [cell.value for cell in ws[1]]
        # the pages holding the first columns (a data row starts with its run id or configuration)
        rows_down = [raw for _layout, raw, _heights in pages[name] if re.search(r'^(R\d )?Ubuntu 18.04 stock \S', raw, re.M)]
        assert rows_down and all(header[0] in raw and header[1] in raw for raw in rows_down), name
        assert all(statistics.median(heights) >= 6.5 for _layout, _raw, heights in pages[name] if heights)
    assert len(pages['Raw']) > len(pages['Systems'])


def test_print_areas_cover_each_table_and_its_notes(study):
    report, _result, wb = study
    summary = wb['Summary']
    last = openpyxl.utils.get_column_letter(len(report.summary_columns()))
    notes = len(report.summary_notes())
    assert summary.print_area == "'Summary'!$A$1:$%s$%d" % (last, len(report.tests) + 2 + notes)
    raw = wb['Raw']
    assert raw.print_area == "'Raw'!$A$1:$%s$%d" % (openpyxl.utils.get_column_letter(len(report.raw_columns())),
                                                    raw.max_row)


def test_pages_wide_packs_columns_at_a_legible_scale():
    room = workbook.PRINT_PAGE_UNITS / workbook.PRINT_MIN_SCALE
    assert workbook.print_pages_wide([10] * 5) == 1
    assert workbook.print_pages_wide([room / 2] * 3) == 2
    # the repeated first column takes its room on every page
    assert workbook.print_pages_wide([room / 2] + [room / 4] * 4, title_cols=1) == 2
    assert workbook.print_pages_wide([room / 2] + [room / 4] * 5, title_cols=1) == 3
    assert workbook.print_pages_wide([room * 2]) == 1      # a column is never split


def _view_line(view, title, label):
    block = view.split('\n%s\n' % title, 1)[1]
    block = block.split('\n## ', 1)[0] if title.startswith('## ') else block.split('\n\n', 1)[0]
    return [line for line in block.splitlines() if line.startswith('  %s ' % label) or line.startswith('| %s |' % label)][0]


def test_text_and_markdown_views_match_the_workbook(study):
    report, result, wb = study
    text_path, markdown_path = result['views']
    assert text_path.endswith('study.txt') and markdown_path.endswith('study.md')
    with open(text_path) as handle:
        plain = handle.read()
    with open(markdown_path) as handle:
        markdown = handle.read()
    assert plain == result['summary']
    checked = 0
    for test in report.tests:
        ws = wb[result['sheets'][1 + report.tests.index(test)]]
        assert ws['A1'].value == test.title and ws['A2'].value == test.units_line
        assert '%s\n%s\n' % (test.title, test.units_line) in plain
        assert '## %s\n\n*%s*\n' % (test.title, test.units_line) in markdown
        header = [cell.value for cell in ws[5]]
        means = {}
        for row in ws.iter_rows(min_row=6, max_row=5 + len(STUDY_LABELS), values_only=True):
            label, mean, stdev, runs = row[0], row[1], row[header.index('Stdev')], row[header.index('Runs')]
            line, md_row = _view_line(plain, test.title, label), _view_line(markdown, '## ' + test.title, label)
            if mean is None:
                assert 'FAILED' in line or 'SKIPPED' in line
                assert 'FAILED' in md_row or 'SKIPPED' in md_row
                continue
            means[label] = mean
            spread = re.escape(text.format_value(stdev)) if stdev else ''
            assert re.search(r' %s( ± +%s)? \|#+' % (re.escape(text.format_value(mean)), spread), line)
            cells = [cell.strip() for cell in md_row.strip('|').split('|')]
            assert cells[1] == text.format_value(mean)
            assert cells[2] == (text.format_value(stdev) if runs > 1 else '')
            if header[-1] == '% of link' and row[-1] is not None:
                assert '[%.0f%% of 10000.00 Mbit/s link]' % row[-1] in line
            checked += 1
        # the bars: the largest value a full bar, the others in proportion
        largest = max(means.values())
        for label, mean in means.items():
            hashes = re.search(r'\|(#+)', _view_line(plain, test.title, label)).group(1)
            assert len(hashes) == max(1, int(round(text.BAR_WIDTH * mean / largest)))
    assert checked >= 30


def test_markdown_cells_escape_table_syntax():
    assert text._md('a | b\nc') == 'a \\| b c'


def test_an_interval_chart_shows_the_rate_its_samples_name(tmp_path):
    # a test whose samples are the sender's rate (iperf2, netperf TCP_STREAM, ethr UDP: #29.4, #29.5)
    # is charted on throughput_sent_mbps, not on another tool's throughput_mbps column left empty
    records = results_of(STOCK)
    sender = [r for r in records if r['status'] == 'ok' and r['intervals']
              and all('throughput_mbps' in s for s in r['intervals'])][0]
    for record in records:
        if record['test_id'] == sender['test_id']:
            record['intervals'] = [dict(('throughput_sent_mbps' if k == 'throughput_mbps' else k, v)
                                        for k, v in s.items()) for s in record['intervals']]
    source = tmp_path / 'sender.jsonl'
    source.write_text(''.join(json.dumps(r) + '\n' for r in records))
    path = str(tmp_path / 'sender.xlsx')
    report, _result = build.build_report([str(source)], workbook_path=path)
    charts = openpyxl.load_workbook(path)['Intervals']._charts
    titles = dict((chart.title.tx.rich.p[0].r[0].t, chart.y_axis.title.tx.rich.p[0].r[0].t) for chart in charts)
    test = [t for t in report.tests if t.test_id == sender['test_id']][0]
    assert titles['%s - per interval' % test.title] == 'throughput_sent_mbps'
    assert 'throughput_mbps' in titles.values()


def _parallel_records():
    """The parallel-netperf study's records (one process and 4 summed, NIC counters, common window), as
    test_common_window.py builds them from the real iperf3 capture of 4 processes."""
    import importlib.util
    spec = importlib.util.spec_from_file_location(
        'perflab_test_common_window', os.path.join(os.path.dirname(__file__), 'test_common_window.py'))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module._parallel_records()[0]


@pytest.mark.skipif(SOFFICE is None or PDFTOTEXT is None,
                    reason='LibreOffice (libreoffice-calc-nogui) and pdftotext (poppler-utils) are needed')
def test_the_parallel_sheet_prints_legibly(tmp_path):
    """Seed 004's table (the Parallel sheet, 16 columns): its pages as its print setup says, every page legible,
    its Test column on each, every header and figure whole."""
    from ansible_collections.perflab.network.plugins.module_utils.report import parallel
    records = _parallel_records()
    path = str(tmp_path / 'parallel.xlsx')
    report = tables.Report(store.RecordList(records))
    info = workbook.write_workbook(report, path)
    assert 'Parallel' in info['sheets']
    pages = _pdf_pages(path, tmp_path)
    assert list(pages) == info['sheets']
    ws = openpyxl.load_workbook(path)['Parallel']
    assert ws.page_setup.orientation == 'landscape' and ws.print_title_cols == '$A:$A'
    assert len(pages['Parallel']) == ws.page_setup.fitToWidth >= 1
    rows = parallel.rows(report)
    printed = ' '.join(' '.join(raw.split()) for _layout, raw, _heights in pages['Parallel']).replace('- ', '-')
    for _layout, raw, heights in pages['Parallel']:
        assert statistics.median(heights) >= 6.5
        assert all(row[0] in raw for row in rows)     # the Test column repeated on every page, each title whole
    for name in parallel.COLUMNS:
        assert name in printed, name
    assert all(row[1] in printed for row in rows)     # each test id whole
    four = dict(zip(parallel.COLUMNS, rows[1]))
    for name in ('Each process (Mbit/s)',):
        assert four[name] in printed
    for name in ('NIC 1-s peak (Mbit/s)', 'NIC peak % of link', 'Sum over the common window (Mbit/s)'):
        assert ('%.2f' % four[name] if not name.endswith('% of link') else '%.1f' % four[name]) in printed, name
