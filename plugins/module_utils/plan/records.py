# -*- coding: utf-8 -*-
# Copyright (c) perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Records the benchmark role emits on the controller (pure, no I/O).

* ``planned_record``: the record of a plan item that did not run (skipped: its tool is
  missing; failed: a stage before the tests failed), with the test, protocol and id a run
  would give, so that the report says why.
* ``failed_host_labels``, ``host_failure``: the label and the reason of the records of a pair whose
  host failed before the tests (a host without python, unreachable, a failed MTU check): left out of the
  run, its planned tests recorded failed.
* ``server_verdict``: a test's record amended with what its server's log showed
  (bench_server state=status ``log_problems``): the tool's ``server_log_message``.
* ``amendments``: the amendment lines of records stored before their server's side was read (the server's
  sampler, read once after a client's tests): the store puts them into the stored records.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import copy

from ansible_collections.perflab.network.plugins.module_utils.core import limits
from ansible_collections.perflab.network.plugins.module_utils.core import record as records
from ansible_collections.perflab.network.plugins.module_utils.core.record import BULKY
from ansible_collections.perflab.network.plugins.module_utils.tools import registry
from ansible_collections.perflab.network.plugins.module_utils.plan import repetitions


def item_key(item):
    """What tells one planned run from another: the one run key (label, pair, test, repetition)."""
    return records.record_run_key(item)


def record_key(record):
    return records.record_run_key(record)


def planned_record(item, status, reason, run_id=None, suite_name=None):
    """The record of plan ``item`` that did not run, with ``status`` (skipped or failed) and ``reason``."""
    tool = registry.get(item['tool'])
    test_params = tool.params_of(item['test'], item.get('parallel_asked') or item['parallel'], item['processes'],
                                 item['options'])
    test, protocol, direction = tool.record_test(test_params)
    params = dict(run_id=run_id or item.get('run_id'), config=item.get('config'),
                  suite=suite_name or item.get('suite'), repetition=item['repetition'],
                  parallel=item['parallel'], duration=item['duration'], client_name=item['client'],
                  server_name=item['server'], server=item['server_address'], bind=item['client_address'],
                  nic_interface=item.get('client_interface'), title=item.get('title'))
    # built on the controller: no host facts (MTU) of the controller end up in it
    rec = records.new_record(params, item['tool'], test, protocol, direction, item['test_id'],
                             options=tool.given_options(test_params), parallel=tool.effective_parallel(test_params),
                             notes=tool.notes(test_params), reading=tool.reading(test_params))
    records.finish_record(rec, None, status, error=reason)
    if item.get('repetitions_auto'):
        # an auto test's record says its rule, and that it stopped here (failed or skipped)
        repetitions.annotate(rec, item['repetitions_auto'], item.get('repetitions_earlier') or [])
    return rec


def unrun_records(items, reason, done=()):
    """Failed records of the ``items`` whose key is not in ``done`` (records or keys that exist already)."""
    done_keys = set(record_key(entry) if isinstance(entry, dict) else entry for entry in done)
    # the repetitions of an auto test beyond where its rule stopped it are not run, and not failures
    stopped = repetitions.stopped(entry for entry in done if isinstance(entry, dict))
    return [planned_record(item, 'failed', reason) for item in items
            if item_key(item) not in done_keys and not (item.get('repetitions_auto')
                                                        and repetitions.test_key(item) in stopped)]


def test_results(results):
    """(returned, unstarted): the records bench_test's registered ``results`` (each with its plan item as
    ``item``) returned, and a failed record for each test that failed before its tool ran (its module refused
    an option: no record), so that no planned test vanishes. A test whose host became unreachable gets none:
    it was not done (a resumed run does it)."""
    returned, unstarted = [], []
    for result in results:
        if result.get('perflab_result') is not None:
            returned += result['perflab_result']
        elif result.get('failed') and 'unreachable' not in result:
            unstarted.append(planned_record(result['item'], 'failed',
                                            'the test did not start: %s' % (result.get('msg') or 'no message')))
    return returned, unstarted


def amendments(stored, sampled):
    """The amendment lines (record.amendment) of ``stored`` records (the role's copies, bulky fields left out) whose
    server's side is in ``sampled`` (by the server's name): its interface, MTU and link speed, and limited_by judged
    again with its samples of each test's seconds (limits.with_server). A record whose server was not sampled gets none."""
    out = []
    for record in stored:
        side = (sampled or {}).get((record.get('server') or {}).get('name'))
        if side:
            out.append(records.amendment(limits.with_server(copy.deepcopy(record), side)))
    return out


def finish_argument_spec():
    """bench_record's options (its module and its action plugin, which runs ``finish`` in the controller's worker)."""
    return dict(
        items=dict(type='list', elements='dict', default=[]),
        reason=dict(type='str', default='a stage before the tests failed'),
        done=dict(type='list', elements='dict', default=[]),
        records=dict(type='list', elements='dict', default=[]),
        servers=dict(type='list', elements='dict', default=[]),
        server_error=dict(type='str'),
        results=dict(type='list', elements='dict', default=[]),
        sampled=dict(type='dict', default={}),
        amend=dict(type='bool', default=False),
    )


