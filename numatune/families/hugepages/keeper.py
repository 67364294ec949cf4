"""What gives a live HugePages pool back at the next boot, for the pool's
Compliant (apply's table and `check` name it): the parts the family planned
(the pool's own sysctl, its boot arguments, each node's boot-file line),
all of them or nothing."""
from numatune.model import Compliant


def kept_by(items, facts):
    """What gives the live pool back at the next boot, every part of it: the
    boot arguments in the bootloader's entries, vm.nr_hugepages where the
    pool is of the default size, and each node's line in the boot file
    where the kernel's spread is not the placement; "" when a part is kept
    by nothing (the placement is live only, or not yet written)."""
    mine = facts["resolved"]["hugepages"]
    boot, want, kb = mine.get("boot") or {}, mine.get("want") or {}, mine["kb"]
    kept = []
    if boot.get("args"):
        kept.append(_in_bootloader(facts, boot["args"]))
    if kb == facts["topology"]["meminfo"].get("Hugepagesize", 2048):
        total = [i.kept_by for i in items if isinstance(i, Compliant) and i.rule == "sysctl.persist:vm.nr_hugepages"]
        kept += total or [""]
    spread = boot.get("spread") or {}
    if "total" not in want and any(spread.get(n, 0) != pages for n, pages in want.items()):
        if boot.get("route") == "bootfile":
            nodes = [i for i in items if (i.rule if isinstance(i, Compliant) else i.id).startswith("hugepages.boot:")]
            kept += [i.kept_by if isinstance(i, Compliant) else "" for i in nodes] or [""]
        elif boot.get("route") != "cmdline":
            kept.append("")
    return "" if not kept or not all(kept) else "; ".join(dict.fromkeys(kept))


def _in_bootloader(facts, args):
    """The bootloader, named as `check` names it, when each of its entries has ``args``; else ""."""
    if not (facts.get("boot") or {}).get("config"):
        return ""
    from numatune.families.boot import cmdline
    cfg = cmdline.config(facts)
    entries = cmdline.booting_entries(cfg)
    if not entries or not all(a in e.args for e in entries for a in args):
        return ""
    return cmdline.kept_by(cfg)
