"""What `numatune recommend` says per processor group the instances name: a
NUMA-local [[cpuset]] (its CPUs and memory on the same nodes), sized to the
SGA of the instances in it. A group that exists and is local is left as it is."""
from numatune.facts.cpulist import format_cpulist
from numatune.recommend.entry import CAGING_RAC, Entry, note


def _node_of_cpus(topology):
    return {cpu: nid for nid, node in (topology.get("nodes") or {}).items() for cpu in node.get("cpus") or []}


def _cpulist(ids):
    return format_cpulist(int(i) for i in ids)


def _sized_nodes(topology, sga):
    """The fewest nodes (with CPUs, most memory first) whose memory holds the SGA."""
    nodes = sorted(((nid, n.get("mem_total_kb") or 0) for nid, n in (topology.get("nodes") or {}).items()
                    if n.get("cpus")), key=lambda kv: (-kv[1], int(kv[0])))
    out, total = [], 0
    for nid, kb in nodes:
        out.append(int(nid))
        total += kb * 1024
        if total >= sga:
            return sorted(out)
    return None


def recommend(facts):
    ora = facts.get("oracle") or {}
    topology = facts.get("topology") or {}
    auto = ((facts.get("resolved") or {}).get("hugepages") or {}).get("auto") or {}
    sga = {i["sid"]: i.get("sga") or 0 for i in auto.get("instances") or []}
    groups = {}
    for inst in ora.get("instances") or []:
        name = ((inst.get("params") or {}).get("processor_group_name") or "").strip("'\"")
        if name:
            groups.setdefault(name, []).append(inst["sid"])
    where = _node_of_cpus(topology)
    for name, sids in sorted(groups.items()):
        need = sum(sga.get(s, 0) for s in sids)
        have = (ora.get("cpusets") or {}).get(name)
        if have:
            cpu_nodes = sorted({where[c] for c in have.get("cpus") or [] if c in where}, key=int)
            mems = [str(m) for m in have.get("mems") or []]
            if sorted(mems, key=int) == cpu_nodes:
                yield note("cpuset", "Processor group %s (%s): CPUs and memory on node(s) %s already; left as it is."
                           % (name, ", ".join(sids), ",".join(cpu_nodes)))
                continue
            cpus = _cpulist(have.get("cpus") or [])
            question = ("Processor group %s has CPUs %s on node(s) %s but memory on %s: move its memory to its "
                        "CPUs' nodes, keeping its CPUs (restart of %s)?" % (
                            name, cpus or "?", ",".join(cpu_nodes) or "?", ",".join(mems) or "?", ", ".join(sids)))
            # Its CPUs as they are: only the memory moves (nodes = [...] would widen it to the nodes' every CPU).
            value = {"name": name, "cpus": cpus, "mems": _cpulist(int(n) for n in cpu_nodes)}
        else:
            chosen = _sized_nodes(topology, need)
            if chosen is None:
                yield note("cpuset", "Processor group %s (%s) does not exist and no set of nodes holds its SGA: "
                           "nothing set." % (name, ", ".join(sids)))
                continue
            question = "Which nodes may processor group %s (%s) have? %s hold its SGA." % (
                name, ", ".join(sids), "Node(s) " + ",".join(map(str, chosen)))
            value = {"name": name, "nodes": chosen}
        if need:
            value["sga_size"] = "%dM" % -(-need // (1 << 20))
        yield Entry(table="cpuset", array=True, value=value, source=(CAGING_RAC,), question=question, note=(
            "%s: an instance bound to a cpuset whose memory is on another node did 2.15x fewer logical reads/s; "
            "CPUs and memory belong on the same nodes." % CAGING_RAC,))
