"""GRUB's environment block (grubenv): exactly 1024 bytes, a header line,
name=value lines and '#' padding. Pure parsing; bootloader.py assembles."""
import re

from numatune.errors import BootConfigError

GRUBENV_SIZE = 1024
GRUBENV_HEADER = b"# GRUB Environment Block\n"
# Text files go through bytes so an edit can hand back exactly what it did not change.
ENCODING = ("utf-8", "surrogateescape")


def grubenv_layout(data, path="grubenv"):
    """[(name, raw value bytes, start, end)] of the variables, and where the padding starts.

    Lines starting with '#' are comments to GRUB; the block ends in '#' padding
    without a newline.  Anything else means GRUB and numatune could disagree.
    """
    if not data.startswith(GRUBENV_HEADER):
        raise BootConfigError(
            "%s: not a GRUB environment block (no '# GRUB Environment Block' header)" % path,
            "recreate it with `grub2-editenv %s create` and set saved_entry again" % path)
    if len(data) != GRUBENV_SIZE:
        raise BootConfigError(
            "%s: GRUB environment block is %d bytes, not %d" % (path, len(data), GRUBENV_SIZE),
            "rewrite it with grub2-editenv; GRUB may refuse a block of another size")
    variables, pos, lineno = [], len(GRUBENV_HEADER), 1
    while True:
        nl = data.find(b"\n", pos)
        if nl < 0:
            break
        lineno += 1
        line = data[pos:nl]
        if not line.startswith(b"#"):
            if b"=" not in line:
                raise BootConfigError(
                    "%s:%d: not name=value: %r" % (path, lineno, line.decode(*ENCODING)),
                    "fix it with grub2-editenv")
            name, value = line.split(b"=", 1)
            variables.append((name.decode(*ENCODING), value, pos, nl + 1))
        pos = nl + 1
    if data[pos:].strip(b"#"):
        raise BootConfigError("%s: text after the '#' padding of the GRUB environment block" % path,
                              "rewrite it with grub2-editenv")
    return variables, pos


def parse_grubenv(data, path="grubenv"):
    """name -> value of a 1024-byte GRUB environment block."""
    variables, _ = grubenv_layout(data, path)
    # grub-editenv escapes backslashes and newlines in values with a backslash.
    return {name: re.sub(r"\\(.)", r"\1", value.decode(*ENCODING), flags=re.S)
            for name, value, _, _ in variables}
