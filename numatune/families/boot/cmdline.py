"""Kernel command line: persisted in the bootloader for the installed kernels
and future ones; the running value (/proc/cmdline) changes only at reboot.

Boot arguments also come from other families' keys: THP mode and 1G
HugePages pools only survive a reboot as boot arguments.
"""

from numatune.errors import BootConfigError
from numatune.facts import routes
from numatune.model import Change, Compliant, Finding, Write
from numatune.policy.schema import WHY, Array, Scalar, SchemaError, Table
from numatune.rootfs.which import which

NAME = "boot"
ARG = Scalar(str, pattern=r"^[A-Za-z0-9_.,:/+-]+(=[A-Za-z0-9_.,:/+@-]+)?$",
             doc="one kernel argument: name or name=value, no spaces or quotes")
POLICY = {
    "kernel": Table({
        "cmdline": Table({"absent": Array(ARG), "present": Array(ARG), "why": WHY}),
        "transparent_hugepage": Scalar(str, choices=("always", "madvise", "never")),
        "why": WHY,
    }),
}
EDIT_KINDS = ("bls", "grubenv", "default_grub", "kernel_cmdline", "grub_cfg", "grub_conf")


# Each argument is its own change that rewrites every boot file it touches,
# and the journal keeps each write's whole file before and after: N arguments
# cost N writes of a file that grows with N, so the journal grows as N squared
# (5,000 arguments made 175 MB, #28). A kernel command line holds 2,048 bytes
# on x86 (COMMAND_LINE_SIZE), far fewer than 256 arguments of any use; the
# bound keeps the journal a few MB at most.
MAX_ARGS = 256


def check_policy(data):
    cl = data.get("kernel", {}).get("cmdline", {})
    for side in ("present", "absent"):
        if len(cl.get(side, [])) > MAX_ARGS:
            yield SchemaError("kernel.cmdline." + side, "kernel.cmdline.%s lists %d arguments, more than %d"
                              % (side, len(cl[side]), MAX_ARGS),
                              "a kernel command line holds 2,048 bytes: keep the arguments that matter")
    both = set(cl.get("present", [])) & set(cl.get("absent", []))
    if both:
        arg = sorted(both)[0]
        yield SchemaError("kernel.cmdline.present", "%r is both present and absent in kernel.cmdline" % arg,
                          "keep it in one list")


def boot_args(data, facts):
    """[(arg, wanted, why, rule)], wanted True for present."""
    kernel = data.get("kernel", {})
    cl = kernel.get("cmdline", {})
    why = cl.get("why") or kernel.get("why", "")
    out = [(a, True, why, "kernel.cmdline.present") for a in cl.get("present", [])]
    out += [(a, False, why, "kernel.cmdline.absent") for a in cl.get("absent", [])]
    names = {a.split("=", 1)[0] for a, wanted, _, _ in out if wanted}
    thp = kernel.get("transparent_hugepage")
    if thp and "transparent_hugepage" not in names:
        out.append(("transparent_hugepage=" + thp, True,
                    kernel.get("why") or "keeps the THP mode after a reboot", "kernel.transparent_hugepage"))
    pool = facts.get("resolved", {}).get("hugepages", {})
    hp = pool.get("policy") or {}
    # The pool's boot arguments (numatune.families.hugepages.atboot): a pool of another size than the
    # default is only reliably filled at boot; the node format keeps a per-node placement (Linux 5.16+).
    args = (pool.get("boot") or {}).get("args") or [] if hp and "count" in hp else []
    hwhy = hp.get("why") or "%s pages are allocated at boot, before memory fragments" % hp.get("size", "2M")
    for arg in args:
        if arg.split("=")[0] not in names:
            out.append((arg, True, hwhy, "hugepages.placement" if ":" in arg else "hugepages.count"))
    return out


def read(root, data):
    from numatune.families.boot.bootloader import read_boot_config
    from numatune.model.records import asdict
    try:
        cfg = read_boot_config(root)
    except BootConfigError as e:
        return {"config": None, "error": str(e), "grubby": None}
    grubby = which("grubby") if root.is_live else None
    return {"config": asdict(cfg), "error": None, "grubby": grubby, "has_boot": root.exists("/boot")}


def _has(args, arg):
    if "=" in arg:
        return arg in args
    return any(a == arg or a.startswith(arg + "=") for a in args)


def config(facts):
    """The bootloader configuration as read (BootConfig), for this family and the cpu family."""
    from numatune.families.boot.bootloader import BootConfig, BootEntry
    raw = dict(facts[NAME]["config"])
    raw["entries"] = [BootEntry(**e) for e in raw["entries"]]
    return BootConfig(**raw)


