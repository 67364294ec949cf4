"""The campaign's ``recover`` class: a second crash while recovering from the first (#28).

A crash is survived only if its recovery survives one too: the admin whose
apply died reverts, and that revert may die as well (a power cut, an OOM
kill, a second Ctrl-C). Two phases:

``revert``    apply is killed at a chosen call (a journal ``fsync`` or a
              file's ``renameat``, spread over the run); the recovering
              ``revert --last`` is killed at its M-th call of one syscall, for
              every M that revert reaches on that half-applied tree; a third
              ``revert --last`` must bring the tree back.
``rollback``  apply fails with EIO at a chosen ``renameat`` or ``fsync`` and
              rolls back; the same process is killed at every later call
              (its rollback and its last words); ``revert --last`` must bring
              the tree back.

Which M are worth a run is learnt from a traced run of the same two steps
(``strace -y``): the recovering revert's calls (tests/faults/calls.py picks
them) and, for a rollback, the calls after the one injected. strace keeps one
injection per syscall (the last given wins), so a rollback is not killed on
the syscall that failed: the other first fault covers it.
"""
import shutil

import calls
import trees

FIRST = ("fsync", "renameat")    # where a write lands: its journal record made durable, its file renamed in
SPREAD = 3                       # first faults a phase takes of each syscall, spread over the run
PHASES = ("revert", "rollback")


def spread(ns, k=SPREAD):
    """Up to ``k`` of ``ns``, evenly spaced, first and last included."""
    if len(ns) <= k:
        return list(ns)
    return [ns[round(i * (len(ns) - 1) / (k - 1))] for i in range(k)] if k > 1 else [ns[0]]


def after_injected(lines, root, skip):
    """The calls ``calls.pick`` picks that come after the first injected one, but ``skip``'s."""
    picked = calls.pick(lines, root)
    main, seen, cut = None, {}, None
    for line in lines:
        m = calls.LINE.match(line)
        if not m:
            continue
        pid, name = m.group(1), m.group(2)
        main = main or pid
        if pid != main:
            continue
        seen[name] = seen.get(name, 0) + 1
        if "(INJECTED)" in line:
            cut = dict(seen)
            break
    if cut is None:
        return {}
    return {s: [n for n in ns if n > cut.get(s, 0)] for s, ns in picked.items() if s != skip}


def _kill(syscall, n):
    return calls.inject(syscall, "signal=KILL", n)


def _both(first, fault, n, syscall, m):
    """strace's arguments for a fault at call n of ``first``, then a kill at call m of ``syscall``."""
    return ["-e", "trace=%s,%s" % (first, syscall), "-e", "inject=%s:%s:when=%d" % (first, fault, n),
            "-e", "inject=%s:signal=KILL:when=%d" % (syscall, m)]


def runs(case, apply_picks):
    """The recover runs of ``case``: ("recover", kind, phase, first syscall, n, syscall, m) each.
    ``apply_picks``: {syscall: [call numbers]} of a clean apply (the syscall class's count)."""
    import campaign
    out = []
    for first in FIRST:
        for n in spread(apply_picks.get(first, [])):
            probe = case.fresh("probe-recover")
            status, err = campaign.numatune(case.apply_args(probe), strace=_kill(first, n))
            if status != -9:
                raise SystemExit("campaign: apply on %s was not killed at %s %d (exit %s)" % (case.kind, first, n, status))
            _, _, lines = calls.trace(campaign.numatune, ["revert", "--last", "--root", probe])
            for s, ms in calls.pick(lines, probe).items():
                out += [("recover", case.kind, "revert", first, n, s, m) for m in ms]
            probe = case.fresh("probe-recover")
            _, _, lines = calls.trace(campaign.numatune, case.apply_args(probe),
                                      ["-e", "inject=%s:error=EIO:when=%d" % (first, n)])
            for s, ms in after_injected(lines, probe, first).items():
                out += [("recover", case.kind, "rollback", first, n, s, m) for m in ms]
    shutil.rmtree(case.work / "probe-recover", ignore_errors=True)
    return out


def recover_run(case, phase, first, n, syscall, m):
    """One run of the class: its problems (empty: clean)."""
    import campaign
    root, canary = case.copy("recover-%s-%s-%d-%s-%d" % (phase, first, n, syscall, m))
    canary_before = trees.digest(canary)
    if phase == "revert":
        steps = [(case.apply_args(root), _kill(first, n)), (["revert", "--last", "--root", root], _kill(syscall, m))]
    else:
        steps = [(case.apply_args(root), _both(first, "error=EIO", n, syscall, m))]
    statuses, errs = [], []
    for args, strace in steps:
        status, err, missed = campaign.injected(args, strace, case.work)
        if missed:
            case.done(root, ["strace"])
            return [missed]
        statuses.append(status)
        errs.append(err)
    return campaign.recovered(case, root, canary, canary_before, statuses, errs)
