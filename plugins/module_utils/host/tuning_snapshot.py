# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Earlier name of :mod:`host_snapshot` (the one snapshot of the config roles).

Kept so that code importing ``module_utils.host.tuning_snapshot`` keeps working;
everything lives in host_snapshot.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

from ansible_collections.perflab.network.plugins.module_utils.host.snapshot import (
    MAX_FILE_BYTES, SCHEMA, SECTIONS, SnapshotError, capture_file, describe, file_content,
    file_matches, load, new_snapshot, record, remove, restore_file, save,
)

__all__ = ['MAX_FILE_BYTES', 'SCHEMA', 'SECTIONS', 'SnapshotError', 'capture_file', 'describe', 'file_content',
           'file_matches', 'load', 'new_snapshot', 'record', 'remove', 'restore_file', 'save']
