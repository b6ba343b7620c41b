# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The reliability and security battery's ledger, printed as a table at the end of pytest.

Each case of the battery runs inside ``battery.case(section, name)``; the case is
counted as passed only if its block finishes without an exception, so a failed
assertion shows in the table as well as in pytest's own report::

    with battery.case('fault', 'iperf3 server killed mid-test') as case:
        ...  # cause the fault, check what happened
        case.lost = len(finished - recorded)   # finished results missing from the JSONL
        case.detail = 'error recorded: connection reset'

Sections: ``fault`` (survived or not), ``bad input`` (rejected cleanly or not),
``security`` (held or not). ``conftest.pytest_terminal_summary`` prints the table; under
pytest-xdist each worker hands its cases to the controller (``dump``/``load``), so the table
is still one.
Imported by name (tests/integration is on pytest's pythonpath) so that conftest and
the test modules share this one ledger. The helpers the battery files share live here
too: ``collect`` (go on after a failed case), ``check_message`` (a refusal names the
field and what is allowed), and ``role_case_tasks`` / ``check_role_cases`` (bad input
to the roles, each case a block whose rescue shows the refusal; the host checks are
the caller's).
"""
from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass

SECTIONS = {'fault': ('survived', 'NOT SURVIVED'),
            'bad input': ('rejected cleanly', 'NOT REJECTED CLEANLY'),
            'security': ('held', 'FAILED')}


@dataclass
class Case:
    section: str
    name: str
    passed: bool = False
    lost: int = 0
    detail: str = ''


LEDGER: list[Case] = []


@contextlib.contextmanager
def case(section, name):
    """Record one battery case; it passes if the block ends without an exception."""
    if section not in SECTIONS:
        raise ValueError('unknown battery section %r, expected one of %s' % (section, ', '.join(SECTIONS)))
    entry = Case(section, name)
    LEDGER.append(entry)
    try:
        yield entry
    except BaseException as exc:  # the table shows why; pytest still reports the failure
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        entry.detail = (entry.detail + '; ' if entry.detail else '') + first[:160]
        raise
    entry.passed = True


@contextlib.contextmanager
def collect(failures, name):
    """Go on with the next case after a failed one (its battery.case recorded it); the test fails at the end."""
    try:
        yield
    except AssertionError as exc:
        failures.append('%s: %s' % (name, str(exc)[:2000]))


def check_message(message, field, allowed):
    """The refusal names the field and every piece of what is allowed."""
    assert field in message, 'the message does not name %s: %s' % (field, message)
    for text in allowed:
        assert text in message, 'the message does not say %r is allowed: %s' % (text, message)


def key_words(message, limit=110):
    return ' '.join(str(message).split())[:limit]


def role_case_tasks(cases, tasks_from=None):
    """The tasks of a play that runs bad input through the roles: for each case (its index in the
    cases, the role, its variables) a block that includes the role (at ``tasks_from[role]`` when
    given), with the rescue task ``refused NN`` that ``check_role_cases`` reads."""
    tasks = []
    for i, role, role_vars in cases:
        include = {'name': 'perflab.network.' + role}
        if role in (tasks_from or {}):
            include['tasks_from'] = tasks_from[role]
        tasks.append({'name': 'case %02d' % i,
                      'block': [{'name': 'run %02d' % i, 'ansible.builtin.include_role': include, 'vars': role_vars},
                                {'name': 'accepted %02d' % i, 'ansible.builtin.debug': {'msg': 'accepted'}}],
                      'rescue': [{'name': 'refused %02d' % i, 'ansible.builtin.debug': {'var': 'ansible_failed_result'}}]})
    return tasks


def check_role_cases(res, cases, host_checks):
    """Each bad-input case of the roles (name, role, variables, the field its refusal must name, what
    it must say is allowed), run by ``role_case_tasks``, is a battery case: refused, with a message
    naming the field and what is allowed, and ``host_checks()`` (the test's own assertions that the
    hosts did not change) holds. Every case is checked; the test fails at the end with all failures."""
    failures = []
    for i, (name, role, dummy, field, allowed) in enumerate(cases):
        with collect(failures, name), case('bad input', '%s role: %s' % (role, name)) as entry:
            refused = res.task_results('refused %02d' % i)
            assert refused, 'the %s role accepted it' % role
            failed = list(refused.values())[0].get('ansible_failed_result', {})
            entry.detail = key_words(failed.get('msg'))
            check_message(json.dumps([failed.get('msg'), failed.get('argument_errors')]), field, allowed)
            host_checks()
    assert not failures, '\n'.join(failures)


def dump():
    """The ledger as JSON: how a pytest-xdist worker hands its cases to the controller."""
    return json.dumps([vars(c) for c in LEDGER])


def load(text):
    """Add the cases a worker dumped to this process's ledger (the controller's)."""
    LEDGER.extend(Case(**c) for c in json.loads(text or '[]'))


def table(ledger=None):
    """The battery's table as lines of text (empty when no battery case ran)."""
    ledger = LEDGER if ledger is None else ledger
    if not ledger:
        return []
    width = max(len(c.name) for c in ledger)
    lines = ['%-10s  %-*s  %-20s  %4s  %s' % ('section', width, 'case', 'outcome', 'lost', 'detail')]
    for c in ledger:
        outcome = SECTIONS[c.section][0 if c.passed else 1]
        lines.append('%-10s  %-*s  %-20s  %4d  %s' % (c.section, width, c.name, outcome, c.lost, c.detail))
    lines.append('')
    for section, (good, dummy) in SECTIONS.items():
        cases = [c for c in ledger if c.section == section]
        if cases:
            lines.append('%s: %d tried, %d %s' % (section, len(cases), sum(c.passed for c in cases), good))
    lines.append('results lost: %d' % sum(c.lost for c in ledger))
    return lines
