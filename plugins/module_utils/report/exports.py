# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""CSV and JSON exports of the workbook's tables.

CSV: one file per table, ``<stem>-<table>.csv`` (summary, tests, metrics,
systems, intervals, raw). JSON: one file ``<stem>.json`` holding
``{schema, overview, notes, tables: {<table>: {columns, rows}}}``. Both carry
every row, also where a sheet had to stop at Excel's row limit.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import csv
import json
import os
import tempfile

EXPORT_SCHEMA = 'perflab.report/1'
FORMATS = ('csv', 'json')


def _csv_value(value):
    if value is None:
        return ''
    if value is True:
        return 'true'
    if value is False:
        return 'false'
    return value


class AtomicFile(object):
    """A text file written under a temporary name and renamed into place when complete."""

    def __init__(self, path):
        self.path = path
        directory = os.path.dirname(os.path.abspath(path))
        fd, self.temporary = tempfile.mkstemp(prefix='.%s.' % os.path.basename(path), suffix='.tmp', dir=directory)
        self.handle = os.fdopen(fd, 'w', encoding='utf-8', newline='')

    def __enter__(self):
        return self.handle

    def __exit__(self, kind, value, trace):
        self.handle.close()
        if kind is None:
            os.chmod(self.temporary, 0o644)
            os.replace(self.temporary, self.path)
        else:
            os.unlink(self.temporary)
        return False


def _streamed_tables(report, intervals):
    tables = []
    if intervals:
        tables.append(('intervals', report.interval_columns(),
                       (row for _record, _source, rows in report.iter_interval_groups() for row in rows)))
    tables.append(('raw', report.raw_columns(), report.iter_raw_rows()))
    return tables


def write_csv(report, stem, intervals=True):
    """Write one CSV per table; returns the paths written."""
    paths = []
    tables = list(report.tables()) + _streamed_tables(report, intervals)
    for name, columns, rows in tables:
        path = '%s-%s.csv' % (stem, name)
        with AtomicFile(path) as handle:
            writer = csv.writer(handle)
            writer.writerow(columns)
            for row in rows:
                writer.writerow([_csv_value(value) for value in row])
        paths.append(path)
    return paths


def write_json(report, stem, intervals=True):
    """Write every table into one JSON document, streaming the long tables; returns its path."""
    path = '%s.json' % stem
    with AtomicFile(path) as handle:
        handle.write('{"schema": %s,\n"overview": %s,\n"notes": %s,\n"tables": {' % (
            json.dumps(EXPORT_SCHEMA), json.dumps(report.overview(), ensure_ascii=False),
            json.dumps(report.summary_notes(), ensure_ascii=False)))
        tables = list(report.tables()) + _streamed_tables(report, intervals)
        for index, (name, columns, rows) in enumerate(tables):
            handle.write('%s\n%s: {"columns": %s, "rows": [' % (
                ',' if index else '', json.dumps(name), json.dumps(columns, ensure_ascii=False)))
            for number, row in enumerate(rows):
                handle.write(('\n' if not number else ',\n') + json.dumps(row, ensure_ascii=False))
            handle.write(']}')
        handle.write('\n}}\n')
    return path


def write_exports(report, stem, formats=FORMATS, intervals=True):
    """Write the asked ``formats`` (``csv``, ``json``) next to ``stem``; returns every path written."""
    paths = []
    for fmt in formats:
        if fmt == 'csv':
            paths.extend(write_csv(report, stem, intervals=intervals))
        elif fmt == 'json':
            paths.append(write_json(report, stem, intervals=intervals))
        else:
            raise ValueError('unknown export format %r (choose from %s)' % (fmt, ', '.join(FORMATS)))
    return paths
