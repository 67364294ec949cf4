#!/usr/bin/env python3
"""`revert --last` alone of two checkouts on one host, interleaved (issue #38).

    python bench/revert_ab.py BEFORE AFTER --host DIR --policy POLICY [--rounds 5] [--pristine DIR]

DIR is a writable copy of a host made by make_host.py (``cp -a``; it is
applied and reverted in place, and left as it was). Before each timed revert
the host is applied (untimed, the journal emptied first) by one checkout,
AFTER unless ``--apply-with before``: both then revert a journal of the same
code (BEFORE's ignores an index field it does not know). The order of the
two alternates from round to round. After each revert every file a write of
the journal named must hold the bytes it holds in ``--pristine`` (the host
DIR was copied from, e.g. /dev/shm/b/host): revert must be exact. Prints
each round and the medians of CPU and wall seconds, and AFTER/BEFORE in CPU
time. Needs no second copy of the host (a giant host is 500,000 inodes of tmpfs).
"""
import argparse
import glob
import json
import os
import shutil
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import run as bench  # noqa: E402
from apply_ab import _argv, _run_in  # noqa: E402


def _op_paths(state):
    """The host paths the journal's writes name (any kind with a path)."""
    [journal] = glob.glob(os.path.join(state, "journal", "*.jsonl"))
    paths = set()
    with open(journal, "rb") as f:
        for line in f:
            record = json.loads(line)
            for item in record.get("intents") or ([record] if record.get("t") == "intent" else []):
                path = item.get("op", {}).get("path")
                if isinstance(path, str):
                    paths.add(path)
    return sorted(paths)


def _content(path):
    try:
        with open(path, "rb") as f:
            return f.read()
    except FileNotFoundError:
        return None


def _check(host, pristine, paths):
    for path in paths:
        got, want = _content(host + path), _content(pristine + path)
        if got != want:
            raise bench.BenchError("revert_ab: %s differs from the pristine host after revert: %r, not %r"
                                   % (path, (got or b"")[:80], (want or b"")[:80]))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("trees", nargs=2, metavar="CHECKOUT")
    parser.add_argument("--host", required=True, metavar="DIR")
    parser.add_argument("--policy", required=True)
    parser.add_argument("--pristine", metavar="DIR")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--apply-with", choices=("before", "after"), default="after")
    args = parser.parse_args(argv)
    trees = [os.path.abspath(t) for t in args.trees]
    names = [os.path.basename(t.rstrip("/")) or t for t in trees]
    host = os.path.abspath(args.host)
    state = os.path.join(host, "var/lib/numatune")
    times = {t: [] for t in trees}
    for i in range(args.rounds):
        for tree in trees if i % 2 == 0 else trees[::-1]:
            shutil.rmtree(os.path.join(state, "journal"), ignore_errors=True)
            if os.path.exists(os.path.join(state, "journal-index.json")):
                os.remove(os.path.join(state, "journal-index.json"))
            _run_in(trees[args.apply_with == "after"], _argv("apply", "--root", host, "--policy", args.policy, "--yes",
                                    "--confirm-within", "0"), (0, 1))
            paths = _op_paths(state) if args.pristine else ()
            times[tree].append(_run_in(tree, _argv("revert", "--last", "--root", host)))
            if args.pristine:
                _check(host, os.path.abspath(args.pristine), paths)
        bench.say("# round %d: %s" % (i + 1, "; ".join("%s revert %.3f s wall %.3f s CPU" % (
            n, times[t][-1][0], times[t][-1][1]) for n, t in zip(names, trees))))
    med = {t: (statistics.median(x[0] for x in times[t]), statistics.median(x[1] for x in times[t])) for t in trees}
    for name, tree in zip(names, trees):
        bench.say("# %s: revert --last %.3f s wall, %.3f s CPU (medians of %d)" % (name, med[tree][0], med[tree][1],
                                                                                   args.rounds))
    ratios = [b[1] / a[1] for a, b in zip(times[trees[0]], times[trees[1]])]
    bench.say("%s/%s revert CPU: %.3f (median of the rounds' ratios %.3f)" % (
        names[1], names[0], med[trees[1]][1] / med[trees[0]][1], statistics.median(ratios)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
