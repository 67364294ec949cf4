#!/bin/bash
# Hardware-shape checks, meant to run INSIDE the guest:
#   LAB_UDEV=1 tests/lab/run-in-guest.sh tests/lab/checks.sh
t0=$(cut -d' ' -f1 /proc/uptime)
step() { echo; echo "### $* (uptime $(cut -d' ' -f1 /proc/uptime))"; }
try() { echo "+ $*"; eval "$@" 2>&1 || echo "  -> FAILED rc=$?"; }

step kernel/cpu
try 'cat /proc/1/cmdline | tr "\\0" " "; echo; cat /proc/sys/kernel/modprobe' 
try 'uname -r; nproc; lscpu | grep -E "^(Model name|Socket|Core|Thread|NUMA)"'
step NUMA
try 'ls /sys/devices/system/node'
try 'cat /sys/devices/system/node/node*/cpulist'
try 'grep MemTotal /sys/devices/system/node/node*/meminfo'
try 'echo 64 > /sys/devices/system/node/node1/hugepages/hugepages-2048kB/nr_hugepages'
try 'grep . /sys/devices/system/node/node*/hugepages/hugepages-2048kB/nr_hugepages'
try 'echo 1 > /sys/devices/system/node/node1/hugepages/hugepages-1048576kB/nr_hugepages; grep . /sys/devices/system/node/node*/hugepages/hugepages-1048576kB/nr_hugepages'
try 'cat /proc/sys/kernel/numa_balancing; echo 0 > /proc/sys/kernel/numa_balancing; cat /proc/sys/kernel/numa_balancing'
try 'cat /sys/kernel/mm/transparent_hugepage/enabled'

step SCSI disks via scsi_debug
try 'modprobe scsi_debug num_tgts=1 max_luns=2 add_host=2 vpd_use_hostno=0 dev_size_mb=64'
for i in $(seq 50); do [ "$(ls -d /sys/block/sd* 2>/dev/null | wc -l)" -ge 4 ] && break; sleep 0.1; done
try 'ls -d /sys/block/sd*'
try 'lsscsi -i 2>/dev/null || ls /sys/class/scsi_device'
for d in /sys/block/sd*; do n=${d##*/}
  echo "$n: hctl=$(basename $(readlink -f $d/device)) wwid=$(cat $d/device/wwid 2>/dev/null) size=$(cat $d/size)"
done
try 'cat /sys/block/sda/queue/scheduler; echo none > /sys/block/sda/queue/scheduler; cat /sys/block/sda/queue/scheduler'
try 'echo bfq > /sys/block/sda/queue/scheduler; cat /sys/block/sda/queue/scheduler'
try 'cat /sys/block/sda/queue/nr_requests; echo 32 > /sys/block/sda/queue/nr_requests; cat /sys/block/sda/queue/nr_requests'
try 'cat /sys/block/sda/device/queue_depth; echo 8 > /sys/block/sda/device/queue_depth; cat /sys/block/sda/device/queue_depth'
try 'cat /sys/block/sda/queue/read_ahead_kb; echo 1024 > /sys/block/sda/queue/read_ahead_kb; cat /sys/block/sda/queue/read_ahead_kb'
try 'grep . /sys/class/scsi_disk/*/cache_type'
sd=$(ls -d /sys/block/sda/device/scsi_disk/* | head -1)
try 'echo "write through" > '$sd'/cache_type; cat '$sd'/cache_type'
try 'echo "temporary write back" > '$sd'/cache_type; cat '$sd'/cache_type'
try 'cat /sys/block/sda/device/timeout; echo 60 > /sys/block/sda/device/timeout; cat /sys/block/sda/device/timeout'

step dm-multipath by hand with dmsetup
# pair the two paths of LUN 0: same WWID, different SCSI host
w=$(cat /sys/block/sda/device/wwid)
paths=$(for d in /sys/block/sd*; do [ "$(cat $d/device/wwid)" = "$w" ] && echo /dev/${d##*/}; done | tr '\n' ' ')
echo "paths with wwid $w: $paths"
set -- $paths
sz=$(blockdev --getsz $1)
try "modprobe dm_multipath; modprobe dm_round_robin"
try "dmsetup create mp0 --table '0 $sz multipath 0 0 1 1 round-robin 0 2 1 $1 1 $2 1'"
try 'dmsetup table mp0; dmsetup status mp0'
try 'dd if=/dev/urandom of=/dev/mapper/mp0 bs=1M count=4 oflag=direct status=none && cmp -n 4194304 /dev/mapper/mp0 '$2' && echo "mp0 data visible via '$2'"'
try 'dmsetup message mp0 0 "fail_path '$1'"; dmsetup status mp0; dd if=/dev/mapper/mp0 of=/dev/null bs=1M count=4 iflag=direct status=none && echo "I/O ok with one path failed"'
try 'dmsetup remove mp0'

