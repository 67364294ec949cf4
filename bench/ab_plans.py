#!/usr/bin/env python3
"""plan/floor of two checkouts on the same hosts, their rounds interleaved.

    python bench/ab_plans.py BEFORE_DIR [--reps 5] [--workdir DIR] [--keep]

Builds the bench host and the other shapes of bench/run.py ("dm", "nics", "nics64"),
traces each checkout's plan once for its own floor (bench/floor.py: the
files that plan read, listed and readlink'ed, and nothing else), then times
plan and floor of BEFORE_DIR and of this checkout round by round, so that
other work on the machine falls on both alike. Prints the medians in CPU
time (steadier than wall time on a shared machine) and the ratios.
"""
import argparse
import os
import shutil
import statistics
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE]

import bench_policy  # noqa: E402
import run  # noqa: E402
from make_host import DEFAULTS, make_host  # noqa: E402


def _in(tree):
    """Run the next commands from ``tree``: `python -m` puts its working directory
    first on sys.path, before PYTHONPATH, so both must name the checkout."""
    run.ENV["PYTHONPATH"] = run.REPO = tree


def _timed(argv, tree):
    _in(tree)
    return run.run(argv)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before", help="the other checkout (its numatune/ is planned with)")
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--workdir", default=run.default_workdir())
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args(argv)
    trees = (("before", os.path.abspath(args.before)), ("after", run.REPO))
    for label, tree in trees:
        if not os.path.isfile(os.path.join(tree, "numatune", "__init__.py")):
            parser.error("%s is not a numatune checkout" % tree)
    work = tempfile.mkdtemp(prefix="numatune-ab-", dir=args.workdir)
    try:
        policy = os.path.join(work, "bench-policy.toml")
        bench_policy.build(policy)
        shapes = [("bench host", dict(DEFAULTS))] + [(name, dict(DEFAULTS, **over)) for name, over, _ in run.SHAPES]
        for name, sizes in shapes:
            root = os.path.join(work, name.replace(" ", "-"))
            make_host(root, **sizes)
            commands = []
            for label, tree in trees:
                _in(tree)
                plan = run.numatune("plan", "--root", root, "--policy", policy)
                ops = os.path.join(work, "%s-%s.ops" % (os.path.basename(root), label))
                run.floor_ops(plan, [root, policy], ops)
                commands += [(label, "plan", plan, tree),
                             (label, "floor", [run.PY, os.path.join(HERE, "floor.py"), ops], tree)]
            for _, _, argv_, tree in commands:     # warm
                _timed(argv_, tree)
            cpu = {}
            for _ in range(args.reps):
                for label, what, argv_, tree in commands:
                    cpu.setdefault((label, what), []).append(_timed(argv_, tree)[1])
            med = {k: statistics.median(v) for k, v in cpu.items()}
            run.say("# %s, CPU medians of %d interleaved rounds: %s" % (name, args.reps, ", ".join(
                "%s %s %.3f s" % (label, what, med[(label, what)]) for label, what in sorted(med))))
            for label, _ in trees:
                run.say("%s: %s plan/floor (CPU) = %.2f" % (name, label, med[(label, "plan")] / med[(label, "floor")]))
    finally:
        if args.keep:
            run.say("# kept %s" % work)
        else:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
