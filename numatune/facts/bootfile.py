"""The boot path for what has no file of its own: /etc/numatune/boot.conf
holds the values a change sets live that nothing else restores at boot
(per-node HugePages, ...), and `numatune boot` (run early at boot by
numatune-boot.service, or the SysV script numatune-boot on RHEL/OL 6)
writes them again.

apply writes the file like any other file (journaled byte for byte; revert
puts the old one back), through the ``bootunit`` family's editor. This module holds the format;
numatune.apply.bootfile replays it.

The format, one setting a line (``#`` starts a comment)::

    /sys/devices/system/node/node1/hugepages/hugepages-2048kB/nr_hugepages = 512
"""
from numatune.facts import keyvalue

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


def _path_of(line):
    stripped = line.strip()
    if stripped.startswith("#"):
        return None
    return stripped.partition(" = ")[0].strip()


def set_line(text, path, value):
    """``text`` with ``path = value`` in place of any line for ``path`` (appended when new)."""
    return keyvalue.set_key(text, path, value, _path_of, HEADER)
