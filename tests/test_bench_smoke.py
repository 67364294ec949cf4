"""The benchmark's parts at a very small size: the synthetic host is a root
numatune reads like a real one (and applies to and reverts exactly), the
strace parser finds what a run touched, and the floor replays it. The
benchmark itself (bench/run.py) is not part of the test run."""
import json
import os
import shutil
import subprocess
import sys

import pytest

from conftest import REPO, tree_digest

sys.path.insert(0, str(REPO / "bench"))
import bench_policy  # noqa: E402
import trace  # noqa: E402
from host_storage import sd_devt  # noqa: E402
from hosttree import cpulist, cpumask, letters  # noqa: E402
from make_host import make_host  # noqa: E402

TINY = dict(sockets=2, nodes=2, cpus=8, luns=3, paths=2, nics=2, queues=2, instances=2, procs=150)


@pytest.fixture
def host(tmp_path):
    root = tmp_path / "host"
    info = make_host(str(root), **TINY)
    return root, info


def test_names_and_masks_follow_the_kernel():
    assert [letters(i) for i in (0, 25, 26, 701, 702)] == ["a", "z", "aa", "zz", "aaa"]
    assert sd_devt(0) == (8, 0) and sd_devt(16) == (65, 0) and sd_devt(256) == (8, 256 << 12 >> 4 << 4)
    assert cpulist([0, 1, 2, 5, 7, 8]) == "0-2,5,7-8"
    assert cpumask([0, 33], 40) == "00000002,00000001"


def test_host_layout_is_what_sysfs_shows(host):
    root, info = host
    assert info["scsi_paths"] == 6 and info["dm_devices"] == 5
    # /sys/block entries are relative links into /sys/devices, resolving inside the root.
    link = root / "sys/block/sda"
    assert os.readlink(link).startswith("../devices/pci0000:")
    assert (link / "device/vendor").read_text() == "3PARdata\n"
    holder = os.path.realpath(link / "holders/dm-0")
    assert holder == str(root / "sys/devices/virtual/block/dm-0")
    assert sorted(os.listdir(root / "sys/block/dm-0/slaves")) == ["sda", "sdd"]
    assert (root / "sys/class/net/ens1f0/device/numa_node").read_text() == "0\n"
    # Threads of a core are numbered apart, as on real x86: cpu0's sibling is cpu4 with 8 CPUs.
    assert (root / "sys/devices/system/cpu/cpu0/topology/thread_siblings_list").read_text() == "0,4\n"
    assert (root / "sys/devices/system/node/node1/cpulist").read_text() == "2-3,6-7\n"


def test_plan_apply_revert_on_the_tiny_host(host, cli, tmp_path):
    root, _ = host
    policy = str(tmp_path / "bench.toml")
    bench_policy.build(policy)
    status, out, err = cli("facts", "--root", root, "--format", "json", "--policy", policy)
    assert status == 0, err
    facts = json.loads(out)
    topo = facts.get("topology") or facts["facts"]["topology"]
    assert topo["summary"]["nodes"] == 2 and topo["summary"]["cpus_online"] == 8
    status, out, err = cli("plan", "--root", root, "--policy", policy, "--format", "json")
    assert status == 0, err
    changes = json.loads(out)["changes"]
    assert {"sysctl.live:kernel.numa_balancing", "thp.live"} <= {c["id"] for c in changes}
    before = tree_digest(root)
    status, out, err = cli("apply", "--root", root, "--policy", policy, "--yes")
    assert status in (0, 1), err + out
    assert (root / "proc/sys/kernel/numa_balancing").read_text() == "0\n"
    status, out, err = cli("revert", "--last", "--root", root)
    assert status == 0, err + out
    assert tree_digest(root) == before


