# Boot 1 (numa=off, the site's tuned/NetworkManager/multipathd): the site policy extends the shipped default
# (oracle-numa: THP never, numa=off removed, sysctls, the 3PAR block rule) with HugePages on node 1, a cpuset on
# node 1 and the NIC's MTU and coalescing; apply it as an admin would.
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
numatune plan; echo "RC plan=$?"
numatune apply --yes; echo "RC apply=$?"
echo "== after"
probe
numatune check; echo "RC check=$?"
echo "boot1: numatune-boot.service: $(systemctl cat numatune-boot.service 2>&1 | grep -E '^(ExecStart|After|WantedBy)=' | tr '\n' ' ')"
