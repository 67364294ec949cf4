"""Reads that cannot hang or run away (issue #28, the read side): a FIFO at a
file numatune reads, a device node, `--policy /dev/zero`, a giant
/etc/default/grub: each one line, exit 2, nothing changed, in seconds."""
import os
import time

import pytest

import fakehost
from conftest import run_cli, tree_digest, write
from numatune.errors import HostError
from numatune.root import Root


@pytest.fixture
def host(tmp_path):
    root_dir = fakehost.build(tmp_path / "root")
    return root_dir, write(tmp_path, "policy.toml", fakehost.POLICY)


def _one_line(status, out, err, *words):
    assert status == 2, out + err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    for word in words:
        assert word in err, err


@pytest.mark.parametrize("path", ["/proc/sys/vm/swappiness", "/etc/default/grub", "/proc/meminfo"])
def test_a_fifo_where_a_file_is_read_is_refused_at_once(host, path):
    root_dir, policy = host
    before = tree_digest(root_dir)
    target = root_dir / path.lstrip("/")
    kept, mode = target.read_bytes(), target.stat().st_mode
    target.unlink()
    os.mkfifo(str(target))
    start = time.monotonic()
    status, out, err = run_cli("apply", "--yes", "--root", root_dir, "--policy", policy)
    _one_line(status, out, err, path, "is a FIFO, not a regular file")
    assert time.monotonic() - start < 30
    target.unlink()
    target.write_bytes(kept)
    os.chmod(str(target), mode & 0o7777)
    assert tree_digest(root_dir) == before


def test_a_character_device_is_never_read(host):
    """`mknod R/proc/sys/vm/swappiness c 1 5` (/dev/zero's numbers) reads without end; it is refused unread."""
    root_dir, policy = host
    target = root_dir / "proc/sys/vm/swappiness"
    target.unlink()
    try:
        os.mknod(str(target), 0o644 | 0o020000, os.makedev(1, 5))
    except PermissionError:
        pytest.skip("mknod needs CAP_MKNOD")
    status, out, err = run_cli("plan", "--root", root_dir, "--policy", policy)
    _one_line(status, out, err, "/proc/sys/vm/swappiness is a character device")


def test_policy_dev_zero_and_a_fifo_policy_are_one_line(host, tmp_path):
    root_dir, _ = host
    status, out, err = run_cli("plan", "--root", root_dir, "--policy", "/dev/zero")
    _one_line(status, out, err, "/dev/zero is a character device", "give a TOML policy file")
    fifo = tmp_path / "policy.fifo"
    os.mkfifo(str(fifo))
    status, out, err = run_cli("plan", "--root", root_dir, "--policy", fifo)
    _one_line(status, out, err, "is a FIFO")


def test_a_50_mb_grub_file_is_refused_in_seconds(host):
    root_dir, policy = host
    grub = root_dir / "etc/default/grub"
    grub.write_bytes(grub.read_bytes() + b"# padding\n" * (50 * 1024 * 1024 // 10))
    start = time.monotonic()
    status, out, err = run_cli("plan", "--root", root_dir, "--policy", policy)
    _one_line(status, out, err, "/etc/default/grub holds more than 4 MiB")
    assert time.monotonic() - start < 30


def test_reads_stop_at_the_limit_of_a_file_that_grows(tmp_path):
    """A file the kernel generates says size 0 (procfs): the read stops at the limit, not at memory's end."""
    from numatune.rootfs import readfile
    fd = os.open("/proc/self/status", os.O_RDONLY)
    assert os.fstat(fd).st_size == 0
    with pytest.raises(HostError, match="holds more than 0 KiB"):
        readfile.read_fd(fd, "/proc/self/status", 100)
    path = tmp_path / "big"
    path.write_bytes(b"x" * (3 * 1024 * 1024))
    assert Root(str(tmp_path)).read_text("/big") == "x" * (3 * 1024 * 1024)     # under its limit: read whole


def test_a_fifo_at_an_alert_log_is_refused_not_waited_on(tmp_path):
    """The Oracle alert log is read from its tail (seek, then read): a FIFO there
    blocked the open itself; now it is one line, at once."""
    from numatune.families.oracle import alertlog
    (tmp_path / "u01").mkdir()
    os.mkfifo(str(tmp_path / "u01/alert_ORCL.log"))
    start = time.monotonic()
    with pytest.raises(HostError, match="/u01/alert_ORCL.log is a FIFO, not a regular file"):
        alertlog.read(Root(str(tmp_path)), "/u01/alert_ORCL.log")
    assert time.monotonic() - start < 5
    os.unlink(str(tmp_path / "u01/alert_ORCL.log"))
    (tmp_path / "u01/alert_ORCL.log").write_text("Starting ORACLE instance (normal)\n")
    assert alertlog.read(Root(str(tmp_path)), "/u01/alert_ORCL.log") is not None
