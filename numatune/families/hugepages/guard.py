"""Never starve an instance: a pool change that lowers a pool below what
the Oracle instances on the host need is refused unless the policy says
``allow_shrink = true``. Pure: the wanted pool and the needs in, findings
(as JSON-able dicts, kept in the resolved facts) out.

The needs come from ``numatune.families.oracle.pool.needs``: each instance's
SGA from its parameters, or Oracle's own figure (its alert log's report,
carried to the SGA after the plan) when larger, on
the nodes of its cpuset when it is bound.
"""

WHY = ("an instance with use_large_pages = ONLY does not start without its pages, and one with TRUE "
       "falls back to 4K pages; set [hugepages] allow_shrink = true to lower the pool anyway")


def who(instances, node=None):
    """"PROD needs 15745 (its alert log; its parameters give 15392), bound
    to node 3" for each instance with pages (on ``node`` when given)."""
    out = []
    for s in instances:
        if not s["pages"] or (node is not None and node not in (s["nodes"] or [])):
            continue
        where = ", bound to node %s" % ",".join(s["nodes"]) if s["nodes"] else ""
        out.append("%s needs %d (from %s)%s" % (s["sid"], s["pages"] if node is None else s["node_pages"][node],
                                               s["evidence"], where))
    return "; ".join(out)


def starving(kb, want, current, need):
    """Findings for each pool the change would lower below the need.

    ``want``: {node: pages} planned per node, or {"total": pages} for a host
    without per-node pools; ``current``: the same shape, now; ``need``: the
    result of ``needs`` (total, per_node, instances)."""
    out = []
    others = need.get("others_per_node") or {}
    for nid in sorted(need["per_node"], key=int):
        # Pages something else holds on the node are not free for the instances.
        needed = need["per_node"][nid] + others.get(nid, 0)
        if nid not in want or nid not in current:
            continue
        if want[nid] < current[nid] and want[nid] < needed:
            beside = " beside the %d in use by others" % others[nid] if others.get(nid) else ""
            out.append({"id": "hugepages.starves:node%s" % nid, "severity": "critical",
                        "target": "node%s hugepages-%dkB" % (nid, kb),
                        "message": "lowering node %s's %dkB pool from %d to %d pages leaves less than the %d "
                                   "its instances need (%s)%s: no HugePages change planned"
                                   % (nid, kb, current[nid], want[nid], need["per_node"][nid],
                                      who(need["instances"], nid), beside),
                        "why": WHY})
    total_want, total_now = sum(want.values()), sum(current.values())
    if need["total"] and total_want < total_now and total_want < need["total"]:
        out.append({"id": "hugepages.starves", "severity": "critical", "target": "hugepages-%dkB" % kb,
                    "message": "lowering the %dkB pool from %d to %d pages leaves less than the %d the "
                               "instances need (%s): no HugePages change planned"
                               % (kb, total_now, total_want, need["total"], who(need["instances"])),
                    "why": WHY})
    return out
