"""The filesystem numatune reads and writes: the real ``/`` or a copy of one.

Every path in numatune is written as on the real host ("/proc/cmdline") and
mapped here, so a snapshot of a server can be planned and applied offline.
"""
import errno
import os

from numatune.rootfs.confine import _MAX_HOPS, _Openat2, _lexical_check, _openat2
from numatune.rootfs.reads import Reads

__all__ = ["Root", "_Openat2", "_openat2"]   # the confinement tests switch openat2 off here


class Root(Reads):
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
        self._init_dirs()

    def __repr__(self):
        return "Root(%r)" % self.path

    def __del__(self):
        if getattr(self, "_dirs", None):
            self.forget()
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
