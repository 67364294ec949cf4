# probe.sh: every value the reboot test compares, as the kernel and the daemons have it now, one
# "P key=value" line each (sourced by the boot steps; the host parses the lines).
p() { printf 'P %s=%s\n' "$1" "$2"; }
rd() { cat "$1" 2>/dev/null | tr '\n' ' ' | sed 's/ *$//'; }
NODES=$(ls -d /sys/devices/system/node/node[0-9]* 2>/dev/null | wc -l)
p nodes "$NODES"
p cmdline.numa_off "$(grep -qw numa=off /proc/cmdline && echo yes || echo no)"
for k in kernel.numa_balancing vm.zone_reclaim_mode vm.nr_hugepages; do p "sysctl.$k" "$(sysctl -n $k 2>&1)"; done
p thp.enabled "$(rd /sys/kernel/mm/transparent_hugepage/enabled)"
for n in /sys/devices/system/node/node[0-9]*; do
  p "hugepages.${n##*/}" "$(rd $n/hugepages/hugepages-2048kB/nr_hugepages)"
done
for d in /sys/block/sd*; do
  [ "$(rd $d/device/vendor)" = 3PARdata ] || continue
  b=${d##*/}
  for f in scheduler nr_requests rotational; do p "block.path.$f.$b" "$(rd $d/queue/$f)"; done
done
for d in /sys/block/dm-*; do
  case $(rd $d/dm/uuid) in mpath-*) ;; *) continue;; esac
  n=$(rd $d/dm/name)
  for f in scheduler nr_requests rotational; do p "block.map.$f.$n" "$(rd $d/queue/$f)"; done
done
p multipath.maps "$(multipath -l 2>/dev/null | grep -c 3PARdata)"
p multipath.rr_min_io_rq "$(multipathd show config 2>/dev/null | awk '/vendor "3PARdata"/{v=1} v&&/rr_min_io_rq/{print $2; exit}')"
NIC=/sys/class/net/enp0s3
p nic.mtu "$(rd $NIC/mtu)"
p nic.rx-usecs "$(ethtool -c enp0s3 2>/dev/null | awk -F: '/^rx-usecs:/{gsub(/ /,"",$2); print $2}')"
p nic.nm "$(timeout 30 nmcli -t -f GENERAL.STATE device show enp0s3 2>/dev/null | cut -d: -f2)"
p cpuset.active "$(systemctl is-active labdb.slice 2>/dev/null)"
p cpuset.cpus "$(rd /sys/fs/cgroup/labdb.slice/cpuset.cpus)"
p cpuset.mems "$(rd /sys/fs/cgroup/labdb.slice/cpuset.mems)"
p tuned.active "$(systemctl is-active tuned 2>/dev/null)"
p tuned.profile "$(timeout 30 tuned-adm active 2>/dev/null | sed -n 's/^Current active profile: //p')"
p boot-unit "$(systemctl is-active numatune-boot.service 2>/dev/null)/$(systemctl is-enabled numatune-boot.service 2>/dev/null)"
