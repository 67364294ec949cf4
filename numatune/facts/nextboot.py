"""The NUMA topology the next boot will have, where the running kernel hides it.

A kernel booted with ``numa=off`` shows one node whatever the sockets; once
the bootloader entry the next boot uses no longer has it (or the plan removes
it), the next boot shows the nodes the firmware describes (its ACPI SRAT,
numatune.facts.srat). Settings bound to those nodes (a HugePages pool on
node 1, a cpuset on node 1) can then be planned for that boot, and wait for
it. Where no SRAT could be read (a capture taken without root, a machine
without ACPI) the node count after the reboot is unknown: said, never guessed.

Pure: the topology facts and whether numa=off stays in, a dict out. Which
family knows the bootloader is not this module's business: the caller says
whether numa=off stays (``numa_off_next``) and why.
"""
from numatune.facts import srat

NUMA_OFF = "numa=off"


def hidden(cmdline):
    """True when the running kernel was booted with numa=off."""
    return NUMA_OFF in (cmdline or [])


def topology(topo, cmdline, numa_off_next, why_gone):
    """None when the next boot shows the nodes the running kernel shows (no
    numa=off now, or numa=off stays). Otherwise {"known": bool, "why": the
    sentence a finding quotes, "nodes": {id: {"cpus": [...] or None,
    "mem_total_kb"}}, "nodes_with_memory",
    "source"}; "nodes" is {} when not known. ``why_gone``: how numa=off goes
    ("the plan removes numa=off from the bootloader (bls)")."""
    if not hidden(cmdline) or numa_off_next:
        return None
    firmware = (topo or {}).get("firmware") or {}
    found = firmware.get("nodes")
    source = firmware.get("source") or "SRAT"
    if not found:
        why = ("%s, but %s" % (
            why_gone, "the firmware's %s numbers its domains differently for older and newer kernels" % source
            if firmware.get("domains") else "no ACPI SRAT was read (%s: a capture taken without "
                                            "root, or a machine without ACPI)" % srat.SRAT))
        return {"known": False, "why": why + ": the node count after the reboot is unknown",
                "nodes": {}, "nodes_with_memory": [], "source": None}
    nodes = {n["id"]: {"cpus": n["cpus"], "mem_total_kb": n["mem_kb"] or None} for n in found}
    return {"known": True, "nodes": nodes, "source": source,
            "nodes_with_memory": [n["id"] for n in found if n["mem_kb"]],
            "why": "%s; the firmware's ACPI SRAT describes %d nodes for that boot" % (why_gone, len(nodes))}
