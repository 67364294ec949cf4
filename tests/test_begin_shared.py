"""A rule's changes over many targets share their fields (issue #38): the
begin record holds them once, each change only what is its own, and every
reader (history, revert) still sees each change whole, exactly as planned.
Journals written before (each change whole) read and revert as they did."""
import json

from conftest import write
from numatune.apply.begin_changes import compact, expand
from numatune.apply.journal import JOURNAL_DIR, Transaction, list_transactions, load
from numatune.apply.transaction import apply_changes, revert
from numatune.model import Change, Write
from numatune.root import Root


def _changes(root_dir, n):
    out = []
    for i in range(n):
        write(root_dir, "sys/block/sd%d/queue/nr_requests" % i, "64\n")
        path = "/sys/block/sd%d/queue/nr_requests" % i
        out.append(Change(id="block.live:sd%d:nr_requests" % i, area="storage", target="sd%d nr_requests" % i,
                          current="64", desired="1024" if i % 4 else "2048", scope="live", action="write " + path,
                          why="a reason", rule="block[0].nr_requests", drift_severity="warning",
                          writes=[Write(kind="value", path=path, value="1024" if i % 4 else "2048")]))
    return out


def test_the_begin_record_holds_what_a_rules_changes_share_once(tmp_path):
    root_dir = tmp_path / "root"
    changes = _changes(root_dir, 40)
    root = Root(str(root_dir))
    txid, _ = apply_changes(root, changes)
    text = (root_dir / JOURNAL_DIR.lstrip("/") / ("%s.jsonl" % txid)).read_text()
    begin = json.loads(text.splitlines()[0])
    assert len(begin["shared"]) == 2    # one per desired value
    assert text.count('"block[0].nr_requests"') == 2 and text.count('"warning"') == 2
    assert all(set(c) == {"id", "target", "current", "action", "shared_at", "paths"} for c in begin["changes"])
    [tx] = list_transactions(root)
    assert tx.changes == [json.loads(json.dumps(c.to_json())) for c in changes]
    assert tx.change_count == 40
    revert(root, load(root, txid))
    assert all((root_dir / ("sys/block/sd%d/queue/nr_requests" % i)).read_text() == "64\n" for i in range(40))


def test_changes_alike_but_for_a_type_are_not_shared():
    a = Change(id="a", area="x", target="t", current="1", desired="1", scope="live", action="w",
               reboot_required=True, writes=[Write(kind="value", path="/p", value="1")])
    b = Change(id="b", area="x", target="t", current="1", desired="1", scope="live", action="w",
               reboot_required=1, writes=[Write(kind="value", path="/q", value="1")])
    c = Change(id="c", area="x", target="t", current=None, desired="1", scope="live", action="w",
               writes=[Write(kind="file", path="/f", editor="e", args={"k": [1, True]})])
    planned, shared, whys = compact([a, b, c])
    assert len(shared) == 3
    begin = json.loads(json.dumps({"t": "begin", "changes": planned, "shared": shared, "whys": whys}))
    assert Transaction("x", [begin]).changes == [json.loads(json.dumps(x.to_json())) for x in (a, b, c)]


def test_a_begin_record_written_before_reads_as_it_did():
    whole = [{"id": "a", "why": "x", "area": "y", "writes": [{"kind": "value", "path": "/p"}]}]
    assert expand(whole, None) == whole
    assert Transaction("x", [{"t": "begin", "changes": whole}]).changes == whole
    with_index = [{"id": "a", "why_at": 0, "writes": []}]
    assert Transaction("x", [{"t": "begin", "changes": with_index, "whys": ["x"]}]).changes == \
        [{"id": "a", "why": "x", "writes": []}]
    # An index that names nothing, or paths that do not fit their writes (an edited record): left as recorded.
    assert expand([{"id": "a", "shared_at": 3}], [{"area": "y"}]) == [{"id": "a", "shared_at": 3}]
    odd = [{"id": "a", "shared_at": 0, "paths": ["/p", "/q"]}]
    assert expand(odd, [{"area": "y", "writes": [{"kind": "value"}]}]) == odd
