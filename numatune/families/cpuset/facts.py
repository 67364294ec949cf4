"""The named cpusets, their owners and libcgroup's files: what the cpuset
family plans from. Where the hierarchy is comes from numatune.facts.cgroups."""
import os

from numatune.facts.cgroups import hierarchy as find_cpuset_hierarchy, parse_pids
from numatune.facts.cpulist import parse_cpulist

PASSWD = "/etc/passwd"
GROUP = "/etc/group"


def parse_ids(text):
    """/etc/passwd or /etc/group -> {name: numeric id}."""
    out = {}
    for line in (text or "").splitlines():
        parts = line.split(":")
        if len(parts) >= 3 and parts[0] and not parts[0].startswith(("#", "+", "-")) and parts[2].isdigit():
            out.setdefault(parts[0], int(parts[2]))
    return out


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
    hierarchy = find_cpuset_hierarchy(root)
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
