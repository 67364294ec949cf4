"""The filesystem numatune reads and writes: the real ``/`` or a copy of one.

Every path in numatune is written as on the real host ("/proc/cmdline") and
mapped here, so a snapshot of a server can be planned and applied offline.
"""
import fnmatch
import os


def _read_all(real):
    """A whole file in bytes. A giant host has 100,000 small sysfs attributes
    to read, and open() builds a buffered reader (and a decoder, in text
    mode) for each, costing about as much as the I/O itself: raw reads are
    1.6x faster per file (bench/run.py). procfs files (/proc/interrupts)
    come in pieces, so read until the end."""
    fd = os.open(real, os.O_RDONLY | os.O_CLOEXEC)
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
    def __init__(self, path="/"):
        self.path = os.path.abspath(path)
        # Only the real root may run host tools, open sockets or touch a database.
        self.is_live = self.path == "/"

    def __repr__(self):
        return "Root(%r)" % self.path

    def join(self, path):
        if not path.startswith("/"):
            raise ValueError("root paths are absolute: %r" % path)
        if self.is_live:
            return path
        return self.path + path

    def rel(self, real_path):
        """The host path of a real filesystem path inside this root."""
        if self.is_live:
            return real_path
        return real_path[len(self.path):] or "/"

    def read_text(self, path, default=None):
        try:
            text = _read_all(self.join(path)).decode("utf-8", "surrogateescape")
        except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
            return default
        except OSError:
            # sysfs attributes that exist but cannot be read (EINVAL, EIO,
            # EACCES) say "not available here", like missing ones.
            return default
        # What text-mode open() did: universal newlines.
        return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text

    def read_value(self, path, default=None):
        """A one-value sysfs/procfs file, stripped."""
        text = self.read_text(path)
        # Captures (and some drivers) pad attributes with NUL bytes.
        return default if text is None else text.replace("\x00", "").strip()

    def read_bytes(self, path, default=None):
        try:
            return _read_all(self.join(path))
        except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
            return default

    def exists(self, path):
        return os.path.exists(self.join(path))

    def isdir(self, path):
        return os.path.isdir(self.join(path))

    def islink(self, path):
        return os.path.islink(self.join(path))

    def readlink(self, path, default=None):
        try:
            return os.readlink(self.join(path))
        except OSError:
            return default

    def realpath(self, path):
        """Resolve symlinks inside the root (absolute links stay inside it)."""
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
            candidate = "/" + "/".join(resolved + [part])
            target = self.readlink(candidate)
            if target is None:
                resolved.append(part)
                continue
            hops += 1
            if hops > 40:
                return candidate
            if target.startswith("/"):
                resolved = []
            parts = [p for p in target.split("/") if p] + parts
        return "/" + "/".join(resolved)

    def listdir(self, path):
        try:
            return sorted(os.listdir(self.join(path)))
        except OSError:
            return []

    def glob(self, directory, pattern):
        """Host paths of the entries of ``directory`` whose names match."""
        return [
            directory.rstrip("/") + "/" + name
            for name in self.listdir(directory)
            if fnmatch.fnmatchcase(name, pattern)
        ]
