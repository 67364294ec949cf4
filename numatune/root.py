"""The filesystem numatune reads and writes: the real ``/`` or a copy of one.

Every path in numatune is written as on the real host ("/proc/cmdline") and
mapped here, so a snapshot of a server can be planned and applied offline.
"""
import errno
import fnmatch
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
    filter) says it does not have it. A giant host's plan opens 100,000
    files through it: the argument types are declared once and the
    ``open_how`` of each (flags, mode) built once, which halves the cost of
    a call (converting them per call cost as much as the open itself).
    ctypes is imported at the first call: the live root never makes one, and
    a small `check` would spend a tenth of its start importing it."""
    works = None

    def __init__(self):
        self._hows = {}
        self.syscall = None

    def _bind(self):
        """Load the syscall and the open_how type; False where ctypes or libc cannot."""
        try:
            import ctypes

            class OpenHow(ctypes.Structure):
                _fields_ = [("flags", ctypes.c_uint64), ("mode", ctypes.c_uint64), ("resolve", ctypes.c_uint64)]
            libc = ctypes.CDLL(None, use_errno=True)
            syscall = libc.syscall
            syscall.restype = ctypes.c_long
            syscall.argtypes = [ctypes.c_long, ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_size_t]
        except (ImportError, OSError, AttributeError):
            _Openat2.works = False
            return False
        self.ctypes, self.open_how, self.syscall = ctypes, OpenHow, syscall
        return True

    def _how(self, flags, mode):
        """(address, size) of the open_how for ``flags``/``mode``, kept alive in ``_hows``."""
        key = (flags, mode if flags & os.O_CREAT else 0)
        got = self._hows.get(key)
        if got is None:
            how = self.open_how(flags | os.O_CLOEXEC, key[1], _RESOLVE_IN_ROOT | _RESOLVE_NO_MAGICLINKS)
            got = self._hows[key] = (how, self.ctypes.addressof(how), self.ctypes.sizeof(how))
        return got[1], got[2]

    def __call__(self, dirfd, path, flags, mode=0):
        if self.syscall is None and not self._bind():
            return None
        address, size = self._how(flags, mode)
        name = os.fsencode(path)
        for _ in range(8):  # EAGAIN: a rename raced the lookup; the kernel asks to retry
            fd = self.syscall(_SYS_OPENAT2, dirfd, name, address, size)
            if fd >= 0:
                _Openat2.works = True
                return fd
            err = self.ctypes.get_errno()
            if err != errno.EAGAIN:
                break
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


def _text(data):
    """File bytes as text-mode open() gave them: UTF-8 (other bytes kept by
    surrogateescape) with universal newlines."""
    text = data.decode("utf-8", "surrogateescape")
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def _read_all(fd):
    """A whole file in bytes. A giant host has 100,000 small sysfs attributes
    to read, and open() builds a buffered reader (and a decoder, in text
    mode) for each, costing about as much as the I/O itself: raw reads are
    1.6x faster per file (bench/run.py). procfs files (/proc/interrupts)
    come in pieces, so read until the end."""
    try:
        data = os.read(fd, 65536)
        if not data:
            return data
        chunks = [data]
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
        return chunks[0] if len(chunks) == 1 else b"".join(chunks)
    finally:
        os.close(fd)


class Root:
    """Under ``--root`` every path resolves inside the root: a symlink in a
    copied tree, relative (``../../..``) or absolute, is followed as if the
    root were ``/`` (openat2 RESOLVE_IN_ROOT, else a component walk whose
    result has no link left, opened with O_NOFOLLOW). On the live ``/`` the
    kernel's own links (all of /sys) are followed as they are."""

    def __init__(self, path="/"):
        self.path = os.path.abspath(path)
        # Only the real root may run host tools, open sockets or touch a database.
        self.is_live = self.path == "/"
        self._real = os.path.realpath(self.path)
        self._fd = None

    def __repr__(self):
        return "Root(%r)" % self.path

    def __del__(self):
        if self._fd is not None:
            os.close(self._fd)

    def _dirfd(self):
        if self._fd is None:
            self._fd = os.open(self.path, os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
        return self._fd

    def join(self, path, follow=True):
        """The real path of host ``path``: inside the root, every link on the
        way resolved (the last one too unless ``follow`` is False)."""
        _lexical_check(path)
        if self.is_live:
            return path
        if not follow:
            parent, name = path.rstrip("/").rsplit("/", 1) if path.rstrip("/") else ("", "")
            if name in ("", ".", ".."):
                return self.join(path)
            return self.join(parent or "/").rstrip("/") + "/" + name
        return self.path + self._resolve(path)

    def _resolve(self, path):
        """Host path of ``path`` with every link resolved inside the root."""
        if _Openat2.works is not False:
            try:
                fd = _openat2(self._dirfd(), path.lstrip("/") or ".", os.O_PATH)
            except OSError as e:
                if e.errno in (errno.ENOENT, errno.ENOTDIR):
                    # Not there (yet): the walk resolves what is, a dangling
                    # link included (its target, inside the root).
                    return self._walk(path)
                if e.errno == errno.ELOOP:
                    raise
                return self._walk(path)
            if fd is not None:
                try:
                    real = os.readlink("/proc/self/fd/%d" % fd)
                except OSError:
                    real = None
                finally:
                    os.close(fd)
                if real == self._real:
                    return "/"
                if real is not None and real.startswith(self._real + "/"):
                    return real[len(self._real):]
        return self._walk(path)

    def _walk(self, path, follow=True):
        """Component by component, each link read and followed inside the
        root; the result holds no link (but a racing rename: opens add
        O_NOFOLLOW)."""
        parts = [p for p in path.split("/") if p]
        resolved = []
        hops = 0
        while parts:
            part = parts.pop(0)
            if part == "..":
                if resolved:
                    resolved.pop()
                continue
            if part == ".":
                continue
            if not parts and not follow:
                resolved.append(part)
                break
            try:
                candidate = "/" + "/".join(resolved + [part])
                target = os.readlink(self.join(candidate) if self.is_live else self.path + candidate)
            except OSError:
                resolved.append(part)
                continue
            hops += 1
            if hops > _MAX_HOPS:
                raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), path)
            if target.startswith("/"):
                resolved = []
            parts = [p for p in target.split("/") if p] + parts
        return "/" + "/".join(resolved)

    def write_atomic(self, path, data, mode, uid=None, gid=None):
        """Replace ``path`` with ``data`` (temp file, fsync, rename), confined: numatune/apply/root_write.py."""
        from numatune.apply import root_write
        root_write.write_atomic(self, path, data, mode, uid, gid)

    def remove_tmp(self, path):
        """The temp file of a write_atomic a crash cut short."""
        from numatune.apply import root_write
        root_write.remove_tmp(self, path)

    def open(self, path, flags, mode=0o666):
        """os.open of host ``path``, confined to the root."""
        if self.is_live:
            return os.open(self.join(path), flags | os.O_CLOEXEC, mode)
        _lexical_check(path)
        if _Openat2.works is not False:
            fd = _openat2(self._dirfd(), path.lstrip("/") or ".", flags, mode)
            if fd is not None:
                return fd
        return os.open(self.path + self._walk(path), flags | os.O_NOFOLLOW | os.O_CLOEXEC, mode)

    def rel(self, real_path):
        """The host path of a real filesystem path inside this root."""
        if self.is_live:
            return real_path
        return real_path[len(self.path):] or "/"

    def read_text(self, path, default=None):
        try:
            text = _text(_read_all(self.open(path, os.O_RDONLY)))
        except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
            return default
        except OSError:
            # sysfs attributes that exist but cannot be read (EINVAL, EIO,
            # EACCES) say "not available here", like missing ones.
            return default
        return text

    def read_texts(self, directory, names):
        """{name: text or None} of the files ``names`` in one directory, read
        as read_text reads each: the directory is resolved once and each file
        opened by name from its descriptor, not resolved from the root again
        (a giant host reads a dozen attributes from each of 5,000 block
        devices: a third less per read). Under --root a name that is a link is
        not followed from there: it is read by its whole path, inside the root."""
        for name in names:
            if "/" in name or name in ("", ".", ".."):
                raise ValueError("read_texts takes names in the directory, not paths: %r" % name)
        base = directory.rstrip("/") + "/"
        try:
            if self.is_live:
                fd, nofollow = os.open(self.join(directory), os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC), 0
            else:
                fd, nofollow = self._open_dir(directory, os.O_PATH), os.O_NOFOLLOW
        except OSError:
            return {name: None for name in names}  # no such directory: none of its files
        if fd is None:
            return {name: self.read_text(base + name) for name in names}
        out = {}
        try:
            for name in names:
                try:
                    out[name] = _text(_read_all(os.open(name, os.O_RDONLY | os.O_CLOEXEC | nofollow, dir_fd=fd)))
                except OSError as e:
                    out[name] = self.read_text(base + name) if e.errno == errno.ELOOP and nofollow else None
        finally:
            os.close(fd)
        return out

    def read_value(self, path, default=None):
        """A one-value sysfs/procfs file, stripped."""
        text = self.read_text(path)
        # Captures (and some drivers) pad attributes with NUL bytes.
        return default if text is None else text.replace("\x00", "").strip()

    def read_bytes(self, path, default=None):
        try:
            return _read_all(self.open(path, os.O_RDONLY))
        except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
            return default

    def exists(self, path):
        try:
            return os.path.exists(self.join(path))
        except OSError:
            return False

    def isdir(self, path):
        try:
            return os.path.isdir(self.join(path))
        except OSError:
            return False

    def islink(self, path):
        try:
            return os.path.islink(self.join(path, follow=False))
        except OSError:
            return False

    def _open_dir(self, path, flags):
        """A descriptor of directory ``path`` opened inside the root, or None
        where openat2 is missing (then the caller resolves the path instead)."""
        if self.is_live or _Openat2.works is False:
            return None
        _lexical_check(path)
        return _openat2(self._dirfd(), path.lstrip("/") or ".", flags | os.O_DIRECTORY)

    def readlink(self, path, default=None):
        try:
            parent, _, name = path.rstrip("/").rpartition("/")
            # The link read relative to its directory's descriptor: one openat2, not the
            # resolve-then-readlink of join() (a giant host reads 15,000 sysfs links).
            fd = self._open_dir(parent or "/", os.O_PATH) if name not in ("", ".", "..") else None
            if fd is None:
                return os.readlink(self.join(path, follow=False))
            try:
                return os.readlink(name, dir_fd=fd)
            finally:
                os.close(fd)
        except OSError:
            return default

    def realpath(self, path):
        """Resolve symlinks inside the root (absolute links stay inside it)."""
        _lexical_check(path)
        try:
            return self._walk(path)
        except OSError:
            return path  # a link loop: the path as given, which reads as missing

    def listdir(self, path):
        try:
            fd = self._open_dir(path, os.O_RDONLY)  # listed through its descriptor, as readlink
            if fd is None:
                return sorted(os.listdir(self.join(path)))
            try:
                return sorted(os.listdir(fd))
            finally:
                os.close(fd)
        except (OSError, ValueError):
            return []

    def glob(self, directory, pattern):
        """Host paths of the entries of ``directory`` whose names match."""
        return [
            directory.rstrip("/") + "/" + name
            for name in self.listdir(directory)
            if fnmatch.fnmatchcase(name, pattern)
        ]
