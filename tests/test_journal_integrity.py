"""A journal that cannot lie (#28): every record carries a checksum and an
intent's bytes their sha256; a record that fails either, a gap in the
sequence numbers or an empty journal refuses the revert (exit 2, nothing
restored, the record named by file:line) unless --force."""
import base64
import json

import pytest

import journal_lines
from conftest import tree_digest
from test_hostile_journal import _applied


def _lines(journal):
    return [json.loads(line) for line in journal.read_text().splitlines()]


def _flip_before_byte(records):
    """The record (an intent's own, or its batch's) whose intent's bytes were flipped."""
    for holder, r in journal_lines.holders(records):
        if r["op"]["kind"] == "file" and r["op"]["before"].get("data"):
            data = bytearray(base64.b64decode(r["op"]["before"]["data"]))
            data[0] ^= 0x01
            r["op"]["before"]["data"] = base64.b64encode(bytes(data)).decode()
            return holder
    raise AssertionError("no file write with bytes before")


def _resealed(r):
    from numatune.apply.journal import sealed
    return sealed(r)


@pytest.mark.parametrize("how", ["changed-field", "changed-bytes-resealed", "dropped-intent", "empty"])
def test_a_journal_that_fails_its_check_restores_nothing(cli, tmp_path, how):
    root, policy, before, journal = _applied(cli, tmp_path)
    applied = tree_digest(root)
    records = _lines(journal)
    if how == "changed-field":
        intent = next(r for _, r in journal_lines.holders(records) if r["op"]["kind"] == "value")
        intent["op"]["before"] = "12345"
    elif how == "changed-bytes-resealed":
        # The record's checksum made to match again: the bytes' own sha256 still tells.
        target = _flip_before_byte(records)
        records = [_resealed(r) if r is target else r for r in records]
    elif how == "dropped-intent":
        records = journal_lines.drop_intent(records, journal_lines.intents(records)[1]["seq"])
    text = "".join(json.dumps(r, sort_keys=True) + "\n" for r in records) if how != "empty" else ""
    journal.write_text(text)
    status, out, err = cli("revert", "--last", "--root", root)
    assert status == 2 and "nothing restored" in err and len(err.strip().splitlines()) == 1, out + err
    assert journal.name in err
    assert tree_digest(root) == applied
    status, out, err = cli("revert", "--last", "--root", root, "--force")
    # Forced: what the intact records say is restored, and less than the transaction exits non-zero.
    assert status == 1 and "Traceback" not in err, out + err


def test_records_carry_checksums_and_old_journals_stay_readable(cli, tmp_path):
    root, policy, before, journal = _applied(cli, tmp_path)
    records = _lines(journal)
    assert all("sum" in r for r in records)
    journal.write_text("".join(json.dumps({k: v for k, v in r.items() if k != "sum"}, sort_keys=True) + "\n"
                               for r in records))
    status, out, err = cli("revert", "--last", "--root", root)
    assert status == 0, out + err
    assert tree_digest(root) == before


def _enospc_after_truncating(monkeypatch, calls):
    # ENOSPC on a revert's write to a copied value file leaves it truncated;
    # the next revert took the empty file for someone else's change and left it so.
    import errno
    import os
    from numatune.apply import root_write, value
    real = value._write

    def write(root_, path, v):
        calls.append(path)
        if len(calls) == 1:
            os.close(root_write.open_value(root_, path))  # O_TRUNC, as the real write opens it
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real(root_, path, v)
    monkeypatch.setattr(value, "_write", write)


def _enospc_after_landing(monkeypatch, calls):
    # ENOSPC on the directory fsync after a restore's rename (the bytes landed,
    # the restore "failed"); the undo went on to the older writes of the same
    # file (down to removing it). The next revert must not restore that newer
    # "before" over them.
    import errno
    import os
    from numatune.apply import file
    real = file.restore

    def restore(root_, op):
        real(root_, op)
        calls.append(op["path"])
        if len(calls) == 1:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    monkeypatch.setattr(file, "restore", restore)


