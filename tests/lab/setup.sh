#!/bin/bash
# One-time setup for run-in-guest.sh.  Everything lands in $LAB (default /var/tmp/numatune-lab)
# except the qemu-system-x86 package, which is installed on the host.
# Nothing else is installed into the host system: the guest's extra userland
# (kmod, udev, multipath-tools, sg3-utils, lsscsi) and the guest kernel + modules
# are only unpacked (dpkg -x) into $LAB/extra, which the guest stacks as an
# overlay layer on top of the host's root filesystem.
set -euo pipefail
LAB=${LAB:-/var/tmp/numatune-lab}
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$LAB"/debs
cd "$LAB"

export DEBIAN_FRONTEND=noninteractive
need=()
command -v qemu-system-x86_64 >/dev/null || need+=(qemu-system-x86)
command -v cpio >/dev/null || need+=(cpio)
if [ ${#need[@]} -gt 0 ]; then
  apt-get update -qq
  apt-get -o DPkg::Lock::Timeout=300 install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

# Kernel ABI name behind the linux-image-amd64 meta package (e.g. 6.1.0-56-amd64)
KPKG=${KPKG:-$(apt-cache depends linux-image-amd64 | awk '/Depends: linux-image-[0-9]/{print $2; exit}')}
KVER=${KPKG#linux-image-}
# udev must match the host's libudev1 exactly (it is not installed on the host)
UDEVV=$(dpkg-query -W -f='${Version}' libudev1)

cd debs
rm -f ./*.deb
apt-get download "$KPKG" busybox-static kmod "udev=$UDEVV" multipath-tools kpartx \
  liburcu8 sg3-utils libsgutils2-1.46-2 lsscsi 2>&1 | grep -v '^W: Download is performed unsandboxed' || true
cd ..

# --- extra overlay layer -------------------------------------------------------
rm -rf extra bb
mkdir -p extra bb
dpkg -x debs/busybox-static_*.deb bb
for d in debs/*.deb; do
  case $d in *busybox-static*) continue;; esac
  dpkg -x "$d" extra
done
# The host is merged-/usr (/lib -> usr/lib ...).  A real /lib directory in an
# overlay layer would hide the host's /lib symlink, so fold them into usr/.
for d in bin sbin lib lib64; do
  if [ -d extra/$d ] && [ ! -L extra/$d ]; then
    mkdir -p extra/usr/$d
    cp -a extra/$d/. extra/usr/$d/
    rm -rf extra/$d
  fi
done
rm -rf extra/usr/share/doc extra/usr/share/man extra/etc/init.d extra/lib/systemd/system extra/usr/lib/systemd/system
# modules.dep etc. (the .deb leaves this to its postinst)
# (kmod picks the applet from argv[0]; modules live in extra/usr/lib/modules/$KVER)
(exec -a depmod extra/usr/bin/kmod -b extra/usr "$KVER")
cp extra/usr/boot/vmlinuz-"$KVER" vmlinuz 2>/dev/null || cp extra/boot/vmlinuz-"$KVER" vmlinuz
echo "$KVER" > kver
# uncompressed ELF vmlinux: qemu boots it through its PVH entry point, skipping the
# (very slow under TCG) in-guest xz decompression of the bzImage
/usr/bin/python3 - <<'PY'
import lzma
d = open('vmlinuz', 'rb').read()
off = d.find(b'\xfd7zXZ\x00')
open('vmlinux', 'wb').write(lzma.LZMADecompressor().decompress(d[off:]))
PY

# --- initramfs ----------------------------------------------------------------
MODDIR=extra/usr/lib/modules/$KVER
rm -rf initrd && mkdir -p initrd/{bin,proc,sys,dev,host,rw,newroot,mods,extra}
cp bb/bin/busybox initrd/bin/busybox
# resolve dependencies (modules.dep lists a module's deps, deepest last)
declare -A seen; order=()
add() { local rel=$1 dep
  [ -n "${seen[$rel]:-}" ] && return; seen[$rel]=1
  for dep in $(awk -v m="$rel:" '$1==m{for(i=2;i<=NF;i++)print $i}' $MODDIR/modules.dep); do add "$dep"; done
  order+=("$rel"); }
for m in virtio_pci 9pnet_virtio 9p overlay; do
  rel=$(awk -F: -v m="/$m.ko" 'index($1,m)==length($1)-length(m)+1{print $1; exit}' $MODDIR/modules.dep)
  add "$rel"
done
: > initrd/mods/order
for rel in "${order[@]}"; do
  cp $MODDIR/$rel initrd/mods/; echo "$(basename $rel)" >> initrd/mods/order
done
cp "$HERE/guest-init" initrd/init
chmod +x initrd/init
(cd initrd && find . | cpio -o -H newc --quiet | gzip -1) > initrd.gz
echo "setup done: kernel $KVER, modules in initramfs: $(tr '\n' ' ' < initrd/mods/order)"
