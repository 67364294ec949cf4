"""NUMA-locality checks for a cpuset: pure functions of its cpus and mems and
the topology facts. Each check returns (key, severity, message) tuples; the
cpuset family turns them into findings.

Why they matter: an SGA in another node's memory pays the remote distance on
every buffer get; on an 8-socket host a remote SGA measured 2.15x fewer
logical reads per second than a local one (000_bee41b021388c063.txt).
"""
MEASURED = "a remote SGA measured 2.15x fewer logical reads per second than a local one (000_bee41b021388c063.txt)"


def node_of_cpu(topology):
    out = {}
    for nid, node in topology["nodes"].items():
        for cpu in node["cpus"]:
            out[cpu] = nid
    return out


def cpu_nodes(cpus, topology):
    owner = node_of_cpu(topology)
    return sorted({owner[c] for c in cpus if c in owner}, key=int)


def _distance(topology, a, b):
    return topology["nodes"].get(a, {}).get("distance", {}).get(b)


def _local(topology, nid):
    return _distance(topology, nid, nid) or 10


def remote_memory(cpus, mems, topology):
    """cpus whose node is not among mems: their memory is remote."""
    nodes = cpu_nodes(cpus, topology)
    mem_ids = [str(m) for m in mems]
    out = []
    if not nodes or not mem_ids:
        return out
    remote = [n for n in nodes if n not in mem_ids]
    if not remote:
        return out
    parts = []
    for n in remote:
        dists = [(m, _distance(topology, n, m)) for m in mem_ids]
        known = [(m, d) for m, d in dists if d]
        local = _local(topology, n)
        if known:
            m, d = max(known, key=lambda x: x[1])
            parts.append("node %s cpus reach node %s memory at distance %d vs %d local (%.1fx)"
                         % (n, m, d, local, d / float(local)))
        else:
            parts.append("node %s cpus have no memory in mems %s" % (n, ",".join(mem_ids)))
    if len(remote) == len(nodes):
        out.append(("remote-memory", "critical",
                    "mems %s is not local to any of its cpus: %s; %s"
                    % (",".join(mem_ids), "; ".join(parts), MEASURED)))
    else:
        out.append(("cpus-span-nodes", "warning",
                    "cpus span nodes %s but mems names %s: %s; %s"
                    % (",".join(nodes), ",".join(mem_ids), "; ".join(parts), MEASURED)))
    return out


def sga_spans(mems, sga_kb, topology):
    """A cpuset over several nodes for an SGA that one node could hold."""
    if not sga_kb or len(mems) < 2:
        return []
    sizes = [(str(m), topology["nodes"].get(str(m), {}).get("mem_total_kb") or 0) for m in mems]
    fits = [m for m, kb in sizes if kb and sga_kb <= kb * 0.8]
    if not fits:
        return []
    return [("sga-spans-nodes", "warning",
             "the SGA (%d MiB) fits node %s, but mems spans nodes %s: the SGA fills the first node's memory "
             "first and the instance's processes on the other nodes read it remotely; pin the instance to one "
             "node" % (sga_kb // 1024, fits[0], ",".join(m for m, _ in sizes)))]


def unusable_cpus(cpus, topology):
    online = set(topology["online"])
    known = set(node_of_cpu(topology)) | {int(c) for c in topology.get("cpus", {})} | online
    absent = [c for c in cpus if c not in known]
    offline = [c for c in cpus if c in known and c not in online]
    out = []
    if absent:
        out.append(("cpus-absent", "critical", "cpus %s do not exist on this host" % _list(absent)))
    if offline:
        out.append(("cpus-offline", "critical", "cpus %s are offline: the kernel refuses them in a cpuset"
                    % _list(offline)))
    return out


def unusable_mems(mems, topology):
    with_memory = set(topology.get("nodes_with_memory") or topology["nodes"])
    bad = [m for m in mems if str(m) not in with_memory]
    if not bad:
        return []
    return [("mems-without-memory", "critical",
             "mems %s: node(s) with no memory or absent (nodes with memory: %s)"
             % (",".join(map(str, bad)), ",".join(sorted(with_memory, key=int)) or "none"))]


def overlaps(name, cpus, exclusive, others):
    """Overlap with other cpusets when either side is meant to guarantee CPUs.

    ``others``: {name: {"cpus": [...], "cpu_exclusive": bool}}."""
    out = []
    for other, spec in sorted(others.items()):
        common = sorted(set(cpus) & set(spec["cpus"]))
        if common and (exclusive or spec["cpu_exclusive"]):
            out.append(("overlap:" + other, "critical" if exclusive else "warning",
                        "cpus %s are also in cpuset %s, so neither has them guaranteed%s"
                        % (_list(common), other, " (the kernel refuses cpu_exclusive on overlapping cpusets)"
                           if exclusive else "")))
    return out


def _list(cpus):
    from numatune.facts.cpulist import format_cpulist
    return format_cpulist(cpus)
