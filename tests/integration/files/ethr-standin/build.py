# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Write ``ethr`` (the stand-in) from template.py and the real ethr v1.0.0-5 output.

No package registry has ethr, so the lab tests install this stand-in through the tools
role's ``tools_ethr_src`` exactly as a user installs a real build. It is one file (the
tools role copies one binary), so the real outputs of tests/unit/fixtures/ethr/1.0.0-5/
are embedded in it; tests/unit/plugins/module_utils/test_ethr_standin.py checks that the
committed ``ethr`` equals what this script writes (run it again after a fixture changes).
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, '..', '..', '..', 'unit', 'fixtures', 'ethr', '1.0.0-5')
NAMES = ('help', 'tcp_bw', 'tcp_bw_n4', 'tcp_bw_reverse', 'udp_bw', 'tcp_cps', 'tcp_lat', 'http_bw',
         'unreachable', 'server_cps_rerun.condensed')


def render():
    outputs = {}
    for name in NAMES:
        with open(os.path.join(FIXTURES, name + '.txt')) as handle:
            outputs[name] = handle.read()
    with open(os.path.join(HERE, 'template.py')) as handle:
        template = handle.read()
    return template.replace('OUTPUTS = {}  # filled in by build.py',
                            'OUTPUTS = %s' % json.dumps(outputs, indent=1, sort_keys=True))


if __name__ == '__main__':
    text = render()
    if '--check' in sys.argv:
        with open(os.path.join(HERE, 'ethr')) as handle:
            sys.exit(0 if handle.read() == text else 1)
    path = os.path.join(HERE, 'ethr')
    with open(path, 'w') as handle:
        handle.write(text)
    os.chmod(path, 0o755)
