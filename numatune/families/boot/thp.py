"""Transparent HugePages: live through sysfs. The boot argument that keeps it
after a reboot is planned by the cmdline family from the same policy key."""
from numatune.facts import routes
from numatune.model import Change, Compliant, Finding, Write

NAME = "thp"
POLICY = {}  # kernel.transparent_hugepage is declared with the [kernel] table


def read(root, data):
    return {}


def diff(data, facts):
    desired = data.get("kernel", {}).get("transparent_hugepage")
    if desired is None:
        return
    why = data.get("kernel", {}).get("why", "")
    thp = facts["host"]["thp"]
    if thp is None:
        yield Finding(id="thp.unsupported", severity="info", area="memory", target="transparent_hugepage",
                      rule="kernel.transparent_hugepage",
                      message="this kernel has no transparent hugepages: nothing to set")
        return
    if thp["options"] and desired not in thp["options"]:
        yield Finding(id="thp.refused", severity="warning", area="memory", target=thp["path"],
                      rule="kernel.transparent_hugepage",
                      message="%s offers %s, not %r" % (thp["path"], " ".join(thp["options"]), desired))
        return
    if thp["enabled"] == desired:
        yield Compliant("thp.live", "transparent hugepages %s live" % desired, "memory")
        return
    yield Change(id="thp.live", area="memory", target=thp["path"], current=thp["enabled"], desired=desired,
                 scope="live", action="write %s" % thp["path"], why=why, rule="kernel.transparent_hugepage",
                 writes=[Write(kind="value", path=thp["path"], value=desired, format="bracket")],
                 # madvise gives huge pages only to regions that ask for them; an SGA in SysV shared
                 # memory does not (shmem has its own switch), so madvise left is not the stall of always.
                 drift_severity="warning" if thp["enabled"] == "madvise" else "")


def keepers(data, facts, boot_items):
    """What sets the THP mode again at boot: its boot argument, once the
    bootloader has it (in place, or written by this plan and waiting for the
    reboot), or the boot unit where no bootloader can hold it, and a tuned
    profile's [vm] where one carries it."""
    arg = "transparent_hugepage=%s" % (data.get("kernel") or {}).get("transparent_hugepage")
    out = []
    for item in boot_items:
        name = item.rule if isinstance(item, Compliant) else item.id
        if name == "thp.boot" and isinstance(item, Compliant):
            out.append(item.kept_by)  # no bootloader numatune edits: the boot unit writes the mode
            continue
        if name.partition(":")[2] != arg:
            continue
        if isinstance(item, Compliant) and name.startswith("cmdline.add:"):
            out.append(item.kept_by)
        elif (isinstance(item, Change) and item.id.startswith("cmdline.add:")) or \
                (isinstance(item, Finding) and item.id.startswith("cmdline.reboot-pending:")):
            from numatune.families.boot import cmdline
            out.append(cmdline.kept_by(cmdline.config(facts)))
    found = routes.route(facts, "kernel", "transparent_hugepage")
    if found:
        out.append(found["by"])
    return list(dict.fromkeys(o for o in out if o))


EDITORS = {}
