"""A fault campaign against numatune as a real process (#28).

Every run works on a fresh copy of a case root (tests/faults/roots.py: the
fake host, an 8-node Superdome capture with the superdome-oracle policy, a
BLS host with odd owners and modes), with a canary directory beside it.
Three classes of run:

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

Every run: no stderr holds a Traceback, no run outlives TIMEOUT (a hang),
nothing beside the root changes. Trees are compared byte for byte (content,
mode, owner, link targets; numatune's state directory aside).

    python -m tests.faults.campaign --all                # every run of every class on every root
    python -m tests.faults.campaign --sample 500 --seed 1
    python -m tests.faults.campaign --all --classes plant,journal --roots fakehost
"""
import argparse
import collections
import os
import random
import re
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

import roots as root_kinds  # noqa: E402
from conftest import STATE, tree_digest, write  # noqa: E402
import injuries  # noqa: E402

TIMEOUT = 60
FAULTS = {"enospc": "error=ENOSPC", "eio": "error=EIO", "kill": "signal=KILL"}
SYSCALLS = ("write", "fsync", "renameat", "mkdir", "mkdirat", "chown", "fchown", "fchownat", "fallocate")
CLASSES = ("syscall", "plant", "journal")
CALL = re.compile(r"(?:\d+\s+)?(\w+)\(")  # "714   write(1, ..." (-f prefixes the pid, padded)


def numatune(args, strace=None, timeout=TIMEOUT):
    """(exit status or "hang", stderr) of one numatune run, under strace if asked."""
    env = dict(os.environ, NO_COLOR="1", PYTHONPATH=str(REPO))
    cmd = [sys.executable, "-m", "numatune"] + [str(a) for a in args]
    if strace:
        cmd = ["strace", "-f", "-qq", "-o", "/dev/null"] + strace + ["--"] + cmd
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=str(REPO), timeout=timeout)
    except subprocess.TimeoutExpired as e:
        return "hang", (e.stderr or b"").decode(errors="replace") if isinstance(e.stderr, bytes) else (e.stderr or "")
    return p.returncode, p.stderr


def count_calls(args, syscalls):
    """{syscall: how many calls a clean run makes} (the indexes to inject at)."""
    with tempfile.NamedTemporaryFile(prefix="numatune-strace-") as log:
        status, err = numatune(args, strace=["-o", log.name, "-e", "trace=" + ",".join(syscalls)])
        assert status == 0, err
        lines = open(log.name).read().splitlines()
    called = [m.group(1) for m in map(CALL.match, lines) if m]
    return {s: called.count(s) for s in syscalls}


class Case:
    """A pristine case root, its policy, and (made once) an applied copy."""

    def __init__(self, work, kind="fakehost"):
        self.kind = kind
        self.work = Path(work) / kind
        self.work.mkdir(parents=True, exist_ok=True)
        self.pristine, self.policy, self.extra = root_kinds.BUILD[kind](self.work)
        self.before = tree_digest(self.pristine)
        self._applied = None

    def copy(self, name, source=None):
        run = self.work / name
        shutil.rmtree(run, ignore_errors=True)
        run.mkdir(parents=True)
        # cp -a, not shutil.copytree: owners are part of the tree compared (the bls-odd root).
        subprocess.run(["cp", "-a", str(source or self.pristine), str(run / "root")], check=True)
        canary = run / "canary"
        write(canary, "keep", "canary\n")
        os.chmod(canary / "keep", 0o600)
        return run / "root", canary

    def apply_args(self, root):
        return ["apply", "--root", root, "--policy", self.policy, "--yes"] + list(self.extra)

    @property
    def applied(self):
        """A copy with the policy applied (exit 0): revert and journal runs start from a copy of it."""
        if self._applied is None:
            root, _ = self.copy("applied")
            status, err = numatune(self.apply_args(root))
            if status != 0:
                raise SystemExit("campaign: the clean apply on %s failed: %s" % (self.kind, err.strip()[-300:]))
            self._applied = root
            self.after = tree_digest(root)
        return self._applied


def check_common(case, root, canary, canary_before, statuses, errs, problems):
    if any(s == "hang" for s in statuses):
        problems.append("hang (%s)" % ", ".join("run %d" % (i + 1) for i, s in enumerate(statuses) if s == "hang"))
    if any("Traceback" in e for e in errs):
        problems.append("traceback: " + next(e for e in errs if "Traceback" in e).strip().splitlines()[-1])
    if tree_digest(canary) != canary_before or set(os.listdir(canary.parent)) - {"root", "canary", "saved"}:
        problems.append("written outside the root")


def differs(a, b, skip=()):
    return sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k) and k not in skip)


