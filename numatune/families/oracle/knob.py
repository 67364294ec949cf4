"""Oracle instances: parameters, and the host around them (HugePages fit,
CPU caging vs binding, RAC In-Memory services, the alert log's evidence).

Where a parameter change goes: a live instance with ``connect`` on the real
root gets ``ALTER SYSTEM`` (write kind "sql"); otherwise the pfile in force
is edited in place (write kind "file"). An spfile is never written: that is
a finding that says how to get a pfile. Every change needs an instance
restart unless the parameter is dynamic and changed in memory too.
"""
from numatune.errors import PolicyError
from numatune.family import AfterApply
from numatune.model import Change, Compliant, Finding, Write
from numatune.families.oracle import (binding, checks, desired, instance, listeners, live, memlock, oratab, pfile,
                                      pool, restart, services, values, version)
from numatune.policy.schema import (WHY, Array, Either, Scalar, SchemaError, Table, TableArray, abs_path,
                                    path_problem)

NAME = "oracle"
# Changeable in memory per v$parameter, but a running instance cannot take
# them: they shape the SGA or the processes at startup.
STARTUP_ONLY = {"memory_target", "memory_max_target", "sga_max_size", "use_large_pages", "_enable_numa_support",
                "processor_group_name", "lock_sga", "pre_page_sga", "inmemory_size"}

_PARAM = Either(Scalar(bool, int, str), Array(Scalar(str)))
POLICY = {
    "oracle": Table({
        "instance": TableArray(Table({
            "sid": Scalar(str, doc='a SID from /etc/oratab, or "*" for all of them'),
            "connect": Scalar(str, doc='"env:VARIABLE", "os" or "external:ALIAS"'),
            "pfile": abs_path(),
            "home": abs_path("ORACLE_HOME, when the SID is not in /etc/oratab"),
            "parameters": Table(extra=_PARAM, extra_key=values.NAME_RE.pattern,
                                extra_doc="Oracle parameter names look like sga_target or _enable_NUMA_support"),
            "why": WHY,
        })),
        "service": TableArray(Table({
            "name": Scalar(str, pattern=r"^[A-Za-z][A-Za-z0-9_.$#-]*$"),
            "preferred": Array(Scalar(str)),
            "available": Array(Scalar(str)),
            "why": WHY,
        })),
        "srvctl_config": abs_path("a file holding `srvctl config service -d DB` output"),
        "user": Scalar(str, pattern=r"^[a-z_][a-z0-9_-]{0,31}$"),
        "hugepages_margin_pct": Scalar(int, minimum=0, maximum=100),
        # Per-NUMA-node listeners: files written to `out` for the admin to review.
        "listeners": Table({
            "out": Scalar(str, pattern=r"^/[A-Za-z0-9_./-]+$", check=path_problem, doc="an absolute directory path"),
            "service": Scalar(str, pattern=r"^[A-Za-z][A-Za-z0-9_.$#-]*$"),
            "port": Scalar(int, minimum=1, maximum=65535),
            "home": Scalar(str, pattern=r"^/[A-Za-z0-9_./-]+$"),
            # numactl --membind besides --cpunodebind: strict, see listeners.MEMBIND_NOTE.
            "membind": Scalar(bool),
            "node": TableArray(Table({
                "node": Scalar(int, minimum=0),
                "address": Scalar(str, pattern=listeners.ADDRESS_RE, doc="a host name or IP address"),
                "interface": Scalar(str, pattern=r"^[A-Za-z0-9_.:-]{1,15}$"),
            })),
            "why": WHY,
        }),
        "why": WHY,
    }),
}


