# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The workbook: Summary, one sheet per test, a fleet matrix per test of a fleet (report/matrix.py), Systems,
Intervals, Raw.

Written with openpyxl in write-only mode: each sheet streams to its own
temporary file, so the Raw and Intervals sheets (a row per record x metric,
a row per sample) cost no memory however long the study. Charts work in
write-only mode (``add_chart`` keeps them until the sheet is closed); column
widths, frozen panes and number formats must be set before a sheet's first
row, the autofilter range may be set at any time before saving.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os
import re
import tempfile
import traceback

try:
    from openpyxl import Workbook
    from openpyxl.cell import WriteOnlyCell
    from openpyxl.chart import BarChart, LineChart, Reference
    from openpyxl.chart.label import DataLabelList
    from openpyxl.chart.series import SeriesLabel
    from openpyxl.styles import Alignment, Font, PatternFill
    from openpyxl.formatting.rule import ColorScaleRule
    from openpyxl.utils import get_column_letter
    HAS_OPENPYXL = True
    OPENPYXL_IMPORT_ERROR = None
except ImportError:
    HAS_OPENPYXL = False
    OPENPYXL_IMPORT_ERROR = traceback.format_exc()

from ansible_collections.perflab.network.plugins.module_utils.report import matrix, parallel, stats, tables
from ansible_collections.perflab.network.plugins.module_utils.report.tables import MAX_SHEET_ROWS

FIXED_SHEETS = ('Summary', 'Parallel', 'Systems', 'Intervals', 'Raw')
SHEET_NAME_MAX = 31
# one line chart per test on the Intervals sheet, up to this many tests
MAX_INTERVAL_CHARTS = 40
# the Intervals sheet's line charts: size in cm, rows from one to the next
CHART_HEIGHT_CM = 7.5
CHART_WIDTH_CM = 18.0
INTERVAL_CHART_ROWS = 16

FORMAT_VALUE = '#,##0.00'
FORMAT_CHANGE = '+0.0"%";-0.0"%";0.0"%"'
FORMAT_P = '0.0000'
FORMAT_PERCENT = '0.00'
FORMAT_COUNT = '0'

# a test sheet's table of configurations, and of comparisons below it
TEST_COLUMNS = ('Configuration', 'Mean', '95% CI low', '95% CI high', 'Median', 'Stdev', 'CV %', 'Min', 'Max', 'Runs',
                'Failed', 'Skipped', 'Errors')
# (a comparison names both configurations in its wrapped first cell; its verdict, last, runs on into the empty
# cells right of it)
TEST_COMPARISON_COLUMNS = ('Comparison', 'Change (%)', 'Change CI low (%)', 'Change CI high (%)', 'p (Welch)',
                           'p (Holm)', 'Verdict')
# the same in the ratio form (tables.FORMS): the configuration as a share of its baseline
TEST_RATIO_COLUMNS = ('Comparison', 'Ratio (%)', 'Ratio CI low (%)', 'Ratio CI high (%)', 'p (Welch)',
                      'p (Holm)', 'Verdict')
# a ratio: 104.0 %
FORMAT_RATIO = '0.0"%"'
# the legend under it, one line each (a page wide; the Summary's notes say it all)
TEST_LEGEND = ("95 %% confidence intervals. p (Holm): Welch's p adjusted by Holm's method over every test of this "
               "comparison.",
               'Verdict: better/worse when p (Holm) < %(level).2f, the change is at least the minimum (%(minimum)s) and '
               'its interval not wider than it; too noisy below %(runs)d runs a side.')

# the Summary's columns of one comparison (tables.COMPARISON_SUFFIXES): change, CI low, CI high, p, p (Holm), verdict
# (the verdict one line wide: "no significant change"); the most lines the Summary's header row wraps into
SUMMARY_HEADER_LINES = 12
COMPARISON_WIDTHS = (10, 9, 9, 8, 8, 20)

_INVALID_SHEET_CHARS = re.compile(r'[\[\]\*\?/\\:]')

_RAW_WIDTHS = {
    'run_id': 22, 'config': 22, 'suite': 12, 'test_id': 28, 'tool': 9, 'tool_version': 12,
    'test': 12, 'protocol': 9, 'direction': 17, 'parallel': 9, 'repetition': 11, 'client': 14,
    'server': 14, 'metric': 22, 'value': 14, 'unit': 9, 'higher_is_better': 16, 'primary': 9,
    'status': 9, 'error': 40, 'started_at': 25,
}


