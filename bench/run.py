#!/usr/bin/env python3
"""numatune on a giant host, against the cost of only reading what it reads.

    python bench/run.py [--reps 5] [--budget 100] [--workdir DIR] [--keep] [--luns 1024 --nics 64 ...]
    python bench/run.py --apply-only [--no-kept] [--reps 5]     # apply+revert/floor alone (bench/apply_bench.py)

One run: builds the synthetic host of make_host.py (and one with 1/8 of its
devices), plans it end to end as a process, traces that plan once with
strace to learn exactly which files it opened, listed and readlink'ed, and
times a minimal Python script doing only that (the floor). Every timing is
the median wall time of several warm runs of a whole process (--reps, fewer
when they would not fit in --budget seconds, never under 3), interleaved so
that noise from other work on the machine falls on all of them alike.
Ratios print as `NAME = N.NN`; lines starting with '#' are the details.
"""
import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path[:0] = [HERE, REPO]

import bench_policy  # noqa: E402
import trace  # noqa: E402
import tuned_side  # noqa: E402
from make_host import DEFAULTS, make_host  # noqa: E402

PY = sys.executable
ENV = dict(os.environ, PYTHONPATH=REPO, NO_COLOR="1", PYTHONDONTWRITEBYTECODE="")
FORBIDDEN = ("textual", "pyroute2", "oracledb")
THIS_VM = os.path.join(REPO, "tests", "data", "this-vm")


class BenchError(SystemExit):
    pass


def say(line):
    print(line, flush=True)


def numatune(*args):
    return [PY, "-m", "numatune"] + [str(a) for a in args]


def _children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run(argv, ok=(0,)):
    """(wall seconds, CPU seconds) of one process run; its failure stops the benchmark."""
    cpu = _children_cpu()
    start = time.perf_counter()
    proc = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=ENV, cwd=REPO)
    elapsed = time.perf_counter() - start
    if proc.returncode not in ok:
        err = proc.stderr.decode(errors="replace").strip().splitlines()
        raise BenchError("bench: %s exited %d: %s" % (" ".join(argv[1:6]), proc.returncode,
                                                     err[-1] if err else "(no message)"))
    return elapsed, _children_cpu() - cpu