STRACE = r'''4242  openat(AT_FDCWD, "/usr/lib/python3.11/os.py", O_RDONLY|O_CLOEXEC) = 3
4242  openat(AT_FDCWD, "/r/sys/block", O_RDONLY|O_NONBLOCK|O_CLOEXEC|O_DIRECTORY) = 3
4242  getdents64(3, 0x5580 /* 4 entries */, 32768) = 112
4242  getdents64(3, 0x5580 /* 0 entries */, 32768) = 0
4242  openat(AT_FDCWD, "/r/sys/block/sda/queue/scheduler", O_RDONLY|O_CLOEXEC) = 3
4242  openat(AT_FDCWD, "/r/sys/block/sda/queue/scheduler", O_RDONLY|O_CLOEXEC) = 3
4242  openat(AT_FDCWD, "/r/run/sysctl.d", O_RDONLY|O_NONBLOCK|O_CLOEXEC|O_DIRECTORY) = -1 ENOENT (No such file)
4242  openat(AT_FDCWD, "/r/sys/block/sda/device/queue_depth", O_RDONLY|O_CLOEXEC) = -1 ENOENT (No such file)
4242  readlink("/r/sys/block/sda", "../devices/pci0000:00/0000:00:03.0", 4096) = 34
4242  openat(AT_FDCWD, "/r/etc/na\303\257ve\ttab", O_RDONLY|O_CLOEXEC) = 4
4243  openat(AT_FDCWD, "/r/var/lib/numatune/journal", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0666) = 5
4243  openat(AT_FDCWD, "/r/proc/interrupts", O_RDONLY|O_CLOEXEC <unfinished ...>
4242  openat(AT_FDCWD, "/rx/other", O_RDONLY|O_CLOEXEC) = 3
4242  openat(AT_FDCWD, "/r", O_RDONLY|O_CLOEXEC|O_PATH|O_DIRECTORY) = 6
4242  openat2(6, "sys/class/net", {flags=O_RDONLY|O_CLOEXEC|O_DIRECTORY, resolve=RESOLVE_IN_ROOT}, 24) = 7
4242  openat2(6, "sys/class/net", {flags=O_RDONLY|O_CLOEXEC|O_PATH|O_DIRECTORY, resolve=RESOLVE_IN_ROOT}, 24) = 8
4242  readlinkat(8, "eth0", "../../devices/virtual/net/eth0", 4096) = 30
4242  openat2(6, "sys/class/net/eth0", {flags=O_RDONLY|O_CLOEXEC|O_PATH, resolve=RESOLVE_IN_ROOT}, 24) = 9
4242  openat2(6, "sys/class/net/eth0/mtu", {flags=O_RDONLY|O_CLOEXEC, resolve=RESOLVE_IN_ROOT}, 24) = 9
4242  openat2(6, "sys/block/sda/queue", {flags=O_RDONLY|O_PATH|O_DIRECTORY, resolve=RESOLVE_IN_ROOT}, 24) = 10
4242  openat(10, "nr_requests", O_RDONLY|O_NOFOLLOW|O_CLOEXEC) = 11
4242  +++ exited with 0 +++
'''


def test_trace_finds_what_the_run_touched():
    got = trace.ops(STRACE, ["/r"])
    assert got == [("L", "/r/sys/block"), ("R", "/r/sys/block/sda/queue/scheduler"), ("L", "/r/run/sysctl.d"),
                   ("R", "/r/sys/block/sda/device/queue_depth"), ("K", "/r/sys/block/sda"),
                   ("R", "/r/etc/na\u00efve\ttab"),
                   # A directory opened inside the root for reading is listed through a dup of its
                   # descriptor; a link is read relative to its directory's; an O_PATH lookup is no read.
                   ("L", "/r/sys/class/net"), ("K", "/r/sys/class/net/eth0"), ("R", "/r/sys/class/net/eth0/mtu"),
                   ("R", "/r/sys/block/sda/queue/nr_requests")]  # a name opened from its directory's descriptor
    assert trace.summary(got) == "5 files read, 3 directories listed, 2 links read"