def writes_for(facts, cfg, add, remove):
    """The writes that add/remove boot arguments in every place ``cfg`` keeps them."""
    from numatune.families.boot.bootloader_edit import plan_boot_edits
    edits = plan_boot_edits(cfg, add, remove)
    grubby = facts[NAME]["grubby"]
    writes = []
    if grubby and any(kind in ("bls", "grubenv", "grub_cfg") for _, kind in edits):
        argv = [grubby, "--update-kernel=ALL"]
        argv += ["--args=%s" % " ".join(add)] if add else []
        argv += ["--remove-args=%s" % " ".join(remove)] if remove else []
        writes.append(Write(kind="command", path="grubby", argv=argv, files=list(cfg.files)))
        edits = [(p, k) for p, k in edits if k not in ("bls", "grubenv", "grub_cfg")]
    for path, kind in edits:
        writes.append(Write(kind="file", path=path, editor="boot." + kind, args={"add": add, "remove": remove}))
    return writes


def _no_bootloader(wanted, live, facts, outside=False):
    """No bootloader file numatune knows: an argument to remove that the
    running kernel was not booted with needs nothing kept; THP is kept by
    the boot file (numatune-boot.service writes it early at boot); what is
    left cannot be persisted, and the finding names only that."""
    from numatune.families import bootunit
    thp = facts["host"].get("thp")
    left = []
    for arg, want, why, rule in wanted:
        if not want and live is not None and not _has(live, arg):
            continue
        name, _, value = arg.partition("=")
        if want and name == "transparent_hugepage" and thp and value in (thp.get("options") or [value]):
            # As costly as the live drift it keeps: madvise left is a warning (boot/thp.py says why).
            yield from bootunit.persist(facts, "thp.boot", "transparent_hugepage", thp["path"], value, why,
                                        area="memory", rule=rule,
                                        drift_severity="warning" if thp.get("enabled") == "madvise" else "")
            continue
        left.append(("+" if want else "-") + arg)
    if left:
        # No /boot at all (``outside``): the kernel is started from outside (a VM's direct kernel boot, PXE),
        # so there is nothing here to fix; the arguments belong where it is started.
        yield Finding(id="cmdline.no-bootloader", severity="info" if outside else "warning", area="kernel",
                      target="bootloader", rule="kernel.cmdline",
                      message="no bootloader configuration numatune knows (BLS entries, grub.cfg, grub.conf, "
                              "/etc/default/grub, /etc/kernel/cmdline): %s not persisted%s"
                              % (", ".join(left), "; this host has no /boot, so its kernel is started from outside "
                                                  "(a VM's direct kernel boot, PXE): set them there" if outside else ""))


def diff(data, facts):
    wanted = boot_args(data, facts)
    live = facts["host"]["cmdline"]
    # numa=off is said on every multi-socket host; it is the policy's own rule only where it removes it.
    yield from _numa_off(facts, any(a == "numa=off" and not w for a, w, _, _ in wanted))
    if not wanted:
        return
    mine = facts[NAME]
    if mine["error"]:
        yield Finding(id="cmdline.bootconfig-unreadable", severity="critical", area="kernel", target="bootloader",
                      rule="kernel.cmdline", message="%s; no boot argument is planned" % mine["error"])
        return
    cfg = config(facts)
    if cfg.kind == "none" and not cfg.default_grub_path and not cfg.kernel_cmdline_path:
        # THP has another keeper where a tuned profile route sets it ([vm] transparent_hugepages).
        thp = routes.route(facts, "kernel", "transparent_hugepage")
        if thp:
            wanted = [w for w in wanted if w[3] != "kernel.transparent_hugepage"]
            if not wanted:
                return
    listed = ", ".join(("+" if w else "-") + a for a, w, _, _ in wanted)
    if cfg.kind == "none" and not cfg.default_grub_path and not cfg.kernel_cmdline_path:
        yield from _no_bootloader(wanted, live, facts, outside=not mine.get("has_boot", True))
        return
    if cfg.kind == "none":
        # Only the files that feed later kernels and grub2-mkconfig: what the next boot gets is not known.
        yield Finding(id="cmdline.no-boot-entries", severity="warning", area="kernel", target="bootloader",
                      rule="kernel.cmdline",
                      message="no boot entries numatune can read (BLS entries, grub.cfg, grub.conf): %s is edited "
                              "in %s only, which the next boot does not read until grub2-mkconfig runs"
                              % (listed, " and ".join(p for p in (cfg.default_grub_path, cfg.kernel_cmdline_path)
                                                      if p)))
    elif cfg.boot_choice and cfg.kind == "grub2-legacy":
        yield Finding(id="cmdline.bootloader-file", severity="info", area="kernel", target=cfg.grub_cfg_path,
                      rule="kernel.cmdline", message=cfg.boot_choice)
    changed = set()
    for arg, present, why, rule in wanted:
        add, remove = ([arg], []) if present else ([], [arg])
        try:
            writes = writes_for(facts, cfg, add, remove)
        except BootConfigError as e:
            yield Finding(id="cmdline.cannot-edit:" + arg, severity="critical", area="kernel", target="bootloader",
                          rule=rule, message="cannot %s %s: %s" % ("add" if present else "remove", arg, e.message),
                          why=e.hint or "")
            continue
        # A HugePages pool's arguments: its family sets the pool live, so they matter at the next boot only.
        live_elsewhere = rule.startswith("hugepages.")
        booted_ok = live is None or _has(live, arg) == present or live_elsewhere
        verb = "add" if present else "remove"
        if writes:
            changed.add(arg)
            name = arg.split("=", 1)[0]
            old = sorted({a for e in cfg.entries for a in e.args if a == name or a.startswith(name + "=")})
            yield Change(
                id="cmdline.%s:%s" % (verb, arg), area="kernel", target="boot cmdline: %s" % arg,
                current=" ".join(old) if present else arg, desired=arg if present else "",
                scope="boot", action="%s %s in the bootloader (%s)" % (verb, arg, cfg.kind),
                reboot_required=True, risk="medium", why=why, rule=rule, writes=writes,
                running_ok=live_elsewhere or (live is not None and _has(live, arg) == present))
        elif cfg.kind == "none":
            if not booted_ok and cfg.grub_cfg_path:
                # A grub.cfg numatune cannot parse: what the next boot gets is
                # unknown, not "no longer has".
                yield Finding(id="cmdline.entries-unreadable:" + arg, severity="critical", area="kernel",
                              target=cfg.grub_cfg_path, rule=rule,
                              message="no boot entry numatune can read in %s: whether the next boot %s %s is "
                                      "unknown; check the bootloader by hand"
                                      % (cfg.grub_cfg_path, "has" if present else "drops", arg))
            continue  # nothing to edit, and nothing known about the next boot: a finding says so
        elif not booted_ok:
            yield Finding(id="cmdline.reboot-pending:" + arg, severity="warning", area="kernel",
                          target="/proc/cmdline", rule=rule, pending=True,
                          message="the bootloader %s %s, but the running kernel booted %s it: reboot to apply"
                                  % ("has" if present else "no longer has", arg,
                                     "without" if present else "with"))
        else:
            yield Compliant("cmdline.%s:%s" % (verb, arg), "%s %s at boot" % (arg, "present" if present
                                                                            else "absent"), "kernel",
                            kept_by=kept_by(cfg))
    yield from _entry_findings(cfg, [w for w in wanted if w[0] not in changed])


