"""[[block]] on the real kernel: loop devices this test attaches, applied
with `--root /`, read back from sysfs, reverted. Every queue value a test
may change is recorded first and put back in finally (loop devices keep
their queue settings after detach, and inherit some at attach)."""
import json
import os
import shutil
import subprocess
import time

import pytest

from numatune.families.storage import udev_rules
from numatune.families.storage import facts as facts_block
from numatune.families.storage import facts_snapshot
from numatune.root import Root

QUEUE = ("scheduler", "nr_requests", "read_ahead_kb", "nomerges", "rotational", "max_sectors_kb", "rq_affinity")

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("losetup")
                                or not os.path.isdir("/sys/block"),
                                reason="needs root, losetup and /sys/block")


def _q(name, attr):
    with open("/sys/block/%s/queue/%s" % (name, attr)) as f:
        return f.read().strip()


def _set(name, attr, value):
    with open("/sys/block/%s/queue/%s" % (name, attr), "w") as f:
        f.write(value)


def _state(name):
    out = {a: _q(name, a) for a in QUEUE}
    out["scheduler"] = facts_block.parse_scheduler(out["scheduler"])[0]
    return out


@pytest.fixture
def loops(tmp_path):
    """attach(n) -> n loop device names, restored and detached afterwards."""
    attached, saved = [], {}

    def attach(n):
        names = []
        for i in range(n):
            backing = tmp_path / ("disk%d.img" % len(attached))
            with open(backing, "wb") as f:
                f.truncate(8 << 20)
            for _ in range(5):
                # Name the device first, so its state before the attach is known.
                free = subprocess.run(["losetup", "-f"], capture_output=True, text=True)
                if free.returncode != 0:
                    pytest.skip("no free loop device: %s" % free.stderr.strip())
                dev = free.stdout.strip()
                name = os.path.basename(dev)
                state = _state(name) if os.path.isdir("/sys/block/" + name) else None
                if subprocess.run(["losetup", dev, str(backing)], capture_output=True).returncode == 0:
                    break
            else:
                pytest.skip("losetup cannot attach a loop device here")
            attached.append(dev)
            if state is not None:
                saved[name] = state
            names.append(name)
        return names

    try:
        yield attach
    finally:
        # Detach first: attaching copies the backing disk's read-ahead, and
        # the free device keeps whatever it had when detached.
        for dev in attached:
            subprocess.run(["losetup", "-d", dev], capture_output=True)
        for name, state in saved.items():
            try:
                # The scheduler first: switching it resets nr_requests.
                if _state(name)["scheduler"] != state["scheduler"]:
                    _set(name, "scheduler", state["scheduler"])
                for attr in QUEUE[1:]:
                    if _q(name, attr) != state[attr]:
                        _set(name, attr, state[attr])
            except OSError as e:
                print("restore %s: %s" % (name, e))


def _policy(tmp_path, text):
    path = tmp_path / "block.toml"
    path.write_text(text)
    return path


def _run(cli, *args):
    """The CLI, waiting out another engineer's run holding the lock."""
    for _ in range(40):
        status, out, err = cli(*args)
        if not (status == 2 and "holds" in err):
            return status, out, err
        time.sleep(0.25)
    return status, out, err


def test_apply_reads_back_and_revert_restores_the_originals(loops, cli, tmp_path):
    a, b = loops(2)
    original = {n: _state(n) for n in (a, b)}
    policy = _policy(tmp_path, """
[[block]]
match = { name = ["%s", "%s"], kind = "loop" }
scheduler = "deadline"
nr_requests = 64
read_ahead_kb = 512
nomerges = 1
rotational = 0
max_sectors_kb = 256
why = "test"
""" % (a, b))
    status, out, err = _run(cli, "apply", "--root", "/", "--policy", policy, "--only", "storage", "--live-only",
                            "--yes")
    assert status == 0, err + out
    for n in (a, b):
        now = _state(n)
        assert now["scheduler"] == "mq-deadline"  # "deadline" on a blk-mq kernel
        assert (now["nr_requests"], now["read_ahead_kb"], now["nomerges"], now["rotational"],
                now["max_sectors_kb"]) == ("64", "512", "1", "0", "256")
    status, out, err = _run(cli, "plan", "--root", "/", "--policy", policy, "--only", "storage",
                            "--format", "json")
    assert status == 0, err
    assert [c for c in json.loads(out)["changes"] if c["scope"] == "live"] == []
    status, out, err = _run(cli, "revert", "--last")
    assert status == 0, err + out
    # nr_requests too: switching the scheduler back resets it, the revert puts it back.
    assert {n: _state(n) for n in (a, b)} == original


