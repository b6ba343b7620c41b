# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Layer ``bench`` (docs/architecture.md, "Layers"): running the benchmarks on a host (the runner, the preflight,
the servers' arguments, the Windows action plugins' helpers)."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type
