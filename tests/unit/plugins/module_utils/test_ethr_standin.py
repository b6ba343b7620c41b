# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The ethr stand-in of the lab tests replays the real v1.0.0-5 output (and is what build.py writes)."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os
import subprocess
import sys

from ansible_collections.perflab.network.plugins.module_utils.tools.ethr import parse as parse_ethr

HERE = os.path.dirname(os.path.abspath(__file__))
STANDIN_DIR = os.path.join(HERE, '..', '..', '..', 'integration', 'files', 'ethr-standin')
FIXTURES = os.path.join(HERE, '..', '..', 'fixtures', 'ethr', '1.0.0-5')


def run(*argv):
    proc = subprocess.run([os.path.join(STANDIN_DIR, 'ethr')] + list(argv), capture_output=True, text=True,
                          timeout=30, check=False)
    return proc.returncode, proc.stdout


def test_the_committed_standin_is_what_build_writes():
    assert subprocess.run([sys.executable, os.path.join(STANDIN_DIR, 'build.py'), '--check'],
                          check=False).returncode == 0, 'run tests/integration/files/ethr-standin/build.py'


def test_help_and_refused_http_are_the_real_ones():
    with open(os.path.join(FIXTURES, 'help.txt')) as handle:
        assert run('-h') == (0, handle.read())
    with open(os.path.join(FIXTURES, 'http_bw.txt')) as handle:
        assert run('-c', '127.0.0.1', '-port', '9', '-t', 'b', '-p', 'http', '-d', '1s', '-no') == (1, handle.read())


def test_nothing_listening_is_the_real_unreachable_output():
    rc, out = run('-c', '127.0.0.1', '-port', '9', '-t', 'l', '-p', 'tcp', '-d', '1s', '-no')
    assert rc == 0 and parse_ethr.parse_result('latency', out, rc)['error'].startswith('ethr: Error dialing')
