"""revert --last's own work cut down (issue #38): the begin record decoded only
when asked (the journal index says how many changes it lists), a value
restored over no more bytes than its own in one pwrite, batches split inline.
What revert restores, says and journals stays as it was."""
import json
import os

import pytest
from hypothesis import given, strategies as st

import fakehost
from conftest import STATE, tree_digest, write
from numatune.apply import journal, journal_index, revert as revert_mod, value
from numatune.apply.journal_records import BeginStub, parse_journal
from numatune.apply.ops import BATCH, BATCHABLE, _new_batch
from numatune.apply.seal import line
from numatune.apply.transaction import apply_changes, revert
from numatune.model import Change, Write
from numatune.root import Root


@pytest.fixture
def host(tmp_path):
    root = fakehost.build(tmp_path / "root")
    policy = write(tmp_path, "policy.toml", fakehost.POLICY)
    return root, policy


def _journal(root):
    [path] = (root / STATE / "journal").glob("*.jsonl")
    return path


@pytest.mark.parametrize("which", ["--last", "txid"])
def test_revert_decodes_no_begin_record_and_says_the_same(cli, host, tmp_path, monkeypatch, which):
    root, policy = host
    before = tree_digest(root)
    assert cli("apply", "--root", root, "--policy", policy, "--yes")[0] == 0
    data = _journal(root).read_bytes()
    whole = journal.Transaction("x", *parse_journal(data, "j"))
    decoded = []
    real = BeginStub.whole

    def counted(self):
        decoded.append(self["txid"])
        return real(self)
    monkeypatch.setattr(BeginStub, "whole", counted)
    status, out, err = cli("revert", "--last" if which == "--last" else _journal(root).stem, "--root", root)
    assert status == 0, out + err
    assert decoded == []
    assert tree_digest(root) == before
    # The summary line counts the changes the begin record lists, as a decoded one says.
    assert "%d change(s)" % whole.change_count in out and whole.change_count > 1


def test_an_index_without_change_counts_decodes_the_begin_record(cli, host):
    # An index written before it kept the count: revert --last reads the begin record whole, as before.
    root, policy = host
    before = tree_digest(root)
    assert cli("apply", "--root", root, "--policy", policy, "--yes")[0] == 0
    index_path = root / STATE / "journal-index.json"
    index = json.loads(index_path.read_text())
    for entry in index["journals"].values():
        del entry["changes"]
    index_path.write_text(json.dumps(index))
    whole = journal.Transaction("x", *parse_journal(_journal(root).read_bytes(), "j"))
    status, out, err = cli("revert", "--last", "--root", root)
    assert status == 0, out + err
    assert "%d change(s)" % whole.change_count in out
    assert tree_digest(root) == before


def test_a_stub_is_the_begin_record_s_tail_and_decodes_whole(host, cli):
    root, policy = host
    assert cli("apply", "--root", root, "--policy", policy, "--yes")[0] == 0
    first = _journal(root).read_bytes().split(b"\n")[0]
    record = json.loads(first)
    stub = BeginStub.of(first)
    assert dict(stub) == {k: record[k] for k in ("t", "time", "txid", "whys", "sum")}
    assert stub.whole() == record
    tx = journal.Transaction(record["txid"], [stub], [], changes=len(record["changes"]))
    assert tx.change_count == len(record["changes"]) and tx.time == record["time"] and not tx.damaged
    assert type(tx._begin) is BeginStub     # not decoded for those
    assert tx.changes == journal.Transaction("x", [record]).changes and tx.begin == record


@pytest.mark.parametrize("damage", ["no checksum", "changed", "bad checksum", "not a begin", "torn"])
def test_a_line_that_is_not_an_intact_begin_gets_no_stub(damage):
    record = {"t": "begin", "txid": "1", "time": "t", "changes": [{"id": "a"}], "whys": ["why"]}
    raw = line(record).rstrip(b"\n")
    if damage == "no checksum":     # journals before 0.9
        raw = json.dumps(record, sort_keys=True).encode()
    elif damage == "changed":
        raw = raw.replace(b'"a"', b'"b"')
    elif damage == "bad checksum":
        at = raw.index(b'"sum": "') + 8
        raw = raw[:at] + b"0123456789abcdef" + raw[at + 16:]
    elif damage == "not a begin":
        raw = line({"t": "intent", "seq": 1, "op": {"kind": "value", "path": "/x"}, "time": "t"}).rstrip(b"\n")
    else:
        raw = raw[:-1]
    assert BeginStub.of(raw) is None
    # parse_journal then reads it as before: a damaged one is a problem, an intact one a record.
    records, problems = parse_journal(raw + b"\n", "j", stub_begin=True)
    assert not any(type(r) is BeginStub for r in records)
    intact = damage in ("no checksum", "not a begin")
    assert (records, bool(problems)) == (([json.loads(raw)], False) if intact else ([], True))


def test_a_revert_of_a_journal_written_without_checksums_or_index_counts(cli, host):
    # The oldest format (no "sum", one intent a line) under an index without counts: reverted exactly.
    root, policy = host
    before = tree_digest(root)
    assert cli("apply", "--root", root, "--policy", policy, "--yes")[0] == 0
    path = _journal(root)
    records = []
    for raw in path.read_bytes().splitlines():
        r = json.loads(raw)
        r.pop("sum", None)
        records += [dict(i, t="intent") for i in r["intents"]] if r["t"] == "intents" else [r]
    path.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in records))
    (root / STATE / "journal-index.json").unlink()
    status, out, err = cli("revert", "--last", "--root", root)
    assert status == 0, out + err
    assert tree_digest(root) == before


