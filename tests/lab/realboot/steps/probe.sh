# probe.sh: every value the reboot test compares, as the kernel and the daemons have it now, one
# "P key=value" line each (sourced by the boot steps; the host parses the lines).
# sysfs, cgroup and /proc/cmdline files are read with the shell's own `read`: under TCG each process costs about a
# third of a second, and a `cat | tr | sed` per file made a probe 17-31 s. The daemons' own clients run as processes.
p() { printf 'P %s=%s\n' "$1" "$2"; }
rd() { # FILE: its line into R, without surrounding blanks; empty when the file is missing or empty
  R=
  [ -r "$1" ] && { read -r R < "$1" || :; }
}
NODES=0
for n in /sys/devices/system/node/node[0-9]*; do [ -d "$n" ] && NODES=$((NODES + 1)); done
p nodes "$NODES"
rd /proc/cmdline
case " $R " in *" numa=off "*) p cmdline.numa_off yes;; *) p cmdline.numa_off no;; esac
# sysctl, not `read`: the shell reads a byte at a time and /proc/sys answers a read past offset 0 with nothing
# ("64" would read "6"). One process for the three, a line each.
set -- $(sysctl -n kernel.numa_balancing vm.zone_reclaim_mode vm.nr_hugepages 2>/dev/null)
p sysctl.kernel.numa_balancing "$1"; p sysctl.vm.zone_reclaim_mode "$2"; p sysctl.vm.nr_hugepages "$3"
rd /sys/kernel/mm/transparent_hugepage/enabled; p thp.enabled "$R"
for n in /sys/devices/system/node/node[0-9]*; do
  rd "$n/hugepages/hugepages-2048kB/nr_hugepages"; p "hugepages.${n##*/}" "$R"
done
for d in /sys/block/sd*; do
  rd "$d/device/vendor"; [ "$R" = 3PARdata ] || continue
  b=${d##*/}
  for f in scheduler nr_requests rotational; do rd "$d/queue/$f"; p "block.path.$f.$b" "$R"; done
done
for d in /sys/block/dm-*; do
  rd "$d/dm/uuid"; case $R in mpath-*) ;; *) continue;; esac
  rd "$d/dm/name"; n=$R
  for f in scheduler nr_requests rotational; do rd "$d/queue/$f"; p "block.map.$f.$n" "$R"; done
done
p multipath.maps "$(multipath -l 2>/dev/null | grep -c 3PARdata)"
p multipath.rr_min_io_rq "$(multipathd show config 2>/dev/null | awk '/vendor "3PARdata"/{v=1} v&&/rr_min_io_rq/{print $2; exit}')"
NIC=/sys/class/net/enp0s3
rd $NIC/mtu; p nic.mtu "$R"
p nic.rx-usecs "$(ethtool -c enp0s3 2>/dev/null | awk -F: '/^rx-usecs:/{gsub(/ /,"",$2); print $2}')"
S=$(timeout 30 nmcli -t -f GENERAL.STATE device show enp0s3 2>/dev/null); p nic.nm "${S#*:}"
# One systemctl for the three units' states (a line each, in order).
set -- $(systemctl is-active labdb.slice tuned numatune-boot.service 2>/dev/null)
p cpuset.active "$1"
rd /sys/fs/cgroup/labdb.slice/cpuset.cpus; p cpuset.cpus "$R"
rd /sys/fs/cgroup/labdb.slice/cpuset.mems; p cpuset.mems "$R"
p tuned.active "$2"
# The profile tuned has active, asked over D-Bus as tuned-adm asks it (busctl: no Python start, 5 s under TCG).
S=$(timeout 30 busctl call com.redhat.tuned /Tuned com.redhat.tuned.control active_profile 2>/dev/null)
S=${S#s \"}; p tuned.profile "${S%\"}"
p boot-unit "$3/$(systemctl is-enabled numatune-boot.service 2>/dev/null)"
