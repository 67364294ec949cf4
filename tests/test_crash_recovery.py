"""A run killed at any point leaves a journal that the next run detects and
that `revert` finishes: a real `numatune apply` process SIGKILLed mid-write,
and forked applies that die (os._exit, no cleanup) at every write."""
import json
import os
import signal
import subprocess
import sys
import time

import pytest

import fakehost
from conftest import REPO, run_cli, tree_digest, write
from numatune.apply import file as files
from numatune import engine
from numatune.apply.journal import list_transactions
from numatune.apply.journal_records import expand
from numatune.policy.stack import load
from numatune.root import Root


# A real `numatune apply` process whose write of vm.swappiness never returns (as a
# write to a hung sysfs file would not): the journal holds its intent when it is killed.
# (A FIFO stood in for the file before; reads now refuse FIFOs, issue #28.)
_BLOCKING_APPLY = """
import sys, time
from numatune.apply import value
real = value._write
def hung(root, path, data):
    if path.endswith("/vm/swappiness"):
        time.sleep(3600)
    real(root, path, data)
value._write = hung
from numatune.cli import main
sys.exit(main())
"""


def _intent_pending(root_dir, suffix):
    journal = root_dir / "var/lib/numatune/journal"
    for path in journal.glob("*.jsonl") if journal.is_dir() else []:
        records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        done = {s for r in records if r["t"] == "done" for s in r.get("seqs", [r["seq"]])}
        for r in [i for record in records for i in expand(record)]:
            if r["t"] == "intent" and r["op"]["path"].endswith(suffix) and r["seq"] not in done:
                return True
    return False


def test_sigkill_mid_apply_then_recover(tmp_path):
    root_dir = fakehost.build(tmp_path / "root")
    policy = write(tmp_path, "policy.toml", fakehost.POLICY)
    before = tree_digest(root_dir)
    target = root_dir / "proc/sys/vm/swappiness"
    env = dict(os.environ, PYTHONPATH=str(REPO), NO_COLOR="1")
    proc = subprocess.Popen([sys.executable, "-c", _BLOCKING_APPLY, "apply", "--yes", "--root", str(root_dir),
                             "--policy", str(policy)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    try:
        deadline = time.time() + 60
        while not _intent_pending(root_dir, "/vm/swappiness"):
            assert proc.poll() is None, proc.communicate()
            assert time.time() < deadline, "apply never reached the swappiness write"
            time.sleep(0.02)
        time.sleep(0.1)  # it is now blocked in the write
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.communicate()
    assert proc.returncode == -signal.SIGKILL
    # The write never happened: the kernel value is still what it was.
    assert target.read_text() == "60\n"
    # Earlier writes of the run did land.
    assert (root_dir / "proc/sys/kernel/numa_balancing").read_text() == "0\n"

    status, out, err = run_cli("apply", "--yes", "--root", root_dir, "--policy", policy)
    assert status == 2 and "was interrupted" in err and "numatune revert" in err
    status, out, err = run_cli("history", "--root", root_dir)
    assert "interrupted" in out
    status, out, err = run_cli("revert", "--last", "--root", root_dir)
    assert status == 0, out + err
    assert tree_digest(root_dir) == before
    status, out, err = run_cli("history", "--root", root_dir)
    assert "reverted" in out


def _count_writes(tmp_path):
    root_dir = fakehost.build(tmp_path / "count")
    root = Root(str(root_dir))
    policy = load([str(write(tmp_path, "count.toml", fakehost.POLICY))], root)
    plan, _ = engine.make_plan(root, policy)
    _, ops, _ = engine.apply(root, policy, plan.changes)
    return len(ops)


def _die_at(k, after_write):
    fakehost.hook_nth_write(setattr, k, after_write, lambda message: os._exit(9))


def _die_mid_file_write(k):
    """Die after the temp file is written but before the rename."""
    count = {"n": 0}
    real_rename = os.rename

    def rename(src, dst, **dirs):
        count["n"] += 1
        if count["n"] == k:
            os._exit(9)
        real_rename(src, dst, **dirs)
    files.os.rename = rename


def test_killed_between_temp_file_and_rename(tmp_path):
    for k in (1, 2, 3):
        root_dir = fakehost.build(tmp_path / ("m%d" % k))
        root = Root(str(root_dir))
        policy = load([str(write(tmp_path, "p.toml", fakehost.POLICY))], root)
        before = tree_digest(root_dir)
        pid = os.fork()
        if pid == 0:
            try:
                _die_mid_file_write(k)
                plan, _ = engine.make_plan(root, policy)
                engine.apply(root, policy, plan.changes)
            finally:
                os._exit(0)
        _, status = os.waitpid(pid, 0)
        assert os.WEXITSTATUS(status) == 9
        assert list(root_dir.rglob("*.numatune-tmp")), "the crash should leave a temp file"
        [tx] = list_transactions(root)
        from numatune.apply.transaction import revert
        assert revert(root, tx)[1:] == ([], [])
        assert tree_digest(root_dir) == before


@pytest.mark.parametrize("after_write", [False, True], ids=["before-write", "after-write"])
def test_killed_at_every_write_is_recoverable(tmp_path, after_write):
    total = _count_writes(tmp_path)
    assert total >= 10
    for k in range(1, total + 1):
        root_dir = fakehost.build(tmp_path / ("r%d-%s" % (k, after_write)))
        root = Root(str(root_dir))
        policy = load([str(write(tmp_path, "p.toml", fakehost.POLICY))], root)
        before = tree_digest(root_dir)
        pid = os.fork()
        if pid == 0:  # the run that dies with no cleanup, like SIGKILL
            try:
                _die_at(k, after_write)
                plan, _ = engine.make_plan(root, policy)
                engine.apply(root, policy, plan.changes)
            finally:
                os._exit(0)
        _, status = os.waitpid(pid, 0)
        assert os.WEXITSTATUS(status) == 9, k
        [tx] = list_transactions(root)
        assert tx.needs_recovery
        from numatune.apply.transaction import revert
        restored, skipped, failed = revert(root, tx)
        assert (skipped, failed) == ([], []), (k, skipped, failed)
        assert tree_digest(root_dir) == before, k
        [tx] = list_transactions(root)
        assert tx.state == "reverted"
