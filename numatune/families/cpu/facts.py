"""CPU power facts: cpufreq policies and governors, cpuidle driver and
states, and the processes holding /dev/cpu_dma_latency (a PM QoS request
that keeps CPUs out of deep C-states as long as the file stays open).

VMs usually have neither cpufreq nor cpuidle: empty results, not errors.
"""
import re

from numatune.facts.once import read_once
from numatune.facts.procs import table

CPU_DIR = "/sys/devices/system/cpu"
DMA_LATENCY = "/dev/cpu_dma_latency"
_POLICY, _STATE = re.compile(r"^policy\d+$"), re.compile(r"^state(\d+)$")
_POLICY_FILES = ("affected_cpus", "scaling_governor", "scaling_available_governors", "scaling_driver")
_STATE_FILES = ("latency", "name", "disable")


def read_cpufreq(root, online):
    """{"driver", "policies": [{"path", "cpus", "governor", "available"}]}.

    CPUs sharing a policy (cpuN/cpufreq -> ../cpufreq/policyM) are one entry:
    writing the governor once covers them all."""
    policies = {}
    driver = None
    base = CPU_DIR + "/cpufreq"
    online_set = set(online)
    # Policy directories list their CPUs; a snapshot keeps them even where it drops the
    # cpuN/cpufreq links. Each policy's files read in the listed directory (480 policies).
    found = root.read_values_under(base, _POLICY.match, _POLICY_FILES[:3])
    for name, texts in found.items():
        affected = texts["affected_cpus"]
        if affected:
            cpus = [int(c) for c in affected.split() if c.isdigit() and int(c) in online_set]
            if cpus:
                path = "%s/%s" % (base, name)
                policies[path] = {"path": path, "cpus": cpus, "governor": texts["scaling_governor"],
                                  "available": (texts["scaling_available_governors"] or "").split()}
                # The first policy of online CPUs that names its driver names it.
                driver = driver or root.read_value(path + "/scaling_driver")
    if policies:
        return {"driver": driver, "policies": sorted(policies.values(), key=lambda p: p["cpus"][0])}
    for cpu in online:
        path = "%s/cpu%d/cpufreq" % (CPU_DIR, cpu)
        if not root.isdir(path):
            continue
        real = root.realpath(path)
        entry = policies.get(real)
        if entry is None:
            entry = policies[real] = {
                "path": real, "cpus": [],
                "governor": root.read_value(real + "/scaling_governor"),
                "available": (root.read_value(real + "/scaling_available_governors") or "").split(),
            }
            driver = driver or root.read_value(real + "/scaling_driver")
        entry["cpus"].append(cpu)
    return {"driver": driver, "policies": sorted(policies.values(), key=lambda p: p["cpus"][0])}


def read_cpuidle(root, online):
    """{"driver", "governor", "cpus": {cpu: [{"index", "name", "latency", "disabled"}]}}, read once per
    run (the tuned family asks too)."""
    return read_once(root, ("cpuidle", tuple(online)), _read_cpuidle, root, online)


def _read_cpuidle(root, online):
    driver = root.read_value(CPU_DIR + "/cpuidle/current_driver")
    governor = root.read_value(CPU_DIR + "/cpuidle/current_governor_ro") or root.read_value(
        CPU_DIR + "/cpuidle/current_governor")
    cpus = {}
    match = _STATE.match
    for cpu in online:
        base = "%s/cpu%d/cpuidle/" % (CPU_DIR, cpu)
        # A CPU's states read in its cpuidle directory: 480 CPUs have 1,920 of them.
        found = root.read_values_under(base, match, _STATE_FILES)
        states = []
        for name, texts in found.items():
            latency = texts["latency"]
            states.append({"index": int(match(name).group(1)), "name": texts["name"] or name,
                           "latency": int(latency) if latency and latency.isdigit() else None,
                           "disabled": texts["disable"] == "1", "path": base + name + "/disable"})
        if states:
            cpus[str(cpu)] = sorted(states, key=lambda s: s["index"])
    if driver in (None, "none") and not cpus:
        driver = None
    return {"driver": driver, "governor": governor, "cpus": cpus}


def dma_latency_holders(root):
    """[{"pid", "comm"}] of processes with /dev/cpu_dma_latency open.

    The kernel keeps a process's PM QoS request while the file is open (tuned
    does this for force_latency), so it limits C-states as much as
    max_cstate does, whatever the cpuidle files say."""
    procs = table(root)
    return [{"pid": pid, "comm": procs.comm(pid) or "?"} for pid in procs.holding(DMA_LATENCY)]


def parse_hypervisor(text):
    """Whether /proc/cpuinfo's flags say a hypervisor runs this kernel (None: no flags to tell)."""
    flags = [line.split(":", 1)[1].split() for line in (text or "").splitlines()
             if line.startswith("flags") and ":" in line]
    return None if not flags else any("hypervisor" in f for f in flags)


def read(root, online):
    return {"cpufreq": read_cpufreq(root, online), "cpuidle": read_cpuidle(root, online),
            "dma_latency": dma_latency_holders(root),
            # Governor and C-states are the host's to set, not a guest's: recommend asks.
            "hypervisor": parse_hypervisor(root.read_text("/proc/cpuinfo"))}