def booting_entries(cfg):
    """The entries a boot may take: a rescue entry keeps its own arguments, and is never the one that boots."""
    return [e for e in cfg.entries if not getattr(e, "rescue", False)]


def kept_by(cfg):
    """The bootloader files an argument is kept in, as `check` and apply's
    table name them: BLS entries by their directory (one file per kernel,
    each name longer than a line)."""
    from numatune.families.boot.bootloader import ENTRIES_DIR
    entries = [e.path for e in booting_entries(cfg)] if cfg.kind == "bls" else []
    files = list(dict.fromkeys(ENTRIES_DIR + "/" if f in entries else f for f in cfg.files))
    return "bootloader (%s)" % ", ".join(files) if files else "bootloader"


def _numa_off(facts, asked=True):
    live = facts["host"]["cmdline"]
    if live is None or "numa=off" not in live:
        return
    sockets = facts["topology"]["summary"].get("sockets") or 0
    pending = False
    if facts[NAME]["config"] is not None:
        cfg = config(facts)
        entries = booting_entries(cfg)
        pending = bool(entries) and not any(_has(e.args, "numa=off") for e in entries)
    message = "running with numa=off: the kernel sees %d node(s) on a %s-socket machine" % (
        len(facts["topology"]["nodes"]) or 1, sockets or "?")
    if pending:
        message += " (removed from the bootloader: clears at the next reboot)"
    yield Finding(id="cmdline.numa-off", severity="critical" if sockets > 1 and not pending else "warning",
                  area="kernel", target="/proc/cmdline", rule="kernel.cmdline.absent" if asked else "host.numa-off",
                  message=message)


def _entry_findings(cfg, wanted):
    from numatune.families.boot.bootloader_edit import missing_in_entries
    present = [a for a, w, _, _ in wanted if w]
    absent = [a for a, w, _, _ in wanted if not w]
    # Arguments a change of this plan edits are left out: the change says it.
    for path, problem in missing_in_entries(cfg, present, absent):
        yield Finding(id="cmdline.entry:%s:%s" % (path, problem.split()[-1]), severity="warning", area="kernel",
                      target=path, rule="kernel.cmdline", message="boot entry %s: %s" % (path, problem))


def _editor(kind):
    def editor(content, add, remove):
        # Imported on use: plan and check rarely need the editors.
        from numatune.families.boot import bootloader_edit
        if content is None:
            content = b"" if kind == "grubenv" else ""
        return bootloader_edit.EDITORS[kind](content, add, remove)
    editor.binary = kind == "grubenv"
    return editor


EDITORS = {"boot." + kind: _editor(kind) for kind in EDIT_KINDS}
