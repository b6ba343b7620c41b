# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The file name rule, the user path rule and the run lock (issue 20, points 1-3)."""
from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json
import os

import pytest

from ansible_collections.perflab.network.plugins.filter.file_name_problem import file_name_problem
from ansible_collections.perflab.network.plugins.filter.user_path import FilterModule as UserPathFilters
from ansible_collections.perflab.network.plugins.module_utils.core import names
from ansible_collections.perflab.network.plugins.module_utils.host import run_lock

RULE = '1 to 64 letters, digits, _ . -, starting with a letter or a digit'


@pytest.mark.parametrize('value', ['r1', 'A', '20261129T184000Z-ab12', 'a' * 64, 'x.y_z-1'])
def test_names_that_may_name_files(value):
    assert names.name_problem('perflab_run_id', value) is None and file_name_problem(value, 'perflab_run_id') == ''


@pytest.mark.parametrize('value, shown', [
    ('a' * 65, "'%s... (65 characters)'" % ('a' * 40)),
    ('x' * 300, "'%s... (300 characters)'" % ('x' * 40)),
    ('.hidden', "'.hidden'"), ('-rf', "'-rf'"), ('', "''"), ('a/b', "'a/b'"), ('a b', "'a b'"), ('..', "'..'"),
])
def test_names_that_may_not(value, shown):
    assert names.name_problem('perflab_run_id', value) == \
        'perflab_run_id must be %s (it names files), got %s' % (RULE, shown)


def test_user_paths_are_resolved_once_against_the_users_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    user_path = UserPathFilters().filters()['user_path']
    assert user_path('results') == str(tmp_path / 'results')
    assert user_path('./a/../results/') == str(tmp_path / 'results')
    assert user_path('/abs/x') == '/abs/x'
    assert user_path('~/r') == os.path.join(os.path.expanduser('~'), 'r')
    assert names.user_path('results', cwd='/srv/lab') == '/srv/lab/results'


ME = {'controller': 'ctl', 'pid': 4242, 'token': 'ctl:4242:777'}
OTHER = {'controller': 'ctl', 'pid': 4343, 'token': 'ctl:4343:888'}


def test_the_lock_is_taken_once_and_refused_to_another_run(tmp_path):
    path = str(tmp_path / 'perflab' / 'run.lock')
    assert run_lock.acquire('run-a', ME, 60, path)[:2] == (True, True)
    held = json.loads(open(path).read())
    assert (held['run_id'], held['controller'], held['pid'], held['token']) == ('run-a', 'ctl', 4242, 'ctl:4242:777')
    assert held['expires_at'] > held.get('expires_at', 0) - 1 and 'started' in held
    assert run_lock.acquire('run-a', ME, 60, path)[:2] == (True, False)        # ours already
    taken, changed, holder = run_lock.acquire('run-b', OTHER, 60, path)
    assert (taken, changed, holder['run_id']) == (False, False, 'run-a')
    assert run_lock.release(OTHER, path)[0] is False and os.path.exists(path)  # not theirs to give back
    assert run_lock.acquire('run-b', OTHER, 60, path, replace='wrong-token')[0] is False
    assert run_lock.acquire('run-b', OTHER, 60, path, replace=ME['token'])[:2] == (True, True)
    assert run_lock.read(path)['run_id'] == 'run-b'
    assert run_lock.release(OTHER, path)[0] is True and not os.path.exists(path)


