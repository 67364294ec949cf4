"""No write outside --root by a planted link (#28): a symlink (absolute,
relative, dangling) or a hardlink to a canary file outside the root is
planted at every target and temporary name each write kind uses (value,
file, the offline ethtool snapshot, a cgroup's control files, the confirm
marker, the lock, the journal); apply (and revert when apply went through)
must leave the canary byte for byte as it was, say what it refused in one
line, and leave the tree as it found it once the planted name is gone."""
import json
import os
import shutil
import stat
import subprocess
import sys

import pytest

import fakehost
from conftest import REPO, STATE, _unpack, tree_digest, write
from numatune.apply.journal_records import expand
from numatune.apply.root_write import tmp_name
from test_cpuset import linked  # noqa: F401 -- the fixture

LINKS = ("hardlink", "symlink-abs", "symlink-rel", "symlink-dangling")


def _canary(tmp_path):
    d = tmp_path / "canary"
    d.mkdir()
    (d / "victim").write_text("canary\n")
    os.chmod(d / "victim", 0o600)
    return d


def _plant(root, host_path, how, canary):
    real = str(root) + host_path
    parent = os.path.dirname(real)
    while not os.path.isdir(parent):      # made for the plant: removed with it (apply would make them)
        parent = os.path.dirname(parent)
    made = os.path.dirname(real)[len(parent):]
    os.makedirs(os.path.dirname(real), exist_ok=True)
    if os.path.lexists(real):
        os.rename(real, str(canary) + "/saved")     # the file the link displaces, put back after the run
    victim = str(canary / "victim")
    if how == "hardlink":
        os.link(victim, real)
    elif how == "symlink-abs":
        os.symlink(victim, real)
    elif how == "symlink-rel":
        os.symlink(os.path.relpath(victim, os.path.dirname(real)), real)
    else:
        os.symlink(str(canary / "nothing-here"), real)
    return real, parent + made.split("/")[0] + "/" + made.split("/")[1] if made else None


def _targets(root, journal_dir):
    """Every name an apply on ``root`` wrote: each op's target and file, the
    temporaries of whole-file writes, and numatune's own files."""
    names = set()
    for path in journal_dir.glob("*.jsonl"):
        for record in [i for line in path.read_text().splitlines() for i in expand(json.loads(line))]:
            if record.get("t") != "intent":
                continue
            op = record["op"]
            paths = [op.get("path"), op.get("file")]
            if op["kind"] == "cgroup":      # a cgroup's op names its directory: the control files in it
                paths += [op["path"] + "/" + n for n in sorted(os.listdir(str(root) + op["path"]))]
            for p in paths:
                if p and os.path.isfile(str(root) + p):
                    names.add(p)
                    if op["kind"] in ("file", "netdev", "cgroup"):
                        parent, base = p.rsplit("/", 1)
                        names.add("%s/%s" % (parent, tmp_name(base)))
    return sorted(names) + ["/" + STATE + "/lock"]


def _campaign(cli, tmp_path, root, policy, extra=()):
    canary = _canary(tmp_path)
    probe = tmp_path / "probe"
    shutil.copytree(root, probe, symlinks=True)
    status, out, err = cli("apply", "--yes", "--root", probe, "--policy", policy, *extra)
    assert status == 0, err
    names = _targets(probe, probe / STATE / "journal")
    assert len(names) >= 4, names
    shutil.rmtree(probe)
    baseline = tree_digest(root)
    refused = 0
    for name in names:
        for how in LINKS:
            planted, made = _plant(root, name, how, canary)
            witness = tree_digest(canary)
            status, out, err = cli("apply", "--yes", "--root", root, "--policy", policy, *extra)
            assert "Traceback" not in err and len(err.strip().splitlines()) <= 1, (name, how, err)
            # Applied (exit 0, or 1 with the one "policy is not met" line: a planted file numatune cannot
            # parse plans nothing for it, #25), so revert it; else refused and rolled back.
            if status == 0 or "applied and verified" in out:
                status, out, err = cli("revert", "--last", "--root", root)
                assert status == 0, (name, how, out, err)
            else:
                refused += 1
                assert status in (1, 2), (name, how, status, err)
            assert tree_digest(canary) == witness, "wrote outside the root through %s at %s" % (how, name)
            if os.path.lexists(planted):
                os.unlink(planted)
            if os.path.lexists(str(canary) + "/saved"):
                os.rename(str(canary) + "/saved", planted)
                witness = tree_digest(canary)
            if made:
                shutil.rmtree(made)
            shutil.rmtree(root / STATE, ignore_errors=True)
            assert tree_digest(root) == baseline, (name, how)
    # Every hardlink at a target is refused, not written through.
    assert refused >= len(names) // 2, refused


