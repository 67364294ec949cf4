"""The offline ethtool snapshot written once per run of edits (issue #38):
under --root each NIC group's write is an edit of the snapshot file, merged
with the other edits of it until a write of another kind (an MTU, a bond:
their own files, still netdev ops) into one file op, journaled with the
file's bytes before and after once, and written once; revert puts the bytes
back. On the bench host the 64 NICs' coalescing is one op."""
import json

import pytest

from conftest import STATE, tree_digest
from journal_lines import intents, records
from numatune.root import Root
from test_net_plan import private  # noqa: F401 -- the fixture


SNAPSHOT = "/numatune-snapshot/ethtool.json"


@pytest.fixture
def count_writes(monkeypatch):
    seen = {}
    real = Root.write_atomic

    def counted(self, path, *args, **kwargs):
        seen[path] = seen.get(path, 0) + 1
        return real(self, path, *args, **kwargs)
    monkeypatch.setattr(Root, "write_atomic", counted)
    return seen


def test_the_snapshot_is_one_op_written_once_and_reverted_exactly(private, cli, count_writes):  # noqa: F811
    root, policy = private
    before = tree_digest(root)
    status, out, err = cli("apply", "--root", root, "--policy", policy, "--yes", "--confirm-within", "0")
    assert status == 0, err + out
    [journal] = (root / STATE / "journal").glob("*.jsonl")
    ops = [r["op"] for r in intents(records(journal))]
    snap = [op for op in ops if SNAPSHOT in (op.get("path"), op.get("file"))]
    assert snap and all(op["kind"] == "file" and op["editor"] == "net_ethtool" for op in snap), snap
    # Each op carries the NIC groups' changes of a run of edits (an MTU write, a netdev op, ends one):
    # here 3 ops for 12 changes, and the file written once per op (it was once per change).
    carried = [e["change"] for op in snap for e in op.get("edits", [{"change": None}])]
    assert len(snap) < len(carried) and "net.coalesce:eth1" in carried, carried
    assert count_writes.get(SNAPSHOT) == len(snap), count_writes
    assert {op["group"] for op in ops if op["kind"] == "netdev"} <= {"mtu", "bond"}
    assert json.loads((root / SNAPSHOT.lstrip("/")).read_text())["interfaces"]["eth1"]["coalesce"]["current"][
        "rx-usecs"] == 0
    status, out, err = cli("revert", "--last", "--root", root)
    assert status == 0, err + out
    assert tree_digest(root) == before
