"""The topology after apply's writes, from the plan's (verify).

A CPU's package, core, die and siblings change only when a CPU comes or
goes (its ``online`` file, a host tool): the whole read opened every CPU's
topology directory again (480 on the bench host, 0.05 s) after writes that
cannot move them. Writes inside a CPU's or a policy's cpufreq and cpuidle
directories keep them; any other write under the CPUs' directory, or a
host tool run, reads the topology whole. The nodes, their memory and the
HugePages pools (a pool write changes them) are read again as always."""
from numatune.facts import topology
from numatune.facts.cpulist import parse_cpulist
from numatune.facts.once import read_once

_UNDER = topology.CPU_DIR + "/"
# Directories under CPU_DIR whose files set frequency and idle states, never which CPUs there are.
_KEEPING = ("cpufreq", "cpuidle")


def keeps_ids(op):
    """Whether the journal op ``op`` leaves every CPU's ids as they were."""
    if op.get("argv"):
        return False
    # Asked of each of a giant host's 35,000 writes: the path alone first, a list only for a coupled write.
    return _keeps(op.get("path") or "") and all(_keeps(p) for p in op.get("coupled") or ())


def _keeps(path):
    if not path.startswith(_UNDER):
        return True
    return any(part in _KEEPING for part in path[len(_UNDER):].split("/")[:-1])


def reread(root, planned, ops):
    """topology.read(root) after ``ops`` with the CPUs' ids and threads from
    the plan's topology ``planned`` (what read_cpus gives the families this
    run too), or None to read it whole. The online CPUs are read again and
    must be the plan's."""
    if not planned or not all(keeps_ids(op) for op in ops):
        return None
    cpus, online = planned.get("cpus"), planned.get("online")
    path = topology.CPU_DIR + "/online"
    text = root.read_value(path)
    if not isinstance(cpus, dict) or not text or topology._parsed(parse_cpulist, root, path, text) != online:
        return None
    read_once(root, "cpus", lambda: (cpus, online))     # handed out as copies, as read_cpus hands them
    return topology.read(root)
