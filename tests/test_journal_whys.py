"""A rule's changes over many targets share one `why` (issue #38): the begin
record holds each distinct text once, and every reader (history, the review
screen's history, revert) still sees each change whole, exactly as planned.
Journals written before keep the text in each change and read as they did."""
import json

from conftest import write
from numatune.apply.journal import JOURNAL_DIR, list_transactions, shared_whys, with_whys
from numatune.apply.transaction import apply_changes
from numatune.model import Change, Write
from numatune.root import Root

WHY = "001_211b0b645b2f1cc8.txt: the same reason for every device of one rule " * 3


def _changes(root_dir, n):
    out = []
    for i in range(n):
        write(root_dir, "sys/block/sd%d/queue/nr_requests" % i, "64\n")
        path = "/sys/block/sd%d/queue/nr_requests" % i
        out.append(Change(id="block.live:sd%d:nr_requests" % i, area="storage", target="sd%d nr_requests" % i,
                          current="64", desired="1024", scope="live", action="write " + path,
                          why=WHY if i % 5 else "another reason", rule="block[0].nr_requests",
                          writes=[Write(kind="value", path=path, value="1024")]))
    return out


def test_the_begin_record_holds_each_why_once_and_history_reads_every_change_whole(tmp_path):
    root_dir = tmp_path / "root"
    changes = _changes(root_dir, 40)
    root = Root(str(root_dir))
    txid, _ = apply_changes(root, changes)
    text = (root_dir / JOURNAL_DIR.lstrip("/") / ("%s.jsonl" % txid)).read_text()
    begin = json.loads(text.splitlines()[0])
    assert text.count(WHY) == 1 and text.count("another reason") == 1
    assert sorted(begin["whys"]) == sorted([WHY, "another reason"])
    [tx] = list_transactions(root)
    assert tx.changes == [json.loads(json.dumps(c.to_json())) for c in changes]
    # Counted without putting each text back (revert's and history's summary lines).
    assert tx.change_count == 40


def test_a_journal_written_before_keeps_its_whys_in_place():
    old = [{"id": "a", "why": "x"}, {"id": "b", "why": "x"}, {"id": "c"}]
    assert with_whys(old, None) == old
    shared, whys = shared_whys(old)
    assert whys == ["x"] and shared[0] == {"id": "a", "why_at": 0} and shared[2] == {"id": "c"}
    assert with_whys(shared, whys) == old
    # An index that names no text (an edited record) is left as it is, not guessed.
    assert with_whys([{"id": "a", "why_at": 3}], ["x"]) == [{"id": "a", "why_at": 3}]


def test_the_change_count_is_the_changes_read_whole():
    from numatune.apply.journal import Transaction
    for begin in ({"t": "begin", "changes": [{"id": "a", "why": "x"}, "not a change", {"id": "b"}]},
                  {"t": "begin", "changes": [{"id": "a", "why_at": 0}, {"id": "b"}], "whys": ["x"]},
                  {"t": "begin", "changes": "garbage"}, {"t": "begin"}):
        tx = Transaction("x", [begin])
        assert tx.change_count == len(tx.changes)
