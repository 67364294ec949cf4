"""Confinement under ``--root``: openat2(2) with RESOLVE_IN_ROOT through
ctypes, and the lexical check every host path passes first. Root (numatune/root.py)
resolves, reads and writes through these."""
import errno
import os

from numatune.errors import RefusedError

# openat2(2) (Linux >= 5.6; RHEL 8's 4.18 lacks it): RESOLVE_IN_ROOT makes the
# kernel resolve every link and ".." as if the root were "/", race-free.
_SYS_OPENAT2 = 437          # the same number on every architecture since 5.1
_RESOLVE_NO_MAGICLINKS = 0x02
_RESOLVE_IN_ROOT = 0x10
_MAX_HOPS = 40              # the kernel's own limit on links in one lookup


class _Openat2:
    """The syscall through ctypes, or None once the kernel (or a seccomp
    filter) says it does not have it. A giant host's plan opens 18,000
    directories and files through it, so a call converts nothing: every
    argument but the name and the descriptor is a ctypes object made once
    (the syscall number and the size as C longs, each flags' ``open_how`` by
    address), and the function has no declared argument types to check them
    against. An open and close of /proc/irq/N/smp_affinity_list costs 1.8 us
    so (2.9 us with declared types), as much as opening N by name from a kept
    /proc/irq and the file by name from that. ctypes is imported at the
    first call: the live root never makes one, and a small `check` would
    spend a tenth of its start importing it."""
    works = None

    def __init__(self):
        self._hows = {}
        self._by_flags = {}
        self.syscall = None

    def _bind(self):
        """Load the syscall and the open_how type; False where ctypes or libc cannot."""
        try:
            import ctypes
            import sys

            class OpenHow(ctypes.Structure):
                _fields_ = [("flags", ctypes.c_uint64), ("mode", ctypes.c_uint64), ("resolve", ctypes.c_uint64)]
            libc = ctypes.CDLL(None, use_errno=True)
            syscall = libc.syscall
            syscall.restype = ctypes.c_long
            # syscall(2) is variadic and reads each argument as a C long: the number, the address and
            # the size are passed as such; the descriptor goes as a C int (the kernel reads an int).
            # No argtypes: a declared list costs a conversion per argument per call.
            number = ctypes.c_long(_SYS_OPENAT2)
            size = ctypes.c_long(ctypes.sizeof(OpenHow))
        except (ImportError, OSError, AttributeError):
            _Openat2.works = False
            return False
        self.ctypes, self.open_how, self._number, self._size = ctypes, OpenHow, number, size
        self._encoding, self._errors = sys.getfilesystemencoding(), sys.getfilesystemencodeerrors()  # fsencode's
        self.syscall = syscall
        return True

    def _how(self, flags, mode):
        """The open_how for ``flags``/``mode`` as an argument, kept alive in ``_hows``
        (and, for an open that creates nothing, in ``_by_flags`` under its flags alone)."""
        key = (flags, mode if flags & os.O_CREAT else 0)
        got = self._hows.get(key)
        if got is None:
            how = self.open_how(flags | os.O_CLOEXEC, key[1], _RESOLVE_IN_ROOT | _RESOLVE_NO_MAGICLINKS)
            got = self._hows[key] = (how, self.ctypes.c_void_p(self.ctypes.addressof(how)))
            if not flags & os.O_CREAT:
                self._by_flags[flags] = got[1]
        return got[1]

    def __call__(self, dirfd, path, flags, mode=0):
        how = self._by_flags.get(flags)     # O_CREAT's never: its mode goes with it
        if how is None:
            if self.syscall is None and not self._bind():
                return None
            how = self._how(flags, mode)
        fd = self.syscall(self._number, dirfd, path.encode(self._encoding, self._errors), how, self._size)
        if fd >= 0:
            if _Openat2.works is not True:
                _Openat2.works = True
            return fd
        return self._failed(dirfd, path, flags, mode)

    def _failed(self, dirfd, path, flags, mode):
        """The descriptor of a call retried after EAGAIN (a rename raced the
        lookup; the kernel asks to retry), None where the kernel lacks the
        call, else the error raised."""
        err = self.ctypes.get_errno()
        for _ in range(7):
            if err != errno.EAGAIN:
                break
            fd = self.syscall(self._number, dirfd, path.encode(self._encoding, self._errors),
                              self._how(flags, mode), self._size)
            if fd >= 0:
                _Openat2.works = True
                return fd
            err = self.ctypes.get_errno()
        if err in (errno.ENOSYS, errno.EPERM) and _Openat2.works is None:
            _Openat2.works = False
            return None
        raise OSError(err, os.strerror(err), path)


_openat2 = _Openat2()


def _lexical_check(path):
    """A host path whose ".." climbs above "/" (a forged journal line, a
    policy path) is refused, not clamped: it names nothing on the host."""
    if not path.startswith("/"):
        raise ValueError("root paths are absolute: %r" % path)
    if "/.." not in path:
        return
    depth = 0
    for part in path.split("/"):
        if part == "..":
            depth -= 1
            if depth < 0:
                raise RefusedError("path %r leaves the root" % path,
                                   "a journal or policy path may not climb above / with '..'")
        elif part and part != ".":
            depth += 1