def check_policy(data):
    specs = desired.policy_instances(data)
    for i, spec in enumerate(specs):
        key = "oracle.instance[%d]" % i
        try:
            if "sid" not in spec:
                raise PolicyError("[[oracle.instance]] needs a sid", 'sid = "ORCL" or sid = "*"')
            values.check_sid(spec["sid"])
            if spec.get("connect"):
                live.target(spec["connect"], "X" if spec["sid"] == "*" else spec["sid"], spec.get("home"))
            for name, value in spec.get("parameters", {}).items():
                values.check_name(name)
                values.render(value)
        except PolicyError as e:
            yield SchemaError(key, "%s: %s" % (key, e.message), e.hint)
    lst = (data.get("oracle") or {}).get("listeners")
    if lst is not None:
        for key in ("out", "service", "node"):
            if not lst.get(key):
                yield SchemaError("oracle.listeners", "[oracle.listeners] needs %s" % key,
                                  'out = "/etc/numatune/listeners", service = "ORCL", [[oracle.listeners.node]]')
                return
        nodes = [n.get("node") for n in lst["node"]]
        if len(set(nodes)) != len(nodes) or not all("address" in n for n in lst["node"]):
            yield SchemaError("oracle.listeners.node", "each [[oracle.listeners.node]] needs its own node and an "
                              "address", "node = 0, address = \"10.0.0.10\"")


def read(root, data):
    specs = desired.policy_instances(data)
    ora = data.get("oracle") or {}
    generated = _read_listener_files(root, ora.get("listeners"))
    # Databases in /etc/oratab are read whatever the policy names: their
    # SGAs size and guard the HugePages, their binding is checked.
    tab = oratab.parse(root.read_text(oratab.ORATAB))
    instances = [instance.read(root, spec, index, sid, entry)
                 for sid, entry, spec, index in desired.choose(specs, tab)]
    srvctl = []
    if ora.get("srvctl_config"):
        srvctl = services.parse_srvctl(root.read_text(ora["srvctl_config"]))
    return {"instances": instances, "cpusets": instance.read_cpusets(root), "srvctl": srvctl,
            "memlock": instance.read_memlock(root, ora.get("user", "oracle")), "shm": instance.shm_limits(root),
            "oratab": [t["sid"] for t in tab], "listeners": generated}


def _read_listener_files(root, spec):
    if not spec:
        return None
    nic_nodes, missing = {}, []
    for n in spec.get("node", []):
        if n.get("interface"):
            if not root.exists("/sys/class/net/%s" % n["interface"]):
                missing.append(n["interface"])
            value = root.read_value("/sys/class/net/%s/device/numa_node" % n["interface"])
            nic_nodes[n["interface"]] = int(value) if value and value.lstrip("-").isdigit() else None
    init = listeners.uses_init_scripts(root.read_value("/proc/sys/kernel/osrelease"))
    names = ["listener.ora", "start-listeners.sh", "tnsnames.ora", "local_listener.sql"] + [
        listeners.unit_name(n["node"], init) for n in spec.get("node", [])]
    out = spec["out"].rstrip("/")
    return {"files": {name: root.read_text("%s/%s" % (out, name)) for name in names}, "nic_nodes": nic_nodes,
            "missing_nics": missing, "init": init}


def diff(data, facts):
    mine = facts[NAME]
    yield from _listeners(data, facts)
    named = desired.policy_instances(data)
    if not named:
        # No [[oracle.instance]]: the databases /etc/oratab lists are still
        # checked against the [hugepages] pool (an AMM instance cannot use it).
        # From the host alone: how they are bound.
        yield from binding.findings(data, facts, checks.cpu_modes(data, facts))
        yield from checks.rac_inmemory(data, facts)
        if data.get("hugepages") and mine["instances"]:
            for inst in mine["instances"]:
                yield from _unreadable(inst)
            yield from checks.hugepages_fit(data, facts)
            yield from checks.evidence(data, facts)
        return
    if not mine["instances"]:
        yield Finding(id="oracle.no-instances", severity="warning", area="oracle", target=oratab.ORATAB,
                      rule="oracle.instance", message='sid = "*" but %s lists no instance' % oratab.ORATAB)
        return
    for inst in mine["instances"]:
        yield from _instance(data, facts, inst)
    yield from memlock.plan(data, facts)
    yield from checks.caging_binding(data, facts)
    yield from checks.rac_inmemory(data, facts)
    if data.get("hugepages") or any("use_large_pages" in desired.after(data, i) for i in mine["instances"]):
        yield from checks.hugepages_fit(data, facts)
    yield from checks.evidence(data, facts)
    yield from restart.findings(data, facts)


