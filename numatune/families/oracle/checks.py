"""Findings about how the instances share the host: CPU caging vs binding,
RAC In-Memory services, HugePages fit, and the running instance's own
evidence against the policy. Pure: (policy data, facts) in, Findings out."""
from numatune.model import Finding
from numatune.families.oracle import binding, desired, pool, services, values
from numatune.families.sysctl import minimum


def _f(id, severity, message, target="", why="", rule="", refuses=()):
    return Finding(id=id, severity=severity, message=message, target=target, area="oracle", rule=rule, why=why,
                   refuses=list(refuses))


def _int(params, name):
    v = params.get(name)
    b = values.to_bytes(v)
    return b if b is not None else None


def is_caged(params):
    """Instance caging: a resource_manager_plan and cpu_count > 0, whether or
    not the instance is also bound (the caging-vs-binding paper's "binding +
    caging mix")."""
    plan = (params.get("resource_manager_plan") or "").strip("'\"")
    return bool(plan) and (_int(params, "cpu_count") or 0) > 0


# 000_bee41b021388c063.txt's SLOB runs under LIO pressure (logical reads/s):
# binding alone 5.8M, binding + caging 5.1M (its "about 10%": the cage's own
# overhead), caging alone 3.5M (the SGA interleaved over every node).
RUNS = ("000_bee41b021388c063.txt under LIO pressure: binding alone 5.8M logical reads/s, binding + caging 5.1M "
        "(about 10% behind, the cage's own overhead), caging alone 3.5M")
MIX = (RUNS + ". Bound and caged already: its SGA stays on the group's nodes; keep cpu_count at the CPUs it should "
       "use, and where its AWR shows \"resmgr:cpu quantum\" waits the cage, not the group, is what holds it back")


def cpu_modes(data, facts):
    """[(sid, params, mode)] with mode "caged", "bound" or None."""
    out = []
    for inst in facts["oracle"]["instances"]:
        p = desired.after(data, inst)
        group = (p.get("processor_group_name") or "").strip("'\"")
        mode = "bound" if group else "caged" if is_caged(p) else None
        out.append((inst["sid"], p, mode))
    return out


