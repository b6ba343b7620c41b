# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The execution environment carries every collection that galaxy.yml depends on.

execution-environment.yml (the image definition, ansible-builder 3) lists them
inline under dependencies.galaxy.collections; the collection's own
meta/execution-environment.yml names a requirements file (dependencies.galaxy)
with the same list. Both must hold exactly galaxy.yml's dependencies, with the
same version ranges, and so must requirements.yml (for users installing by hand).
"""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
GALAXY = yaml.safe_load((ROOT / 'galaxy.yml').read_text())


def load(path):
    return yaml.safe_load((ROOT / path).read_text())


def as_ranges(collections):
    """A requirements list ([{name, version}] or names) as {name: range}; a name listed twice is an error."""
    out = {}
    for entry in collections:
        name, version = (entry, '*') if isinstance(entry, str) else (entry['name'], str(entry.get('version', '*')))
        assert name not in out, '%s is listed twice' % name
        out[name] = version
    return out


def galaxy_dependencies():
    return {name: str(version) for name, version in (GALAXY.get('dependencies') or {}).items()}


def image_collections():
    galaxy = load('execution-environment.yml')['dependencies']['galaxy']
    if isinstance(galaxy, str):  # a requirements file, relative to the definition
        galaxy = load(galaxy)
    return as_ranges(galaxy['collections'])


def meta_collections():
    meta = load('meta/execution-environment.yml')
    path = meta['dependencies'].get('galaxy')
    assert path, 'meta/execution-environment.yml names no galaxy requirements file'
    assert not Path(path).is_absolute() and '..' not in Path(path).parts, \
        'ansible-builder wants paths relative to the collection root: %s' % path
    assert (ROOT / path).is_file(), '%s (named by meta/execution-environment.yml) does not exist' % path
    return as_ranges(load(path)['collections'])


def test_galaxy_yml_has_dependencies():
    assert galaxy_dependencies(), 'galaxy.yml lists no dependencies'


@pytest.mark.parametrize('source, read', [
    ('execution-environment.yml', image_collections),
    ('meta/execution-environment.yml', meta_collections),
    ('requirements.yml', lambda: as_ranges(load('requirements.yml')['collections'])),
])
def test_collections_match_galaxy_yml(source, read):
    wanted, listed = galaxy_dependencies(), read()
    missing = sorted(set(wanted) - set(listed))
    extra = sorted(set(listed) - set(wanted))
    assert not missing, '%s lacks %s (dependencies of galaxy.yml)' % (source, ', '.join(missing))
    assert not extra, '%s lists %s, which galaxy.yml does not depend on' % (source, ', '.join(extra))
    differ = {n: (listed[n], wanted[n]) for n in wanted if listed[n] != wanted[n]}
    assert not differ, '%s: ranges differ from galaxy.yml (listed, galaxy.yml): %s' % (source, differ)


def test_meta_requirements_file_is_in_the_tarball():
    """The file meta/execution-environment.yml names must not be left out of the build."""
    path = load('meta/execution-environment.yml')['dependencies']['galaxy']
    ignored = GALAXY.get('build_ignore', [])
    assert path not in ignored and Path(path).parts[0] not in ignored
