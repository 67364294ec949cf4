"""A full disk under /var/lib/numatune (#14 item 2): the run's journal room
is reserved up front or the run is refused with nothing written; a disk that
fills mid-run never leaves a half-applied host; revert works on a full disk.
A real tmpfs is mounted over the root's var/lib/numatune (root only)."""
import errno
import os
import subprocess

import pytest

import fakehost
from conftest import STATE, tree_digest, write
from numatune.apply import ops, transaction

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="mounting a tmpfs needs root")


@pytest.fixture
def small_disk(tmp_path):
    """mount(size) -> a tmpfs of that size over root/var/lib/numatune."""
    mounted = []

    def mount(root, size):
        state = root / STATE
        state.mkdir(parents=True, exist_ok=True)
        subprocess.run(["mount", "-t", "tmpfs", "-o", "size=%s,mode=0755" % size, "numatune-test", str(state)],
                       check=True)
        mounted.append(state)
        return state
    yield mount
    for state in mounted:
        subprocess.run(["umount", "-l", str(state)], check=False)


def fill(directory):
    """Fill the filesystem of ``directory`` to the last byte."""
    fd = os.open(os.path.join(str(directory), "filler"), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        for size in (1 << 16, 4096, 512, 1):
            try:
                while True:
                    os.write(fd, b"x" * size)
            except OSError as e:
                assert e.errno == errno.ENOSPC
    finally:
        os.close(fd)


def _host(tmp_path):
    root = fakehost.build(tmp_path / "root")
    return root, write(tmp_path, "policy.toml", fakehost.POLICY)


def test_no_room_for_the_journal_refuses_with_nothing_written(cli, tmp_path, small_disk):
    root, policy = _host(tmp_path)
    state = small_disk(root, "8k")
    fill(state)
    before = tree_digest(root)
    status, out, err = cli("apply", "--root", root, "--policy", policy, "--yes")
    assert status == 2, err
    assert "no room for the journal" in err and "nothing was changed" in err and "Traceback" not in err
    assert tree_digest(root) == before
    assert not list((state / "journal").glob("*.jsonl"))


def test_a_disk_that_fills_mid_run_uses_the_reserved_room_and_revert_works_full(cli, tmp_path, small_disk,
                                                                               monkeypatch):
    root, policy = _host(tmp_path)
    state = small_disk(root, "512k")
    before = tree_digest(root)
    fakehost.hook_nth_write(monkeypatch.setattr, 2, False, lambda _: fill(state))
    status, out, err = cli("apply", "--root", root, "--policy", policy, "--yes")
    assert status == 0, err
    monkeypatch.undo()
    assert os.statvfs(str(state)).f_bavail == 0
    status, out, err = cli("revert", "--last", "--root", root)
    assert status == 0, out + err
    assert "JOURNAL NOT WRITTEN" not in out + err
    assert tree_digest(root) == before
    status, out, err = cli("history", "--root", root)
    assert "reverted" in out and "interrupted" not in out


def test_a_disk_that_fills_past_the_estimate_rolls_back_whole(cli, tmp_path, small_disk, monkeypatch):
    root, policy = _host(tmp_path)
    state = small_disk(root, "512k")
    before = tree_digest(root)
    # An estimate that falls short: the next intent asks for room, gets
    # ENOSPC, and the run rolls back using the room each intent held.
    monkeypatch.setattr(transaction, "_journal_estimate", lambda root, changes: 0)
    # Batches of two: the fake host's writes fit one batch, and the fill must come before a later one.
    monkeypatch.setattr(ops, "BATCH", 2)
    fakehost.hook_nth_write(monkeypatch.setattr, 2, True, lambda _: fill(state))
    status, out, err = cli("apply", "--root", root, "--policy", policy, "--yes")
    assert status == 1, err
    assert "No space left on device" in err and "rolled back" in err and "Traceback" not in err
    assert "ROLLBACK FAILED" not in err and "JOURNAL NOT WRITTEN" not in err
    assert tree_digest(root) == before
    status, out, err = cli("history", "--root", root)
    assert "rolled back" in out
    # No torn record: every line of the journal is whole JSON.
    [journal] = (state / "journal").glob("*.jsonl")
    status, out, err = cli("history", journal.name[:-6], "--root", root)
    assert status == 0 and "BAD JOURNAL LINE" not in out


def test_an_interrupted_run_on_a_full_disk_is_finished_by_revert(tmp_path, small_disk):
    """Killed mid-run, then the disk fills: the next revert still finishes
    it and the tree is byte for byte what it was."""
    from numatune import engine
    from numatune.apply.journal import list_transactions
    from numatune.apply.transaction import revert
    from numatune.policy.stack import load
    from numatune.root import Root
    root_dir, policy_path = _host(tmp_path)
    state = small_disk(root_dir, "512k")
    before = tree_digest(root_dir)
    root = Root(str(root_dir))
    pid = os.fork()
    if pid == 0:
        try:
            fakehost.hook_nth_write(setattr, 3, True, lambda _: os._exit(9))
            policy = load([str(policy_path)], root)
            plan, _ = engine.make_plan(root, policy)
            engine.apply(root, policy, plan.changes)
        finally:
            os._exit(0)
    _, status = os.waitpid(pid, 0)
    assert os.WEXITSTATUS(status) == 9
    fill(state)
    [tx] = list_transactions(root)
    assert tx.state == "interrupted"
    restored, skipped, failed = revert(root, tx)
    assert (skipped, failed) == ([], []) and len(restored) == 3
    assert tree_digest(root_dir) == before
    [tx] = list_transactions(root)
    assert tx.state == "reverted"
