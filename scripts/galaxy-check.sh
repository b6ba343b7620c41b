#!/usr/bin/env bash
# What Galaxy checks on upload, without its container: build the collection tarball
# into a temporary directory, run galaxy-importer on it (scripts/galaxy-importer.cfg:
# no ansible-test, `make sanity` runs that; no ansible-lint, `make lint` runs it with the production
# profile), then antsibull-docs' docs linter on the
# checkout. Any WARNING or ERROR of the importer fails, as does any finding of the linter.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=$(cd "${BIN:-.venv/bin}" && pwd)
export PATH="$BIN:$PATH"
export ANSIBLE_CONFIG=${ANSIBLE_CONFIG:-$PWD/ansible.cfg}
export GALAXY_IMPORTER_CONFIG="$PWD/scripts/galaxy-importer.cfg"
start=$(date +%s)
work=$(mktemp -d /tmp/perflab-galaxy-check.XXXXXX)
trap 'rm -rf "$work"' EXIT

"$BIN/ansible-galaxy" collection build --force --output-path "$work" >/dev/null
tarball=$(ls "$work"/*.tar.gz)
echo "galaxy-check: $(basename "$tarball"), $(tar -tzf "$tarball" | wc -l) entries, $(du -k "$tarball" | cut -f1) KiB"

# the importer writes importer_result.json into its working directory
rc=0
(cd "$work" && "$BIN/python" -m galaxy_importer.main "$tarball" >importer.log 2>&1) || rc=$?
problems=$(grep -E '^(WARNING|ERROR|CRITICAL):' "$work/importer.log" || true)
if [ "$rc" -ne 0 ] || [ -n "$problems" ] || ! grep -q 'Importer processing completed successfully' "$work/importer.log"; then
    cat "$work/importer.log"
    echo "galaxy-check: galaxy-importer failed (exit $rc, $(printf '%s' "$problems" | grep -c . || true) warning/error line(s))"
    exit 1
fi
contents=$("$BIN/python" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(len(d.get("contents") or []))' "$work/importer_result.json")
echo "galaxy-check: galaxy-importer: no warning, no error ($contents plugins and roles in the import)"

rc=0
"$BIN/antsibull-docs" lint-collection-docs --plugin-docs . || rc=$?
if [ "$rc" -ne 0 ]; then
    echo "galaxy-check: antsibull-docs lint-collection-docs found problems (exit $rc)"
    exit 1
fi
echo "galaxy-check: antsibull-docs lint-collection-docs --plugin-docs: clean"
echo "galaxy-check: finished in $(( $(date +%s) - start )) s"
