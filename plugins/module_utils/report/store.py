# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Result files: one JSON object a line (``perflab.result/1`` records and
``perflab.system/1`` profiles), appended as results arrive.

A record seen twice (the same run of a test with the same start, or the same system profile:
a backup copy of a results file in the folder, a file given twice under two names) is read
once; ``duplicates`` counts the copies left out by file, and the report says so.

A ``perflab.amendment/1`` line (record.amendment: the benchmark role's server side, sampled after the
record was stored) is no record of its own: its AMENDABLE fields replace those of the record with its
identity wherever that is read (``unique``); without it (a run that stopped before) the record is as stored.

Reading is tolerant: a line that is not JSON (a run killed while writing its
last line, a disk that filled up) is reported as ``file:line`` and skipped, so
everything measured before it still makes a report. A record of an unknown
schema *major* is not skipped: it means the file was written by a newer
perflab.network and a report from it would be wrong, so reading stops with
a clear error.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import errno
import glob
import json
import os
import tempfile

from ansible_collections.perflab.network.plugins.module_utils.core.record import SCHEMA as RESULT_SCHEMA
from ansible_collections.perflab.network.plugins.module_utils.core.record import AMENDABLE, AMENDMENT_SCHEMA, BULKY, record_run_key
from ansible_collections.perflab.network.plugins.module_utils.core.record import READABLE_MAJORS as RESULT_MAJORS

SYSTEM_SCHEMA = 'perflab.system/1'
# how an amendment line looks in a file (dumps writes no spaces)
MARK = b'"schema":"%s' % AMENDMENT_SCHEMA.rpartition('/')[0].encode('ascii')

RESULT = 'result'
SYSTEM = 'system'
AMENDMENT = 'amendment'

# schema name -> (kind, the majors this reader understands)
_KNOWN_SCHEMAS = {
    RESULT_SCHEMA.rpartition('/')[0]: (RESULT, tuple(RESULT_MAJORS)),
    SYSTEM_SCHEMA.rpartition('/')[0]: (SYSTEM, (int(SYSTEM_SCHEMA.rpartition('/')[2]),)),
    AMENDMENT_SCHEMA.rpartition('/')[0]: (AMENDMENT, (int(AMENDMENT_SCHEMA.rpartition('/')[2]),)),
}


class SchemaError(ValueError):
    """A record written with a schema major this version cannot read."""


class Problem(object):
    """A line that was skipped: where it is and why."""

    __slots__ = ('path', 'line', 'message')

    def __init__(self, path, line, message):
        self.path = path
        self.line = line
        self.message = message

    def __str__(self):
        return '%s:%s: %s' % (self.path, self.line, self.message)

    def __repr__(self):
        return 'Problem(%r)' % str(self)

    def as_dict(self):
        return {'file': self.path, 'line': self.line, 'error': self.message}


def parse_schema(value):
    """``'perflab.result/1'`` -> ``('perflab.result', 1)``; None when it is not such a string."""
    if not isinstance(value, str) or '/' not in value:
        return None
    name, _sep, version = value.rpartition('/')
    major = version.split('.')[0]
    if not name or not major.isdigit():
        return None
    return name, int(major)


# the fields of a result record the report groups and sorts by: a record whose field has another type
# (a dict as config) is skipped with its file:line like a corrupt line, not a crash of the whole report
_RESULT_TYPES = (('run_id', str), ('config', str), ('test_id', str), ('tool', str), ('status', str),
                 ('metrics', dict), ('options', dict), ('client', dict), ('server', dict))


def shape_problem(kind, obj):
    """Why a record of ``kind`` cannot be merged (a field of the wrong type), or None."""
    if kind not in (RESULT, AMENDMENT):
        return None
    for name, wanted in _RESULT_TYPES:
        value = obj.get(name)
        if value is not None and not isinstance(value, wanted):
            return 'field %s must be a %s, got %s' % (name, 'string' if wanted is str else 'mapping', type(value).__name__)
    return None


def classify(obj, where=''):
    """Return ``'result'`` or ``'system'`` for a record, None when it is no perflab record.

    Raises SchemaError when it is one of ours with a major this reader does not know.
    """
    parsed = parse_schema(obj.get('schema'))
    if parsed is None or parsed[0] not in _KNOWN_SCHEMAS:
        return None
    kind, majors = _KNOWN_SCHEMAS[parsed[0]]
    if parsed[1] not in majors:
        raise SchemaError(
            '%sschema %r is not supported: this perflab.network reads %s (and older majors) and %s only; '
            'read these results with the perflab.network version that wrote them, or a newer one'
            % ((where + ': ') if where else '', obj.get('schema'), RESULT_SCHEMA, SYSTEM_SCHEMA))
    return kind


