"""The cpu facts after apply's writes, from the plan's (verify).

numatune writes a cpufreq policy's governor and a cpuidle state's disable,
nothing else under /sys/devices/system/cpu: no write brings a CPU online,
makes a policy or a state, opens /dev/cpu_dma_latency or changes
/proc/cpuinfo. The whole read lists every CPU's cpuidle states, reads three
files of each and walks every process's descriptors for the latency
holders; so after such writes each policy's governor and each state's
disable are read again (apply/recent.py has them from verify's read-back)
and the rest is the plan's. A host tool run (tuned-adm), a write elsewhere
under the CPUs' directory, or online CPUs that are not the plan's read the
facts whole.
"""
from numatune.facts.once import read_once
from numatune.facts.topology import read_cpus
from numatune.families.cpu.facts import CPU_DIR

# The files under CPU_DIR a write may set and leave every other fact as it was.
SETTINGS = ("scaling_governor", "disable")


def reread(root, data, planned, ops):
    """knob.read(root, data) after ``ops``, or None when they may have changed more."""
    if not data.get("cpu") or not planned or not all(_keeps_the_rest(op) for op in ops):
        return None
    cpufreq, cpuidle = planned["cpufreq"], planned["cpuidle"]
    planned_cpus = {c for p in cpufreq["policies"] for c in p["cpus"]} | {int(c) for c in cpuidle["cpus"]}
    online = read_cpus(root)[1]
    if not planned_cpus or planned_cpus != set(online):
        return None
    policies = [dict(p, governor=root.read_value(p["path"] + "/scaling_governor")) for p in cpufreq["policies"]]
    cpus = {cpu: [dict(s, disabled=root.read_value(s["path"]) == "1") for s in states]
            for cpu, states in cpuidle["cpus"].items()}
    again = dict(cpuidle, cpus=cpus)
    # The C-states as read_cpuidle gives them this run (kept by read_once, a copy handed here): the tuned
    # family, read next, asks for them too (its max_cstate), and read every state's three files again.
    cpuidle = read_once(root, ("cpuidle", tuple(online)), lambda: again)
    return dict(planned, cpufreq=dict(cpufreq, policies=policies), cpuidle=cpuidle)


def _keeps_the_rest(op, under=CPU_DIR + "/"):
    if op.get("argv"):
        return False    # a host tool ran (tuned-adm sets governors and may hold the latency file)
    # Asked of each of a giant host's 35,000 writes: the path alone first, a list only for a coupled write.
    path = op.get("path") or ""
    if path.startswith(under) and path.rsplit("/", 1)[-1] not in SETTINGS:
        return False
    return all(not p.startswith(under) or p.rsplit("/", 1)[-1] in SETTINGS for p in op.get("coupled") or ())
