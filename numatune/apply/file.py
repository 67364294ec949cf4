"""Whole files numatune manages or edits: sysctl.d, bootloader entries,
grubenv, /etc/default/grub. Writes are atomic (temp file, fsync, rename) so a
crash leaves either the old or the new file; the journal keeps the old bytes,
mode and owner so revert puts back exactly what was there."""
import errno
import os
import stat

from numatune.families.registry import EDITORS


def _digest(data):
    """(sha256, base64) of a file's bytes, as the journal keeps them. hashlib (OpenSSL) and base64
    load here, on the write path: a plan or check imports this module without writing a file."""
    import base64
    import hashlib
    return hashlib.sha256(data).hexdigest(), base64.b64encode(data).decode()


def _bytes(text):
    import base64
    return base64.b64decode(text)


def _state(root, path):
    return _read_state(root, path)[0]


def _read_state(root, path):
    """(the journaled state of ``path``, its bytes or None), from one read."""
    try:
        st = os.lstat(root.join(path, follow=False))
    except FileNotFoundError:
        return {"exists": False}, None
    if stat.S_ISDIR(st.st_mode):
        # Not a file numatune can journal byte for byte: the write fails here.
        raise IsADirectoryError(21, "Is a directory", root.join(path, follow=False))
    data = root.read_bytes(path)
    if data is None:
        return {"exists": False}, None
    sha256, text = _digest(data)
    return {"exists": True, "mode": stat.S_IMODE(st.st_mode), "uid": st.st_uid, "gid": st.st_gid,
            "sha256": sha256, "data": text}, data


def _summary(state):
    return {k: v for k, v in state.items() if k != "data"}


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
    edits = Edits(root, write)
    edits.add(write, None)
    return edits.op()


class Edits:
    """The edits of one transaction to one file, chained in order (as `plan
    --diff` chains them) into one op: one journal record holding the file's
    bytes before the first edit and after the last, and one atomic write.
    Journaling each edit with the whole file made the journal grow with the
    square of the edits (2,000 sysctl keys: 96 MB, and the file rewritten
    2,000 times). ``edits`` names each change the op carries."""

    def __init__(self, root, write, path=None):
        # Edit the file a symlink points at (99-sysctl.conf -> ../sysctl.conf),
        # never replace the link.
        self.path = path or root.realpath(write.path)
        self.before, self.old = _read_state(root, self.path)
        self.new = self.old
        self.editor = write.editor
        self.edits = []     # [{"change", "editor"}] of the edits that changed the bytes
        self.created_dirs = []
        parent = os.path.dirname(self.path)
        while parent != "/" and not root.isdir(parent):
            self.created_dirs.insert(0, parent)
            parent = os.path.dirname(parent)

    def add(self, write, change_id):
        """Chain ``write``'s editor; whether it changed the bytes (an edit
        that finds the file as wanted is not carried, as it never was)."""
        new = edit_bytes(self.new, write.editor, write.args)
        if new == self.new:
            return False
        self.new = new
        self.edits.append({"change": change_id, "editor": write.editor})
        return True

    def op(self):
        after = {"exists": self.new is not None}
        if self.new is not None:
            sha256, text = _digest(self.new)
            after.update(sha256=sha256, data=text)
        op = {"kind": "file", "path": self.path, "editor": self.edits[0]["editor"] if self.edits else self.editor,
              "before": self.before, "after": after, "created_dirs": list(self.created_dirs),
              "unchanged": self.old == self.new}
        if len(self.edits) > 1:
            op["edits"] = list(self.edits)
        return op


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
        except FileNotFoundError:
            pass  # removed by a revert that was cut short after it
        except OSError as e:
            # Not empty: something else lives there now. Any other error (EIO, EROFS)
            # fails the restore, so the next revert removes it (cleanup) (#28).
            if e.errno not in (errno.ENOTEMPTY, errno.EEXIST):
                raise


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
    _atomic_write(root, op["path"], _bytes(after["data"]), mode,
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
        _atomic_write(root, op["path"], _bytes(before["data"]), before["mode"],
                      before["uid"], before["gid"])
    elif root.exists(op["path"]) or root.islink(op["path"]):
        os.unlink(root.join(op["path"], follow=False))
    _remove_created_dirs(root, op)


def _edits_text(op, names=False):
    """The editor, or for a merged record how many edits it carries and
    (``names``) the first changes they belong to."""
    edits = op.get("edits")
    if not isinstance(edits, list) or len(edits) < 2:
        return str(op.get("editor"))
    ids = [str(e.get("change")) for e in edits if isinstance(e, dict)]
    if not names:
        editors = sorted({str(e.get("editor")) for e in edits if isinstance(e, dict)})
        return "%d edits: %s" % (len(edits), ", ".join(editors))
    more = " and %d more" % (len(ids) - EDITS_SHOWN) if len(ids) > EDITS_SHOWN else ""
    return "%d edits: %s%s" % (len(edits), ", ".join(ids[:EDITS_SHOWN]), more)


# A merged record's undo names this many of its changes; `history TXID` lists every change.
EDITS_SHOWN = 3


def describe(op):
    b, a = op["before"], op["after"]
    merged = " (%s)" % _edits_text(op) if op.get("edits") else ""
    if not b["exists"]:
        return "%s: create%s" % (op["path"], merged)
    if not a["exists"]:
        return "%s: remove%s" % (op["path"], merged)
    return "%s: edit (%s)" % (op["path"], _edits_text(op))


def describe_undo(op):
    b, a = op["before"], op["after"]
    merged = " (undid %s)" % _edits_text(op, True) if op.get("edits") else ""
    if not b["exists"]:
        return "%s: removed (apply created it)%s" % (op["path"], merged)
    if not a["exists"]:
        return "%s: recreated as before apply%s" % (op["path"], merged)
    return "%s: restored as before apply (undid %s)" % (op["path"], _edits_text(op, True))


__all__ = ["capture", "perform", "current_matches", "restore", "describe", "describe_undo", "_summary"]
