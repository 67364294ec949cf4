# Boot 1 (numa=off, the site's tuned/NetworkManager/multipathd): the site policy extends the shipped default
# (oracle-numa: THP never, numa=off removed, sysctls, the 3PAR block rule) with HugePages on node 1, a cpuset on
# node 1 and the NIC's MTU and coalescing; apply it as an admin would. numa=off hides node 1 from this boot, but the
# firmware's SRAT describes it: the pool and the cpuset are planned for the next boot and wait for it.
echo "== before"
probe
lap probe
# The firmware's table and the APIC ids, as the guest has them: the test reads the nodes the next boot gets from
# them with numatune's SRAT parser (apply's plan, below, reads the same table on the guest).
echo "== firmware"
echo "SRAT-B64 $(base64 -w0 /sys/firmware/acpi/tables/SRAT)"
grep -E '^(processor|apicid)' /proc/cpuinfo | sed 's/^/CPUINFO /'
# The guest has one NIC (QEMU user networking): node 0 serves all its interrupts on the 2-node boot, which check
# rightly calls net.irq_skew. A site with one listener NIC answers that finding the way the product offers: a
# dated waiver with its reason (docs/COMPLIANCE.md), here a review date 30 days from the run.
EXPIRES=$(date -d '+30 days' +%F)
cat > /etc/numatune/policy.toml <<X
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

[[waiver]]
rule = "net.irq_skew"
reason = "the lab guest has one NIC (QEMU user networking): one listener NIC is the lab's layout"
expires = "$EXPIRES"
X
NO_COLOR=1 numatune apply --yes; echo "RC apply=$?"
lap apply
echo "== after"
probe
lap probe.after
# One check, in JSON: its status (the exit code), a line per result that is not compliant, the pending and
# critical ids.
numatune check --format json > /run/check.json 2>/run/check.err; echo "RC check=$?"
python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))
for r in d["results"]:
    if r["state"] != "compliant":
        print("  %-8s %-9s %s  %s" % (r["severity"].upper(), r["state"], r["id"], r["message"]))
print("P pending=" + ",".join(sorted(r["id"] for r in d["results"] if r["state"] == "pending")))
print("P critical=" + ",".join(sorted(r["id"] for r in d["results"] if r["severity"] == "critical")))' /run/check.json
cat /run/check.err
lap check
