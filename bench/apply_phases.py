#!/usr/bin/env python3
"""Where an apply's or a revert's time goes, in one process.

    python bench/apply_phases.py apply --root DIR --policy POLICY --yes --confirm-within 0
    python bench/apply_phases.py revert --last --root DIR

Runs the numatune command line given (on a copy: it writes) with the engine's
and the journal's steps timed, then prints each step's CPU and wall seconds
and calls, largest first, on stderr. Steps nest (``apply_changes`` holds the
captures, writes and verify; ``gather`` is counted in ``make_plan`` and in
``verify_writes``). Run it on a host made by make_host.py (bench/run.py
--keep keeps one) to find what holds apply+revert/floor back.
"""
import functools
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from numatune import cli, engine, plan as plan_mod  # noqa: E402
from numatune.apply import journal, journal_index, transaction, verify  # noqa: E402
from numatune.apply import revert as revert_mod  # noqa: E402

SPENT = {}


def _timed(owner, name, label):
    fn = getattr(owner, name)

    @functools.wraps(fn)
    def timed(*args, **kwargs):
        cpu, wall = time.process_time(), time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            spent = SPENT.setdefault(label, [0.0, 0.0, 0])
            spent[0] += time.process_time() - cpu
            spent[1] += time.perf_counter() - wall
            spent[2] += 1
    setattr(owner, name, timed)


STEPS = [
    (engine, "make_plan", "make_plan"), (engine, "gather", "gather (facts)"), (plan_mod, "build", "plan.build"),
    (transaction, "apply_changes", "apply_changes"), (verify, "verify_writes", "verify_writes"),
    (transaction._GroupCommit, "add", "capture (and flush when a batch fills)"),
    (transaction._GroupCommit, "flush", "flush: journal, write"), (journal.Journal, "start", "journal begin"),
    (transaction, "compact", "begin record: compact"), (journal.Journal, "append_many", "journal appends"),
    (journal_index, "record", "index record"),
    (journal_index, "summaries", "index summaries"), (engine, "pick_transaction", "pick_transaction"),
    (journal, "parse_journal", "parse_journal"), (revert_mod, "_undo_batch", "undo batches"),
    (revert_mod, "_undo_decision", "undo decisions"),
]


def main(argv):
    for owner, name, label in STEPS:
        _timed(owner, name, label)
    cpu, wall = time.process_time(), time.perf_counter()
    try:
        status = cli.main(argv)
    except SystemExit as e:
        status = e.code
    out = sys.__stderr__
    out.write("%-40s %7.2f s CPU %7.2f s wall (exit %s)\n" % ("total", time.process_time() - cpu,
                                                              time.perf_counter() - wall, status))
    for label, (c, w, n) in sorted(SPENT.items(), key=lambda kv: -kv[1][0]):
        out.write("%-40s %7.2f s CPU %7.2f s wall %7d calls\n" % (label, c, w, n))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
