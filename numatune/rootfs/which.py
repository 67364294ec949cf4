"""A command's path on the live host's PATH, as shutil.which finds it.

shutil itself is not imported: it loads zlib, bz2 and lzma for its archive
functions, about 6 ms of a 90 ms `numatune check` that only asks whether
grubby or tuned-adm is there."""
import os


def which(cmd):
    """shutil.which(cmd) (mode os.F_OK | os.X_OK, the process's PATH), on POSIX."""
    if os.path.dirname(cmd):
        return cmd if _runnable(cmd) else None
    path = os.environ.get("PATH")
    if path is None:
        try:
            path = os.confstr("CS_PATH")
        except (AttributeError, ValueError):
            path = os.defpath
    if not path:
        return None     # PATH="" finds nothing; PATH=":" looks in the current directory
    seen = set()
    for directory in path.split(os.pathsep):
        if directory in seen:
            continue
        seen.add(directory)
        name = os.path.join(directory, cmd)
        if _runnable(name):
            return name
    return None


def _runnable(name):
    return os.path.exists(name) and os.access(name, os.F_OK | os.X_OK) and not os.path.isdir(name)
