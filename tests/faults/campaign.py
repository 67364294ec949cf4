"""A fault campaign against numatune as a real process (#28).

strace injects a fault at the N-th call of one syscall (``write``, ``fsync``,
``renameat``: files, journal, value files and stdout all go through them) of
``apply`` or of ``revert`` on a fresh copy of a case root (the fake host with the fakehost
policy: sysctl.d files, BLS entries, grubenv, /proc/sys and /sys values):

``enospc``  the call fails with ENOSPC (``-e inject=write:error=ENOSPC:when=N``)
``kill``    the process gets SIGKILL at that call (``signal=KILL``)

Recovery is then ``numatune revert --last`` (a killed or failed apply; a
revert that failed or was killed is taken up again the same way). A run is
clean when the tree after recovery equals the tree before apply (content,
mode, owner, link targets; numatune's state directory aside), no stderr
holds a Traceback, a canary directory beside the root is untouched, and no
run outlived its timeout.

    python tests/faults/campaign.py            # every write index, both faults, apply and revert
    python tests/faults/campaign.py --sample 20 --seed 1
"""
import argparse
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
REPO = TESTS.parent
sys.path.insert(0, str(TESTS))

import fakehost  # noqa: E402
from conftest import tree_digest, write  # noqa: E402

TIMEOUT = 60
FAULTS = {"enospc": "error=ENOSPC", "kill": "signal=KILL"}


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


SYSCALLS = ("write", "fsync", "renameat")
CALL = re.compile(r"(?:\d+\s+)?(\w+)\(")  # "714   write(1, ..." (-f prefixes the pid, padded)


def count_calls(args, syscalls):
    """{syscall: how many calls a clean run makes} (the indexes to inject at)."""
    with tempfile.NamedTemporaryFile(prefix="numatune-strace-") as log:
        status, err = numatune(args, strace=["-o", log.name, "-e", "trace=" + ",".join(syscalls)])
        assert status == 0, err
        lines = open(log.name).read().splitlines()
    called = [m.group(1) for m in map(CALL.match, lines) if m]
    return {s: called.count(s) for s in syscalls}


class Case:
    """A pristine case root and policy, copied for every run."""

    def __init__(self, work):
        self.work = Path(work)
        self.pristine = fakehost.build(self.work / "pristine")
        self.policy = write(self.work, "policy.toml", fakehost.POLICY)
        self.before = tree_digest(self.pristine)
        self.applied = None

    def copy(self, name):
        run = self.work / name
        shutil.rmtree(run, ignore_errors=True)
        shutil.copytree(self.pristine, run / "root", symlinks=True)
        canary = run / "canary"
        write(canary, "keep", "canary\n")
        return run / "root", canary

    def apply_args(self, root):
        return ["apply", "--root", root, "--policy", self.policy, "--yes"]


def one_run(case, phase, syscall, fault, n):
    """One injected run and its recovery: a list of problems (empty: clean)."""
    root, canary = case.copy("run-%s-%s-%s-%d" % (phase, syscall, fault, n))
    canary_before = tree_digest(canary)
    inject = ["-e", "inject=%s:%s:when=%d" % (syscall, FAULTS[fault], n)]
    problems, errs = [], []
    if phase == "apply":
        status, err = numatune(case.apply_args(root), strace=inject)
    else:
        status, err = numatune(case.apply_args(root))
        if status != 0:
            return ["the clean apply before the revert failed: %s" % err.strip()[-200:]]
        status, err = numatune(["revert", "--last", "--root", root], strace=inject)
    errs.append(err)
    if err.startswith("strace:"):
        return ["strace did not run it: " + err.strip().splitlines()[0]]
    if status == "hang":
        problems.append("hang (%s s)" % TIMEOUT)
    # Recovery: revert the last transaction (a no-op when the fault came before its journal).
    rstatus, rerr = numatune(["revert", "--last", "--root", root])
    errs.append(rerr)
    if rstatus == "hang":
        problems.append("recovery hang")
    if any("Traceback" in e for e in errs):
        problems.append("traceback: " + next(e for e in errs if "Traceback" in e).strip().splitlines()[-1])
    after = tree_digest(root)
    if after != case.before:
        diff = sorted(k for k in set(after) | set(case.before) if after.get(k) != case.before.get(k))
        problems.append("tree differs after recovery: %s" % ", ".join(diff[:5]))
    if tree_digest(canary) != canary_before or set(os.listdir(canary.parent)) != {"root", "canary"}:
        problems.append("written outside the root")
    if not problems:
        shutil.rmtree(root.parent, ignore_errors=True)
    return problems


def plan_runs(case, sample, seed, syscalls=SYSCALLS):
    probe, _ = case.copy("probe")
    counts = {"apply": count_calls(case.apply_args(probe), syscalls)}
    counts["revert"] = count_calls(["revert", "--last", "--root", probe], syscalls)
    if not all(sum(c.values()) for c in counts.values()):
        raise SystemExit("campaign: strace saw no calls to inject at (%s)" % counts)
    runs = [(phase, s, fault, n) for phase in counts for s in syscalls
            for fault in FAULTS for n in range(1, counts[phase][s] + 1)]
    if sample and sample < len(runs):
        runs = random.Random(seed).sample(runs, sample)
    return runs, counts


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sample", type=int, default=0, help="run N randomly chosen runs (default: all)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--work", help="directory for the copies (default: a new temporary one, removed if clean)")
    args = ap.parse_args(argv)
    if not shutil.which("strace"):
        sys.exit("campaign: strace is not installed")
    work = Path(args.work or tempfile.mkdtemp(prefix="numatune-faults-"))
    case = Case(work)
    runs, counts = plan_runs(case, args.sample, args.seed)
    print("calls in a clean run: %s; %d runs" % (counts, len(runs)))
    failed = {}
    for run in runs:
        problems = one_run(case, *run)
        if problems:
            failed[run] = problems
            print("%s %s %s at call %d: %s" % (run + ("; ".join(problems),)))
    print("| phase | syscall | fault | runs | clean |\n|---|---|---|---|---|")
    for phase in counts:
        for s in SYSCALLS:
            for fault in FAULTS:
                mine = [r for r in runs if r[:3] == (phase, s, fault)]
                print("| %s | %s | %s | %d | %d |" % (phase, s, fault, len(mine),
                                                      sum(1 for r in mine if r not in failed)))
    if not failed and not args.work:
        shutil.rmtree(work, ignore_errors=True)
    else:
        print("copies kept in %s" % work)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
