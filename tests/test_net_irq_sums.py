"""The NIC interrupt findings sum 4,096 IRQs x 480 CPUs column-wise at C
speed (issue #18); they must say exactly what summing IRQ by IRQ, CPU by CPU
says, also when count lists differ in length (a line /proc/interrupts cut
short) and CPUs sit on no node."""
from hypothesis import given, settings, strategies as st

from numatune.families.network import findings

COUNTS = st.lists(st.integers(min_value=0, max_value=5), max_size=12)


def _reference(ifaces, topology, wanted):
    """The IRQ-by-IRQ sums as written before (numatune 52fcfe7)."""
    cpu_node = findings._node_of_cpu(topology)
    per_node, remote = {}, {}
    for name in sorted(wanted):
        info = ifaces[name]
        node = info.get("numa_node")
        local = set((topology["nodes"].get(str(node)) or {}).get("cpus") or []) if node is not None else set()
        for irq, state in sorted(info.get("irqs", {}).items(), key=lambda kv: int(kv[0])):
            served = [cpu for cpu, n in enumerate(state.get("counts") or []) if n] or state.get("affinity") or []
            if local and set(served) - local:
                remote.setdefault(name, []).append((irq, sorted(set(served) - local)))
            for cpu, count in enumerate(state.get("counts") or []):
                if count and cpu in cpu_node:
                    per_node[cpu_node[cpu]] = per_node.get(cpu_node[cpu], 0) + count
    return per_node, remote


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(COUNTS, max_size=5), min_size=1, max_size=4), st.integers(min_value=1, max_value=8))
def test_column_sums_equal_irq_by_irq_sums(nics, split):
    topology = {"nodes": {"0": {"cpus": list(range(split))}, "1": {"cpus": list(range(split, 10))}}}
    ifaces = {"eth%d" % i: {"numa_node": i % 2, "master": None, "mtu": 1500, "bonding": None,
                            "irqs": {str(100 * i + j): {"counts": c, "affinity": [0]} for j, c in enumerate(irqs)}}
              for i, irqs in enumerate(nics)}
    wanted = {name: ({}, None, "", ["net[0]"]) for name in ifaces}
    per_node, remote = _reference(ifaces, topology, wanted)
    said = list(findings.findings({}, {"interfaces": ifaces}, topology, wanted))
    assert {f.id for f in said if f.id.startswith("net.remote_irq:")} == {"net.remote_irq:" + n for n in remote}
    for name, irqs in remote.items():
        assert findings.remote_irqs(name, ifaces[name], topology) == irqs
    total = sum(per_node.values())
    skew = [f for f in said if f.id == "net.irq_skew"]
    top = max(per_node.items(), key=lambda kv: kv[1]) if per_node else None
    assert bool(skew) == bool(total and top[1] >= findings.SKEW * total)
    if skew:
        assert skew[0].target == "node%d" % top[0] and "%d%%" % round(100 * top[1] / total) in skew[0].message