@pytest.mark.parametrize("fault", [_enospc_after_truncating, _enospc_after_landing], ids=lambda f: f.__name__[1:])
def test_a_restore_that_failed_is_finished_by_the_next_revert(cli, tmp_path, monkeypatch, fault):
    # Both found by tests/faults/campaign.py (in journals of one record per edit of a file).
    root, policy, before, journal = _applied(cli, tmp_path, per_edit=True)
    calls = []
    fault(monkeypatch, calls)
    status, out, err = cli("revert", "--last", "--root", root)
    assert status == 1 and "No space left" in out + err, out + err
    if fault is _enospc_after_truncating:
        assert (root / calls[0].lstrip("/")).read_bytes() == b""
    else:
        assert calls.count(calls[0]) > 1  # older writes of the same file were undone after it
    status, out, err = cli("revert", "--last", "--root", root)
    assert status == 0, out + err
    assert tree_digest(root) == before
    status, out, err = cli("history", "--root", root)
    assert "partly" not in out, out


def test_a_zero_byte_journal_is_damaged_not_an_interrupted_run_with_nothing_to_undo(cli, tmp_path):
    # #28: an empty journal showed "interrupted, 0 changes"; a run killed before
    # its first record and a journal truncated after its commit (this one: the
    # host stays applied) look the same, so numatune refuses to guess.
    root, policy, before, journal = _applied(cli, tmp_path)
    applied = tree_digest(root)
    txid = journal.name[:-6]
    journal.write_bytes(b"")
    status, out, err = cli("history", "--root", root)
    assert status == 0 and "damaged" in out and "interrupted" not in out, out + err
    status, out, err = cli("apply", "--root", root, "--policy", policy, "--yes")
    assert status == 2 and "is damaged" in err and "revert %s" % txid in err, out + err
    status, out, err = cli("revert", "--last", "--root", root)
    assert status == 2 and len(err.strip().splitlines()) == 1, out + err
    assert "damaged, nothing restored" in err and "empty journal" in err and "sets it aside" in err
    assert tree_digest(root) == applied
    status, out, err = cli("revert", "--last", "--root", root, "--force")
    # Nothing could be restored: less than the transaction, so not 0.
    assert status == 1 and "0 restored" in out and "check the host by hand" in out, out + err
    assert tree_digest(root) == applied
    status, out, err = cli("history", "--root", root)
    assert "set aside" in out, out
    status, out, err = cli("revert", "--last", "--root", root)
    assert status == 2 and "nothing to revert" in err, out + err
    status, out, err = cli("apply", "--root", root, "--policy", policy, "--yes")
    assert status == 0, out + err


def test_a_forced_revert_never_restores_a_state_apply_made_in_between(cli, tmp_path, monkeypatch):
    # Found by tests/faults/campaign.py (a dropped or bit-flipped line): with the
    # first intent of a file edited twice gone, the oldest "before" left is the
    # file as apply's first edit made it; --force restored those bytes, which
    # the host never held before apply. Now that target is left as applied and named.
    # A journal of one record per edit (before #28 merged them) has such files.
    root, policy, before, journal = _applied(cli, tmp_path, per_edit=True)
    applied = tree_digest(root)
    records = _lines(journal)
    intents = journal_lines.intents(records)
    paths = [r["op"]["path"] for r in intents if r["op"]["kind"] == "file"]
    twice = next(p for p in paths if paths.count(p) > 1)
    first = next(r for r in intents if r["op"]["path"] == twice)
    journal.write_text(journal_lines.text(journal_lines.drop_intent(records, first["seq"])))
    status, out, err = cli("revert", "--last", "--root", root, "--force")
    assert status == 1 and "older record of the journal is missing" in out, out + err
    after = tree_digest(root)
    wrong = [k for k in set(after) | set(before) if after.get(k) not in (before.get(k), applied.get(k))]
    assert not wrong, wrong
    assert after[twice.lstrip("/")] == applied[twice.lstrip("/")]
    # A target whose records all come before the gap is back as before.
    earlier = [r["op"]["path"].lstrip("/") for r in intents if r["seq"] < first["seq"]]
    assert earlier and all(after[p] == before[p] for p in earlier), earlier
