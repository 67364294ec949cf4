#!/usr/bin/env python3
"""apply + revert of two checkouts on one giant host, interleaved (issue #38).

    python bench/apply_ab.py BEFORE AFTER [--rounds 5] [--workdir DIR] [--luns 1024 --nics 64 ...] [--host DIR]

BEFORE and AFTER are numatune checkouts (``git archive main | tar -x -C DIR``
makes one). One host (bench/make_host.py) and the bench policy; the floor is
traced from AFTER's plan, as bench/run.py traces it. Each round times the
floor, then ``apply --yes`` + ``revert --last`` of each checkout (their order
alternating from round to round, the journal emptied before each apply), so
that noise from other work on the machine falls on both alike; after each
revert the plan must be the one before apply. Prints the medians (wall and
CPU seconds) and ``NAME: apply+revert/floor = N.NN`` for each.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import bench_policy  # noqa: E402
import run as bench  # noqa: E402
from make_host import DEFAULTS, make_host  # noqa: E402


def _argv(*args):
    return [bench.PY, "-m", "numatune"] + [str(a) for a in args]


def _run_in(tree, argv, ok=(0,)):
    """(wall, CPU seconds) of ``argv`` importing numatune from ``tree``; a failure stops the run."""
    cpu = bench._children_cpu()
    start = bench.time.perf_counter()
    proc = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          env=dict(bench.ENV, PYTHONPATH=tree), cwd=tree)
    elapsed = bench.time.perf_counter() - start
    if proc.returncode not in ok:
        raise bench.BenchError("apply_ab: %s in %s exited %d: %s" % (" ".join(argv[3:5]), tree, proc.returncode,
                                                                    proc.stderr.decode(errors="replace")[-300:]))
    return elapsed, bench._children_cpu() - cpu


def _plan(tree, root, policy):
    env = dict(bench.ENV, PYTHONPATH=tree)
    out = subprocess.run(_argv("plan", "--root", root, "--policy", policy, "--format", "json"),
                         capture_output=True, env=env, cwd=tree, check=True).stdout
    return json.loads(out)["changes"]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("trees", nargs=2, metavar="CHECKOUT")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--workdir", default=bench.default_workdir())
    parser.add_argument("--host", metavar="DIR", help="a host made by make_host.py to use (not removed), "
                        "instead of building one: tmpfs shared with others may lack the inodes for a second")
    for name, value in DEFAULTS.items():
        parser.add_argument("--" + name, type=int, default=value, metavar="N")
    args = parser.parse_args(argv)
    trees = [os.path.abspath(t) for t in args.trees]
    names = [os.path.basename(t.rstrip("/")) or t for t in trees]
    work = tempfile.mkdtemp(prefix="numatune-ab-", dir=args.workdir)
    try:
        root = os.path.abspath(args.host) if args.host else os.path.join(work, "host")
        if not args.host:
            make_host(root, **{k: getattr(args, k) for k in DEFAULTS})
        policy = os.path.join(work, "bench-policy.toml")
        bench_policy.build(policy)
        ops = os.path.join(work, "floor.ops")
        saved = bench.ENV["PYTHONPATH"]
        bench.ENV["PYTHONPATH"] = trees[1]     # AFTER's plan is traced (floor_ops runs with bench.ENV)
        try:
            bench.say("# floor: %s" % bench.floor_ops(_argv("plan", "--root", root, "--policy", policy),
                                                     [root, policy], ops))
        finally:
            bench.ENV["PYTHONPATH"] = saved
        before = _plan(trees[1], root, policy)
        floor_argv = [bench.PY, os.path.join(HERE, "floor.py"), ops]
        state = os.path.join(root, "var/lib/numatune")
        floor, times = [], {t: [] for t in trees}
        _run_in(trees[1], floor_argv)
        for i in range(args.rounds):
            floor.append(_run_in(trees[1], floor_argv))
            for tree in trees if i % 2 == 0 else trees[::-1]:
                shutil.rmtree(os.path.join(state, "journal"), ignore_errors=True)
                if os.path.exists(os.path.join(state, "journal-index.json")):
                    os.remove(os.path.join(state, "journal-index.json"))
                a = _run_in(tree, _argv("apply", "--root", root, "--policy", policy, "--yes",
                                       "--confirm-within", "0"), (0, 1))
                r = _run_in(tree, _argv("revert", "--last", "--root", root))
                times[tree].append((a[0] + r[0], a[1] + r[1], a, r))
                if _plan(tree, root, policy) != before:
                    raise bench.BenchError("apply_ab: %s: after apply + revert the plan differs" % tree)
            bench.say("# round %d: floor %.2f s wall %.2f s CPU; %s" % (
                i + 1, floor[-1][0], floor[-1][1],
                "; ".join("%s %.2f s wall %.2f s CPU" % (n, times[t][-1][0], times[t][-1][1])
                          for n, t in zip(names, trees))))
        med = lambda xs, k: statistics.median(x[k] for x in xs)  # noqa: E731
        fw, fc = med(floor, 0), med(floor, 1)
        bench.say("# medians of %d rounds: floor %.2f s wall, %.2f s CPU (%d changes)" % (args.rounds, fw, fc,
                                                                                          len(before)))
        for name, tree in zip(names, trees):
            t = times[tree]
            a, r = [x[2] for x in t], [x[3] for x in t]
            bench.say("# %s: apply %.2f s wall %.2f s CPU, revert --last %.2f s wall %.2f s CPU; "
                      "apply+revert/floor in CPU time %.2f" % (name, med(a, 0), med(a, 1), med(r, 0), med(r, 1),
                                                              med(t, 1) / fc))
            bench.say("%s: apply+revert/floor = %.2f" % (name, med(t, 0) / fw))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
