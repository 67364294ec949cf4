"""What `numatune recommend` says about the HugePages pool."""
from numatune.recommend.entry import SUPERDOME, Entry, note



def _pool(facts, kb):
    per_node = [(n.get("hugepages") or {}).get(str(kb)) or {} for n in (facts["topology"].get("nodes") or {}).values()]
    return sum(p.get("nr") or 0 for p in per_node)


def recommend(facts):
    resolved = (facts.get("resolved") or {}).get("hugepages") or {}
    auto = resolved.get("auto") or {}
    sized = [i for i in auto.get("instances") or [] if i.get("pages")]
    if not sized:
        if (facts.get("oracle") or {}).get("oratab"):
            yield note("hugepages", "No instance's SGA could be sized from its parameter file or alert log: the "
                       "pool is left alone (name the instances' parameter files with [[oracle.instance]] pfile).")
        return
    kb = auto.get("kb", 2048)
    where = ", ".join("node %s: %d" % kv for kv in sorted((auto.get("placement") or {}).items(), key=lambda kv: int(kv[0])))
    sgas = "; ".join("%s %d pages (%s%s)" % (i["sid"], i["pages"], i.get("evidence") or i.get("source") or "",
                                            ", bound to node(s) %s" % ",".join(i["nodes"]) if i.get("nodes") else "")
                     for i in sized)
    yield Entry(extends="oracle-hugepages")
    yield Entry(table="hugepages", key="count", value="auto", source=(SUPERDOME,), plans=("hugepages.live",), note=(
        "Now: %d x %d kB pages; the instances need %d (%s). count = \"auto\" sizes the pool from them at every "
        "plan, places a bound instance's pages on its cpuset's nodes (%s) and never shrinks it below their need."
        % (_pool(facts, kb), kb, auto.get("count", 0), sgas, where or "evenly"),
        "%s: HugePages gave +13%% TPM on top of NUMA support and page tables fell from 5.5 GB to 175 MB "
        "(Scenario 2, Table 12). The oracle user's memlock follows the pool." % SUPERDOME))
    yield note("hugepages", "Page size: 2 MiB, the size %s measured; a 1 GiB size is not set: the papers give "
               "no figure for it." % SUPERDOME, source=(SUPERDOME,))