def test_value_and_file_writes_never_leave_the_root(cli, tmp_path):
    root = fakehost.build(tmp_path / "root")
    policy = write(tmp_path, "policy.toml", fakehost.POLICY)
    _campaign(cli, tmp_path, root, policy)


def test_the_offline_ethtool_snapshot_never_leaves_the_root(cli, tmp_path, capture_cache):
    from test_net_plan import CAPTURE, POLICY, build
    root = tmp_path / "root"
    shutil.copytree(_unpack(CAPTURE, capture_cache), root, symlinks=True)
    build(root)
    _campaign(cli, tmp_path, root, write(tmp_path, "net.toml", POLICY), ("--only", "network"))


def test_cgroup_control_files_never_leave_the_root(cli, tmp_path, linked):
    from test_cpuset import cgroup_v1
    root = linked("x86_64-64cpu")
    cgroup_v1(root)
    policy = write(tmp_path, "p.toml", '[[cpuset]]\nname = "ora1"\nnodes = [0]\nmemory_migrate = true\n')
    _campaign(cli, tmp_path, root, policy, ("--only", "cpu"))


@pytest.mark.parametrize("how", LINKS)
def test_a_hardlinked_target_is_refused_in_one_line(cli, tmp_path, how):
    root = fakehost.build(tmp_path / "root")
    policy = write(tmp_path, "policy.toml", fakehost.POLICY)
    canary = _canary(tmp_path)
    _plant(root, "/proc/sys/vm/swappiness", how, canary)
    status, out, err = cli("apply", "--yes", "--root", root, "--policy", policy)
    assert (canary / "victim").read_text() == "canary\n"
    if how == "hardlink":
        assert status == 1 and "2 hard links" in err and "rolled back" in err, err


def _apply_process(root, policy):
    proc = subprocess.run([sys.executable, "-m", "numatune", "apply", "--yes", "--root", str(root), "--policy",
                           str(policy)], capture_output=True, text=True, timeout=120, cwd=str(REPO),
                          env=dict(os.environ, PYTHONPATH=str(REPO), NO_COLOR="1"))
    return proc.returncode, proc.stdout, proc.stderr


def test_a_fifo_at_every_temporary_name_never_blocks_apply(tmp_path):
    root = fakehost.build(tmp_path / "root")
    policy = write(tmp_path, "policy.toml", fakehost.POLICY)
    probe = tmp_path / "probe"
    shutil.copytree(root, probe, symlinks=True)
    assert _apply_process(probe, policy)[0] == 0
    temporaries = [n for n in _targets(probe, probe / STATE / "journal") if n.endswith(".numatune-tmp")]
    assert temporaries
    for name in temporaries:
        os.makedirs(os.path.dirname(str(root) + name), exist_ok=True)
        os.mkfifo(str(root) + name)
    status, out, err = _apply_process(root, policy)      # timeout=120: a FIFO opened for writing would hang
    assert status == 0, err
    assert not [n for n in temporaries if os.path.lexists(str(root) + n)]


