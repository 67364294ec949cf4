"""The boot path for what has no file of its own: /etc/numatune/boot.conf
holds the values a change sets live that nothing else restores at boot
(per-node HugePages, ...), and `numatune boot` (run early at boot by
numatune-boot.service, or the SysV script numatune-boot on RHEL/OL 6)
writes them again.

apply writes the file like any other file (journaled byte for byte; revert
puts the old one back), through the ``bootunit`` family's editor; this
module only reads it and replays it, so the boot runs without a policy, a
plan or a journal: it restores what an applied transaction left, it does
not decide anything.

The format, one setting a line (``#`` starts a comment)::

    /sys/devices/system/node/node1/hugepages/hugepages-2048kB/nr_hugepages = 512
"""
import os
import sys

PATH = "/etc/numatune/boot.conf"
HEADER = ("# Written by `numatune apply`: values numatune sets live that no other file keeps.\n"
          "# `numatune boot` writes them again at boot (numatune-boot.service, or the SysV\n"
          "# script numatune-boot); `numatune revert` puts this file back as it was.\n")


def parse(text):
    """[(path, value)] in file order; the last line for a path wins."""
    out = {}
    for line in (text or "").splitlines():
        line = line.strip()
        if not line or line.startswith("#") or " = " not in line:
            continue
        path, _, value = line.partition(" = ")
        out.pop(path.strip(), None)
        out[path.strip()] = value.strip()
    return list(out.items())


def set_line(text, path, value):
    """``text`` with ``path = value`` in place of any line for ``path`` (appended when new)."""
    lines = (text if text is not None else HEADER).splitlines(True)
    out, done = [], False
    for line in lines:
        stripped = line.strip()
        if not stripped.startswith("#") and stripped.partition(" = ")[0].strip() == path:
            if not done:
                out.append("%s = %s\n" % (path, value))
                done = True
            continue
        out.append(line)
    if not done:
        if out and not out[-1].endswith("\n"):
            out[-1] += "\n"
        out.append("%s = %s\n" % (path, value))
    return "".join(out)


def run(root, out=None):
    """Write every value of the boot file under ``root``; one line per
    setting on ``out`` (the journal, under systemd). Returns the number of
    settings that failed (a missing file on this boot, a value the kernel
    refused): the others are still written."""
    out = out or sys.stdout
    text = root.read_text(PATH)
    if text is None:
        out.write("numatune boot: %s does not exist: nothing to restore\n" % PATH)
        return 0
    failed = 0
    for path, value in parse(text):
        before = root.read_value(path)
        try:
            fd = root.open(path, os.O_WRONLY | os.O_TRUNC)
            try:
                os.write(fd, (value + "\n").encode())
            finally:
                os.close(fd)
        except OSError as e:
            failed += 1
            out.write("numatune boot: %s: not set to %s: %s\n" % (path, value, e.strerror or e))
            continue
        after = root.read_value(path)
        # A pool the kernel filled less than asked says so; the next setting still runs.
        note = "" if after is None or after == value else " (the kernel holds %s)" % after
        out.write("numatune boot: %s = %s (was %s)%s\n" % (path, value, before, note))
    out.flush()
    return failed
