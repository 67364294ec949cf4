"""What a pool gets at the next boot, by which route, and whether that
starves a bound instance. Pure: facts in, a dict out (kept in the resolved
facts).

The kernel's own spread: a count given at boot (``hugepages=N`` on the
command line) or later (``vm.nr_hugepages`` from sysctl.d) is allocated one
page at a time round-robin over the nodes of ``node_states[N_MEMORY]``
(/sys/devices/system/node/has_memory; mm/hugetlb.c,
``for_each_node_mask_to_alloc``, starting at the lowest id, so lower ids
take the remainder). A node whose memory is all movable cannot hold a huge
page: the loop moves on to the next node, so such nodes (not in
has_normal_memory) get none and the others share their part.

Routes that keep a per-node placement at boot:

- ``cmdline``: Linux 5.16 (commit b5389086ad7b, "hugetlbfs: extend the
  definition of hugepages parameter to support node allocation") takes
  ``hugepagesz=2M hugepages=0:N,1:M`` (Documentation/admin-guide/
  kernel-parameters.txt: "Format: <integer> or (node format)
  <node>:<integer>[,<node>:<integer>]"); then only the named nodes get pages,
  and they are allocated at boot, before memory fragments. Used where the
  running kernel is 5.16 or later, numatune edits the bootloader (BLS,
  grub.cfg, grub.conf) and the nodes with memory are numbered 0..N-1 (5.16
  checked ``node < nodes_weight(N_MEMORY)``: a gap in the ids made the whole
  argument invalid until a later fix).
- ``bootfile``: numatune-boot.service (or the SysV script numatune-boot)
  writes each node's nr_hugepages early at boot, after the kernel's even
  spread of vm.nr_hugepages: any kernel with per-node pools (RHEL 6's
  2.6.32, RHEL 7's 3.10), default page size only.
- ``spread``: nothing places them; the next boot gets the kernel's spread.
  1 GiB pages are allocated at boot (``hugepagesz=1G hugepages=N``):
  gigantic pages were boot-only until commit 944d9fec8d7a ("hugetlb: add
  support for gigantic page allocation at runtime"), and at runtime they
  need that much contiguous memory still free (found by scanning the zones,
  not from the buddy allocator), so before 5.16 they are spread evenly at
  boot whatever the live placement.
"""
from numatune.families.hugepages.placement import distribute
from numatune.families.sysctl.support import parse_release

NODE_FORMAT = (5, 16)
# Bootloader kinds whose entries numatune edits (numatune.families.boot.bootloader).
EDITABLE = ("bls", "grub2-legacy", "grub-legacy")
KEEP = ("keep the placement at boot: install numatune as a system command with its boot unit or SysV script "
        "(the numatune RPM), or boot Linux 5.16 or later with a bootloader numatune edits")
PLACE = 'place the pool where the instances are bound (count = "auto" does, or placement = { 7 = ... })'


