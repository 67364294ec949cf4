"""Block queue attributes whose write has a side effect or a different
spelling than what reads back.

``queue/scheduler``: switching the elevator makes the kernel reset
``queue/nr_requests`` to the new scheduler's default, so the op also keeps
the "coupled" files and revert puts them back after the scheduler.
``cache_type``: written as "temporary write through" (the kernel's view
only, never a MODE SELECT to the device) and read back as "write through";
revert writes "temporary <old mode>" for the same reason.
"""
import base64

from numatune.apply.value import _write, read_as
from numatune.report.grouped import ARROW, value as shown


def capture(root, write):
    before = read_as(root, write.path, write.format)
    if before is None:
        raise FileNotFoundError(2, "no such file", root.join(write.path))
    op = {"kind": "blockattr", "path": write.path, "format": write.format, "before": before,
          "after": write.value, "prefix": write.args.get("prefix", ""),
          "coupled": {p: root.read_value(p) for p in write.args.get("coupled", []) if root.exists(p)}}
    if not root.is_live:
        # A copied tree is plain files: keep exact bytes so revert is byte for byte.
        op["raw"] = {p: base64.b64encode(root.read_bytes(p)).decode()
                     for p in [write.path] + list(op["coupled"])}
    return op


def _read(root, op):
    value = read_as(root, op["path"], op["format"])
    # A copied tree keeps the written spelling; the kernel never shows the prefix.
    if value and op["prefix"] and value.startswith(op["prefix"]):
        value = value[len(op["prefix"]):]
    return value


def perform(root, op):
    _write(root, op["path"], op["prefix"] + op["after"])


def current_matches(root, op, side):
    return _read(root, op) == op[side]


def restore(root, op):
    raw = op.get("raw") if not root.is_live else None
    if raw:
        # The attribute first, then the files it couples (the journal sorts the keys:
        # nr_requests came before scheduler); in a copy a coupled file still holding
        # its bytes was not touched and is not written (a hardlink there refuses it, #28).
        for path in [op["path"]] + sorted(p for p in raw if p != op["path"]):
            data = base64.b64decode(raw[path])
            if path == op["path"] or root.read_bytes(path) != data:
                _write(root, path, data)
        return
    _write(root, op["path"], op["prefix"] + op["before"])
    for path, value in op["coupled"].items():
        if root.read_value(path) != value:
            _write(root, path, value)


def describe(op):
    return "%s: %s %s %s" % (op["path"], shown(op["before"]), ARROW, shown(op["after"]))
