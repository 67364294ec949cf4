"""What `numatune recommend` says about the kernel command line and THP."""
from numatune.recommend.entry import NUMA_SUMA, SUPERDOME, Entry, nodes, sockets, note


def recommend(facts):
    host = facts["host"]
    cmdline = host.get("cmdline") or []
    shown, packages = len(nodes(facts)), len(sockets(facts))
    if "numa=off" in cmdline:
        yield Entry(table="kernel.cmdline", key="absent", value=["numa=off"], source=(SUPERDOME, NUMA_SUMA), note=(
            "Now: numa=off is on the kernel command line: the kernel shows %d node(s) over %d socket(s), so "
            "neither the scheduler nor Oracle can keep memory local." % (shown, packages),
            "%s: removing numa=off and turning on Oracle's NUMA support gave +27%% TPM (Table 12; +80%% with "
            "HugePages and one listener per node). %s: NUMA mode with HugePages finished a CPU-bound Oracle "
            "workload 12-15%% sooner than numa=off at 4-32 sessions. Takes effect at the next boot."
            % (SUPERDOME, NUMA_SUMA)))
    thp = host.get("thp") or {}
    if thp.get("enabled") not in (None, "never"):
        yield note("kernel", "Now: transparent hugepages are %r; the extended oracle-numa sets never, as %s's "
                   "HugePages procedure disables them before sizing the pool." % (thp["enabled"], SUPERDOME),
                   source=(SUPERDOME,))
