"""The sysctl lines of `numatune facts`: the live value of each key the
policy names, and the files systemd-sysctl reads at boot, in its order."""
from numatune.families.sysctl.facts import OURS
from numatune.report.factlines import capped, line, plural
from numatune.report.grouped import value

NAME = "sysctl"


def facts_lines(facts):
    mine = facts.get(NAME) or {}
    live = mine.get("live") or {}
    files = mine.get("files") or []
    if not live and not any(f.get("exists") for f in files):
        return []
    out = ["sysctl: %s the policy names (live), %s read at boot" % (
        plural(len(live), "key"), plural(sum(1 for f in files if f.get("exists")), "file"))]
    width = min(max((len(k) for k in live), default=0), 40)
    for key, now in live.items():
        # Not "not in this kernel": a snapshot may simply not have captured the file.
        shown = value(now) if now is not None else "(unset: no /proc/sys/%s here)" % key.replace(".", "/")
        out += line("%-*s = %s" % (width, key, shown))
    near = {k: v for k, v in (mine.get("near") or {}).items() if v}
    for key, names in near.items():
        out += line("%s: nearest names in /proc/sys: %s" % (key, ", ".join(names[:5])), indent=4)
    existing = [f for f in files if f.get("exists")]
    shown, rest = capped([(f["path"], [f]) for f in existing], "files")
    if existing:
        out.append("  at boot, in load order (a later file wins):")
    for path, _ in shown:
        f = next(x for x in existing if x["path"] == path)
        out += line("%s (%s)" % (path, plural(len(f.get("settings") or ()), "setting")), indent=4)
    if rest:
        out.append(rest)
    if any(f["path"] == OURS and not f.get("exists") for f in files):
        out += line("numatune's %s does not exist yet" % OURS)
    return out
