"""cgroup directories: create a cpuset (mkdir, its first values, its owner),
change a cpuset's owner, and enable the cpuset controller for a v2 subtree.

A Write of kind "cgroup" has ``args["action"]``:

``create``  mkdir ``path``, then write ``args["settings"]`` ([[file, value]]
            in order: cpus before mems before flags, as the kernel needs) and
            chown it to ``uid``/``gid``. Restore removes it only when empty:
            a cpuset with tasks is never removed (revert says so).
``owner``   chown an existing cgroup's directory and its task files.
``enable``  add "cpuset" to ``path``/cgroup.subtree_control (cgroup v2).

On a copied tree there is no kernel to fill a new cgroup directory, so
``create`` makes the control files the kernel would (empty cpus and mems, the
parent's flags) and records them, and restore removes exactly those.
"""
import errno
import os

from numatune.facts.cgroups import parse_pids
from numatune.apply.root_write import refuse_hardlinked, tmp_name

TASK_FILES = ("tasks", "cgroup.procs")


def _owner(root, path):
    try:
        st = os.stat(root.join(path))
    except OSError:
        return None
    return [st.st_uid, st.st_gid]


def _owners(root, path):
    """Owner of the directory and of its task files (what chown changes)."""
    out = {".": _owner(root, path)}
    for name in TASK_FILES:
        if root.exists("%s/%s" % (path, name)):
            out[name] = _owner(root, "%s/%s" % (path, name))
    return out


def _controllers(root, path):
    return (root.read_value(path + "/cgroup.subtree_control") or "").split()


def capture(root, write):
    action = write.args["action"]
    op = {"kind": "cgroup", "action": action, "path": write.path, "args": write.args}
    if action == "create":
        op["existed"] = root.isdir(write.path)
        op["unchanged"] = op["existed"]
        if not root.is_live:
            op["made"] = _fake_names(root, write.path)
    elif action == "owner":
        op["before"] = _owners(root, write.path)
        want = [write.args["uid"], write.args["gid"]]
        op["unchanged"] = all(v == want for v in op["before"].values())
    elif action == "enable":
        before = _controllers(root, write.path)
        op["before"] = before
        op["unchanged"] = "cpuset" in before
        if not root.is_live:
            op["raw"] = root.read_text(write.path + "/cgroup.subtree_control")
    else:  # pragma: no cover - a family bug
        raise ValueError("unknown cgroup action %r" % action)
    return op


def _write_value(root, path, value):
    if not root.is_live:
        _write_copy(root, path, value + "\n")
        return
    fd = root.open(path, os.O_WRONLY)
    try:
        os.write(fd, (value + "\n").encode())
    finally:
        os.close(fd)


def _write_copy(root, path, text):
    """A control file of a copied tree, through the confined writer (never
    through a link planted at its name)."""
    try:
        mode = os.lstat(root.join(path, follow=False)).st_mode & 0o7777     # kept, as writing in place kept it
    except FileNotFoundError:
        mode = 0o644
    root.write_atomic(path, text.encode(), mode)


def _chown(root, path, uid, gid):
    _chown_one(root, path, uid, gid)
    for name in TASK_FILES:
        if root.exists("%s/%s" % (path, name)):
            _chown_one(root, "%s/%s" % (path, name), uid, gid)


def _chown_one(root, path, uid, gid):
    """chown that neither follows a link at the name nor reaches a file another name shares."""
    real = root.join(path, follow=False)
    refuse_hardlinked(root, path, os.lstat(real))
    os.chown(real, uid, gid, follow_symlinks=False)


def _fake_names(root, path):
    parent = os.path.dirname(path)
    return [n for n in root.listdir(parent) if not root.isdir("%s/%s" % (parent, n))]


def _fake_files(root, path, names, prefix):
    """The control files a kernel would make in a new cgroup, on a copy."""
    parent = os.path.dirname(path)
    for name in names:
        src = "%s/%s" % (parent, name)
        if name in TASK_FILES or name in (prefix + "cpus", prefix + "mems") or "effective" in name:
            text = "\n"
        else:
            text = root.read_text(src) or "\n"
        _write_copy(root, "%s/%s" % (path, name), text)


