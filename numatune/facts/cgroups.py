"""Where the cpuset controller lives (cgroup v1 anywhere it is mounted, or
v2) and which cpusets it holds: one reader for every family that asks
(the cpuset family, the Oracle binding checks).

Parsers are pure (text in, data out); the rest reads under a root.
"""
import re

from numatune.facts.cpulist import parse_cpulist


def _unescape(field):
    # /proc/mounts escapes space, tab, newline and backslash as octal.
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), field)


def parse_mounts(text):
    """[(mountpoint, fstype, [options])] of /proc/mounts."""
    out = []
    for line in (text or "").splitlines():
        parts = line.split()
        if len(parts) >= 4:
            out.append((_unescape(parts[1]), parts[2], parts[3].split(",")))
    return out


def find_hierarchy(mounts):
    """The cpuset hierarchy: {"version", "mount", "prefix"} or None.

    v1 first: a controller bound to a v1 hierarchy is not offered by v2. The
    v1 mount may be anywhere (RHEL 6 mounts it at /cgroup/cpuset) and, with
    ``noprefix``, its files are "cpus" rather than "cpuset.cpus".
    """
    for mountpoint, fstype, options in mounts:
        if fstype == "cgroup" and "cpuset" in options:
            return {"version": 1, "mount": mountpoint,
                    "prefix": "" if "noprefix" in options else "cpuset."}
    for mountpoint, fstype, options in mounts:
        if fstype == "cgroup2":
            return {"version": 2, "mount": mountpoint, "prefix": "cpuset."}
    return None


def guess_hierarchy(root):
    """Without /proc/mounts (a snapshot keeps it as a dangling link to
    self/mounts), look where cpusets are usually mounted."""
    for mount in ("/sys/fs/cgroup/cpuset", "/cgroup/cpuset", "/dev/cpuset"):
        for prefix in ("cpuset.", ""):
            if root.exists("%s/%scpus" % (mount, prefix)) and root.exists(mount + "/tasks"):
                return {"version": 1, "mount": mount, "prefix": prefix}
    if root.exists("/sys/fs/cgroup/cgroup.controllers"):
        return {"version": 2, "mount": "/sys/fs/cgroup", "prefix": "cpuset."}
    return None


def hierarchy(root):
    """The cpuset hierarchy of the host under ``root`` (see find_hierarchy)."""
    mounts_text = root.read_text("/proc/mounts")
    return find_hierarchy(parse_mounts(mounts_text)) if mounts_text is not None else guess_hierarchy(root)


# Where a cpuset hierarchy is usually mounted, for roots that carry neither
# /proc/mounts nor the hierarchy's own top files (a partial copy).
USUAL_MOUNTS = ("/sys/fs/cgroup/cpuset", "/cgroup/cpuset", "/dev/cpuset", "/sys/fs/cgroup")


def cpusets(root, where=None):
    """{name: {"cpus", "mems", "path"}} of the cpusets directly under the
    hierarchy's mount (``where``: a hierarchy from ``hierarchy``); without
    one, of whatever cpusets the usual mount points hold."""
    where = where if where is not None else hierarchy(root)
    places = [(where["mount"], where["prefix"])] if where else [
        (mount, prefix) for mount in USUAL_MOUNTS for prefix in ("cpuset.", "")]
    out = {}
    for mount, prefix in places:
        mount = mount.rstrip("/")
        for name in root.listdir(mount):
            path = "%s/%s" % (mount, name)
            cpus = root.read_value("%s/%scpus" % (path, prefix))
            if cpus is None or name in out or not root.isdir(path):
                continue
            mems = root.read_value("%s/%smems" % (path, prefix)) or ""
            out[name] = {"cpus": parse_cpulist(cpus) if cpus else [],
                         "mems": parse_cpulist(mems) if mems else [], "path": path}
    return out


def parse_pids(text):
    return [int(x) for x in (text or "").split() if x.isdigit()]
