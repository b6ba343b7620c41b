#!/usr/bin/env bash
# Installs everything `make lab` and `make test` need, on a fresh Debian or
# Ubuntu machine, as root: Debian packages, a virtualenv with the Python
# requirements, the collection linked into ./.collections, and ansible-test's
# pip bootstrap stand-in. Safe to run again: it only does what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

VENV=${VENV:-.venv}
PYTHON=${PYTHON:-python3}
REQS=${REQS:-requirements-dev.txt}
# netplan.io and ifupdown: the bonding and MTU roles' offline validators (no service is started);
# libreoffice-calc-nogui: the report tests convert a workbook to PDF with it; poppler-utils: they read the
# PDF back (pdftotext, pdfinfo: pages per sheet, legible text);
# qemu-system-x86, qemu-utils: the VM lab hosts (LAB_KIND=vm), e2fsprogs: their image (mke2fs -d)
DEB_PACKAGES=(debootstrap openssh-client nftables iproute2 procps ethtool iputils-ping rsync git make ca-certificates
              netplan.io ifupdown libreoffice-calc-nogui poppler-utils qemu-system-x86 qemu-utils e2fsprogs)

log() { printf 'bootstrap: %s\n' "$*"; }

if [ "$(id -u)" != 0 ]; then
  echo "bootstrap: run as root (the lab needs network namespaces, mounts and bridges)" >&2
  exit 1
fi

missing=()
for p in "${DEB_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ! "$PYTHON" -c 'import venv, ensurepip' 2>/dev/null; then
  missing+=(python3-venv)
fi
if [ ${#missing[@]} -gt 0 ]; then
  log "installing Debian packages: ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

stamp="$VENV/.perflab-requirements"
want=$(cat requirements.txt requirements-dev.txt | sha256sum | cut -c1-16)
if [ ! -x "$VENV/bin/python" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  log "creating $VENV with $($PYTHON --version 2>&1) and installing $REQS"
  [ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV"
  "$VENV/bin/python" -m pip install -q --upgrade pip 2> >(grep -v "is ignored: it is neither" >&2)
  "$VENV/bin/python" -m pip install -q -r "$REQS" 2> >(grep -v "is ignored: it is neither" >&2)
  echo "$want" > "$stamp"
fi

# playbooks use perflab.network.<name>: link this checkout as that collection
mkdir -p .collections/ansible_collections/perflab
ln -sfn ../../.. .collections/ansible_collections/perflab/network

# ansible-test downloads a pip bootstrap script it cannot reach here
pip_version=$("$VENV/bin/python" - <<'PY'
import re, ansible_test, os
src = open(os.path.join(os.path.dirname(ansible_test.__file__), '_internal', 'python_requirements.py')).read()
print(' '.join(sorted(set(re.findall(r"pip='([0-9.]+)'", src)))))
PY
)
for v in $pip_version; do
  dest="$HOME/.ansible/test/cache/get_pip_${v//./_}.py"
  if ! cmp -s scripts/get_pip_standin.py "$dest"; then
    mkdir -p "$(dirname "$dest")"
    cp scripts/get_pip_standin.py "$dest"
  fi
done
log "ready: $("$VENV/bin/ansible" --version | head -1)"
