"""Binary server parameter files, read like strings(1) does: never written.

An spfile is 512-byte blocks, each with a 16-byte header that starts
``C"\\0\\0`` plus a 4-byte checksum, and block-end bytes before the next
header. Parameters are plain text lines between them; one may straddle a
block boundary ("...(SE" | header | "RVICE=...)"), so headers are cut out
before the text is split into lines. Changing one needs Oracle itself:
``ALTER SYSTEM`` on a live instance, or ``CREATE PFILE FROM SPFILE``.
"""
import re

from numatune.families.oracle import pfile

# Block-end marker (optional) + header + checksum.
BLOCK_RE = re.compile(rb"(?:\x01C\x00\x00)?C\"\x00\x00[\x00-\xff]{16}")
PRINTABLE_RE = re.compile(rb"[\x20-\x7e\t\n\x80-\xff]+")
BLOCK = 512


def looks_binary(data):
    return data[:4] == b'C"\x00\x00' or b"\x00" in data[:BLOCK]


def text_of(data):
    """The parameter text of an spfile, headers and padding removed."""
    body = BLOCK_RE.sub(b"", data)
    runs = [m.group(0) for m in PRINTABLE_RE.finditer(body)]
    return "\n".join(r.decode("latin-1") for r in runs)


def parse(data):
    """Entries like pfile.parse: the lines that are parameters; the binary
    rest (header fields that happen to be printable) is skipped."""
    entries = []
    for number, line in enumerate(text_of(data).splitlines(), 1):
        parsed = pfile.parse_line(line)
        if parsed is None:
            continue
        sid, name, _, value, comment = parsed
        entries.append({"line": number, "end": number, "sid": sid, "name": name, "value": value,
                        "comment": comment})
    return entries
