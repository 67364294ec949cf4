"""Corrupt journals (#14 item 3), SIGKILL during revert (item 4), and an
apply with nothing to change while a run is half done (item 9)."""
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time

import pytest

import fakehost
import journal_lines
from conftest import REPO, STATE, run_cli, tree_digest, write
from numatune.apply import value
from numatune.apply.journal import list_transactions
from numatune.root import Root


def _applied(cli, tmp_path, per_edit=False):
    """The fake host applied. ``per_edit``: journaled as numatune did before
    merged file records (#28), one record per edit of a file, so a file is
    the target of several records."""
    root = fakehost.build(tmp_path / "root")
    policy = write(tmp_path, "policy.toml", fakehost.POLICY)
    before = tree_digest(root)
    from numatune.apply.transaction import _GroupCommit
    merging = _GroupCommit._add_file

    def one_record(self, change, write):
        merging(self, change, write)
        self.flush()
    with pytest.MonkeyPatch.context() as mp:
        if per_edit:
            mp.setattr(_GroupCommit, "_add_file", one_record)
        status, out, err = cli("apply", "--root", root, "--policy", policy, "--yes")
    assert status == 0, err
    [journal] = (root / STATE / "journal").glob("*.jsonl")
    return root, policy, before, journal


BAD_LINES = {
    "binary": b"\x00\xff\xfe garbage \x1b[2J\x07",
    "missing-field": json.dumps({"t": "intent", "seq": 50}).encode(),
    "array": json.dumps([{"t": "intent", "seq": 51}]).encode(),
    "seq-not-number": json.dumps({"t": "done", "seq": "7"}).encode(),
}


@pytest.mark.parametrize("where", ["middle", "end"])
def test_a_corrupt_journal_line_is_named_and_every_other_record_kept(cli, tmp_path, where):
    root, policy, before, journal = _applied(cli, tmp_path)
    lines = journal.read_bytes().splitlines()
    intents = len(journal_lines.intents(journal_lines.records(journal)))
    at = 2 if where == "middle" else len(lines)
    bad = list(BAD_LINES.values())
    lines[at:at] = bad
    journal.write_bytes(b"\n".join(lines) + b"\n")
    numbers = [at + 1 + i for i in range(len(bad))]
    status, out, err = cli("history", "--root", root)
    assert status == 0 and "Traceback" not in err, err
    assert "applied" in out
    for n in numbers:
        assert "%s:%d:" % (journal.name, n) in out
    assert "\x1b" not in out
    status, out, err = cli("history", journal.name[:-6], "--root", root)
    assert status == 0 and "applied" in out and "not a record (a JSON list)" in out
    assert "intent record without 'op'" in out
    status, out, err = cli("revert", "--last", "--root", root)
    assert status == 2 and "fails its integrity check, nothing restored" in err, out + err
    status, out, err = cli("revert", "--last", "--root", root, "--force")
    assert status == 1, out + err
    # Every intact record was undone; the bad lines are named as what could not be.
    assert ": %d restored," % intents in out
    assert "%d restored" % intents in out and "%d failed" % len(bad) in out
    assert tree_digest(root) == before


def test_a_journal_that_is_not_text_or_not_a_file(cli, tmp_path):
    root, policy, before, journal = _applied(cli, tmp_path)
    other = journal.parent / "20200101T000000-000001-1.jsonl"
    other.write_bytes(os.urandom(4096).replace(b"\n", b"") + b"\n" + b"[" * 100000 + b"\n")
    (journal.parent / "20200101T000000-000002-1.jsonl").mkdir()
    status, out, err = cli("history", "--root", root)
    assert status == 0 and "Traceback" not in err, err
    assert "%s:1: not a JSON record" % other.name in out and "%s:2:" % other.name in out
    status, out, err = cli("revert", "--last", "--root", root)
    assert status == 0, out + err
    assert tree_digest(root) == before


def test_revert_killed_mid_restore_is_finished_by_the_next(cli, tmp_path):
    """The restore of a value is cut after the file was truncated: the next
    revert knows its own half-done undo and finishes it."""
    root, policy, before, journal = _applied(cli, tmp_path)
    pid = os.fork()
    if pid == 0:
        try:
            def cut(root_, op):
                os.close(root_.open(op["path"], os.O_WRONLY | os.O_TRUNC))
                os._exit(9)
            value.restore = cut
            from numatune.apply.transaction import revert
            r = Root(str(root))
            revert(r, list_transactions(r)[-1])
        finally:
            os._exit(0)
    _, status = os.waitpid(pid, 0)
    assert os.WEXITSTATUS(status) == 9
    emptied = [p for p in (root / "proc/sys").rglob("*") if p.is_file() and p.stat().st_size == 0]
    assert emptied, "the cut restore should leave an empty value file"
    status, out, err = cli("history", "--root", root)
    assert "interrupted revert" in out
    status, out, err = cli("revert", "--last", "--root", root)
    assert status == 0 and "LEFT ALONE" not in out, out + err
    assert tree_digest(root) == before


