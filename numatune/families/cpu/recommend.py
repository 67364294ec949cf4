"""What `numatune recommend` says about the CPU governor and C-states: on
bare metal only (a guest's vCPUs are the hypervisor's to clock and idle)."""
from numatune.recommend.entry import SUPERDOME, Entry, note



def recommend(facts):
    cpu = facts.get("cpu") or {}
    if cpu.get("hypervisor") is not False:
        if cpu.get("hypervisor"):
            yield note("cpu", "A hypervisor runs this kernel: governor and C-states are the host's to set, not "
                       "this guest's; nothing set.")
        return
    policies = (cpu.get("cpufreq") or {}).get("policies") or []
    governors = sorted({p.get("governor") or "?" for p in policies})
    if policies and all("performance" in p.get("available", ()) for p in policies):
        if governors != ["performance"]:
            yield Entry(table="cpu", key="governor", value="performance", source=(SUPERDOME,), plans=("cpu.",), note=(
                "Now: cpufreq governor %s on %d policies." % ("/".join(governors), len(policies)),
                "%s runs Oracle with the CPUs at full clock (the tuned latency-performance/network-latency "
                "profiles it recommends; its Table 8 low set used powersave). The paper gives no figure for "
                "this setting alone; it costs power on every socket." % SUPERDOME))
    elif policies:
        yield note("cpu", "cpufreq offers no performance governor here (%s): nothing set." % "/".join(governors))
    idle = cpu.get("cpuidle") or {}
    if idle.get("driver") in ("intel_idle", "acpi_idle"):
        yield Entry(table="cpu", key="max_cstate", value=1, source=(SUPERDOME,), note=(
            "Now: cpuidle driver %s, C-states not limited by numatune." % idle["driver"],
            "%s allows only C-state 1 (intel_idle.max_cstate=1) so cores stay ready and turbo clocks up; no "
            "figure for it alone. A boot argument: it takes effect at the next boot." % SUPERDOME),
            question="Does the site's power and cooling budget allow every core to stay out of deep C-states?")
