# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The README's build-and-install steps as written: make install into a fresh path, then every plugin is there."""
from __future__ import annotations

import importlib
import json
import os
import subprocess

from conftest import ROOT


def test_make_install_puts_every_plugin_in_a_fresh_collections_path(tmp_path):
    target = tmp_path / 'collections'
    env = dict(os.environ)
    env.pop('ANSIBLE_CONFIG', None)
    res = subprocess.run(['make', '--no-print-directory', 'install', 'COLLECTIONS_DIR=%s' % target], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=300, check=False)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-2000:]
    assert 'Nothing to do' not in res.stdout
    installed = target / 'ansible_collections' / 'perflab' / 'network'
    assert (installed / 'MANIFEST.json').is_file()
    # from outside the checkout, with only the fresh path: ansible-doc lists every plugin
    env['ANSIBLE_COLLECTIONS_PATH'] = str(target)
    doc = str(ROOT / '.venv' / 'bin' / 'ansible-doc')
    for kind, folder in (('module', 'modules'), ('filter', 'filter'), ('callback', 'callback')):
        listed = subprocess.run([doc, '-t', kind, '-l', 'perflab.network', '--json'], cwd=str(tmp_path), env=env,
                                capture_output=True, text=True, timeout=300, check=False)
        assert listed.returncode == 0, listed.stderr[-2000:]
        names = {name.rsplit('.', 1)[-1] for name in json.loads(listed.stdout)}
        shipped = {f[:-3] for f in os.listdir(ROOT / 'plugins' / folder) if f.endswith('.py') and not f.startswith('_')}
        if kind == 'filter':
            # a filter file may hold several filters: ansible-doc lists each filter
            shipped = set()
            for name in sorted(os.listdir(ROOT / 'plugins' / 'filter')):
                if name.endswith('.py') and not name.startswith('_'):
                    plugin = importlib.import_module('ansible_collections.perflab.network.plugins.filter.' + name[:-3])
                    shipped.update(plugin.FilterModule().filters())
        assert shipped and shipped <= names, (kind, sorted(shipped - names))
