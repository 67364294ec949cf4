"""A fault campaign against numatune as a real process (#28).

Every run works on a fresh copy of a case root (tests/faults/roots.py: the
fake host, an 8-node Superdome capture with the superdome-oracle policy, a
BLS host with odd owners and modes), with a canary directory beside it.
Four classes of run:

``syscall``  strace injects a fault at the N-th call of one syscall of
             ``apply`` or of ``revert`` (every N a clean run reaches): ENOSPC or
             EIO (``-e inject=write:error=EIO:when=N``) or SIGKILL
             (``signal=KILL``), at write, fsync, renameat, mkdir(at),
             (f)chown(at) and fallocate. Recovery is ``revert --last``; the tree
             must then equal the tree before apply.
``plant``    a symlink (absolute, relative, dangling) or hardlink to a canary
             file outside the root, a FIFO or a directory is planted at a name
             a write uses (every file and value target an apply wrote, the
             temporary of every whole-file write, the lock, the journal
             directory); apply, then revert if it applied. The canary stays as it
             was, and the tree as planted (the planted name may be gone: a stale
             temporary is removed).
``journal``  the journal of an applied copy is damaged (truncated, a bit
             flipped, a line dropped or duplicated, garbage inserted, a record
             forged without its checksum or with bytes that are not their
             sha256), then ``revert --last`` and ``revert --last --force``: no file
             may hold bytes that are neither its state before apply nor after
             it, an exit 0 means the whole tree is back, and a refusal (exit 2)
             restores nothing.

``recover``  a second crash while recovering from the first: the recovering
             revert killed, or apply killed in its own rollback
             (tests/faults/recovery.py).
``record``, ``temporary``  (#39, tests/faults/gaps.py) a journal record
             removed at every position; a directory, FIFO or symlink at every
             temporary's name, the journal's words checked too.

A SIGKILL is injected with strace stopping at every call (under
``--seccomp-bpf`` strace 6.1 never delivers it), and every injected run must
show its injection (killed, or "(INJECTED)" in strace's log) or it is a
problem: a run the fault never reached is not a clean run.

Every run: no stderr holds a Traceback, no run outlives TIMEOUT (a hang),
nothing beside the root changes. Trees are compared byte for byte (content,
mode, owner, link targets; numatune's state directory aside).

    python -m tests.faults.campaign --all                # every run of every class on every root
    python -m tests.faults.campaign --sample 500 --seed 1
    python -m tests.faults.campaign --all --classes plant,journal --roots fakehost
"""
import argparse
import collections
import multiprocessing
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
REPO = TESTS.parent
sys.path.insert(0, str(TESTS))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import calls  # noqa: E402
import roots as root_kinds  # noqa: E402
import trees  # noqa: E402
from conftest import STATE  # noqa: E402
import injuries  # noqa: E402
import recovery  # noqa: E402
import gaps  # noqa: E402

TIMEOUT = 60
FAULTS = {"enospc": "error=ENOSPC", "eio": "error=EIO", "kill": "signal=KILL"}
SYSCALLS = calls.SYSCALLS
CLASSES = ("syscall", "plant", "journal", "recover", "record", "temporary")


def numatune(args, strace=None, timeout=TIMEOUT, log="/dev/null"):
    """(exit status or "hang", stderr) of one numatune run, under strace if asked
    (its output to ``log``)."""
    # A fixed hash seed: the same calls in the same order in every run, so call N is the one counted.
    # No run writes bytecode (compiled() wrote it once): a run's first calls are not those of writing it.
    env = dict(os.environ, NO_COLOR="1", PYTHONPATH=str(REPO), PYTHONHASHSEED="0", PYTHONDONTWRITEBYTECODE="1")
    cmd = [sys.executable, "-m", "numatune"] + [str(a) for a in args]
    if strace:
        cmd = calls.strace(["-o", str(log)] + strace) + ["--"] + cmd
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=str(REPO), timeout=timeout)
    except subprocess.TimeoutExpired as e:
        return "hang", (e.stderr or b"").decode(errors="replace") if isinstance(e.stderr, bytes) else (e.stderr or "")
    return p.returncode, p.stderr


_COMPILED = []


def compiled():
    """Bytecode for numatune, written once: with PYTHONDONTWRITEBYTECODE set
    (as here) each run compiled its 120 modules again, two thirds of its CPU
    time; an installed package has its bytecode too."""
    if not _COMPILED:
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(REPO / "numatune")], check=True)
        _COMPILED.append(True)