def finish_result(params):
    """bench_record's result for its validated ``params``: the records to store and those finished, or a failure."""
    try:
        out, finished = finish(**params)
    except (KeyError, TypeError, ValueError) as exc:
        return {'failed': True, 'msg': 'bench_record: an item or record lacks what a record needs: %s' % exc}
    return {'changed': False, 'perflab_result': out, 'perflab_finished': finished}


def finish(items=(), reason='', done=(), records=(), servers=(), server_error=None, results=(), sampled=None,
           amend=False):
    """What bench_record does: (the records to store, every record this call finished).

    To store: the failed records of ``results`` that did not start (test_results), the held ``records`` with
    what their servers' logs showed (server_verdict), and a failed record for each of the ``items`` that has
    none among ``done`` and these (a stage kept it from running); ``sampled``: the server side of the held
    records by their server's name (limits.with_server). Finished: those, and the records the
    ``results`` returned themselves (the callback stored them already): the benchmark role keeps them, one list
    of the records of its run (the summary, the auto repetitions' rule, the items a failed stage left).

    ``amend``: the ``records`` were stored already; only their amendments (``amendments``) are returned, to store,
    and nothing as finished (the role has them).
    """
    if amend:
        return amendments(records, sampled), []
    returned, new = test_results(results)
    new += [limits.with_server(server_verdict(record, servers, server_error),
                               (sampled or {}).get((record.get('server') or {}).get('name')))
            for record in records]
    new += unrun_records(items, reason, list(done) + returned + new)
    # kept without their bulky fields: what they measured, as a resume reads a results file
    return new, [dict((key, value) for key, value in record.items() if key not in BULKY)
                 for record in returned + new]


def failed_host_labels(labels, pairs, failed):
    """``labels`` with one for each failed host that has none (its facts never came): its pair's other
    host's, else the one label of the run's other hosts, so that the pair's failed records stand in the
    column the pair would have filled."""
    out = dict(labels)
    # when the peer failed too: the run's label, if every labelled host carries the same one
    shared = set(label for label in labels.values() if label)
    for pair in pairs:
        for host, peer in ((pair['client'], pair['server']), (pair['server'], pair['client'])):
            if host in failed and not labels.get(host):
                out[host] = labels.get(peer) or (shared.pop() if len(shared) == 1 else '(unlabelled: %s failed)' % host)
                shared = set(label for label in labels.values() if label)
    return out


def host_failure(lost, failed, item):
    """Why the tests of ``item``'s pair did not run: its hosts of ``lost`` failed before the tests."""
    unknown = ' (it failed or became unreachable in an earlier stage: see its error above)'
    reasons = ['%s failed before the tests%s' % (host, ': %s' % failed[host] if failed[host] else unknown)
               for host in lost]
    return 'not run: %s; the pair %s->%s was left out, the other pairs ran' % (
        '; '.join(reasons), item['client'], item['server'])


def server_verdict(record, servers, server_error=None):
    """``record`` (a copy) with what the logs of its servers (bench_server ``servers``: the status
    of the servers of the record's pair, as the benchmark role asks for them) showed.

    An ``ok`` record whose server logged one of the tool's ``server_log_problems`` during the
    test becomes ``failed`` with the tool's message (its values are kept: they are what the
    tool printed); a record whose server log could not be read, or reached its bound during
    the test (``full``: lines after it were lost, so the count is a lower bound and none
    found means the test was not checked), gets a note saying so.
    """
    record = copy.deepcopy(record)
    tool = registry.get(record['tool'])
    if not tool.server_log_problems:
        return record
    if server_error:
        records.add_note(record, 'the server log was not checked: %s' % server_error)
        return record
    for server in [entry for entry in servers or [] if entry.get('tool') == record['tool']]:
        problems = server.get('log_problems') or {}
        if problems.get('full'):
            records.add_note(record, 'port %s: the server log was %s: it reached its bound (%d bytes) during the '
                                     'test and the lines after it were lost'
                             % (server.get('port'), 'checked only in part' if problems.get('count') else 'not checked',
                                problems.get('size') or 0))
        if not problems.get('count'):
            continue
        count = ('at least %d' if problems.get('full') else '%d') % problems['count']
        message = tool.server_log_message % {'count': count, 'nofile': server.get('nofile') or '?',
                                             'line': (problems.get('lines') or [''])[0]}
        records.add_note(record, 'port %s: %s' % (server.get('port'), message))
        if record['status'] == 'ok':
            record['status'] = 'failed'
            record['error'] = message
            # a failed record carries no NIC rates as results (its nic samples stay)
            for name in [name for name in record['metrics'] if name.startswith('nic_')]:
                del record['metrics'][name]
    return record
