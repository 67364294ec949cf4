"""The udev rules' pieces against the real kernel, on loop devices this
test attaches (no device-mapper on this machine, so a map is a directory
whose slaves/ links point at the real loop devices): the scheduler guard
reads the kernel's own queue/scheduler text, and the map's RUN program,
run by /bin/sh, writes the real devices. Every value is put back (the
loops fixture records and restores them)."""
import os
import subprocess

from test_block_live import _q, _state, loops  # noqa: F401 (loops is a fixture)
from numatune.families.storage import udev_rules, udev_targets
from numatune.families.storage import facts as facts_block
from numatune.root import Root


def test_the_scheduler_guard_reads_the_kernel_text(loops):  # noqa: F811
    (name,) = loops(1)
    device = facts_block.discover_sysfs(Root("/"))[name]
    text = _q(name, "scheduler")
    offered = facts_block.parse_scheduler(text)[1]
    for candidate in ("mq-deadline", "deadline", "none", "noop", "kyber", "bfq"):
        hits = [n for keys, n in udev_targets.scheduler_keys([candidate]) if udev_rules.matches(keys, device)]
        assert hits == ([candidate] if candidate in offered else []), (candidate, text)


def _run(program, devpath):
    script = program.replace("$devpath", devpath).replace("$$", "$")
    assert script.startswith("/bin/sh -c '") and script.endswith("'")
    subprocess.run(["/bin/sh", "-c", script[len("/bin/sh -c '"):-1]], check=True, timeout=30)


def test_the_map_program_writes_the_real_paths(loops, tmp_path):  # noqa: F811
    a, b = loops(2)
    before = {n: _state(n) for n in (a, b)}
    # A map's sysfs directory as udev gives it ($devpath is below /sys).
    fake = tmp_path / "map"
    (fake / "slaves").mkdir(parents=True)
    for n in (a, b):
        os.symlink(os.path.realpath("/sys/block/" + n), fake / "slaves" / n)
    devpath = "/../" + os.path.relpath(str(fake), "/")  # /sys/../tmp/...: the program prefixes /sys
    names = [n for n in ("mq-deadline", "deadline") if n in facts_block.parse_scheduler(_q(a, "scheduler"))[1]]
    assert names, "the kernel offers mq-deadline on loop devices"
    _run(udev_targets.slave_run("queue/scheduler", None, ["deadline", "mq-deadline"]), devpath)
    _run(udev_targets.slave_run("queue/nomerges", "1", None), devpath)
    _run(udev_targets.slave_run("queue/nr_requests", "32", None), devpath)
    for n in (a, b):
        now = _state(n)
        assert now["scheduler"] == "mq-deadline"  # "deadline" is not offered as a word: mq-deadline is
        assert (now["nomerges"], now["nr_requests"]) == ("1", "32")
    assert {n: _state(n) != before[n] for n in (a, b)} == {a: True, b: True}
