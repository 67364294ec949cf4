"""What `numatune recommend` says per Oracle instance: NUMA support,
HugePages only, caging where instances share CPUs, one listener per node.
A parameter is written only where the release is known to take it; what needs
the DBA's numbers (CPUs per instance, leaving AMM, addresses) is commented
out with the question."""
from numatune.families.oracle import version as versions
from numatune.recommend.entry import CAGING_RAC, CPU_COUNT, SUPERDOME, Entry, nodes, note

# The hugepages family plans no node's pool above this share of its memory
# (its MAX_SHARE; imported from there it would be an import cycle through oracle.pool,
# so tests/test_recommend.py checks they agree).
NODE_SHARE = 0.9


def _clean(value):
    return (value or "").strip("'\"").upper()


def _release(inst):
    found = (inst.get("version") or {}).get("version")
    return tuple(found) if found else None


def _knows(inst, name):
    release, first = _release(inst), versions.MINIMUM.get(name)
    return first is None or (release is not None and release >= first)


def short_nodes(facts):
    """Nodes where the pool count = "auto" places cannot be had ({node: (kB wanted, kB the node may give)}):
    use_large_pages = ONLY would then keep instances from starting, so it is asked, not set."""
    auto = ((facts.get("resolved") or {}).get("hugepages") or {}).get("auto") or {}
    topo = (facts.get("topology") or {}).get("nodes") or {}
    out = {}
    for nid, pages in (auto.get("placement") or {}).items():
        total = (topo.get(str(nid)) or {}).get("mem_total_kb")
        want = pages * auto.get("kb", 2048)
        if total is None or want > NODE_SHARE * total:
            out[str(nid)] = (want, int(NODE_SHARE * (total or 0)))
    return out


def _params(inst, sized, several, short=None):
    """(set, ask): parameters to write, and those that need a DBA's answer."""
    p, want, ask = inst.get("params") or {}, {}, []
    if several and _clean(p.get("_enable_numa_support")) != "TRUE":
        want["_enable_NUMA_support"] = True
    if sized and _clean(p.get("use_large_pages")) != "ONLY":
        if p.get("memory_target") or p.get("memory_max_target"):
            ask.append(("use_large_pages", "ONLY", "%s runs AMM (memory_target): its SGA cannot live in HugePages. "
                        "Leave AMM (sga_target and pga_aggregate_target instead), with which sizes?" % inst["sid"]))
        elif short:
            ask.append(("use_large_pages", "ONLY", "The pool cannot be had on node(s) %s (%s): with ONLY an "
                        "instance whose SGA does not fit will not start. Which instances move, or which memory is "
                        "added?" % (",".join(sorted(short, key=int)), "; ".join(
                            "%d of %d kB" % short[n] for n in sorted(short, key=int)))))
        elif not _knows(inst, "use_large_pages"):
            ask.append(("use_large_pages", "ONLY", "Which release runs %s? use_large_pages needs 11.2.0.2; numatune "
                        "found no inventory, opatch output or alert-log banner saying." % inst["sid"]))
        else:
            want["use_large_pages"] = "ONLY"
    return want, ask


def _instance(inst, sized, several, short):
    want, ask = _params(inst, sized, several, short)
    sid, p = inst["sid"], inst.get("params") or {}
    release = versions.show(_release(inst)) if _release(inst) else "unknown"
    now = ", ".join("%s=%s" % (k, p[k]) for k in ("_enable_numa_support", "use_large_pages", "memory_target",
                                                   "sga_target", "processor_group_name", "cpu_count",
                                                   "resource_manager_plan") if p.get(k)) or "none of these set"
    if want:
        yield Entry(table="oracle.instance", array=True, value={"sid": sid, "parameters": want},
                    source=(SUPERDOME,), plans=tuple("oracle.param:%s:%s" % (sid, k.lower()) for k in want), note=(
            "%s (release %s, %s): now %s." % (sid, release, (inst.get("param_file") or {}).get("kind") or "no "
                                              "parameter file", now),
            _why(want)))
    for name, value, question in ask:
        yield Entry(table="oracle.instance", array=True, value={"sid": sid, "parameters": {name: value}},
                    source=(SUPERDOME,), question=question,
                    note=("%s: HugePages gave +13%% TPM and page tables fell from 5.5 GB to 175 MB." % SUPERDOME,))