def syscall_run(case, phase, syscall, fault, n):
    """One injected run and its recovery: a list of problems (empty: clean)."""
    root, canary = case.copy("run-%s-%s-%s-%d" % (phase, syscall, fault, n),
                             case.applied if phase == "revert" else None)
    canary_before = tree_digest(canary)
    inject = ["-e", "inject=%s:%s:when=%d" % (syscall, FAULTS[fault], n)]
    args = case.apply_args(root) if phase == "apply" else ["revert", "--last", "--root", root]
    status, err = numatune(args, strace=inject)
    if err.startswith("strace:"):
        return ["strace did not run it: " + err.strip().splitlines()[0]]
    # Recovery: revert the last transaction (a no-op when the fault came before its journal).
    rstatus, rerr = numatune(["revert", "--last", "--root", root])
    problems = []
    check_common(case, root, canary, canary_before, [status, rstatus], [err, rerr], problems)
    diff = differs(tree_digest(root), case.before)
    if diff:
        problems.append("tree differs after recovery: %s" % ", ".join(diff[:5]))
    if not problems:
        shutil.rmtree(root.parent, ignore_errors=True)
    return problems


# Kept for callers of the first campaign: one_run(case, phase, syscall, fault, n).
one_run = syscall_run


def syscall_runs(case, syscalls=SYSCALLS):
    probe, _ = case.copy("probe")
    counts = {"apply": count_calls(case.apply_args(probe), syscalls)}
    counts["revert"] = count_calls(["revert", "--last", "--root", probe], syscalls)
    if not all(sum(c.values()) for c in counts.values()):
        raise SystemExit("campaign: strace saw no calls to inject at (%s)" % counts)
    runs = [("syscall", case.kind, phase, s, fault, n) for phase in counts for s in syscalls
            for fault in FAULTS for n in range(1, counts[phase][s] + 1)]
    return runs, counts


def plan_runs(case, sample, seed, syscalls=SYSCALLS):
    """The syscall runs of one case, (phase, syscall, fault, n) each, and the call counts."""
    runs, counts = syscall_runs(case, syscalls)
    runs = [r[2:] for r in runs]
    if sample and sample < len(runs):
        runs = random.Random(seed).sample(runs, sample)
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
        if "journal" in classes:
            runs += [("journal", case.kind, how, i) for how, many in injuries.DAMAGES.items()
                     for i in range(many)]
    return runs, counts


def run(cases, spec):
    cls, kind = spec[:2]
    case = cases[kind]
    if cls == "syscall":
        return syscall_run(case, *spec[2:])
    if cls == "plant":
        return injuries.plant_run(case, *spec[2:])
    return injuries.journal_run(case, *spec[2:])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--all", action="store_true", help="every run (the default when --sample is not given)")
    ap.add_argument("--sample", type=int, default=0, help="run N randomly chosen runs")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--classes", default=",".join(CLASSES), help="comma-separated: " + ", ".join(CLASSES))
    ap.add_argument("--roots", default=",".join(root_kinds.available()),
                    help="comma-separated: " + ", ".join(root_kinds.BUILD))
    ap.add_argument("--work", help="directory for the copies (default: a new temporary one, removed if clean)")
    args = ap.parse_args(argv)
    if not shutil.which("strace"):
        sys.exit("campaign: strace is not installed")
    work = Path(args.work or tempfile.mkdtemp(prefix="numatune-faults-"))
    classes = args.classes.split(",")
    cases = {kind: Case(work, kind) for kind in args.roots.split(",")}
    runs, counts = all_runs(cases, classes)
    if args.sample and args.sample < len(runs):
        runs = random.Random(args.seed).sample(runs, args.sample)
    print("syscalls in a clean run: %s\n%d runs" % (counts, len(runs)), flush=True)
    failed, started = {}, time.time()
    for spec in runs:
        problems = run(cases, spec)
        if problems:
            failed[spec] = problems
            print("%s: %s" % (" ".join(map(str, spec)), "; ".join(problems)), flush=True)
    table = collections.defaultdict(lambda: [0, 0])
    for spec in runs:
        key = spec[:2] + ((spec[2], spec[4]) if spec[0] == "syscall" else (spec[2].split(":")[0],)
                          if spec[0] == "journal" else (spec[3],))
        table[key][0] += 1
        table[key][1] += spec not in failed
    print("| class | root | probe | runs | clean |\n|---|---|---|---|---|")
    for key in sorted(table):
        print("| %s | %s | %s | %d | %d |" % (key[0], key[1], " ".join(key[2:]), *table[key]))
    print("%d runs, %d clean, %.0f s" % (len(runs), len(runs) - len(failed), time.time() - started))
    if not failed and not args.work:
        shutil.rmtree(work, ignore_errors=True)
    else:
        print("copies kept in %s" % work)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
