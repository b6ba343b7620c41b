# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""One entry point for the results callback and the report module:
result files in, workbook + exports + text summary out."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json
import os

from ansible_collections.perflab.network.plugins.module_utils.report import exports, store, tables, text


def compare_map(value):
    """A ``compare`` option as ``{configuration: baseline or None}``: a mapping, JSON text of one, or empty.

    Raises ValueError naming what is wrong (the callback and the report module say it before writing).
    """
    if value is None or value == '' or value == {}:
        return {}
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError as exc:
            raise ValueError('compare must be a mapping {configuration: baseline configuration} (JSON from the '
                             'environment or ini), got %r: %s' % (value, exc))
    if not isinstance(value, dict):
        raise ValueError('compare must be a mapping {configuration: baseline configuration}, got %r' % (value,))
    out = {}
    for config, base in value.items():
        if not isinstance(config, str) or not (base is None or isinstance(base, str)):
            raise ValueError('compare maps configuration labels to baseline labels (or null), got %r: %r'
                             % (config, base))
        out[config] = base
    return out


def build_report(paths, workbook_path=None, export_stem=None, formats=exports.FORMATS, baseline=None,
                 group_by='config', intervals=True, title=None, compare=None, systems='tested', views_stem=None,
                 min_change_percent=0.0, matrix_k=None, form='change'):
    """Read ``paths`` and write what is asked.

    ``workbook_path``: the .xlsx to write (None: no workbook). ``export_stem``:
    path prefix of the CSV/JSON exports (None: no exports). ``views_stem``: path
    prefix of the text and Markdown views, ``<stem>.txt`` and ``<stem>.md``
    (None: none written). ``form``: ``change`` or ``ratio`` (tables.FORMS: how comparisons are shown).
    ``min_change_percent``: the smallest change the study cares
    about (``tables.min_change_value``; smaller changes are never better or worse). ``matrix_k``: the fleet
    matrix's outlier rule, k median absolute deviations (``tables.matrix_k_value``; None: 3).
    Returns ``(report, result)`` where ``result`` is
    ``{workbook, exports, views, sheets, charts, truncated, summary, overview}``.
    Raises ``store.SchemaError`` for a file written with an unknown schema major, ValueError for a bad option.
    """
    min_change_percent = tables.min_change_value(min_change_percent)
    compare = compare_map(compare)
    source = store.ResultFiles(paths)
    report = tables.Report(source, baseline=baseline, group_by=group_by, title=title, compare=compare,
                           systems=systems, min_change_percent=min_change_percent, matrix_k=matrix_k, form=form)
    result = {'workbook': None, 'exports': [], 'views': [], 'sheets': [], 'charts': 0, 'truncated': []}
    for target in (workbook_path, export_stem, views_stem):
        if target:
            directory = os.path.dirname(os.path.abspath(target))
            if not os.path.isdir(directory):
                os.makedirs(directory)
    if workbook_path:
        # imported here: reading results and the text summary need no openpyxl
        from ansible_collections.perflab.network.plugins.module_utils.report import workbook
        info = workbook.write_workbook(report, workbook_path, intervals=intervals)
        result['workbook'] = info['path']
        result['sheets'] = info['sheets']
        result['charts'] = info['charts']
        result['truncated'] = info['truncated']
    if export_stem and formats:
        result['exports'] = exports.write_exports(report, export_stem, formats=formats, intervals=intervals)
    if views_stem:
        result['views'] = text.write_views(report, views_stem)
    result['summary'] = text.render(report)
    result['overview'] = report.overview()
    return report, result
