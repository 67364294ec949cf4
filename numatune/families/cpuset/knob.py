"""Cpusets for Oracle's processor_group_name: the cgroup an instance binds
to, with cpus and mems from NUMA nodes, live and persistent together.

Live: the cgroup under the cpuset hierarchy /proc/mounts names (v1 anywhere,
RHEL 6's /cgroup/cpuset included; v2 with cpuset enabled in the parent's
subtree_control). Persistent: a libcgroup group (cgconfig recreates groups at
boot and on restart, overwriting live values) or, on v2, a systemd slice
(persist.py).
"""
import re

from numatune.families.cpuset import cgconfig, locality, nextboot
from numatune.facts.cpulist import CpulistError, parse_cpulist
from numatune.families.cpuset import facts as cgroups
from numatune.families.cpuset.persist import SLICE_DIR, _persist, persist_mode
from numatune.families.cpuset.spec import _finding, _owner_ids, _settings, _why
from numatune.model import Change, Compliant, Write
from numatune.policy.schema import WHY, Array, Scalar, SchemaError, Table, TableArray

NAME = "cpuset"


def _cpulist_problem(text):
    """The pattern admits "9-1" and "0-3:1/0": the parser says what is wrong."""
    try:
        return None if parse_cpulist(text) else "names nothing"
    except CpulistError as e:
        return str(e)


CPULIST = r"^\d+(-\d+)?(:\d+/\d+)?(,\d+(-\d+)?(:\d+/\d+)?)*$"
ID = Scalar(str, int, check=lambda v: None if isinstance(v, int) or re.match(r"^[a-z_][a-z0-9_.-]*\$?$", v)
            else "not a user or group name")
POLICY = {
    "cpuset": TableArray(Table({
        "name": Scalar(str, pattern=r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$",
                       doc="one cgroup name: letters, digits, '_', '.', '-' (it is also processor_group_name)"),
        "nodes": Array(Scalar(int, minimum=0, maximum=65535)),
        "cpus": Scalar(str, pattern=CPULIST, check=_cpulist_problem, doc="a cpulist such as 0-9,20-29"),
        "mems": Scalar(str, pattern=CPULIST, check=_cpulist_problem, doc="a node list such as 0 or 0-1"),
        "memory_migrate": Scalar(bool),
        "cpu_exclusive": Scalar(bool),
        "owner": Table({"uid": ID, "gid": ID}),
        "sga_size": Scalar(str, pattern=r"^\d+[KMGT]?$", doc="a size such as 24G"),
        "persist": Scalar(str, choices=("auto", "cgconfig", "systemd", "none")),
        "why": WHY,
    })),
}
UNITS = {"": 1, "K": 1024, "M": 1024 ** 2, "G": 1024 ** 3, "T": 1024 ** 4}


def check_policy(data):
    seen = set()
    for i, spec in enumerate(data.get("cpuset", [])):
        key = "cpuset[%d]" % i
        if "name" not in spec:
            yield SchemaError(key, "%s has no name" % key, "add name = \"oracle\" (the processor_group_name)")
            continue
        if spec["name"] in seen:
            yield SchemaError(key + ".name", "cpuset %r is declared twice" % spec["name"], "keep one [[cpuset]]")
        seen.add(spec["name"])
        if "nodes" in spec and ("cpus" in spec or "mems" in spec):
            yield SchemaError(key + ".nodes", "cpuset %r gives nodes and cpus/mems" % spec["name"],
                              "give nodes = [...] or explicit cpus and mems, not both")
        elif "nodes" not in spec and not ("cpus" in spec and "mems" in spec):
            yield SchemaError(key, "cpuset %r needs nodes, or both cpus and mems" % spec["name"],
                              "a cpuset with no cpus or mems cannot hold tasks")
        elif "nodes" in spec and not spec["nodes"]:
            yield SchemaError(key + ".nodes", "cpuset %r: nodes is empty" % spec["name"], "name at least one node")
        owner = spec.get("owner")
        if owner is not None and set(owner) != {"uid", "gid"}:
            yield SchemaError(key + ".owner", "cpuset %r: owner needs uid and gid" % spec["name"],
                              'owner = { uid = "oracle", gid = "dba" }')


def specs(data):
    return data.get("cpuset", [])


