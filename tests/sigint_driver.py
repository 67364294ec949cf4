"""numatune's CLI in a real process that sends itself a real SIGINT at one
point of an apply, for tests/test_interrupt.py (no pytest here).

    python sigint_driver.py POINT numatune-args...

POINT: ``plan`` (the first plan), ``lock`` (the run lock just taken),
``write-N`` (after the Nth value write), ``verify`` (the read-back after
the writes), ``rollback`` (write 2, then again during the rollback's first
restore), ``commit`` (the journal's commit record written), ``after`` (apply
returned; the CLI prints), ``import-MODULE`` (as Python starts to import
MODULE, e.g. numatune.families.registry while the parser is built),
``slow`` (no SIGINT here: each value write takes 0.3 s, for a SIGINT sent
from outside).
"""
import os
import signal
import sys
import time


def _sigint():
    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(0.05)    # the handler runs at the next bytecode; give the signal time to arrive


class _SigintOnImport:
    """A finder that finds nothing: it only sends SIGINT when ``module`` is looked for."""
    def __init__(self, module):
        self.module = module

    def find_spec(self, name, path=None, target=None):
        if name == self.module:
            sys.meta_path.remove(self)
            _sigint()
        return None


def arm(point):
    if point.startswith("import-"):
        sys.meta_path.insert(0, _SigintOnImport(point[len("import-"):]))
        return
    from numatune import engine
    from numatune.apply import journal, kinds, lock
    value = kinds.KINDS["value"]
    real_perform, real_restore, real_plan = value.perform, value.restore, engine.make_plan
    count = {"writes": 0, "plans": 0, "restores": 0}

    def perform(root, op):
        real_perform(root, op)
        count["writes"] += 1
        if point == "slow":
            time.sleep(0.3)
        if point == "write-%d" % count["writes"] or (point == "rollback" and count["writes"] == 2):
            _sigint()

    def restore(root, op):
        count["restores"] += 1
        if point == "rollback" and count["restores"] == 1:
            _sigint()
        return real_restore(root, op)

    def make_plan(*a, **k):
        count["plans"] += 1
        if point == "plan" and count["plans"] == 1:
            _sigint()
        return real_plan(*a, **k)

    value.perform, value.restore, engine.make_plan = perform, restore, make_plan

    # Verify reads back what was written (no whole re-plan since #29): Ctrl-C as it starts.
    from numatune.apply import verify
    real_verify = verify.verify_writes

    def verify_writes(*a, **k):
        if point == "verify":
            _sigint()
        return real_verify(*a, **k)
    verify.verify_writes = verify_writes

    real_enter = lock.RunLock.__enter__

    def enter(self):
        got = real_enter(self)
        if point == "lock":
            _sigint()
        return got
    lock.RunLock.__enter__ = enter

    real_append = journal.Journal.append

    def append(self, record, *a, **k):
        got = real_append(self, record, *a, **k)
        if point == "commit" and record.get("t") == "commit":
            _sigint()
        return got
    journal.Journal.append = append

    if point == "after":
        real_apply = engine.apply

        def apply(*a, **k):
            got = real_apply(*a, **k)
            _sigint()
            return got
        engine.apply = apply


if __name__ == "__main__":
    arm(sys.argv[1])
    from numatune.cli import main
    sys.exit(main(sys.argv[2:]))
