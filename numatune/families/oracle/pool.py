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


def node_pages_after(facts, nid, kb):
    """Pages node ``nid``'s pool of ``kb`` will hold after the plan: the
    resolved per-node figure when the plan changes the pool, else now."""
    resolved = facts["resolved"]["hugepages"]
    if resolved["policy"] and resolved["kb"] == kb and nid in (resolved.get("want") or {}):
        return resolved["want"][nid]
    return facts["topology"]["nodes"].get(nid, {}).get("hugepages", {}).get(str(kb), {}).get("nr", 0) or 0


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


def alert_pages(inst, kb):
    """Pages of ``kb`` the instance's alert log says its last startup
    expected (Oracle's large-pages report), None when it does not say."""
    row = ((inst.get("evidence") or {}).get("large_pages") or {}).get(str(kb)) or {}
    return row.get("expected")


def _processes(params):
    try:
        return int(str(params.get("processes") or "").strip("'\" ")) or None
    except ValueError:
        return None


def _mib(n):
    return "%d MiB" % (n >> 20) if n % (1 << 30) else "%d GiB" % (n >> 30)


def oracle_figure(inst, params, sga, kb):
    """(pages, why) by Oracle's own count for the SGA after the plan (see
    sizing: the report's expected pages carried to the new SGA), or None."""
    logged = alert_pages(inst, kb)
    if not logged:
        return None
    ev = inst.get("evidence") or {}
    then_params = ev.get("parameters") or {}
    then, source = sizing.sga_bytes(then_params)
    if source in ("unknown", "pools", "amm"):
        then = sizing.sga_bytes(inst.get("params") or {})[0]
    if then <= 0 or sga <= 0:
        return logged, "its alert log's expected pages"
    areas = sizing.shared_areas(logged, kb, then)
    procs_then = _processes(then_params) or _processes(inst.get("params") or {})
    procs_after = _processes(params)
    pages = sizing.oracle_pages(sga, areas, kb, procs_then, procs_after)
    why = "its alert log's expected pages"
    if pages != logged:
        why = ("its alert log's report carried to the SGA after the plan (%d pages expected for a %s SGA at the "
               "last startup)" % (logged, _mib(then)))
    scaled = procs_then and procs_after and procs_after > procs_then
    return pages, "%s: the SGA in granules plus %s of shared areas beside it, as Oracle counted them%s" % (
        why, _mib(areas), ", grown with processes %d -> %d" % (procs_then, procs_after) if scaled else "")


def estimate_why(source, sga):
    return ("its %s in granules plus %s of shared areas beside it, estimated as the E7 paper's instance "
            "showed them (770 MiB beside a 30 GiB SGA, 000_bee41b021388c063.txt): no alert log reports "
            "Oracle's own count" % (source, _mib(sizing.estimated_areas(sga))))


def instance_sizes(data, facts, kb):
    """[{sid, sga, source, pages, nodes, node_pages, evidence}] for every
    instance, after the plan. ``pages`` is the larger of the parameters'
    figure and Oracle's own (its alert log's report, carried to the SGA after
    the plan); ``evidence`` says which."""
    out = []
    for inst in facts.get("oracle", {}).get("instances", []):
        params = desired.after(data, inst)
        sga, source = sizing.sga_bytes(params)
        computed = sizing.instance_pages(sga, kb)
        oracle = oracle_figure(inst, params, sga, kb) if source != "amm" else None
        logged = alert_pages(inst, kb) if source != "amm" else None
        pages = max(computed, oracle[0] if oracle else 0)
        if oracle and oracle[0] > computed:
            evidence = "%s; its parameters give %d" % (oracle[1], computed)
        elif not oracle and computed:
            # No report of Oracle's own: the shared areas beside the SGA are estimated, and said.
            pages = max(computed, sizing.estimated_pages(sga, kb))
            evidence = estimate_why(source, sga)
        else:
            evidence = "its %s" % source if computed else "its alert log"
        nodes = bound_nodes(data, facts, params)
        node_pages = {}
        for i, nid in enumerate(sorted(nodes or [], key=int)):
            share, extra = divmod(pages, len(nodes))
            node_pages[nid] = share + (1 if i < extra else 0)
        out.append({"sid": inst["sid"], "sga": sga, "source": source, "pages": pages, "computed": computed,
                    "logged": logged, "oracle": oracle[0] if oracle else None, "evidence": evidence,
                    "nodes": nodes, "node_pages": node_pages})
    return out


