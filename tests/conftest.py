# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Shared by the unit and the integration tests."""
from __future__ import annotations

import os


def pytest_configure(config):
    """Give every child process /dev/null as stdin.

    The tests start ansible-playbook and ssh, which inherit fd 0. ssh can leave a shared
    stdin non-blocking, and ansible-core then refuses to start ("Ansible requires blocking
    IO on stdin"): a test's outcome would depend on what ran before it.
    """
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
