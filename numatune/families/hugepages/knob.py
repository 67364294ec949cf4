"""HugePages: per-node pools live, vm.nr_hugepages (2M) or boot arguments (1G)
for the next boot. Placement "even" spreads the pages over nodes with memory,
as the kernel itself does at boot."""
import re

from numatune.family import AfterApply
from numatune.model import Change, Compliant, Finding, Write
from numatune.policy.schema import WHY, Either, Scalar, SchemaError, Table
from numatune.facts.cpulist import parse_cpulist
from numatune.families.hugepages import atboot, keeper, nextboot
from numatune.families.hugepages.guard import starving, who
from numatune.families.hugepages.placement import distribute, even_nodes, missing_nodes
from numatune.families.oracle.pool import auto_pool, needs
from numatune.families import bootunit
from numatune.families.sysctl import knob as sysctl_knob
from numatune.report.numbers import count

NAME = "hugepages"
SIZES = {"2M": 2048, "1G": 1048576, "64K": 64, "16M": 16384, "32M": 32768, "512M": 524288, "16G": 16777216}
POLICY = {
    "hugepages": Table({
        "size": Scalar(str, choices=tuple(SIZES)),
        # "auto": the pages the Oracle instances' SGAs need (numatune.families.oracle.pool).
        "count": Either(Scalar(int, minimum=0, maximum=1 << 31), Scalar(str, choices=("auto",))),
        "placement": Either(Scalar(str, choices=("even",)),
                            Table(extra=Scalar(int, minimum=0), extra_key=r"^\d+$",
                                  extra_doc="placement keys are NUMA node ids: { 0 = 512, 1 = 512 }")),
        # Lowering a pool below what the Oracle instances need is refused
        # unless this says the admin knows (numatune.families.hugepages.guard).
        "allow_shrink": Scalar(bool),
        # A node whose pool is already larger than planned keeps it: the pages may be an instance's that
        # is down (numatune recommend writes this; lowering is the admin's decision).
        "keep_larger": Scalar(bool),
        "why": WHY,
    }),
}
# A node keeps at least this share of its memory outside the pool: asking for
# more starves the kernel and everything else on that node.
MAX_SHARE = 0.9


def check_policy(data):
    hp = data.get("hugepages")
    if not hp:
        return
    if "count" not in hp:
        yield SchemaError("hugepages", "[hugepages] needs a count", "count = 1024")
    placement = hp.get("placement")
    if isinstance(placement, dict) and isinstance(hp.get("count"), int) and sum(placement.values()) != hp["count"]:
        yield SchemaError("hugepages.placement", "hugepages.placement adds up to %d, but count = %d"
                          % (sum(placement.values()), hp["count"]), "make them agree")


def read(root, data):
    if not data.get("hugepages"):
        return {}
    # Nodes whose memory the kernel may use for kernel allocations (and so
    # for HugePages); None on kernels that do not list it.
    text = root.read_value("/sys/devices/system/node/has_normal_memory")
    return {"normal_memory": [str(n) for n in parse_cpulist(text)] if text is not None else None}