def size_name(kb):
    return "%dG" % (kb // 1048576) if kb >= 1048576 and kb % 1048576 == 0 else "%dM" % (kb // 1024)


def kernel_spread(count, topo, normal_memory=None):
    """{node: pages} the kernel gives ``count`` pages at boot (see above)."""
    nodes = [str(n) for n in topo["nodes_with_memory"]]
    able = [n for n in nodes if normal_memory is None or n in normal_memory]
    return distribute(count, able or nodes, "even")


def _editable(boot):
    """(True, "") where numatune edits the boot entries, else (False, why not)."""
    if not boot or boot.get("error") or not boot.get("config"):
        return False, (boot or {}).get("error") or "the bootloader was not read"
    cfg = boot["config"]
    if cfg.get("kind") not in EDITABLE:
        return False, "no boot entries numatune edits (BLS, grub.cfg, grub.conf)"
    return True, ""


def _kb(value):
    """A hugepagesz= value in kB ("2M", "1G", "2048k", bytes), or None."""
    value = value.strip().upper().rstrip("B")
    units = {"K": 1, "M": 1024, "G": 1048576}
    try:
        if value and value[-1] in units:
            return int(value[:-1]) * units[value[-1]]
        return int(value) // 1024
    except ValueError:
        return None


def _other_pools(boot, kb):
    """Boot arguments of another page size's pool in the entries (the edit
    keeps one hugepagesz=/hugepages= pair, so it would drop theirs)."""
    out = set()
    for entry in ((boot or {}).get("config") or {}).get("entries", []):
        for arg in entry.get("args") or []:
            name, _, value = arg.partition("=")
            if name in ("hugepagesz", "default_hugepagesz") and _kb(value) != kb:
                out.add(arg)
    return sorted(out)


def node_format(release, topo, boot, kb):
    """(True, "") where ``hugepages=`` in node format keeps the placement at
    boot, else (False, why not)."""
    version = parse_release(release)
    if not version or version[:2] < NODE_FORMAT:
        return False, "the running kernel %s is older than Linux 5.16, which first takes hugepages=N:pages,... " \
                      "(node format)" % (release or "(unknown)")
    ok, why = _editable(boot)
    if not ok:
        return False, why
    ids = sorted(int(n) for n in topo["nodes_with_memory"])
    if ids != list(range(len(ids))):
        return False, "the nodes with memory (%s) are not numbered 0..%d, which Linux 5.16's node format assumed" \
                      % (",".join(str(i) for i in ids), len(ids) - 1)
    others = _other_pools(boot, kb)
    if others:
        return False, "the boot entries hold another pool's %s" % " ".join(others)
    return True, ""


def plan(kb, default_kb, want, topo, normal_memory, release, boot, bootunit):
    """{"route", "args" (boot arguments to keep), "at_boot" ({node: pages}
    the next boot gives, {} when unknown), "spread" (the kernel's own
    spread of the count), "why" (why not a per-node route)}."""
    count = sum(want.values())
    size = size_name(kb)
    spread = kernel_spread(count, topo, normal_memory) if topo["nodes_with_memory"] else {}
    out = {"route": "spread", "args": [], "at_boot": spread, "spread": spread, "why": "", "fix": KEEP}
    default = kb == default_kb
    if "total" in want:
        out["why"] = "this kernel keeps one pool for all nodes (no per-node nr_hugepages in sysfs)"
        if not default:
            out["args"] = ["hugepagesz=%s" % size, "hugepages=%d" % count]
        return out
    placed = {n: p for n, p in want.items() if p}
    if all(spread.get(n, 0) == p for n, p in want.items()) and sum(spread.values()) == count:
        out["why"] = "the placement is the kernel's own even spread"
        out["fix"] = PLACE
        if not default:
            out["args"] = ["hugepagesz=%s" % size, "hugepages=%d" % count]
        return out
    ok, why = node_format(release, topo, boot, kb)
    if ok:
        nodes = ",".join("%s:%d" % (n, placed[n]) for n in sorted(placed, key=int))
        out.update(route="cmdline", at_boot={n: want[n] for n in want},
                   args=["hugepagesz=%s" % size, "hugepages=%s" % nodes])
        return out
    if not default:
        out["why"] = "%s; %s pages are allocated at boot only, spread evenly" % (why, size)
        out["args"] = ["hugepagesz=%s" % size, "hugepages=%d" % count]
        return out
    stop = ((bootunit or {}).get("runner") or {}).get("problem")
    if stop:
        out["why"] = "%s, and nothing would run the boot file at boot (%s)" % (why, stop)
        return out
    out.update(route="bootfile", at_boot={n: want[n] for n in want}, why=why)
    return out


def starved(route, need, kb, allow, placed):
    """Critical findings (dicts) for each bound node the next boot leaves
    below its instances' need plus the pages others hold there, and below
    what the live plan gives it (``placed``: {node: pages}): the spread,
    not the count, is what starves it. A pool too small for the node even
    live is the live guard's and the oracle family's to say."""
    if allow or route["route"] != "spread" or not route["at_boot"]:
        return []
    out = []
    others = need.get("others_per_node") or {}
    for nid in sorted(need["per_node"], key=int):
        needed = need["per_node"][nid] + others.get(nid, 0)
        got = route["at_boot"].get(nid, 0)
        if got >= needed or got >= placed.get(nid, 0):
            continue
        sids = [s["sid"] for s in need["instances"] if nid in (s["nodes"] or [])]
        beside = " and the %d others hold there" % others[nid] if others.get(nid) else ""
        spread = ", ".join("node %s %d" % (n, p) for n, p in sorted(route["at_boot"].items(), key=lambda i: int(i[0])))
        out.append({
            "id": "hugepages.boot-starves:node%s" % nid, "severity": "critical",
            "target": "node%s hugepages-%dkB at boot" % (nid, kb),
            "message": "at the next boot the kernel spreads the %d x %dkB pages evenly over the nodes with memory "
                       "(%s): node %s would get %d where the plan places %d, less than the %d %s need%s (%s): no "
                       "HugePages change planned" % (sum(route["at_boot"].values()), kb, spread, nid, got,
                                                     placed[nid], need["per_node"][nid], ", ".join(sids), beside,
                                                     route["why"]),
            "why": "%s; or set [hugepages] allow_shrink = true to persist the count anyway" % route["fix"]})
    return out