def _instance(data, facts, inst):
    sid = inst["sid"]
    found = inst["param_file"]
    spec = desired.spec_of(data, inst)
    why = spec.get("why", "")
    if inst["live_error"]:
        yield Finding(id="oracle.no-connection:" + sid, severity="warning", area="oracle", target=sid,
                      rule="oracle.instance.connect", message="cannot reach %s (%s): planning from its files"
                      % (sid, inst["live_error"]))
    use_sql = inst["live"] is not None and inst["live"]["uses_spfile"]
    if inst["policy_index"] is None:
        yield from _unreadable(inst)
        return
    if found["kind"] is None and not use_sql:
        yield Finding(id="oracle.no-param-file:" + sid, severity="critical", area="oracle", target=sid,
                      rule="oracle.instance", message="no parameter file for %s (looked for spfile%s.ora, spfile.ora "
                      "and init%s.ora in %s)" % (sid, sid, sid, (inst["home"] or "?") + "/dbs"),
                      why="" if inst["in_oratab"] else "%s is not in /etc/oratab either" % sid)
        return
    wanted, notes = desired.wanted(data, inst)
    if notes:
        yield Finding(id="oracle.amm-split:" + sid, severity="warning", area="oracle", target=sid,
                      rule="oracle.parameters.memory_target",
                      message="%s leaves AMM: %s (from %s); review them"
                              % (sid, " and ".join("%s = %s" % (n, wanted[n]) for n in notes),
                                 desired.split_source(inst["params"])),
                      why="HugePages need memory_target and memory_max_target both unset (MOS 749851.1)")
    differing = []
    for name, rendered in wanted.items():
        current = inst["params"].get(name.lower())
        if not desired.differs(name, current, rendered):
            yield Compliant("oracle.param:%s:%s" % (sid, name.lower()), "%s %s = %s" % (sid, name, rendered),
                            "oracle", kept_by=_read_at_start(inst, use_sql))
            continue
        if name.lower() == "use_large_pages" and values.normalize(name, rendered) == "ONLY":
            refusal = _start_safety(data, facts, inst)
            if refusal:
                yield refusal
                continue
        differing.append((name, current, rendered))
    if not differing:
        return
    yield from version.findings(inst, differing)
    if found["kind"] == "spfile" and not use_sql:
        yield from _spfile_findings(inst, differing)
        return
    for name, current, rendered in differing:
        yield _change(inst, spec, name, current, rendered, why, use_sql)


def _unreadable(inst):
    """An instance found in /etc/oratab but not named by the policy whose
    parameters cannot be read: its SGA is not counted, and the plan says so."""
    if inst["policy_index"] is None and not inst["params"]:
        where = inst["param_file"].get("path") or "(no ORACLE_HOME)"
        yield Finding(id="oracle.unsized:" + inst["sid"], severity="warning", area="oracle", target=inst["sid"],
                      rule="hugepages.count",
                      message="%s is in /etc/oratab but its parameters cannot be read (%s): its SGA is not counted "
                              "in the HugePages it needs" % (inst["sid"], where),
                      why="give it a pfile, or name it with [[oracle.instance]] and a pfile")


def _read_at_start(inst, use_sql):
    """The parameter file the instance reads when it starts, which keeps a
    parameter over a reboot (the spfile ALTER SYSTEM writes, or the pfile)."""
    found = inst["param_file"]
    if use_sql:
        return "%s's spfile%s, read when it starts" % (inst["sid"], " " + found["path"] if found.get("path") and
                                                       found.get("kind") == "spfile" else "")
    if found.get("kind") and found.get("readable"):
        return "%s's %s %s, read when it starts" % (inst["sid"], found["kind"], found["path"])
    return ""