def resolve(data, facts):
    """The resolve step: ``policy`` is [hugepages] with count = "auto"
    replaced by the pool the Oracle SGAs need (``auto``, from the oracle
    family's sizing), placed by the instances' cpuset binding unless the
    policy places it; ``kb`` is the page size every family sizes with;
    ``want`` the pages per node (or {"total"}); ``refused`` findings that
    keep the pool as it is (``policy`` is then {}); ``skipped`` the nodes
    "even" placement leaves out, with the reason."""
    hp = data.get("hugepages") or {}
    kb = size_kb(data)
    out = {"policy": hp, "kb": kb, "auto": None, "refused": [], "skipped": {}, "want": {}}
    if "count" not in hp:
        return out
    topo = facts["topology"]
    eligible, skipped = even_nodes(topo, (facts.get(NAME) or {}).get("normal_memory"))
    if hp["count"] == "auto":
        auto = auto_pool(data, facts, kb, eligible)
        out["auto"] = auto
        if not auto["instances"]:
            return _refuse(out, {"id": "hugepages.auto-no-instances", "severity": "warning",
                                 "target": "hugepages-%dkB" % kb,
                                 "message": 'count = "auto" found no Oracle instance (from /etc/oratab and their '
                                            "parameter files): the pool is left as it is",
                                 "why": "name the instances with [[oracle.instance]] home = ..., or give a count"})
        hp = dict(hp, count=auto["count"])
        if "placement" not in hp and auto["placement"]:
            hp["placement"] = auto["placement"]
    out["policy"] = hp
    missing = missing_nodes(hp.get("placement"), topo, kb)
    if missing and nextboot.resolve(out, hp, kb, missing, facts, _too_big):
        return out
    if missing:
        for nid in missing:
            out["refused"].append({
                "id": "hugepages.no-node:%s" % nid, "severity": "critical", "target": "node%s hugepages-%dkB"
                % (nid, kb), "message": "placement asks %d pages on node %s, which this host %s: no HugePages "
                "change planned for the pool" % (hp["placement"][nid], nid, "lacks" if nid not in topo["nodes"]
                                                  else "has no %dkB pool on" % kb),
                "why": "placing the other nodes' share alone would drain them; fix the placement"})
        out["policy"] = {}
        return out
    placement = hp.get("placement", "even")
    per_node = [nid for nid, n in topo["nodes"].items() if str(kb) in n["hugepages"]]
    if per_node:
        if placement == "even":
            out["skipped"] = {nid: why for nid, why in skipped.items() if nid in per_node}
            want = distribute(hp["count"], [n for n in eligible if n in per_node], "even")
        elif "placement" not in (data.get("hugepages") or {}):
            # count = "auto" placed it over the eligible nodes: the others keep what they have.
            want = distribute(hp["count"], [n for n in eligible if n in per_node], placement)
        else:
            want = distribute(hp["count"], topo["nodes_with_memory"], placement)
        current = {nid: topo["nodes"][nid]["hugepages"][str(kb)].get("nr", 0) or 0 for nid in per_node}
    else:
        want = {"total": hp["count"]}
        current = {"total": topo["hugepages"].get(str(kb), {}).get("nr", 0) or 0}
    if hp.get("keep_larger"):
        out["kept"] = {nid: (current[nid], pages) for nid, pages in want.items() if current.get(nid, 0) > pages}
        want = {nid: max(pages, current.get(nid, 0)) for nid, pages in want.items()}
        # Nodes the placement leaves alone keep what they have, and count in the total.
        hp = dict(hp, count=sum(want.values()) + sum(v for nid, v in current.items() if nid not in want))
        out["policy"] = hp
    out["want"] = want
    need = needs(data, facts, kb)
    if not hp.get("allow_shrink"):
        now = dict(current)
        # Nodes the placement leaves alone keep what they have.
        out["refused"] += starving(kb, dict(now, **{k: v for k, v in want.items() if k in now}), now, need)
    # The next boot: by which route the pool comes back, and whether the kernel's spread starves a bound node.
    out["boot"] = atboot.plan(kb, topo["meminfo"].get("Hugepagesize", 2048), want, topo,
                              (facts.get(NAME) or {}).get("normal_memory"), (facts.get("host") or {}).get("release"),
                              facts.get("boot"), facts.get("bootunit"))
    if any(_too_big(pages, kb, topo["nodes"].get(nid)) for nid, pages in want.items()):
        # The live change refuses that node (a warning): its boot arguments would take it at boot.
        out["boot"]["args"] = []
    # A node the live guard refuses already is said once.
    said = {f["id"].rpartition(":")[2] for f in out["refused"]}
    # Nodes the placement leaves alone keep what they have.
    planned = dict(current, **{k: v for k, v in want.items() if k in current})
    out["refused"] += [f for f in atboot.starved(out["boot"], need, kb, hp.get("allow_shrink"), planned)
                       if f["id"].rpartition(":")[2] not in said]
    if out["refused"]:
        out["policy"] = {}
    return out


def _order(nid):
    return (0, int(nid)) if nid.isdigit() else (1, 0)


def _refuse(out, finding):
    out["refused"].append(finding)
    out["policy"] = {}
    return out


def resolved(facts):
    """This family's resolved [hugepages] (see ``resolve``)."""
    return facts["resolved"][NAME]["policy"]


def size_kb(data):
    return SIZES[data.get("hugepages", {}).get("size", "2M")]


