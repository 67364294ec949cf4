# ready.sh: wait (at most 3 minutes each, by the clock: a daemon's client can block) until what the site starts at
# boot has settled: tuned has applied its profile, NetworkManager has the NIC up, multipathd has both 3PAR maps.
# Prints how long each took, and what systemd is still doing when one is not ready.
lap() { # NAME: a phase of the command ended now (guest uptime); the test prints each phase's time
  echo "LAP $1 $(cut -d' ' -f1 /proc/uptime)"
}
lap start
waitfor() { # NAME COMMAND...
  local name=$1 t0 now; shift
  t0=$(cut -d. -f1 /proc/uptime)
  while :; do
    timeout 20 "$@" >/dev/null 2>&1 && { echo "ready: $name after $(( $(cut -d. -f1 /proc/uptime) - t0 )) s"; return 0; }
    now=$(cut -d. -f1 /proc/uptime)
    [ $((now - t0)) -ge 180 ] && break
    sleep 1
  done
  echo "ready: $name NOT ready after 180 s; systemd jobs: $(systemctl list-jobs --no-pager --no-legend 2>&1 | tr '\n' ';')"
  systemctl status --no-pager -n 8 tuned NetworkManager multipathd 2>&1 | tail -n 40
}
echo "ready: uptime $(cut -d' ' -f1 /proc/uptime) s at the start"
waitfor tuned sh -c 'tuned-adm active | grep -q "^Current active profile"'
lap ready.tuned
waitfor nic sh -c 'nmcli -t -f GENERAL.STATE device show enp0s3 | grep -q "(connected)"'
lap ready.nic
waitfor multipath sh -c '[ "$(multipath -l 2>/dev/null | grep -c 3PARdata)" = 2 ]'
lap ready.multipath
timeout 60 udevadm settle --timeout=50
echo "ready: systemd $(systemctl is-system-running 2>&1); failed units: $(systemctl --failed --plain --no-legend | awk '{print $1}' | tr '\n' ' ')"
lap ready
