"""The cpuset lines of `numatune facts`: the hierarchy, each cpuset the
policy names (or that it is missing), the other cpusets that hold CPUs, and
what persists them (libcgroup files, systemd slices)."""
from numatune.facts.cpulist import format_cpulist
from numatune.report.factlines import capped, fold, line, listing, names, plural

NAME = "cpuset"


def _owner(entry, users, groups):
    by_uid = {v: k for k, v in (users or {}).items()}
    by_gid = {v: k for k, v in (groups or {}).items()}
    uid, gid = entry.get("uid"), entry.get("gid")
    if uid is None:
        return ""
    return ", owner %s:%s" % (by_uid.get(uid, uid), by_gid.get(gid, gid))


def _state(entry, users, groups):
    text = "CPUs %s, memory nodes %s" % (entry.get("cpus") or "(none)", entry.get("mems") or "(none)")
    if entry.get("effective_cpus") not in (None, entry.get("cpus")):
        text += " (effective CPUs %s)" % (entry["effective_cpus"] or "(none)")
    flags = [k for k in ("memory_migrate", "cpu_exclusive") if entry.get(k) == "1"]
    text += ", %s" % plural(len(entry.get("tasks") or ()), "task")
    return text + ("; " + ", ".join(flags) if flags else "") + _owner(entry, users, groups)


def facts_lines(facts):
    mine = facts.get(NAME) or {}
    if not mine:
        return []
    h = mine.get("hierarchy")
    if not h:
        out = ["cpusets: no cpuset hierarchy mounted"]
    else:
        top = mine.get("top") or {}
        # v2's root cgroup has only the effective lists.
        cpus = top.get("cpus") or top.get("effective_cpus") or "?"
        mems = top.get("mems") or top.get("effective_mems") or "?"
        out = ["cpusets: cgroup v%s at %s (CPUs %s, memory nodes %s)" % (h.get("version"), h.get("mount"), cpus, mems)]
    users, groups = mine.get("users"), mine.get("groups")
    for name, entry in sorted((mine.get("cpusets") or {}).items()):
        if entry.get("missing"):
            out += line("%s: missing (%s)" % (name, entry.get("path")))
        else:
            out += line("%s: %s" % (name, _state(entry, users, groups)))
    others = mine.get("others") or {}
    if others:
        out += line("%s the policy does not name:" % plural(len(others), "other cpuset"))
        shown, rest = capped(fold(others, lambda o: (format_cpulist(o.get("cpus") or []) or "(none)",
                                                     bool(o.get("cpu_exclusive")))), "cpusets")
        for (cpus, exclusive), members in shown:
            out += line("%s: CPUs %s%s" % (names(members), cpus, ", cpu_exclusive" if exclusive else ""), indent=4)
        if rest:
            out.append(rest)
    cgconfig = mine.get("cgconfig") or {}
    if cgconfig.get("files"):
        out += listing("libcgroup files", sorted(cgconfig["files"]))
    elif cgconfig.get("used"):
        out += line("libcgroup: /etc/cgconfig.d exists, no files in it")
    if mine.get("slices"):
        out += line("%s: %s" % (plural(len(mine["slices"]), "systemd slice file"),
                                names(sorted(mine["slices"]))))
    return out
