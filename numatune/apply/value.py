"""Single-value sysfs/procfs files: /proc/sys/*, THP, nr_hugepages."""
import base64
import os

from numatune.apply import root_write
from numatune.facts.kernel import normalize, parse_bracketed
from numatune.report.grouped import ARROW, value as shown
from numatune.rootfs.readfile import text as _text


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
    raw = None
    if root.is_live:
        before = read_as(root, write.path, write.format)
    else:
        try:
            raw = root.read_bytes(write.path)
        except OSError:     # unreadable reads as missing, as read_text has it
            raw = None
        before = None if raw is None else _parse(_text(raw), write.format)
    if before is None:
        raise FileNotFoundError(2, "no such file", root.join(write.path))
    op = {"kind": "value", "path": write.path, "format": write.format, "before": before, "after": write.value}
    if raw is not None:
        op["raw"] = base64.b64encode(raw).decode()
    return op


def _write(root, path, value):
    """The bytes written, or None when the write took less than all of them."""
    # One write(2) of the whole value, as `echo value > file` does; sysfs
    # rejects a value by failing this call (EINVAL) or the close.
    data = value if isinstance(value, bytes) else (value + "\n").encode()
    fd = root_write.open_value(root, path)
    try:
        # One write: sysfs takes a value in one call. A copied tree killed
        # here holds an empty file; the journal's "intent"/"undoing" tells
        # the next revert it was ours and to finish it.
        written = os.write(fd, data)
    finally:
        os.close(fd)
    return data if written == len(data) else None


def perform(root, op):
    data = _write(root, op["path"], op["after"])
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


def current_sides(root, op):
    """(holds "before", holds "after") from one read: revert asks both of
    every op, and a giant host's revert has 35,000 of them."""
    now = read_as(root, op["path"], op["format"])
    return now == op["before"], now == op["after"]


def restore(root, op):
    if "raw" in op and not root.is_live:
        _write(root, op["path"], base64.b64decode(op["raw"]))
    else:
        _write(root, op["path"], op["before"])


def describe(op):
    return "%s: %s %s %s" % (op["path"], shown(op["before"]), ARROW, shown(op["after"]))
