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


# Table 5 of the Superdome X paper's high-performance network set: minimums, so at_least.
BUFFERS = (("net.core.rmem_max", 16777216), ("net.core.wmem_max", 16777216),
           ("net.ipv4.tcp_rmem", "4096 87380 16777216"), ("net.ipv4.tcp_wmem", "4096 16384 16777216"))


def _buffers(live):
    for key, want in BUFFERS:
        have = live.get(key)
        value = at_least(key, want, have) if have is not None else None
        if value is None:
            continue     # already as high (or not known: nothing to compare with, nothing written)
        value["why"] = ("%s Table 5: %s in the high-performance network set (21%% more single-stream "
                        "TCP_STREAM throughput, Table 6); a minimum: a higher host value stays" % (SUPERDOME, want))
        yield Entry(table="sysctl", key=key, value=value, source=(SUPERDOME,), note=(
            "Now: %s = %s; %s Table 5 runs %s (part of a set measured at +21%% single-stream throughput, no "
            "figure for it alone). at_least: a field the host has higher is kept." % (key, have, SUPERDOME, want),))


def recommend(facts):
    live = (facts.get("sysctl") or {}).get("live") or {}
    if ((facts.get("oracle") or {}).get("oratab")):
        # A host that serves Oracle streams SQL*Net, RMAN and Data Guard over TCP.
        yield from _buffers(live)
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