class Case:
    """A pristine case root, its policy, and (made once) an applied copy."""

    def __init__(self, work, kind="fakehost"):
        compiled()
        self.kind = kind
        self.work = Path(work) / kind
        self.work.mkdir(parents=True, exist_ok=True)
        self.pristine, self.policy, self.extra = root_kinds.BUILD[kind](self.work)
        self.before = trees.digest(self.pristine)
        self._applied = None
        self._copies = None

    def copy(self, name, source=None):
        """(root, canary) of a run named ``name``: a copy of the pristine root
        (or of ``source``, the applied copy) and a canary directory beside it.
        Give it back with ``done``."""
        if self._copies is None or self._copies_pid != os.getpid():
            self._copies, self._copies_pid = trees.Copies(self.work), os.getpid()
        source = source or self.pristine
        return self._copies.get(source, self.before if source == self.pristine else self.after, name)

    def fresh(self, name):
        """A plain copy of the pristine root (for a traced run that picks the calls)."""
        probe = self.work / name
        shutil.rmtree(probe, ignore_errors=True)
        subprocess.run(["cp", "-a", str(self.pristine), str(probe)], check=True)
        return probe

    def done(self, root, problems, tree=None):
        """A clean run's copy is used again; a failed run's is kept, named after the run."""
        self._copies.done(root, problems, tree)

    def apply_args(self, root):
        return ["apply", "--root", root, "--policy", self.policy, "--yes"] + list(self.extra)

    @property
    def applied(self):
        """A copy with the policy applied (exit 0): revert and journal runs start from a copy of it."""
        if self._applied is None:
            root = self.fresh("applied")
            status, err = numatune(self.apply_args(root))
            if status != 0:
                raise SystemExit("campaign: the clean apply on %s failed: %s" % (self.kind, err.strip()[-300:]))
            self._applied = root
            self.after = trees.digest(root)
        return self._applied


def check_common(case, root, canary, canary_before, statuses, errs, problems):
    if any(s == "hang" for s in statuses):
        problems.append("hang (%s)" % ", ".join("run %d" % (i + 1) for i, s in enumerate(statuses) if s == "hang"))
    if any("Traceback" in e for e in errs):
        problems.append("traceback: " + next(e for e in errs if "Traceback" in e).strip().splitlines()[-1])
    if trees.digest(canary) != canary_before or set(os.listdir(canary.parent)) - {"root", "canary", "saved"}:
        problems.append("written outside the root")


differs = trees.differs


def syscall_run(case, phase, syscall, fault, n):
    """One injected run and its recovery: a list of problems (empty: clean)."""
    root, canary = case.copy("run-%s-%s-%s-%d" % (phase, syscall, fault, n),
                             case.applied if phase == "revert" else None)
    canary_before = trees.digest(canary)
    args = case.apply_args(root) if phase == "apply" else ["revert", "--last", "--root", root]
    status, err, missed = injected(args, calls.inject(syscall, FAULTS[fault], n), case.work)
    if missed:
        case.done(root, ["strace"])
        return [missed]
    return recovered(case, root, canary, canary_before, [status], [err])


def recovered(case, root, canary, canary_before, statuses, errs):
    """Recovery: revert the last transaction (a no-op when the fault came
    before its journal); then the run's problems, the tree checked against
    the tree before apply."""
    rstatus, rerr = numatune(["revert", "--last", "--root", root])
    problems = []
    check_common(case, root, canary, canary_before, statuses + [rstatus], errs + [rerr], problems)
    after = trees.digest(root)
    diff = differs(after, case.before)
    if diff:
        problems.append("tree differs after recovery: %s" % ", ".join(diff[:5]))
    case.done(root, problems, after)
    return problems


def injected(args, strace, work):
    """(status, stderr, why the injection did not happen or None) of one run under strace."""
    with tempfile.NamedTemporaryFile(prefix="strace-", dir=str(work)) as log:
        status, err = numatune(args, strace=strace, log=log.name)
        if err.startswith("strace:"):
            return status, err, "strace did not run it: " + err.strip().splitlines()[0]
        if status != "hang" and not calls.reached(status, open(log.name, errors="replace").read(), strace):
            return status, err, "injection not reached (exit %s)" % status
    return status, err, None


