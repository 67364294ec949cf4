#!/bin/bash
# install-numatune.sh ROOT WHEELDIR REPO
# Installs numatune into the guest root ROOT (a mounted copy of the golden disk) the way the RPM's %install
# does: `pip install --target` of the wheels into the system Python's site directory (Debian's
# /usr/lib/python3/dist-packages), the script moved to /usr/bin/numatune with the system python3 in its
# shebang, the units, timer, tmpfiles.d and sysconfig files from packaging/. Runs on the host (the guest
# has no network and no pip): the wheels are pure Python and Debian 12's python3 is the host's 3.11.
# PY: the host's Python whose pip installs them (the checkout's .venv in the test).
# Nothing is enabled: like the RPM on RHEL (presets off), `apply` enables numatune-boot.service itself.
set -euo pipefail
ROOT=$1 WHEELS=$2 REPO=$3
SITE=$ROOT/usr/lib/python3/dist-packages
[ -d "$SITE" ] || { echo "install-numatune: no $SITE in the guest root" >&2; exit 1; }
"${PY:-python3}" -m pip install -q --no-deps --no-index --no-compile --no-warn-script-location --disable-pip-version-check \
  --target "$SITE" "$WHEELS"/*.whl
install -D -m 0755 "$SITE/bin/numatune" "$ROOT/usr/bin/numatune"
rm -rf "$SITE/bin" "$SITE"/*.dist-info/direct_url.json
sed -i '1s|^#!.*|#!/usr/bin/python3 -s|' "$ROOT/usr/bin/numatune"
# Byte-compiled as rpmbuild's brp-python-bytecompile does: the check unit (ProtectSystem=strict) cannot write
# __pycache__, and under TCG compiling numatune at each run costs tens of seconds. 3.11's .pyc format is the guest's.
"${PY:-python3}" -m compileall -q -j 0 "$SITE" >/dev/null
P=$REPO/packaging
U=$ROOT/usr/lib/systemd/system
install -D -m 0644 "$P/systemd/numatune-check.service" "$U/numatune-check.service"
install -D -m 0644 "$P/systemd/numatune-check.timer" "$U/numatune-check.timer"
install -D -m 0644 "$P/systemd/numatune-boot.service" "$U/numatune-boot.service"
install -D -m 0644 "$P/systemd/numatune.tmpfiles" "$ROOT/usr/lib/tmpfiles.d/numatune.conf"
install -D -m 0644 "$P/numatune-check.sysconfig" "$ROOT/etc/sysconfig/numatune-check"
install -D -m 0644 "$P/site-policy.toml" "$ROOT/etc/numatune/policy.toml"
install -d -m 0700 "$ROOT/var/lib/numatune"
echo "install-numatune: /usr/bin/numatune -> $(ls "$SITE" | grep -c dist-info) distributions in /usr/lib/python3/dist-packages"