def _change(inst, spec, name, current, rendered, why, use_sql):
    sid = inst["sid"]
    common = dict(id="oracle.param:%s:%s" % (sid, name.lower()), area="oracle", target="%s %s" % (sid, name),
                  current=current, desired=rendered, why=why, rule="oracle.parameters." + name, scope="persistent")
    if use_sql:
        mem = inst["live"]["memory"].get(name.lower(), {})
        dynamic = mem.get("modifiable") in ("IMMEDIATE", "DEFERRED") and name.lower() not in STARTUP_ONLY
        scope = "BOTH" if dynamic else "SPFILE"
        return Change(action="ALTER SYSTEM SET ... SCOPE=%s SID='%s'" % (scope, sid), restart_required=not dynamic,
                      risk="low" if dynamic else "medium",
                      writes=[Write(kind="sql", path="oracle:%s/%s" % (sid, name), value=rendered,
                                    args={"name": name, "sid": sid, "scope": scope, "connect": spec["connect"],
                                          "home": inst["home"]})], **common)
    path = inst["param_file"]["path"]
    return Change(action="edit %s" % path, restart_required=True, risk="medium",
                  writes=[Write(kind="file", path=path, editor="oracle_pfile_set",
                                args={"name": name, "value": rendered, "sid": sid})], **common)


def _spfile_findings(inst, differing):
    sid, found = inst["sid"], inst["param_file"]
    names = ", ".join("%s %s -> %s" % (n, "(unset)" if c is None else c, r) for n, c, r in differing)
    policy_pfile = inst["policy_pfile"]
    if policy_pfile and policy_pfile != found["path"]:
        yield Finding(id="oracle.pfile-shadowed:" + sid, severity="warning", area="oracle", target=policy_pfile,
                      rule="oracle.instance.pfile",
                      message="editing %s would change nothing: %s starts from the spfile %s" % (
                          policy_pfile, sid, found["path"]))
    where = found["path"] if found["readable"] else "%s (not readable here)" % found["path"]
    yield Finding(id="oracle.spfile:" + sid, severity="warning", area="oracle", target=found["path"],
                  rule="oracle.parameters",
                  message="%s starts from the binary spfile %s, which numatune does not write; differing: %s"
                          % (sid, where, names),
                  why="give the instance a connect for ALTER SYSTEM, or run `CREATE PFILE='%s/dbs/init%s.ora' "
                      "FROM SPFILE`, move the spfile aside and plan again" % (inst["home"] or "$ORACLE_HOME", sid))


def _start_safety(data, facts, inst):
    """A critical finding when use_large_pages = ONLY would keep the
    instance from starting, else None."""
    kb = pool.page_kb(facts)
    needed = sum(s["pages"] for s in pool.instance_sizes(data, facts, kb))
    lock = memlock.after(data, facts)
    short = checks.unfillable_nodes(facts, kb)
    if not short and checks.pool_fits(data, facts) and (lock == -1 or (lock or 0) >= needed * kb):
        return None
    where = "".join("; node %s can hold %d of the %d pages planned there (its free memory)" % (n, can, want)
                    for n, (want, can) in sorted(short.items(), key=lambda kv: int(kv[0])))
    return Finding(id="oracle.start-safety:" + inst["sid"], severity="critical", area="oracle", target=inst["sid"],
                   rule="oracle.parameters.use_large_pages",
                   message="use_large_pages = ONLY refused for %s: the SGAs need %d x %dkB pages, the pool will "
                           "have %d and memlock is %s%s; the instance would not start"
                           % (inst["sid"], needed, kb, checks.pool_after(data, facts, kb),
                              memlock.limit(lock), where),
                   why='free memory on the short node(s) or place the pool elsewhere ([hugepages] placement)'
                       if short else 'set [hugepages] count = "auto" so the pool and memlock are planned with it')


