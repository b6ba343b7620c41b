# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""One benchmark tool (layer ``tools``, docs/architecture.md): ``tool`` describes it (a ``Tool`` subclass and
``TOOL``), ``parse`` parses its output."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type
