"""The tuned lines of `numatune facts`: the active profile and its files,
the other tuners running or enabled, and where the profile disagrees with
the policy."""
from numatune.report.factlines import line, listing, plural

NAME = "tuned"
TUNERS = ("tuned", "numad", "irqbalance")


def facts_lines(facts):
    mine = facts.get(NAME) or {}
    if not mine:
        return []
    active = " ".join(mine.get("active") or []) or "none"
    out = ["tuned: %s, active profile %s%s" % ("installed" if mine.get("installed") else "not installed", active,
                                               " (%s)" % mine["mode"] if mine.get("mode") else "")]
    profile = mine.get("profile") or {}
    if profile.get("files"):
        out += listing("profile files", profile["files"])
    if profile.get("missing"):
        out += line("profiles not found: " + ", ".join(profile["missing"]))
    if mine.get("main") is not None and mine.get("installed"):
        from numatune.families.tuned import mainconf
        again, how = mainconf.reapplies(mine["main"], "")
        out += line("sysctl.d written again after the profile: %s (%s)"
                    % ({True: "yes", False: "no"}.get(again, "unknown"), how))
    running = mine.get("running") or {}
    states = []
    for name in TUNERS:
        pids = running.get(name) or []
        state = "running (pid %s)" % ", ".join(str(p) for p in pids) if pids else "not running"
        enabled = mine.get("%s_enabled" % name)
        if enabled is not None:
            state += ", %s at boot" % ("enabled" if enabled else "not enabled")
        states.append("%s %s" % (name, state))
    out += line("; ".join(states))
    conflicts = mine.get("conflicts") or []
    if conflicts:
        out += line("%s the policy:" % plural(len(conflicts), "setting differs from", "settings differ from"))
        for knob, theirs, ours, where, _area in conflicts:
            out += line("%s: tuned %s, policy %s (%s)" % (knob, theirs, ours, where), indent=4)
    return out
