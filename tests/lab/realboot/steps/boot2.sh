# Boot 2: numa=off is gone (2 nodes) and nothing is applied on this boot. Every value boot 1 set is back, the pool
# is on node 1 (placed by the bootloader's hugepages= or numatune-boot, whichever route the plan chose for this
# kernel) and systemd started the cpuset's slice on node 1; check and plan say so; the check unit runs under its
# sandbox and writes its report; then boot 1's transaction is reverted.
echo "== boot2"
probe
lap probe
NO_COLOR=1 numatune check; echo "RC check=$?"
lap check
NO_COLOR=1 numatune plan --exit-code; echo "RC plan=$?"
lap plan
# What the udev rule selects the 3PAR maps by (a WWID pattern covers the LUNs added later) and the maps' WWIDs.
printf 'P maps.uuid=%s\n' "$(grep -o 'ENV{DM_UUID}=="[^"]*"' /etc/udev/rules.d/90-numatune.rules | sort -u |
  cut -d'"' -f2 | tr '\n' ' ' | sed 's/ $//')"
printf 'P maps.wwids=%s\n' "$(cat /sys/block/dm-*/dm/uuid 2>/dev/null | grep '^mpath-' | sort | tr '\n' ' ' |
  sed 's/ $//')"
echo "boot2: numatune-boot.service: $(journalctl -b -u numatune-boot.service --no-pager -o cat 2>&1 | tail -n 20)"
R=/var/lib/node_exporter/textfile_collector/numatune.prom
rm -f "$R"
systemctl start numatune-check.service; echo "RC check-unit=$?"
lap check-unit
# The unit's properties, from one systemctl (a process costs about a third of a second under TCG).
systemctl show -p Result,ExecMainStatus,ProtectSystem,ProtectHome,NoNewPrivileges,PrivateDevices,PrivateTmp \
  -p SystemCallFilter,RestrictAddressFamilies numatune-check.service | while IFS='=' read -r k v; do
  printf 'P unit.%s=%.40s\n' "$k" "$v"
done
printf 'P unit.report=%s\n' "$( [ -s "$R" ] && grep -c '^numatune_' "$R")"
printf 'P unit.report.status=%s\n' "$(sed -n 's/^numatune_check_status\({[^}]*}\)\{0,1\} *//p' "$R" | head -1)"
# The rules the report counts as waived (the policy's [[waiver]]).
printf 'P waived=%s\n' "$(sed -n 's/^numatune_rule_waived{.*rule="\([^"]*\)".*} 1\(\.0\)*$/\1/p' "$R" | sort |
  tr '\n' ',' | sed 's/,$//')"
head -n 12 "$R"
journalctl -b -u numatune-check.service --no-pager -o cat 2>&1 | tail -n 5
NO_COLOR=1 numatune revert --last; echo "RC revert=$?"
lap revert