def syscall_runs(case, syscalls=SYSCALLS):
    """The syscall runs of one case and, for each phase, {syscall: how many calls are injected at}."""
    probe = case.fresh("probe")
    picked = {"apply": calls.count(numatune, case.apply_args(probe), probe, syscalls)}
    picked["revert"] = calls.count(numatune, ["revert", "--last", "--root", probe], probe, syscalls)
    shutil.rmtree(probe, ignore_errors=True)
    case.picks = picked
    counts = {phase: {s: len(ns) for s, ns in p.items()} for phase, p in picked.items()}
    if not all(sum(c.values()) for c in counts.values()):
        raise SystemExit("campaign: strace saw no calls to inject at (%s)" % counts)
    runs = [("syscall", case.kind, phase, s, fault, n) for phase in picked for s in syscalls
            for fault in FAULTS for n in picked[phase][s]]
    return runs, counts


def all_runs(cases, classes):
    runs, counts = [], {}
    for case in cases.values():
        if "syscall" in classes:
            mine, counts[case.kind] = syscall_runs(case)
            runs += mine
        if "plant" in classes:
            runs += [("plant", case.kind, name, how) for name in injuries.plant_names(case)
                     for how in injuries.PLANTS if injuries.fits(name, how)]
        if "recover" in classes:
            if "syscall" not in classes:
                syscall_runs(case)
            runs += recovery.runs(case, case.picks["apply"])
        if "journal" in classes:
            runs += [("journal", case.kind, how, i) for how, many in injuries.DAMAGES.items()
                     for i in range(many)]
        runs += gaps.runs(case, classes)
    return runs, counts


def run(cases, spec):
    cls, kind = spec[:2]
    case = cases[kind]
    if cls == "syscall":
        return syscall_run(case, *spec[2:])
    if cls == "plant":
        return injuries.plant_run(case, *spec[2:])
    if cls == "recover":
        return recovery.recover_run(case, *spec[2:])
    if cls == "record":
        return gaps.record_run(case, *spec[2:])
    if cls == "temporary":
        return gaps.temporary_run(case, *spec[2:])
    return injuries.journal_run(case, *spec[2:])


_CASES = {}


def _worker_run(spec):
    try:
        return spec, run(_CASES, spec)
    except Exception as e:      # the harness's own failure is a failed run, not a lost campaign
        return spec, ["campaign error: %s: %s" % (type(e).__name__, e)]


def run_many(cases, specs, jobs=None, report=None):
    """{spec: problems} of every run, ``jobs`` worker processes (default: one
    per CPU), each on its own copies; ``report(spec, problems, done)`` as each ends."""
    global _CASES
    jobs = jobs or os.cpu_count() or 1
    for case in cases.values():
        if any(s[1] == case.kind and (s[0] != "syscall" or s[2] == "revert") for s in specs):
            case.applied                # made once, before the workers fork
    _CASES = cases
    results = {}
    if jobs == 1:
        outcomes = map(_worker_run, specs)
    else:
        pool = multiprocessing.get_context("fork").Pool(jobs)
        outcomes = pool.imap_unordered(_worker_run, specs)
    try:
        for spec, problems in outcomes:
            results[spec] = problems
            if report:
                report(spec, problems, len(results))
    finally:
        if jobs != 1:
            pool.terminate()
            pool.join()
    return results


def parse_spec(text):
    """A spec as the campaign prints it ("syscall ethtool revert write eio 33", what follows ': ' aside)."""
    words = text.split(": ")[0].split()
    return tuple(int(w) if w.isdigit() else w for w in words)


PROBES = {"plant": "symlink, hardlink, FIFO or directory at a name written",
          "recover": {"revert": "apply killed, its revert killed, revert again",
                      "rollback": "apply fails (EIO), killed in its rollback, revert"},
          "journal": "truncated, bit flip, line dropped or repeated, garbage, forged",
          "record": "a record removed, at every position",
          "temporary": {"dir": "a directory at a temporary's name", "fifo": "a FIFO at a temporary's name",
                        "symlink-abs": "a symlink at a temporary's name"}}


def table(runs, failed):
    """[runs, clean] by (class, root, probe): a syscall run's probe is its phase and fault."""
    rows = collections.defaultdict(lambda: [0, 0])
    for spec in runs:
        if spec[0] == "syscall":
            key = spec[:2] + (spec[2], spec[4])
        else:
            probe = PROBES[spec[0]]
            which = spec[3] if spec[0] == "temporary" else spec[2]
            key = spec[:2] + ((probe[which],) if isinstance(probe, dict) else (probe,))
        rows[key][0] += 1
        rows[key][1] += spec not in failed
    return rows


