"""Write kind "multipath": numatune's section of /etc/multipath.conf and, on
a live host whose multipathd runs, the `multipathd reconfigure` that makes
the daemon read it, as one journaled op.

One op, because the two are undone together and in this order: revert puts
the file back, then reconfigures. A file restored under a daemon that keeps
running the reverted-away settings is not undone.

A reconfigure reloads the maps' tables, and a table load makes the kernel
recompute each map's queue (read_ahead_kb and max_sectors_kb go back to the
kernel's defaults: seen on 6.1). The op keeps the maps' queue settings as
they were just before the reload, both ways: apply's reload does not undo
the map settings, and revert's reload leaves the maps as the settings' own
undos put them. Apply's values are journaled with the op, so a revert that
finds the file already restored (one cut short before its reconfigure)
reloads and puts those back.
"""
import os
import time

from numatune.apply import file as files
from numatune.apply.value import _write, read_as
from numatune.model import Write

KIND = "multipath"
# The map queue files a table load may reset and a [[block]] rule may set.
# The scheduler first: switching it resets nr_requests, written after it.
QUEUE = ("scheduler", "nr_requests", "read_ahead_kb", "max_sectors_kb", "rotational", "nomerges", "rq_affinity")
SETTLE_S = 60


def map_queues(root):
    """{sysfs file: value} of every dm-multipath map's queue settings."""
    out = {}
    try:
        names = sorted(os.listdir(root.join("/sys/block")))
    except OSError:
        return out
    for name in names:
        if not name.startswith("dm-"):
            continue
        uuid = root.read_text("/sys/block/%s/dm/uuid" % name) or ""
        if not uuid.strip().startswith("mpath-"):
            continue
        for attr in QUEUE:
            path = "/sys/block/%s/queue/%s" % (name, attr)
            value = read_as(root, path, "bracket" if attr == "scheduler" else "plain")
            if value is not None:
                out[path] = value
    return out


def _file_write(write):
    return Write(kind="file", path=write.path, editor=write.editor, args=write.args)


def capture(root, write):
    op = files.capture(root, _file_write(write))
    op["kind"] = KIND
    # Host tools run on the real root only (a plan made live, applied to a copy, edits the file alone).
    op["argv"] = list(write.argv) if root.is_live and write.argv else []
    op["maps"] = map_queues(root) if op["argv"] else {}
    return op


def _run(root, argv, timeout=60):
    # The binary under the root: the same path on the real /, a stand-in in a test's copy.
    import subprocess  # on the write path only: plan and check import this module too
    proc = subprocess.run([root.join(argv[0])] + list(argv[1:]), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, timeout=timeout)
    return proc.returncode, (proc.stdout or "") + (proc.stderr or "")


def _idle(root, binary):
    """multipathd 0.9 reconfigures in its main loop after the command
    returned; its state says "configure" until the maps are reloaded."""
    deadline = time.monotonic() + SETTLE_S
    while True:
        status, out = _run(root, [binary, "show", "daemon"])
        if status != 0 or not any(s in out.split() for s in ("configure", "init")):
            return
        if time.monotonic() > deadline:
            raise OSError("multipathd is still reconfiguring after %d s" % SETTLE_S)
        time.sleep(0.2)


def reconfigure(root, argv, keep):
    """Run ``argv`` (multipathd reconfigure), wait for the reload and for
    udev's change events, then put back the map queue values of ``keep``.
    A daemon that no longer runs reads the file when it starts: nothing to do."""
    if _run(root, [argv[0], "show", "daemon"])[0] != 0:
        return
    status, out = _run(root, argv)
    if status != 0 or out.strip().lower().startswith(("fail", "error")):
        said = out.strip().splitlines()
        raise OSError("%s failed (exit %d)%s" % (" ".join(argv), status, ": " + said[-1] if said else ""))
    _idle(root, argv[0])
    udevadm = next((p for p in ("/usr/bin/udevadm", "/bin/udevadm", "/sbin/udevadm") if root.exists(p)), None)
    if udevadm:
        _run(root, [udevadm, "settle", "--timeout=%d" % SETTLE_S], timeout=SETTLE_S + 10)
    for path, value in keep.items():
        fmt = "bracket" if path.endswith("/scheduler") else "plain"
        if root.exists(path) and read_as(root, path, fmt) != value:
            _write(root, path, value)


def perform(root, op):
    files.perform(root, op)
    if op["argv"]:
        reconfigure(root, op["argv"], op["maps"])


def current_matches(root, op, side):
    return files.current_matches(root, op, side)


def cleanup(root, op):
    """Runs before every undo looks at the file. A file already as before
    may be a revert cut short between the file and the reconfigure: the
    daemon is made to read the file again (harmless when it already has)."""
    files.cleanup(root, op)
    if op["argv"] and root.is_live and files.current_matches(root, op, "before"):
        reconfigure(root, op["argv"], op["maps"])


def restore(root, op):
    # The maps as they are now, not as at apply: the undos before this one
    # already put back what the run set, and a later run's settings stay.
    keep = map_queues(root) if op["argv"] else {}
    files.restore(root, op)
    if op["argv"]:
        reconfigure(root, op["argv"], keep)


def describe(op):
    what = files.describe(op)
    return what + (", then multipathd reconfigure" if op.get("argv") else "")


def describe_undo(op):
    what = files.describe_undo(op)
    return what + (", then multipathd reconfigure" if op.get("argv") else "")
