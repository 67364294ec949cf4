"""The HugePages part of `numatune facts --format policy`: one pool, as the
policy states one (``[hugepages]`` has one size): the default size's, or the
one size that holds pages when the default holds none. Its count, and where
the host has per-node pools, the placement node by node as it is (not
"even": the kernel's spread and the host's may differ). What the next boot
would not keep (no sysctl.d file or boot argument gives that count) the
plan of `facts --format policy` leaves out."""
from numatune.families.hugepages.knob import SIZES

NAMES = {kb: name for name, kb in SIZES.items()}


def _pool(topo):
    """(kb, count) of the pool to state, or None."""
    pools = {int(kb): (p.get("nr") or 0) for kb, p in (topo.get("hugepages") or {}).items()}
    default = (topo.get("meminfo") or {}).get("Hugepagesize") or 2048
    holding = [kb for kb, nr in pools.items() if nr and kb in NAMES]
    if default in holding or (not holding and default in pools and default in NAMES):
        return default, pools[default]
    if len(holding) == 1:
        return holding[0], pools[holding[0]]
    return None  # pages in several sizes besides the default: one table cannot say them all


def as_policy(facts):
    """({"hugepages": {...}}, {})."""
    topo = facts.get("topology") or {}
    found = _pool(topo)
    if found is None:
        return {}, {}
    kb, count = found
    nodes = {nid: n["hugepages"][str(kb)].get("nr") or 0 for nid, n in (topo.get("nodes") or {}).items()
             if str(kb) in (n.get("hugepages") or {})}
    if nodes:
        count = sum(nodes.values())
    out = {"size": NAMES[kb], "count": count}
    if nodes and count:
        out["placement"] = {nid: nodes[nid] for nid in sorted(nodes, key=int)}
    return {"hugepages": out}, {}
