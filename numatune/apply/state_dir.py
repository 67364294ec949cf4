"""numatune's own files under /var/lib/numatune (the lock, the journals):
created inside the root, never followed through a link at their names, and
every way the directory can fail (no inode left, EIO, a file, FIFO or device
where the directory should be) one line naming it, before anything changes."""
import errno
import os
import stat

from numatune.errors import RefusedError

_WHY = {
    errno.ENOSPC: "no space or inode left",
    errno.EDQUOT: "over quota",
    errno.EROFS: "read-only file system",
    errno.EIO: "I/O error",
    errno.ENOTDIR: "a part of it is not a directory",
    errno.EEXIST: "something that is not a directory is in the way",
    errno.ELOOP: "a symbolic link is in the way",
    errno.ENXIO: "a FIFO or device is in the way",
}


def refuse(path, what, e):
    """The one line for an OSError on numatune's own state."""
    if isinstance(e, RefusedError):
        return e
    if e.errno in (errno.EACCES, errno.EPERM):
        return RefusedError("cannot write %s %s: permission denied" % (what, path),
                            "run as root, or use --root on a tree you own")
    reason = _WHY.get(e.errno, e.strerror or str(e))
    return RefusedError("cannot write %s %s: %s" % (what, path, reason),
                        "fix %s (a directory numatune owns) and run again; nothing was changed"
                        % os.path.dirname(path))


def make_dirs(root, host_dir, what):
    """``host_dir`` and its parents, inside the root; one line if they cannot be."""
    real = root.path.rstrip("/") + host_dir
    try:
        real = root.join(host_dir)
        os.makedirs(real, exist_ok=True)
        if not os.path.isdir(real):
            raise OSError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), real)
    except OSError as e:
        raise refuse(real, what, e) from None
    return real


def open_state_file(root, host_path, what, flags=os.O_RDWR):
    """A descriptor of numatune's own file ``host_path``, created if missing:
    a link at its name is not followed (O_NOFOLLOW), a FIFO does not block
    (O_NONBLOCK), and anything but a regular file of one name is refused."""
    make_dirs(root, os.path.dirname(host_path), what)
    real = root.path.rstrip("/") + host_path
    try:
        real = root.join(host_path, follow=False)
        fd = root.open(host_path, flags | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK, 0o600)
    except OSError as e:
        raise refuse(real, what, e) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_nlink != 1:
            raise RefusedError("%s %s is not numatune's file (%s)" % (what, real, "%d hard links" % st.st_nlink
                                                                       if stat.S_ISREG(st.st_mode)
                                                                       else "not a regular file"),
                               "remove it and run again; nothing was changed")
        os.set_blocking(fd, True)
    except BaseException:  # noqa: B902
        os.close(fd)
        raise
    return fd


def fsync_dir(real_dir, what):
    try:
        fd = os.open(real_dir, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError as e:
        raise refuse(real_dir, what, e) from None