def medians(commands, reps, budget, cold):
    """({name: median wall seconds}, {name: median CPU seconds}, rounds) of each
    (name, argv, ok), interleaved round by round. Only the ``cold`` commands get a
    warm-up run: the others read what the traced run just read. Fewer rounds
    (never under 3) when ``reps`` would not fit in ``budget`` seconds."""
    wall = {name: [] for name, _, _ in commands}
    cpu = {name: [] for name, _, _ in commands}
    for name, argv, ok in commands:
        if name in cold:
            run(argv, ok)
    rounds, done = reps, 0
    while done < rounds:
        start = time.perf_counter()
        for name, argv, ok in commands:
            w, c = run(argv, ok)
            wall[name].append(w)
            cpu[name].append(c)
        done += 1
        if done == 1:
            rounds = max(min(3, reps), min(reps, int(budget // max(time.perf_counter() - start, 1e-3))))
    return ({n: statistics.median(t) for n, t in wall.items()},
            {n: statistics.median(t) for n, t in cpu.items()}, rounds)


def floor_ops(argv, prefixes, out_path):
    """Trace ``argv`` once; write the floor's work list; return its summary."""
    if not shutil.which("strace"):
        raise BenchError("bench: strace is needed to find the floor (apt-get install strace)")
    log = out_path + ".strace"
    proc = subprocess.run(["strace", "-f", "-qq", "-s", "4096", "-e",
                           "trace=openat,openat2,readlink,readlinkat,getdents64", "-o", log, "--"] + argv,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=ENV, cwd=REPO)
    if proc.returncode not in (0, 1, 2):
        raise BenchError("bench: traced run failed: %s" % proc.stderr.decode(errors="replace").strip()[-300:])
    with open(log, encoding="utf-8", errors="surrogateescape") as f:
        items = trace.ops(f.read(), prefixes)
    with open(out_path, "w", encoding="utf-8", errors="surrogateescape") as f:
        f.write(trace.ops_text(items))
    return trace.summary(items)


def working_policy(path, root):
    """The richest bench policy whose plan runs; areas that break it are dropped and said."""
    drop = set()
    while True:
        included, skipped = bench_policy.build(path, drop)
        try:
            run(numatune("plan", "--root", root, "--policy", path))
            return included, skipped
        except BenchError as e:
            if not included:
                raise
            # Another family's failure must not hide every other figure: drop the newest section, retry.
            drop.add(included[-1])
            say("# the plan failed with [%s] (%s): retrying without it" % (included[-1][1], e))


def apply_revert(root, policy, planned):
    """Seconds of `apply --yes` + `revert --last` on ``root`` (one run: it is the slowest
    measurement), after checking that the plan then is the one saved in ``planned``."""
    import json
    with open(planned, encoding="utf-8") as f:
        before = json.load(f)["changes"]
    # No confirm window: the bench's bond carries the default route, which would arm one (a copy has no SSH to lose).
    applied = run(numatune("apply", "--root", root, "--policy", policy, "--yes", "--confirm-within", "0"), ok=(0, 1))
    reverted = run(numatune("revert", "--last", "--root", root))
    out = subprocess.run(numatune("plan", "--root", root, "--policy", policy, "--format", "json"),
                         capture_output=True, env=ENV, cwd=REPO, check=True).stdout
    after = json.loads(out)["changes"]
    if after != before:
        differ = next((b["id"] for a, b in zip(after, before) if a != b), "the number of changes")
        raise BenchError("bench: after apply + revert the plan differs (%s): revert was not exact" % differ)
    return applied[0] + reverted[0], applied[1] + reverted[1], len(before)


def kept_journals(root, policy, kept=50, rounds=3):
    """apply + revert --last with ``kept`` giant-host transactions in the journal
    against the same with none (#38: the journal index, not a parse of each).
    The kept ones are hard links of one applied-and-reverted journal of this
    host under older ids (50 copies of 40 MB would fill a tmpfs); the first run
    over them builds the index, as after an upgrade. Rounds alternate by
    renaming the journal directory and its index aside (the journals keep
    their stat), medians."""
    state = os.path.join(root, "var/lib/numatune")
    journals, aside = os.path.join(state, "journal"), os.path.join(state, "journal-kept")
    apply_argv = numatune("apply", "--root", root, "--policy", policy, "--yes", "--confirm-within", "0")
    revert_argv = numatune("revert", "--last", "--root", root)

    def cycle():
        a, b = run(apply_argv, ok=(0, 1)), run(revert_argv)
        return a[0], b[0], a[1], b[1]     # wall, then CPU seconds
    shutil.rmtree(journals, ignore_errors=True)
    cycle()
    [made] = [n for n in os.listdir(journals) if n.endswith(".jsonl")]
    for i in range(kept):
        os.link(os.path.join(journals, made), os.path.join(journals, "20000101T000000-%06d-1.jsonl" % i))
    os.remove(os.path.join(journals, made))
    cycle()     # builds the index over the kept ones; its own journal then is one more kept
    size = os.path.getsize(os.path.join(journals, "20000101T000000-000000-1.jsonl"))
    none, many = [], []
    index = os.path.join(state, "journal-index.json")     # set aside with the journals it indexes
    for _ in range(rounds):
        os.rename(journals, aside)
        os.rename(index, index + "-kept")
        none.append(cycle())
        shutil.rmtree(journals)
        os.rename(aside, journals)
        os.replace(index + "-kept", index)
        many.append(cycle())
        newest = sorted(n for n in os.listdir(journals) if n.endswith(".jsonl") and not n.startswith("2000"))
        for name in newest[1:]:     # one kept from the warm-up: the count stays kept + 1
            os.remove(os.path.join(journals, name))
    med = [statistics.median(c[i] for c in none) for i in range(4)]
    mem = [statistics.median(c[i] for c in many) for i in range(4)]
    say("# kept journals: %d of %.1f MB; medians of %d rounds, none/kept: apply %.0f/%.0f ms wall, %.0f/%.0f ms "
        "CPU; revert --last %.0f/%.0f ms wall, %.0f/%.0f ms CPU"
        % (kept + 1, size / 1e6, rounds, med[0] * 1000, mem[0] * 1000, med[2] * 1000, mem[2] * 1000,
           med[1] * 1000, mem[1] * 1000, med[3] * 1000, mem[3] * 1000))
    say("# CPU-time ratios: apply kept%d/none %.2f, revert kept%d/none %.2f"
        % (kept, mem[2] / med[2], kept, mem[3] / med[3]))
    say("apply kept%d/none = %.2f" % (kept, mem[0] / med[0]))
    say("revert kept%d/none = %.2f" % (kept, mem[1] / med[1]))


def default_workdir():
    # sysfs lives in memory; tmpfs is the closest stand-in (and builds the tree 8x faster than a disk).
    return "/dev/shm" if os.access("/dev/shm", os.W_OK) else tempfile.gettempdir()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=5, help="timed rounds at most (default 5, at least 3)")
    parser.add_argument("--budget", type=float, default=100,
                        help="seconds the timed rounds may take; fewer rounds when they would not fit")
    parser.add_argument("--workdir", default=default_workdir(), help="where the hosts are built")
    parser.add_argument("--keep", action="store_true", help="keep the generated hosts and traces")
    parser.add_argument("--no-side", action="store_true",
                        help="skip the side-by-side runs (tuned-adm verify, the TUI's first paint)")
    parser.add_argument("--no-shapes", action="store_true",
                        help="skip the other host shapes (many dm maps over few paths, many NICs: 256 x 8 and 64 x 64)")
    parser.add_argument("--apply-only", action="store_true",
                        help="only apply+revert against the floor (--reps rounds) and the kept journals")
    parser.add_argument("--no-kept", action="store_true", help="with --apply-only: skip the kept journals")
    for name, value in DEFAULTS.items():
        parser.add_argument("--" + name, type=int, default=value, metavar="N")
    args = parser.parse_args(argv)
    began = time.perf_counter()
    sizes = {k: getattr(args, k) for k in DEFAULTS}
    small = dict(sizes, luns=max(sizes["luns"] // 8, 1), nics=max(sizes["nics"] // 8, 1))
    try:
        work = tempfile.mkdtemp(prefix="numatune-bench-", dir=args.workdir)
    except OSError as e:
        raise SystemExit("bench: cannot build the hosts in %s: %s (give --workdir)" % (args.workdir, e.strerror))
    try:
        if args.apply_only:
            from apply_bench import run_apply_only
            run_apply_only(args, work, sizes, sys.modules[__name__])
        else:
            report(args, work, sizes, small)
        if not args.no_shapes and not args.apply_only:
            shapes(args, work, sizes)
    finally:
        if args.keep:
            print("# kept %s" % work)
        else:
            shutil.rmtree(work, ignore_errors=True)
    if not args.no_side and not args.apply_only:
        side_by_side(args.reps)
    own = resource.getrusage(resource.RUSAGE_SELF)
    # CPU seconds say what an idle machine would need when other work stretches the wall time.
    say("# bench took %.0f s wall, %.0f s CPU" % (time.perf_counter() - began,
                                               _children_cpu() + own.ru_utime + own.ru_stime))
    return 0


# The other shapes of issues #29 and #38, beside the bench's own: (name, sizes over the
# defaults, the key that scales for the t(N)/t(N/8) ratio). Fewer CPUs and processes
# than the giant host, so that the devices are what the plan spends its time on.
SHAPES = (
    ("dm", dict(luns=4096, paths=1, nics=2, queues=4, cpus=64, sockets=2, nodes=2, procs=100), "luns"),
    # make_host.py gives a node at most 32 ports (16 dual-port cards on its root bus).
    ("nics", dict(luns=8, paths=1, nics=256, queues=8, cpus=64, sockets=8, nodes=8, procs=100), "nics"),
    # #38 names its many-NIC goal at 64 NICs x 64 queues: the bench host's NICs without its storage.
    ("nics64", dict(luns=8, paths=1, nics=64, queues=64, cpus=64, sockets=8, nodes=8, procs=100), "nics"),
)


def shapes(args, work, sizes):
    """plan/floor on each other shape (the floor from a trace of the same plan),
    and t(N)/t(N/8) of the plan as its devices grow eightfold."""
    for name, over, key in SHAPES:
        big, small = dict(sizes, **over), dict(sizes, **over)
        small[key] = max(big[key] // 8, 1)
        big_root, small_root = os.path.join(work, "shape-" + name), os.path.join(work, "shape-%s-small" % name)
        info = make_host(big_root, **big)
        make_host(small_root, **small)
        policy = os.path.join(work, "shape-%s.toml" % name)
        working_policy(policy, big_root)
        plan_argv = numatune("plan", "--root", big_root, "--policy", policy)
        ops_file = os.path.join(work, "shape-%s.ops" % name)
        say("# shape %s: %d SCSI paths, %d dm, %d NICs x %d queues, %d CPUs; floor: %s"
            % (name, info["scsi_paths"], info["dm_devices"], info["nics"], info["queues_per_nic"], info["cpus"],
               floor_ops(plan_argv, [big_root, policy], ops_file)))
        commands = [("plan", plan_argv, (0,)), ("floor", [PY, os.path.join(HERE, "floor.py"), ops_file], (0,)),
                    ("plan-small", numatune("plan", "--root", small_root, "--policy", policy), (0,))]
        t, cpu, rounds = medians(commands, args.reps, args.budget / 2, cold=("floor", "plan-small"))
        say("# shape %s, medians of %d rounds: plan %.1f ms, floor %.1f ms, plan of 1/8 %.1f ms (CPU: %.1f, %.1f, "
            "%.1f ms)" % (name, rounds, t["plan"] * 1000, t["floor"] * 1000, t["plan-small"] * 1000,
                          cpu["plan"] * 1000, cpu["floor"] * 1000, cpu["plan-small"] * 1000))
        say("%s: plan/floor = %.2f" % (name, t["plan"] / t["floor"]))
        say("%s: t(%d %s)/t(%d %s) = %.2f" % (name, big[key], key, small[key], key, t["plan"] / t["plan-small"]))


def side_by_side(reps):
    """check/verify against a tuned daemon started for it (bench/tuned_side.py), and the
    TUI's first paint against a minimal Textual app (bench/tui_first_paint.py)."""
    try:
        t, values = tuned_side.measure([PY, "-m", "numatune"], max(reps, 5), ENV)
        say("# three sysctls (%s) on the real kernel: numatune check %.1f ms, tuned-adm verify %.1f ms"
            % (", ".join(values), t["check"] * 1000, t["verify"] * 1000))
        say("check/verify = %.2f" % (t["check"] / t["verify"]))
    except SystemExit as e:
        say("# check/verify: %s" % e)
    proc = subprocess.run([PY, os.path.join(HERE, "tui_first_paint.py"), "--reps", str(max(reps, 5))],
                          capture_output=True, text=True, env=ENV, cwd=REPO)
    if proc.returncode == 0:
        for line in proc.stdout.splitlines():
            say(line)
    else:
        say("# tui first paint: skipped (%s)" % (proc.stderr.strip().splitlines() or ["failed"])[-1])


def report(args, work, sizes, small):
    big_root, small_root, copy_root = (os.path.join(work, n) for n in ("host", "host-small", "host-copy"))
    info = make_host(big_root, **sizes)
    make_host(small_root, **small)
    make_host(copy_root, **sizes)
    devices, small_devices = info["scsi_paths"], small["luns"] * small["paths"]
    say("# host: %d sockets, %d nodes, %d CPUs, %d SCSI paths = %d LUNs x %d, %d dm, %d NICs x %d queues, "
          "%d Oracle SIDs; %d entries under %s"
          % (info["sockets"], info["nodes"], info["cpus"], devices, info["multipath_luns"], sizes["paths"],
             info["dm_devices"], info["nics"], info["queues_per_nic"], len(info["oracle_sids"]), info["entries"],
             args.workdir))
    policy = os.path.join(work, "bench-policy.toml")
    included, skipped = working_policy(policy, big_root)
    say("# policy areas: kernel, memory, sysctl%s" % "".join(", %s [%s]" % a for a in included))
    for area, why in skipped:
        say("# skipped %s: %s" % (area, why))

    planned = os.path.join(work, "plan.json")
    plan_argv = numatune("plan", "--root", big_root, "--policy", policy)
    ops_file = os.path.join(work, "floor.ops")
    # --out only adds a JSON copy outside the root: the same reads, and the plan to compare after revert.
    say("# floor: %s" % floor_ops(plan_argv + ["--out", planned], [big_root, policy], ops_file))
    floor_argv = [PY, os.path.join(HERE, "floor.py"), ops_file]
    commands = [
        ("plan", plan_argv, (0,)),
        ("floor", floor_argv, (0,)),
        ("check", numatune("check", "--root", big_root, "--policy", policy, "--format", "json"), (0, 1, 2)),
        ("plan-small", numatune("plan", "--root", small_root, "--policy", policy), (0,)),
        ("version", numatune("--version"), (0,)),
        ("python", [PY, "-c", "pass"], (0,)),
        # Issue #38's start-up goals are against an isolated interpreter (no user site), and a small
        # host's check is this VM's own capture under the default policy.
        ("python-I", [PY, "-I", "-c", "pass"], (0,)),
        ("check-vm", numatune("check", "--root", THIS_VM), (0, 1, 2)),
    ]
    block_policy = bench_policy.build_block_only(os.path.join(work, "bench-block.toml"))
    if block_policy:
        block_argv = numatune("plan", "--root", big_root, "--policy", block_policy)
        block_ops = os.path.join(work, "block-floor.ops")
        say("# block floor: %s" % floor_ops(block_argv, [big_root, block_policy], block_ops))
        commands += [("block-plan", block_argv, (0,)),
                     ("block-floor", [PY, os.path.join(HERE, "floor.py"), block_ops], (0,))]
    t, cpu, rounds = medians(commands, args.reps, args.budget,
                             cold=("floor", "plan-small", "version", "python", "python-I", "check-vm", "block-floor"))
    say("# medians of %d warm rounds" % rounds)
    t["apply+revert"], cpu["apply+revert"], nchanges = apply_revert(copy_root, policy, planned)
    for name in ("python", "python-I", "version", "check-vm", "floor", "plan", "check", "plan-small", "apply+revert",
                 "block-floor", "block-plan"):
        if name in t:
            say("# %-12s %9.1f ms wall %9.1f ms CPU" % (name, t[name] * 1000, cpu[name] * 1000))
    say("# apply+revert: %d changes applied, verified and reverted exactly (one run)" % nchanges)
    kept_journals(copy_root, policy)
    # The same ratios in CPU time: steadier when other work shares the machine.
    say("# CPU-time ratios: plan/floor %.2f, check/floor %.2f, apply+revert/floor %.2f, t(%d)/t(%d) %.2f, "
        "version/python -I %.2f, check this-vm/python -I %.2f"
        % (cpu["plan"] / cpu["floor"], cpu["check"] / cpu["floor"], cpu["apply+revert"] / cpu["floor"],
           devices, small_devices, cpu["plan"] / cpu["plan-small"], cpu["version"] / cpu["python-I"],
           cpu["check-vm"] / cpu["python-I"]))
    say("plan/floor = %.2f" % (t["plan"] / t["floor"]))
    say("check/floor = %.2f" % (t["check"] / t["floor"]))
    say("apply+revert/floor = %.2f" % (t["apply+revert"] / t["floor"]))
    say("t(%d)/t(%d) = %.2f" % (devices, small_devices, t["plan"] / t["plan-small"]))
    # Without the fixed start-up both plans pay, the ratio shows how the device work itself grows.
    net = (t["plan"] - t["version"]) / max(t["plan-small"] - t["version"], 1e-4)
    say("(t(%d)-t0)/(t(%d)-t0) = %.2f" % (devices, small_devices, net))
    say("version/python = %.2f" % (t["version"] / t["python"]))
    say("version/python -I = %.2f" % (t["version"] / t["python-I"]))
    say("check this-vm/python -I = %.2f" % (t["check-vm"] / t["python-I"]))
    if "block-plan" in t:
        say("block-plan/floor = %.2f" % (t["block-plan"] / t["block-floor"]))
    else:
        say("# block-plan/floor: skipped (no storage family declares [[block]] yet)")


if __name__ == "__main__":
    sys.exit(main())
