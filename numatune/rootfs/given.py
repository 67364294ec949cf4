"""The root a command was given with --root: a directory, or a `numatune
snapshot` archive unpacked for commands that only read."""
import os

from numatune.errors import RefusedError, UsageError
from numatune.root import Root


def root_given(args, writes=False):
    """The root to work under. A `numatune snapshot` archive is unpacked into a
    private temporary directory for commands that only read."""
    if os.path.isfile(args.root):
        # Imported only for an archive: snapshot.py loads every family's patterns.
        from numatune import snapshot
    if os.path.isfile(args.root) and snapshot.is_archive(args.root):
        if writes:
            raise UsageError("--root %s is a snapshot archive: %s writes, so it needs a directory" % (args.root,
                                                                                                  args.command),
                             "extract it: mkdir DIR && tar -xzf %s -C DIR, then --root DIR" % args.root)
        return Root(snapshot.unpack(args.root))
    if not os.path.isdir(args.root):
        raise UsageError("--root %s: no such directory" % args.root,
                         "give a directory, or an archive from `numatune snapshot`")
    return Root(args.root)


def require_write_access(root):
    if root.is_live and os.geteuid() != 0:
        raise RefusedError("numatune changes the real / only as root",
                           "run it with sudo, or use --root DIR on a copy")
