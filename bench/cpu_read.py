#!/usr/bin/env python3
"""The cpu family's read alone, in one process: CPU time of its parts on a
fresh Root each round (after the CPU topology and the process list, which
other reads make first).

    python bench/cpu_read.py ROOT [ROUNDS]

Run it from the tree to measure (its numatune is imported from the current
directory), e.g. main's checkout and a branch's in turn.
"""
import os
import sys
import time

sys.path.insert(0, os.getcwd())


def main(root_dir, rounds=7):
    from numatune.facts.procs import table
    from numatune.facts.topology import read_cpus
    from numatune.families.cpu import facts
    from numatune.root import Root
    parts = {"cpufreq": [], "cpuidle": [], "holders": [], "total": []}
    for _ in range(rounds):
        root = Root(root_dir)
        _, online = read_cpus(root)
        table(root).pids()
        t0 = time.process_time()
        facts.read_cpufreq(root, online)
        t1 = time.process_time()
        facts._read_cpuidle(root, online)
        t2 = time.process_time()
        facts.dma_latency_holders(root)
        t3 = time.process_time()
        for name, spent in zip(parts, (t1 - t0, t2 - t1, t3 - t2, t3 - t0)):
            parts[name].append(spent)
        root.forget()
    print("  ".join("%s %.1f ms [%.1f]" % (name, sorted(v)[len(v) // 2] * 1e3, min(v) * 1e3)
                    for name, v in parts.items()))


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 7)
