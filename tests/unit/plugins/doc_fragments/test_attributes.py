# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The modules' C(attributes): the descriptions are written once, in plugins/doc_fragments/attributes.py,
and every module's documentation as ansible-doc renders it (merged with its fragments) has check_mode,
diff_mode and platform with a support level of its own."""
from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from ansible_collections.perflab.network.plugins.doc_fragments.attributes import ModuleDocFragment

ROOT = Path(__file__).resolve().parents[4]
MODULES = sorted(p.stem for p in (ROOT / 'plugins' / 'modules').glob('*.py') if p.stem != '__init__')
ACTIONS = {p.stem for p in (ROOT / 'plugins' / 'action').glob('*.py') if p.stem != '__init__'}
SUPPORT = {'full', 'partial', 'none', 'N/A'}


def fragment_descriptions():
    """attribute -> the description a fragment gives it."""
    found = {}
    for name in ('DOCUMENTATION', 'PLATFORM', 'WINDOWS_ACTION'):
        for attribute, value in (yaml.safe_load(getattr(ModuleDocFragment, name)).get('attributes') or {}).items():
            found[attribute] = value['description']
    return found


def raw_doc(module):
    mod = importlib.import_module('ansible_collections.perflab.network.plugins.modules.%s' % module)
    return yaml.safe_load(mod.DOCUMENTATION)


@pytest.fixture(scope='module')
def merged():
    """module -> its documentation as ansible-doc renders it (one run for all modules)."""
    env = dict(os.environ, ANSIBLE_CONFIG=str(ROOT / 'ansible.cfg'))
    proc = subprocess.run([os.path.join(os.path.dirname(sys.executable), 'ansible-doc'), '--json']
                          + ['perflab.network.' + m for m in MODULES],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=True)
    return {name.split('.')[-1]: entry['doc'] for name, entry in json.loads(proc.stdout).items()}


@pytest.mark.parametrize('module', MODULES)
def test_no_module_repeats_a_fragment_description(module):
    own = raw_doc(module).get('attributes') or {}
    for attribute in fragment_descriptions():
        assert 'description' not in own.get(attribute, {}), (
            '%s describes %s itself: the fragment perflab.network.attributes does' % (module, attribute))


@pytest.mark.parametrize('module', MODULES)
def test_every_module_documents_its_support(merged, module):
    assert set(merged) == set(MODULES)
    attributes = merged[module]['attributes']
    descriptions = fragment_descriptions()
    for attribute in ('check_mode', 'diff_mode', 'platform'):
        assert attributes[attribute]['description'] == descriptions[attribute], (module, attribute)
        assert attributes[attribute]['support'] in SUPPORT, (module, attribute)
    # each module names the platforms it runs on, and runs there (a fragment's N/A once shadowed the test modules')
    assert attributes['platform'].get('platforms'), module
    assert attributes['platform']['support'] == 'full', module
    # a module with an action plugin of its name says so, with the fragment's text
    assert ('action' in attributes) is (module in ACTIONS), module
    if module in ACTIONS:
        assert attributes['action']['description'] == descriptions['action']
        assert attributes['action']['support'] == 'full'


@pytest.mark.parametrize('module', MODULES)
def test_every_module_lists_the_shared_fragment_last(module):
    # its supports are the defaults: a module's own values and the fragments before it win over them
    assert raw_doc(module).get('author') is None, '%s: the author is the fragment\'s' % module
    # (a tool's test module lists only test_common, which holds the shared fragment with its own values over it)
    assert raw_doc(module)['extends_documentation_fragment'][-1] in (
        'perflab.network.attributes', 'perflab.network.test_common'), module