def perform(root, op):
    path, args = op["path"], op["args"]
    if op["action"] == "create":
        os.mkdir(root.join(path), 0o755)
        if not root.is_live:
            _fake_files(root, path, op["made"], args.get("prefix", "cpuset."))
        for name, value in args.get("settings", []):
            _write_value(root, "%s/%s" % (path, name), value)
        if args.get("uid") is not None:
            _chown(root, path, args["uid"], args["gid"])
    elif op["action"] == "owner":
        _chown(root, path, args["uid"], args["gid"])
    elif op["action"] == "enable":
        if root.is_live:
            _write_value(root, path + "/cgroup.subtree_control", "+cpuset")
        else:
            _write_value(root, path + "/cgroup.subtree_control", " ".join(op["before"] + ["cpuset"]))


def _settings_hold(root, op):
    for name, value in op["args"].get("settings", []):
        now = root.read_value("%s/%s" % (op["path"], name))
        if now != value:
            return False
    return True


def current_matches(root, op, side):
    path, args = op["path"], op["args"]
    if op["action"] == "create":
        exists = root.isdir(path)
        if side == "before":
            return exists == op["existed"]
        owner_ok = args.get("uid") is None or _owner(root, path) == [args["uid"], args["gid"]]
        return exists and owner_ok and _settings_hold(root, op)
    if op["action"] == "owner":
        if side == "before":
            return _owners(root, path) == op["before"]
        want = [args["uid"], args["gid"]]
        return all(v == want for v in _owners(root, path).values())
    has = "cpuset" in _controllers(root, path)
    return has == ("cpuset" in op["before"]) if side == "before" else has


def tasks_of(root, path):
    return parse_pids(root.read_text(path + "/cgroup.procs") or root.read_text(path + "/tasks"))


def restore(root, op):
    path = op["path"]
    if op["action"] == "create":
        if op["existed"] or not root.isdir(path):
            return
        tasks = tasks_of(root, path)
        if tasks:
            # Removing it would fail (EBUSY) and moving an instance's
            # processes elsewhere is not ours to do.
            raise OSError(errno.EBUSY, "cpuset has %d task(s) (pid %s): not removed; stop them or move them "
                                       "out, then rmdir it" % (len(tasks), ", ".join(map(str, tasks[:5]))),
                          root.join(path))
        if not root.is_live:
            # And the temporary of a write a kill cut short between write and rename (#28).
            for name in op.get("made") or []:
                for entry in (name, tmp_name(name)):
                    try:
                        os.unlink(root.join("%s/%s" % (path, entry), follow=False))
                    except FileNotFoundError:
                        pass
        os.rmdir(root.join(path))
    elif op["action"] == "owner":
        for name, owner in op["before"].items():
            target = path if name == "." else "%s/%s" % (path, name)
            if owner is not None and root.exists(target):
                _chown_one(root, target, owner[0], owner[1])
    elif op["action"] == "enable":
        bound = _bound_children(root, path)
        if bound:
            # Seen on a real 6.1 kernel: "-cpuset" is accepted while a child
            # still has its own cpus/mems (a cpuset revert kept because it has
            # tasks), and silently unbinds its tasks from their node.
            raise OSError(errno.EBUSY, "cpuset controller left enabled: %s still set(s) its own cpus/mems "
                                       "(disabling it would unbind its tasks)" % ", ".join(bound),
                          root.join(path + "/cgroup.subtree_control"))
        if root.is_live:
            _write_value(root, path + "/cgroup.subtree_control", "-cpuset")
        else:
            _write_copy(root, path + "/cgroup.subtree_control", op.get("raw") or "")


def _bound_children(root, path):
    """Child cgroups of ``path`` with cpus or mems of their own (not inherited)."""
    try:
        names = sorted(os.listdir(root.join(path)))
    except OSError:
        return []
    out = []
    for name in names:
        child = "%s/%s" % (path, name)
        if root.isdir(child) and any((root.read_value("%s/cpuset.%s" % (child, f)) or "").strip()
                                     for f in ("cpus", "mems")):
            out.append(name)
    return out


def describe(op):
    if op["action"] == "create":
        return "%s: create cpuset" % op["path"]
    if op["action"] == "owner":
        return "%s: owner %s:%s" % (op["path"], op["args"]["uid"], op["args"]["gid"])
    return "%s/cgroup.subtree_control: +cpuset" % op["path"]
