"""Whether the next boot still has numa=off, for the families whose settings
are bound to nodes the running kernel hides (the resolve step: this family
alone reads the bootloader). The topology itself is the core's
(numatune.facts.nextboot)."""
from numatune.errors import BootConfigError
from numatune.facts import nextboot, srat
from numatune.families.boot import cmdline
from numatune.model import Finding


def _stays(data, facts):
    """(True when the next boot keeps numa=off, how it goes otherwise)."""
    mine = facts.get(cmdline.NAME) or {}
    if mine.get("error") or not mine.get("config"):
        return True, ""     # the bootloader was not read: what the next boot gets is not known
    cfg = cmdline.config(facts)
    entries = cmdline.booting_entries(cfg)
    if entries and not any(cmdline._has(e.args, nextboot.NUMA_OFF) for e in entries):
        return False, "numa=off is gone from the bootloader's entries"
    wanted = [(a, w) for a, w, _, _ in cmdline.boot_args(data, {}) if a == nextboot.NUMA_OFF]
    if not entries or wanted != [(nextboot.NUMA_OFF, False)]:
        return True, ""
    try:
        writes = cmdline.writes_for(facts, cfg, [], [nextboot.NUMA_OFF])
    except BootConfigError:
        return True, ""     # the plan cannot remove it: its own critical finding says why
    if not writes:
        return True, ""
    return False, "the plan removes numa=off from the bootloader (%s)" % cfg.kind


def resolve(data, facts):
    """{"next_topology": numatune.facts.nextboot.topology(...)}: None when the
    next boot shows the nodes this one shows."""
    live = (facts.get("host") or {}).get("cmdline")
    if not nextboot.hidden(live):
        return {"next_topology": None}
    stays, why = _stays(data, facts)
    return {"next_topology": nextboot.topology(facts.get("topology"), live, stays, why)}


def next_topology(facts):
    """What another family reads: the resolved next-boot topology, or None."""
    return ((facts.get("resolved") or {}).get(cmdline.NAME) or {}).get("next_topology")


def findings(facts):
    """The one finding that the node count after the reboot is unknown."""
    later = next_topology(facts)
    if later and not later["known"]:
        yield Finding(id="cmdline.next-nodes-unknown", severity="info", area="kernel", target=srat.SRAT,
                      rule="kernel.cmdline.absent",
                      message=later["why"] + "; a setting bound to a node this kernel does not show is planned as "
                                             "today (refused) until the reboot shows the nodes")