def iter_file(path, problems, drop=()):
    """Yield ``(kind, record)`` for each usable line of ``path``.

    Unusable lines are appended to ``problems`` (a list of Problem) and skipped.
    ``drop`` names keys removed from each record as it is read (``raw`` can be
    64 KiB a record and no table needs it).
    """
    with open(path, 'rb') as handle:
        for number, line in enumerate(handle, 1):
            complete = line.endswith(b'\n')
            line = line.strip()
            if not line:
                continue
            try:
                obj = json.loads(line.decode('utf-8'))
            except ValueError as exc:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
                if complete:
                    message = 'not valid JSON, line skipped (%s)' % exc
                else:
                    message = ('last line is incomplete, skipped (the run was probably stopped while '
                               'writing it: %s)' % exc)
                problems.append(Problem(path, number, message))
                continue
            if not isinstance(obj, dict):
                problems.append(Problem(path, number, 'not a JSON object, line skipped'))
                continue
            kind = classify(obj, '%s:%d' % (path, number))
            if kind is None:
                problems.append(Problem(path, number, 'no perflab schema (%r), line skipped' % (obj.get('schema'),)))
                continue
            malformed = shape_problem(kind, obj)
            if malformed:
                problems.append(Problem(path, number, '%s, line skipped' % malformed))
                continue
            for key in drop:
                obj.pop(key, None)
            yield kind, obj


def identity(kind, obj):
    """What makes a record one and only one: a run of a test (the run key, its run and its start and
    end) or a system's profile (its run, label, host and time). Two copies of a file have the same."""
    if kind == SYSTEM:
        return (SYSTEM, obj.get('run_id'), obj.get('config'), obj.get('host'), obj.get('collected_at'))
    # an amendment has the identity of the record it amends
    return (RESULT, obj.get('run_id'), record_run_key(obj), obj.get('started_at'), obj.get('ended_at'),
            obj.get('status'))


def _key(kind, obj):
    key = identity(kind, obj)
    try:
        hash(key)
    except TypeError:  # a field of a type no table reads: the record is its own
        return None
    return key


def amendments(pairs):
    """identity -> the AMENDABLE fields of the amendment lines among ``(kind, record)`` ``pairs`` (the last one wins)."""
    out = {}
    for kind, obj in pairs:
        key = _key(kind, obj) if kind == AMENDMENT else None
        if key is not None:
            out[key] = dict((name, obj[name]) for name in AMENDABLE if name in obj)
    return out


def unique(pairs, duplicates, where, amended=None):
    """``(kind, record)`` pairs without the records already seen (by ``identity``); each one left out
    counts in ``duplicates`` (file -> count) under ``where()`` (the file being read). ``amended``
    (``amendments``): the fields that replace a record's; the amendment lines themselves are left out."""
    seen = set()
    for kind, obj in pairs:
        if kind == AMENDMENT:
            continue
        key = _key(kind, obj)
        if key is not None and amended and key in amended:
            obj = dict(obj, **amended[key])
        if key is not None and key in seen:
            name = where()
            duplicates[name] = duplicates.get(name, 0) + 1
            continue
        if key is not None:
            seen.add(key)
        yield kind, obj


def duplicates_note(duplicates):
    """The report's warning about ``duplicates`` (file -> records left out), or None."""
    if not duplicates:
        return None
    total = sum(duplicates.values())
    return ('%d record(s) were read more than once and counted once (a copy of a results file, or a file given '
            'twice): %s' % (total, ', '.join('%d in %s' % (count, name) for name, count in sorted(duplicates.items()))))


class ResultFiles(object):
    """A re-iterable source of ``(kind, record)`` over result files, in the order given.

    The report reads its source twice (statistics first, then the streamed
    Raw and Intervals rows) instead of holding every record in memory.
    ``problems`` holds the skipped lines of the last complete pass, ``duplicates``
    the records left out as copies of one read before (file -> count).
    """

    def __init__(self, paths, drop=('raw',)):
        self.paths = list(paths)
        self.drop = tuple(drop)
        self.problems = []
        self.duplicates = {}

    def _read(self, problems):
        for path in self.paths:
            for kind, obj in iter_file(path, problems, self.drop):
                yield path, kind, obj

    def _amendments(self):
        # a first look for amendment lines only (few and small): the records they amend may come before them
        def marked():
            for path in self.paths:
                with open(path, 'rb') as handle:
                    for line in handle:
                        if MARK in line:
                            try:
                                obj = json.loads(line.decode('utf-8'))
                            except ValueError:
                                continue
                            if isinstance(obj, dict) and obj.get('schema') == AMENDMENT_SCHEMA \
                                    and not shape_problem(AMENDMENT, obj):
                                yield AMENDMENT, obj
        return amendments(marked())

    def __iter__(self):
        problems = []
        duplicates = {}
        current = ['']

        def read():
            for path, kind, obj in self._read(problems):
                current[0] = path
                yield kind, obj
        yield from unique(read(), duplicates, lambda: current[0], self._amendments())
        self.problems = problems
        self.duplicates = duplicates


