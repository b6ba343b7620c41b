# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Stand-in for the pip bootstrap script that ansible-test downloads.

ansible-test fetches get-pip.py from a host this lab network may not reach,
and runs it in fresh venvs with pip's configured CA file hidden. This script
takes its place: it installs pip from the interpreter's own ensurepip, then
runs `pip install` with ansible-test's arguments and the CA file from pip's
configuration. scripts/bootstrap.sh copies it into ansible-test's cache.
"""
import configparser
import os
import subprocess
import sys


def configured_cert():
    for path in ('/etc/pip.conf', '/etc/xdg/pip/pip.conf', os.path.expanduser('~/.config/pip/pip.conf'),
                 os.path.expanduser('~/.pip/pip.conf')):
        parser = configparser.ConfigParser()
        try:
            parser.read(path)
        except configparser.Error:
            continue
        if parser.has_option('global', 'cert'):
            return parser.get('global', 'cert')
    return os.environ.get('PIP_CERT') or os.environ.get('SSL_CERT_FILE')


def main():
    subprocess.check_call([sys.executable, '-m', 'ensurepip', '--upgrade', '--default-pip'])
    args = [a for a in sys.argv[1:] if a not in ('--no-setuptools', '--no-wheel')]
    cert = configured_cert()
    cmd = [sys.executable, '-m', 'pip', 'install'] + (['--cert', cert] if cert else []) + args
    sys.exit(subprocess.call(cmd))


if __name__ == '__main__':
    main()
