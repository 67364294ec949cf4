"""What the network facts say without a setting to change: NIC IRQs served
on a remote NUMA node, one node taking every NIC interrupt, and bond slaves
with different MTUs."""
from itertools import compress

from numatune.facts.cpulist import format_cpulist
from numatune.model import Finding

# A node serving at least this share of all NIC interrupts is "taking all".
SKEW = 0.9


def _node_of_cpu(topology):
    out = {}
    for node, info in topology["nodes"].items():
        for cpu in info.get("cpus") or []:
            out[cpu] = int(node)
    return out


def _served(counts):
    """The CPUs with a non-zero count, picked at C speed: 4,096 IRQs x 480 CPUs on a giant host."""
    left = len(counts) - counts.count(0)
    if left == 0:
        return []
    if left == 1:
        # One CPU took it (where its affinity puts it): that count found by C loops that stop at it.
        count = next(filter(None, counts), None)
        return [] if count is None else [counts.index(count)]
    return list(compress(range(len(counts)), counts))


def remote_irqs(name, info, topology, served=None):
    """[(irq, remote cpus)] for IRQs that ran (or may run) off the NIC's node. ``served``: {irq:
    _served(its counts)}, when the caller has it."""
    node = info.get("numa_node")
    if node is None or node < 0:
        return []
    local = set((topology["nodes"].get(str(node)) or {}).get("cpus") or [])
    if not local:
        return []
    out = []
    irqs = info.get("irqs", {})
    for irq in sorted(irqs, key=int):
        state = irqs[irq]
        on = _served(state.get("counts") or []) if served is None else served[irq]
        # Counted CPUs come in order, each once: sorted already.
        remote = [cpu for cpu in on if cpu not in local] if on else \
            sorted(set(state.get("affinity") or []) - local)
        if remote:
            out.append((irq, remote))
    return out


def findings(data, net, topology, wanted):
    ifaces = net["interfaces"]
    cpu_node = _node_of_cpu(topology)
    # Per CPU first, then per node: the same sums as IRQ by IRQ, CPU by CPU, from the non-zero counts
    # alone (an IRQ runs on a CPU or two of 480: summing every column was a third of a giant host's diff).
    per_node, per_cpu = {}, {}
    said = {}   # each CPU list's text made once for all NICs (a few CPUs serve thousands of IRQs)
    for name in sorted(wanted):
        info = ifaces[name]
        served = {}
        for irq, state in info.get("irqs", {}).items():
            counts = state.get("counts") or []
            on = served[irq] = _served(counts)
            for cpu in on:
                per_cpu[cpu] = per_cpu.get(cpu, 0) + counts[cpu]
        remote = remote_irqs(name, info, topology, served)
        if remote:
            irqs = ", ".join("%s (CPUs %s)" % (irq, _said(said, cpus)) for irq, cpus in remote)
            yield Finding(id="net.remote_irq:%s" % name, severity="warning", area="network", target=name,
                          rule=",".join(wanted[name][3]),
                          message="%s sits on node %d but its IRQs are served on other nodes: %s; set "
                                  "irq_affinity = \"local-node\"" % (name, info["numa_node"], irqs))
    for cpu in sorted(per_cpu):
        count = per_cpu[cpu]
        if count and cpu in cpu_node:
            per_node[cpu_node[cpu]] = per_node.get(cpu_node[cpu], 0) + count
    yield from _skew(per_node, topology)
    yield from _bond_slaves(ifaces)


def _said(said, cpus):
    key = tuple(cpus)
    text = said.get(key)
    if text is None:
        text = said[key] = format_cpulist(cpus)
    return text


def _skew(per_node, topology):
    nodes_with_cpus = [n for n, info in topology["nodes"].items() if info.get("cpus")]
    total = sum(per_node.values())
    if len(nodes_with_cpus) < 2 or not total:
        return
    node, top = max(per_node.items(), key=lambda kv: kv[1])
    if top >= SKEW * total:
        yield Finding(id="net.irq_skew", severity="warning", area="network", target="node%d" % node,
                      message="node %d serves %d%% of the NIC interrupts while %d other node(s) idle: a single "
                              "listener NIC; give each node its own NIC and listener (the per-node listener "
                              "layout of the Oracle area)" % (node, round(100 * top / total),
                                                              len(nodes_with_cpus) - 1))


def _bond_slaves(ifaces):
    by_master = {}
    for name, info in ifaces.items():
        if info.get("master") and info.get("mtu") is not None:
            by_master.setdefault(info["master"], []).append((name, info["mtu"]))
    for master, slaves in sorted(by_master.items()):
        mtus = {mtu for _, mtu in slaves}
        if master in ifaces and ifaces[master].get("mtu") is not None:
            mtus.add(ifaces[master]["mtu"])
        if len(mtus) > 1:
            listing = ", ".join("%s %d" % s for s in sorted(slaves))
            yield Finding(id="net.bond_mtu:%s" % master, severity="warning", area="network", target=master,
                          message="%s (MTU %s) has slaves with different MTUs: %s; set the MTU on the bond, "
                                  "not on a slave" % (master, ifaces.get(master, {}).get("mtu"), listing))
