# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

from ansible_collections.perflab.network.plugins.filter.unrestored import FilterModule

FILTERS = FilterModule().filters()


def test_each_step_s_failures_merge_under_their_section():
    files = {'files:/etc/sysctl.d/90-perflab-tuning.conf': '[Errno 1] Operation not permitted'}
    merged = FILTERS['unrestored'](files, sysctls={'net.core.rmem_max': 'writing failed: Invalid argument'},
                                   ethtool={}, values=None)
    assert merged == {'files:/etc/sysctl.d/90-perflab-tuning.conf': '[Errno 1] Operation not permitted',
                      'sysctls:net.core.rmem_max': 'writing failed: Invalid argument'}
    assert files == {'files:/etc/sysctl.d/90-perflab-tuning.conf': '[Errno 1] Operation not permitted'}  # not changed


def test_the_line_names_each_entry_and_why():
    assert FILTERS['unrestored_text']({'values:mtu:data0': 'RTNETLINK answers: Invalid argument',
                                       'files:/etc/x': '[Errno 30] Read-only file system'}) == \
        'files:/etc/x ([Errno 30] Read-only file system); values:mtu:data0 (RTNETLINK answers: Invalid argument)'
    assert FILTERS['unrestored_text'](None) == ''
