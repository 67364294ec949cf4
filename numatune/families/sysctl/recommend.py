"""What `numatune recommend` says about sysctls, and the survey that reads them."""
from numatune.recommend.entry import SUPERDOME, Entry, nodes



def at_least(key, want, have):
    """A minimum from a source: the host's value is kept when it is already higher
    (per field for multi-field values such as tcp_rmem). None: nothing to write."""
    try:
        fields = [int(x) for x in str(have).split()] if have is not None else None
        wanted = [int(x) for x in str(want).split()]
    except ValueError:
        fields = None
    if fields is not None and len(fields) == len(wanted) and all(h >= w for h, w in zip(fields, wanted)):
        return None
    return {"at_least": want}


def recommend(facts):
    live = (facts.get("sysctl") or {}).get("live") or {}
    if len(nodes(facts)) < 2:
        return   # one node: nothing to balance between nodes
    have = live.get("kernel.numa_balancing")
    if have is None:
        return
    why = ("automatic NUMA balancing migrates SGA pages between nodes (%s: Oracle disables it in its own "
           "kernels; its high-performance set runs with 0)" % SUPERDOME)
    yield Entry(table="sysctl", key="kernel.numa_balancing", value={"value": 0, "why": why}, source=(SUPERDOME,),
                note=("Now: kernel.numa_balancing = %s on %d nodes. %s Table 8 runs Oracle with 0; the extended "
                      "oracle-numa sets it too, stated here with the host's value." % (have, len(nodes(facts)),
                                                                                     SUPERDOME),))