def test_a_value_the_kernel_refuses_rolls_back_the_whole_run(loops, cli, tmp_path):
    a, b = loops(2)
    original = {n: _state(n) for n in (a, b)}
    policy = _policy(tmp_path, """
[[block]]
match = { name = "%s" }
read_ahead_kb = 1024
nomerges = 2

[[block]]
match = { name = "%s" }
scheduler = "none"
nr_requests = 4096
""" % (a, b))
    status, out, err = _run(cli, "apply", "--root", "/", "--policy", policy, "--only", "storage", "--live-only",
                            "--yes")
    assert status == 1, out
    assert "block.live:%s:nr_requests" % b in err and "Invalid argument" in err
    assert "rolled back" in err
    # The earlier device's writes were undone too.
    assert {n: _state(n) for n in (a, b)} == original


def test_scheduler_switch_then_revert_restores_a_tuned_nr_requests(loops, cli, tmp_path):
    a, = loops(1)
    original = _state(a)
    if original["scheduler"] != "none" or "mq-deadline" not in _q(a, "scheduler"):
        pytest.skip("needs a blk-mq loop device on scheduler none")
    _set(a, "nr_requests", "32")  # a site-tuned value the scheduler switch would lose
    try:
        policy = _policy(tmp_path, '[[block]]\nmatch = { name = "%s" }\nscheduler = "deadline"\n' % a)
        status, out, err = _run(cli, "apply", "--root", "/", "--policy", policy, "--only", "storage",
                                "--live-only", "--yes")
        assert status == 0, err + out
        assert _q(a, "nr_requests") != "32"  # the kernel reset it on the switch
        assert _run(cli, "revert", "--last")[0] == 0
        assert (_state(a)["scheduler"], _q(a, "nr_requests")) == ("none", "32")
    finally:
        _set(a, "nr_requests", original["nr_requests"])


def test_persistent_rules_file_on_the_real_root(loops, cli, tmp_path):
    if os.path.exists(udev_rules.PATH):
        pytest.skip("%s exists on this machine: not ours to touch" % udev_rules.PATH)
    had_dir = os.path.isdir(os.path.dirname(udev_rules.PATH))
    a, = loops(1)
    policy = _policy(tmp_path, '[[block]]\nmatch = { name = "%s" }\nnomerges = 1\n' % a)
    try:
        status, out, err = _run(cli, "apply", "--root", "/", "--policy", policy, "--only", "storage", "--yes")
        assert status == 0, err + out
        rules = udev_rules.parse(open(udev_rules.PATH).read())
        device = facts_block.discover_sysfs(Root("/"))[a]
        assert udev_rules.effective(rules, device) == {"ATTR{queue/nomerges}": "1"}
        assert _run(cli, "revert", "--last")[0] == 0
        assert not os.path.exists(udev_rules.PATH)
        assert os.path.isdir(os.path.dirname(udev_rules.PATH)) == had_dir
    finally:
        if os.path.exists(udev_rules.PATH):
            os.unlink(udev_rules.PATH)


def test_sysfs_and_pyudev_give_the_same_facts(loops):
    pytest.importorskip("pyudev")
    names = loops(2)
    root = Root("/")
    by_sysfs = facts_block.discover_sysfs(root)
    by_udev = facts_block.discover_udev(root)
    assert set(names) <= set(by_sysfs)
    assert by_sysfs == by_udev
    for n in names:
        assert by_sysfs[n]["kind"] == "loop" and by_sysfs[n]["size"] == 8 << 20
        assert by_sysfs[n]["scheduler"]["current"] in by_sysfs[n]["scheduler"]["available"]


def test_snapshot_paths_rebuild_the_same_facts(loops, tmp_path):
    loops(1)
    live = Root("/")
    copy = tmp_path / "copy"
    for path in facts_snapshot.snapshot_paths(live):
        dest = copy / path.lstrip("/")
        dest.parent.mkdir(parents=True, exist_ok=True)
        if os.path.islink(path):
            os.symlink(os.readlink(path), dest)
        else:
            try:
                with open(path, "rb") as f:
                    dest.write_bytes(f.read())
            except OSError:
                pass  # write-only attribute
    assert facts_block.discover_sysfs(Root(str(copy))) == facts_block.discover_sysfs(live)


def test_a_value_the_kernel_clamps_is_a_failure_not_a_success(loops, cli, tmp_path):
    a, = loops(1)
    original = _state(a)
    # read_ahead_kb is kept in pages: 130 reads back as 128 on 4 KiB pages.
    if os.sysconf("SC_PAGE_SIZE") != 4096:
        pytest.skip("needs 4 KiB pages")
    policy = _policy(tmp_path, '[[block]]\nmatch = { name = "%s" }\nnomerges = 2\nread_ahead_kb = 130\n' % a)
    status, out, err = _run(cli, "apply", "--root", "/", "--policy", policy, "--only", "storage", "--live-only",
                            "--yes")
    assert status == 1, out
    assert "verify after apply" in err and "read_ahead_kb still '128', wanted '130'" in err
    assert _state(a) == original
