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
    for name in root.listdir(base):
        # Policy directories list their CPUs; a snapshot keeps them even
        # where it drops the cpuN/cpufreq links.
        if not _POLICY.match(name):
            continue
        path = "%s/%s" % (base, name)
        # A policy's files in one go (Root.read_values: its directory opened once; 480 policies).
        texts = root.read_values(path, _POLICY_FILES if driver is None else _POLICY_FILES[:3])
        affected = texts["affected_cpus"]
        if affected:
            cpus = [int(c) for c in affected.split() if c.isdigit() and int(c) in online_set]
            if cpus:
                policies[path] = {"path": path, "cpus": cpus, "governor": texts["scaling_governor"],
                                  "available": (texts["scaling_available_governors"] or "").split()}
                driver = driver or texts.get("scaling_driver")
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
    for cpu in online:
        base = "%s/cpu%d/cpuidle" % (CPU_DIR, cpu)
        states = []
        for name in root.listdir(base):
            m = _STATE.match(name)
            if not m:
                continue
            d = "%s/%s" % (base, name)
            # A state's three files in one go: 480 CPUs have 2,000 states.
            texts = root.read_values(d, _STATE_FILES)
            latency = texts["latency"]
            states.append({"index": int(m.group(1)), "name": texts["name"] or name,
                           "latency": int(latency) if latency and latency.isdigit() else None,
                           "disabled": texts["disable"] == "1", "path": d + "/disable"})
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
