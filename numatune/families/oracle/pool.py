"""``[hugepages] count = "auto"``: the pool the Oracle instances' SGAs need,
from their parameters after the plan, placed per NUMA node by their cpuset
binding. Pure: reads only facts."""
from numatune.facts.cpulist import parse_cpulist
from numatune.families.oracle import desired, sizing


def page_kb(facts):
    """The HugePages size the plan sizes with (the hugepages family resolves it)."""
    return facts["resolved"]["hugepages"]["kb"]


def planned_pool(facts):
    """[hugepages] as resolved (count = "auto" replaced by pages)."""
    return facts["resolved"]["hugepages"]["policy"]


def bound_nodes(data, facts, params):
    """NUMA nodes of the cpuset an instance is bound to, None when unbound."""
    group = (params.get("processor_group_name") or "").strip("'\"")
    if not group:
        return None
    cs = cpusets(data, facts).get(group)
    if not cs:
        return None
    return [str(n) for n in cs["mems"]] or None


def cpusets(data, facts):
    """Cpusets by name: the host's, overridden by the policy's [[cpuset]]."""
    out = dict(facts.get("oracle", {}).get("cpusets", {}))
    for cs in data.get("cpuset", []) or []:
        if not isinstance(cs, dict) or not cs.get("name"):
            continue
        if "nodes" in cs:
            # [[cpuset]] nodes = [0]: that node's CPUs and memory (the cpuset family's rule).
            nodes = facts["topology"]["nodes"]
            mems = sorted(int(n) for n in cs["nodes"])
            cpus = sorted({c for n in mems for c in nodes.get(str(n), {}).get("cpus", [])})
        else:
            cpus, mems = parse_cpulist(cs.get("cpus", "")), parse_cpulist(cs.get("mems", ""))
        out[cs["name"]] = {"cpus": cpus, "mems": mems, "path": "policy"}
    return out


def instance_sizes(data, facts, kb):
    """[{sid, sga, source, pages, nodes}] for every instance, after the plan."""
    out = []
    for inst in facts.get("oracle", {}).get("instances", []):
        params = desired.after(data, inst)
        sga, source = sizing.sga_bytes(params)
        out.append({"sid": inst["sid"], "sga": sga, "source": source, "pages": sizing.instance_pages(sga, kb),
                    "nodes": bound_nodes(data, facts, params)})
    return out


def in_use(facts, kb):
    """Pages in use now, in total and per node (the pool never shrinks below).

    For the default page size, from meminfo (HugePages_Total - HugePages_Free),
    not sysfs nr_hugepages - free_hugepages: on a copied tree numatune's own
    write of nr_hugepages leaves free_hugepages as it was, so "in use" would
    move with the write, the re-plan after apply would size another pool, and
    verify would fail on every apply. A kernel keeps both views equal."""
    topo = facts["topology"]
    meminfo = topo.get("meminfo", {})
    default = kb == meminfo.get("Hugepagesize")
    if default and "HugePages_Total" in meminfo and "HugePages_Free" in meminfo:
        total_used = meminfo["HugePages_Total"] - meminfo["HugePages_Free"]
    else:
        total = topo["hugepages"].get(str(kb), {})
        total_used = total.get("nr", 0) - total.get("free", 0)
    per_node = {}
    for nid, node in topo["nodes"].items():
        pool = node["hugepages"].get(str(kb))
        if default and node.get("hugepages_total") is not None and node.get("hugepages_free") is not None:
            per_node[nid] = max(node["hugepages_total"] - node["hugepages_free"], 0)
        elif pool and "nr" in pool:
            per_node[nid] = pool["nr"] - pool.get("free", 0)
    return max(total_used, 0), per_node


def live_pages(facts, kb):
    """Pages in the pool now: the nodes' pools added up where the kernel
    shows them per node (a copied tree does not sum them for us)."""
    topo = facts["topology"]
    nodes = [n["hugepages"][str(kb)].get("nr", 0) for n in topo["nodes"].values() if str(kb) in n["hugepages"]]
    return sum(nodes) if nodes else topo["hugepages"].get(str(kb), {}).get("nr", 0)


def auto_pool(data, facts, kb):
    """{"count", "placement", "instances", "kb"} for count = "auto" with pages of ``kb``."""
    sizes = instance_sizes(data, facts, kb)
    margin = (data.get("oracle") or {}).get("hugepages_margin_pct", sizing.DEFAULT_MARGIN_PCT)
    used, used_per_node = in_use(facts, kb)
    count = sizing.pool_pages([s["pages"] for s in sizes], margin, used)
    nodes = facts["topology"]["nodes_with_memory"]
    placement = None
    if len(nodes) > 1:
        placement = sizing.place([(s["pages"], s["nodes"]) for s in sizes], nodes, count, used_per_node)
        count = sum(placement.values())
    return {"count": count, "placement": placement, "instances": sizes, "kb": kb}
