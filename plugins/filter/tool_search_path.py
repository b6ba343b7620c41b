# -*- coding: utf-8 -*-
# Copyright: perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

DOCUMENTATION = r'''
name: tool_search_path
short_description: The PATH the benchmark tools are looked for in, in the order every test module uses
version_added: 0.2.0
description:
  - Returns the folders the collection's one tool lookup searches (C(plugins/module_utils/host/process.py) C(search_dirs),
    on Windows C(host_windows.WindowsHost.search_dirs)) joined as a PATH - the host's PATH first, then the
    folders given, then the usual folders (C(/usr/local/sbin) ... C(/opt/perflab/bin), C(/opt/ethr); on Windows
    Chocolatey's shims, C(C:\perflab\bin), C(C:\perflab\ethr)).
  - The benchmark role's plan runs C(which) (C(where.exe)) with it, so that the plan finds a tool exactly where
    M(perflab.network.bench_server) and M(perflab.network.bench_test) will.
author:
  - perflab.network maintainers (@perflab)
options:
  _input:
    description: The folders given (the benchmark role's C(benchmark_tool_paths) and C(<tools_prefix>/bin)).
    type: list
    elements: str
    required: true
  path:
    description: The host's PATH (C(ansible_env.PATH)).
    type: str
    default: ''
  windows:
    description: A Windows host (C(;) between the folders, Windows' usual folders).
    type: bool
    default: false
'''

EXAMPLES = r'''
- name: Which of the tools' executables this host has, where the test modules look
  ansible.builtin.command:
    argv: "{{ ['which'] + ([] | perflab.network.tool_executables) }}"
  environment:
    PATH: "{{ ['/opt/x/bin'] | perflab.network.tool_search_path(ansible_env.PATH) }}"
  register: found
  failed_when: found.rc not in [0, 1]
'''

RETURN = r'''
_value:
  description: The folders joined with C(:) (C(;) on Windows).
  type: str
'''

from ansible.errors import AnsibleFilterError

from ansible_collections.perflab.network.plugins.module_utils.host import windows as host_windows
from ansible_collections.perflab.network.plugins.module_utils.host import process


def tool_search_path(tool_paths, path='', windows=False):
    if isinstance(tool_paths, str) or not isinstance(tool_paths, (list, tuple)):
        raise AnsibleFilterError('tool_search_path: the input must be a list of folders, got %r' % (tool_paths,))
    path = path or ''
    if windows:
        dirs = [d for d in path.split(';') if d]
        dirs += [d for d in host_windows.WindowsHost.search_dirs(tool_paths)[1:] if d not in dirs]
        return ';'.join(dirs)
    return ':'.join(process.search_dirs(tool_paths, path_env=path))


class FilterModule(object):
    def filters(self):
        return {'tool_search_path': tool_search_path}
