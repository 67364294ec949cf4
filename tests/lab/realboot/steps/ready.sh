# ready.sh: wait (at most 3 minutes each, by the clock: a daemon's client can block) until what the site starts at
# boot has settled: tuned has applied its profile, NetworkManager has the NIC up, multipathd has both 3PAR maps.
# Prints how long each took, and what systemd is still doing when one is not ready.
# The clock is read with the shell's `read` (a process costs about a third of a second under TCG).
up() { read -r UP _ < /proc/uptime; }  # UP: the guest's uptime, seconds
lap() { # NAME: a phase of the command ended now (guest uptime); the test prints each phase's time
  up; echo "LAP $1 $UP"
}
lap start
waitfor() { # NAME COMMAND...
  local name=$1 t0; shift
  up; t0=${UP%.*}
  while :; do
    timeout 20 "$@" >/dev/null 2>&1 && { up; echo "ready: $name after $(( ${UP%.*} - t0 )) s"; return 0; }
    up; [ $((${UP%.*} - t0)) -ge 180 ] && break
    sleep 1
  done
  echo "ready: $name NOT ready after 180 s; systemd jobs: $(systemctl list-jobs --no-pager --no-legend 2>&1 | tr '\n' ';')"
  systemctl status --no-pager -n 8 tuned NetworkManager multipathd 2>&1 | tail -n 40
}
up; echo "ready: uptime $UP s at the start"
# tuned's D-Bus answer with its active profile: what tuned-adm active asks (busctl: no Python start, 5 s under TCG).
waitfor tuned busctl call com.redhat.tuned /Tuned com.redhat.tuned.control active_profile
lap ready.tuned
waitfor nic sh -c 'nmcli -t -f GENERAL.STATE device show enp0s3 | grep -q "(connected)"'
lap ready.nic
waitfor multipath sh -c '[ "$(multipath -l 2>/dev/null | grep -c 3PARdata)" = 2 ]'
lap ready.multipath
timeout 60 udevadm settle --timeout=50
echo "ready: systemd $(systemctl is-system-running 2>&1); failed units: $(systemctl --failed --plain --no-legend | awk '{print $1}' | tr '\n' ' ')"
lap ready
