"""What `numatune recommend` says about the CPU governor and C-states: on
bare metal only (a guest's vCPUs are the hypervisor's to clock and idle)."""
from numatune.families.cpu.knob import BOOT_PARAM
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
    driver = idle.get("driver")
    if driver not in BOOT_PARAM:
        return
    cmdline = (facts.get("host") or {}).get("cmdline") or []
    limits = [a for a in cmdline if a.split("=")[0] in BOOT_PARAM.values() and a.partition("=")[2].isdigit()]
    if limits and all(int(a.partition("=")[2]) <= 1 for a in limits):
        yield note("cpu", "Now: %s on the kernel command line already keeps C-states to C1, as %s recommends; "
                   "nothing more to set." % (" ".join(limits), SUPERDOME), source=(SUPERDOME,))
        return
    yield Entry(table="cpu", key="max_cstate", value=1, source=(SUPERDOME,), note=(
        "Now: cpuidle driver %s, C-states not limited%s." % (driver, " (%s)" % " ".join(limits) if limits else ""),
        "%s allows only C-state 1 (for the %s driver: %s=1) so cores stay ready and turbo clocks up; no figure "
        "for it alone. A boot argument: it takes effect at the next boot." % (SUPERDOME, driver, BOOT_PARAM[driver])),
        question="Does the site's power and cooling budget allow every core to stay out of deep C-states?")
