"""Host tools (grubby) that only run on the real root. The files a tool may
change are journaled byte for byte before it runs; revert restores those files,
so no inverse command is needed."""
import subprocess

from numatune.apply import file as files


def capture(root, write):
    if not root.is_live:
        raise RuntimeError("host tools never run under --root")
    states = {}
    for path in write.files:
        states[path] = files._state(root, path)
    return {"kind": "command", "path": write.path, "argv": list(write.argv), "before": states, "after": {}}


def perform(root, op):
    proc = subprocess.run(op["argv"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    if proc.returncode != 0:
        said = (proc.stderr or proc.stdout or "").strip().splitlines()
        raise OSError("%s failed (exit %d)%s" % (op["argv"][0], proc.returncode, ": " + said[-1] if said else ""))
    op["after"] = {p: files._state(root, p) for p in op["before"]}


def _file_op(op, path):
    return {"path": path, "before": op["before"][path], "after": op["after"].get(path, {"exists": False})}


def current_matches(root, op, side):
    for path in op["before"]:
        if side == "after" and path not in op["after"]:
            return False
        if not files.current_matches(root, _file_op(op, path), side):
            return False
    return True


def restore(root, op):
    for path in op["before"]:
        fop = _file_op(op, path)
        if not files.current_matches(root, fop, "before"):
            files.restore(root, fop)


def describe(op):
    return " ".join(op["argv"])
