"""The directories Root keeps open: every read opens its file by name from
its directory's descriptor, the directory opened once and confined.

A giant host's plan reads 100,000 files in a few thousand directories
(a dozen attributes under each of 5,000 block devices). Resolving each path
inside the root again (openat2 RESOLVE_IN_ROOT through ctypes, or a
component walk where the kernel lacks it) cost 4x what the reads themselves
cost (issue #29). So a directory is opened once, confined as before, and
kept; its children are opened by name from that descriptor with O_NOFOLLOW
under ``--root``: a child that is a link (ELOOP) is opened again by its
whole path, confined, so a link still resolves inside the root and never
out of it. A one-value write opens its file the same way (``open_named``);
a whole-file write (apply/root_write.py) resolves its directory in full.
"""
import errno
import os
import posixpath
import _thread
from collections import OrderedDict

from numatune.rootfs.confine import _MAX_HOPS, _Openat2, _lexical_check, _openat2

READ = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC
_DIR = os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC
# Descriptors kept open: a plan reads one device's directories together, so
# a hundred cover it and stay far below the usual limit of 1,024 (the engine
# closes them after each gather, apply and revert).
_KEPT = 128
# What is never a file's name in its directory.
NOT_NAMES = frozenset(("", ".", ".."))


def split(path):
    """(parent, name) of an absolute host path whose last part is a plain
    name; (None, None) for anything else ("/", "a/..", a relative path)."""
    parent, _, name = path.rpartition("/")
    if not path.startswith("/") or name in NOT_NAMES:
        return None, None
    return parent or "/", name