def _listeners(data, facts):
    ora = data.get("oracle") or {}
    spec = ora.get("listeners")
    if not spec:
        return
    got = facts[NAME]["listeners"]
    topo = facts["topology"]
    homes = [i["home"] for i in facts[NAME]["instances"] if i.get("home")]
    home = spec.get("home") or (homes[0] if homes else "$ORACLE_HOME")
    for n in spec["node"]:
        nid = str(n["node"])
        if nid not in topo["nodes"]:
            yield Finding(id="oracle.listener-node:%s" % nid, severity="warning", area="oracle", target=nid,
                          rule="oracle.listeners", message="listener for node %s: this host has no such node" % nid)
        nic = n.get("interface")
        if nic in got["missing_nics"]:
            yield Finding(id="oracle.listener-no-nic:%s" % nic, severity="warning", area="oracle", target=nic,
                          rule="oracle.listeners", message="listener for node %s names interface %s, which this "
                          "host does not have" % (nid, nic), why="name the interface that carries %s"
                          % n["address"])
        elif nic and got["nic_nodes"].get(nic) not in (None, -1) and got["nic_nodes"][nic] != n["node"]:
            yield Finding(id="oracle.listener-nic:%s" % nic, severity="warning", area="oracle", target=nic,
                          rule="oracle.listeners", message="%s is attached to node %d, not node %s: its listener "
                          "would serve connections across the interconnect" % (nic, got["nic_nodes"][nic], nid))
    if len(topo["nodes"]) < 2:
        yield Finding(id="oracle.listeners-one-node", severity="info", area="oracle", target="listeners",
                      rule="oracle.listeners", message="one NUMA node: per-node listeners bring nothing here")
    out = spec["out"].rstrip("/")
    if got["init"]:
        yield Finding(id="oracle.listeners-init", severity="info", area="oracle", target="listeners",
                      rule="oracle.listeners", message="this kernel (%s) comes without systemd: SysV init scripts "
                      "(chkconfig) instead of units" % facts["host"]["release"])
    if spec.get("membind"):
        yield Finding(id="oracle.listeners-membind", severity="info", area="oracle", target="listeners",
                      rule="oracle.listeners", message="listeners start with numactl --membind as the policy asks: "
                      "dedicated servers fail to allocate when their node fills instead of falling back")
    for name, text in listeners.files(spec, home, ora.get("user", "oracle"), got["init"]).items():
        path = "%s/%s" % (out, name)
        if got["files"].get(name) == text:
            yield Compliant("oracle.listeners:" + name, "%s is up to date" % path, "oracle")
            continue
        yield Change(id="oracle.listeners:" + name, area="oracle", target=path,
                     current=None if got["files"].get(name) is None else "(differs)", desired="(generated)",
                     scope="persistent", action="write %s for review" % path, rule="oracle.listeners",
                     why=spec.get("why") or "one listener per NUMA node, started on that node (review, then install): "
                                          "25% more TPM in 001_211b0b645b2f1cc8.txt (Table 12)",
                     writes=[Write(kind="file", path=path, editor="oracle_generated", args={"content": text})])


def generated(text, content):
    """Editor: a file numatune generates whole."""
    return content


def after_apply(data, changes, facts):
    """After apply: ONLY was set on the promise of a pool the kernel may have
    filled less (fragmentation); re-check with the live pool."""
    return AfterApply(_start_problems(data, changes, facts), [])


def _start_problems(data, changes, facts):
    if not any(c.id.startswith("oracle.param:") and c.id.endswith(":use_large_pages") and
               values.normalize("use_large_pages", c.desired) == "ONLY" for c in changes):
        return []
    kb = pool.page_kb(facts)
    needed = sum(s["pages"] for s in pool.instance_sizes(data, facts, kb))
    have = pool.live_pages(facts, kb)
    if have < needed:
        return ["start safety: the kernel gave %d of the %d x %dkB pages the SGAs need, so "
                "use_large_pages = ONLY would keep the instances from starting" % (have, needed, kb)]
    return []


EDITORS = {"oracle_pfile_set": pfile.set_value, "oracle_memlock": memlock.set_limit,
           "oracle_generated": generated}
