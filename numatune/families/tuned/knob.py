"""Other tuners on the host: tuned (its active profile, or the one the policy
selects with ``[tuned] profile``), numad and irqbalance.

tuned: each knob the profile sets differently from the policy is a finding
that says who wins and when. Selecting a profile writes
/etc/tuned/active_profile (journaled); tuned applies it when it starts.
With ``persist = "profile"`` (the default where a profile is active) the
policy is kept by a child profile over it (``route``).
"""

from numatune.families.tuned import conflicts as tc
from numatune.families.tuned import mainconf
from numatune.families.tuned import route as tr
from numatune.facts.procs import table
from numatune.model import Change, Compliant, Finding, Write
from numatune.policy.schema import WHY, Scalar, Table
from numatune.rootfs.which import which

NAME = "tuned"
POLICY = {
    "tuned": Table({
        "profile": Scalar(str, pattern=r"^[A-Za-z0-9_.-]+( [A-Za-z0-9_.-]+)*$",
                          doc="a tuned profile name such as latency-performance (several: space-separated)"),
        "persist": Scalar(str, choices=("profile", "files"),
                          doc='"profile": a child tuned profile keeps the policy at boot (the default where a '
                              'profile is active); "files": sysctl.d, udev rules and the bootloader'),
        "why": WHY,
    }),
}
SERVICES = {"numad": "numad.service", "irqbalance": "irqbalance.service", "tuned": "tuned.service"}
WANTS_DIRS = ("/etc/systemd/system/multi-user.target.wants", "/etc/rc.d/rc3.d", "/etc/rc3.d")


def _relevant(data):
    return any(data.get(k) for k in ("sysctl", "kernel", "cpu", "tuned", "cpuset", "block"))


def running(root, names):
    """{name: [pids]} of processes by command name (/proc/PID/comm)."""
    return table(root).by_comm(names)


def enabled(root, name):
    unit = SERVICES[name]
    for d in WANTS_DIRS:
        if root.exists("%s/%s" % (d, unit)) or root.glob(d, "S??" + name):
            return True
    return False


def starter(root):
    """What starts tuned at boot: its systemd unit, enabled, or its SysV
    script's start link; "" for nothing."""
    link = "%s/%s" % (WANTS_DIRS[0], SERVICES["tuned"])
    # The link, not its target: a capture keeps the wants link without /usr/lib/systemd/system.
    if root.islink(link) or root.exists(link):
        return SERVICES["tuned"]
    return "the SysV script tuned" if enabled(root, "tuned") else ""


def read(root, data):
    if not _relevant(data):
        return {}
    active_text = root.read_text(tc.ACTIVE)
    tuned_dirs = [d for d in tc.PROFILE_DIRS if root.isdir(d)]
    wanted = (data.get("tuned") or {}).get("profile")
    active = tc.split_names(active_text)
    subdir = root.isdir("/usr/lib/tuned/profiles")
    child_text = root.read_text(tr.child_path({"profiles_subdir": subdir}))
    child_parent = tc.split_names(_include(child_text))
    # The profile the policy builds on: the one it names, else the active
    # one, or, once numatune's child is active, the one the child includes.
    parent = tc.split_names(wanted) if wanted else child_parent if active == [tr.CHILD] else active
    names = [tr.CHILD] if active == [tr.CHILD] and parent == child_parent else parent
    profile = tc.load_profile(root.read_text, names) if names else None
    procs = running(root, ("tuned", "numad", "irqbalance"))
    cpuidle = None
    if data.get("cpu", {}).get("max_cstate"):
        from numatune.families.cpu import facts as cpupower
        from numatune.facts.topology import read_cpus
        cpuidle = cpupower.read_cpuidle(root, read_cpus(root)[1])
    return {
        "installed": bool(tuned_dirs),
        "active": active,
        "mode": root.read_value(tc.MODE),
        "parent": parent,
        "profiles_subdir": subdir,
        "child": child_text,
        "tuned_adm": which("tuned-adm") if root.is_live else None,
        "profile": profile,
        "conflicts": tc.conflicts(data, profile, cpuidle) if profile else [],
        # Whether tuned writes sysctl.d's values again after its profile's (reapply_sysctl).
        "main": mainconf.read(root) if tuned_dirs else None,
        "running": procs,
        "numad_enabled": enabled(root, "numad"),
        "irqbalance_enabled": enabled(root, "irqbalance"),
        # Whether tuned starts at boot, loading the active profile: only then does a profile keep anything.
        "enabled": starter(root),
    }