@pytest.mark.skipif(not shutil.which("strace"), reason="strace is not installed (apt-get install strace)")
def test_traced_plan_replays_as_the_floor(host, tmp_path):
    root, _ = host
    env = dict(os.environ, PYTHONPATH=str(REPO))
    log = tmp_path / "plan.strace"
    subprocess.run(["strace", "-f", "-qq", "-s", "4096", "-e", "trace=openat,openat2,readlink,readlinkat,getdents64",
                    "-o", str(log),
                    sys.executable, "-m", "numatune", "plan", "--root", str(root)],
                   check=True, env=env, cwd=str(REPO), stdout=subprocess.DEVNULL)
    items = trace.ops(log.read_text(errors="surrogateescape"), [str(root)])
    assert ("L", "%s/sys/devices/system/node" % root) in items
    assert ("R", "%s/proc/sys/kernel/numa_balancing" % root) in items
    ops = tmp_path / "floor.ops"
    ops.write_text(trace.ops_text(items + [("R", str(root / "not-there")), ("K", str(root / "etc"))]))
    subprocess.run([sys.executable, str(REPO / "bench/floor.py"), str(ops)], check=True)


def test_kept_journals_prints_its_ratios(host, tmp_path, capsys):
    # bench/run.py's measurement of apply and revert --last with kept transactions (#38), tiny.
    import run
    root, _ = host
    policy = str(tmp_path / "bench.toml")
    bench_policy.build(policy)
    run.kept_journals(str(root), policy, kept=3, rounds=1)
    out = capsys.readouterr().out
    ratios = dict(line.split(" = ") for line in out.splitlines() if " = " in line)
    assert set(ratios) == {"apply kept3/none", "revert kept3/none"}, out
    assert all(float(v) > 0 for v in ratios.values()), out
    journals = sorted(os.listdir(root / "var/lib/numatune/journal"))
    assert len([n for n in journals if n.startswith("2000")]) == 3 and len(journals) == 4, journals


def test_tui_first_paint_children_keep_their_bytecode(monkeypatch):
    """The warm-up run compiles what the children import once: with
    PYTHONDONTWRITEBYTECODE set (as in many shells and CI jobs) the review
    child compiled numatune and the TUI again at every run, the minimal app
    (Textual only, compiled when installed) nothing: the ratio grew by it."""
    import io
    import tui_first_paint
    envs = []

    class Child:
        returncode = 0

        def __init__(self, argv, **kwargs):
            envs.append(kwargs.get("env"))
            self.stdout = io.StringIO("painted 1 rows\n")

        def communicate(self, timeout=None):
            return "", ""
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    monkeypatch.setattr(tui_first_paint.subprocess, "Popen", Child)
    tui_first_paint.first_paint(["python", "--child", "review"])
    assert envs and envs[0] is not None and not envs[0].get("PYTHONDONTWRITEBYTECODE")


@pytest.mark.skipif(not shutil.which("strace"), reason="strace is not installed (apt-get install strace)")
def test_apply_only_prints_the_apply_revert_ratio(tmp_path):
    # The cheapest bench run that prints apply+revert/floor (#38), on the tiny host.
    sizes = [a for k, v in TINY.items() for a in ("--" + k, str(v))]
    p = subprocess.run([sys.executable, str(REPO / "bench/run.py"), "--apply-only", "--no-kept", "--reps", "3",
                        "--workdir", str(tmp_path)] + sizes, capture_output=True, text=True, cwd=str(REPO))
    assert p.returncode == 0, p.stderr
    ratios = dict(line.split(" = ") for line in p.stdout.splitlines() if " = " in line)
    assert set(ratios) == {"apply+revert/floor"} and float(ratios["apply+revert/floor"]) > 1, p.stdout
    assert "# medians of 3 rounds" in p.stdout and "kept" not in p.stdout, p.stdout
    assert os.listdir(tmp_path) == [], "the hosts are removed without --keep"
