"""A cpuset on nodes the running kernel hides (booted with numa=off) but the
next boot will have (numatune.facts.nextboot: the firmware's SRAT, once
numa=off leaves the bootloader): its persistent form (the systemd slice or
the cgconfig group) is written for that boot, with the CPUs the firmware
gives those nodes; the live cgroup waits for the reboot, pending. Where the
next boot's CPUs of a node are not known (no APIC id in /proc/cpuinfo) or
nothing keeps a cpuset at boot, today's refusal stands."""
from numatune.facts.cpulist import format_cpulist, parse_cpulist
from numatune.families.boot.nextboot import next_topology
from numatune.model import Finding


def _ids(spec):
    return list(spec["nodes"]) if "nodes" in spec else parse_cpulist(spec["mems"])


def plan(spec, mine, facts, persist, mode):
    """The items for ``spec`` when it names nodes only the next boot has, else
    None (planned as today). ``persist(spec, cpus, mems, mine)`` and
    ``mode(spec, mine)`` are the family's own."""
    later = next_topology(facts)
    if not later or not later["known"]:
        return None
    ids = [str(n) for n in _ids(spec)]
    hidden = [n for n in ids if n not in facts["topology"]["nodes"]]
    if not hidden or any(n not in later["nodes"] for n in ids) or mode(spec, mine) == "none":
        return None
    if "nodes" in spec:
        unmapped = [n for n in ids if later["nodes"][n]["cpus"] is None]
        if unmapped:
            return [Finding(
                id="cpuset.unresolvable:" + spec["name"], severity="critical", area="cpu",
                target="cpuset " + spec["name"], rule="cpuset",
                message="cpuset %s: node %s is hidden by numa=off on this boot; %s, but not which CPUs node %s "
                        "holds (no APIC id of it in /proc/cpuinfo): not planned" % (
                            spec["name"], ",".join(hidden), later["why"], ",".join(unmapped)),
                why="give cpus and mems explicitly, or apply again after the reboot")]
        cpus = sorted({c for n in ids for c in later["nodes"][n]["cpus"]})
    else:
        cpus = parse_cpulist(spec["cpus"])
    mems = sorted(int(n) for n in ids)
    items = list(persist(spec, cpus, mems, mine))
    keeper = next((getattr(i, "target", None) or i.kept_by for i in items
                   if getattr(i, "rule", None) == "cpuset.persist:" + spec["name"]
                   or getattr(i, "id", None) == "cpuset.persist:" + spec["name"]), "its boot file")
    items.insert(0, Finding(
        id="cpuset.next-boot:" + spec["name"], severity="warning", area="cpu", pending=True,
        target="cpuset " + spec["name"], rule="cpuset",
        message="cpuset %s: cpus %s, mems %s are planned for the next boot only (%s): waits for the reboot that "
                "removes numa=off (%s); the live cpuset is left as it is until then" % (
                    spec["name"], format_cpulist(cpus), format_cpulist(mems), keeper, later["why"])))
    return items
