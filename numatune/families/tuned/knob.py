"""Other tuners on the host: tuned (its active profile, or the one the policy
selects with ``[tuned] profile``), numad and irqbalance.

tuned: each knob the profile sets differently from the policy is a finding
that says who wins and when. Selecting a profile writes
/etc/tuned/active_profile (journaled); tuned applies it when it starts.
"""
from numatune.families.tuned import conflicts as tc
from numatune.facts.procs import table
from numatune.model import Change, Compliant, Finding, Write
from numatune.policy.schema import WHY, Scalar, Table

NAME = "tuned"
POLICY = {
    "tuned": Table({
        "profile": Scalar(str, pattern=r"^[A-Za-z0-9_.-]+( [A-Za-z0-9_.-]+)*$",
                          doc="a tuned profile name such as latency-performance (several: space-separated)"),
        "why": WHY,
    }),
}
SERVICES = {"numad": "numad.service", "irqbalance": "irqbalance.service"}
WANTS_DIRS = ("/etc/systemd/system/multi-user.target.wants", "/etc/rc.d/rc3.d", "/etc/rc3.d")


def _relevant(data):
    return any(data.get(k) for k in ("sysctl", "kernel", "cpu", "tuned", "cpuset"))


def running(root, names):
    """{name: [pids]} of processes by command name (/proc/PID/comm)."""
    return table(root).by_comm(names)


def enabled(root, name):
    unit = SERVICES[name]
    for d in WANTS_DIRS:
        if root.exists("%s/%s" % (d, unit)) or root.glob(d, "S??" + name):
            return True
    return False


def read(root, data):
    if not _relevant(data):
        return {}
    active_text = root.read_text(tc.ACTIVE)
    tuned_dirs = [d for d in tc.PROFILE_DIRS if root.isdir(d)]
    wanted = (data.get("tuned") or {}).get("profile")
    names = tc.split_names(wanted) if wanted else tc.split_names(active_text)
    profile = tc.load_profile(root.read_text, names) if names else None
    procs = running(root, ("tuned", "numad", "irqbalance"))
    cpuidle = None
    if data.get("cpu", {}).get("max_cstate"):
        from numatune.families.cpu import facts as cpupower
        from numatune.facts.topology import read_cpus
        cpuidle = cpupower.read_cpuidle(root, read_cpus(root)[1])
    return {
        "installed": bool(tuned_dirs),
        "active": tc.split_names(active_text),
        "mode": root.read_value(tc.MODE),
        "profile": profile,
        "conflicts": tc.conflicts(data, profile, cpuidle) if profile else [],
        "running": procs,
        "numad_enabled": enabled(root, "numad"),
        "irqbalance_enabled": enabled(root, "irqbalance"),
    }


def diff(data, facts):
    mine = facts.get(NAME) or {}
    if not mine:
        return
    yield from _select(data, mine)
    yield from _conflicts(data, mine)
    yield from _others(data, mine)


def _select(data, mine):
    spec = data.get("tuned") or {}
    wanted = spec.get("profile")
    if not wanted:
        return
    profile = mine["profile"] or {"missing": [], "files": []}
    if not mine["installed"]:
        yield Finding(id="tuned.not-installed", severity="warning", area="kernel", target="tuned",
                      rule="tuned.profile", message="[tuned] profile = %r, but tuned is not installed (no %s)"
                      % (wanted, " or ".join(tc.PROFILE_DIRS[-2:])))
        return
    if profile["missing"]:
        yield Finding(id="tuned.unknown-profile", severity="critical", area="kernel", target="tuned",
                      rule="tuned.profile", message="tuned profile %s not found in %s: not selected"
                      % (", ".join(profile["missing"]), ", ".join(tc.PROFILE_DIRS)))
        return
    names = tc.split_names(wanted)
    if mine["active"] == names:
        yield Compliant("tuned.profile", "tuned profile %s is active" % wanted, "kernel")
        return
    yield Change(id="tuned.profile", area="kernel", target=tc.ACTIVE, current=" ".join(mine["active"]) or None,
                 desired=" ".join(names), scope="persistent", risk="medium", restart_required=True,
                 action="select the tuned profile (applied when tuned starts: `systemctl restart tuned`)",
                 why=spec.get("why", ""), rule="tuned.profile",
                 writes=[Write(kind="file", path=tc.ACTIVE, editor="tuned_line", args={"value": " ".join(names)}),
                         Write(kind="file", path=tc.MODE, editor="tuned_line", args={"value": "manual"})])


def _conflicts(data, mine):
    profile = mine["profile"]
    if not profile or not profile["files"]:
        return
    name = " ".join(profile["names"])
    started = "tuned" in mine["running"]
    when = ("tuned is running and re-applies it whenever it starts" if started else
            "tuned applies it when it starts")
    for knob, theirs, ours, where, area in mine["conflicts"]:
        yield Finding(id="tuned.conflict:%s" % knob.replace(" ", "_"), severity="warning", area=area,
                      target=where, rule="tuned.profile",
                      message="tuned profile %s sets %s = %s (%s), the policy %s: %s (after sysctl.d at boot), so "
                              "tuned wins; change the profile or select another with [tuned] profile"
                              % (name, knob, theirs, where, ours, when))


def _others(data, mine):
    running_ = mine["running"]
    if data.get("cpuset") and ("numad" in running_ or mine["numad_enabled"]):
        state = "running (pid %d)" % running_["numad"][0] if "numad" in running_ else "enabled at boot"
        yield Finding(id="tuned.numad", severity="warning", area="cpu", target="numad", rule="cpuset",
                      message="numad is %s: it moves processes and memory between nodes and rewrites "
                              "cpusets, against the policy's [[cpuset]] placement; disable it" % state)
    exclusive = [c["name"] for c in data.get("cpuset", []) if c.get("cpu_exclusive")]
    if exclusive and ("irqbalance" in running_ or mine["irqbalance_enabled"]):
        yield Finding(id="tuned.irqbalance", severity="info", area="cpu", target="irqbalance", rule="cpuset",
                      message="irqbalance spreads interrupts over every CPU, including cpuset %s's: ban them "
                              "with IRQBALANCE_BANNED_CPULIST if the CPUs are meant to be guaranteed"
                              % ", ".join(exclusive))


def tuned_line(text, value):
    return value + "\n"


EDITORS = {"tuned_line": tuned_line}


def _subjects(change):
    """The names a tuned profile line could use for what ``change`` sets."""
    out = [change.target]
    for write in change.writes:
        if write.args.get("key"):
            out.append(write.args["key"])
        if write.kind == "value" and write.path.startswith("/proc/sys/"):
            out.append(write.path[len("/proc/sys/"):].replace("/", "."))
    return [s for s in out if s]


def rivals(change, plan, facts):
    """The active tuned profile's lines that set what ``change`` sets."""
    subjects = _subjects(change)
    return ["WARNING: %s" % f.message for f in plan.findings
            if f.id.startswith("tuned.conflict:") and any(s in f.message for s in subjects)
            and not (change.rule and f.rule == change.rule) and f.target != change.target]
