"""Binding as the papers measure it: an instance bound to a processor group
(a cpuset, processor_group_name, 12.1+) whose CPUs and memory sit on
different nodes, caging (cpu_count) inside a group, an SGA that cannot fit
its group's nodes, and a mems change Oracle does not follow. Pure."""
from numatune.facts.cpulist import CpulistError, parse_cpulist
from numatune.model import Finding
from numatune.families.oracle import pool, values

# The In-Memory on RAC with NUMA paper (000_bee41b021388c063.txt): a session
# whose SGA is on the farthest node did 2.15x fewer logical reads per second.
REMOTE_COST = "2.15x fewer logical reads than local, 000_bee41b021388c063.txt"


def _f(id, severity, message, target, why="", refuses=()):
    return Finding(id=id, severity=severity, message=message, target=target, area="oracle", rule="oracle.binding",
                   why=why, refuses=list(refuses))


def _nodes(ids):
    return ",".join(sorted(ids, key=int)) or "-"


def _alert_line(inst):
    group = ((inst or {}).get("evidence") or {}).get("processor_group")
    if not group:
        return ""
    return "; its alert log says \"Instance started in processor group %s (NUMA Nodes: %s CPUs: %s)\"" % (
        group["name"], group["nodes"], group["cpus"])


def findings(data, facts, modes):
    """``modes``: [(sid, params after the plan, "bound"|"caged"|None)]."""
    sets = pool.cpusets(data, facts)
    topo = facts["topology"]
    node_cpus = {nid: set(n["cpus"]) for nid, n in topo["nodes"].items()}
    by_sid = {i["sid"]: i for i in facts["oracle"]["instances"]}
    groups = {}
    for sid, p, mode in modes:
        if mode != "bound":
            continue
        name = p["processor_group_name"].strip("'\"")
        cs = sets.get(name)
        if cs is None:
            yield _f("oracle.no-cpuset:" + sid, "critical",
                     "%s is bound to processor group %r, but neither the policy's [[cpuset]] nor the host has it: "
                     "the instance will not start (ORA-56729); apply refuses to write it" % (sid, name), sid,
                     "add [[cpuset]] name = %r to the policy" % name,
                     refuses=["oracle.param:%s:processor_group_name" % sid])
            continue
        groups.setdefault(name, {"cs": cs, "sids": []})["sids"].append((sid, p))
        cpus, mems = set(cs["cpus"]), {str(m) for m in cs["mems"]}
        cpu_nodes = {nid for nid, c in node_cpus.items() if c & cpus}
        if cpus and (not mems or cpu_nodes - mems or mems - cpu_nodes):
            yield _not_local(sid, name, cs, cpu_nodes, mems, topo, by_sid.get(sid))
        yield from _fits(sid, p, name, mems, facts, by_sid.get(sid))
    yield from _overlaps(groups)
    for name, g in sorted(groups.items()):
        yield from _caging(name, g)
    yield from _migrate(data, facts, groups)


def _not_local(sid, name, cs, cpu_nodes, mems, topo, inst):
    where = cs.get("path") if cs.get("path") != "policy" else "the policy's [[cpuset]]"
    remote = sorted(mems - cpu_nodes, key=int)
    dist = ""
    if cpu_nodes and remote:
        a, b = sorted(cpu_nodes, key=int)[0], remote[0]
        d = topo["nodes"].get(a, {}).get("distance", {})
        if d.get(b) and d.get(a):
            dist = " (distance %d, local %d)" % (d[b], d[a])
    remote_all = cpu_nodes and mems and not (cpu_nodes & mems)
    return _f("oracle.cpuset-not-local:" + sid, "warning",
              "cpuset %r of %s (%s) has CPUs on node(s) %s but memory on node(s) %s%s: %s%s"
              % (name, sid, where, _nodes(cpu_nodes), _nodes(mems), dist,
                 "every SGA and PGA access is remote, the papers' remote case (%s)" % REMOTE_COST
                 if remote_all else "not NUMA-local", _alert_line(inst)), sid,
              "give the cpuset the CPUs and the memory of the same nodes")


def _fits(sid, p, name, mems, facts, inst):
    """The SGA against what its group's nodes can give, from the
    instance's own SGA parameters (no size typed into the policy)."""
    if not mems or (inst or {}).get("sga_nodes"):
        return    # running: its SGA is already allocated, MemFree no longer counts it
    sga = pool.sizing.sga_bytes(p)[0]
    if not sga:
        return
    kb = pool.page_kb(facts)
    ulp = (p.get("use_large_pages") or "TRUE").strip("'\"").upper()
    topo = facts["topology"]
    pages = sum(pool.node_pages_after(facts, nid, kb) for nid in mems)
    free = sum((topo["nodes"].get(nid, {}).get("mem_free_kb") or 0) for nid in mems)
    if ulp == "ONLY":
        return    # the HugePages checks (node-pool-too-small) say it
    if pages * kb * 1024 < sga and free * 1024 < sga:
        yield _f("oracle.sga-exceeds-node:" + sid, "warning",
                 "%s's SGA (%d MB, from its parameters) is larger than what node(s) %s of processor group %r have "
                 "free (%d MB) or in HugePages (%d MB): it spills to remote nodes or fails to start"
                 % (sid, sga >> 20, _nodes(mems), name, free >> 10, pages * kb >> 10), sid,
                 "give the group more nodes, or a smaller SGA")


