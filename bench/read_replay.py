#!/usr/bin/env python3
"""The read layer alone: record the Root reads a plan's fact gathering makes,
then replay them on a fresh Root and print the CPU time they take.

    python bench/read_replay.py record ROOT POLICY LOG
    python bench/read_replay.py replay ROOT LOG [REPS]

Run ``replay`` from the tree to measure (its numatune is imported from the
current directory), e.g. main's checkout and a branch's in turn, or under
``valgrind --tool=cachegrind --cache-sim=no`` for a count of instructions
that other work on the machine does not move (``REPS`` 0 gives what loading
the log costs, to subtract).
"""
import gc
import os
import pickle
import sys
import time

sys.path.insert(0, os.getcwd())

CALLS = ("read_texts", "read_text", "read_value", "read_values", "read_value_alone", "read_bytes", "listdir",
         "readlink", "exists", "isdir", "islink", "realpath", "glob", "read_values_under", "links")


def record(root_dir, policy_path, log_path):
    from numatune.facts import kernel, topology
    from numatune.families.registry import for_host
    from numatune.policy import stack
    from numatune.root import Root
    from numatune.rootfs import reads
    log, inside = [], []

    def recorded(name, real):
        def call(self, *args):
            if inside:      # a read made by another read is the layer's own
                return real(self, *args)
            log.append((name, args))
            inside.append(name)
            try:
                return real(self, *args)
            finally:
                inside.pop()
        return call
    for name in CALLS:
        setattr(reads.Reads, name, recorded(name, getattr(reads.Reads, name)))
    root = Root(root_dir)
    data = stack.load([policy_path], root).data
    kernel.read(root)
    topology.read(root)
    for family in for_host(data, root):
        family.read(root, data)
    with open(log_path, "wb") as f:
        pickle.dump(log, f)
    print("%d reads recorded" % len(log))


def replay(root_dir, log_path, reps=5):
    from numatune.root import Root
    gc.set_threshold(100000, 50, 1000)     # as the CLI runs
    with open(log_path, "rb") as f:
        log = pickle.load(f)
    spent = []
    for _ in range(reps):
        root = Root(root_dir)
        calls = [(getattr(root, name), args) for name, args in log]
        start = time.process_time()
        for call, args in calls:
            try:
                call(*args)
            except Exception:   # a refusal is a read's answer too; the time is what counts
                pass
        spent.append(time.process_time() - start)
        root.forget()
    spent.sort()
    if spent:
        print("%d reads: min %.3f s, median %.3f s CPU" % (len(log), spent[0], spent[len(spent) // 2]))


if __name__ == "__main__":
    if len(sys.argv) >= 5 and sys.argv[1] == "record":
        record(*sys.argv[2:5])
    elif len(sys.argv) in (4, 5) and sys.argv[1] == "replay":
        replay(sys.argv[2], sys.argv[3], int(sys.argv[4]) if len(sys.argv) == 5 else 5)
    else:
        sys.exit(__doc__.split("\n\n")[1])
