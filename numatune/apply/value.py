"""Single-value sysfs/procfs files: /proc/sys/*, THP, nr_hugepages."""
import base64
import os
import stat

from numatune.apply import root_write
from numatune.facts.kernel import normalize, parse_bracketed
from numatune.report.grouped import ARROW, is_clean, value as shown
from numatune.rootfs.readfile import read_fd, text as _text


class _Held(dict):
    """An op whose target, a copied tree's plain file, stays open from its
    capture to its write: one open serves the read of "before" and the
    write (a giant host's apply opened 35,000 files twice). The op is the
    dict it journals; the descriptor is not part of it. The write is made
    only after the intent is journaled, as for every op: holding the file
    open changes when it is opened, not when it is written."""
    __slots__ = ("fd", "size")

    def take(self):
        fd, self.fd = self.fd, None
        return fd

    def __del__(self):
        # Captured and never written (the run stopped between): nothing to flush, a descriptor to free.
        fd = self.take()
        if fd is not None:
            try:
                os.close(fd)
            except OSError:
                pass


def _open_copy(root, path):
    """(descriptor for reading and writing, its fstat) of a copied tree's
    one-value file, or None where the write must open it on its own, as it
    did before: not a regular file of one name (the write refuses it), or
    not openable so (the read and the write say why)."""
    try:
        fd = root.open_named(path, os.O_RDWR | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if stat.S_ISREG(st.st_mode) and st.st_nlink == 1:
            return fd, st
    except OSError:
        pass
    os.close(fd)
    return None


def read_as(root, path, fmt):
    return _parse(root.read_text(path), fmt)


def _parse(text, fmt):
    if text is None:
        return None
    if fmt == "bracket":
        return parse_bracketed(text)[0]
    if fmt == "words":
        return normalize(text)
    return text.strip()


def capture(root, write):
    # A copied tree is plain files: keep its exact bytes ("always madvise
    # [never]\n") so revert leaves it identical, not merely equivalent (one
    # read gives both the bytes and the value).
    raw = held = None
    if root.is_live:
        before = read_as(root, write.path, write.format)
    else:
        held = _open_copy(root, write.path)
        try:
            raw = read_fd(held[0], write.path, st=held[1], keep=True) if held else root.read_bytes(write.path)
        except OSError:     # unreadable reads as missing, as read_text has it
            raw = None
        except BaseException:  # noqa: B902 -- a file too big to be a value: refused, nothing left open
            if held:
                os.close(held[0])
            raise
        before = None if raw is None else _parse(_text(raw), write.format)
    if before is None:
        if held:
            os.close(held[0])
        raise FileNotFoundError(2, "no such file", root.join(write.path))
    if held is None:
        op = {"kind": "value", "path": write.path, "format": write.format, "before": before, "after": write.value}
    else:   # made as what it is: not a dict copied into one, for each of a giant host's 35,000
        op = _Held(kind="value", path=write.path, format=write.format, before=before, after=write.value)
        op.fd, op.size = held[0], held[1].st_size
    if raw is not None and not _restores_as(raw, before):
        op["raw"] = base64.b64encode(raw).decode()
    return op


def _restores_as(raw, before):
    """Whether restoring ``before`` writes ``raw`` again (``restore``: the
    value and a newline, as ``_write`` makes them): then "raw" is not
    journaled. Most sysfs values ("128\n") are their value and a newline; a
    bracketed list, padding, a missing newline or other bytes keep their
    "raw", exactly as read."""
    return len(raw) == len(before) + 1 and before.isascii() and raw == (before + "\n").encode()


# host path -> the descriptor its next _write writes through (a file held since its read), or that
# descriptor and the bytes read there, handed over this way so that _write keeps its arguments
# (tests wrap it to make a write fail or land short).
_HANDED = {}


def _write(root, path, value):
    """The bytes written, or None when the write took less than all of them."""
    # One write(2) of the whole value, as `echo value > file` does; sysfs
    # rejects a value by failing this call (EINVAL) or the close.
    data = value if isinstance(value, bytes) else (value + "\n").encode()
    fd = _HANDED.pop(path, None)
    size = None     # a restore's: the bytes its decision read there
    if type(fd) is tuple:
        fd, size = fd
    try:
        if fd is None:
            fd = root_write.open_value(root, path)
            written = os.write(fd, data)    # one write(2): sysfs takes a value in one call
        else:
            if size is not None and len(data) >= size:
                # Over no more bytes than the new: one pwrite leaves exactly
                # those (a crash, the old bytes or the new), without emptying
                # the file first (a tmpfs page freed and taken again, 35,000
                # times a revert). A file grown since its read: as below.
                written = os.pwrite(fd, data, 0)
                if written != len(data) or os.fstat(fd).st_size == written:
                    return data if written == len(data) else None
            os.ftruncate(fd, 0)     # as open_value empties a copied tree's file
            # A copied tree killed here holds an empty file; the journal's
            # "intent"/"undoing" tells the next revert it was ours and to finish
            # it. At 0: the read before left the offset at the old end.
            written = os.pwrite(fd, data, 0)
    finally:
        if fd is not None:
            os.close(fd)
    return data if written == len(data) else None


def _through(fd, path, write, *args):
    """``write(*args)``, the _write it makes to ``path`` through ``fd`` (None:
    opened by name; or (descriptor, the bytes read there)); ``fd`` closed if
    that write did not take it."""
    if fd is None:
        return write(*args)
    _HANDED[path] = fd
    try:
        return write(*args)
    finally:
        left = _HANDED.pop(path, None)
        if left is not None:
            os.close(left[0] if type(left) is tuple else left)


def perform(root, op):
    fd = op.take() if isinstance(op, _Held) else None
    # With the bytes the capture read there: _write writes over no more bytes than the new in one pwrite.
    data = _through(None if fd is None else (fd, op.size), op["path"], _write, root, op["path"], op["after"])
    # The kernel may take less than asked (a HugePages pool on a fragmented
    # node): what it holds now is what revert must recognise as ours. A
    # copied tree's file is a plain one that took every byte: it holds what
    # was written, so its value is known without reading it back (35,000
    # reads on a giant host; verify still reads each write back at the end).
    if data is not None and not root.is_live:
        now = _parse(_text(data), op["format"])
    else:
        now = read_as(root, op["path"], op["format"])
    if now is not None and now != op["after"]:
        op["asked"], op["after"] = op["after"], now


def current_matches(root, op, side):
    return read_as(root, op["path"], op["format"]) == op[side]


# id(op) -> (op, descriptor): a copied tree's file read by current_sides and
# held for the restore that follows, as apply holds it from capture to write.
_DECIDED = {}


def current_sides(root, op):
    """(holds "before", holds "after") from one read: revert asks both of
    every op, and a giant host's revert has 35,000 of them. Under --root the
    file stays open for its restore (``release`` frees it otherwise)."""
    held = None if root.is_live else _open_copy(root, op["path"])
    if held is None:
        now = read_as(root, op["path"], op["format"])
    else:
        raw = None
        try:
            raw = read_fd(held[0], op["path"], st=held[1], keep=True)
            now = _parse(_text(raw), op["format"])
        except OSError:
            now = None      # unreadable reads as missing, as read_text has it
        except BaseException:  # noqa: B902 -- too big to be a value: refused, nothing left open
            os.close(held[0])
            raise
        release(op)
        _DECIDED[id(op)] = (op, held[0], None if raw is None else len(raw))
    return now == op["before"], now == op["after"]


def release(op):
    """Close what current_sides held for ``op`` (an op revert does not restore, or one it did)."""
    got = _DECIDED.pop(id(op), None)
    if got is not None:
        try:
            os.close(got[1])
        except OSError:
            pass    # nothing written through it: nothing to lose


def restore(root, op):
    # The entry holds its op: no other op can have that id while it is there.
    got = _DECIDED.pop(id(op), None)
    fd = None if got is None else got[1] if got[2] is None else got[1:]    # with the bytes read there, if known
    data = base64.b64decode(op["raw"]) if "raw" in op and not root.is_live else op["before"]
    _through(fd, op["path"], _write, root, op["path"], data)


def describe(op):
    return "%s: %s %s %s" % (op["path"], shown(op["before"]), ARROW, shown(op["after"]))


def describe_undo(op):
    # What ops.describe_undo says of any kind, without a copy of each op (a giant host's revert restores 35,000):
    # two plain texts are shown as they are, tested as one.
    after, before = op["after"], op["before"]
    if type(after) is str and type(before) is str and after and before and is_clean(after + before):
        return "%s: %s %s %s restored" % (op["path"], after, ARROW, before)
    return "%s: %s %s %s restored" % (op["path"], shown(after), ARROW, shown(before))
