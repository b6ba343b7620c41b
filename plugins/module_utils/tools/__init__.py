# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Report builder: result files (JSON lines) -> workbook, text summary, CSV/JSON.

``store`` reads and appends the JSON-lines files, ``stats`` holds the
statistics (Welch's t-test without scipy), ``tables`` aggregates records into
the report's tables, and ``workbook``, ``text`` and ``exports`` render them.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type
