#!/bin/bash
# Usage: [LAB=DIR] run-in-guest.sh 'COMMAND ...'
# Boots the Debian kernel from setup.sh in a 2-node NUMA QEMU guest (TCG on this box,
# KVM where /dev/kvm is real hardware virtualization) whose root is
# the host's / (read-only 9p) + $LAB/extra (kmod, udev, multipath-tools, sg3-utils,
# guest kernel modules) under a throw-away tmpfs overlay, runs COMMAND as root in
# the caller's cwd and PATH, streams its stdout/stderr, and exits with its status.
#
# Env knobs:
#   LAB_UDEV=1        start systemd-udevd + trigger + settle before COMMAND (+~4 s)
#   LAB_MODULES=a,b   modprobe these before COMMAND
#   LAB_COLDPLUG=1    modprobe drivers for all present devices without udev (+2 s)
#   LAB_MEM_MB=4096   guest RAM (split evenly over the NUMA nodes)
#   LAB_NODES=2 LAB_CPUS_PER_NODE=2
#   LAB_VSCSI=1       also attach a virtio-scsi HBA with two scsi-hd LUNs backed by
#                     the same image with the same WWN (a second multipath shape)
#   LAB_NIC=1         also attach a virtio-net PCIe NIC on the last NUMA node (pxb-pcie), MSI-X IRQs
#   LAB_STATE=DIR     a host directory kept across boots, at /run/lab/state in the guest; a DIR/etc.tar is
#                     unpacked onto the guest's / before udev starts (the reboot test's second boot)
#   LAB_DEBUG=1       drop to a shell on the console if the guest init fails
#   LAB_ACCEL=kvm|tcg LAB_ACCEL_OPTS LAB_CPU LAB_KERNEL LAB_BIOS LAB_APPEND (expert overrides)
#   LAB_TIMEOUT=SECS  kill the guest after SECS (exit status 124)
#   LAB_PASSENV="A B" also export these host environment variables to COMMAND
#   LAB_CONSOLE=1 (show kernel console on stderr)  LAB_KEEP=1 (keep $LAB/runs/XXXX)
set -euo pipefail
LAB=${LAB:-/var/tmp/numatune-lab}
[ $# -ge 1 ] || { echo "usage: $0 'COMMAND'" >&2; exit 2; }
[ -f "$LAB/initrd.gz" ] || { echo "run $LAB/setup.sh first" >&2; exit 2; }

NODES=${LAB_NODES:-2}; CPN=${LAB_CPUS_PER_NODE:-2}; MEM=${LAB_MEM_MB:-4096}
# /dev/kvm on this Firecracker VM is kvm_pvm (software "PVM" nesting, no VT-x/AMD-V):
# stock kernels crawl there (90 s to reach the real-mode setup code), so use TCG.
if [ -z "${LAB_ACCEL:-}" ]; then
  if [ -w /dev/kvm ] && [ ! -d /sys/module/kvm_pvm ]; then ACCEL=kvm; else ACCEL=tcg; fi
else ACCEL=$LAB_ACCEL; fi
if [ "$ACCEL" = kvm ]; then
  CPU="-cpu host"; ACCEL_OPTS=${LAB_ACCEL_OPTS:-}; KERNEL=${LAB_KERNEL:-$LAB/vmlinuz}; FAST=""
else
  # TCG tuning measured on this 2-core box: Nehalem(+1G pages) boots ~1.5x faster than
  # -cpu max, one TCG thread beats MTTCG with 4 vCPUs on 2 cores, and the
  # uncompressed PVH vmlinux skips ~3 s of in-guest xz decompression.
  CPU="-cpu ${LAB_CPU:-Nehalem,+pdpe1gb}"; ACCEL_OPTS=${LAB_ACCEL_OPTS:-,thread=single}
  KERNEL=${LAB_KERNEL:-$LAB/vmlinux}
  FAST="mitigations=off no_timer_check tsc=reliable cryptomgr.notests random.trust_cpu=on audit=0 apparmor=0 nowatchdog"
  # TCG's TSC is the host's: give the guest its frequency. Calibrating it against the emulated HPET while the
  # host is busy was seen to go wrong by 5x (guest clocks, timeouts and pytest's durations all off).
  if grep -qm1 constant_tsc /proc/cpuinfo; then
    khz=$(awk -F: '/^cpu MHz/{printf "%d", $2 * 1000; exit}' /proc/cpuinfo)
    [ -n "$khz" ] && [ "$khz" -gt 0 ] && FAST+=" tsc_early_khz=$khz"
  fi
fi
BIOS=(); [ -n "${LAB_BIOS:-}" ] && BIOS=(-bios "$LAB_BIOS")

mkdir -p "$LAB/runs"
RUN=$(mktemp -d "$LAB/runs/XXXXXX")
cleanup() { [ -n "${QPID:-}" ] && kill "$QPID" 2>/dev/null; [ -n "${LAB_KEEP:-}" ] || rm -rf "$RUN"; }
trap cleanup EXIT INT TERM

{ printf 'export PATH=%q\n' "$PATH"
  for v in ${LAB_PASSENV:-}; do [ -n "${!v+x}" ] && printf 'export %s=%q\n' "$v" "${!v}"; done
  printf 'cd %q 2>/dev/null || cd /\n' "$PWD"
  printf '%s\n' "$*"; } > "$RUN/cmd.sh"
: > "$RUN/stdout"; : > "$RUN/stderr"

numa=(); per=$((MEM / NODES))
for ((n = 0; n < NODES; n++)); do
  numa+=(-object "memory-backend-ram,id=m$n,size=${per}M"
         -numa "node,nodeid=$n,cpus=$((n*CPN))-$((n*CPN+CPN-1)),memdev=m$n")
done
extra=(); MODS=${LAB_MODULES:-}
if [ "${LAB_VSCSI:-0}" = 1 ]; then
  MODS=${MODS:+$MODS,}virtio_scsi
  truncate -s 256M "$RUN/vscsi.img"
  extra+=(-device virtio-scsi-pci,id=vs0
    -blockdev "driver=file,filename=$RUN/vscsi.img,node-name=vimg,cache.direct=off"
    -device scsi-hd,bus=vs0.0,scsi-id=0,lun=0,drive=vimg,share-rw=on,wwn=0x5000c50015ea71ac,serial=LABVSCSI0
    -device scsi-hd,bus=vs0.0,scsi-id=1,lun=0,drive=vimg,share-rw=on,wwn=0x5000c50015ea71ac,serial=LABVSCSI0)
fi
if [ "${LAB_NIC:-0}" = 1 ]; then
  # A PCIe NIC behind an expander bridge on the last NUMA node: the guest sees its numa_node and MSI-X IRQs.
  MODS=${MODS:+$MODS,}virtio_net
  extra+=(-device "pxb-pcie,id=pxb1,bus_nr=128,numa_node=$((NODES-1)),bus=pcie.0"
    -device pcie-root-port,id=rp1,bus=pxb1,chassis=1,slot=1
    -netdev user,id=n1,restrict=on -device virtio-net-pci,netdev=n1,bus=rp1,mac=52:54:00:4c:41:42,vectors=6)
fi
STATE=(); [ -n "${LAB_STATE:-}" ] && STATE=(-virtfs "local,path=$LAB_STATE,mount_tag=state,security_model=none,multidevs=remap")
if [ -n "${LAB_CONSOLE:-}" ]; then SERIAL=(-serial file:/dev/stderr); else SERIAL=(-serial "file:$RUN/console.log"); fi

TMO=(); [ -n "${LAB_TIMEOUT:-}" ] && TMO=(timeout "$LAB_TIMEOUT")
"${TMO[@]}" qemu-system-x86_64 -machine q35 -accel $ACCEL$ACCEL_OPTS $CPU -m "${MEM}M" \
  -smp $((NODES*CPN)),sockets=$NODES,cores=$CPN,threads=1 "${numa[@]}" \
  "${BIOS[@]}" -kernel "$KERNEL" -initrd "$LAB/initrd.gz" \
  -append "console=ttyS0 quiet panic=-1 $FAST ${LAB_APPEND:-} lab.dir=$LAB lab.udev=${LAB_UDEV:-0} lab.modules=$MODS lab.coldplug=${LAB_COLDPLUG:-0} lab.debug=${LAB_DEBUG:-0} lab.state=$([ -n "${LAB_STATE:-}" ] && echo 1 || echo 0)" \
  -virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
  -virtfs "local,path=$LAB/extra,mount_tag=extra,security_model=none,readonly=on,multidevs=remap" \
  -virtfs "local,path=$RUN,mount_tag=share,security_model=none,multidevs=remap" \
  "${STATE[@]}" "${extra[@]}" -nodefaults -display none -monitor none "${SERIAL[@]}" -no-reboot &
QPID=$!
# stream the command's output while the guest runs (the share is cache=none)
tail -q -n +1 -F -s 0.1 --pid=$QPID "$RUN/stdout" 2>/dev/null &
T1=$!
tail -q -n +1 -F -s 0.1 --pid=$QPID "$RUN/stderr" >&2 2>/dev/null &
T2=$!
set +e
wait $QPID; qrc=$?; QPID=
wait $T1 $T2
set -e
if [ -n "${LAB_TIMEOUT:-}" ] && [ "$qrc" = 124 ]; then echo "run-in-guest: timed out after ${LAB_TIMEOUT}s" >&2; rc=124
elif [ -s "$RUN/rc" ]; then rc=$(cat "$RUN/rc"); else
  echo "run-in-guest: guest did not report a status (qemu rc=$qrc); console:" >&2
  tail -n 40 "$RUN/console.log" >&2 2>/dev/null || true; rc=125; fi
exit "$rc"