def diff(data, facts):
    items = list(_diff(data, facts))
    live = [i for i in items if isinstance(i, Compliant) and i.rule == "hugepages.live"]
    if live:
        live[0].kept_by = keeper.kept_by(items, facts)
    return items


def _diff(data, facts):
    mine = facts["resolved"][NAME]
    for f in mine["refused"]:
        yield Finding(id=f["id"], severity=f["severity"], area="memory", target=f["target"],
                      rule="hugepages.count", message=f["message"], why=f.get("why", ""))
    hp = mine["policy"]
    if not hp or "count" not in hp:
        return
    auto = mine["auto"]
    if auto:
        sized = [s for s in auto["instances"] if s["pages"]]
        yield Finding(id="hugepages.auto", severity="info", area="memory", target="hugepages-%dkB" % auto["kb"],
                      rule="hugepages.count",
                      message='count = "auto": %d x %dkB pages (a %d%% margin%s, never below the pages in use%s): %s'
                              % (auto["count"], auto["kb"], auto["margin_pct"],
                                 ", plus %d in use by others" % auto["others"] if auto.get("others") else "",
                                 "; %d with the larger pools kept" % hp["count"] if mine.get("kept") else "",
                                 who(sized) or "no SGA on HugePages"))
    if mine.get("kept"):
        kept = mine["kept"]
        yield Finding(id="hugepages.kept", severity="info", area="memory", target="hugepages-%dkB" % mine["kb"],
                      rule="hugepages.keep_larger",
                      message="keep_larger: these pools stay larger than planned: %s" % ", ".join(
                          "node %s %d (%d planned)" % (n, kept[n][0], kept[n][1]) for n in sorted(kept, key=_order)),
                      why="a pool no running instance uses may be an instance's that is down; set "
                          "keep_larger = false to lower it to the plan")
    why = hp.get("why", "")
    kb = size_kb(data)
    count = hp["count"]
    topo = facts["topology"]
    if mine.get("next_boot"):
        # Nodes the running kernel hides: the next boot's pool only (nextboot.py).
        yield from nextboot.findings(mine, kb)
        if kb == topo["meminfo"].get("Hugepagesize", 2048):
            yield from sysctl_knob.persist("vm.nr_hugepages", str(count), why, facts["sysctl"], data, area="memory",
                                           route=_kernel_default(count, facts))
        yield from _persist_per_node(mine, kb, why, facts)
        return
    per_node = [nid for nid, n in topo["nodes"].items() if str(kb) in n["hugepages"]]
    refused = False
    if per_node:
        if mine["skipped"]:
            yield Finding(id="hugepages.skipped-nodes", severity="info", area="memory", target="hugepages-%dkB" % kb,
                          rule="hugepages.placement",
                          message='placement "even" leaves node(s) %s alone: %s' % (
                              ",".join(sorted(mine["skipped"], key=int)),
                              "; ".join("node %s has %s" % (n, r) for n, r in sorted(mine["skipped"].items()))),
                          why="no process runs there to use the pages locally; at boot the kernel spreads "
                              "vm.nr_hugepages over every node with memory")
        for item in _live_per_node(mine["want"], kb, count, topo, why):
            refused = refused or getattr(item, "id", "").startswith("hugepages.too-big")
            yield item
    elif str(kb) in topo["hugepages"]:
        current = topo["hugepages"][str(kb)].get("nr")
        path = "/sys/kernel/mm/hugepages/hugepages-%dkB/nr_hugepages" % kb
        if current == count:
            yield Compliant("hugepages.live", "%d %s pages live" % (count, hp.get("size", "2M")), "memory")
        else:
            yield Change(id="hugepages.live", area="memory", target="hugepages-%dkB" % kb,
                         current=None if current is None else str(current), desired=str(count), scope="live",
                         action="write %s" % path, why=why, risk="medium", rule="hugepages.count", partial_ok=True,
                         writes=[Write(kind="value", path=path, value=str(count))])
    else:
        yield Finding(id="hugepages.unsupported", severity="warning", area="memory", target="hugepages-%dkB" % kb,
                      rule="hugepages.size",
                      message="this kernel has no %s HugePages pool (no hugepages-%dkB in sysfs)"
                              % (hp.get("size", "2M"), kb))
        return
    if refused:
        # The boot-time allocation would starve the node just the same.
        return
    default_kb = topo["meminfo"].get("Hugepagesize", 2048)
    if kb == default_kb:
        yield from sysctl_knob.persist("vm.nr_hugepages", str(count), why, facts["sysctl"], data, area="memory",
                                       route=_kernel_default(count, facts))
    if per_node:
        yield from _persist_per_node(mine, kb, why, facts)
    # Boot arguments (another page size's pool, or the node format) are
    # planned by the boot family from mine["boot"]["args"].


