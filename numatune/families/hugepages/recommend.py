"""What `numatune recommend` says about the HugePages pool."""
from numatune.families.oracle import desired, sizing
from numatune.recommend.entry import SUPERDOME, Entry, note


def _per_node(facts, kb):
    return {nid: (n.get("hugepages") or {}).get(str(kb), {}).get("nr") or 0
            for nid, n in (facts["topology"].get("nodes") or {}).items() if str(kb) in (n.get("hugepages") or {})}


def _pool(facts, kb):
    per_node = _per_node(facts, kb)
    if per_node:
        return sum(per_node.values())
    return (facts["topology"].get("hugepages") or {}).get(str(kb), {}).get("nr") or 0


def _larger(facts, auto):
    """{node: (pages now, pages count = "auto" places)} where the host's pool is larger than the plan's."""
    kb = auto.get("kb", 2048)
    placement = auto.get("placement")
    if placement:
        now = _per_node(facts, kb)
        return {nid: (now[nid], placement.get(nid, 0)) for nid in sorted(now, key=int)
                if now[nid] > placement.get(nid, 0) and nid in placement}
    total = _pool(facts, kb)
    return {"total": (total, auto.get("count", 0))} if total > auto.get("count", 0) else {}


def _amm(facts, pooled):
    """Entries asking to leave AMM, with the figures, for instances on memory_target."""
    sized = ((facts.get("resolved") or {}).get("hugepages") or {}).get("auto") or {}
    kb = sized.get("kb", 2048)
    by_sid = {i["sid"]: i for i in (facts.get("oracle") or {}).get("instances") or []}
    for s in sized.get("instances") or []:
        inst = by_sid.get(s["sid"])
        if s.get("source") != "amm" or inst is None or not inst.get("in_oratab"):
            continue
        params = inst.get("params") or {}
        target = sizing.values.to_bytes(params.get("memory_target")) or \
            sizing.values.to_bytes(params.get("memory_max_target")) or 0
        if not target:
            continue
        sga, pga = desired.split(params, target)
        pages = sizing.estimated_pages(sga, kb)
        yield Entry(table="oracle.instance", array=True, source=(SUPERDOME,),
                    value={"sid": s["sid"], "parameters": {"memory_target": 0}},
                    question="%s runs AMM (memory_target = %s): HugePages cannot back its SGA. Leave AMM? "
                             "memory_target = 0 gives sga_target %dM and pga_aggregate_target %dM (%s), an SGA of "
                             "about %d x %d kB pages; %s With which sizes?"
                             % (s["sid"], params.get("memory_target") or params.get("memory_max_target"),
                                sga >> 20, pga >> 20, desired.split_source(params), pages, kb,
                                "the pool's count = \"auto\" then sizes it." if pooled else
                                "then extend oracle-hugepages (count = \"auto\") and set use_large_pages = "
                                "\"ONLY\"."),
                    note=("%s: HugePages gave +13%% TPM on top of NUMA support and page tables fell from 5.5 GB "
                          "to 175 MB (Scenario 2, Table 12)." % SUPERDOME,))


def recommend(facts):
    resolved = (facts.get("resolved") or {}).get("hugepages") or {}
    auto = resolved.get("auto") or {}
    sized = [i for i in auto.get("instances") or [] if i.get("pages")]
    asked = list(_amm(facts, bool(sized)))
    yield from asked
    if not sized:
        if not asked and (facts.get("oracle") or {}).get("oratab"):
            yield note("hugepages", "No instance's SGA could be sized from its parameter file or alert log: the "
                       "pool is left alone (name the instances' parameter files with [[oracle.instance]] pfile).")
        return
    kb = auto.get("kb", 2048)
    where = ", ".join("node %s: %d" % kv for kv in sorted((auto.get("placement") or {}).items(), key=lambda kv: int(kv[0])))
    sgas = "; ".join("%s %d pages (%s%s)" % (i["sid"], i["pages"], i.get("evidence") or i.get("source") or "",
                                            ", bound to node(s) %s" % ",".join(i["nodes"]) if i.get("nodes") else "")
                     for i in sized)
    larger = _larger(facts, auto)
    yield Entry(extends="oracle-hugepages")
    yield Entry(table="hugepages", key="count", value="auto", source=(SUPERDOME,), plans=("hugepages.live",), note=(
        "Now: %d x %d kB pages; the instances need %d (%s). count = \"auto\" sizes the pool from them at every "
        "plan, places a bound instance's pages on its cpuset's nodes (%s) and never shrinks it below their need."
        % (_pool(facts, kb), kb, auto.get("count", 0), sgas, where or "evenly"),
        "%s: HugePages gave +13%% TPM on top of NUMA support and page tables fell from 5.5 GB to 175 MB "
        "(Scenario 2, Table 12). The oracle user's memlock follows the pool." % SUPERDOME))
    kept = ["keep_larger: a pool already larger than count = \"auto\" places is kept, never released: %s's "
            "pool held 1,536,000 pages where its SGA used 1,077,250, and it names instances not yet started "
            "as one reason for such a pool." % SUPERDOME]
    if larger:
        kept.append("QUESTION: Found larger than the plan: %s (%d x %d kB pages beyond it), beyond what numatune "
                    "sees the instances here need. If no instance that is down and no other program needs them, set "
                    "keep_larger = false to lower them to the plan." % (
                        ", ".join("%s %d (%d planned)" % ("the pool" if n == "total" else "node %s" % n, now, plan)
                                  for n, (now, plan) in larger.items()),
                        sum(now - plan for now, plan in larger.values()), kb))
    yield Entry(table="hugepages", key="keep_larger", value=True, source=(SUPERDOME,), note=tuple(kept))
    yield note("hugepages", "Page size: 2 MiB, the size %s measured; a 1 GiB size is not set: the papers give "
               "no figure for it." % SUPERDOME, source=(SUPERDOME,))
