"""A batch's results in one journal record (issue #38): apply journals one
"done" per batch of writes and revert one "undoing" and one record per kind
of outcome, each naming its writes in ``seqs``. Journals written before, one
record per write, still read and revert; a batched record that names its
writes wrongly is refused like any damaged record."""
import json

import pytest

from conftest import tree_digest, write
from numatune import engine
from numatune.apply.journal import JOURNAL_DIR, Transaction, list_transactions
from numatune.apply.seal import line
from numatune.apply.transaction import BATCH, _done
from numatune.policy.stack import load
from numatune.root import Root

KEYS = BATCH + 44     # two batches


@pytest.fixture
def host(tmp_path):
    root_dir = tmp_path / "root"
    for i in range(KEYS):
        write(root_dir, "proc/sys/kernel/nt_%d" % i, "0\n")
    policy = write(tmp_path, "p.toml", "[sysctl]\n" + "".join('"kernel.nt_%d" = %d\n' % (i, i + 1)
                                                             for i in range(KEYS)))
    root = Root(str(root_dir))
    return root_dir, root, load([str(policy)], root)


def _applied(host):
    root_dir, root, policy = host
    before = tree_digest(root_dir)
    plan, _ = engine.make_plan(root, policy)
    engine.apply(root, policy, [c for c in plan.changes if c.scope == "live"])
    [tx] = list_transactions(root)
    return before, tx


def _journal_path(root_dir):
    [path] = (root_dir / JOURNAL_DIR.lstrip("/")).glob("*.jsonl")
    return path


def test_a_batch_of_writes_has_one_done_and_one_undo_record_of_each_kind(host):
    root_dir, root, policy = host
    before, tx = _applied(host)
    done = [r for r in tx.records if r["t"] == "done"]
    assert [r["seqs"] for r in done] == [list(range(1, BATCH + 1)), list(range(BATCH + 1, KEYS + 1))]
    assert tx.done == set(range(1, KEYS + 1)) and tx.state == "applied"
    engine.revert(root, last=True)
    [tx] = list_transactions(root)
    undo = [(r["t"], r["seqs"]) for r in tx.records if r["t"] in ("undoing", "undone")]
    # Undone newest first, in batches of BATCH from the newest.
    newest, oldest = list(range(KEYS, KEYS - BATCH, -1)), list(range(KEYS - BATCH, 0, -1))
    assert undo == [("undoing", newest), ("undone", newest), ("undoing", oldest), ("undone", oldest)]
    assert tx.state == "reverted" and tree_digest(root_dir) == before


def _one_per_write(records):
    """``records`` as numatune wrote them before batching: one record per write,
    a value write's "done" holding what the target took."""
    ops = {r["seq"]: r["op"] for r in records if r["t"] == "intent"}
    out = []
    for r in records:
        if "seqs" not in r:
            out.append(r)
            continue
        afters = r.get("afters") or {}
        for seq in r["seqs"]:
            one = {k: v for k, v in r.items() if k not in ("seqs", "afters", "sum")}
            one["seq"] = seq
            if r["t"] == "done" and ops[seq]["kind"] == "value":
                one["after"] = afters.get(str(seq), ops[seq]["after"])
            out.append(one)
    return out


def _rewrite(root_dir, records):
    _journal_path(root_dir).write_bytes(b"".join(line({k: v for k, v in r.items() if k != "sum"})
                                                 for r in records))


def test_a_journal_of_one_record_per_write_still_reverts(host, cli):
    root_dir, root, policy = host
    before, tx = _applied(host)
    old = _one_per_write(tx.records)
    assert sum(r["t"] == "done" for r in old) == KEYS
    _rewrite(root_dir, old)
    [tx] = list_transactions(root)
    assert not tx.problems and tx.state == "applied" and tx.done == set(range(1, KEYS + 1))
    status, out, err = cli("revert", "--last", "--root", str(root_dir))
    assert status == 0, (out, err)
    assert tree_digest(root_dir) == before


def test_an_old_journal_cut_mid_revert_is_finished(host, cli):
    # The previous format's revert killed after restoring its first batch: undo-begin, then
    # per-write "undoing" and "undone" records, no undo-end. The next revert finishes it.
    root_dir, root, policy = host
    before, tx = _applied(host)
    engine.revert(root, last=True)
    [tx] = list_transactions(root)
    old = _one_per_write(tx.records)
    first_undone = [i for i, r in enumerate(old) if r["t"] == "undone"][BATCH - 1]
    _rewrite(root_dir, old[:first_undone + 1])
    for seq in range(1, KEYS - BATCH + 1):     # the older batch was never restored
        op = tx.ops[seq]["op"]
        (root_dir / op["path"].lstrip("/")).write_text(op["after"] + "\n")
    [tx] = list_transactions(root)
    assert tx.state == "interrupted revert" and len(tx.undone) == BATCH
    status, out, err = cli("revert", "--last", "--root", str(root_dir))
    assert status == 0, (out, err)
    assert tree_digest(root_dir) == before


@pytest.mark.parametrize("seqs, why", [
    ("3", "seqs that are not a list"),
    ([], "seqs that are not a list"),
    ([2, 1], "seqs that are not a list"),        # not starting at its seq
    ([1, True], "seqs that are not a list"),
    ([1, 2.0], "seqs that are not a list"),      # JSON's ints are told apart by type (journal_records._all_seqs)
    ([1, [2]], "seqs that are not a list"),
])
def test_a_batched_record_naming_its_writes_wrongly_is_refused(host, cli, seqs, why):
    root_dir, root, policy = host
    before, tx = _applied(host)
    records = [dict(r, seqs=seqs) if r["t"] == "done" and r["seq"] == 1 else r for r in tx.records]
    _rewrite(root_dir, records)
    applied = tree_digest(root_dir)
    status, out, err = cli("revert", "--last", "--root", str(root_dir))
    assert status == 2 and why in err, (out, err)
    assert tree_digest(root_dir) == applied


def test_afters_naming_a_write_outside_the_batch_is_refused(host, cli):
    root_dir, root, policy = host
    before, tx = _applied(host)
    records = [dict(r, afters={str(KEYS): "7"}) if r["t"] == "done" and r["seq"] == 1 else r for r in tx.records]
    _rewrite(root_dir, records)
    status, out, err = cli("revert", "--last", "--root", str(root_dir))
    assert status == 2 and "afters that are not" in err, (out, err)


def test_a_batched_done_naming_a_write_with_no_intent_is_a_gap(host, cli):
    # The last intent of a batch lost: its batch's "done" still names it.
    root_dir, root, policy = host
    before, tx = _applied(host)
    _rewrite(root_dir, [r for r in tx.records if not (r["t"] == "intent" and r["seq"] == BATCH)])
    status, out, err = cli("revert", "--last", "--root", str(root_dir))
    assert status == 2 and "intent %d missing" % BATCH in err, (out, err)


def test_a_batch_keeps_what_a_target_took_when_it_is_not_the_intent():
    # The ops made, of seqs 1, 2, 3.
    made = [{"kind": "value", "after": "5", "asked": "10"}, {"kind": "value", "after": "3"},
            {"kind": "file", "after": {"exists": True}}]
    [record] = _done(1, made)
    assert record == {"t": "done", "seq": 1, "seqs": [1, 2, 3], "afters": {"1": "5"}}
    tx = Transaction("x", [{"t": "begin"}, json.loads(line(record))])
    assert tx.done == {1, 2, 3} and tx.done_after == {1: "5"}
    # One write alone: as before batching, its value's "after" always said.
    assert _done(2, made[1:2]) == [{"t": "done", "seq": 2, "after": "3"}]