def _include(text):
    return tc.parse_conf(text).get("main", {}).get("include", ("",))[0]


def resolve(data, facts):
    return tr.resolve(data, facts)


def diff(data, facts):
    mine = facts.get(NAME) or {}
    if not mine:
        return
    resolved = (facts.get("resolved") or {}).get(NAME) or {}
    route = resolved.get("route")
    yield from _select(data, mine, route)
    yield from _child(data, mine, resolved)
    yield from _conflicts(data, mine, route)
    yield from _others(data, mine)


def _select(data, mine, route):
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
    if route == "profile":
        return  # numatune's child profile includes it and is the one selected
    if mine["active"] == names:
        yield Compliant("tuned.profile", "tuned profile %s is active" % wanted, "kernel", kept_by=_loader(mine))
        return
    yield Change(id="tuned.profile", area="kernel", target=tc.ACTIVE, current=" ".join(mine["active"]) or None,
                 desired=" ".join(names), scope="persistent", risk="medium", restart_required=True,
                 action="select the tuned profile (applied when tuned starts: `systemctl restart tuned`)",
                 why=spec.get("why", ""), rule="tuned.profile",
                 writes=[Write(kind="file", path=tc.ACTIVE, editor="tuned_line", args={"value": " ".join(names)}),
                         Write(kind="file", path=tc.MODE, editor="tuned_line", args={"value": "manual"})])


def _child(data, mine, resolved):
    """numatune's child profile: written and selected, or said to be in place."""
    if (data.get("tuned") or {}).get("persist") == "profile" and resolved.get("route") is None:
        yield Finding(id="tuned.no-profile-to-include", severity="warning", area="kernel", target=tc.ACTIVE,
                      rule="tuned.persist",
                      message='[tuned] persist = "profile", but %s: the policy is kept by sysctl.d, udev rules '
                              'and the bootloader instead' % (
                                  "tuned is not installed" if not mine["installed"] else
                                  "no tuned profile is active or named by [tuned] profile" if not mine["parent"]
                                  else "tuned profile %s is not found" % " ".join(mine["parent"])
                                  if (mine.get("profile") or {}).get("missing") else
                                  "nothing starts tuned at boot (%s is not enabled)" % SERVICES["tuned"]))
        return
    if resolved.get("route") != "profile" or not resolved.get("units"):
        return
    path = tr.child_path(mine)
    active = mine["active"] == [tr.CHILD]
    content = resolved["content"]
    carried = [k for kind in resolved["routes"].values() for k, r in kind.items() if not r["kept"]]
    if active and mine["child"] == content:
        yield Compliant("tuned.persist", "tuned profile %s (%s) keeps the policy over %s"
                        % (tr.CHILD, path, resolved["parent"]), "kernel", kept_by=_loader(mine))
        return
    if not active and not carried:
        yield Compliant("tuned.persist", "tuned profile %s keeps the policy's sysctls already"
                        % " ".join(mine["active"]), "kernel", kept_by=_loader(mine))
        return
    writes = [Write(kind="file", path=path, editor="tuned_profile", args={"content": content})]
    if not active:
        writes += [Write(kind="file", path=tc.ACTIVE, editor="tuned_line", args={"value": tr.CHILD}),
                   Write(kind="file", path=tc.MODE, editor="tuned_line", args={"value": "manual"})]
    running = "tuned" in mine["running"] and mine.get("tuned_adm")
    if running:
        # The daemon applies the profile now; its own writes of the two files are journaled beforehand.
        writes.append(Write(kind="command", path="tuned-adm", argv=[mine["tuned_adm"], "profile", tr.CHILD],
                            files=[tc.ACTIVE, tc.MODE]))
    units = ", ".join(s for s, _ in resolved["units"])
    yield Change(id="tuned.persist", area="kernel", target=path, current=" ".join(mine["active"]) or None,
                 desired="%s (include=%s; %s)" % (tr.CHILD, resolved["parent"], units), scope="persistent",
                 risk="medium", restart_required=not running,
                 action="write tuned profile %s over %s and select it%s" % (
                     tr.CHILD, resolved["parent"], " (tuned-adm profile)" if running else
                     " (applied when tuned starts)"),
                 why=(data.get("tuned") or {}).get("why", "") or "tuned applies its profile when it starts: a child "
                                                                   "profile keeps the policy in tuned's own terms",
                 rule="tuned.persist", writes=writes)


