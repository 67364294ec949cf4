"""One run at a time per root: an flock on /var/lib/numatune/lock."""
import errno
import fcntl
import os

from numatune.errors import RefusedError
from numatune.apply.journal import STATE_DIR

LOCK = STATE_DIR + "/lock"


class RunLock:
    def __init__(self, root):
        self.path = root.join(LOCK)
        self.fd = None

    def __enter__(self):
        try:
            os.makedirs(os.path.dirname(self.path), exist_ok=True)
            self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        except PermissionError:
            raise RefusedError("cannot create the lock %s: permission denied" % self.path,
                               "run as root, or use --root on a tree you own")
        try:
            fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as e:
            if e.errno not in (errno.EAGAIN, errno.EACCES):
                raise
            holder = os.pread(self.fd, 32, 0).decode(errors="replace").strip() or "?"
            os.close(self.fd)
            self.fd = None
            raise RefusedError("another numatune run (pid %s) holds %s" % (holder, self.path),
                               "wait for it to finish; nothing was changed")
        try:
            os.ftruncate(self.fd, 0)
            os.pwrite(self.fd, ("%d\n" % os.getpid()).encode(), 0)
        except OSError:
            pass  # the pid is only for the next run's message; a full disk must not stop a revert
        return self

    def __exit__(self, *exc):
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None
