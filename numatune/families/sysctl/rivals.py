"""Who else sets what a sysctl change sets: sysctl.d lines in other files
and the plan's own edits of them (the review screen shows these)."""
from numatune.families.sysctl.facts import OURS

EDITING = ("sysctl_set", "sysctl_disable")


def key_of(change):
    for write in change.writes:
        if write.kind == "file" and write.editor in EDITING:
            return write.args.get("key")
        if write.kind == "value" and write.path.startswith("/proc/sys/"):
            return write.path[len("/proc/sys/"):].replace("/", ".")
    return None


def rivals(change, plan, facts):
    key = key_of(change)
    if not key or not facts or "sysctl" not in facts:
        return []
    out = []
    files = facts["sysctl"]["files"]
    paths = [f["path"] for f in files]
    ours = paths.index(OURS) if OURS in paths else len(paths)
    for i, f in enumerate(files):
        if f["path"] == OURS:
            continue
        for number, k, value in f["settings"]:
            if k == key:
                when = "loads after numatune's file: wins at boot" if i > ours else "loads before ours"
                out.append("sysctl.d %s:%d sets %s = %s (%s)" % (f["path"], number, key, value, when))
    for other in _overrides(plan).get(change.rule, ()):
        if other.id != change.id:
            out.append("this plan also comments out %s" % other.target)
    return out


_override_index = [None, None]


def _overrides(plan):
    """rule -> the plan's changes that comment out a later sysctl.d line,
    indexed once per plan: the review pane is redrawn on every cursor move."""
    if _override_index[0] is not plan:
        index = {}
        for c in plan.changes:
            if c.id.startswith("sysctl.override:"):
                index.setdefault(c.rule, []).append(c)
        _override_index[:] = [plan, index]
    return _override_index[1]
