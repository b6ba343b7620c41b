# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The tools: ``tool.py`` (the ``Tool`` base class), ``registry.py`` (every tool by name) and one package per
benchmark tool, ``<tool>/``: ``tool.py`` (a ``Tool`` subclass and ``TOOL``) and ``parse.py`` (its parser).

Layer ``tools`` (docs/architecture.md, "Layers"): argv, options and their checks, parsing; no host I/O."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type
