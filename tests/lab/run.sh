#!/bin/bash
# Usage: tests/lab/run.sh [PYTEST ARGS]   (e.g. -v, -k cpuset)
# Runs the lab tests (tests/lab/test_*.py) inside one boot of a QEMU guest with a real
# multi-node kernel (Debian's 6.1, 2 NUMA nodes, 4 vCPUs, udevd), using this checkout's
# .venv, and streams pytest's output; pytest's exit status is ours. When the reboot test's
# first half ran, a second boot on what it kept in /etc runs its second half (test_lab_reboot.py). Then the real
# reboot: realboot/test_realboot.py boots its own Debian disk three times (GRUB, systemd). The guest image is
# built once by setup.sh into $LAB (default /var/tmp/numatune-lab, outside the repo)
# and rebuilt when setup.sh or guest-init change.
# Where QEMU cannot run (not x86_64, not root, no qemu and no apt-get to install it)
# it prints one line saying why and exits 0.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
export LAB=${LAB:-/var/tmp/numatune-lab}
skip() { echo "lab: skipped: $*"; exit 0; }

[ "$(uname -m)" = x86_64 ] || skip "the lab guest is x86_64 and this machine is $(uname -m)"
[ "$(id -u)" = 0 ] || skip "building and booting the lab guest needs root (apt-get, 9p export of /)"
command -v qemu-system-x86_64 >/dev/null || command -v apt-get >/dev/null \
  || skip "no qemu-system-x86_64 and no apt-get to install it"
[ -x "$REPO/.venv/bin/python" ] && [ -x "$REPO/.venv/bin/numatune" ] || { echo "lab: no $REPO/.venv with numatune installed: run the README's test command first" >&2; exit 2; }

stamp=$(cat "$HERE/setup.sh" "$HERE/guest-init" | sha256sum | cut -c1-16)
if [ ! -f "$LAB/initrd.gz" ] || [ "$(cat "$LAB/stamp" 2>/dev/null)" != "$stamp" ] \
    || ! command -v qemu-system-x86_64 >/dev/null; then
  echo "lab: building the guest in $LAB (once; about a minute)"
  log=$(mktemp)
  if ! "$HERE/setup.sh" >"$log" 2>&1; then
    tail -n 20 "$log" >&2; rm -f "$log"; echo "lab: setup.sh failed (above)" >&2; exit 1
  fi
  tail -n 1 "$log"; rm -f "$log"
  echo "$stamp" > "$LAB/stamp"
fi

# The command the guest runs: pytest over the lab modules (named explicitly: the main
# suite's norecursedirs skips tests/lab), in the repo, with the project's interpreter. The reboot test's first
# boot goes last: it leaves its changes applied for the second boot.
args=""
for a in "$@"; do args+=" $(printf '%q' "$a")"; done
mods=""
for m in "$HERE"/test_lab_*.py; do [ "${m##*/}" = test_lab_reboot.py ] || mods+=" tests/lab/${m##*/}"; done
py=$(printf '%q' "$REPO/.venv/bin/python")
# The guest's / shows this machine's / as it changes: its own tmpfs /var/lib/numatune keeps journals of
# numatune runs here (another test run, half done) out of the guest's history.
journal="mkdir -p /var/lib/numatune && mount -t tmpfs -o mode=700 numatune-lab /var/lib/numatune"
# numatune as a system command, as `pip install` as root puts it there: the venv's own console script (#! this
# checkout's .venv python, numatune.cli's main) at /usr/local/bin/numatune. apply writes the boot unit, boot file
# and replay file only for a command in a system location, and the second boot's numatune-boot.service runs it,
# so each boot installs it into its overlay (this machine's /usr/local/bin is untouched: the 9p export is read-only).
install="cp $(printf '%q' "$REPO/.venv/bin/numatune") /usr/local/bin/numatune && chmod 755 /usr/local/bin/numatune"
pytest="NUMATUNE_LAB=guest NO_COLOR=1 $py -m pytest -o addopts=\"\" -p no:cacheprovider"
repo=$(printf '%q' "$REPO")
# The reboot test keeps the first boot's /etc here for the second (guest-init unpacks its etc.tar).
STATE=$(mktemp -d "$LAB/state.XXXXXX")
trap 'rm -rf "$STATE"' EXIT
# udevd for the persistence tests, a NIC on node 1 for the IRQ test; each boot must end within LAB_TIMEOUT.
export LAB_UDEV=${LAB_UDEV:-1} LAB_NIC=${LAB_NIC:-1} LAB_TIMEOUT=${LAB_TIMEOUT:-900} LAB_STATE=$STATE
t0=$SECONDS
set +e
"$HERE/run-in-guest.sh" "$journal && $install && cd $repo && $pytest$mods tests/lab/test_lab_reboot.py$args"
rc=$?
set -e
echo "lab: boot 1 took $((SECONDS - t0)) s"
[ -f "$STATE/etc.tar" ] || exit "$rc"

# The second boot: the first's /etc is back before udev starts, its journal in /var/lib/numatune; bootpath.py
# replays what a host runs at boot; then only the reboot test's second half.
echo "lab: boot 2 on what boot 1 kept in /etc (test_lab_reboot.py)"
t0=$SECONDS
replay="$py tests/lab/bootpath.py /run/lab/state > /run/lab/bootpath.log 2>&1; echo \$? > /run/lab/bootpath.rc"
replay+="; cat /run/lab/bootpath.log"
set +e
"$HERE/run-in-guest.sh" "$journal && $install && tar -xf /run/lab/state/journal.tar -C / && cd $repo && $replay;"\
" cd $repo && NUMATUNE_LAB_BOOT=2 $pytest tests/lab/test_lab_reboot.py$args"
rc2=$?
set -e
echo "lab: boot 2 took $((SECONDS - t0)) s"
[ "$rc" != 0 ] && exit "$rc"
[ "$rc2" != 0 ] && exit "$rc2"

# The real reboot (issue #35): a Debian 12 disk booted three times through its own GRUB with systemd as PID 1
# (realboot/: the image is built once into $W, default /var/tmp/numatune-realboot, rebuilt when its scripts change).
# Runs on this machine; pytest -k/-x apply to it too.
echo "lab: the real reboot (tests/lab/realboot/test_realboot.py: three boots of one disk)"
t0=$SECONDS
set +e
(cd "$REPO" && NO_COLOR=1 "$REPO/.venv/bin/python" -m pytest -o addopts="" -p no:cacheprovider -q -rA \
  tests/lab/realboot/test_realboot.py "$@")
rc3=$?
set -e
echo "lab: the real reboot took $((SECONDS - t0)) s"
# No test selected by -k (5): not a failure of the lab.
[ "$rc3" = 5 ] && rc3=0
exit "$rc3"