def read(root, data):
    names = [s["name"] for s in specs(data)]
    # Without [[cpuset]] only `numatune facts` reads this family: the hierarchy
    # and the cpusets already there are still what the host has.
    out = cgroups.read(root, names)
    out["slices"] = {}
    for name in names:
        unit = name if name.endswith(".slice") else name + ".slice"
        for path in ("%s/%s" % (SLICE_DIR, unit), cgconfig.slice_wants_path(unit)):
            text = root.read_text(path)
            if text is not None:
                out["slices"][path] = text
    return out


def resolve(spec, topology):
    """(cpus, mems) as sorted int lists, or a problem message."""
    if "nodes" in spec:
        cpus, mems = [], []
        for n in spec["nodes"]:
            node = topology["nodes"].get(str(n))
            if node is None:
                return "node %d does not exist (nodes: %s)" % (n, ",".join(sorted(topology["nodes"], key=int)))
            cpus += node["cpus"]
            mems.append(n)
        if not cpus:
            return "nodes %s have no CPUs (memory-only nodes)" % ",".join(map(str, spec["nodes"]))
        return sorted(set(cpus)), sorted(set(mems))
    return parse_cpulist(spec["cpus"]), parse_cpulist(spec["mems"])


def _size_kb(text):
    if not text:
        return None
    m = re.match(r"^(\d+)([KMGT]?)$", text)
    return int(m.group(1)) * UNITS[m.group(2)] // 1024


def checks(name, spec, cpus, mems, facts, others):
    topo = facts["topology"]
    found = []
    found += locality.unusable_cpus(cpus, topo)
    found += locality.unusable_mems(mems, topo)
    found += locality.remote_memory(cpus, mems, topo)
    found += locality.sga_spans(mems, _size_kb(spec.get("sga_size")), topo)
    found += locality.overlaps(name, cpus, spec.get("cpu_exclusive", False), others)
    return found


def diff(data, facts):
    mine = facts.get(NAME) or {}
    all_specs = specs(data)
    resolved = {}
    for spec in all_specs:
        later = nextboot.plan(spec, mine, facts, _persist, persist_mode)
        if later is not None:
            # Nodes the running kernel hides and the next boot has: that boot's files only.
            yield from later
            continue
        r = resolve(spec, facts["topology"])
        if isinstance(r, str):
            yield _finding(spec["name"], "unresolvable", "critical", r + ": not planned")
        else:
            resolved[spec["name"]] = r
    for spec in all_specs:
        name = spec["name"]
        if name not in resolved:
            continue
        cpus, mems = resolved[name]
        others = dict(mine.get("others", {}))
        for other, (ocpus, _) in resolved.items():
            if other != name:
                exclusive = next(s for s in all_specs if s["name"] == other).get("cpu_exclusive", False)
                others[other] = {"cpus": ocpus, "cpu_exclusive": exclusive}
        blocking = False
        for key, severity, message in checks(name, spec, cpus, mems, facts, others):
            yield _finding(name, key, severity, message)
            blocking = blocking or key in ("cpus-absent", "cpus-offline", "mems-without-memory")
        if blocking:
            yield _finding(name, "not-planned", "critical", "not created or changed until the problems above "
                                                            "are fixed")
            continue
        yield from _live(spec, cpus, mems, mine)
        yield from _persist(spec, cpus, mems, mine)


