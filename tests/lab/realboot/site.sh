#!/bin/bash
# site.sh ROOT   the host as a site runs it before numatune (written into the mounted guest root ROOT):
#   - tuned active at boot with the virtual-guest profile;
#   - the NIC (enp0s3, e1000e) managed by NetworkManager from a keyfile naming it (MTU 1500);
#   - scsi_debug as a 3PAR array (vendor 3PARdata, product VV: 2 LUNs through 2 SCSI hosts = 4 sd paths) loaded
#     at boot by systemd-modules-load, under multipathd (find_multipaths no: every path is multipathed).
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
printf 'defaults {\n\tfind_multipaths no\n\tuser_friendly_names yes\n}\n' > "$ROOT/etc/multipath.conf"
echo "site: tuned (virtual-guest), NetworkManager (enp0s3), scsi_debug as 3PAR under multipathd"