# characters a worksheet cell cannot hold (control characters of a tool's error text): shown as U+FFFD
_ILLEGAL_RE = re.compile(r'[\x00-\x08\x0b\x0c\x0e-\x1f]')


def clean_cell(value):
    """``value`` as a cell may hold it: a string without the control characters openpyxl refuses."""
    if isinstance(value, str) and _ILLEGAL_RE.search(value):
        return _ILLEGAL_RE.sub('\ufffd', value)
    return value


def cleaning(ws):
    """``ws`` whose ``append`` cleans every plain value of a row (cells are cleaned when made)."""
    append = ws.append

    def clean_append(row):
        append([clean_cell(value) for value in row])
    ws.append = clean_append
    return ws


class _Styles(object):
    """Style objects built once (openpyxl interns them, building them per cell is slow)."""

    def __init__(self):
        self.title = Font(bold=True, size=14)
        self.bold = Font(bold=True)
        self.italic = Font(italic=True, color='595959')
        self.failed_font = Font(color='9C0006')
        self.skipped_font = Font(italic=True, color='7F7F7F')
        self.header_fill = PatternFill('solid', fgColor='D9D9D9')
        self.best_fill = PatternFill('solid', fgColor='C6EFCE')
        self.better_fill = PatternFill('solid', fgColor='C6EFCE')
        self.worse_fill = PatternFill('solid', fgColor='FFC7CE')
        self.wrap = Alignment(wrap_text=True, vertical='top')


# printing: the usable width of a landscape page (Letter, the narrower of Letter and A4, with these margins)
# in column-width units (one unit is about 7 px of 96 dpi), and the smallest scale that stays legible
PRINT_MARGIN_IN = 0.4
PRINT_PAGE_UNITS = ((11.0 - 2 * PRINT_MARGIN_IN) * 96 - 5) / 7.0
PRINT_MIN_SCALE = 0.65
# the Errors column of a test sheet (its text wraps)
ERRORS_WIDTH = 30
# a row of the default height, in cm (charts are sized in cm; print areas count rows)
ROW_CM = 0.53
# the width of a column openpyxl leaves unset, in cm (charts right of a table)
DEFAULT_COLUMN_CM = 1.7


def print_pages_wide(widths, title_cols=0):
    """How many pages wide a sheet of these column ``widths`` prints at PRINT_MIN_SCALE or more: its
    columns packed page by page (a column is never split), the first ``title_cols`` repeated on each."""
    room = PRINT_PAGE_UNITS / PRINT_MIN_SCALE
    repeated = sum(widths[:title_cols])
    pages, used = 1, repeated
    for width in widths[title_cols:]:
        if used + width > room and used > repeated:
            pages += 1
            used = repeated
        used += width
    return pages


def require_openpyxl():
    if not HAS_OPENPYXL:
        raise RuntimeError('openpyxl is required to write workbooks (pip install openpyxl): %s'
                           % OPENPYXL_IMPORT_ERROR)


def sheet_name(title, used):
    """A valid, unique (case-insensitive) sheet name of at most 31 characters for ``title``.

    Characters Excel refuses (``[]*?/\\:``) are dropped ('/' becomes '-'); a title
    too long loses its duration and parameter names ("Test:", "Protocol:"), then its version,
    then its separators, then its tail. A1 of the sheet holds the whole title.
    """
    def clean(text):
        text = _INVALID_SHEET_CHARS.sub(lambda match: '-' if match.group(0) == '/' else '', text)
        return re.sub(r'\s+', ' ', text).strip().strip("'") or 'Test'

    candidates = [clean(title)]
    parts = title.split(' - ')
    if len(parts) > 1:
        # drop the version from the tool part: 'iPerf 3.12' -> 'iPerf'
        tool = re.sub(r'\s+\S*\d\S*$', '', parts[0])
        # the duration is the same for most tests of a study; "Test:" and "Protocol:" name nothing
        rest = [re.sub(r'^(Test|Protocol): ', '', part) for part in parts[1:] if not re.match(r'^Duration: ', part)]
        candidates.append(clean(' - '.join([parts[0]] + rest)))
        shorter = [tool] + parts[1:]
        candidates.append(clean(' - '.join(shorter)))
        bare = [tool] + rest
        candidates.append(clean(' - '.join(bare)))
        compact = ' '.join(bare)
        compact = compact.replace('Parallel:', 'P').replace('Threads:', 'T').replace(' Mbit Objective', 'M')
        candidates.append(clean(compact))
    lowered = set(name.lower() for name in used)
    for candidate in candidates:
        if len(candidate) <= SHEET_NAME_MAX and candidate.lower() not in lowered:
            return candidate
    base = candidates[-1]
    for number in range(1, 100000):
        suffix = '' if number == 1 else ' (%d)' % number
        name = base[:SHEET_NAME_MAX - len(suffix)].rstrip() + suffix
        if name.lower() not in lowered:
            return name
    raise ValueError('no free sheet name for %r' % title)