def caging_binding(data, facts):
    modes = cpu_modes(data, facts)
    threads = facts["topology"]["summary"]["cpus_online"] or len(facts["topology"]["online"])
    caged = [(sid, p) for sid, p, m in modes if m == "caged"]
    for sid, p, mode in modes:
        count = _int(p, "cpu_count")
        plan = (p.get("resource_manager_plan") or "").strip("'\"")
        if mode is None and count and not plan:
            yield _f("oracle.caging-no-plan:" + sid, "warning",
                     "%s sets cpu_count = %d without a resource_manager_plan: the CPUs are not caged" % (sid, count),
                     sid, "instance caging needs a resource_manager_plan (e.g. default_plan)", "oracle.caging")
        if mode == "bound" and is_caged(p):
            group = (p.get("processor_group_name") or "").strip("'\"")
            yield _f("oracle.bound-and-caged:" + sid, "info",
                     "%s is bound to processor group %r and caged to cpu_count = %d within it" % (sid, group, count),
                     sid, MIX, "oracle.caging")
        if is_caged(p) and count < 2:
            yield _f("oracle.caging-one-cpu:" + sid, "warning",
                     "%s is caged to cpu_count = %d; caged instances need at least 2" % (sid, count), sid,
                     "with one CPU a single busy session starves background processes", "oracle.caging")
    total = sum(_int(p, "cpu_count") for _, p in caged)
    if caged and total > threads:
        yield _f("oracle.caging-oversubscribed", "warning",
                 "caged instances have cpu_count %d in total, more than the %d CPU threads: their guarantees "
                 "break under load" % (total, threads), "cpu_count", "keep the sum of cpu_count <= CPU threads",
                 "oracle.caging")
    if len(caged) > threads // 2 and caged:
        yield _f("oracle.caging-too-many", "warning",
                 "%d caged instances on %d CPU threads: at most %d" % (len(caged), threads, threads // 2),
                 "cpu_count", "consolidate, or bind instances to cpusets instead (%s)" % RUNS, "oracle.caging")
    yield from binding.findings(data, facts, modes)
    if len(modes) == 1 and not is_caged(modes[0][1]):
        sid, p, mode = modes[0]
        sets = pool.cpusets(data, facts)
        group = sets.get((p.get("processor_group_name") or "").strip("'\"")) if mode == "bound" else None
        seen = len(group["cpus"]) if group else threads
        yield _f("oracle.lone-uncaged:" + sid, "info",
                 "%s runs alone and is not caged: cpu_count defaults to the %d CPUs it sees%s, and its background "
                 "and parallel processes are sized for all of them" % (sid, seen, " in its processor group"
                                                                       if group else ""), sid,
                 "the CPU_COUNT paper (004_bf754af76eb0e5fd.txt) advises setting cpu_count (with a "
                 "resource_manager_plan) to the CPUs the instance should use: caged, throughput stays at its peak "
                 "past saturation instead of degrading", "oracle.caging")
    if len(modes) > 1:
        for sid, _, mode in modes:
            if mode is None:
                yield _f("oracle.unmanaged-cpu:" + sid, "warning",
                         "%s is neither caged (resource_manager_plan + cpu_count) nor bound (processor_group_name) "
                         "on a host that runs %d instances" % (sid, len(modes)), sid,
                         "one busy instance can take every CPU from the others", "oracle.caging")


IM_WHY = ("after a failover or relocation the In-Memory column store is populated across all instances instead of "
          "the service's, and queries read it over the interconnect")


def _is_rac(params):
    return (params.get("cluster_database") or "").strip("'\"").upper() == "TRUE"


def rac_inmemory(data, facts):
    """parallel_instance_group per service (the RAC In-Memory paper), for
    the local instances and for their peers known from a shared pfile's
    "orcl2." lines; one answer per instance however many services it offers."""
    instances = facts["oracle"]["instances"]
    svcs = services.read_services(data, facts)
    params = {}
    for inst in instances:
        params[inst["sid"].upper()] = (inst["sid"], desired.after(data, inst))
    for inst in instances:
        for peer, p in (inst.get("peers") or {}).items():
            params.setdefault(peer.upper(), (peer, p))
    rac = sorted({inst.get("database") or inst["sid"] for inst in instances
                  if inst.get("database") or _is_rac(params[inst["sid"].upper()][1])})
    if rac and not svcs:
        yield _f("oracle.rac-no-services", "warning",
                 "%s %s RAC but the policy gives no cluster service description ([[oracle.service]] or "
                 "[oracle] srvctl_config): parallel_instance_group per service is not checked"
                 % (", ".join(rac), "is" if len(rac) == 1 else "are"), ",".join(rac),
                 "save `srvctl config service -d DB` to a file and name it in [oracle] srvctl_config",
                 "oracle.rac-inmemory")
    offers = {}
    for svc in svcs:
        for sid in svc["preferred"] + svc["available"]:
            names = offers.setdefault(sid.upper(), (sid, []))[1]
            if svc["name"] not in names:
                names.append(svc["name"])
    for key, (sid, names) in sorted(offers.items()):
        if key not in params:
            continue
        group = (params[key][1].get("parallel_instance_group") or "").strip("'\"")
        if group.upper() in (n.upper() for n in names):
            continue
        if len(names) == 1:
            yield _f("oracle.rac-inmemory:%s:%s" % (names[0], sid), "warning",
                     "%s can run service %s but parallel_instance_group is %r, not %r"
                     % (sid, names[0], group or "(unset)", names[0]), sid, IM_WHY, "oracle.rac-inmemory")
        else:
            yield _f("oracle.rac-inmemory:" + sid, "warning",
                     "%s offers services %s but parallel_instance_group is %r: set it to the service whose "
                     "sessions query the In-Memory column store" % (sid, ", ".join(names), group or "(unset)"), sid,
                     IM_WHY + "; sessions of the other services can ALTER SESSION SET parallel_instance_group",
                     "oracle.rac-inmemory")


def hugepages_fit(data, facts):
    hp = data.get("hugepages") or {}
    kb = pool.page_kb(facts)
    sizes = pool.instance_sizes(data, facts, kb)
    topo = facts["topology"]
    for inst, size in zip(facts["oracle"]["instances"], sizes):
        p = desired.after(data, inst)
        sid = inst["sid"]
        if size["source"] == "amm" and (hp or topo["hugepages"].get(str(kb), {}).get("nr")):
            yield _f("oracle.amm-hugepages:" + sid, "warning",
                     "%s uses AMM (memory_target or memory_max_target set): its SGA cannot use HugePages" % sid, sid,
                     "set memory_target = 0 with sga_target and pga_aggregate_target", "oracle.hugepages")
        ulp = (p.get("use_large_pages") or "TRUE").strip("'\"").upper()
        if ulp == "ONLY" and (values.to_bytes(p.get("memory_max_target")) or 0) > 0:
            yield _f("oracle.amm-max-only:" + sid, "critical",
                     "%s has use_large_pages = ONLY with memory_max_target = %s (memory_target = %s): it is still "
                     "an AMM instance, which cannot use HugePages, so it will not start"
                     % (sid, p["memory_max_target"], p.get("memory_target") or "unset"), sid,
                     "set memory_max_target = 0 beside memory_target = 0, with sga_target and "
                     "pga_aggregate_target (MOS 749851.1)", "oracle.hugepages",
                     refuses=["oracle.param:%s:use_large_pages" % sid])
            continue
        if ulp != "ONLY" and size["pages"]:
            yield _f("oracle.large-pages-not-only:" + sid, "warning",
                     "%s has use_large_pages = %s: the SGA can end up partly on 4K pages" % (sid, ulp), sid,
                     "use_large_pages = ONLY refuses to start instead (numatune sets it only with a pool that fits)",
                     "oracle.hugepages")
    needed = sum(s["pages"] for s in sizes)
    if not needed:
        return
    have = pool_after(data, facts, kb)
    if have < needed:
        yield _f("oracle.pool-too-small", "critical",
                 "the %dkB HugePages pool %s %d pages; the SGAs need %d (%s)"
                 % (kb, "will have" if pool.planned_pool(facts) else "has", have, needed,
                    ", ".join("%s %d" % (s["sid"], s["pages"]) for s in sizes if s["pages"])),
                 "hugepages-%dkB" % kb, "ORAchk rates this CRITICAL; set [hugepages] count = \"auto\"",
                 "oracle.hugepages")
    need = pool.needs(data, facts, kb)["per_node"]
    for s in sizes:
        for nid in sorted(s["node_pages"], key=int):
            planned = pool.node_pages_after(facts, nid, kb)
            if planned < need[nid]:
                others = " (with the other instances bound there)" if need[nid] > s["node_pages"][nid] else ""
                yield _f("oracle.node-pool-too-small:%s:%s" % (s["sid"], nid), "warning",
                         "%s is bound to node %s, whose pool %s %d pages; its SGA needs %d there%s"
                         % (s["sid"], nid, "will have" if pool.planned_pool(facts) else "has", planned,
                            need[nid], others), s["sid"], "", "oracle.hugepages")
    yield from _shm(data, facts, sizes)


def pool_after(data, facts, kb):
    hp = pool.planned_pool(facts)
    if "count" in hp and pool.page_kb(facts) == kb:
        # A node that cannot hold its share gives only what it can.
        return hp["count"] - sum(want - can for want, can in unfillable_nodes(facts, kb).values())
    return pool.live_pages(facts, kb)


def unfillable_nodes(facts, kb):
    """{node: (pages planned there, pages it can hold)} for the nodes whose planned pool is above what the
    node has now plus what its free memory can give: the kernel then leaves that node's pool short, and
    the pool after the plan is smaller than its count says."""
    resolved = facts["resolved"]["hugepages"]
    if resolved["kb"] != kb or not resolved.get("want"):
        return {}
    out = {}
    for nid, want in resolved["want"].items():
        node = facts["topology"]["nodes"].get(str(nid)) or {}
        free = node.get("mem_free_kb")
        now = (node.get("hugepages", {}).get(str(kb)) or {}).get("nr", 0) or 0
        if free is not None and want > now and want > now + free // kb:
            out[str(nid)] = (want, now + free // kb)
    return out


def pool_fits(data, facts):
    """True when the pool (as planned, else live) holds every SGA."""
    kb = pool.page_kb(facts)
    return pool_after(data, facts, kb) >= sum(s["pages"] for s in pool.instance_sizes(data, facts, kb))


def _shm(data, facts, sizes):
    shm = facts["oracle"]["shm"]
    sysctl = data.get("sysctl", {})

    def limit(key, live):
        spec = sysctl.get("kernel." + key)
        # What the rule leaves it at: an at_least rule keeps a higher live value.
        v = minimum.effective_value(spec, live) if spec is not None else None
        try:
            return int(v) if v is not None else live
        except ValueError:
            return live
    shmmax, shmall = limit("shmmax", shm["shmmax"]), limit("shmall", shm["shmall"])
    biggest = max(s["sga"] for s in sizes)
    if shmmax is not None and shmmax < biggest:
        yield _f("oracle.shmmax", "warning", "kernel.shmmax = %d is below the largest SGA (%d bytes)"
                 % (shmmax, biggest), "kernel.shmmax", "the SGA is split into more segments or fails",
                 "oracle.hugepages")
    total = sum(s["sga"] for s in sizes)
    if shmall is not None and shmall * shm["page_size"] < total:
        yield _f("oracle.shmall", "warning", "kernel.shmall = %d pages (%d bytes) is below the SGAs' %d bytes"
                 % (shmall, shmall * shm["page_size"], total), "kernel.shmall", "instances fail to start",
                 "oracle.hugepages")


def _pending(*args):
    """A finding that a restart clears: check reports it as waiting, not as drift."""
    f = _f(*args)
    f.pending = True
    return f


def evidence(data, facts):
    """The running instance (alert log, numa_maps) against the policy."""
    for inst in facts["oracle"]["instances"]:
        sid, ev = inst["sid"], inst.get("evidence")
        p = desired.after(data, inst)
        if ev:
            numa = (p.get("_enable_numa_support") or "").strip("'\"").upper()
            if numa == "TRUE" and ev.get("numa_enabled") is False:
                yield _pending("oracle.running-no-numa:" + sid, "warning",
                         "%s's last startup logged \"Oracle NUMA support not enabled\"" % sid, inst["alert_log"],
                         "restart the instance after the parameter change", "oracle.evidence")
            for kb, row in ev.get("large_pages", {}).items():
                if row.get("expected") and row.get("allocated", 0) < row["expected"]:
                    yield _f("oracle.running-short-pages:%s:%s" % (sid, kb), "warning",
                             "%s allocated %d of %d expected %skB pages at its last startup"
                             % (sid, row["allocated"], row["expected"], kb), inst["alert_log"], "", "oracle.evidence")
            group = (p.get("processor_group_name") or "").strip("'\"")
            got = (ev.get("processor_group") or {}).get("name")
            if group and got != group:
                yield _pending("oracle.running-group:" + sid, "warning",
                         "%s should run in processor group %r; its last startup logged %s"
                         % (sid, group, repr(got) if got else "none"), inst["alert_log"], "", "oracle.evidence")
            for line in ev.get("errors", []):
                yield _f("oracle.alert:%s:%s" % (sid, line[:40]), "warning", "%s alert log: %s" % (sid, line),
                         inst["alert_log"], "", "oracle.evidence")
        nodes = inst.get("sga_nodes")
        bound = pool.bound_nodes(data, facts, p)
        if nodes and bound:
            outside = {n: kb for n, kb in nodes.items() if n not in bound and kb}
            if outside:
                yield _f("oracle.sga-off-node:" + sid, "warning",
                         "%s is bound to node(s) %s but has SGA pages on node(s) %s" % (
                             sid, ",".join(bound), ",".join(sorted(outside, key=int))), sid, "", "oracle.evidence")
