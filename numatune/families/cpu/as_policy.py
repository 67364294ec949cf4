"""The CPU part of `numatune facts --format policy`: the cpufreq governor
when every policy runs the same one, and ``max_cstate`` when the host limits
C-states: every state deeper than some stateN is disabled on every CPU
(a host with none disabled has no limit to state). What the next boot would
not keep (no boot argument, tuned profile or boot unit sets it again) the
plan of `facts --format policy` leaves out."""


def _limit(cpuidle):
    """The deepest enabled state's index when all deeper ones are disabled on every CPU, else None."""
    deepest, limited = None, False
    for states in (cpuidle.get("cpus") or {}).values():
        enabled = [s["index"] for s in states if s["name"] != "POLL" and not s["disabled"]]
        disabled = [s["index"] for s in states if s["name"] != "POLL" and s["disabled"]]
        top = max(enabled) if enabled else None
        if top is None or any(i < top for i in disabled):
            return None  # a hole, or nothing enabled: not a limit max_cstate says
        if deepest not in (None, top):
            return None
        deepest, limited = top, limited or bool(disabled)
    return deepest if limited and deepest and deepest >= 1 else None


def as_policy(facts):
    """({"cpu": {...}}, {})."""
    mine = facts.get("cpu") or {}
    out = {}
    governors = {p.get("governor") for p in (mine.get("cpufreq") or {}).get("policies") or []}
    if len(governors) == 1 and None not in governors:
        out["governor"] = governors.pop()
    limit = _limit(mine.get("cpuidle") or {})
    if limit is not None:
        out["max_cstate"] = limit
    return ({"cpu": out} if out else {}), {}
