"""A batch's intents in one journal record (issue #38): apply journals one
"intents" record per batch of writes, sealed once and fsynced before any of
its writes; readers expand it into the intent records it holds. A journal of
one record per intent still reads and reverts; a damaged "intents" record
costs what it holds (a bad checksum: all of it; an unusable intent: itself)."""
import json

from conftest import tree_digest
from journal_lines import records
from numatune.apply import journal as journal_mod
from numatune.apply.journal import FRAME_ROOM, UNDO_ROOM, Journal, list_transactions, parse_journal
from numatune.apply.journal_records import blocking, intents_record
from numatune.apply.seal import line
from test_batched_records import BATCH, KEYS, _applied, _journal_path, _rewrite, host  # noqa: F401 -- host: fixture


def _lines(root_dir):
    return records(_journal_path(root_dir))


def test_a_batch_of_intents_is_one_record_and_reads_as_its_intents(host, cli):
    root_dir, root, policy = host
    before, tx = _applied(host)
    lines = _lines(root_dir)
    kinds = [r["t"] for r in lines]
    assert "intent" not in kinds and kinds.count("intents") == 2, kinds
    held = [[i["seq"] for i in r["intents"]] for r in lines if r["t"] == "intents"]
    assert held == [list(range(1, BATCH + 1)), list(range(BATCH + 1, KEYS + 1))]
    # Each record sealed once, its intents before their "done".
    assert kinds.index("intents") < kinds.index("done")
    assert not tx.problems and sorted(tx.ops) == list(range(1, KEYS + 1))
    assert all(r["t"] == "intent" and r["op"]["kind"] == "value" for r in tx.ops.values())
    status, out, err = cli("revert", "--last", "--root", str(root_dir))
    assert status == 0, (out, err)
    assert tree_digest(root_dir) == before


def test_a_journal_of_one_intent_record_per_write_still_reverts(host, cli):
    root_dir, root, policy = host
    before, tx = _applied(host)
    _rewrite(root_dir, tx.records)      # the parsed records: one "intent" each, as before this change
    assert [r["t"] for r in _lines(root_dir)].count("intent") == KEYS
    [tx] = list_transactions(root)
    assert not tx.problems and tx.state == "applied"
    status, out, err = cli("revert", "--last", "--root", str(root_dir))
    assert status == 0, (out, err)
    assert tree_digest(root_dir) == before


def test_an_intents_record_changed_after_it_was_written_restores_nothing(host, cli):
    root_dir, root, policy = host
    before, tx = _applied(host)
    lines = _lines(root_dir)
    group = next(r for r in lines if r["t"] == "intents")
    group["intents"][5]["op"]["before"] = "12345"     # a hand edit, the checksum left as it was
    _journal_path(root_dir).write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in lines))
    applied = tree_digest(root_dir)
    status, out, err = cli("revert", "--last", "--root", str(root_dir))
    assert status == 2 and "checksum mismatch (the intents record" in err, (out, err)
    assert tree_digest(root_dir) == applied


def test_an_unusable_intent_in_a_sealed_record_costs_only_itself(host):
    root_dir, root, policy = host
    _applied(host)
    lines = _lines(root_dir)
    group = next(r for r in lines if r["t"] == "intents")
    group["intents"][3]["op"] = "not an op"
    _rewrite(root_dir, lines)       # sealed again: only the intent is wrong
    [tx] = list_transactions(root)
    assert sorted(tx.ops) == [s for s in range(1, KEYS + 1) if s != 4]
    assert any(":2: intent record with an unusable op" in p for p in tx.problems), tx.problems
    assert any("intent 4 missing" in p for p in tx.problems), tx.problems


def test_an_intents_record_torn_by_a_crash_announced_no_write(host):
    # Killed mid-append of the second batch's intents: none of its writes had started.
    root_dir, root, policy = host
    _applied(host)
    data = _journal_path(root_dir).read_bytes()
    raws = data.splitlines(keepends=True)
    at = next(i for i, raw in enumerate(raws) if b'"t": "intents"' in raw and i > 2)
    cut = b"".join(raws[:at]) + raws[at][:len(raws[at]) // 2]
    records, problems = parse_journal(cut, "j")
    assert blocking(problems) == [] and any("torn last record" in p for p in problems), problems
    assert sorted(r["seq"] for r in records if r["t"] == "intent") == list(range(1, BATCH + 1))


def test_an_intents_record_holds_the_undo_room_of_each_intent(tmp_path, monkeypatch):
    from numatune.root import Root
    root = Root(str(tmp_path))
    monkeypatch.setattr(journal_mod, "_fallocate", lambda fd, offset, length: True)
    j = Journal(root, "20260101T000000-000001-1").start({"t": "begin"}, 0)
    op = {"kind": "value", "path": "/proc/sys/kernel/x", "before": "0", "after": "1"}
    j.append_many([intents_record([{"seq": s, "change": "c%d" % s, "op": op} for s in (1, 2, 3)])])
    j.close()
    assert j._held == FRAME_ROOM + 3 * UNDO_ROOM
    assert [r["t"] for r in j.appended] == ["begin", "intent", "intent", "intent"]
    assert line(intents_record([{"seq": 1, "change": "c", "op": op}]))[:-1].decode() \
        == json.dumps(dict(json.loads(line({"t": "intent", "seq": 1, "change": "c", "op": op}))), sort_keys=True)
