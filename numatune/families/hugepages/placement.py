"""Where a pool's pages go, per NUMA node. Pure: topology facts in.

"even" spreads only over nodes a database can use locally: nodes with CPUs
and normal memory. A CPU-less node (GPU memory, CXL expanders: the
``nvidiagpunumanodes`` kind of host) holds no process that could use its
pages locally, and memory it only offers as movable cannot hold HugePages at
all; such nodes are skipped, and the plan says so.
"""


def even_nodes(topo, normal_memory=None):
    """(eligible node ids, {skipped id: reason}) for "even" placement.

    ``normal_memory``: node ids of /sys/devices/system/node/has_normal_memory,
    None when the host does not say (then memory alone counts)."""
    with_memory = [str(n) for n in topo["nodes_with_memory"]]
    nodes = topo["nodes"]
    # A capture without any node cpulist says nothing about CPUs: do not
    # read that as "every node is CPU-less".
    cpus_known = any(n.get("cpus") for n in nodes.values())
    eligible, skipped = [], {}
    for nid in with_memory:
        node = nodes.get(nid, {})
        if cpus_known and not node.get("cpus"):
            skipped[nid] = "no CPUs (GPU or CXL memory)"
        elif normal_memory is not None and nid not in normal_memory:
            skipped[nid] = "no normal memory (movable only)"
        else:
            eligible.append(nid)
    if not eligible:
        # Nothing qualifies (an odd capture): the kernel's own rule.
        return with_memory, {}
    return sorted(eligible, key=int), skipped


def missing_nodes(placement, topo, kb):
    """Node ids an explicit placement names with pages that the host lacks
    (no such node, or no pool of this page size there)."""
    if not isinstance(placement, dict):
        return []
    # A kernel (or capture) without per-node pools keeps one pool for all:
    # the placement then falls back to it, and only a node that does not
    # exist is missing.
    per_node = any(str(kb) in n["hugepages"] for n in topo["nodes"].values())
    out = []
    for nid, pages in placement.items():
        node = topo["nodes"].get(str(nid))
        if pages and (node is None or (per_node and str(kb) not in node["hugepages"])):
            out.append(str(nid))
    return sorted(out, key=int)


def distribute(count, node_ids, placement):
    """{node: pages}: an explicit placement as given, else ``count`` spread
    evenly over ``node_ids`` (the lower ids take the remainder)."""
    if isinstance(placement, dict):
        out = {nid: 0 for nid in node_ids}
        out.update({str(k): v for k, v in placement.items()})
        return out
    ids = sorted(node_ids, key=int)
    if not ids:
        return {}
    share, extra = divmod(count, len(ids))
    return {nid: share + (1 if i < extra else 0) for i, nid in enumerate(ids)}