def _loader(mine):
    """What loads the active profile at boot (tuned, started at boot, reads
    active_profile), or "" where nothing starts tuned."""
    if not mine.get("enabled"):
        return ""
    return "%s (%s: %s)" % (mine["enabled"], tc.ACTIVE, " ".join(mine["active"]))


def _conflicts(data, mine, route):
    profile = mine["profile"]
    if not profile or not profile["files"]:
        return
    name = " ".join(profile["names"])
    started = "tuned" in mine["running"]
    when = ("tuned is running and writes it whenever it starts" if started else
            "tuned writes it when it starts")
    for knob, theirs, ours, where, area in mine["conflicts"]:
        fid = "tuned.conflict:%s" % knob.replace(" ", "_")
        said = "tuned profile %s sets %s = %s (%s), the policy %s" % (name, knob, theirs, where, ours)
        if route == "profile":
            # The child profile sets the policy's value over it (boot arguments: the bootloader still has both).
            yield Finding(id=fid, severity="info", area=area, target=where, rule="tuned.profile",
                          message="%s: numatune's child profile %s overrides it" % (said, tr.CHILD))
            continue
        if knob.startswith("sysctl "):
            yield _sysctl_conflict(fid, said, knob[len("sysctl "):], ours, when, where, area, mine.get("main"))
            continue
        yield Finding(id=fid, severity="warning", area=area, target=where, rule="tuned.profile",
                      message="%s: %s, and nothing writes the policy's value after it, so tuned wins; change the "
                              "profile or select another with [tuned] profile" % (said, when))


def _sysctl_conflict(fid, said, key, ours, when, where, area, main):
    """What happens to a sysctl both set: tuned writes its value, then (its
    reapply_sysctl) the sysctl.d files again, where numatune keeps the
    policy's; or it does not, and tuned's value stays."""
    again, how = mainconf.reapplies(main, key)
    if again:
        return Finding(id=fid, severity="info", area=area, target=where, rule="tuned.profile",
                       message="%s: %s, then writes the sysctl.d files again (%s), so the policy's value "
                               "numatune keeps in sysctl.d wins" % (said, when, how))
    if again is None:
        return Finding(id=fid, severity="warning", area=area, target=where, rule="tuned.profile",
                       message="%s: %s; whether it then writes the sysctl.d files again is unknown (%s), so "
                               "tuned may win; change the profile or select another with [tuned] profile"
                               % (said, when, how))
    return Finding(id=fid, severity="warning", area=area, target=where, rule="tuned.profile",
                   message="%s: %s, after systemd-sysctl has read sysctl.d at boot, and does not write sysctl.d "
                           "again (%s), so tuned wins; change the profile or select another with [tuned] profile"
                           % (said, when, how))


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


def tuned_profile(text, content):
    """Editor: numatune's whole child profile (None removes it)."""
    return content


EDITORS = {"tuned_line": tuned_line, "tuned_profile": tuned_profile}


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