# What a problem says -> the total it counts in (the README's table).
TOTALS = (("tracebacks", ("traceback",)), ("writes outside the root", ("written outside",)),
          ("hangs", ("hang",)), ("wrong restores", ("wrote wrong bytes", "restored less", "refused revert restored")),
          ("trees differing", ("tree differs", "planted")), ("other", ()))


def totals(failed):
    out = collections.Counter()
    for problems in failed.values():
        for p in problems:
            out[next((name for name, marks in TOTALS if not marks or any(m in p for m in marks)))] += 1
    return [(name, out[name]) for name, _ in TOTALS]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--all", action="store_true", help="every run (the default when --sample is not given)")
    ap.add_argument("--sample", type=int, default=0, help="run N randomly chosen runs")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--specs", help="run the runs listed in FILE, one a line as printed (what follows ': ' aside)")
    ap.add_argument("--count", action="store_true", help="print how many runs there are, run none")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="worker processes (default: one per CPU)")
    ap.add_argument("--classes", default=",".join(CLASSES), help="comma-separated: " + ", ".join(CLASSES))
    ap.add_argument("--roots", default=",".join(root_kinds.available()),
                    help="comma-separated: " + ", ".join(root_kinds.BUILD))
    ap.add_argument("--work", help="directory for the copies (default: a new one under /dev/shm, removed if clean)")
    args = ap.parse_args(argv)
    if not shutil.which("strace"):
        sys.exit("campaign: strace is not installed")
    # tmpfs: a copy of the 2,891-file Superdome root takes a tenth of the time it takes on disk.
    shm = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None
    work = Path(args.work or tempfile.mkdtemp(prefix="numatune-faults-", dir=shm))
    started = time.time()
    if args.specs:
        runs = [parse_spec(line) for line in open(args.specs) if line.strip() and not line.startswith("#")]
        cases = {kind: Case(work, kind) for kind in sorted({r[1] for r in runs})}
        counts = {}
    else:
        classes = args.classes.split(",")
        cases = {kind: Case(work, kind) for kind in args.roots.split(",")}
        runs, counts = all_runs(cases, classes)
    if args.sample and args.sample < len(runs):
        runs = random.Random(args.seed).sample(runs, args.sample)
    for kind, phases in counts.items():
        for phase, by_call in phases.items():
            print("%s %s: calls injected at: %s" % (kind, phase, " ".join(
                "%s %d" % (s, n) for s, n in by_call.items() if n)))
    print("%d runs (set up in %.0f s)" % (len(runs), time.time() - started), flush=True)
    if args.count:
        shutil.rmtree(work, ignore_errors=True) if not args.work else None
        return 0
    failed, started = {}, time.time()
    failed_list = work / "failed-specs.txt"

    def report(spec, problems, done):
        if problems:
            failed[spec] = problems
            print("%s: %s" % (" ".join(map(str, spec)), "; ".join(problems)), flush=True)
            with open(failed_list, "a") as f:
                f.write(" ".join(map(str, spec)) + "\n")
        if done % 500 == 0:
            print("... %d of %d runs, %d failed, %.0f s" % (done, len(runs), len(failed), time.time() - started),
                  flush=True)
    run_many(cases, runs, args.jobs, report)
    elapsed = time.time() - started
    rows = table(runs, failed)
    print("| class | root | probe | runs | clean |\n|---|---|---|---|---|")
    for key in sorted(rows):
        print("| %s | %s | %s | %d | %d |" % (key[0], key[1], " ".join(key[2:]), *rows[key]))
    print("| **total** | | | **%d** | **%d** |" % (len(runs), len(runs) - len(failed)))
    print("problems: " + ", ".join("%s %d" % t for t in totals(failed)))
    print("%d runs, %d clean, %.0f s (%.2f s a run, %d jobs)"
          % (len(runs), len(runs) - len(failed), elapsed, elapsed / max(1, len(runs)), args.jobs))
    if not failed and not args.work:
        shutil.rmtree(work, ignore_errors=True)
    else:
        print("copies kept in %s%s" % (work, "; failed runs listed in %s (--specs)" % failed_list if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