step multipathd
if command -v multipathd >/dev/null; then
  mkdir -p /etc/multipath
  printf 'defaults {\n  find_multipaths no\n  user_friendly_names yes\n}\n' > /etc/multipath.conf
  try 'modprobe dm_multipath; multipathd -s'
  for i in $(seq 50); do multipathd show daemon 2>/dev/null | grep -q pid && break; sleep 0.2; done
  try 'multipathd show daemon'
  try 'multipath -v2'
  try 'udevadm settle; multipath -ll'
  try 'multipathd show paths'
  try 'ls -l /dev/mapper'
  try 'multipathd shutdown' ; sleep 0.5
else echo "multipathd not available"; fi

step bonding + veth
try 'ip link add bond0 type bond mode 802.3ad miimon 100'
try 'ip link add veth0 type veth peer name veth0p; ip link add veth1 type veth peer name veth1p'
try 'ip link set veth0 master bond0; ip link set veth1 master bond0; ip link set bond0 up; ip link set veth0p up; ip link set veth1p up'
try 'cat /proc/net/bonding/bond0 | head -20'
try 'cat /sys/class/net/bond0/bonding/mode /sys/class/net/bond0/bonding/xmit_hash_policy; echo layer3+4 > /sys/class/net/bond0/bonding/xmit_hash_policy; cat /sys/class/net/bond0/bonding/xmit_hash_policy'
try 'ethtool -i veth0 2>/dev/null | head -2 || true'

step cgroup v2 cpuset
try 'cat /sys/fs/cgroup/cgroup.controllers'
try 'echo +cpuset > /sys/fs/cgroup/cgroup.subtree_control; cat /sys/fs/cgroup/cgroup.subtree_control'
try 'mkdir /sys/fs/cgroup/lab && echo 2-3 > /sys/fs/cgroup/lab/cpuset.cpus && echo 1 > /sys/fs/cgroup/lab/cpuset.mems'
try 'cat /sys/fs/cgroup/lab/cpuset.cpus.effective /sys/fs/cgroup/lab/cpuset.mems.effective'
try 'sh -c "echo \$\$ > /sys/fs/cgroup/lab/cgroup.procs; grep -E \"Cpus_allowed_list|Mems_allowed_list\" /proc/self/status"'
try 'echo root > /sys/fs/cgroup/lab/cpuset.cpus.partition; cat /sys/fs/cgroup/lab/cpuset.cpus.partition'

step cpuidle / cpufreq
try 'ls /sys/devices/system/cpu/cpu0/cpuidle; cat /sys/devices/system/cpu/cpuidle/current_driver'
try 'ls /sys/devices/system/cpu/cpufreq; ls /sys/devices/system/cpu/cpu0/cpufreq'
try 'cat /sys/devices/system/cpu/smt/control; cat /sys/devices/system/cpu/cpu3/online; echo 0 > /sys/devices/system/cpu/cpu3/online; cat /sys/devices/system/cpu/online; echo 1 > /sys/devices/system/cpu/cpu3/online'
try 'cat /proc/irq/default_smp_affinity; ls /proc/irq | head -3'

step python
try '/usr/bin/python3 -c "import sys; print(sys.version)"'
try 'type python3; time python3 -c "import os; print(os.sched_getaffinity(0))"'
try 'time /usr/bin/python3 -c pass'

step udev
if [ -S /run/udev/control ]; then
  try 'udevadm settle; udevadm info /dev/sda | grep -E "ID_SERIAL|ID_WWN|ID_PATH=|ID_SCSI|DEVLINKS"'
  try 'ls -l /dev/disk/by-id | head'
else echo "udevd not running (run with LAB_UDEV=1)"; fi

echo; echo "checks took $(awk -v a=$t0 '{print $1-a}' /proc/uptime)s guest time"