def _live(spec, cpus, mems, mine):
    name = spec["name"]
    hierarchy = mine.get("hierarchy")
    if hierarchy is None:
        yield _finding(name, "no-hierarchy", "warning", "no cpuset cgroup hierarchy is mounted (/proc/mounts): "
                                                        "the cpuset is not created live")
        return
    uid, gid = _owner_ids(spec, mine)
    if isinstance(uid, str):
        yield _finding(name, "owner-unknown", "critical", uid + ": not created until the owner exists")
        return
    v2 = hierarchy["version"] == 2
    if v2:
        yield from _v2_notes(spec, mine)
        if "cpuset" not in (mine["top"] or {}).get("controllers", []):
            yield _finding(name, "v2-no-controller", "warning",
                           "the cgroup v2 root %s does not offer the cpuset controller (bound to a v1 hierarchy?)"
                           % hierarchy["mount"])
            return
        if "cpuset" not in mine["top"].get("subtree_control", []):
            yield Change(id="cpuset.enable:" + hierarchy["mount"], area="cpu",
                         target="%s/cgroup.subtree_control" % hierarchy["mount"], current=" ".join(
                             mine["top"]["subtree_control"]) or "(none)", desired="+cpuset", scope="live",
                         action="enable the cpuset controller for child cgroups", rule="cpuset",
                         why=_why(spec, "enable"),
                         writes=[Write(kind="cgroup", path=hierarchy["mount"], args={"action": "enable"})])
    state = mine["cpusets"][name]
    settings = _settings(spec, cpus, mems, hierarchy)
    desired = " ".join("%s=%s" % (k.replace("cpuset.", ""), v) for k, v in settings)
    if state.get("missing"):
        args = {"action": "create", "settings": settings, "prefix": hierarchy["prefix"]}
        if uid is not None:
            args.update(uid=uid, gid=gid)
        yield Change(id="cpuset.create:" + name, area="cpu", target=state["path"], current=None, desired=desired,
                     scope="live", action="create cpuset %s (processor_group_name=%s)" % (name, name),
                     why=_why(spec, "create"),
                     rule="cpuset", writes=[Write(kind="cgroup", path=state["path"], args=args)])
        return
    yield from _change_existing(spec, state, settings, uid, gid, hierarchy)


def _change_existing(spec, state, settings, uid, gid, hierarchy):
    name, path = spec["name"], state["path"]
    populated = bool(state["tasks"])
    # memory_migrate first: it decides whether a mems change moves pages.
    order = sorted(settings, key=lambda kv: 0 if kv[0].endswith("memory_migrate") else 1)
    for key, value in order:
        short = key[len(hierarchy["prefix"]):]
        now = state.get(short)
        try:
            same = (parse_cpulist(now) == parse_cpulist(value)) if short in ("cpus", "mems") else now == value
        except CpulistError:
            same = False    # a file that is not a cpulist (garbage in a copied tree): rewritten
        if same:
            yield Compliant("cpuset.%s:%s" % (short, name), "cpuset %s %s = %s" % (name, short, value), "cpu")
            continue
        restart = short == "mems" and populated
        yield Change(id="cpuset.%s:%s" % (short, name), area="cpu", target="%s/%s" % (path, key), current=now,
                     desired=value, scope="live", action="write %s" % key, why=_why(spec, short),
                     rule="cpuset." + short,
                     restart_required=restart,
                     writes=[Write(kind="value", path="%s/%s" % (path, key), value=value, format="plain")])
        if short == "cpus" and populated:
            yield _finding(name, "cpus-live", "info", "its %d task(s) move to the new cpus at once"
                           % len(state["tasks"]), "cpuset.cpus")
        if restart and not (hierarchy["version"] == 1 and spec.get("memory_migrate")):
            yield _finding(name, "mems-restart", "warning",
                           "memory already allocated by its %d task(s) stays where it is (memory_migrate is off): "
                           "restart the instance so its SGA is allocated on nodes %s" % (len(state["tasks"]), value),
                           "cpuset.mems")
    if uid is not None and (state["uid"], state["gid"]) != (uid, gid):
        yield Change(id="cpuset.owner:" + name, area="cpu", target=path, current="%s:%s" % (state["uid"],
                                                                                             state["gid"]),
                     desired="%s:%s" % (uid, gid), scope="live", action="chown the cpuset and its task files",
                     why=_why(spec, "owner"), rule="cpuset.owner",
                     writes=[Write(kind="cgroup", path=path, args={"action": "owner", "uid": uid, "gid": gid})])


def _v2_notes(spec, mine):
    name = spec["name"]
    if spec.get("memory_migrate") is False:
        yield _finding(name, "v2-migrate", "info", "cgroup v2 always migrates memory when mems changes; "
                                                   "memory_migrate = false is not possible here", "cpuset")
    if spec.get("cpu_exclusive"):
        yield _finding(name, "v2-exclusive", "warning", "cgroup v2 has no cpu_exclusive: use a partition "
                                                        "(cpuset.cpus.partition) to reserve CPUs", "cpuset")


EDITORS = dict(cgconfig.EDITORS)