@pytest.mark.parametrize("what", ["file", "fifo", "device", "symlink-loop"])
def test_the_state_directory_in_the_way_is_one_line(cli, tmp_path, what):
    root = fakehost.build(tmp_path / "root")
    policy = write(tmp_path, "policy.toml", fakehost.POLICY)
    state = root / STATE
    state.parent.mkdir(parents=True, exist_ok=True)
    if what == "file":
        state.write_text("not a directory\n")
    elif what == "fifo":
        os.mkfifo(str(state))
    elif what == "device":
        if os.geteuid() != 0:
            pytest.skip("mknod needs root")
        os.mknod(str(state), 0o600 | stat.S_IFCHR, os.makedev(1, 5))
    else:
        os.symlink("numatune", str(state))
    before = tree_digest(root)
    status, out, err = cli("apply", "--yes", "--root", root, "--policy", policy)
    assert status == 2, err
    assert err.startswith("numatune: cannot write the lock") and len(err.strip().splitlines()) == 1, err
    assert tree_digest(root) == before


@pytest.mark.parametrize("what", ["fifo", "hardlink", "directory"])
def test_a_lock_that_is_not_numatunes_file_is_refused(cli, tmp_path, what):
    root = fakehost.build(tmp_path / "root")
    policy = write(tmp_path, "policy.toml", fakehost.POLICY)
    canary = _canary(tmp_path)
    lock = root / STATE / "lock"
    lock.parent.mkdir(parents=True)
    if what == "fifo":
        os.mkfifo(str(lock))
    elif what == "hardlink":
        os.link(str(canary / "victim"), str(lock))
    else:
        lock.mkdir()
    status, out, err = cli("apply", "--yes", "--root", root, "--policy", policy)
    assert status == 2 and "lock" in err and len(err.strip().splitlines()) == 1, err
    assert (canary / "victim").read_text() == "canary\n"


@pytest.mark.parametrize("errno_", [5, 37])     # EIO, ENOLCK (an NFS lock server out of locks)
def test_a_lock_that_cannot_be_taken_or_closed_is_one_line(cli, tmp_path, monkeypatch, errno_):
    # The fault campaign (#28): an flock failing with anything but "held" ended in a traceback.
    from numatune.apply import lock as lockmod
    root = fakehost.build(tmp_path / "root")
    policy = write(tmp_path, "policy.toml", fakehost.POLICY)
    before = tree_digest(root)

    def flock(fd, op):
        raise OSError(errno_, os.strerror(errno_))
    monkeypatch.setattr(lockmod.fcntl, "flock", flock)
    status, out, err = cli("apply", "--yes", "--root", root, "--policy", policy)
    assert status == 2 and err.startswith("numatune: cannot lock") and len(err.strip().splitlines()) == 1, err
    assert tree_digest(root) == before
    monkeypatch.undo()

    class Os:
        """os, with a close that reports an error once it has closed (NFS)."""
        def __getattr__(self, name):
            return getattr(os, name)

        def close(self, fd):
            os.close(fd)
            raise OSError(errno_, os.strerror(errno_))
    monkeypatch.setattr(lockmod, "os", Os())
    status, out, err = cli("apply", "--yes", "--root", root, "--policy", policy)
    assert status == 0, err
    status, out, err = cli("revert", "--last", "--root", root)
    assert status == 0, err
    assert tree_digest(root) == before


@pytest.mark.parametrize("fails", ["rename", "close"])
def test_a_write_whose_rename_or_close_fails_leaves_no_temporary(tmp_path, monkeypatch, fails):
    # The fault campaign (#28, ethtool apply renameat ENOSPC): the snapshot's temporary stayed.
    from numatune.apply import root_write
    from numatune.root import Root
    target = write(tmp_path / "root", "/numatune-snapshot/ethtool.json", "{}\n")
    real = getattr(os, fails)

    class Os:
        def __getattr__(self, name):
            return getattr(os, name)

    def broken(*a, **k):
        real(*a, **k) if fails == "close" else None
        raise OSError(28, os.strerror(28))
    fake = Os()
    setattr(fake, fails, broken)
    monkeypatch.setattr(root_write, "os", fake)
    with pytest.raises(OSError):
        Root(str(tmp_path / "root")).write_atomic("/numatune-snapshot/ethtool.json", b"new\n", 0o644)
    monkeypatch.undo()
    assert sorted(os.listdir(target.parent)) == ["ethtool.json"] and target.read_text() == "{}\n"
