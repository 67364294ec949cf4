"""Group commit (issue #18): apply journals a batch of intents with one fsync
and revert syncs only the start and end of its undo, yet every write is still
announced before it is made, and a second edit of the same file sees the
first. (A run killed at any write: tests/test_crash_recovery.py.)"""
import os

import pytest

from conftest import tree_digest, write
from numatune import engine
from numatune.apply import journal as journal_mod
from numatune.apply.journal import list_transactions
from numatune.apply.transaction import BATCH, revert
from numatune.policy.stack import load
from numatune.root import Root

KEYS = 40


@pytest.fixture
def host(tmp_path):
    root_dir = tmp_path / "root"
    for i in range(KEYS):
        write(root_dir, "proc/sys/kernel/nt_%d" % i, "0\n")
    write(root_dir, "etc/sysctl.d/.keep", "")
    policy = write(tmp_path, "p.toml", "[sysctl]\n" + "".join('"kernel.nt_%d" = %d\n' % (i, i + 1)
                                                             for i in range(KEYS)))
    root = Root(str(root_dir))
    return root_dir, root, load([str(policy)], root)


@pytest.fixture
def journal_syncs(monkeypatch):
    """Counts fsyncs of journal files (the file kind's own fsyncs of the files it writes are not counted)."""
    count = {"n": 0}
    real = os.fsync

    def fsync(fd):
        if os.readlink("/proc/self/fd/%d" % fd).endswith(".jsonl"):
            count["n"] += 1
        return real(fd)
    monkeypatch.setattr(journal_mod.os, "fsync", fsync)
    return count


def _journal(root):
    [tx] = list_transactions(root)
    return tx


def test_a_batch_of_value_writes_costs_one_fsync(host, journal_syncs):
    root_dir, root, policy = host
    before = tree_digest(root_dir)
    plan, _ = engine.make_plan(root, policy)
    live = [c for c in plan.changes if c.scope == "live"]
    assert len(live) == KEYS
    engine.apply(root, policy, live)
    # begin, the one batch of intents, commit: not two per write.
    assert journal_syncs["n"] == 3
    assert all((root_dir / ("proc/sys/kernel/nt_%d" % i)).read_text() == "%d\n" % (i + 1) for i in range(KEYS))
    tx = _journal(root)
    records = tx.records
    kinds = [r["t"] for r in records]
    # Every intent precedes the batch's one result, which names every write of it.
    assert kinds == ["begin"] + ["intent"] * KEYS + ["done", "commit"]
    assert records[-2]["seqs"] == list(range(1, KEYS + 1)) and records[-2]["seq"] == 1
    journal_syncs["n"] = 0
    revert(root, tx)
    # undo-begin, undo-end, and the batch's "undoing" records in one fsync (durable
    # before any restore, so a revert killed mid-restore is recognised as its own).
    assert journal_syncs["n"] == 3
    undo = [r for r in _journal(root).records if r["t"] in ("undoing", "undone")]
    assert [r["t"] for r in undo] == ["undoing", "undone"]
    assert all(r["seqs"] == list(range(KEYS, 0, -1)) for r in undo)
    assert tree_digest(root_dir) == before and _journal(root).state == "reverted"


def test_edits_of_one_file_each_see_the_one_before(host):
    root_dir, root, policy = host
    plan, _ = engine.make_plan(root, policy)
    engine.apply(root, policy, plan.changes)
    text = (root_dir / "etc/sysctl.d/90-numatune.conf").read_text()
    assert all("kernel.nt_%d = %d" % (i, i + 1) in text for i in range(KEYS)), text
    assert engine.make_plan(root, policy)[0].changes == []


def test_batches_are_bounded(tmp_path, journal_syncs):
    keys = BATCH + 10
    root_dir = tmp_path / "root"
    for i in range(keys):
        write(root_dir, "proc/sys/kernel/nt_%d" % i, "0\n")
    policy = write(tmp_path, "p.toml", "[sysctl]\n" + "".join('"kernel.nt_%d" = 1\n' % i for i in range(keys)))
    root = Root(str(root_dir))
    policy = load([str(policy)], root)
    plan, _ = engine.make_plan(root, policy)
    engine.apply(root, policy, [c for c in plan.changes if c.scope == "live"])
    assert journal_syncs["n"] == 4      # begin, two batches, commit
    kinds = [r["t"] for r in _journal(root).records]
    # The second batch is announced only after the first was written.
    assert kinds == ["begin"] + ["intent"] * BATCH + ["done"] + ["intent"] * 10 + ["done"] + ["commit"]


@pytest.mark.parametrize("k", [1, 2, KEYS // 2, KEYS - 1])
def test_a_revert_killed_at_any_restore_of_a_batch_is_finished_by_the_next(host, k):
    """The batch's "undoing" records are durable before its first restore:
    killed at the k-th restore (that file left empty), the next revert finishes
    every op of the batch, and a value someone else changed before the first
    revert is left alone by both (it never had an "undoing")."""
    root_dir, root, policy = host
    before = tree_digest(root_dir)
    plan, _ = engine.make_plan(root, policy)
    engine.apply(root, policy, [c for c in plan.changes if c.scope == "live"])
    other = root_dir / "proc/sys/kernel/nt_7"
    other.write_text("77\n")        # someone else's change after apply
    pid = os.fork()
    if pid == 0:  # the revert that dies mid-restore, with no cleanup, like SIGKILL
        try:
            from numatune.apply import value
            real, count = value.restore, {"n": 0}

            def restore(root_, op):
                count["n"] += 1
                if count["n"] == k:
                    os.close(root_.open(op["path"], os.O_WRONLY | os.O_TRUNC))
                    os._exit(9)
                real(root_, op)
            value.restore = restore
            revert(root, _journal(root))
        finally:
            os._exit(0)
    _, status = os.waitpid(pid, 0)
    assert os.WEXITSTATUS(status) == 9
    tx = _journal(root)
    assert tx.state == "interrupted revert"
    [theirs] = [seq for seq, r in tx.ops.items() if r["op"]["path"].endswith("/nt_7")]
    # Every restore the batch decided on is announced; no outcome was journaled yet.
    assert tx.undoing == set(tx.ops) - {theirs} and not tx.undone
    restored, skipped, failed = revert(root, tx)
    assert failed == [] and len(skipped) == 1 and "nt_7" in skipped[0]
    assert other.read_text() == "77\n"
    other.write_text("0\n")
    assert tree_digest(root_dir) == before
    tx = _journal(root)
    assert tx.undone == set(tx.ops) - {theirs} and tx.skipped == {theirs}
    # Finished: no longer an interrupted revert that would refuse every later apply.
    assert tx.state == "partly reverted" and not tx.needs_recovery
