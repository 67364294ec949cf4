"""The boot part of `numatune facts --format policy`: Transparent HugePages'
mode (``kernel.transparent_hugepage``; the schema has no key for THP's
defrag), and in ``[kernel.cmdline]`` the tuning arguments the running kernel
booted with that every boot entry also carries (``present``), and numa=off
as ``absent`` when neither has it.

Only tuning arguments are said, by name (``TUNING``): a copy of the
reference host's root=, resume=, console= or crashkernel= would not boot
the hosts it is copied to. What the next boot would not keep the plan of
`facts --format policy` leaves out."""
from numatune.families.boot.cmdline import ARG

# Boot arguments that tune a host rather than say where its disks and consoles
# are (Documentation/admin-guide/kernel-parameters.txt). THP's mode is said as
# kernel.transparent_hugepage, and the HugePages pools by [hugepages]; numa=off,
# which numatune removes, is never copied.
TUNING = ("numa_balancing", "isolcpus", "nohz_full", "nohz", "rcu_nocbs", "rcu_nocb_poll", "irqaffinity",
          "intel_idle.max_cstate", "processor.max_cstate", "idle", "intel_pstate", "amd_pstate",
          "cpufreq.default_governor", "skew_tick", "tsc", "nosoftlockup", "nmi_watchdog", "elevator",
          "transparent_hugepage", "default_hugepagesz", "hugepagesz", "hugepages", "hugetlb_cma", "mitigations")
SAID_ELSEWHERE = ("transparent_hugepage", "default_hugepagesz", "hugepagesz", "hugepages")


def _entries(facts):
    config = (facts.get("boot") or {}).get("config") or {}
    return [e for e in config.get("entries") or [] if not e.get("rescue")]


def _cmdline(facts):
    live = facts["host"].get("cmdline")
    entries = _entries(facts)
    if live is None or not entries:
        return {}
    out = {}
    kept = [a for a in live if a.split("=", 1)[0] in TUNING and a.split("=", 1)[0] not in SAID_ELSEWHERE
            and ARG.pattern.match(a) and all(a in (e.get("args") or []) for e in entries)]
    if kept:
        out["present"] = sorted(set(kept))
    if "numa=off" not in live and not any("numa=off" in (e.get("args") or []) for e in entries):
        out["absent"] = ["numa=off"]
    return out


def as_policy(facts):
    """({"kernel": {...}}, {})."""
    kernel = {}
    thp = facts["host"].get("thp")
    if thp and thp.get("enabled") in ("always", "madvise", "never"):
        kernel["transparent_hugepage"] = thp["enabled"]
    cmdline = _cmdline(facts)
    if cmdline:
        kernel["cmdline"] = cmdline
    return ({"kernel": kernel} if kernel else {}), {}