class RecordList(object):
    """A re-iterable source over records already in memory (dicts of either schema)."""

    def __init__(self, records, drop=()):
        self.records = list(records)
        self.drop = tuple(drop)
        self.problems = []
        self.duplicates = {}

    def _read(self, problems):
        for index, obj in enumerate(self.records, 1):
            if not isinstance(obj, dict):
                problems.append(Problem('<records>', index, 'not a mapping, skipped'))
                continue
            kind = classify(obj, '<records>:%d' % index)
            if kind is None:
                problems.append(Problem('<records>', index, 'no perflab schema (%r), skipped' % (obj.get('schema'),)))
                continue
            if self.drop:
                obj = dict((key, value) for key, value in obj.items() if key not in self.drop)
            yield kind, obj

    def __iter__(self):
        problems = []
        duplicates = {}
        yield from unique(self._read(problems), duplicates, lambda: '<records>',
                          amendments(self._read([])))
        self.problems = problems
        self.duplicates = duplicates


def read_files(paths, drop=('raw',)):
    """Read everything at once: ``(results, systems, problems)``."""
    source = ResultFiles(paths, drop=drop)
    results = []
    systems = []
    for kind, obj in source:
        (results if kind == RESULT else systems).append(obj)
    return results, systems, source.problems


def read_run(path):
    """The result records of one run's file (for a resume), read as the report reads them (its
    problems skipped, copies once), without the bulky fields a plan never needs. No file: []."""
    if not path or not os.path.exists(path):
        return []
    return [obj for kind, obj in ResultFiles([path], drop=BULKY)
            if kind == RESULT]


def expand_sources(patterns):
    """Expand file names, globs and directories (their ``*.jsonl``) into a list of files.

    Returns ``(paths, unmatched)``: paths in the order given (each glob sorted),
    without duplicates; ``unmatched`` lists the patterns that matched no file.
    """
    paths = []
    seen = set()
    unmatched = []
    for pattern in patterns:
        pattern = os.path.expanduser(str(pattern))
        if glob.has_magic(pattern):
            found = sorted(path for path in glob.glob(pattern) if os.path.isfile(path))
        elif os.path.isdir(pattern):
            found = sorted(glob.glob(os.path.join(glob.escape(pattern), '*.jsonl')))
        elif os.path.isfile(pattern):
            found = [pattern]
        else:
            found = []
        if not found:
            unmatched.append(pattern)
        for path in found:
            key = os.path.realpath(path)
            if key not in seen:
                seen.add(key)
                paths.append(path)
    return paths, unmatched


def _json_default(value):
    # the callback gets native types from ansible-core; anything else (a
    # datetime from a custom module) is stored as its text
    return str(value)


def dumps(record):
    """One JSON line (no newline) for ``record``."""
    return json.dumps(record, ensure_ascii=False, separators=(',', ':'), default=_json_default)


def _write_all(fd, data):
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def append_records(path, records):
    """Append ``records`` to ``path``, one line each, and make them durable (fsync).

    A crash after this returns loses nothing that was appended. When a crash
    left the file without a final newline, a newline is written first so the
    new line does not get glued to the broken one (the reader then skips only
    the broken line).
    """
    data = ''.join(dumps(record) + '\n' for record in records).encode('utf-8')
    if not data:
        return
    created = not os.path.exists(path)
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        size = os.fstat(fd).st_size
        if size and os.pread(fd, 1, size - 1) != b'\n':
            data = b'\n' + data
        try:
            _write_all(fd, data)
            os.fsync(fd)
        except OSError:
            # a full disk takes part of the data: cut it off, so that the file keeps only
            # complete lines and a retry does not store the first records twice
            try:
                os.ftruncate(fd, size)
            except OSError:
                pass
            raise
    finally:
        os.close(fd)
    if created:
        _fsync_directory(os.path.dirname(os.path.abspath(path)))


def append_record(path, record):
    append_records(path, [record])


def _fsync_directory(directory):
    # a new file's directory entry is durable only once the directory is synced
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def check_writable(directory):
    """Create ``directory`` if needed and prove a file can be written there.

    Returns None when it can, else a message saying what failed. The results
    callback and the benchmark role's preflight call this before any test runs.
    """
    directory = os.path.expanduser(directory)
    try:
        os.makedirs(directory)
    except OSError as exc:
        if exc.errno != errno.EEXIST:
            return 'cannot create the results directory %s: %s' % (directory, exc.strerror or exc)
    if not os.path.isdir(directory):
        return 'the results directory %s exists but is not a directory' % directory
    try:
        fd, probe = tempfile.mkstemp(prefix='.perflab-write-test-', dir=directory)
        try:
            _write_all(fd, b'perflab\n')
            os.fsync(fd)
        finally:
            os.close(fd)
            os.unlink(probe)
    except OSError as exc:
        return 'the results directory %s is not writable: %s' % (directory, exc.strerror or exc)
    return None
