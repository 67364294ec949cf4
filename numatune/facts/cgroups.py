"""Where the cpuset controller lives (cgroup v1 or v2), what is in it, and
the users and groups that may own a cpuset.

Parsers are pure (text in, data out); ``read_*`` do the I/O under a root.
"""
import os
import re

from numatune.facts.cpulist import parse_cpulist

PASSWD = "/etc/passwd"
GROUP = "/etc/group"


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


def parse_ids(text):
    """/etc/passwd or /etc/group -> {name: numeric id}."""
    out = {}
    for line in (text or "").splitlines():
        parts = line.split(":")
        if len(parts) >= 3 and parts[0] and not parts[0].startswith(("#", "+", "-")) and parts[2].isdigit():
            out.setdefault(parts[0], int(parts[2]))
    return out


def parse_pids(text):
    return [int(x) for x in (text or "").split() if x.isdigit()]


def _read_cgroup(root, path, prefix, version):
    def attr(name, default=None):
        return root.read_value("%s/%s%s" % (path, prefix, name), default)
    tasks = parse_pids(root.read_text(path + "/cgroup.procs") or root.read_text(path + "/tasks"))
    entry = {
        "path": path,
        "cpus": attr("cpus"),
        "mems": attr("mems"),
        "effective_cpus": attr("effective_cpus"),
        "effective_mems": attr("effective_mems"),
        "memory_migrate": attr("memory_migrate"),
        "cpu_exclusive": attr("cpu_exclusive"),
        "tasks": tasks,
        "uid": None,
        "gid": None,
    }
    try:
        st = os.stat(root.join(path))
        entry["uid"], entry["gid"] = st.st_uid, st.st_gid
    except OSError:
        pass
    if version == 2:
        entry["controllers"] = (root.read_value(path + "/cgroup.controllers") or "").split()
        entry["subtree_control"] = (root.read_value(path + "/cgroup.subtree_control") or "").split()
    return entry


def cgroup_path(hierarchy, name, systemd=False):
    """The directory of cpuset ``name``; on v2 with systemd it is a slice."""
    if hierarchy["version"] == 2 and systemd and not name.endswith(".slice"):
        name += ".slice"
    return "%s/%s" % (hierarchy["mount"].rstrip("/"), name)


def read(root, names):
    """The hierarchy, its root cgroup and every named cpuset's state."""
    mounts_text = root.read_text("/proc/mounts")
    hierarchy = find_hierarchy(parse_mounts(mounts_text)) if mounts_text is not None else guess_hierarchy(root)
    systemd = root.isdir("/run/systemd/system") or root.exists("/etc/systemd/system.conf")
    out = {"hierarchy": hierarchy, "systemd": systemd, "top": None, "cpusets": {}, "others": {},
           "users": parse_ids(root.read_text(PASSWD)), "groups": parse_ids(root.read_text(GROUP)),
           "cgconfig": read_cgconfig(root)}
    if hierarchy is None or not root.isdir(hierarchy["mount"]):
        out["hierarchy"] = None
        return out
    version, prefix = hierarchy["version"], hierarchy["prefix"]
    out["top"] = _read_cgroup(root, hierarchy["mount"], prefix, version)
    for name in names:
        path = cgroup_path(hierarchy, name, systemd)
        if root.isdir(path):
            out["cpusets"][name] = _read_cgroup(root, path, prefix, version)
        else:
            parent = path.rsplit("/", 1)[0]
            out["cpusets"][name] = {"path": path, "missing": True,
                                    "parent": _read_cgroup(root, parent, prefix, version)
                                    if root.isdir(parent) else None}
    # Sibling cpusets the policy does not name still hold CPUs exclusively.
    for entry in root.listdir(hierarchy["mount"]):
        path = "%s/%s" % (hierarchy["mount"].rstrip("/"), entry)
        if root.isdir(path) and entry not in names and root.exists("%s/%scpus" % (path, prefix)):
            cpus = root.read_value("%s/%scpus" % (path, prefix))
            exclusive = root.read_value("%s/%scpu_exclusive" % (path, prefix))
            out["others"][entry] = {"cpus": parse_cpulist(cpus) if cpus else [], "cpu_exclusive": exclusive == "1"}
    return out


CGCONFIG = "/etc/cgconfig.conf"
CGCONFIG_DIR = "/etc/cgconfig.d"


def read_cgconfig(root):
    """libcgroup's files: {"used": bool, "files": {path: text}}."""
    files = {}
    if root.exists(CGCONFIG):
        files[CGCONFIG] = root.read_text(CGCONFIG) or ""
    for name in root.listdir(CGCONFIG_DIR):
        if name.endswith(".conf"):
            files["%s/%s" % (CGCONFIG_DIR, name)] = root.read_text("%s/%s" % (CGCONFIG_DIR, name)) or ""
    return {"used": bool(files) or root.isdir(CGCONFIG_DIR), "dir": root.isdir(CGCONFIG_DIR), "files": files}
