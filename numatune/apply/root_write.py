"""The one confined writer: every whole-file write numatune makes (a file
write kind, an offline ethtool snapshot, a restore) goes through here.

Under ``--root`` a copied tree may hold links nobody planted on purpose, or
someone did: a symlink or a hardlink at the temporary name, or a hardlink at
the target, reaching a file outside the root. So the parent directory is
opened inside the root once and everything else is done relative to its
descriptor: a stale temporary is unlinked (unlinkat never follows), the new
one created with O_CREAT|O_EXCL|O_NOFOLLOW (a link or FIFO planted between
the unlink and the open fails the open instead of being written through), its
mode and owner set on the descriptor, and renamed over the target (rename
replaces a link, never follows it). A target with more than one hard link is
refused: replacing it would silently break the link, writing it in place
would change the file the other name belongs to.
"""
import errno
import os
import stat

from numatune.errors import RefusedError


def tmp_name(name):
    return ".%s.numatune-tmp" % name


def _parent(root, path):
    """(descriptor of the parent directory, opened inside the root; the name)."""
    parent, _, name = path.rstrip("/").rpartition("/")
    if name in ("", ".", ".."):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), path)
    return root.open(parent or "/", os.O_RDONLY | os.O_DIRECTORY), name


def refuse_hardlinked(root, path, st):
    """A regular file with more than one name is not numatune's to write."""
    if stat.S_ISREG(st.st_mode) and st.st_nlink > 1:
        raise RefusedError("%s has %d hard links: numatune does not write a file another name shares"
                           % (path, st.st_nlink),
                           "make it a file of its own (cp --remove-destination) and run again"
                           if not root.is_live else "make it a file of its own and run again")


def _unlink_quiet(dirfd, name):
    try:
        os.unlink(name, dir_fd=dirfd)
    except FileNotFoundError:
        pass


def _remove_stale(root, path, dirfd, tmp):
    """Unlink what a crash left at the temporary's name (a link or FIFO
    there is unlinked, never followed). A directory is none of numatune's
    (write_atomic makes only files): the write fails naming its whole path
    and how to remove it, and the rollback leaves it (``remove_tmp``)."""
    try:
        _unlink_quiet(dirfd, tmp)
    except IsADirectoryError:
        whole = "%s/%s" % (root.join(path.rstrip("/").rpartition("/")[0] or "/").rstrip("/"), tmp)
        try:
            fd = os.open(tmp, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=dirfd)
            try:
                empty = not os.listdir(fd)
            finally:
                os.close(fd)
        except OSError:
            empty = False
        how = "`rmdir %s`" % whole if empty else "a look inside, then `rm -r %s`" % whole
        raise RefusedError("a directory is in the way of numatune's temporary file %s" % whole,
                           "remove it with %s, then run again" % how)


def write_atomic(root, path, data, mode, uid=None, gid=None):
    """Replace host ``path`` with ``data``: temp file, fsync, rename, so a
    crash leaves the old bytes or the new, and nothing outside the root."""
    dirfd, name = _parent(root, path)
    try:
        try:
            refuse_hardlinked(root, path, os.stat(name, dir_fd=dirfd, follow_symlinks=False))
        except FileNotFoundError:
            pass
        tmp = tmp_name(name)
        _remove_stale(root, path, dirfd, tmp)
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
        fd = os.open(tmp, flags, 0o600, dir_fd=dirfd)
        try:
            view = memoryview(data)
            while view:  # a short write (a full disk mid-way) loops; ENOSPC raises
                view = view[os.write(fd, view):]
            os.fchmod(fd, mode)
            if uid is not None and os.geteuid() == 0:
                os.fchown(fd, uid, gid)
            os.fsync(fd)
        except BaseException:  # noqa: B902 -- a failed write leaves no temporary behind
            os.close(fd)
            _unlink_quiet(dirfd, tmp)
            raise
        try:
            os.close(fd)
            os.rename(tmp, name, src_dir_fd=dirfd, dst_dir_fd=dirfd)
        except BaseException:  # noqa: B902 -- nor a failed close or rename (#28: not every caller cleans up)
            _unlink_quiet(dirfd, tmp)
            raise
        os.fsync(dirfd)
    finally:
        os.close(dirfd)


def remove_tmp(root, path):
    """The temp file of a write_atomic a crash cut short (the link itself,
    whatever it points at)."""
    try:
        dirfd, name = _parent(root, path)
    except (FileNotFoundError, NotADirectoryError):
        return
    try:
        _unlink_quiet(dirfd, tmp_name(name))
    except IsADirectoryError:
        pass    # not numatune's: the write it blocked failed before it changed the target
    finally:
        os.close(dirfd)


def open_value(root, path):
    """A one-value file opened for writing. Under --root it is a plain copy:
    opened without following a link at its name and without truncating, and
    refused unless it is a regular file of one name (a hardlink planted at
    /proc/sys/vm/swappiness would otherwise rewrite the file it shares),
    then truncated. On the live root sysfs/procfs files are opened as
    `echo value > file` opens them."""
    if root.is_live:
        return root.open(path, os.O_WRONLY | os.O_TRUNC)
    # By name from the parent's kept descriptor (opened confined, as for the
    # capture's read just before), O_NOFOLLOW: a link at the name is opened by
    # its whole path, resolved inside the root.
    fd = root.open_named(path, os.O_WRONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise RefusedError("%s is not a regular file in the copied tree" % path,
                               "replace it with a plain file holding the value")
        refuse_hardlinked(root, path, st)
        os.ftruncate(fd, 0)
    except BaseException:  # noqa: B902
        os.close(fd)
        raise
    return fd
