# -*- coding: utf-8 -*-
# Copyright: perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

DOCUMENTATION = r'''
name: unrestored
short_description: What a revert could not put back, as one mapping or one line
version_added: 0.3.0
description:
  - C(unrestored) merges what each step of a configuration role's revert could not put back into one
    mapping of C(section:key) to the reason, the form of C(unrestored) of C(perflab.network.host_snapshot);
    each keyword argument is a section (C(sysctls), C(ethtool), C(values), C(records)) mapping its keys to
    their reasons (a module's C(summary.failed)).
  - C(unrestored_text) makes the line the roles fail with, C(section:key (reason); ...).
author:
  - perflab.network maintainers (@perflab)
options:
  _input:
    description: A mapping of C(section:key) to the reason (C(unrestored) of C(perflab.network.host_snapshot)).
    type: dict
    required: true
'''

EXAMPLES = r'''
- name: What the tuning revert could not put back, and the line to fail with
  ansible.builtin.debug:
    msg: >-
      {{ files_result.unrestored | perflab.network.unrestored(sysctls=sysctl_result.summary.failed)
         | perflab.network.unrestored_text }}
'''

RETURN = r'''
_value:
  description: The merged mapping (C(unrestored)) or the line (C(unrestored_text)).
  type: raw
'''

from ansible_collections.perflab.network.plugins.module_utils.host import snapshot as host_snapshot


def unrestored(found, **sections):
    merged = dict(found or {})
    for section, failed in sections.items():
        merged.update(('%s:%s' % (section, key), why) for key, why in (failed or {}).items())
    return merged


def unrestored_text(found):
    return host_snapshot.unrestored_text(dict(found or {}))


class FilterModule(object):
    def filters(self):
        return {'unrestored': unrestored, 'unrestored_text': unrestored_text}
