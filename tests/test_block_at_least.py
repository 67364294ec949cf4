"""[[block]] nr_requests and read_ahead_kb as floors, ``{ at_least = N }``: a lower value rises to N, a
higher one is kept, live (loop devices on this kernel) and at boot (the udev rule's RUN program, run
by a real sh); max_sectors_kb and queue_depth take no floor (settings.FLOOR_ATTRS says why)."""
import json
import os
import shutil
import subprocess

import pytest

from conftest import write
from numatune.families.storage import udev_rules, udev_targets
from test_block_live import _q, _run, _set, loops  # noqa: F401 (the fixture)


def _sh_of(run, sysfs):
    """The shell text udev runs for a RUN+= value: $$ is a $, $devpath the device's path under /sys."""
    assert run.startswith("/bin/sh -c '") and run.endswith("'")
    return run[len("/bin/sh -c '"):-1].replace("/sys$devpath", str(sysfs)).replace("$$", "$")


@pytest.mark.parametrize("shell", ["dash", "bash", "busybox"])
def test_the_udev_floor_program_raises_only_a_lower_value(shell, tmp_path):
    argv = {"busybox": ["busybox", "sh", "-c"]}.get(shell, [shell, "-c"])
    if not shutil.which(argv[0]):
        pytest.skip("%s is not installed" % argv[0])
    dev = tmp_path / "block/dm-0"
    for path, value in (("queue/nr_requests", "2048"), ("slaves/sdb/queue/nr_requests", "256"),
                        ("slaves/sdc/queue/nr_requests", "4096")):
        write(dev, path, value + "\n")
    for slaves in (False, True):
        run = udev_targets.floor_run("queue/nr_requests", 1024, slaves=slaves)
        assert udev_targets.parse_floor_run(run) == ("queue/nr_requests", ">=1024", slaves)
        proc = subprocess.run(argv + [_sh_of(run, dev)], capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
    assert (dev / "queue/nr_requests").read_text() == "2048\n"           # kept
    assert (dev / "slaves/sdb/queue/nr_requests").read_text() == "1024\n"  # raised
    assert (dev / "slaves/sdc/queue/nr_requests").read_text() == "4096\n"  # kept
    # udev's own parser in numatune reads the rule back as that floor, not as any other RUN.
    line = udev_rules.format_rule(udev_targets.BASE, ("RUN", run))
    (keys, assigns), = udev_rules.parse(line)
    assert assigns == [("RUN", run)] and udev_targets.parse_slave_run(run) is None


@pytest.mark.parametrize("text, said", [
    ("nr_requests = {}", "block[0].nr_requests is a table without at_least"),
    ("queue_depth = { at_least = 64 }", "queue_depth must be"),
    ("max_sectors_kb = { at_least = 512 }", "max_sectors_kb must be"),
    ("read_ahead_kb = { at_least = -1 }", "read_ahead_kb"),
])
def test_a_bad_floor_is_one_line_and_exit_2(text, said, cli, tmp_path, capture):
    root = capture("16amd64-4n4c-cgroup-distance-merge")
    policy = write(tmp_path, "p.toml", '[[block]]\nmatch = { vendor = "3PARdata" }\n%s\n' % text)
    status, out, err = cli("plan", "--root", root, "--policy", policy)
    assert status == 2 and said in err and "Traceback" not in err, err
    assert len([line for line in err.splitlines() if line.startswith("numatune:")]) == 1, err


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("losetup") or not os.path.isdir("/sys/block"),
                    reason="needs root, losetup and /sys/block")
def test_live_a_lower_queue_rises_and_a_higher_one_is_kept(loops, cli, tmp_path):  # noqa: F811
    low, high = loops(2)
    _set(low, "read_ahead_kb", "64")
    _set(high, "read_ahead_kb", "8192")
    _set(low, "nr_requests", "32")
    _set(high, "nr_requests", str(int(_q(high, "nr_requests"))))  # the loop's default: above the floor
    floor = int(_q(high, "nr_requests")) // 2
    policy = write(tmp_path, "p.toml", """
[[block]]
match = { name = ["%s", "%s"], kind = "loop" }
read_ahead_kb = { at_least = 4096 }
nr_requests = { at_least = %d }
why = "test"
""" % (low, high, floor))
    before = {n: (_q(n, "read_ahead_kb"), _q(n, "nr_requests")) for n in (low, high)}
    status, out, err = _run(cli, "plan", "--root", "/", "--policy", policy, "--only", "storage",
                            "--format", "json")
    assert status == 0, err
    live = {c["id"]: c["desired"] for c in json.loads(out)["changes"] if c["scope"] == "live"}
    assert live == {"block.live:%s:read_ahead_kb" % low: "4096", "block.live:%s:nr_requests" % low: str(floor)}
    status, out, err = _run(cli, "apply", "--root", "/", "--policy", policy, "--only", "storage", "--live-only",
                            "--yes")
    assert status == 0, err + out
    assert (_q(low, "read_ahead_kb"), _q(low, "nr_requests")) == ("4096", str(floor))
    assert (_q(high, "read_ahead_kb"), _q(high, "nr_requests")) == before[high]
    status, out, err = _run(cli, "revert", "--last")
    assert status == 0, err + out
    assert {n: (_q(n, "read_ahead_kb"), _q(n, "nr_requests")) for n in (low, high)} == before
