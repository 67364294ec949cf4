"""A placement on nodes the running kernel hides (booted with numa=off) but
the next boot will have (numatune.facts.nextboot: the firmware's SRAT, once
numa=off leaves the bootloader): planned for that boot only, by the route
the plan would choose for that kernel (numatune.families.hugepages.atboot),
and pending until it. The live pool is left alone: its one node is not the
nodes the placement names."""
from numatune.families.boot.nextboot import next_topology
from numatune.families.hugepages import atboot
from numatune.families.hugepages.placement import distribute
from numatune.model import Finding


def resolve(out, hp, kb, missing, facts, too_big):
    """``out`` planned for the next boot's nodes, or None when that boot does
    not have them (or what it has is unknown): then today's refusal stands."""
    later = next_topology(facts)
    if not later or not later["known"]:
        return None
    placed = [str(n) for n, pages in hp["placement"].items() if pages]
    if any(n not in later["nodes_with_memory"] for n in placed):
        return None
    want = distribute(hp["count"], later["nodes_with_memory"], hp["placement"])
    topo = facts["topology"]
    for nid, pages in want.items():
        if too_big(pages, kb, later["nodes"].get(nid)):
            out["refused"].append({
                "id": "hugepages.too-big:%s" % nid, "severity": "warning",
                "target": "node%s hugepages-%dkB" % (nid, kb),
                "message": "%d x %dkB pages would take most of node %s's memory at the next boot (%d kB in the "
                           "firmware's table): not planned" % (pages, kb, nid, later["nodes"][nid]["mem_total_kb"]),
                "why": "lower hugepages.count or spread it over more nodes"})
    if out["refused"]:
        out["policy"] = {}
        return out
    boot = atboot.plan(kb, topo["meminfo"].get("Hugepagesize", 2048), want,
                       {"nodes": later["nodes"], "nodes_with_memory": later["nodes_with_memory"]}, None,
                       (facts.get("host") or {}).get("release"), facts.get("boot"), facts.get("bootunit"))
    out.update(policy=hp, want=want, boot=boot, next_boot={"nodes": sorted(missing, key=int), "why": later["why"]})
    return out


def findings(mine, kb):
    """One pending finding per node the placement names that the running kernel lacks."""
    later = mine["next_boot"]
    route = {"cmdline": "%s in the bootloader" % " ".join(mine["boot"]["args"]),
             "bootfile": "numatune-boot.service at boot"}.get(mine["boot"]["route"])
    for nid in later["nodes"]:
        yield Finding(
            id="hugepages.next-boot:node%s" % nid, severity="warning", area="memory", pending=True,
            target="node%s hugepages-%dkB" % (nid, kb), rule="hugepages.placement",
            message="%d x %dkB pages on node %s are planned for the next boot only%s: waits for the reboot that "
                    "removes numa=off (%s); the live pool is left alone" % (
                        mine["want"][nid], kb, nid, " (%s)" % route if route else "", later["why"]))
