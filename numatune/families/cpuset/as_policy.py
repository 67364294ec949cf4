"""The cpuset part of `numatune facts --format policy`: each cpuset a
libcgroup group keeps (a ``group`` in /etc/cgconfig.conf or
/etc/cgconfig.d, where numatune writes its own), as a ``[[cpuset]]`` with
its cpus and mems as they are live, its owner as the group names it, and
persist = "cgconfig". A cpuset no cgconfig group keeps (made by hand, by
a service, or a systemd slice on cgroup v2, whose names the facts do not
list) is left out: nothing would make it again at boot. What the next boot
would not keep the plan of `facts --format policy` leaves out."""
import re

from numatune.families.cpuset.cgconfig import group_settings

NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")
OWNER = re.compile(r"^[a-z_][a-z0-9_.-]*\$?$")


def _groups(files):
    """{group name: its settings} of every cgconfig file (a later file's group wins)."""
    out = {}
    for path in sorted(files):
        text = files[path] or ""
        for name in re.findall(r"(?m)^\s*group\s+([^\s{]+)\s*\{", text):
            settings = group_settings(text, name)
            if settings is not None and NAME.match(name):
                out[name] = settings
    return out


def _owner(settings):
    ids = [settings.get(k) for k in ("uid", "gid")]
    if not all(ids):
        return None
    ids = [int(v) if v.isdigit() else v for v in ids]
    if not all(isinstance(v, int) or OWNER.match(v) for v in ids):
        return None
    return {"uid": ids[0], "gid": ids[1]}


def _bool(value):
    return {"0": False, "1": True}.get(str(value).strip()) if value is not None else None


def as_policy(facts):
    """({"cpuset": [...]}, {"cpuset": the groups, to read them live})."""
    mine = facts.get("cpuset") or {}
    groups = _groups(((mine.get("cgconfig") or {}).get("files")) or {})
    if not groups or not mine.get("hierarchy"):
        return {}, {}
    live = mine.get("cpusets") or {}
    out = []
    for name in sorted(groups):
        state = live.get(name) or {}
        if state.get("missing") or not state.get("cpus") or not state.get("mems"):
            continue
        spec = {"name": name, "cpus": state["cpus"].strip(), "mems": state["mems"].strip()}
        for key in ("memory_migrate", "cpu_exclusive"):
            if _bool(state.get(key)) is not None:
                spec[key] = _bool(state[key])
        owner = _owner(groups[name])
        if owner:
            spec["owner"] = owner
        spec["persist"] = "cgconfig"
        out.append(spec)
    more = {"cpuset": [{"name": n, "cpus": "0", "mems": "0"} for n in sorted(groups)]}
    return ({"cpuset": out} if out else {}), more
