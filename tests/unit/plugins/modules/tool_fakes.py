# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Shared stand-ins for the test-tool modules' unit tests (iperf3, netperf, nuttcp, ethr).

``FakeTool`` replaces ``process.run`` / ``process.run_many``: it records every argv,
answers the tool's version probe with the real version output, and each test run
with the next of ``outputs`` (a stdout string or a dict of ProcessResult fields).
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json
import os

import pytest

from ansible.module_utils.testing import patch_module_args

from ansible_collections.perflab.network.plugins.module_utils.host import process

FIXTURES = os.path.join(os.path.dirname(__file__), '..', '..', 'fixtures')
STARTED_AT = '2026-11-29T18:00:01.000Z'
ENDED_AT = '2026-11-29T18:00:03.000Z'


def read_fixture(*parts):
    """A file under tests/unit/fixtures, as text."""
    with open(os.path.join(FIXTURES, *parts)) as handle:
        return handle.read()


class FakeTool(object):
    """Records each argv; answers ``version_args`` with ``version_text`` and test runs from ``outputs``."""

    def __init__(self, outputs, version_args, version_text, rc=0, result_defaults=None):
        self.outputs = list(outputs)
        self.version_args = list(version_args)
        self.version_text = version_text
        self.rc = rc
        self.result_defaults = dict(started_at=STARTED_AT, ended_at=ENDED_AT)
        self.result_defaults.update(result_defaults or {})
        self.calls = []
        self.timeout = None

    def result(self, argv):
        if argv[0] == 'ping':
            # the runner's RTT ping before a sampled test (limits.py): iputils' real output, not a test call
            return process.ProcessResult(argv, rc=0, stdout=read_fixture('limits', 'ping-iputils-loopback.txt'),
                                         started_at=STARTED_AT, ended_at=STARTED_AT)
        self.calls.append(list(argv))
        if argv[1:] == self.version_args:
            return process.ProcessResult(argv, rc=0, stdout=self.version_text,
                                         started_at='2026-11-29T18:00:00.000Z', ended_at='2026-11-29T18:00:00.010Z')
        out = self.outputs.pop(0)
        kwargs = dict(out) if isinstance(out, dict) else dict(stdout=out)
        kwargs.setdefault('rc', self.rc)
        for key, value in self.result_defaults.items():
            kwargs.setdefault(key, value)
        return process.ProcessResult(argv, **kwargs)

    def run(self, argv, timeout, env=None):
        self.timeout = timeout
        return self.result(argv)

    def run_many(self, argvs, timeout, env=None):
        self.timeout = timeout
        return [self.result(argv) for argv in argvs]

    @property
    def test_calls(self):
        """The argv of every call but the version probe."""
        return [call for call in self.calls if call[1:] != self.version_args]


def install_fake_tool(monkeypatch, path, fake, installed=True):
    """Put ``fake`` in place of the process runner, with the tool found at ``path`` (or not at all)."""
    monkeypatch.setattr(process, 'run', fake.run)
    monkeypatch.setattr(process, 'run_many', fake.run_many)
    monkeypatch.setattr(process, 'which', lambda tool, tool_paths=None: (path if installed else None))
    return fake


def run_module(module, args, capsys, check_mode=False):
    """Run ``module.main()`` with ``args``; return its JSON result."""
    if check_mode:
        args = dict(args, _ansible_check_mode=True)
    with patch_module_args(args):
        with pytest.raises(SystemExit):
            module.main()
    return json.loads(capsys.readouterr().out)
