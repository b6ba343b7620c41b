# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Every role's README documents every variable of its argument specs, and
every public default is typed in the specs (nothing undocumented, nothing untyped)."""
from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os

import pytest
import yaml

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
ROLES = sorted(r for r in os.listdir(os.path.join(ROOT, 'roles'))
               if os.path.isfile(os.path.join(ROOT, 'roles', r, 'meta', 'argument_specs.yml')))


def spec_options(role):
    with open(os.path.join(ROOT, 'roles', role, 'meta', 'argument_specs.yml')) as f:
        specs = yaml.safe_load(f)['argument_specs']
    options = {}
    for entry in specs.values():
        options.update(entry.get('options') or {})
    return options


def test_every_role_has_specs():
    assert set(ROLES) == set(os.listdir(os.path.join(ROOT, 'roles')))


@pytest.mark.parametrize('role', ROLES)
def test_readme_documents_every_option(role):
    with open(os.path.join(ROOT, 'roles', role, 'README.md')) as f:
        readme = f.read()
    missing = [name for name in spec_options(role) if name not in readme]
    assert not missing, 'roles/%s/README.md does not mention %s' % (role, ', '.join(missing))


@pytest.mark.parametrize('role', ROLES)
def test_every_public_default_is_typed_in_the_specs(role):
    path = os.path.join(ROOT, 'roles', role, 'defaults', 'main.yml')
    with open(path) as f:
        defaults = yaml.safe_load(f) or {}
    options = spec_options(role)
    untyped = [name for name in defaults if not name.startswith('__') and name not in options]
    assert not untyped, 'roles/%s: defaults without an argument spec: %s' % (role, ', '.join(untyped))
    for name, opt in options.items():
        assert opt.get('type') or opt.get('choices'), 'roles/%s: %s has no type' % (role, name)
        assert name.startswith(role + '_'), 'roles/%s: public variable %s lacks the role prefix' % (role, name)
