# Boot 1 (numa=off, the site's tuned/NetworkManager/multipathd): the site policy extends the shipped default
# (oracle-numa: THP never, numa=off removed, sysctls, the 3PAR block rule) with HugePages on node 1, a cpuset on
# node 1 and the NIC's MTU and coalescing; apply it as an admin would. numa=off hides node 1 from this boot.
echo "== before"
probe
cat > /etc/numatune/policy.toml <<'X'
[policy]
name = "lab"
extends = ["oracle-numa"]

[hugepages]
size = "2M"
count = 64
placement = { 1 = 64 }

[[cpuset]]
name = "labdb"
nodes = [1]

[[net]]
match = { name = "enp0s3" }
mtu = 9000
coalesce = { rx-usecs = 50 }
X
NO_COLOR=1 numatune apply --yes; echo "RC apply=$?"
echo "== after"
probe
NO_COLOR=1 numatune check; echo "RC check=$?"
