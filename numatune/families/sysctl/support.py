"""Is a sysctl missing from /proc/sys because the kernel lacks it, or only
because a capture did not keep it?

On the live host a missing file is the kernel's answer. Under ``--root``
the snapshot's manifest says what it tried (a file tried and absent was
absent on the host); without one, the kernel version decides for the keys
whose history is known, and otherwise the plan says it cannot tell.
"""
import os
import re

# key -> (first kernel that has it, first kernel that no longer has it in /proc/sys).
HISTORY = {
    "kernel.numa_balancing": ((3, 8), None),
    "vm.zone_reclaim_mode": ((2, 6, 16), None),
    "vm.min_unmapped_ratio": ((2, 6, 19), None),
    "vm.numa_stat": ((4, 16), None),
    "kernel.sched_autogroup_enabled": ((2, 6, 38), None),
    # Moved to /sys/kernel/debug/sched in 5.13 (RHEL 9 has them there, not in /proc/sys).
    "kernel.sched_min_granularity_ns": ((2, 6, 23), (5, 13)),
    "kernel.sched_wakeup_granularity_ns": ((2, 6, 23), (5, 13)),
    "kernel.sched_latency_ns": ((2, 6, 23), (5, 13)),
    "kernel.sched_migration_cost_ns": ((3, 8), (5, 13)),
    "kernel.sched_nr_migrate": ((2, 6, 25), (5, 13)),
}


def parse_release(text):
    """"3.10.0-1160.el7.x86_64" -> (3, 10, 0); None when it does not start with numbers."""
    m = re.match(r"^\s*(?:Linux version\s+)?(\d+)\.(\d+)(?:\.(\d+))?", text or "")
    return tuple(int(g) for g in m.groups() if g is not None) if m else None


def _tried(patterns, path):
    directory, name = os.path.split(path)
    for where, regex, descend in patterns:
        if where == directory and re.search(regex, name):
            return True
        if descend and path.startswith(where.rstrip("/") + "/"):
            return True
    return False


def support(key, path, live, patterns, release):
    """("no" | "yes" | "unknown", why) for a key whose /proc/sys file is missing."""
    version = parse_release(release)
    shown = release or "unknown"
    if live:
        return "no", "%s is missing on the running kernel %s" % (path, shown)
    if patterns is not None and _tried(patterns, path):
        return "no", "the snapshot read %s and kernel %s had none" % (os.path.dirname(path), shown)
    history = HISTORY.get(key)
    if history and version:
        first, gone = history
        if version < first:
            return "no", "kernel %s predates it (added in %s)" % (shown, ".".join(map(str, first)))
        if gone and version >= gone:
            return "no", "kernel %s keeps it in debugfs, not /proc/sys (moved in %s)" % (
                shown, ".".join(map(str, gone)))
        return "yes", "kernel %s has it, but this capture did not keep %s" % (shown, path)
    return "unknown", "this capture did not keep %s and numatune does not know kernel %s's %s" % (path, shown, key)