def needs(data, facts, kb):
    """What the instances need of a pool of ``kb`` pages: {"total",
    "per_node": {node: pages of the instances bound there}, "instances",
    "others", "others_per_node": the pages something else holds (see
    ``in_use_by_others``), which a pool must hold beside the instances'}."""
    sizes = instance_sizes(data, facts, kb)
    per_node = {}
    for s in sizes:
        for nid, pages in s["node_pages"].items():
            per_node[nid] = per_node.get(nid, 0) + pages
    others, others_per_node = in_use_by_others(facts, kb)
    return {"total": sum(s["pages"] for s in sizes), "per_node": per_node, "instances": sizes,
            "others": others, "others_per_node": others_per_node}


def held(facts, kb):
    """Pages of ``kb`` the running instances hold, per node (their numa_maps)."""
    out = {}
    for inst in facts.get("oracle", {}).get("instances", []):
        for nid, pages in ((inst.get("huge_held") or {}).get(str(kb)) or {}).items():
            out[nid] = out.get(nid, 0) + pages
    return out


def in_use_by_others(facts, kb):
    """(total, {node: pages}) in use by something other than the instances:
    in use (total - free) less what the running instances hold there. An
    instance that does not run holds nothing, so all pages in use then
    belong to others (shmget segments of another program, a JVM): they are
    not free for the instance, whatever the pool's size."""
    used, used_per_node = in_use(facts, kb)
    mine = held(facts, kb)
    total = max(used - sum(mine.values()), 0)
    # The nodes' share never adds up to more than the host's (meminfo's)
    # figure: on a copied tree a node's nr_hugepages moves with numatune's
    # own write while its free_hugepages does not (see ``in_use``); a kernel
    # keeps both views equal, so this only trims what a copy invents. The
    # largest first: a copy invents on the nodes numatune just grew, a few
    # pages each, while the pages really in use sit where they were.
    per_node, left = {}, total
    for nid in sorted(used_per_node, key=lambda n: (-(used_per_node[n] - mine.get(n, 0)), int(n))):
        per_node[nid] = min(max(used_per_node[nid] - mine.get(nid, 0), 0), left)
        left -= per_node[nid]
    return total, per_node


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


def auto_pool(data, facts, kb, nodes=None):
    """{"count", "placement", "instances", "kb"} for count = "auto" with pages
    of ``kb``; the pages no binding places go evenly over ``nodes`` (default:
    the nodes with memory)."""
    sizes = instance_sizes(data, facts, kb)
    margin = (data.get("oracle") or {}).get("hugepages_margin_pct", sizing.DEFAULT_MARGIN_PCT)
    used, used_per_node = in_use(facts, kb)
    others, others_per_node = in_use_by_others(facts, kb)
    count = sizing.pool_pages([s["pages"] for s in sizes], margin, used, others)
    nodes = nodes if nodes is not None else facts["topology"]["nodes_with_memory"]
    placement = None
    if len(nodes) > 1:
        # The instances' pages and the margin, placed; then on each node what others hold there.
        mine = sizing.pool_pages([s["pages"] for s in sizes], margin)
        placement = sizing.place([(s["pages"], s["nodes"]) for s in sizes], nodes, mine,
                                 others_per_node, used_per_node)
        count = sum(placement.values())
    return {"count": count, "placement": placement, "instances": sizes, "kb": kb, "margin_pct": margin,
            "others": others}
