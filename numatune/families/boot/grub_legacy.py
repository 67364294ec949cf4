"""GRUB legacy (0.97), the bootloader of RHEL/OL 5 and 6: one
``grub.conf`` (``/boot/grub/grub.conf``; ``menu.lst`` and ``/etc/grub.conf``
are links to it; ``/boot/efi/EFI/redhat/grub.conf`` on UEFI hosts) with a
``title`` block per kernel whose ``kernel`` line carries the arguments.

A Xen entry boots the hypervisor with ``kernel /xen.gz`` and Linux as the
first ``module`` line: that line is the one with the kernel's arguments.
Parsing is pure; the editor (bootloader_edit.edit_grub_conf) changes only
the argument part of those lines and keeps every other byte.
"""
from __future__ import annotations

import re

from numatune.model.records import record

PATHS = ("/boot/grub/grub.conf", "/boot/grub/menu.lst", "/etc/grub.conf")
EFI_NAME = "grub.conf"
# Compiled when a legacy grub.conf is first read (RHEL 6): every other host's plan loads this module
# without reading one.
_TITLE = r"^\s*title(?:\s+|=)(.*?)\s*$"
_DEFAULT = r"^\s*default(?:\s*=\s*|\s+)(\S+)"
_KERNEL = r"^(\s*(kernel|module)(?:\s*=\s*|\s+)(?:--\S+\s+)*(\S+))"


@record
class LegacyEntry:
    title: str
    lineno: int         # 0-based index, in text.splitlines(), of the line with Linux's arguments
    kernel: str
    args_start: int     # offset in that line where the arguments begin
    index: int          # position among the title blocks (what default= counts)


def _is_xen(path):
    return re.search(r"(^|/)xen[^/]*\.gz$", path) is not None


def scan(text):
    """([LegacyEntry], default index or None) of a grub.conf."""
    entries, default, current, xen = [], None, None, False
    count = -1
    title_rx, default_rx, kernel_rx = re.compile(_TITLE), re.compile(_DEFAULT), re.compile(_KERNEL)
    for n, line in enumerate(text.splitlines()):
        if line.lstrip().startswith("#"):
            continue
        m = default_rx.match(line)
        if m and current is None:
            default = int(m.group(1)) if m.group(1).isdigit() else None  # "saved": not known here
            continue
        m = title_rx.match(line)
        if m:
            count += 1
            current, xen = (m.group(1), count), False
            continue
        m = kernel_rx.match(line)
        if not m or current is None:
            continue
        command, path = m.group(2), m.group(3)
        if command == "kernel" and _is_xen(path):
            xen = True  # Linux's arguments are on the next module line
            continue
        if command == "module" and not (xen and "vmlinuz" in path):
            continue
        if entries and entries[-1].index == current[1]:
            continue  # one Linux line per entry
        entries.append(LegacyEntry(current[0], n, path, m.end(1), current[1]))
    return entries, default
