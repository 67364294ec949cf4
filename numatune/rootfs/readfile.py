"""Reading one host file whole, safely: a FIFO never blocks, a device is
never read, and no file is read past what it can sensibly hold.

Every read of a host file goes through ``read_fd`` (Root's reads, the policy
files, a saved plan). Files are opened with O_NONBLOCK, so the open of a
FIFO returns at once; what is not a regular file is then refused with one
line (sysfs and procfs attributes are regular files). A regular file that
grows without end (a device node cannot get here, but a file the kernel
generates can) is read up to its limit and refused beyond it.
"""
import os
import stat

from numatune.errors import HostError

KIB, MIB = 1024, 1024 * 1024
# What each kind of file can sensibly hold. A sysfs attribute is one page
# (PAGE_SIZE, 64 KiB on some arm64/ppc64 kernels); procfs tables grow with
# the host: /proc/interrupts of 480 CPUs and 5,000 IRQs is ~25 MB. A
# configuration file (grub, sysctl.d, multipath.conf, udev rules, a pfile)
# is kilobytes; 4 MiB leaves room and keeps an editor's work bounded (a
# 50 MB /etc/default/grub took the boot family 57 s to parse).
_SYS_LIMIT, _PROC_LIMIT = 1 * MIB, 64 * MIB
DEFAULT_LIMIT = 4 * MIB
POLICY_LIMIT = 4 * MIB

# One fstat tells what a path is; named for the one-line refusal.
_ISREG, _ISDIR = stat.S_ISREG, stat.S_ISDIR
_KINDS = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a directory"))


def _size(n):
    return "%d MiB" % (n // MIB) if n >= MIB else "%d KiB" % (n // KIB)


def refuse_kind(path, mode):
    """HostError for a path that is not a regular file (None when it is one)."""
    if stat.S_ISREG(mode):
        return None
    what = next((name for test, name in _KINDS if test(mode)), "not a regular file")
    return HostError("%s is %s, not a regular file" % (path, what),
                     "numatune reads only regular files there; remove or replace it; nothing was changed")


def too_big(path, limit):
    return HostError("%s holds more than %s, more than such a file can sensibly hold" % (path, _size(limit)),
                     "check the file (a runaway or planted file?); nothing was changed")


def limit_for(path):
    """What host file ``path`` can sensibly hold, by where it lives."""
    return _SYS_LIMIT if path.startswith("/sys/") else _PROC_LIMIT if path.startswith("/proc/") else DEFAULT_LIMIT


def read_fd(fd, path, limit=None, st=None, keep=False):
    """The bytes of the file open on ``fd`` (closed here unless ``keep``), at
    most ``limit``; ``st`` is its fstat when the caller has it.

    A giant host has 100,000 small sysfs attributes to read, and open()
    builds a buffered reader (and a decoder, in text mode) for each, costing
    about as much as the I/O itself: raw reads are 1.6x faster per file
    (bench/run.py). procfs files (/proc/interrupts) come in pieces and say
    size 0, so read until the end, never past the limit."""
    try:
        st = st or os.fstat(fd)
        if not _ISREG(st.st_mode):
            if _ISDIR(st.st_mode):
                raise IsADirectoryError(21, "is a directory", path)   # read as missing, as before
            raise refuse_kind(path, st.st_mode)
        if limit is None:
            limit = limit_for(path)
        size = st.st_size
        if size > limit:
            raise too_big(path, limit)
        data = os.read(fd, size + 1 if size else 65536)
        # A plain file that gave all it has is done; sysfs says 4096 whatever it
        # holds and procfs 0, so those are read to the end.
        if not data or len(data) == size:
            return data
        return _rest(fd, data, path, limit)
    finally:
        if not keep:
            os.close(fd)


def _rest(fd, data, path, limit):
    """``data`` and what ``fd`` holds after it, at most ``limit`` in all."""
    chunks, total = [data], len(data)
    if total > limit:
        raise too_big(path, limit)
    while True:
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            break
        total += len(chunk)
        if total > limit:
            raise too_big(path, limit)
        chunks.append(chunk)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def read_named(fd, directory, name, limit):
    """read_fd(fd, directory + name, limit), the path built only when it is
    needed: a giant host's plan reads 90,000 sysfs attributes of a few
    bytes, a dozen names of one directory at a time (Root.read_texts), and
    one read gives each whole. Whatever is not that (not a regular file,
    too big, more to read) goes the way read_fd goes."""
    try:
        st = os.fstat(fd)
        size = st.st_size
        if not _ISREG(st.st_mode) or size > limit:
            return read_fd(fd, directory + name, limit, st, keep=True)
        data = os.read(fd, size + 1 if size else 65536)
        if not data or len(data) == size:
            return data
        return _rest(fd, data, directory + name, limit)
    finally:
        os.close(fd)


def read_path(path, limit):
    """A file outside any root (a policy, a saved plan): opened without
    blocking, refused unless regular, read up to ``limit``."""
    return read_fd(os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC), path, limit)


def text(data):
    """File bytes as text-mode open() gave them: UTF-8 (other bytes kept by
    surrogateescape) with universal newlines."""
    out = data.decode("utf-8", "surrogateescape")
    return out.replace("\r\n", "\n").replace("\r", "\n") if "\r" in out else out