def _why(want):
    said = []
    if "_enable_NUMA_support" in want:
        said.append("%s: Oracle's NUMA support gave +27%% TPM (Table 12)." % SUPERDOME)
    if "use_large_pages" in want:
        said.append("%s: HugePages gave +13%% TPM on top of it (Table 12); ONLY is set because the pool "
                    "count = \"auto\" plans holds this SGA on its nodes." % SUPERDOME)
    return " ".join(said) + (" Takes effect at the instance's next restart: numatune edits the parameter file, "
                             "it stops nothing.")


def _caging(instances):
    """Instances that share CPUs (no processor group) and are not caged."""
    shared = [i for i in instances if not (i.get("params") or {}).get("processor_group_name")]
    if len(shared) < 2:
        return
    for inst in shared:
        p = inst.get("params") or {}
        if p.get("cpu_count") and p.get("resource_manager_plan"):
            continue
        yield Entry(table="oracle.instance", array=True, source=(CPU_COUNT, CAGING_RAC),
                    value={"sid": inst["sid"], "parameters": {"cpu_count": 0, "resource_manager_plan": "DEFAULT_PLAN"}},
                    question="How many CPUs may %s use (cpu_count; the instances' counts together at most the "
                             "host's CPUs)?" % inst["sid"],
                    note=("%s shares the CPUs with %d other instance(s) and is not caged (cpu_count %s, "
                          "resource_manager_plan %s)." % (inst["sid"], len(shared) - 1, p.get("cpu_count") or "unset",
                                                         p.get("resource_manager_plan") or "unset"),
                          "%s: caging needs a resource manager plan plus cpu_count; throughput stays at its peak "
                          "past saturation with caging and degrades without it. %s: under LIO pressure caging "
                          "alone did 3.5M logical reads/s where binding to a cpuset did 5.8M (both together "
                          "5.1M)." % (CPU_COUNT, CAGING_RAC)))


def _rac(instances, ora):
    """parallel_instance_group per RAC service: which services run where is the cluster's, not in these facts
    unless `srvctl config service` output was given."""
    rac = [i["sid"] for i in instances if _clean((i.get("params") or {}).get("cluster_database")) == "TRUE"]
    if rac and not ora.get("srvctl"):
        yield note("oracle", "RAC instance(s) %s (cluster_database = TRUE): %s sets parallel_instance_group to a "
                   "service per instance so parallel queries and In-Memory population stay on the service's "
                   "instances. The services' placement is not in these facts: name them with [[oracle.service]] "
                   "or srvctl_config; nothing set." % (", ".join(rac), CAGING_RAC), source=(CAGING_RAC,))


def _listeners(facts):
    interfaces = (facts.get("network") or {}).get("interfaces") or {}
    per_node = {}
    for name, nic in sorted(interfaces.items()):
        if not nic.get("virtual") and nic.get("pci") and nic.get("numa_node") not in (None, -1):
            per_node.setdefault(str(nic["numa_node"]), name)
    value = {"out": "/etc/numatune/listeners", "port": 1521,
             "node": [{"node": int(n), "address": "ADDRESS-OF-" + per_node[n], "interface": per_node[n]}
                      for n in nodes(facts) if n in per_node]}
    if len(value["node"]) < 2:
        return
    yield Entry(table="oracle", key="listeners", value=value, source=(SUPERDOME,),
                question="Which address on each node's NIC should that node's listener serve (replace each "
                         "ADDRESS-OF-...), and which service name?",
                note=("%d nodes with a NIC each: %s." % (len(value["node"]), ", ".join(
                    "node %d %s" % (v["node"], v["interface"]) for v in value["node"])),
                      "%s: one listener per node, each on its node's NIC and started with numactl "
                      "--cpunodebind, gave +25%% TPM on top of NUMA support and HugePages (Table 12)." % SUPERDOME))


def recommend(facts):
    ora = facts.get("oracle") or {}
    instances = [i for i in ora.get("instances") or [] if i.get("in_oratab")]
    if not instances:
        return
    several = len(nodes(facts)) > 1
    auto = ((facts.get("resolved") or {}).get("hugepages") or {}).get("auto") or {}
    sized = {i["sid"] for i in auto.get("instances") or [] if i.get("pages")}
    short = short_nodes(facts) if sized else {}
    for inst in instances:
        if not (inst.get("param_file") or {}).get("readable"):
            yield note("oracle", "%s: no readable parameter file; nothing set for it." % inst["sid"])
            continue
        yield from _instance(inst, inst["sid"] in sized, several, short)
    yield from _caging(instances)
    yield from _rac(instances, ora)
    if several:
        yield from _listeners(facts)
