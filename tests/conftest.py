# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Shared by the unit and the integration tests."""
from __future__ import annotations

import os
import subprocess

_STDIN_POSITION = 3  # Popen(args, bufsize, executable, stdin, ...)


class _OwnStdinPopen(subprocess.Popen):
    """Popen whose child gets a /dev/null stdin of its own unless the caller chose one."""

    def __init__(self, *args, **kwargs):
        if len(args) <= _STDIN_POSITION and kwargs.get('stdin') is None:
            kwargs['stdin'] = subprocess.DEVNULL
        super().__init__(*args, **kwargs)


def pytest_configure(config):
    """Give every child process a /dev/null stdin of its own.

    The tests start ansible-playbook and ssh side by side (a background run while a
    thread polls the lab over ssh). ssh sets O_NONBLOCK on its stdin, and that flag
    belongs to the open file, which every child that inherits fd 0 shares: an
    ansible-playbook started meanwhile then refuses to run ("Ansible requires blocking
    IO on stdin"). A shared /dev/null on fd 0 was not enough (seen in the battery); a
    fresh open per child is. subprocess.run and friends all go through Popen.
    """
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    subprocess.Popen = _OwnStdinPopen