def _change(i, path, desired):
    return Change(id="v%d" % i, area="kernel", target="t%d" % i, current="x", desired=desired, scope="live",
                  action="write " + path, writes=[Write(kind="value", path=path, value=desired)])


@pytest.mark.parametrize("before,after", [("64", "128"), ("128", "64"), ("1", "0"), ("never", "always")])
def test_a_restore_puts_back_exactly_the_bytes_before(tmp_path, monkeypatch, before, after):
    path = "/sys/block/sda/queue/nr_requests"
    write(tmp_path, path.lstrip("/"), before + "\n")
    root = Root(str(tmp_path))
    txid, _ = apply_changes(root, [_change(0, path, after)])
    assert (tmp_path / path.lstrip("/")).read_text() == after + "\n"
    truncated = []
    real = os.ftruncate
    monkeypatch.setattr(os, "ftruncate", lambda fd, n: (truncated.append(n), real(fd, n)))
    restored, skipped, failed = revert(root, journal.load(root, txid))
    assert (tmp_path / path.lstrip("/")).read_bytes() == (before + "\n").encode()
    assert (restored, skipped, failed)[1:] == ([], [])
    # Over bytes no longer than its own a restore is one pwrite; over longer ones the file is emptied first.
    assert truncated == ([0] if len(before) < len(after) else [])
    assert value._DECIDED == {}


def test_a_value_grown_between_its_decision_and_its_restore_is_still_restored_exactly(tmp_path):
    path = "/proc/sys/vm/swappiness"
    write(tmp_path, path.lstrip("/"), "60\n")
    root = Root(str(tmp_path))
    op = {"kind": "value", "path": path, "format": "plain", "before": "60", "after": "10"}
    (tmp_path / path.lstrip("/")).write_text("10\n")
    assert value.current_sides(root, op) == (False, True)
    (tmp_path / path.lstrip("/")).write_text("10 and much more\n")     # after the read that decided
    value.restore(root, op)
    assert (tmp_path / path.lstrip("/")).read_bytes() == b"60\n"
    assert value._DECIDED == {}


def _reference_batches(seq_ops):
    """The batches as revert split them before (ops._new_batch per op)."""
    batch, targets = [], set()
    for item in seq_ops:
        kind, path = item[1].get("kind"), item[1].get("path")
        if batch and _new_batch(kind, path, targets, len(batch)):
            yield batch
            batch, targets = [], set()
        batch.append(item)
        if kind not in BATCHABLE:
            yield batch
            batch, targets = [], set()
        else:
            targets.add(path)
    if batch:
        yield batch


@given(st.lists(st.tuples(st.sampled_from(sorted(BATCHABLE) + ["command", "netdev", None]),
                          st.sampled_from(["/a", "/b", "/c", None])), max_size=3 * BATCH // 2))
def test_undo_batches_are_the_batches_apply_journals(kinds_paths):
    ops = [(i, {k: v for k, v in (("kind", kind), ("path", path)) if v is not None})
           for i, (kind, path) in enumerate(kinds_paths)]
    assert list(revert_mod._undo_batches(ops)) == list(_reference_batches(ops))


def test_many_distinct_targets_fill_batches_of_batch(tmp_path):
    ops = [(i, {"kind": "value", "path": "/p%d" % i}) for i in range(2 * BATCH + 3)]
    assert [len(b) for b in revert_mod._undo_batches(ops)] == [BATCH, BATCH, 3]


def test_an_index_entry_of_another_journal_stat_gives_no_count(cli, host):
    root, policy = host
    assert cli("apply", "--root", root, "--policy", policy, "--yes")[0] == 0
    path = _journal(root)
    assert journal_index.changes_of(Root(str(root)), path.stem) > 1
    path.write_bytes(path.read_bytes())     # the same bytes, another mtime: the entry is stale
    assert journal_index.changes_of(Root(str(root)), path.stem) is None
    assert journal_index.changes_of(Root(str(root)), "../x") is None


def test_the_index_entry_counts_the_changes(cli, host):
    root, policy = host
    assert cli("apply", "--root", root, "--policy", policy, "--yes")[0] == 0
    [summary] = journal_index.summaries(Root(str(root)))
    whole = journal.Transaction("x", *parse_journal(_journal(root).read_bytes(), "j"))
    assert summary.changes == whole.change_count


_TEXT = st.text(st.sampled_from("ab1 \t\n\x1b\x7f\x9f\udc80\ufffe\u00e9"), max_size=6)


@given(st.lists(_TEXT, min_size=1, max_size=5))
def test_the_restored_lines_are_printed_as_each_cleaned_and_indented(lines):
    from numatune.apply.journal_commands import _indented
    from numatune.report.grouped import clean
    assert _indented(lines) == "\n".join("  %s" % clean(line) for line in lines)


@given(st.one_of(st.none(), _TEXT), st.one_of(st.none(), _TEXT, st.integers()))
def test_a_value_undo_is_said_as_its_values_shown(before, after):
    from numatune.report.grouped import value as shown
    op = {"path": "/proc/sys/vm/x\x1b", "before": before, "after": after}
    assert value.describe_undo(op) == "%s: %s -> %s restored" % (op["path"], shown(after), shown(before))
