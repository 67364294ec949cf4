"""`numatune snapshot` and the standalone POSIX sh script capture the same
files, and the capture plans offline like the host it came from."""
import hashlib
import json
import os
import shutil
import subprocess
import tarfile

import pytest

import fakehost
from conftest import REPO, run_cli
from numatune import snapshot

SCRIPT = REPO / "packaging" / "numatune-snapshot.sh"


def _contents(directory):
    out = {}
    for dirpath, _, files in os.walk(directory):
        for name in files:
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, directory)
            if os.path.islink(path):
                out[rel] = "-> " + os.readlink(path)
            else:
                with open(path, "rb") as f:
                    out[rel] = hashlib.sha256(f.read()).hexdigest()
    return out


def _extract(tarball, dest):
    dest.mkdir()
    with tarfile.open(tarball) as tar:
        tar.extractall(dest, filter="fully_trusted") if hasattr(tarfile, "data_filter") else tar.extractall(dest)
    return dest


def test_sh_pattern_block_is_in_step_with_python():
    text = SCRIPT.read_text()
    assert snapshot.sh_patterns() in text, "run: python -m numatune.snapshot --sync-sh packaging/numatune-snapshot.sh"


@pytest.mark.parametrize("source", ["fakehost", "40intel64-2g2n4c+pcilocality"])
def test_python_and_sh_capture_the_same_files(source, tmp_path, capture):
    if source == "fakehost":
        src = fakehost.build(tmp_path / "src")
        (src / "etc/sysctl.d/99-sysctl.conf").symlink_to("../sysctl.conf")
        (src / "etc/sysctl.conf").write_text("vm.swappiness = 60\n")
    else:
        src = capture(source)
    status, out, err = run_cli("snapshot", "--root", src, "--out", tmp_path / "py.tar.gz")
    assert status == 0, err
    proc = subprocess.run(["sh", str(SCRIPT), str(tmp_path / "sh.tar.gz")], capture_output=True, text=True,
                          env=dict(os.environ, NUMATUNE_SNAPSHOT_ROOT=str(src)))
    assert proc.returncode == 0, proc.stderr
    py = _contents(_extract(tmp_path / "py.tar.gz", tmp_path / "py"))
    sh = _contents(_extract(tmp_path / "sh.tar.gz", tmp_path / "sh"))
    assert py == sh
    assert "proc/cmdline" in py or source != "fakehost"
    assert any(k.startswith("sys/devices/system/node/node0/") for k in py)
    if source == "fakehost":
        assert py["etc/sysctl.d/99-sysctl.conf"] == "-> ../sysctl.conf"
        assert "boot/grub2/grubenv" in py


def test_snapshot_of_this_host_plans_like_this_host(tmp_path):
    status, out, err = run_cli("snapshot", "--out", tmp_path / "me.tar.gz")
    assert status == 0, err
    root = _extract(tmp_path / "me.tar.gz", tmp_path / "me")
    status, live, err = run_cli("facts", "--format", "json")
    assert status == 0, err
    status, offline, err = run_cli("facts", "--root", root, "--format", "json")
    assert status == 0, err
    live, offline = json.loads(live), json.loads(offline)
    for key in ("summary", "online", "nodes_with_memory"):
        assert offline["topology"][key] == live["topology"][key]
    assert {n: v["cpus"] for n, v in offline["topology"]["nodes"].items()} == \
           {n: v["cpus"] for n, v in live["topology"]["nodes"].items()}
    assert offline["host"]["cmdline"] == live["host"]["cmdline"]
    assert offline["host"]["thp"] == live["host"]["thp"]
    status, out, err = run_cli("plan", "--root", root, "--format", "json")
    assert status == 0, err
    status, live_plan, err = run_cli("plan", "--format", "json")
    assert sorted(c["id"] for c in json.loads(out)["changes"]) == \
           sorted(c["id"] for c in json.loads(live_plan)["changes"])


def test_proc_links_are_captured_as_content(tmp_path):
    """/proc/mounts is a link to self/mounts: a copy must hold the mount table."""
    status, out, err = run_cli("snapshot", "--out", tmp_path / "me.tar.gz")
    assert status == 0, err
    root = _extract(tmp_path / "me.tar.gz", tmp_path / "me")
    mounts = root / "proc/mounts"
    assert not mounts.is_symlink()
    assert " /proc proc " in mounts.read_text() or " proc " in mounts.read_text()
    proc = subprocess.run(["sh", str(SCRIPT), str(tmp_path / "sh.tar.gz")], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    sh_root = _extract(tmp_path / "sh.tar.gz", tmp_path / "sh")
    assert not (sh_root / "proc/mounts").is_symlink() and (sh_root / "proc/mounts").stat().st_size > 0


@pytest.mark.parametrize("where", ["missing", "directory", "unwritable", "parent is a file"])
def test_snapshot_out_that_cannot_be_written_is_one_line_and_exit_2(tmp_path, where):
    """A real process: one line on stderr, exit 2, no traceback, nothing left behind."""
    src = fakehost.build(tmp_path / "src")
    (tmp_path / "afile").write_text("x")
    out = {"missing": tmp_path / "no" / "such" / "x.tar.gz",
           "directory": tmp_path,
           # /proc takes no new files, even from root (these tests run as root).
           "unwritable": "/proc/numatune-test.tar.gz",
           "parent is a file": tmp_path / "afile" / "x.tar.gz"}[where]
    before = sorted(p.name for p in tmp_path.iterdir())
    status, stdout, err = run_cli("snapshot", "--root", src, "--out", out)
    assert status == 2, err
    assert err.startswith("numatune: --out ") and err.count("\n") == 1 and "Traceback" not in err, err
    assert stdout == ""
    assert sorted(p.name for p in tmp_path.iterdir()) == before
