"""What a numatune run touched, from `strace -f -e trace=openat,openat2,readlink,readlinkat,getdents64`.

``ops(text, prefixes)`` turns a trace into the floor's work list: each path
under one of ``prefixes`` once, in first-touch order, as R (open and read a
file), L (list a directory) or K (read a symlink). Opens that failed are kept:
probing a path that is not there costs the plan a syscall, and the floor
pays it too. Under --root numatune opens with openat2(root fd, "relative
path", RESOLVE_IN_ROOT): the path is the root fd's path joined with it; its
O_PATH lookups (resolving a path without opening it) are not reads. A
directory opened for reading is a listing (os.listdir(fd) reads a dup of the
descriptor, which the trace cannot follow), and readlinkat(dirfd, name) reads
the link ``name`` in the directory that descriptor was opened on.
"""
import re

_LINE = re.compile(r"^(?:\[pid\s+)?(\d+)\]?\s+(openat2|openat|readlinkat|readlink|getdents64)\((.*)\)\s+=\s+(-?\d+)")
_OPENAT = re.compile(r'^(AT_FDCWD|-?\d+), "((?:[^"\\]|\\.)*)", ([A-Z_|0-9]+)')
_OPENAT2 = re.compile(r'^(-?\d+), "((?:[^"\\]|\\.)*)", \{flags=([A-Z_|0-9]+)')
_READLINK = re.compile(r'^"((?:[^"\\]|\\.)*)", ')
_READLINKAT = re.compile(r'^(-?\d+), "((?:[^"\\]|\\.)*)", ')
_GETDENTS = re.compile(r"^(\d+), ")
_ESCAPE = re.compile(r"\\(x[0-9a-fA-F]{2}|[0-7]{1,3}|.)")


def _unescape(s):
    """strace's C-style escapes back to the path's bytes, as a str like os.fsdecode gives."""
    out, pos = bytearray(), 0
    for m in _ESCAPE.finditer(s):
        out += s[pos:m.start()].encode("utf-8", "surrogateescape")
        e = m.group(1)
        if e[0] == "x":
            out.append(int(e[1:], 16))
        elif e[0].isdigit():
            out.append(int(e, 8))
        else:
            out += {"n": b"\n", "t": b"\t", "r": b"\r"}.get(e, e.encode())
        pos = m.end()
    out += s[pos:].encode("utf-8", "surrogateescape")
    return out.decode("utf-8", "surrogateescape")


class _Flags:
    def __init__(self, flags):
        self.flags = flags


def ops(text, prefixes):
    """[(op, path)] of the paths under ``prefixes`` that the traced run touched."""
    prefixes = tuple(p.rstrip("/") + "/" for p in prefixes)
    wanted = lambda path: path.startswith(prefixes) or path + "/" in prefixes  # noqa: E731
    fds = {}
    out, seen = [], set()

    def add(op, path):
        if wanted(path) and (op, path) not in seen:
            seen.add((op, path))
            out.append((op, path))

    for line in text.splitlines():
        m = _LINE.match(line)
        if not m:
            continue  # "<unfinished ...>" halves, signals, exit lines
        pid, call, args, result = m.group(1), m.group(2), m.group(3), int(m.group(4))
        if call in ("openat", "openat2"):
            o = (_OPENAT if call == "openat" else _OPENAT2).match(args)
            if not o:
                continue
            rel = _unescape(o.group(2))
            if call == "openat2" or (o.group(1) != "AT_FDCWD" and not rel.startswith("/")):
                # Relative to a directory descriptor: openat2 inside the root, or openat
                # of a name in a directory numatune resolved once (Root.read_texts).
                base = fds.get((pid, int(o.group(1))))
                if base is None or ("O_PATH" in o.group(3) and "O_DIRECTORY" not in o.group(3)):
                    continue
                path, flags = (base.rstrip("/") + "/" + rel) if rel != "." else base, o.group(3)
            else:
                path, flags = rel, o.group(3)
            o = _Flags(flags)
            if "O_DIRECTORY" in o.flags:
                if result >= 0:
                    fds[(pid, result)] = path
                if "O_PATH" not in o.flags:
                    add("L", path)
            elif not re.search(r"O_WRONLY|O_RDWR|O_CREAT|O_PATH", o.flags):
                add("R", path)
        elif call == "getdents64":
            g = _GETDENTS.match(args)
            path = fds.get((pid, int(g.group(1)))) if g else None
            if path is not None:
                add("L", path)
        elif call == "readlinkat":
            r = _READLINKAT.match(args)
            base = fds.get((pid, int(r.group(1)))) if r else None
            if base is not None:
                add("K", base.rstrip("/") + "/" + _unescape(r.group(2)))
        elif call == "readlink":
            r = _READLINK.match(args)
            if r:
                add("K", _unescape(r.group(1)))
    return out


def ops_text(items):
    return "".join("%s\t%s\n" % item for item in items)


def summary(items):
    counts = {"R": 0, "L": 0, "K": 0}
    for op, _ in items:
        counts[op] += 1
    return "%d files read, %d directories listed, %d links read" % (counts["R"], counts["L"], counts["K"])