def _overlaps(groups):
    names = sorted(groups)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            shared = set(groups[a]["cs"]["cpus"]) & set(groups[b]["cs"]["cpus"])
            if shared:
                yield _f("oracle.cpuset-overlap:%s:%s" % (a, b), "warning",
                         "processor groups %r and %r share CPUs %s: neither guarantee holds"
                         % (a, b, ",".join(map(str, sorted(shared)))), "%s,%s" % (a, b))


def _caging(name, group):
    """Caging under binding (the CPU_COUNT paper): cpu_count counts inside
    the group's CPUs."""
    cpus = len(group["cs"]["cpus"])
    total = 0
    for sid, p in group["sids"]:
        count = values.to_bytes(p.get("cpu_count"))
        total += count or 0
        if count and count > cpus:
            yield _f("oracle.cpu-count-above-group:" + sid, "warning",
                     "%s has cpu_count = %d, above the %d CPUs of its processor group %r: the cage never binds and "
                     "Oracle sizes its processes for CPUs it cannot use" % (sid, count, cpus, name), sid,
                     "set cpu_count <= %d" % cpus)
    if len(group["sids"]) > 1 and total > cpus:
        yield _f("oracle.group-oversubscribed:" + name, "warning",
                 "instances %s share processor group %r: their cpu_count add up to %d, above its %d CPUs"
                 % (", ".join(s for s, _ in group["sids"]), name, total, cpus), name,
                 "keep the sum of cpu_count within the group's CPUs, or give each instance its own group")


def _migrate(data, facts, groups):
    """A [[cpuset]] that moves a group's memory: memory_migrate does not
    move a running instance's SGA (Oracle resets it on its group), so the
    instance must restart."""
    host = facts["oracle"]["cpusets"]
    moving = set()
    for spec in data.get("cpuset", []) or []:
        name = spec.get("name") if isinstance(spec, dict) else None
        if name not in groups or name not in host:
            continue
        new = {str(m) for m in pool.cpusets(data, facts)[name]["mems"]}
        old = {str(m) for m in host[name]["mems"]}
        if new == old:
            continue
        moving.add(name)
        for sid, _ in groups[name]["sids"]:
            yield _f("oracle.mems-restart:%s:%s" % (name, sid), "warning",
                     "processor group %r moves its memory from node(s) %s to %s: restart %s so its SGA is "
                     "allocated there%s" % (name, _nodes(old), _nodes(new), sid,
                                            " (memory_migrate = true does not move it: Oracle resets it)"
                                            if spec.get("memory_migrate") else ""), sid)
    yield from started_elsewhere(facts, groups, moving)


def _started_on(inst):
    """The nodes the alert log's last startup says the instance's processor group had, or None."""
    group = ((inst or {}).get("evidence") or {}).get("processor_group") or {}
    try:
        return group.get("name"), {str(n) for n in parse_cpulist(",".join((group.get("nodes") or "").split()))}
    except CpulistError:
        return None


def started_elsewhere(facts, groups, moving):
    """An instance whose group's memory is already where the policy wants it while its last startup (the
    alert log) allocated the SGA elsewhere: a move applied earlier waits for its restart. Pending until the
    alert log shows a startup on the group's nodes, as a parameter change does (oracle.restart)."""
    by_sid = {i["sid"]: i for i in facts["oracle"]["instances"]}
    for name, g in sorted(groups.items()):
        if name in moving:
            continue    # the plan moves it now: oracle.mems-restart says the restart
        mems = {str(m) for m in g["cs"]["mems"]}
        for sid, _ in g["sids"]:
            inst = by_sid.get(sid) or {}
            ran = _started_on(inst)
            if inst.get("sga_nodes") or not ran or ran[0] != name or not ran[1] or not mems or ran[1] == mems:
                continue
            f = _f("oracle.mems-restart-pending:%s:%s" % (name, sid), "warning",
                   "processor group %r has its memory on node(s) %s, but %s's last startup%s allocated its SGA on "
                   "node(s) %s: restart %s so its SGA is allocated there" % (
                       name, _nodes(mems), sid, " (%s)" % inst["evidence"]["started"]
                       if inst["evidence"].get("started") else "", _nodes(ran[1]), sid), sid,
                   "restart %s in its maintenance window; `numatune check` says this until the alert log shows a "
                   "startup on node(s) %s" % (sid, _nodes(mems)))
            f.pending = True
            yield f