def _kernel_default(count, facts):
    """The route that keeps an empty pool: the kernel boots with none unless a
    hugepages= argument (live or in a boot entry) or a sysctl.d file fills it.
    None for any other count, or where something fills it (then numatune's
    file says 0, as for any count)."""
    from numatune.families.sysctl.facts import effective
    if count != 0 or effective((facts.get("sysctl") or {}).get("files") or [], "vm.nr_hugepages"):
        return None
    config = (facts.get("boot") or {}).get("config") or {}
    args = list(facts["host"].get("cmdline") or []) + [a for e in config.get("entries") or [] for a in e["args"]]
    if any(a.startswith("hugepages=") for a in args):
        return None
    return {"by": "the kernel's default, with no file or hugepages= argument setting it", "kept": True}


def _persist_per_node(mine, kb, why, facts):
    """The placement at the next boot, by the route atboot chose: the
    bootloader (hugepages= in node format, Linux 5.16+), else the boot file
    (numatune-boot.service writes each node's pool early at boot, after the
    kernel's even spread; every kernel with per-node pools, so RHEL 6/7's
    2.6.32/3.10 keep theirs), else the kernel's spread alone."""
    want, boot = mine["want"], mine["boot"]
    spread = boot["spread"]
    if all(spread.get(nid, 0) == pages for nid, pages in want.items()):
        return
    def nodes(pages):
        return ", ".join("node %s %d" % (n, pages[n]) for n in sorted(pages, key=int))
    target = "hugepages-%dkB" % kb
    if boot["route"] == "cmdline":
        yield Finding(id="hugepages.placement-at-boot", severity="info", area="memory", target=target,
                      rule="hugepages.placement",
                      message="the kernel (Linux 5.16 or later) allocates each node's pool at boot from %s in the "
                              "bootloader (%s), before memory fragments" % (boot["args"][-1], nodes(want)))
        return
    if boot["route"] != "bootfile":
        yield Finding(id="hugepages.placement-at-boot", severity="warning", area="memory", target=target,
                      rule="hugepages.placement",
                      message="at boot the kernel spreads the pool evenly (%s), not as placed (%s): %s, so the "
                              "placement is live only" % (nodes(spread), nodes(want), boot["why"]))
        return
    yield Finding(id="hugepages.placement-at-boot", severity="info", area="memory", target=target,
                  rule="hugepages.placement",
                  message="at boot the kernel spreads vm.nr_hugepages evenly (%s); numatune-boot.service then "
                          "places each node's pool as planned (%s)" % (nodes(spread), nodes(want)))
    # Shrink before growing, as the live changes do: memory is free where it is asked for.
    order = sorted(want, key=lambda n: (want[n] > spread.get(n, 0), int(n)))
    for i, nid in enumerate(order):
        path = "/sys/devices/system/node/node%s/hugepages/hugepages-%dkB/nr_hugepages" % (nid, kb)
        yield from bootunit.persist(facts, "hugepages.boot:node%s:%dkB" % (nid, kb),
                                    "node%s hugepages-%dkB" % (nid, kb), path, str(want[nid]), why,
                                    rule="hugepages.placement", first=i == 0)


def _too_big(pages, kb, node):
    mem = (node or {}).get("mem_total_kb")
    return bool(mem and pages * kb > mem * MAX_SHARE)


