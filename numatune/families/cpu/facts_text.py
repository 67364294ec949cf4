"""The CPU power lines of `numatune facts`: governors and C-states, CPUs
that share them folded into one cpulist (480 CPUs read as one line)."""
from numatune.facts.cpulist import format_cpulist
from numatune.report.factlines import capped, line

NAME = "cpu"


def _by(pairs):
    """[(key, [cpus])] in first-appearance order."""
    out = {}
    for cpus, key in pairs:
        out.setdefault(key, []).extend(cpus)
    return list(out.items())


def _state(s):
    text = "%s %sus" % (s.get("name") or "state%s" % s.get("index"), "?" if s.get("latency") is None else s["latency"])
    return text + (" (disabled)" if s.get("disabled") else "")


def facts_lines(facts):
    mine = facts.get(NAME) or {}
    if not mine:
        return []
    freq, idle = mine.get("cpufreq") or {}, mine.get("cpuidle") or {}
    policies = freq.get("policies") or []
    out = ["CPU power: cpufreq %s, cpuidle %s" % (
        freq.get("driver") or ("none" if not policies else "?"),
        "%s (governor %s)" % (idle["driver"], idle.get("governor") or "?") if idle.get("driver") else "none")]
    groups = _by((p.get("cpus") or [], (p.get("governor"), tuple(p.get("available") or ()))) for p in policies)
    shown, rest = capped(groups, "CPUs")
    for (governor, available), cpus in shown:
        out += line("governor %s on CPUs %s (available: %s)" % (governor or "?", format_cpulist(sorted(cpus)),
                                                                  ", ".join(available) or "?"))
    if rest:
        out.append(rest)
    states = _by(([int(cpu)], tuple(_state(s) for s in row)) for cpu, row in (idle.get("cpus") or {}).items())
    shown, rest = capped(states, "CPUs")
    for row, cpus in shown:
        out += line("C-states on CPUs %s: %s" % (format_cpulist(sorted(cpus)), ", ".join(row)))
    if rest:
        out.append(rest)
    holders = mine.get("dma_latency") or []
    if holders:
        out += line("/dev/cpu_dma_latency held open by %s (a C-state limit while open)"
                    % ", ".join("%s (%s)" % (h.get("comm") or "?", h.get("pid")) for h in holders))
    elif "dma_latency" in mine:
        out += line("/dev/cpu_dma_latency: no process holds it open")
    return out
