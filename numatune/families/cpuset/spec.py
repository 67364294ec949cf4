"""What one [[cpuset]] asks for, in the words and values both of its routes
use: the live cgroup (knob.py) and the persistent group or slice (persist.py)."""
from numatune.facts.cpulist import format_cpulist
from numatune.families.cpuset import facts as cgroups
from numatune.model import Finding


def _finding(name, key, severity, message, rule="cpuset"):
    return Finding(id="cpuset.%s:%s" % (key, name), severity=severity, area="cpu", target="cpuset " + name,
                   rule=rule, message="cpuset %s: %s" % (name, message))


def _owner_ids(spec, mine):
    """(uid, gid) numbers, or a problem message."""
    owner = spec.get("owner")
    if not owner:
        return None, None
    out = []
    for key, table, path in (("uid", mine["users"], cgroups.PASSWD), ("gid", mine["groups"], cgroups.GROUP)):
        value = owner[key]
        if isinstance(value, int):
            out.append(value)
        elif value in table:
            out.append(table[value])
        else:
            return "%s %r is not in %s" % ("user" if key == "uid" else "group", value, path), None
    return out[0], out[1]


def _settings(spec, cpus, mems, hierarchy):
    prefix = hierarchy["prefix"]
    out = [[prefix + "cpus", format_cpulist(cpus)], [prefix + "mems", format_cpulist(mems)]]
    if hierarchy["version"] == 1:
        if "memory_migrate" in spec:
            out.append([prefix + "memory_migrate", "1" if spec["memory_migrate"] else "0"])
        if "cpu_exclusive" in spec:
            out.append([prefix + "cpu_exclusive", "1" if spec["cpu_exclusive"] else "0"])
    return out


# Said when the policy gives no why: what each kind of change is for.
WHY_DEFAULT = {
    "enable": "child cgroups get a cpuset only where the parent enables the controller",
    "create": "Oracle's processor_group_name binds the instance to this cpuset's CPUs and memory nodes "
              "(it refuses to start without it: ORA-56729)",
    "cpus": "the instance runs on the CPUs of the nodes that hold its memory",
    "mems": "the instance's memory stays on the nodes of its CPUs: a remote SGA did 2.15x fewer logical reads "
            "per second (000_bee41b021388c063.txt)",
    "memory_migrate": "pages move with the cpuset's mems, so an instance's SGA follows its nodes",
    "cpu_exclusive": "no other cpuset shares these CPUs with the instance",
    "mem_exclusive": "no other cpuset shares these memory nodes with the instance",
    "owner": "the instance's user must own the cpuset to join it (ORA-56729 otherwise)",
    "persist": "a live cpuset is gone after a reboot, and the instance bound to it would not start",
}


def _why(spec, what):
    return spec.get("why") or WHY_DEFAULT.get(what, WHY_DEFAULT["cpus"])