def _live_per_node(want, kb, count, topo, why):
    changes = []
    for nid in sorted(want, key=int):
        pages = want[nid]
        node = topo["nodes"].get(nid)
        target = "node%s hugepages-%dkB" % (nid, kb)
        if node is None or str(kb) not in node["hugepages"]:
            continue
        mem = node.get("mem_total_kb")
        if _too_big(pages, kb, node):
            yield Finding(id="hugepages.too-big:%s" % nid, severity="warning", area="memory", target=target,
                          rule="hugepages.count",
                          message="%d x %dkB pages would take %d%% of node %s's memory: not planned"
                                  % (pages, kb, pages * kb * 100 // mem, nid),
                          why="lower hugepages.count or spread it over more nodes")
            continue
        current = node["hugepages"][str(kb)].get("nr")
        if current == pages:
            continue
        path = "/sys/devices/system/node/node%s/hugepages/hugepages-%dkB/nr_hugepages" % (nid, kb)
        changes.append(Change(
            id="hugepages.live:node%s:%dkB" % (nid, kb), area="memory", target=target,
            current=None if current is None else str(current), desired=str(pages), scope="live",
            action="write %s" % path, why=why, risk="medium", rule="hugepages.count", partial_ok=True,
            writes=[Write(kind="value", path=path, value=str(pages))]))
    # Shrink pools before growing others, so memory is free where it is asked for.
    changes.sort(key=lambda c: int(c.desired) - int(c.current or 0) > 0)
    if not changes:
        yield Compliant("hugepages.live", "%d x %dkB pages placed as asked" % (count, kb), "memory")
    yield from changes


def after_apply(data, changes, facts_after):
    """A pool the kernel filled less than asked (fragmentation) is no reason
    to undo the run, but the run says so and exits 1."""
    return AfterApply([], list(shortfalls(changes, facts_after)))


def shortfalls(plan_before, facts_after):
    """Findings for pools the kernel filled less than asked (fragmentation)."""
    for change in plan_before:
        if not change.id.startswith("hugepages.live"):
            continue
        m = re.match(r"^node(\d+) hugepages-(\d+)kB$", change.target)
        if m:
            got = facts_after["topology"]["nodes"].get(m.group(1), {}).get("hugepages", {}).get(m.group(2), {}).get("nr")
        else:
            got = facts_after["topology"]["hugepages"].get(change.target[len("hugepages-"):-2], {}).get("nr")
        if got is not None and got < int(change.desired):
            yield Finding(id="hugepages.short:" + change.target, severity="critical", area="memory",
                          target=change.target, rule="hugepages.count", exit_status=1,
                          message="the kernel allocated %d of %s pages for %s (memory is fragmented)"
                                  % (got, change.desired, change.target),
                          why="allocate at boot (the persistent setting does) or run "
                              "`echo 1 > /proc/sys/vm/compact_memory` and apply again")


EDITORS = {}


def _size(kb):
    return "%dG" % (kb // 1048576) if kb >= 1048576 else "%dM" % (kb // 1024) if kb >= 1024 else "%dk" % kb


def facts_lines(facts):
    """/proc/meminfo's view of the pools, then the pools per node, for `numatune facts`."""
    from numatune.report.factlines import line  # `numatune facts` only: a plan prints no facts
    topo = facts["topology"]
    nodes, mi = topo["nodes"], topo["meminfo"]
    ids = sorted(nodes, key=int)
    sizes = sorted({int(s) for n in nodes.values() for s in n["hugepages"]})
    if not sizes and not mi and not facts.get(NAME):
        return []
    head = "/proc/meminfo not readable"
    if mi:
        head = "%s total, %s free, %s reserved, %s kB each (/proc/meminfo)" % tuple(
            count(mi.get(k)) for k in ("HugePages_Total", "HugePages_Free", "HugePages_Rsvd", "Hugepagesize"))
    out = line("HugePages: " + head, indent=0)
    if sizes:
        out.append("  per node (total/free):")
        out.append("  node" + "".join("%16s" % _size(s) for s in sizes))
        for nid in ids:
            hp = nodes[nid]["hugepages"]
            out.append("  %4s" % nid + "".join(
                "%16s" % ("%s/%s" % (count(hp[str(s)].get("nr")), count(hp[str(s)].get("free")))
                          if str(s) in hp else "-") for s in sizes))
    normal = (facts.get(NAME) or {}).get("normal_memory")
    if normal is not None:
        out.append("  nodes with normal memory (where pages can go): %s" % (",".join(normal) or "none"))
    return out
