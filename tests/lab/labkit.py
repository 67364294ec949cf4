"""What every lab test shares: run only inside the guest, drive the real
CLI as a process on the guest's live `/`, and the apply -> plan -> revert
cycle each test proves on the real kernel."""
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
IN_GUEST = os.environ.get("NUMATUNE_LAB") == "guest"
# Every lab module starts with `pytestmark = guest_only`: outside the guest these
# tests would change this machine's kernel.
guest_only = pytest.mark.skipif(not IN_GUEST, reason="lab test: runs only inside the QEMU guest (tests/lab/run.sh)")


def numatune(*args, timeout=300):
    """The real CLI as a process: (status, stdout, stderr). Echoed, so a
    failure's report shows what ran and what it said."""
    env = dict(os.environ, NO_COLOR="1", PYTHONPATH=str(REPO))
    t0 = time.time()
    proc = subprocess.run([sys.executable, "-m", "numatune"] + [str(a) for a in args], capture_output=True,
                          text=True, env=env, cwd=str(REPO), timeout=timeout)
    print("$ numatune %s  -> %d (%.1fs)\n%s%s" % (" ".join(map(str, args)), proc.returncode, time.time() - t0,
                                                 proc.stdout, proc.stderr))
    return proc.returncode, proc.stdout, proc.stderr


def plan_json(policy, *extra):
    status, out, err = numatune("plan", "--policy", policy, "--format", "json", *extra)
    assert status == 0, err
    return json.loads(out)


def policy_file(tmp_path, text, name="policy.toml"):
    path = tmp_path / name
    path.write_text(text)
    return path


def cycle(policy, read, *apply_args, inside=None):
    """apply --yes, then `plan` has no change left, then revert --last, then
    read() is exactly what it was. inside(applied) runs while applied.
    Returns (before, applied, apply's stdout)."""
    before = read()
    status, out, err = numatune("apply", "--yes", "--policy", policy, *apply_args)
    # A failed apply rolled itself back: nothing of this test's to revert.
    assert status == 0, out + err
    try:
        applied = read()
        left = plan_json(policy)["changes"]
        assert left == [], [c["id"] for c in left]
        if inside:
            inside(applied)
    finally:
        rstatus, rout, rerr = numatune("revert", "--last")
        assert rstatus == 0, rout + rerr
    assert read() == before
    return before, applied, out


def read(path):
    return Path(path).read_text().strip()


def write(path, value):
    Path(path).write_text(str(value))


def wait_for(predicate, timeout=60, step=0.2):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if predicate():
            return True
        time.sleep(step)
    return predicate()


def sh(cmd, check=True):
    print("+ " + cmd)
    return subprocess.run(cmd, shell=True, check=check, capture_output=True, text=True).stdout


def scsi_paths():
    """The scsi_debug disks that report as 3PARdata VV: name -> wwid."""
    out = {}
    for dev in sorted(Path("/sys/block").glob("sd*")):
        if read(dev / "device/model") == "VV":
            out[dev.name] = read(dev / "device/wwid")
    return out


def load_array():
    """scsi_debug as a 3PAR array: 2 LUNs through 2 SCSI hosts = 4 sd paths, 2 WWNs."""
    sh("modprobe scsi_debug num_tgts=1 max_luns=2 add_host=2 vpd_use_hostno=0 dev_size_mb=16 "
       "inq_vendor=3PARdata inq_product=VV")
    assert wait_for(lambda: len(scsi_paths()) == 4, timeout=60)
    sh("udevadm settle --timeout=60")
    return scsi_paths()


def unload_array():
    sh("multipath -F", check=False)
    sh("udevadm settle --timeout=30; rmmod scsi_debug", check=False)
