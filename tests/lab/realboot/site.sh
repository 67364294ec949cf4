#!/bin/bash
# site.sh ROOT   the host as a site runs it before numatune (written into the mounted guest root ROOT):
#   - tuned active at boot with the virtual-guest profile;
#   - the NIC (enp0s3, e1000e) managed by NetworkManager from a keyfile naming it (MTU 1500);
#   - scsi_debug as a 3PAR array (vendor 3PARdata, product VV: 2 LUNs through 2 SCSI hosts = 4 sd paths, each LUN
#     with a 3PAR NAA-6 WWID 360002ac... by a udev rule) loaded at boot by systemd-modules-load, under multipathd
#     (find_multipaths no: every path is multipathed).
# The kernel command line keeps the golden image's numa=off (GRUB_CMDLINE_LINUX in /etc/default/grub).
set -euo pipefail
ROOT=$1
systemctl --root="$ROOT" enable tuned.service NetworkManager.service multipathd.service multipathd.socket >/dev/null 2>&1
# Under TCG on a loaded box tuned's start (Python, Type=dbus) was seen to take over systemd's 90 s default:
# systemd then kills it and the boot goes on without tuned. A site's hardware runs it 20x faster.
mkdir -p "$ROOT/etc/systemd/system/tuned.service.d"
printf '[Service]\nTimeoutStartSec=15min\n' > "$ROOT/etc/systemd/system/tuned.service.d/lab-tcg.conf"
echo virtual-guest > "$ROOT/etc/tuned/active_profile"
echo manual > "$ROOT/etc/tuned/profile_mode"
install -d -m 0700 "$ROOT/etc/NetworkManager/system-connections"
cat > "$ROOT/etc/NetworkManager/system-connections/lab-nic.nmconnection" <<'X'
[connection]
id=lab-nic
type=ethernet
interface-name=enp0s3
autoconnect=true

[ethernet]
mtu=1500

[ipv4]
method=manual
address1=10.0.2.15/24

[ipv6]
method=disabled
X
chmod 600 "$ROOT/etc/NetworkManager/system-connections/lab-nic.nmconnection"
echo scsi_debug > "$ROOT/etc/modules-load.d/lab-3par.conf"
echo "options scsi_debug num_tgts=1 max_luns=2 add_host=2 vpd_use_hostno=0 dev_size_mb=16 inq_vendor=3PARdata inq_product=VV" \
  > "$ROOT/etc/modprobe.d/lab-3par.conf"
# Lab emulation of a 3PAR LUN's identity, as inq_vendor=3PARdata above is of its inquiry data. scsi_debug names each
# LUN by a T10 vendor designator and a locally assigned NAA-3 one (3333333<id>), so udev's ID_SERIAL, which
# multipathd takes as the map's WWID (uid_attribute), is "13PARdataVVi_debug_2000": no vendor OUI in it, and numatune
# rightly cannot select a later LUN by it. A 3PAR VV has a NAA-6 designator with 3PAR's IEEE OUI 0002ac, which
# 55-scsi-sg3_id would make ID_SERIAL 360002ac...: this rule gives each LUN that, made from scsi_debug's NAA-3 id
# (both paths of a LUN share it, LUNs differ). Ordered after 55-scsi-sg3_id (which sets ID_SERIAL) and before
# 58-scsi-sg3_symlink, 60-multipath and 60-persistent-storage (which read it).
Z16=0000000000000000
cat > "$ROOT/etc/udev/rules.d/57-lab-3par-wwid.rules" <<X
# written by tests/lab/realboot/site.sh: scsi_debug's NAA-3 LUN id (3333333<id>) as a 3PAR NAA-6 WWID (60002ac...)
ACTION=="remove", GOTO="lab_3par_end"
SUBSYSTEM!="block", GOTO="lab_3par_end"
ENV{DEVTYPE}!="disk", GOTO="lab_3par_end"
ENV{ID_VENDOR}!="3PARdata", GOTO="lab_3par_end"
ENV{SCSI_IDENT_LUN_NAA_LOCAL}!="3333333?????????", GOTO="lab_3par_end"
PROGRAM="/bin/sh -c 'echo \$env{SCSI_IDENT_LUN_NAA_LOCAL} | /bin/sed s/^3333333/60002ac$Z16/'", ENV{SCSI_IDENT_LUN_NAA_REGEXT}="\$result"
ENV{SCSI_IDENT_LUN_NAA_LOCAL}=""
ENV{ID_SERIAL}="3\$env{SCSI_IDENT_LUN_NAA_REGEXT}", ENV{ID_SERIAL_SHORT}="\$env{SCSI_IDENT_LUN_NAA_REGEXT}"
ENV{ID_WWN_WITH_EXTENSION}="0x\$env{SCSI_IDENT_LUN_NAA_REGEXT}", ENV{ID_WWN}="0x60002ac${Z16:7}"
LABEL="lab_3par_end"
X
printf 'defaults {\n\tfind_multipaths no\n\tuser_friendly_names yes\n}\n' > "$ROOT/etc/multipath.conf"
echo "site: tuned (virtual-guest), NetworkManager (enp0s3), scsi_debug as 3PAR under multipathd"
