"""Where `numatune recommend --out` writes: checked before the host is read,
so a path that cannot be written is one line (exit 2), never a traceback
after the work."""
import os

from numatune.errors import UsageError
from numatune.policy.stack import SITE_POLICY

HINT = "give a file path in a directory you can write"


def check(path):
    """UsageError unless ``path`` can become a file; numatune's own directory
    (that of /etc/numatune/policy.toml) is made when missing, as a package would."""
    full = os.path.abspath(path)
    directory = os.path.dirname(full)
    if os.path.isdir(full):
        raise UsageError("--out %s is a directory" % path, "name the file: --out %s" % os.path.join(path, "policy.toml"))
    if not os.path.isdir(directory):
        if directory != os.path.dirname(SITE_POLICY) or not os.path.isdir(os.path.dirname(directory)):
            raise UsageError("--out %s: no such directory %s" % (path, directory), HINT)
        try:
            os.mkdir(directory, 0o755)
        except OSError as e:
            raise UsageError("--out %s: cannot make %s: %s" % (path, directory, e.strerror or e),
                             "run it as root, or give another path")


def write(path, text):
    from numatune.report.check import write_atomically
    try:
        write_atomically(path, text)
    except OSError as e:
        raise UsageError("--out %s: cannot write: %s" % (path, e.strerror or e), HINT)
