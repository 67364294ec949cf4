# ready.sh: wait (at most a minute each) until what the site starts at boot has settled: tuned has applied
# its profile, NetworkManager has the NIC up, multipathd has both 3PAR maps. Prints how long each took.
waitfor() { # NAME COMMAND...
  local name=$1 i; shift
  for i in $(seq 120); do "$@" >/dev/null 2>&1 && { echo "ready: $name after ${i}x0.5 s"; return 0; }; sleep 0.5; done
  echo "ready: $name NOT ready after 60 s"
}
waitfor tuned sh -c 'tuned-adm active | grep -q "^Current active profile"'
waitfor nic sh -c 'nmcli -t -f GENERAL.STATE device show enp0s3 | grep -q "(connected)"'
waitfor multipath sh -c '[ "$(multipath -l 2>/dev/null | grep -c 3PARdata)" = 2 ]'
udevadm settle --timeout=30
echo "ready: systemd $(systemctl is-system-running 2>&1); failed units: $(systemctl --failed --plain --no-legend | awk '{print $1}' | tr '\n' ' ')"
