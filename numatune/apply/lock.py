"""One run at a time per root: an flock on /var/lib/numatune/lock."""
import errno
import fcntl
import os

from numatune.errors import RefusedError
from numatune.apply.journal import STATE_DIR
from numatune.apply.state_dir import open_state_file

LOCK = STATE_DIR + "/lock"


class RunLock:
    def __init__(self, root):
        self.root = root
        self.path = root.path.rstrip("/") + LOCK    # for messages; opened by open_state_file
        self.fd = None

    def __enter__(self):
        self.fd = open_state_file(self.root, LOCK, "the lock")
        try:
            fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as e:
            if e.errno not in (errno.EAGAIN, errno.EACCES):
                # ENOLCK (an NFS lock server out of locks), EIO: not held, one line (#28).
                os.close(self.fd)
                self.fd = None
                raise RefusedError("cannot lock %s: %s" % (self.path, e.strerror or e),
                                   "check the file system that holds it and run again; nothing was changed") from None
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
            fd, self.fd = self.fd, None
            try:
                os.close(fd)
            except OSError:
                pass    # the descriptor, and with it the lock, is released whatever close reports