class WorkbookWriter(object):
    """Writes a ``tables.Report`` to an .xlsx file."""

    def __init__(self, report, intervals=True):
        require_openpyxl()
        self.report = report
        self.intervals = intervals
        self.styles = _Styles()
        self.sheet_names = {}   # test_id -> sheet name
        self.info = {'sheets': [], 'charts': 0, 'truncated': []}
        self._column_widths = {}

    # -- helpers ----------------------------------------------------------
    def _cell(self, ws, value, font=None, fill=None, number_format=None, alignment=None):
        cell = WriteOnlyCell(ws, value=clean_cell(value))
        if font is not None:
            cell.font = font
        if fill is not None:
            cell.fill = fill
        if number_format is not None:
            cell.number_format = number_format
        if alignment is not None:
            cell.alignment = alignment
        return cell

    def _header(self, ws, names, row=1, max_lines=6):
        # a wrapped header needs its row height set: spreadsheet apps do not grow it on open
        widths = self._column_widths.get(ws.title, [])
        lines = 1
        for index, name in enumerate(names):
            width = widths[index] if index < len(widths) else 12
            lines = max(lines, -(-len(str(name)) // max(1, int(width) - 2)))
        if lines > 1:
            ws.row_dimensions[row].height = 14 * min(lines, max_lines)
        return [self._cell(ws, name, font=self.styles.bold, fill=self.styles.header_fill,
                           alignment=self.styles.wrap) for name in names]

    def _print_setup(self, ws, title_rows=None, title_cols=0):
        """Landscape, as many pages wide as the columns need at a legible scale (print_pages_wide), as many
        pages down as the rows need, the header rows (``title_rows``, e.g. '1:1') and the first ``title_cols``
        columns repeated on every page, the sheet's name and page number in the footer."""
        widths = self._column_widths.get(ws.title, [])
        ws.page_setup.orientation = 'landscape'
        ws.page_setup.fitToWidth = print_pages_wide(widths, title_cols)
        ws.page_setup.fitToHeight = 0     # 0: as many pages down as needed (never squeezed to one page)
        ws.sheet_properties.pageSetUpPr.fitToPage = True
        ws.page_margins.left = ws.page_margins.right = PRINT_MARGIN_IN
        if title_rows:
            ws.print_title_rows = title_rows
        if title_cols:
            ws.print_title_cols = 'A:%s' % get_column_letter(title_cols)
        ws.oddFooter.center.text = '&A - page &P'

    @staticmethod
    def _print_area(ws, columns, rows):
        ws.print_area = 'A1:%s%d' % (get_column_letter(max(1, columns)), max(1, rows))

    def _widths(self, ws, widths):
        self._column_widths[ws.title] = list(widths)
        for index, width in enumerate(widths, 1):
            ws.column_dimensions[get_column_letter(index)].width = width

    # -- write ------------------------------------------------------------
    def write(self, path):
        """Write the workbook to ``path`` (atomically: a temporary file renamed over it)."""
        report = self.report
        wb = Workbook(write_only=True)
        wb.properties.title = report.title
        wb.properties.creator = 'perflab.network'
        used = list(FIXED_SHEETS)
        for test in report.tests:
            self.sheet_names[test.test_id] = sheet_name(test.title, used)
            used.append(self.sheet_names[test.test_id])

        matrices = report.matrices()
        matrix_names = []
        for m in matrices:
            matrix_names.append(sheet_name('Matrix %s' % m['test_id'], used))
            used.append(matrix_names[-1])

        # sheets appear in creation order; each streams to its own temporary file
        summary = cleaning(wb.create_sheet('Summary'))
        test_sheets = [(test, cleaning(wb.create_sheet(self.sheet_names[test.test_id]))) for test in report.tests]
        matrix_sheets = [(m, cleaning(wb.create_sheet(name))) for m, name in zip(matrices, matrix_names)]
        parallel_rows = parallel.rows(report)
        # the parallel-netperf seed's table, where a test ran several processes (report.parallel)
        parallel_sheet = cleaning(wb.create_sheet('Parallel')) if parallel_rows else None
        systems = cleaning(wb.create_sheet('Systems'))
        intervals = cleaning(wb.create_sheet('Intervals')) if self.intervals else None
        raw = cleaning(wb.create_sheet('Raw'))

        self._write_summary(summary)
        for test, ws in test_sheets:
            self._write_test(ws, test)
        for m, ws in matrix_sheets:
            self._write_matrix(ws, m)
        if parallel_sheet is not None:
            self._write_parallel(parallel_sheet, parallel_rows)
        self._write_systems(systems)
        if intervals is not None:
            self._write_intervals(intervals)
        self._write_raw(raw)
        self.info['sheets'] = [ws.title for ws in wb.worksheets]

        directory = os.path.dirname(os.path.abspath(path))
        fd, temporary = tempfile.mkstemp(prefix='.%s.' % os.path.basename(path), suffix='.tmp', dir=directory)
        os.close(fd)
        try:
            wb.save(temporary)
            os.chmod(temporary, 0o644)
            os.replace(temporary, path)
        except BaseException:
            if os.path.exists(temporary):
                os.unlink(temporary)
            raise
        self.info['path'] = path
        return self.info

    def _write_summary(self, ws):
        report = self.report
        styles = self.styles
        columns = report.summary_columns()
        count = len(report.columns)
        others = report.others
        first_mean = 6
        first_change = first_mean + count
        per_comparison = len(tables.COMPARISON_SUFFIXES)
        first_runs = first_change + per_comparison * len(others)
        # the Test column as wide as the longest title (a title cut by the next cell names nothing)
        test_width = max([len(test.title) + 2 for test in report.tests] + [20])
        # value columns narrow enough that a page holds several (their long headers wrap)
        widths = [min(test_width, 90), 28, 20, 9, 8] + [14] * count + list(COMPARISON_WIDTHS) * len(others) \
            + [9] * (3 * count)
        self._widths(ws, widths + [10] * (len(columns) - len(widths)))
        ws.freeze_panes = 'B2'
        self._print_setup(ws, title_rows='1:1', title_cols=1)
        # a comparison's narrow columns are named in full ("<configuration> vs <baseline> CI low (%)"): as many
        # lines as that takes, so that the part saying which figure it is shows
        ws.append(self._header(ws, columns, max_lines=SUMMARY_HEADER_LINES))
        rows = report.summary_rows()
        for test, row in zip(report.tests, rows):
            cells = []
            for index, value in enumerate(row, 1):
                if index < first_mean:
                    cells.append(value)
                elif index < first_change:
                    column = test.columns[index - first_mean]
                    if value == 'failed':
                        cells.append(self._cell(ws, value, font=styles.failed_font))
                    elif value == 'skipped':
                        cells.append(self._cell(ws, value, font=styles.skipped_font))
                    elif column.best and count > 1:
                        cells.append(self._cell(ws, value, font=styles.bold, fill=styles.best_fill,
                                                number_format=FORMAT_VALUE))
                    else:
                        cells.append(self._cell(ws, value, number_format=FORMAT_VALUE))
                elif index < first_runs:
                    offset, kind = divmod(index - first_change, per_comparison)
                    cells.append(self._comparison_cell(ws, test.by_label[others[offset]], kind, value))
                elif index > len(row) - len(test.columns) and report.link_known:
                    cells.append(self._cell(ws, value, number_format=FORMAT_PERCENT))
                else:
                    cells.append(value)
            ws.append(cells)
        if rows:
            ws.auto_filter.ref = 'A1:%s%d' % (get_column_letter(len(columns)), len(rows) + 1)
        ws.append([])
        notes = report.summary_notes()
        per_line = max(10, int(widths[0]) - 4)
        for number, note in enumerate(notes, len(rows) + 3):
            # wrapped in the Test column (a note spilling into the next columns would be cut where a page
            # ends), its height set: spreadsheet apps do not grow a row on open
            ws.row_dimensions[number].height = 15 * (-(-len(note) // per_line))
            ws.append([self._cell(ws, note, font=styles.italic, alignment=styles.wrap)])
        self._print_area(ws, len(columns), len(rows) + 2 + len(notes))

    def _verdict_fill(self, column):
        """Green or red for a verdict of better or worse (significant after Holm's correction), else none."""
        if not column.flagged:
            return None
        return self.styles.better_fill if column.verdict == stats.BETTER else self.styles.worse_fill

    def _comparison_cell(self, ws, column, kind, value):
        """The cell of a comparison's ``kind``-th value (tables.COMPARISON_SUFFIXES: change, its interval's low and
        high, p, p (Holm), verdict); the change, p (Holm) and the verdict coloured by the verdict."""
        fill = self._verdict_fill(column) if kind in (0, 4, 5) else None
        if kind == 5:
            return self._cell(ws, value, fill=fill)
        change = FORMAT_RATIO if self.report.form == 'ratio' else FORMAT_CHANGE
        return self._cell(ws, value, fill=fill, number_format=change if kind < 3 else FORMAT_P)

    def _write_test(self, ws, test):
        styles = self.styles
        report = self.report
        header = list(TEST_COLUMNS)
        # one landscape page wide at a legible scale: long errors wrap in their column
        widths = [30, 12, 12, 12, 12, 12, 8, 12, 12, 6, 7, 8, ERRORS_WIDTH]
        if report.link_known:
            header += ['Link Mbit/s', '% of link']
            widths += [10, 9]
        self._widths(ws, widths)
        ws.freeze_panes = 'B6'
        self._print_setup(ws, title_rows='5:5')
        ws.append([self._cell(ws, test.title, font=styles.title)])
        ws.append([self._cell(ws, test.units_line, font=styles.bold)])
        ws.append([self._cell(ws, 'Test ID: %s - metric: %s - %s'
                              % (test.test_id, test.metric, report.compare_text()), font=styles.italic)])
        ws.append([])
        ws.append(self._header(ws, header, row=5))
        header_row = 5
        present = [column for column in test.columns if column.present]
        for number, column in enumerate(present, header_row + 1):
            summary = column.summary
            errors = '; '.join(column.errors)
            if len(errors) > ERRORS_WIDTH - 2:
                ws.row_dimensions[number].height = 15 * min(6, -(-len(errors) // (ERRORS_WIDTH - 2)))
            best = column.best and len(present) > 1
            ws.append([
                self._cell(ws, column.label, font=styles.bold if best else None),
                self._cell(ws, summary['mean'], font=styles.bold if best else None,
                           fill=styles.best_fill if best else None, number_format=FORMAT_VALUE),
                self._cell(ws, column.ci_low, number_format=FORMAT_VALUE),
                self._cell(ws, column.ci_high, number_format=FORMAT_VALUE),
                self._cell(ws, summary['median'], number_format=FORMAT_VALUE),
                self._cell(ws, summary['stdev'], number_format=FORMAT_VALUE),
                self._cell(ws, summary['cv_percent'], number_format=FORMAT_PERCENT),
                self._cell(ws, summary['min'], number_format=FORMAT_VALUE),
                self._cell(ws, summary['max'], number_format=FORMAT_VALUE),
                column.runs,
                column.failed,
                column.skipped,
                self._cell(ws, errors or None, font=styles.failed_font if column.errors else None,
                           alignment=styles.wrap if errors else None),
            ] + ([self._cell(ws, column.link_mbps, number_format=FORMAT_VALUE),
                  self._cell(ws, column.link_percent, number_format=FORMAT_PERCENT)] if report.link_known else []))
        last_row = header_row + len(present)
        if present:
            ws.auto_filter.ref = 'A%d:%s%d' % (header_row, get_column_letter(len(header)), last_row)
        row = last_row
        compared = [column for column in present if column.baseline is not None]
        if compared:
            ws.append([])
            ws.append(self._header(ws, list(TEST_RATIO_COLUMNS if report.form == 'ratio' else TEST_COMPARISON_COLUMNS),
                                   row=row + 2))
            first_width = self._column_widths[ws.title][0]
            for number, column in enumerate(compared, row + 3):
                # and which design produced it (interleaved or sequential: Report.comparison_design); the verdict, last,
                # runs on into the empty cells right of it, so the design is said here
                name = '%s vs %s (design %s)' % (column.label, column.baseline, report.comparison_design(column.label))
                if len(name) > first_width - 2:
                    ws.row_dimensions[number].height = 15 * min(6, -(-len(name) // (first_width - 2)))
                ws.append([self._cell(ws, name, alignment=styles.wrap)]
                          + [self._comparison_cell(ws, column, kind, value) for kind, value in enumerate(
                              column.shown(report.form) + (column.p_value, column.p_holm, column.verdict))])
            facts = {'level': stats.SIGNIFICANCE_LEVEL, 'minimum': report.min_change_text(), 'runs': stats.MIN_RUNS}
            for line in TEST_LEGEND:
                ws.append([self._cell(ws, line % facts, font=styles.italic)])
            row += 2 + len(compared) + len(TEST_LEGEND)
        if test.other_metrics:
            ws.append([])
            ws.append([self._cell(ws, 'Other metrics (mean of the successful runs)', font=styles.bold)])
            ws.append(self._header(ws, row=row + 3, names=['Configuration'] + [
                '%s (%s, %s)' % (other['metric'], other['unit'], 'higher' if other['higher_is_better'] else 'lower')
                for other in test.other_metrics]))
            row += 3
            for column in present:
                values = []
                for other in test.other_metrics:
                    summary = other['by_label'].get(column.label)
                    values.append(self._cell(ws, summary['mean'] if summary else None, number_format=FORMAT_VALUE))
                ws.append([column.label] + values)
                row += 1
        if any(column.mean is not None for column in present):
            chart = BarChart()
            chart.type = 'bar'          # horizontal bars, one per configuration, as in the seeds
            chart.style = 10
            chart.title = test.title
            chart.y_axis.title = test.units_line
            chart.x_axis.title = None
            chart.legend = None
            chart.x_axis.scaling.orientation = 'maxMin'   # configurations top-down, in table order
            chart.x_axis.delete = False
            chart.y_axis.delete = False
            chart.height = max(5.0, 1.2 + 0.9 * len(present))
            chart.width = 22.0
            data = Reference(ws, min_col=2, min_row=header_row, max_row=last_row)
            categories = Reference(ws, min_col=1, min_row=header_row + 1, max_row=last_row)
            chart.add_data(data, titles_from_data=True)
            chart.set_categories(categories)
            # values only: LibreOffice shows series and category names unless told not to
            chart.dataLabels = DataLabelList(showVal=True, showSerName=False, showCatName=False,
                                             showLegendKey=False, showPercent=False)
            chart.y_axis.scaling.min = 0    # bars start at zero, or small differences look huge
            ws.add_chart(chart, 'A%d' % (row + 3))
            self.info['charts'] += 1
            row += 3 + int(chart.height / ROW_CM + 1)
        self._print_area(ws, len(header), row)

    def _write_matrix(self, ws, m):
        """A fleet matrix: senders as rows, receivers as columns (a colour scale, red the worst), each host's
        median out (its row) and in (its column), then each host's verdict and likely cause."""
        hosts = m['hosts']
        n = len(hosts)
        self._widths(ws, [18] + [12] * n + [12, 24, 60])
        ws.freeze_panes = 'B4'
        self._print_setup(ws, title_rows='1:3', title_cols=1)
        styles = self.styles
        ws.append([self._cell(ws, 'Fleet matrix: %s - %s (%s)' % (m['test_id'], m['metric'], m['unit']),
                              font=styles.title)])
        rule = ('Senders down, receivers across; each cell the median of the pair. A host is flagged when its median '
                'in or out is %s the fleet median by more than %g median absolute deviations.'
                % ('below' if m['higher_is_better'] else 'above', m['k']))
        ws.append([self._cell(ws, rule, font=styles.italic)])
        ws.append(self._header(ws, ['sender \\ receiver'] + hosts + ['median out'], row=3))
        apart = m.get('not_measured') or {}
        for sender in hosts:
            ws.append([self._cell(ws, sender, font=styles.bold)]
                      # a test between two slices that no slice ran: said in words, never a blank read as zero
                      + [self._cell(ws, apart[sender][receiver], font=styles.italic) if receiver in apart.get(sender, {})
                         else m['cells'].get(sender, {}).get(receiver) for receiver in hosts]
                      + [self._cell(ws, m['hosts_out'].get(sender), font=styles.bold)])
        ws.append([self._cell(ws, 'median in', font=styles.bold)]
                  + [self._cell(ws, m['hosts_in'].get(receiver), font=styles.bold) for receiver in hosts])
        if n:
            # red the worst, green the best, whichever way the metric is better
            low, high = ('F8696B', '63BE7B') if m['higher_is_better'] else ('63BE7B', 'F8696B')
            ws.conditional_formatting.add(
                'B4:%s%d' % (get_column_letter(n + 1), n + 3),
                ColorScaleRule(start_type='min', start_color=low, mid_type='percentile', mid_value=50,
                               mid_color='FFEB84', end_type='max', end_color=high))
        ws.append([self._cell(ws, matrix.NOT_MEASURED_NOTE, font=styles.italic)]
                  if apart else [])
        ws.append(self._header(ws, ['host', 'median out', 'median in', 'verdict', 'likely cause'], row=n + 6))
        for host in hosts:
            v = m['verdicts'][host]
            flagged = v['verdict'] != 'healthy'
            ws.append([self._cell(ws, host, font=styles.bold), m['hosts_out'].get(host), m['hosts_in'].get(host),
                       self._cell(ws, v['verdict'], fill=styles.worse_fill if flagged else styles.better_fill),
                       v['cause'] or v.get('reason') or ''])
        self._print_area(ws, n + 2, 2 * n + 6)

    def _write_parallel(self, ws, rows):
        columns = list(parallel.COLUMNS)
        # the Test and Test ID columns as wide as their longest (a title cut on paper names no test)
        test_width = max([len(row[0]) + 2 for row in rows] + [20])
        id_width = max([len(row[1]) + 2 for row in rows] + [20])
        self._widths(ws, [min(test_width, 90), min(id_width, 60), 24, 6, 9, 30] + [12] * (len(columns) - 6))
        ws.freeze_panes = 'D2'
        self._print_setup(ws, title_rows='1:1', title_cols=1)
        ws.append(self._header(ws, columns))
        percent = [index for index, name in enumerate(columns) if name.endswith('% of link')]
        for row in rows:
            ws.append([self._cell(ws, value, number_format='0.0') if index in percent and value is not None
                       else (self._cell(ws, value, number_format='0.00') if isinstance(value, float) else value)
                       for index, value in enumerate(row)])
        ws.append([])
        for note in parallel.NOTES:
            ws.append([self._cell(ws, note, font=self.styles.italic)])
        self._print_area(ws, len(columns), len(rows) + 2 + len(parallel.NOTES))

    def _write_systems(self, ws):
        columns = self.report.systems_columns()
        widths = [24, 14, 22, 24] + [30] * (len(columns) - 8) + [12, 7, 60, 80]
        self._widths(ws, widths)
        ws.freeze_panes = 'C2'
        self._print_setup(ws, title_rows='1:1', title_cols=2)
        ws.append(self._header(ws, columns))
        rows = self.report.systems_rows()
        for row in rows:
            ws.append(row)
        ws.auto_filter.ref = 'A1:%s%d' % (get_column_letter(len(columns)), len(rows) + 1)
        self._print_area(ws, len(columns), len(rows) + 1)

    def _write_raw(self, ws):
        columns = self.report.raw_columns()
        self._widths(ws, [_RAW_WIDTHS.get(name, 12) for name in columns])
        ws.freeze_panes = 'A2'
        self._print_setup(ws, title_rows='1:1')
        limit = MAX_SHEET_ROWS - 1
        truncated = self.report.raw_rows > limit
        header = self._header(ws, columns)
        if truncated:
            header.append(self._cell(ws, 'Truncated: the first %d of %d rows (the sheet limit); the CSV/JSON '
                                         'exports hold every row.' % (limit, self.report.raw_rows),
                                     font=self.styles.failed_font))
            self.info['truncated'].append('Raw')
        ws.append(header)
        written = 0
        for row in self.report.iter_raw_rows():
            if written >= limit:
                continue   # keep reading: the source's problem list is complete only after a full pass
            ws.append(row)
            written += 1
        ws.auto_filter.ref = 'A1:%s%d' % (get_column_letter(len(columns)), written + 1)
        self._print_area(ws, len(columns) + (1 if truncated else 0), written + 1)
        self.info['raw_rows'] = written

    def _write_intervals(self, ws):
        report = self.report
        columns = report.interval_columns()
        self._widths(ws, [22, 22, 28, 11, 14, 14, 8, 8] + [14] * (len(columns) - 8))
        ws.freeze_panes = 'A2'
        self._print_setup(ws, title_rows='1:1')
        limit = MAX_SHEET_ROWS - 1
        header = self._header(ws, columns)
        if report.interval_rows > limit:
            header.append(self._cell(ws, 'Truncated: the first %d of %d rows (the sheet limit); the CSV/JSON '
                                         'exports hold every row.' % (limit, report.interval_rows),
                                     font=self.styles.failed_font))
            self.info['truncated'].append('Intervals')
        ws.append(header)
        written = 0
        # the first successful record with tool samples of each (test, configuration) gets charted
        ranges = {}
        sampled = {}   # test id -> the metrics its charted records' samples carry
        for record, source, rows in report.iter_interval_groups():
            room = limit - written
            if room <= 0:
                continue
            rows = rows[:room]
            first = written + 2
            for row in rows:
                ws.append(row)
            written += len(rows)
            if source == 'tool' and record.get('status') == 'ok':
                key = (record.get('test_id'), report.column_of(record))
                ranges.setdefault(key, (first, first + len(rows) - 1))
                sampled.setdefault(key[0], set()).update(name for sample in record.get('intervals') or []
                                                         for name in sample)
        if written:
            ws.auto_filter.ref = 'A1:%s%d' % (get_column_letter(len(columns)), written + 1)
        self.info['interval_rows'] = written
        charts = self._interval_charts(ws, columns, ranges, sampled)
        # the charts stand right of the table: the print area takes them in
        chart_columns = (1 + int(CHART_WIDTH_CM / DEFAULT_COLUMN_CM + 1)) if charts else 0
        chart_rows = 2 + (charts - 1) * INTERVAL_CHART_ROWS + int(CHART_HEIGHT_CM / ROW_CM + 1) if charts else 0
        self._print_area(ws, len(columns) + chart_columns, max(written + 1, chart_rows))

    def _interval_charts(self, ws, columns, ranges, sampled=None):
        report = self.report
        keys = report.interval_keys
        if not keys or not ranges:
            return 0
        t_column = columns.index('t') + 1
        anchor_column = get_column_letter(len(columns) + 2)
        charts = 0
        for test in report.tests:
            if charts >= MAX_INTERVAL_CHARTS:
                break
            # the test's primary metric where its samples carry it, else the rate they name
            # (a sender's interval rate is throughput_sent_mbps: iperf2, netperf TCP_STREAM, ethr UDP)
            mine = (sampled or {}).get(test.test_id) or set(keys)
            metric = next((name for name in (test.metric, 'throughput_mbps', 'throughput_received_mbps',
                                             'throughput_sent_mbps') if name in mine and name in keys), keys[0])
            value_column = columns.index(metric) + 1
            series = [(label, ranges[(test.test_id, label)]) for label in report.columns
                      if (test.test_id, label) in ranges]
            if not series:
                continue
            chart = LineChart()
            chart.title = '%s - per interval' % test.title
            chart.y_axis.title = metric
            chart.x_axis.title = 't (s)'
            chart.x_axis.delete = False
            chart.y_axis.delete = False
            chart.height = CHART_HEIGHT_CM
            chart.width = CHART_WIDTH_CM
            for label, (first, last) in series:
                chart.add_data(Reference(ws, min_col=value_column, min_row=first, max_row=last))
                chart.series[-1].tx = SeriesLabel(v=label)
                chart.series[-1].smooth = False     # samples, not a curve fit
            first, last = series[0][1]
            chart.set_categories(Reference(ws, min_col=t_column, min_row=first, max_row=last))
            ws.add_chart(chart, '%s%d' % (anchor_column, 2 + charts * INTERVAL_CHART_ROWS))
            charts += 1
        self.info['charts'] += charts
        return charts


def write_workbook(report, path, intervals=True):
    """Write ``report`` (a ``tables.Report``) to ``path``; returns ``{path, sheets, charts, ...}``."""
    return WorkbookWriter(report, intervals=intervals).write(path)