def test_stale_locks_are_told_from_live_ones():
    me = {'controller': 'ctl', 'pid': 1, 'token': 'x'}
    alive = dict(OTHER, expires_at=2000)
    # same controller, the pid still runs the same process (same start time): live
    assert run_lock.stale(alive, now=1000, me=me, start_time=lambda pid: '888') == ''
    # same controller, the process is gone (no start time) or the pid was reused (another start time)
    assert run_lock.stale(alive, now=1000, me=me, start_time=lambda pid: '') == \
        'its ansible-playbook (pid 4343 on ctl) is gone'
    assert run_lock.stale(alive, now=1000, me=me, start_time=lambda pid: '999') != ''
    # another controller: live until it expires
    remote = dict(alive, controller='elsewhere', token='elsewhere:4343:888')
    assert run_lock.stale(remote, now=1000, me=me, start_time=lambda pid: '') == ''
    assert run_lock.stale(remote, now=3000, me=me).startswith('it expired at 1970-01-01T00:33:20Z')


def test_our_own_process_is_a_live_owner():
    me = run_lock.owner()
    assert me['pid'] == os.getpid() and me['token'].startswith('%s:%d:' % (me['controller'], os.getpid()))
    assert run_lock.stale(dict(me, run_id='r', expires_at=0), me=me) == ''


# issue 29 point 12: a lock file no run wrote is told apart, said what it is, stale, and replaceable
@pytest.mark.parametrize('make, what', [
    (lambda p: open(p, 'w').close(), 'empty'),
    (lambda p: open(p, 'w').write('\n  \n'), 'empty'),
    (lambda p: open(p, 'w').write('garbage\x00here'), 'not a lock: "garbage\\u0000here"'),
    (lambda p: open(p, 'w').write('[1, 2]'), 'not a lock: "[1, 2]"'),
    (lambda p: open(p, 'w').write('{"run_id": "r"}'), 'a JSON object without controller, pid, token'),
    (lambda p: open(p, 'w').write('{"run_id": "r", "controller": "c", "pid": 1, "tok'), 'not a lock: '),
    (os.mkdir, 'a directory, not a file'),
])
def test_a_malformed_lock_is_stale_and_taken_over(tmp_path, make, what):
    path = str(tmp_path / 'run.lock')
    make(path)
    holder = run_lock.read(path)
    assert holder['malformed'].startswith(what), holder
    assert run_lock.stale(holder, me=ME) == 'the lock file is malformed (%s)' % holder['malformed']
    assert run_lock.describe(holder, path) == 'a malformed lock file %s (%s)' % (path, holder['malformed'])
    # refused while not judged, taken over naming its token, then an ordinary lock of ours
    assert run_lock.acquire('run-a', ME, 60, path)[:2] == (False, False)
    assert run_lock.acquire('run-a', ME, 60, path, replace='malformed:other')[0] is False
    assert run_lock.acquire('run-a', ME, 60, path, replace=holder['token'])[:2] == (True, True)
    assert run_lock.read(path)['run_id'] == 'run-a' and os.path.isfile(path)
    assert sorted(os.listdir(str(tmp_path))) == ['run.lock']      # no temporary file left


def test_a_malformed_lock_is_released_by_its_token(tmp_path):
    for make in (os.mkdir, lambda p: open(p, 'w').write('x')):
        path = str(tmp_path / 'run.lock')
        make(path)
        token = run_lock.read(path)['token']
        assert run_lock.release(ME, path)[0] is False and os.path.lexists(path)
        assert run_lock.release(ME, path, replace=token)[0] is True and not os.path.lexists(path)


def test_two_malformed_contents_have_different_tokens(tmp_path):
    one, two = str(tmp_path / 'a'), str(tmp_path / 'b')
    open(one, 'w').write('x')
    open(two, 'w').write('y')
    assert run_lock.read(one)['token'] != run_lock.read(two)['token']


def test_an_unreadable_lock_is_malformed_with_the_reason(tmp_path, monkeypatch):
    path = str(tmp_path / 'run.lock')
    open(path, 'w').write('{}')
    real_open = open

    def denied(name, *args, **kwargs):
        if name == path:
            raise IOError(13, 'Permission denied')
        return real_open(name, *args, **kwargs)
    monkeypatch.setattr('builtins.open', denied)
    assert run_lock.read(path)['malformed'] == 'cannot be read: Permission denied'


