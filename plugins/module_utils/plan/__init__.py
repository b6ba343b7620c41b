# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Layer ``plan`` (docs/architecture.md, "Layers"): the controller's plans from data (suites, studies and labels,
planned records, repetitions, the tools role's plan); no host code."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type
