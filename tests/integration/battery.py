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
``security`` (held or not). ``conftest.pytest_terminal_summary`` prints the table.
Imported by name (tests/integration is on pytest's pythonpath) so that conftest and
the test modules share this one ledger.
"""
from __future__ import annotations

import contextlib
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