class Dirs:
    """The kept directories of Root (numatune/root.py gives ``path``,
    ``is_live``, ``_dirfd``, ``_walk``, ``join`` and the confined ``open``)."""

    def _init_dirs(self):
        # host directory -> [descriptor, its real host path or None, owning key], least recently used first
        self._dirs = OrderedDict()
        self._links = {}    # host directory -> the one it is (a link on the way resolved)
        # Names that were links in a directory whose real path is not known (sysfs: each SCSI
        # disk's "device"): the next such name is resolved whole at once, not tried by name first.
        self._link_names = set()
        self._dirs_lock = _thread.allocate_lock()  # threading itself: a start-up cost for one lock
        # On the live root the kernel's own links are followed as they are (an attribute: read per file).
        self._nofollow = 0 if self.is_live else os.O_NOFOLLOW

    def forget(self):
        """Close the directories kept open: the next reads resolve them again
        (the engine calls this before each plan, as a host's devices come and go)."""
        with self._dirs_lock:
            dirs, self._dirs, self._links = self._dirs, OrderedDict(), {}
        for key, (fd, _, owner) in dirs.items():
            if owner == key and fd >= 0:
                try:
                    os.close(fd)
                except OSError:
                    # An O_PATH descriptor holds nothing to flush: Linux frees it whatever close says
                    # (an EIO/ENOSPC here, seen under fault injection, ended a finished revert with a traceback).
                    pass

    def _open_whole(self, directory):
        """A new O_PATH descriptor of host ``directory`` resolved from the root."""
        if self.is_live:
            return os.open(self.join(directory), _DIR)
        _lexical_check(directory)
        if _Openat2.works is not False:
            fd = _openat2(self._dirfd(), directory.lstrip("/") or ".", os.O_PATH | os.O_DIRECTORY)
            if fd is not None:
                return fd
        # No openat2: the walk resolves every link inside the root.
        return os.open(self.path + self._walk(directory), _DIR | os.O_NOFOLLOW)

    def _dir(self, directory, hops=0):
        """[descriptor, real host path or None, key] of ``directory``, kept open
        (the caller holds the lock). Opened by name from its parent's
        descriptor, O_NOFOLLOW under --root. A link on the way (sysfs is made
        of them) is read from its directory and followed inside the root, as
        RESOLVE_IN_ROOT would: ".." from the real path of the directory
        holding it, never above "/"."""
        dirs = self._dirs
        got = dirs.get(directory)
        if got is not None and got[0] >= 0:
            dirs.move_to_end(directory)   # a device's parents stay open while its siblings are read
            return got
        if hops > _MAX_HOPS:
            raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), directory)
        alias = self._links.get(directory)
        if alias is not None:
            return self._dir(alias, hops + 1)
        parent, name = split(directory)
        real = None
        if parent is None or ((self.is_live or _Openat2.works is True) and parent not in dirs):
            # Where openat2 confines (or on the live /, a plain open), one call opens a
            # directory whose parent is not kept: building the chain of its parents
            # costs more (sysfs directories hold a few files each).
            fd = self._open_whole(directory)
            if directory == "/" and not self.is_live:
                real = "/"
            else:   # the usual case (13,900 directories a plan): kept under its own name, no alias
                return self._keep(directory, [fd, None, directory])
        else:
            pgot = dirs.get(parent)     # kept (the test above): its descriptor without a call, if still open
            if pgot is not None and pgot[0] >= 0:
                dirs.move_to_end(parent)
            else:
                pgot = self._dir(parent, hops)
            pfd, preal = pgot[0], pgot[1]
            try:
                if preal is None and name in self._link_names:
                    # Most likely a link again (4,096 disks' "device"): a failed open by name, a
                    # readlink and a raised OSError fewer. _open_whole confines it as below.
                    fd = self._open_whole(directory)
                else:
                    fd = os.open(name, _DIR | self._nofollow, dir_fd=pfd)
                real = (preal.rstrip("/") + "/" + name) if preal else None
            except OSError as e:
                if not self._nofollow or e.errno not in (errno.ELOOP, errno.ENOTDIR):
                    raise
                try:
                    target = os.readlink(name, dir_fd=pfd)
                except OSError:
                    raise e     # not a link: a file where a directory should be
                if preal is None:
                    fd = self._open_whole(directory)
                    self._link_names.add(name)
                else:
                    to = posixpath.normpath(target if target.startswith("/") else preal + "/" + target)
                    to = "/" + to.lstrip("/")   # normpath keeps a leading "//"
                    self._links[directory] = to
                    return self._keep(directory, self._dir(to, hops + 1))
        key = real or directory
        got = self._dirs.get(key)
        if got is not None and got[0] >= 0:     # already open by its real path
            os.close(fd)
        else:
            got = self._keep(key, [fd, real, key])
        if key != directory:
            self._links[directory] = key
            self._keep(directory, got)
        return got

    def _keep(self, key, entry):
        """Keep ``entry`` ([descriptor, real path, the key that owns it]) under
        ``key``: under its own path, or as a link's name for the same
        descriptor (a read by that name then costs one lookup). The oldest
        go first; a descriptor is closed with the entry that owns it, and the
        other names of it then read as not kept."""
        dirs = self._dirs
        while len(dirs) >= _KEPT:
            old, dropped = dirs.popitem(last=False)
            if dropped is entry:
                dirs[old] = dropped   # the one being kept: newest again
                continue
            if dropped[2] == old and dropped[0] >= 0:
                os.close(dropped[0])
                dropped[0] = -1
        if key in dirs:
            dirs.move_to_end(key)
        dirs[key] = entry
        return entry

    def _open_read(self, path, flags=READ):
        """A descriptor of host file ``path`` for reading: by name from its
        directory's descriptor, or (a link under --root, an odd path) by the
        whole path, confined."""
        parent, _, name = path.rpartition("/")     # _split's, without the call (18,000 a plan)
        if path.startswith("/") and name not in NOT_NAMES:
            # Even a directory's first file: its directory is opened (one openat2) and kept.
            # Reading that file by its whole path instead, and opening the directory only at
            # a second read, cost two openat2 for most sysfs directories (a device's dozen
            # attributes): 46,841 calls against 33,391 in a giant host's plan.
            parent = parent or "/"
            with self._dirs_lock:
                got = self._dirs.get(parent)
                if got is not None and got[0] >= 0:
                    self._dirs.move_to_end(parent)
                else:
                    got = self._dir(parent)
                try:
                    return os.open(name, flags | self._nofollow, dir_fd=got[0])
                except OSError as e:
                    # A link where a directory is asked for is ENOTDIR, not ELOOP (the
                    # journal directory moved by a link): resolved inside the root below.
                    linked = (errno.ELOOP, errno.ENOTDIR) if flags & os.O_DIRECTORY else (errno.ELOOP,)
                    if e.errno not in linked or not self._nofollow:
                        raise
        return self.open(path, flags)

    def open_named(self, path, flags):
        """os.open of host ``path`` with ``flags``, by name from its kept
        directory descriptor as reads open (a link at the name: by the whole
        path, confined). A giant host's apply and revert write 35,000 sysfs
        values in a few thousand directories each: a whole-path openat2
        through ctypes per write cost as much as the write itself.

        A file whose directory is not kept is opened by its whole path, as
        the directory would be (one confined open, where the kernel confines
        or on the live root): apply and revert go through a rule's devices
        one directory each (35,000 writes in 15,000 directories), so opening
        and keeping the directory cost a second open and the close of the
        oldest kept one, for a directory not read again."""
        parent, _ = split(path)
        if parent is not None and (self.is_live or _Openat2.works is True) and parent not in self._dirs:
            return self.open(path, flags)
        return self._open_read(path, flags)
