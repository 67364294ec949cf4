"""Whole files numatune manages or edits: sysctl.d, bootloader entries,
grubenv, /etc/default/grub. Writes are atomic (temp file, fsync, rename) so a
crash leaves either the old or the new file; the journal keeps the old bytes,
mode and owner so revert puts back exactly what was there."""
import base64
import hashlib
import os
import stat

from numatune.families.registry import EDITORS


def _state(root, path):
    try:
        st = os.lstat(root.join(path, follow=False))
    except FileNotFoundError:
        return {"exists": False}
    if stat.S_ISDIR(st.st_mode):
        # Not a file numatune can journal byte for byte: the write fails here.
        raise IsADirectoryError(21, "Is a directory", root.join(path, follow=False))
    data = root.read_bytes(path)
    if data is None:
        return {"exists": False}
    return {"exists": True, "mode": stat.S_IMODE(st.st_mode), "uid": st.st_uid, "gid": st.st_gid,
            "sha256": hashlib.sha256(data).hexdigest(), "data": base64.b64encode(data).decode()}


def _summary(state):
    return {k: v for k, v in state.items() if k != "data"}


def edit(root, path, editor, args):
    """New bytes (or None to remove) of ``path`` after ``editor``."""
    old = root.read_bytes(path)
    return old, edit_bytes(old, editor, args)


def edit_bytes(old, editor, args):
    """What ``editor`` makes of ``old`` (bytes, None: absent); pure. `plan
    --diff` chains it over the writes to one file as apply would."""
    fn = EDITORS[editor]
    if getattr(fn, "binary", False):
        return fn(old, **args)
    text = None if old is None else old.decode("utf-8", "surrogateescape")
    new = fn(text, **args)
    return None if new is None else new.encode("utf-8", "surrogateescape")


def capture(root, write):
    # Edit the file a symlink points at (99-sysctl.conf -> ../sysctl.conf),
    # never replace the link.
    path = root.realpath(write.path)
    old, new = edit(root, path, write.editor, write.args)
    before = _state(root, path)
    missing = []
    parent = os.path.dirname(path)
    while parent != "/" and not root.isdir(parent):
        missing.append(parent)
        parent = os.path.dirname(parent)
    after = {"exists": new is not None}
    if new is not None:
        after.update(sha256=hashlib.sha256(new).hexdigest(), data=base64.b64encode(new).decode())
    return {"kind": "file", "path": path, "editor": write.editor, "before": before, "after": after,
            "created_dirs": list(reversed(missing)), "unchanged": old == new}


def cleanup(root, op):
    """Remove the temp file a run killed between write and rename left behind,
    and, when the file apply was to create is not there (its first write
    failed or was killed), the directories apply made for it: the undo finds
    the file "already as before" and would leave them."""
    root.remove_tmp(op["path"])
    if not op["before"]["exists"] and not (root.exists(op["path"]) or root.islink(op["path"])):
        _remove_created_dirs(root, op)


def _remove_created_dirs(root, op):
    for d in reversed(op.get("created_dirs", [])):
        try:
            os.rmdir(root.join(d, follow=False))
        except OSError:
            pass  # not empty: something else lives there now


def _atomic_write(root, path, data, mode, uid, gid):
    root.write_atomic(path, data, mode, uid, gid)


def perform(root, op):
    for d in op["created_dirs"]:
        if not root.isdir(d):
            os.mkdir(root.join(d, follow=False), 0o755)
    after = op["after"]
    before = op["before"]
    if not after["exists"]:
        if root.exists(op["path"]) or root.islink(op["path"]):
            os.unlink(root.join(op["path"], follow=False))
        return
    mode = before.get("mode", 0o644)
    _atomic_write(root, op["path"], base64.b64decode(after["data"]), mode,
                  before.get("uid"), before.get("gid"))


def current_matches(root, op, side):
    now = _state(root, op["path"])
    want = op[side]
    if not want["exists"] or not now["exists"]:
        return want["exists"] == now["exists"]
    if now["sha256"] != want["sha256"]:
        return False
    if side == "before":
        return (now["mode"], now["uid"], now["gid"]) == (want["mode"], want["uid"], want["gid"])
    return True


def restore(root, op):
    before = op["before"]
    if before["exists"]:
        _atomic_write(root, op["path"], base64.b64decode(before["data"]), before["mode"],
                      before["uid"], before["gid"])
    elif root.exists(op["path"]) or root.islink(op["path"]):
        os.unlink(root.join(op["path"], follow=False))
    _remove_created_dirs(root, op)


def describe(op):
    b, a = op["before"], op["after"]
    if not b["exists"]:
        return "%s: create" % op["path"]
    if not a["exists"]:
        return "%s: remove" % op["path"]
    return "%s: edit (%s)" % (op["path"], op["editor"])


def describe_undo(op):
    b, a = op["before"], op["after"]
    if not b["exists"]:
        return "%s: removed (apply created it)" % op["path"]
    if not a["exists"]:
        return "%s: recreated as before apply" % op["path"]
    return "%s: restored as before apply (undid %s)" % (op["path"], op["editor"])


__all__ = ["capture", "perform", "current_matches", "restore", "describe", "describe_undo", "_summary"]
