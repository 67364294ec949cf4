#!/usr/bin/env python3
"""Whether two checkouts print the same plans and checks, byte for byte.

    python bench/same_outputs.py BEFORE_DIR [AFTER_DIR] [--hosts DIR ...] [--keep]

Runs `plan`, `plan --verbose`, `plan --format json`, `check` and `check --format json`
of each checkout (its numatune/ on PYTHONPATH, this interpreter) on this-vm, the
hwloc and lscpu captures of tests/data (unpacked once) under the default and the
bench policy, the `tests/cases` roots under their own policies, and each --hosts
directory (a bench host made by make_host.py: /dev/shm/b/nics, ...) under the
bench policy and the default one, and compares stdout, stderr and exit status.
A check's `checked_at` is the one field masked. Prints each difference and
exits 1 when there is one. AFTER_DIR defaults to this checkout.
"""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path[:0] = [HERE]

import bench_policy  # noqa: E402

MODES = (["plan"], ["plan", "--verbose"], ["plan", "--format", "json"], ["check"], ["check", "--format", "json"])
_STAMP = re.compile(rb'"checked_at": "[^"]*"')


def _captures(work):
    """The capture roots of tests/data, unpacked under ``work``."""
    roots = [os.path.join(REPO, "tests", "data", "this-vm")]
    for tar in sorted(glob.glob(os.path.join(REPO, "tests", "data", "hwloc", "*.tar.bz2")) +
                      glob.glob(os.path.join(REPO, "tests", "data", "lscpu", "*.tar.gz"))):
        dest = os.path.join(work, os.path.basename(tar).split(".tar")[0])
        with tarfile.open(tar) as t:
            t.extractall(dest, filter="fully_trusted") if hasattr(tarfile, "data_filter") else t.extractall(dest)
        roots += sorted(os.path.dirname(p) for p in glob.glob(os.path.join(dest, "*", "sys")))
    return roots


def cases(work, hosts, policy):
    out = []
    for root in _captures(work) + list(hosts):
        out += [(root, None), (root, policy)]
    for case in sorted(glob.glob(os.path.join(REPO, "tests", "cases", "*", "*", ""))):
        if os.path.isdir(case + "root") and os.path.isfile(case + "policy.toml"):
            out.append((case + "root", case + "policy.toml"))
    return out


def run(tree, argv):
    env = dict(os.environ, PYTHONPATH=tree, NO_COLOR="1", COLUMNS="80")
    proc = subprocess.run([sys.executable, "-m", "numatune"] + argv, capture_output=True, cwd=tree, env=env)
    return proc.returncode, _STAMP.sub(b'"checked_at": ""', proc.stdout), proc.stderr


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before")
    parser.add_argument("after", nargs="?", default=REPO)
    parser.add_argument("--hosts", nargs="*", default=[], help="bench hosts to plan as well")
    args = parser.parse_args(argv)
    work = tempfile.mkdtemp(prefix="numatune-same-")
    try:
        policy = os.path.join(work, "bench-policy.toml")
        bench_policy.build(policy)
        runs = differ = 0
        for root, pol in cases(work, args.hosts, policy):
            for mode in MODES:
                argv_ = mode + ["--root", root] + (["--policy", pol] if pol else [])
                runs += 1
                if run(os.path.abspath(args.before), argv_) != run(os.path.abspath(args.after), argv_):
                    differ += 1
                    print("differs: numatune %s" % " ".join(argv_))
        print("%d of %d runs differ" % (differ, runs))
        return 1 if differ else 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
