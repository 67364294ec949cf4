"""The syscalls the campaign injects at, and which of their calls it picks (#28).

strace stops a tracee only at the syscall it traces (``-e trace=S`` with
``--seccomp-bpf``: a seccomp filter returns every other call to the process
without a ptrace stop), and ``inject=S:...:when=N`` counts the calls to S of
each process from its start, the interpreter's own included. A clean run
traced with ``-y`` (descriptors shown with their paths) gives the N worth
injecting at:

``EVERY``     every call (write: stdout and stderr too; fsync, rename, mkdir,
              chown, fallocate)
``UNDER``     the calls on a path or descriptor inside the root (truncate,
              unlink, rmdir, chmod, fdatasync, link, flock, pwrite)
``OPENS``     opens inside the root for writing (O_WRONLY, O_RDWR, O_CREAT):
              temporaries, targets, value files, journals, the lock
``close``     the closes of those descriptors
"""
import re
import tempfile

STRACE = ["strace", "-f", "-qq", "--seccomp-bpf"]
# strace 6.1 does not deliver an injected signal to a tracee it stops by seccomp (the process runs on,
# exit 0): a kill is injected with every call stopped, about twice the cost, or it is no kill at all.
STRACE_SIGNAL = ["strace", "-f", "-qq"]
EVERY = ("write", "fsync", "renameat", "mkdir", "mkdirat", "chown", "fchown", "fchownat", "fallocate")
UNDER = ("ftruncate", "unlinkat", "unlink", "rmdir", "fchmod", "fchmodat", "fdatasync", "linkat", "flock",
         "pwrite64")
OPENS = ("openat", "openat2")
SYSCALLS = EVERY + UNDER + OPENS + ("close",)
# "714   openat(5</r/etc>, "x", O_WRONLY|O_CREAT..., 0600) = 6</r/etc/x>": pid, name, arguments, result.
LINE = re.compile(r"(\d+)\s+(\w+)\((.*)\)\s+=\s+(-?\d+)(?:<.*>)?(?:\s.*)?$")
WRITING = re.compile(r"\bO_(?:WRONLY|RDWR|CREAT)\b")
CLOSE_FD = re.compile(r"(\d+)")


def _kills(args):
    return any("signal=" in a for a in args)


def strace(args):
    """The strace command line that can carry out ``args``'s injections."""
    return (STRACE_SIGNAL if _kills(args) else STRACE) + args


def reached(status, log, args):
    """Whether a run's injections happened: a kill shows in its status (strace
    dies of its tracee's signal), an error as "(INJECTED)" in its log."""
    if _kills(args) and status != -9:
        return False
    errors = sum(1 for a in args if a.startswith("inject=") and "error=" in a)
    return not errors or "(INJECTED)" in log


def inject(syscall, fault, n):
    """strace's arguments: stop at ``syscall`` only and fail its n-th call."""
    return ["-e", "trace=" + syscall, "-e", "inject=%s:%s:when=%d" % (syscall, fault, n)]


def pick(lines, root, syscalls=SYSCALLS):
    """{syscall: [the call numbers (from 1) worth injecting at]} of the first
    process of a ``strace -f -y`` log; calls of other processes are counted
    by strace in their own process and not picked."""
    root = str(root).rstrip("/")
    inside = re.compile(re.escape(root) + r"[/>]")
    seen = {s: 0 for s in syscalls}
    picked = {s: [] for s in syscalls}
    writing = set()         # descriptors opened inside the root for writing, until closed
    main = None
    for line in lines:
        m = LINE.match(line)
        if not m:
            continue
        pid, name, args, result = m.groups()
        main = main or pid
        if pid != main or name not in seen:
            continue
        seen[name] += 1
        n = seen[name]
        if name in OPENS:
            fd = int(result)
            writing.discard(fd)
            if inside.search(line) and WRITING.search(args):
                writing.add(fd)
                picked[name].append(n)
        elif name == "close":
            fd = int(CLOSE_FD.match(args).group(1))
            if fd in writing:
                writing.discard(fd)
                picked[name].append(n)
        elif name in EVERY or inside.search(args):
            picked[name].append(n)
    return picked


WANTED = sorted(set(SYSCALLS + OPENS + ("close",)))


def trace(run, args, injections=()):
    """(status, the lines of a ``strace -y`` log of every call worth picking)
    of one run of ``args`` (``run(args, strace=..., log=...)`` gives (status,
    stderr)), with ``injections`` (strace arguments) if any."""
    with tempfile.NamedTemporaryFile(prefix="numatune-strace-") as log:
        status, err = run(args, strace=["-y", "-e", "trace=" + ",".join(WANTED)] + list(injections), log=log.name)
        if err.startswith("strace:"):
            raise SystemExit("campaign: strace refused %s: %s" % (list(injections), err.strip()))
        return status, err, open(log.name, errors="replace").read().splitlines()


def count(run, args, root, syscalls=SYSCALLS):
    """Trace one clean run of ``args`` and pick its calls."""
    status, err, lines = trace(run, args)
    assert status == 0, err
    return pick(lines, root, syscalls)