def test_sigkill_at_random_points_of_revert_always_recovers(cli, tmp_path):
    """A real SIGKILL at random moments of a real revert process; the next
    revert always finishes and the tree is byte for byte as before."""
    rng = random.Random(14)
    env = dict(os.environ, PYTHONPATH=str(REPO), NO_COLOR="1")
    for run in range(6):
        root, policy, before, journal = _applied(cli, tmp_path / str(run))
        proc = subprocess.Popen([sys.executable, "-m", "numatune", "revert", "--last", "--root", str(root)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        time.sleep(rng.uniform(0.15, 0.6))
        proc.send_signal(signal.SIGKILL)
        proc.communicate()
        if tree_digest(root) != before:
            status, out, err = run_cli("revert", "--last", "--root", root)
            assert status == 0 and "LEFT ALONE" not in out, out + err
        assert tree_digest(root) == before


def test_apply_with_nothing_to_change_still_refuses_an_interrupted_run(cli, tmp_path):
    root, policy, before, journal = _applied(cli, tmp_path)
    records = [json.loads(line) for line in journal.read_text().splitlines()]
    # Cut the journal after the first intent: a run killed mid-way.
    first = next(i for i, r in enumerate(records) if r["t"] in ("intent", "intents"))
    journal.write_text("".join(json.dumps(r) + "\n" for r in records[:first + 1]))
    status, out, err = cli("plan", "--root", root, "--policy", policy)
    assert "no changes" in out.lower() or "compliant" in out.lower() or status == 0
    status, out, err = cli("apply", "--root", root, "--policy", policy, "--yes")
    assert status == 2 and "was interrupted" in err and "numatune revert" in err, out + err


def test_apply_with_nothing_to_change_waits_for_the_lock(cli, tmp_path):
    import fcntl
    root, policy, before, journal = _applied(cli, tmp_path)
    fd = os.open(str(root / STATE / "lock"), os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        status, out, err = cli("apply", "--root", root, "--policy", policy, "--yes")
    finally:
        os.close(fd)
    assert status == 2 and "holds" in err, out + err


def test_a_journal_whose_close_reports_an_error_is_no_traceback(cli, tmp_path, monkeypatch):
    # The fault campaign (#28): ENOSPC (as NFS reports a failed writeback) from the journal's
    # close at the end of a revert ended in a traceback after every restore was made.
    root, policy, before, journal = _applied(cli, tmp_path)
    real_close = os.close
    failed = []

    def close(fd):
        # The journal as the revert appends to it (opened O_WRONLY), not the reads of it.
        try:
            name = os.readlink("/proc/self/fd/%d" % fd)
            flags = int(open("/proc/self/fdinfo/%d" % fd).read().split("flags:")[1].split()[0], 8)
        except OSError:
            name, flags = "", 0
        real_close(fd)
        if name.endswith(".jsonl") and flags & os.O_WRONLY:
            failed.append(name)
            raise OSError(28, os.strerror(28))
    monkeypatch.setattr(os, "close", close)
    status, out, err = cli("revert", "--last", "--root", root)
    monkeypatch.setattr(os, "close", real_close)
    assert failed and status == 0, out + err
    assert tree_digest(root) == before
    assert list_transactions(Root(str(root)))[-1].state == "reverted"


def test_a_directory_apply_made_that_revert_cannot_remove_is_removed_by_the_next(cli, tmp_path, monkeypatch):
    # The fault campaign (#28, revert rmdir EIO): the error was taken for "not empty",
    # the restore counted as done, and no later revert removed the directory.
    from numatune.apply import file as filekind
    root = fakehost.build(tmp_path / "root")
    shutil.rmtree(root / "etc/sysctl.d")        # apply makes it for 90-numatune.conf
    policy = write(tmp_path, "policy.toml", fakehost.POLICY)
    before = tree_digest(root)
    status, out, err = cli("apply", "--root", root, "--policy", policy, "--yes")
    assert status == 0 and (root / "etc/sysctl.d").is_dir(), err

    class Os:
        def __getattr__(self, name):
            return getattr(os, name)

        def rmdir(self, path):
            raise OSError(5, os.strerror(5), path)
    monkeypatch.setattr(filekind, "os", Os())
    status, out, err = cli("revert", "--last", "--root", root)
    assert status == 1 and "Input/output error" in out + err, out + err
    monkeypatch.undo()
    status, out, err = cli("revert", "--last", "--root", root)
    assert status == 0, out + err
    assert tree_digest(root) == before
