"""The boot lines of `numatune facts`: which bootloader layout the host
uses, the files numatune would edit, and the kernel arguments of each boot
entry (entries with the same arguments as one)."""
from numatune.report.factlines import capped, line, listing, names, plural

NAME = "boot"


def facts_lines(facts):
    mine = facts.get(NAME) or {}
    if not mine:
        return []
    if mine.get("error"):
        return ["boot: the bootloader configuration cannot be read"] + line(mine["error"])
    cfg = mine.get("config") or {}
    entries = cfg.get("entries") or []
    if cfg.get("kind") in (None, "none") and not entries:
        return ["boot: no bootloader configuration found (BLS, grubenv, grub.cfg, grub.conf)"]
    out = ["boot: %s, %s" % (cfg.get("kind") or "?", plural(len(entries), "boot entry", "boot entries"))]
    if cfg.get("files"):
        out += listing("files", cfg["files"])
    if cfg.get("boot_choice"):
        out += line(cfg["boot_choice"])
    groups = {}
    for e in entries:
        label = (e.get("version") or e.get("title") or e.get("path") or "?") + (" (rescue)" if e.get("rescue") else "")
        groups.setdefault(" ".join(e.get("args") or []), []).append(label)
    shown, rest = capped(list(groups.items()), "entries")
    for args, members in shown:
        out += line("%s: %s" % (names(members), args or "(no arguments)"))
    if rest:
        out.append(rest)
    for label, args in (("kernelopts (grubenv)", cfg.get("kernelopts")),
                        ("GRUB_CMDLINE_LINUX (%s)" % cfg.get("default_grub_path"), cfg.get("default_grub_args")),
                        ("%s" % cfg.get("kernel_cmdline_path"), cfg.get("kernel_cmdline_args") or None),
                        ("tuned_params", cfg.get("tuned_params"))):
        if args is not None:
            out += line("%s: %s" % (label, " ".join(args) or "(empty)"))
    if mine.get("grubby"):
        out += line("grubby: %s" % mine["grubby"])
    return out
