"""The network lines of `numatune facts`: NICs that share driver, speed,
MTU, node, bond, queues and ethtool settings as one entry with their names
folded; each bond on its own line; where the NICs' interrupts run."""
from numatune.report.factlines import capped, fold, line, names, plural
from numatune.facts.cpulist import format_cpulist
from numatune.report.numbers import count

NAME = "network"
# The coalescing settings a policy tunes; the JSON has every one ethtool reports.
COALESCE = ("adaptive-rx", "adaptive-tx", "rx-usecs", "tx-usecs", "rx-frames")


def _pair(block, key):
    """ethtool's ``current/max`` of one setting, or None."""
    block = block or {}
    cur, top = (block.get("current") or {}).get(key), (block.get("max") or {}).get(key)
    if cur is None:
        return None
    # Kernel values stay as ethtool prints them (a reader compares them with the policy's).
    return "%s/%s" % (cur, top) if top is not None else str(cur)


def _irq_place(nic):
    """Where the NIC's interrupts may run, against its own node's CPUs."""
    irqs = nic.get("irqs") or {}
    if not irqs:
        return None
    cpus = set()
    for irq in irqs.values():
        cpus.update(irq.get("affinity") or ())
    local = set(nic.get("local_cpus") or ())
    where = None
    if local:
        where = "on its node's CPUs" if cpus <= local else "off its node" if not cpus & local else \
            "partly off its node"
    return plural(len(irqs), "IRQ") + (" " + where if where else "")


def _key(nic):
    tool = nic.get("ethtool") or {}
    ring = ", ".join("%s %s" % (k, v) for k, v in (("rx", _pair(tool.get("ring"), "rx")),
                                                   ("tx", _pair(tool.get("ring"), "tx"))) if v)
    coalesce = tuple((k, v) for k, v in sorted(((tool.get("coalesce") or {}).get("current") or {}).items())
                     if k in COALESCE)
    return (nic.get("driver") or ("virtual" if nic.get("virtual") else "?"), nic.get("operstate"), nic.get("speed"),
            nic.get("mtu"), nic.get("master"), _pair(tool.get("channels"), "combined"),
            ring, coalesce, _irq_place(nic))


def _describe(key, nodes):
    driver, state, speed, mtu, master, channels, ring, coalesce, irqs = key
    first = [driver, state or "state ?"]
    if speed:
        first.append("%s Mb/s" % count(speed))
    first.append("mtu %s" % mtu)
    nodes = sorted({n for n in nodes if n is not None and n >= 0})
    if nodes:
        first.append("node%s %s" % ("s" if len(nodes) > 1 else "", format_cpulist(nodes)))
    if master:
        first.append("in " + master)
    more = [x for x in ("channels %s" % channels if channels else "", "ring " + ring if ring else "",
                        "coalesce " + ", ".join("%s %s" % kv for kv in coalesce) if coalesce else "",
                        irqs or "") if x]
    return ", ".join(first), "; ".join(more)


def facts_lines(facts):
    mine = facts.get(NAME) or {}
    if not mine:
        return []
    nics = mine.get("interfaces") or {}
    route = mine.get("default_route") or []
    notes = ["default route via " + ", ".join(route)] if route else []
    if mine.get("irqbalance") is not None:
        notes.append("irqbalance %s" % ("running" if mine["irqbalance"] else "not running"))
    out = ["network: %s%s" % (plural(len(nics), "interface"), " (%s)" % "; ".join(notes) if notes else "")]
    bonds = {n: nic for n, nic in nics.items() if nic.get("bonding")}
    others = {n: nic for n, nic in nics.items() if n not in bonds}
    shown, rest = capped(fold(others, _key), "interfaces")
    for key, members in shown:
        head, more = _describe(key, [others[m].get("numa_node") for m in members])
        out += line("%s: %s" % (names(members), head))
        if more:
            out += line(more, indent=6)
    if rest:
        out.append(rest)
    for name, nic in sorted(bonds.items()):
        b = nic["bonding"]
        out += line("%s: bond %s, %s, miimon %s, mtu %s, %s, slaves %s"
                    % (name, b.get("mode") or "?", b.get("xmit_hash_policy") or "hash ?", b.get("miimon"),
                       nic.get("mtu"), nic.get("operstate") or "state ?",
                       names(b.get("slaves") or []) or "none"))
    if mine.get("snapshot"):
        out += line("ethtool settings from the snapshot's %s" % mine["snapshot"])
    return out
