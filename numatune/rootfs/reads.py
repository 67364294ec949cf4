"""Root's reads: every file, link and listing by name from its directory's
descriptor (numatune/rootfs/dirs.py keeps the directories open, confined).

Every read opens with O_NONBLOCK (a FIFO never blocks the run), refuses
what is not a regular file, and stops at what the file can hold
(numatune/rootfs/readfile.py).
"""
import errno
import fnmatch
import os
import stat

from numatune.errors import ExhaustedError
from numatune.rootfs.confine import _Openat2, _lexical_check
from numatune.rootfs.dirs import _DIR, NOT_NAMES, READ, Dirs, split
from numatune.rootfs.readfile import _ISREG, _rest, limit_for, read_fd, read_named, text

# A read failing with one of these says nothing of the file: never read as "missing".
_EXHAUSTED = (errno.EMFILE, errno.ENFILE, errno.ENOMEM)


def _unless_exhausted(error, path):
    if getattr(error, "errno", None) in _EXHAUSTED:
        raise ExhaustedError(path, error) from None


def _name_only(name):
    if "/" in name or name in NOT_NAMES:
        raise ValueError("read_texts takes names in the directory, not paths: %r" % name)


class Reads(Dirs):
    """The read half of Root, from the directories Dirs keeps."""

    def _stat(self, path, follow):
        """os.stat of host ``path`` from its directory's descriptor."""
        parent, name = split(path)
        if parent is None:
            return os.stat(self.join(path, follow=follow), follow_symlinks=follow)
        with self._dirs_lock:
            st = os.stat(name, dir_fd=self._dir(parent)[0], follow_symlinks=follow and self.is_live)
            if not (follow and not self.is_live and stat.S_ISLNK(st.st_mode)):
                return st
            try:
                return os.fstat(self._dir(path)[0])     # a link to a directory, followed inside the root
            except OSError:
                pass
        return os.stat(self.join(path))     # to a file (or nothing): resolved inside the root

    def read_bytes(self, path, default=None):
        try:
            return read_fd(self._open_read(path), path)
        except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
            return default
        except OSError as e:
            _unless_exhausted(e, path)
            raise

    def read_text(self, path, default=None):
        try:
            return text(read_named(self._open_read(path), path, "", limit_for(path)))
        except OSError as e:
            _unless_exhausted(e, path)
            # Missing, or sysfs attributes that exist but cannot be read (EINVAL,
            # EIO, EACCES): "not available here", like missing ones.
            return default

    def read_texts(self, directory, names):
        """{name: text or None} of the files ``names`` in one directory, read
        as read_text reads each (the directory opened once, as for every read).

        A giant host's plan reads 74,000 files here, a few per call: each is
        read in _texts_in's loop, not through read_named, and the directory's kept
        descriptor is looked up without a call (what read_fd works out per
        file, the limit and the flags, once per directory)."""
        key = directory.rstrip("/") or "/"
        base = key + "/" if key != "/" else key
        limit = limit_for(base)
        with self._dirs_lock:
            got = self._dirs.get(key)
            if got is not None and got[0] >= 0:
                self._dirs.move_to_end(key)
                dfd = got[0]
            else:
                try:
                    dfd = self._dir(key)[0]
                except (OSError, ValueError) as e:
                    _unless_exhausted(e, directory)
                    for name in names:
                        _name_only(name)
                    return {name: None for name in names}    # no such directory: none of its files
            out, links = self._texts_in(dfd, base, names, limit)
        for name in links or ():      # a link: read by its whole path, inside the root
            out[name] = self.read_text(base + name)
        return out

    def _texts_in(self, dfd, base, names, limit):
        """({name: text or None}, [names that were links]) of the files ``names``
        opened by name from ``dfd``, the directory ``base``."""
        out, flags, links = {}, READ | self._nofollow, None
        open_, fstat, read, close, isreg, decode = os.open, os.fstat, os.read, os.close, _ISREG, bytes.decode
        for name in names:
            if "/" in name or name in NOT_NAMES:
                _name_only(name)
            try:
                fd = open_(name, flags, dir_fd=dfd)
            except OSError as e:
                _unless_exhausted(e, base + name)
                out[name] = None
                if e.errno == errno.ELOOP and flags & os.O_NOFOLLOW:
                    links = (links or []) + [name]
                continue
            try:
                try:
                    st = fstat(fd)
                    size = st.st_size
                    if isreg(st.st_mode) and size <= limit:
                        data = read(fd, size + 1 if size else 65536)
                        # A plain file that gave all it has is done; sysfs says 4096 and procfs 0.
                        if data and len(data) != size:
                            data = _rest(fd, data, base + name, limit)
                    else:   # refused, or a directory (read as missing): read_fd says which
                        data = read_fd(fd, base + name, limit, st, keep=True)
                finally:
                    close(fd)
            except OSError as e:
                _unless_exhausted(e, base + name)
                out[name] = None
                continue
            got = decode(data, "utf-8", "surrogateescape")
            # text(): universal newlines (no sysfs attribute has a "\r").
            out[name] = got if "\r" not in got else text(data)
        return out, links

    def read_values(self, directory, names):
        """{name: value or None} of one directory's one-value files, each as
        read_value gives it (read as read_texts reads them)."""
        return {name: None if got is None else got.replace("\x00", "").strip()
                for name, got in self.read_texts(directory, names).items()}

    def read_values_under(self, directory, match, names):
        """{entry: read_values(entry's path, names)} of the entries of
        ``directory`` that ``match`` (a callable) takes, in sorted order.

        480 CPUs have 1,920 cpuidle states (three files each) in 480
        directories, and 480 cpufreq policies: the listed directory is opened
        once, each entry by name from it and read there, then closed, not
        resolved and kept as a directory of its own (an openat2 and the close
        of the oldest kept directory each). An entry that does not open so (a
        link under --root, not a directory, gone) is read by read_values."""
        for name in names:
            _name_only(name)
        key = directory.rstrip("/") or "/"
        base = key + "/" if key != "/" else key
        try:
            fd = self.open_named(key, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        except (OSError, ValueError) as e:
            _unless_exhausted(e, directory)
            return {}
        try:
            entries = sorted(e for e in os.listdir(fd) if match(e))
        except OSError as e:
            os.close(fd)
            _unless_exhausted(e, directory)
            return {}
        out, flags, limit = {}, _DIR | self._nofollow, limit_for(base)
        try:
            for entry in entries:
                path = base + entry
                try:
                    sub = os.open(entry, flags, dir_fd=fd)
                except OSError as e:
                    _unless_exhausted(e, path)
                    out[entry] = self.read_values(path, names)
                    continue
                try:
                    texts, links = self._texts_in(sub, path + "/", names, limit)
                finally:
                    os.close(sub)
                for name in links or ():
                    texts[name] = self.read_text(path + "/" + name)
                out[entry] = {name: None if got is None else got.replace("\x00", "").strip()
                              for name, got in texts.items()}
        finally:
            os.close(fd)
        return out

    def links(self, directory):
        """{name: target or None} of every entry of ``directory``, listed and
        each read as a link through one descriptor (a process's fd/: 1,000
        processes, six or more links each), unsorted. Nothing for a directory
        that cannot be listed."""
        try:
            fd = self.open_named(directory.rstrip("/") or "/", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        except (OSError, ValueError) as e:
            _unless_exhausted(e, directory)
            return {}
        out, readlink = {}, os.readlink
        try:
            names = os.listdir(fd)
            for name in names:
                try:
                    out[name] = readlink(name, dir_fd=fd)
                except OSError as e:
                    _unless_exhausted(e, directory)
                    out[name] = None
        except OSError as e:
            _unless_exhausted(e, directory)
            return {}
        finally:
            os.close(fd)
        return out

    def read_value(self, path, default=None):
        """A one-value sysfs/procfs file, stripped."""
        text_ = self.read_text(path)
        # Captures (and some drivers) pad attributes with NUL bytes.
        return default if text_ is None else text_.replace("\x00", "").strip()

    def read_text_alone(self, path, default=None):
        """read_text of a file read alone in its directory (/proc/irq/N/smp_affinity_list
        of 2,300 IRQs, a value written alone in its directory), opened as open_named opens
        one: by its whole path, confined, not its directory opened and kept first (two
        opens, and the close of the oldest)."""
        try:
            return text(read_fd(self.open_named(path, READ), path))
        except OSError as e:
            _unless_exhausted(e, path)
            return default

    def read_value_alone(self, path, default=None):
        """read_value of a file read alone in its directory (read_text_alone)."""
        text_ = self.read_text_alone(path)
        return default if text_ is None else text_.replace("\x00", "").strip()

    def exists(self, path):
        try:
            self._stat(path, True)
            return True
        except (OSError, ValueError) as e:
            _unless_exhausted(e, path)
            return False

    def isdir(self, path):
        try:
            return stat.S_ISDIR(self._stat(path, True).st_mode)
        except (OSError, ValueError) as e:
            _unless_exhausted(e, path)
            return False

    def islink(self, path):
        try:
            return stat.S_ISLNK(self._stat(path, False).st_mode)
        except (OSError, ValueError) as e:
            _unless_exhausted(e, path)
            return False

    def readlink(self, path, default=None):
        parent, name = split(path.rstrip("/") if path != "/" else path)
        try:
            if parent is None:
                return os.readlink(self.join(path, follow=False))
            with self._dirs_lock:
                got = self._dirs.get(parent)
                if got is not None and got[0] >= 0:
                    self._dirs.move_to_end(parent)
                else:
                    got = self._dir(parent)
                return os.readlink(name, dir_fd=got[0])
        except (OSError, ValueError) as e:
            _unless_exhausted(e, path)
            return default

    def realpath(self, path):
        """Resolve symlinks inside the root (absolute links stay inside it)."""
        _lexical_check(path)
        try:
            if not self.is_live and _Openat2.works is not False:
                # One openat2 (RESOLVE_IN_ROOT) and a readlink of its descriptor: the walk
                # reads a link per component by its whole path (a NIC's device: ten).
                return self._resolve(path)
            return self._walk(path)
        except OSError as e:
            _unless_exhausted(e, path)
            return path  # a link loop: the path as given, which reads as missing

    def listdir(self, path):
        try:
            fd = self._open_read(path.rstrip("/") or "/", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
            try:
                return sorted(os.listdir(fd))
            finally:
                os.close(fd)
        except (OSError, ValueError) as e:
            _unless_exhausted(e, path)
            return []

    def glob(self, directory, pattern):
        """Host paths of the entries of ``directory`` whose names match."""
        return [
            directory.rstrip("/") + "/" + name
            for name in self.listdir(directory)
            if fnmatch.fnmatchcase(name, pattern)
        ]
