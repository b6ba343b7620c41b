# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Layer ``host`` (docs/architecture.md, "Layers"): reading and changing one host (processes, NICs, per-OS host
facts, snapshots, sysctl/ethtool, the system profile, firewall ownership, the run lock)."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type
