#!/usr/bin/env python3
"""Start-up of two checkouts (small commands), their runs interleaved, in CPU time.

    python bench/ab_start.py BEFORE_DIR [--rounds 30] [--python PY]...

Times `python -I -c pass`, `numatune --version`, a check of three sysctls at
their live values (bench/tuned_side.py's policy) and a check of this VM's
capture (tests/data/this-vm), for BEFORE_DIR and this checkout, round by
round so that other work on the machine falls on both alike. Each
interpreter given runs both trees: this script's own (a development venv
loads pip's editable-install finder at every start) and, as an RPM installs
numatune, the system's `/usr/bin/python3 -s` with no venv (the tree on
PYTHONPATH stands for site-packages). Prints CPU medians (user+sys of the
child) and wall medians in ms, and each command over `python -I -c pass`.
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KEYS = ("vm.swappiness", "vm.dirty_ratio", "vm.dirty_background_ratio")
# What an installed /usr/bin/numatune runs (pip's console script, without its argv[0] rewrite).
SCRIPT = "import sys; from numatune.cli import main; sys.exit(main())"


def _policy(path):
    values = {}
    for key in KEYS:
        with open("/proc/sys/" + key.replace(".", "/")) as f:
            values[key] = f.read().strip()
    with open(path, "w") as f:
        f.write("[sysctl]\n" + "".join('"%s" = %s\n' % kv for kv in values.items()))


def _one(argv, env):
    start = time.perf_counter()
    proc = subprocess.Popen(argv, env=env, cwd="/", stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0, 1, 2):
        raise SystemExit("ab_start: %s exited %d" % (" ".join(argv), proc.returncode))
    return usage.ru_utime + usage.ru_stime, wall


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before")
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--python", action="append",
                        help="interpreter argv, e.g. '/usr/bin/python3 -s' (default: this one and that)")
    args = parser.parse_args(argv)
    pythons = [p.split() for p in (args.python or [sys.executable, "/usr/bin/python3 -s"])]
    policy = "/tmp/ab-start-three.toml"
    _policy(policy)
    capture = os.path.join(REPO, "tests", "data", "this-vm")
    commands = {"--version": ["--version"], "check 3 sysctls": ["check", "--policy", policy],
                "check this-vm": ["check", "--root", capture]}
    runs = []
    for py in pythons:
        env = dict(os.environ, NO_COLOR="1", PYTHONDONTWRITEBYTECODE="")  # an install has its .pyc files
        env.pop("PYTHONPATH", None)
        runs.append((" ".join(py), "python -I", py[:1] + ["-I", "-c", "pass"], env))
        for label, tree in (("before", os.path.abspath(args.before)), ("after", REPO)):
            tenv = dict(env, PYTHONPATH=tree)
            for name, cargs in commands.items():
                runs.append((" ".join(py), "%s %s" % (label, name), py + ["-c", SCRIPT] + cargs, tenv))
    times = {(p, n): [] for p, n, _, _ in runs}
    for i in range(args.rounds):
        # Every other round backwards: no command always runs right after the same one.
        for p, n, a, e in (runs if i % 2 == 0 else runs[::-1]):
            times[(p, n)].append(_one(a, e))
    for py in pythons:
        p = " ".join(py)
        base = statistics.median(c for c, _ in times[(p, "python -I")])
        print("# %s (%d rounds): CPU ms / wall ms / CPU x python -I" % (p, args.rounds))
        for (q, n), t in times.items():
            if q == p:
                cpu, wall = statistics.median(c for c, _ in t), statistics.median(w for _, w in t)
                print("%-24s %7.1f %7.1f %6.2f" % (n, cpu * 1000, wall * 1000, cpu / base))
    return 0


if __name__ == "__main__":
    sys.exit(main())