def test_a_lock_that_cannot_be_written_says_why(tmp_path, monkeypatch):
    blocker = tmp_path / 'perflab'
    blocker.write_text('a file where the lock directory should be')
    with pytest.raises(run_lock.LockError) as err:
        run_lock.acquire('run-a', ME, 60, str(blocker / 'run.lock'))
    assert str(err.value) == 'cannot write the run lock %s/run.lock: %s is not a directory' % (blocker, blocker)
    # a directory this user cannot write (what a connection without become meets in /run/perflab)
    directory = tmp_path / 'ro'
    directory.mkdir()
    monkeypatch.setattr(os, 'access', lambda path, mode: False)
    monkeypatch.setattr(os, 'geteuid', lambda: 1000)
    real_open = open

    def denied(name, *args, **kwargs):
        if str(name).startswith(str(directory)):
            raise IOError(13, 'Permission denied')
        return real_open(name, *args, **kwargs)
    monkeypatch.setattr('builtins.open', denied)
    with pytest.raises(run_lock.LockError) as err:
        run_lock.acquire('run-a', ME, 60, str(directory / 'run.lock'))
    message = str(err.value)
    assert message.startswith('cannot write the run lock %s/run.lock: Permission denied' % directory), message
    assert 'the directory %s (mode 0755, owner uid 0) is not writable by uid 1000' % directory in message, message
    assert 'in use by' not in message


def test_an_ordinary_lock_is_not_malformed(tmp_path):
    path = str(tmp_path / 'run.lock')
    run_lock.acquire('run-a', ME, 60, path)
    assert 'malformed' not in run_lock.read(path) and run_lock.read(str(tmp_path / 'none')) == {}


def test_a_lock_on_a_read_only_file_system_says_so(tmp_path, monkeypatch):
    directory = tmp_path / 'perflab'
    directory.mkdir()
    real_open = open

    def read_only(name, *args, **kwargs):
        if str(name).startswith(str(directory)) and args and 'w' in args[0]:
            raise OSError(30, 'Read-only file system')
        return real_open(name, *args, **kwargs)
    monkeypatch.setattr('builtins.open', read_only)
    with pytest.raises(run_lock.LockError) as err:
        run_lock.acquire('run-a', ME, 60, str(directory / 'run.lock'))
    assert str(err.value) == ('cannot write the run lock %s/run.lock: Read-only file system; %s is on a read-only '
                              'file system' % (directory, directory))


# -- issue 29.17: user paths that are system directories -------------------------------------------------
@pytest.mark.parametrize('path', ['/', '/etc', '/etc/', '/etc/perflab', '/usr', '/usr/lib', '/usr/local/lib/x', '/boot',
                                  '/var/lib', '/var/lib/perflab', '/var/log/r', '/proc/1', '/sys', '/dev/shm', '/run',
                                  '/bin', '/sbin', '/lib64', '/var', '/opt', '/home', '/srv', '/mnt'])
def test_system_directories_are_refused(path):
    problem = names.system_path_problem('perflab_results_dir', path)
    assert problem and problem.startswith('perflab_results_dir must be not a system directory: not / /home')
    assert 'nor anything below /bin /boot /dev /etc' in problem and os.path.normpath(path) in problem


@pytest.mark.parametrize('path', ['/tmp/r', '/tmp', '/home/me/results', '/opt/perflab/results', '/srv/lab/results',
                                  '/var/tmp/r', '/root/results', 'results', '~/results', '', None])
def test_other_directories_are_accepted(path):
    assert names.system_path_problem('perflab_results_dir', path) is None


def test_a_link_into_a_system_directory_is_refused(tmp_path):
    (tmp_path / 'r').symlink_to('/etc')
    problem = names.system_path_problem('perflab_results_dir', str(tmp_path / 'r'))
    assert problem and problem.endswith('got %s (/etc)' % (tmp_path / 'r'))
