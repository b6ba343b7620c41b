# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The integration harness itself: the namespaces it makes go on every path."""
from __future__ import annotations

import os

import pytest

from conftest import netns_maker, netns_names

NAME = 'h9hn%d' % os.getpid()


def test_make_netns_makes_a_namespace(make_netns):
    assert make_netns(NAME + 'a') in netns_names()


def test_namespaces_are_deleted_when_the_test_fails():
    if os.geteuid() != 0:
        pytest.skip('network namespaces need root')
    with pytest.raises(RuntimeError):
        with netns_maker() as make:
            make(NAME + 'b')
            make(NAME + 'c')
            assert {NAME + 'b', NAME + 'c'} <= netns_names()
            raise RuntimeError('a failing test')
    assert not {NAME + 'a', NAME + 'b', NAME + 'c'} & netns_names()


def test_a_leftover_of_the_same_name_is_replaced():
    if os.geteuid() != 0:
        pytest.skip('network namespaces need root')
    with netns_maker() as make:
        make(NAME + 'd')
    with netns_maker() as make:
        make(NAME + 'd')
        make(NAME + 'd')  # again: the first one is removed, not an error
        assert NAME + 'd' in netns_names()
    assert NAME + 'd' not in netns_names()
