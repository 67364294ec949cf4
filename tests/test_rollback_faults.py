"""Rollback that survives any error (issue #12), for every write kind.

Each kind is driven by a real plan that uses it (the hosts the kind's own
tests use: copied trees, loop devices, a veth pair in a namespace, a fake
database connection), and fault_inject hooks one of its writes:

perform  it fails before it lands, after earlier writes succeeded: the host
         ends exactly as it was.
restore  it lands, the run then fails, and undoing it raises the kind's own
         non-OSError (NetlinkError, DatabaseError, RuntimeError...): every
         other write is still undone, the journal records which undo failed,
         the CLI says so on one line and exits 1, `history` shows it and
         `revert` finishes the job.
"""
import errno
import json
import re

import pytest

import fakehost
import fault_inject
from conftest import tree_digest, write
from fault_hosts import HOSTS, overlap
from numatune import engine
from numatune.apply import kinds
from numatune.apply.journal import Journal, list_transactions, seqs_of
from numatune.apply.transaction import revert
from numatune.errors import ApplyError
from numatune.root import Root
# Fixtures some hosts ask for by name.
from test_block_live import loops  # noqa: F401 -- loop devices, restored after
from test_cpuset import linked  # noqa: F401 -- a root over a real NUMA capture


CASES = [(kind, cls) for kind in sorted(HOSTS) for cls in HOSTS[kind]]


@pytest.fixture(params=CASES, ids=["%s-%s" % (k, c.__name__) for k, c in CASES])
def case(request, tmp_path, cli, monkeypatch):
    kind, cls = request.param
    return cls(kind, tmp_path, cli, monkeypatch, request)


@pytest.mark.parametrize("kind", sorted(kinds.KINDS))
def test_every_write_kind_has_a_fault_injection_case(kind):
    """A new write kind must come with a host here that plans it."""
    assert HOSTS.get(kind), "no host in tests/fault_hosts.py plans a %r write: add one" % kind


def _target(h):
    """The last write of the host's kind that has writes before it and
    shares its target with none of them: (its rank among writes of its kind,
    the planned write). Sharing would let an older undo put its target back."""
    writes = [w for c in h.plan() for w in c["writes"]]
    seen, rank, found, files = set(), 0, None, set()
    for i, w in enumerate(writes):
        keys = h.write_key(w)
        # The edits of one file are one op (#28, merged records): counted once, at the first.
        if w["kind"] == h.kind and not (h.kind == "file" and w["path"] in files):
            rank += 1
        if w["kind"] == "file":
            files.add(w["path"])
        if w["kind"] == h.kind:
            if i > 0 and not any(overlap(k, s) for k in keys for s in seen):
                found = (rank, w)
        seen |= keys
    assert found, "the plan has no %s write after another write: %r" % (h.kind, writes)
    return found


def _txid(err):
    m = re.search(r"of transaction (\S+?)[;:,\s]", err)
    assert m, err
    return m.group(1)


def _records(h, txid):
    status, out, err, _ = h.run("history", txid, "--format", "json")
    assert status == 0, err
    return json.loads(out)["records"]


def _one_line_error(status, out, err):
    assert status == 1, out + err
    assert err.startswith("numatune: ") and err.count("\n") == 1, err
    assert "Traceback" not in out + err


def _hooked(case, records, rank):
    """The intents up to the hooked op's, and its own: perform runs once per
    intent, in order. With group commit the journal may also announce the
    rest of the hooked write's batch; those were never performed."""
    intents = [r for r in records if r["t"] == "intent"]
    mine = [r for r in intents if r["op"]["kind"] == case.kind]
    assert len(mine) >= rank, mine
    return [r for r in intents if r["seq"] <= mine[rank - 1]["seq"]], mine[rank - 1]


def test_a_failing_write_rolls_back_every_earlier_write(case):
    rank, planned = _target(case)
    before = case.state()
    status, out, err, log = case.apply(inject=(rank, "perform"))
    assert log["target"] is not None and log["target"]["path"] == planned["path"], log
    _one_line_error(status, out, err)
    records = _records(case, _txid(err))
    intents, target = _hooked(case, records, rank)
    assert target["seq"] == len(intents) > 1, "the hooked write must come after others"
    assert "rolled back %d write(s)" % len(intents) in err and "ROLLBACK FAILED" not in err
    raised = fault_inject.error(case.kind, "perform")
    if isinstance(raised, OSError):
        assert raised.strerror in err
    else:  # the class says which layer refused: "NetlinkError: (95, ...)"
        assert "%s: %s" % (log["error"][0], log["error"][1].splitlines()[0]) in err
    assert case.state() == before
    assert not [r for r in records if r["t"] == "failed"]
    # Every announced write is undone, the performed ones and any of the batch never performed.
    undone = {s for r in records if r["t"] == "undone" for s in seqs_of(r)}
    assert undone == {r["seq"] for r in records if r["t"] == "intent"}


def test_an_undo_that_raises_does_not_stop_the_others(case):
    rank, planned = _target(case)
    before = case.state()
    status, out, err, log = case.apply(inject=(rank, "restore"))
    assert log["restores"] == 1, log
    _one_line_error(status, out, err)
    txid = _txid(err)
    records = _records(case, txid)
    intents, target = _hooked(case, records, rank)
    assert target["seq"] == len(intents) > 1, "the hooked write must come after others"
    what = kinds.KINDS[case.kind].describe(target["op"])
    name, message = log["error"]
    assert name != "OSError" and not issubclass(type(fault_inject.error(case.kind, "restore")), OSError)
    error = "%s: %s" % (name, " / ".join(message.splitlines()))
    assert "injected failure after the write; rolled back %d write(s)" % (len(intents) - 1) in err
    assert "ROLLBACK FAILED for %s (%s)" % (what, error) in err
    assert "numatune history %s" % txid in err and "numatune revert %s" % txid in err

    # The journal names the failed undo; every other write was undone after it.
    failed = [{k: v for k, v in r.items() if k != "sum"} for r in records if r["t"] == "failed"]
    assert failed == [{"t": "failed", "seq": target["seq"], "error": error, "what": what}]
    undone = [s for r in records if r["t"] == "undone" for s in seqs_of(r)]
    assert sorted(undone) == [r["seq"] for r in records if r["t"] == "intent" and r["seq"] != target["seq"]]
    assert records[-1]["t"] == "undo-end" and records[-1]["failed"] == 1
    # ...and on the host: only what the failed undo would have put back differs.
    changed = _changed(before, case.state())
    touched = case.touched(target["op"])
    assert changed and all(touched(k) for k in changed), changed

    status, out, err, _ = case.run("history", txid)
    assert status == 0, err
    assert "partly reverted" in out
    assert "UNDO FAILED (rollback) #%d %s: %s\n" % (target["seq"], what, error) in out

    # Once the cause is gone, revert puts back exactly the one that failed.
    status, out, err, _ = case.run("revert", txid)
    assert status == 0, out + err
    assert "1 restored, 0 left alone, 0 failed" in out
    assert case.state() == before
    status, out, err, _ = case.run("history", txid)
    assert "UNDO FAILED (rollback) #%d %s: %s; undone since" % (target["seq"], what, error) in out


# The undo loop itself, on the fake host's values and files.

@pytest.fixture
def fake(tmp_path):
    root_dir = fakehost.build(tmp_path / "root")
    policy_path = write(tmp_path, "policy.toml", fakehost.POLICY)
    root = Root(str(root_dir))
    return root_dir, root, engine.load_policy([str(policy_path)], root), policy_path


def _changed(before, after):
    return {k for k in set(before) | set(after) if before.get(k) != after.get(k)}


def _only_tx(root):
    (tx,) = list_transactions(root)
    return tx


@pytest.mark.parametrize("stop", [KeyboardInterrupt, SystemExit])
def test_an_interrupt_during_the_rollback_is_held_until_every_undo_was_tried(fake, monkeypatch, stop):
    root_dir, root, policy, _ = fake
    before = tree_digest(root_dir)
    plan, _ = engine.make_plan(root, policy)
    values = sum(1 for c in plan.changes for w in c.writes if w.kind == "value")
    log = fault_inject.arm(monkeypatch.setattr, "value", values, "restore", restore_error=stop)
    with pytest.raises(stop):
        engine.apply(root, policy, plan.changes)
    assert log["restores"] == 1
    tx = _only_tx(root)
    failed = [r for r in tx.records if r["t"] == "failed"]
    assert [(r["error"], r["what"]) for r in failed] == [(stop.__name__, "%s: %s -> %s" % (
        log["target"]["path"], log["target"]["before"], log["target"]["after"]))]
    assert tx.records[-1]["t"] == "undo-end"  # every other op was tried after the interrupt
    assert tx.undone == set(tx.ops) - {failed[0]["seq"]} and len(tx.undone) > 1
    assert _changed(before, tree_digest(root_dir)) == {log["target"]["path"].lstrip("/")}
    assert tx.state == "partly reverted" and not tx.needs_recovery
    monkeypatch.undo()
    assert revert(root, tx)[1:] == ([], [])
    assert tree_digest(root_dir) == before


def test_revert_goes_on_past_a_restore_that_raises(fake, cli, monkeypatch):
    root_dir, root, policy, policy_path = fake
    before = tree_digest(root_dir)
    status, out, err = cli("apply", "--yes", "--root", root_dir, "--policy", policy_path)
    assert status == 0, err
    real = kinds.KINDS["file"].restore

    def restore(root_, op):
        if op["path"] == "/etc/default/grub":
            raise UnicodeDecodeError("utf-8", b"\xff", 0, 1, "injected")
        real(root_, op)
    with monkeypatch.context() as m:
        m.setattr(kinds.KINDS["file"], "restore", restore)
        status, out, err = cli("revert", "--last", "--root", root_dir)
    assert status == 1 and err == "", err
    failed = [line for line in out.splitlines() if "FAILED" in line]
    assert failed == ["  FAILED /etc/default/grub: edit (boot.default_grub) (UnicodeDecodeError: 'utf-8' codec can't "
                      "decode byte 0xff in position 0: injected)"]
    tx = _only_tx(root)
    assert "%d restored, 0 left alone, 1 failed." % (len(tx.ops) - 1) in out
    assert _changed(before, tree_digest(root_dir)) == {"etc/default/grub"}
    status, out, err = cli("history", tx.txid, "--root", root_dir)
    assert "  UNDO FAILED (revert) #" in out and "/etc/default/grub: edit (boot.default_grub): UnicodeDecodeError" in out
    status, out, err = cli("revert", "--last", "--root", root_dir)
    # The retry puts back the one that failed; the rest were undone by the first revert.
    assert status == 0 and "1 restored, 0 left alone, 0 failed, %d already as before." % (len(tx.ops) - 1) in out, \
        out + err
    assert tree_digest(root_dir) == before


def test_a_describe_that_raises_does_not_stop_the_rollback(fake, monkeypatch):
    root_dir, root, policy, _ = fake
    before = tree_digest(root_dir)
    plan, _ = engine.make_plan(root, policy)
    values = sum(1 for c in plan.changes for w in c.writes if w.kind == "value")
    log = fault_inject.arm(monkeypatch.setattr, "value", values, "restore")
    for module in kinds.KINDS.values():
        monkeypatch.setattr(module, "describe", lambda op: {}["no such key"])
    with pytest.raises(ApplyError) as info:
        engine.apply(root, policy, plan.changes)
    path = log["target"]["path"]
    assert "ROLLBACK FAILED for value write to %s (RuntimeError: " % path in str(info.value)
    tx = _only_tx(root)
    assert [r["what"] for r in tx.records if r["t"] == "failed"] == ["value write to " + path]
    assert len(tx.undone) == len(tx.ops) - 1 > 1
    assert _changed(before, tree_digest(root_dir)) == {path.lstrip("/")}


def test_a_journal_that_cannot_be_written_does_not_stop_the_rollback(fake, monkeypatch):
    root_dir, root, policy, _ = fake
    before = tree_digest(root_dir)
    plan, _ = engine.make_plan(root, policy)
    fault_inject.arm(monkeypatch.setattr, "file", 3, "perform")
    real = Journal.append

    def append(self, record):
        if record["t"] in ("undo-begin", "undone", "undo-end"):
            raise OSError(errno.ENOSPC, "No space left on device")
        real(self, record)
    monkeypatch.setattr(Journal, "append", append)
    with pytest.raises(ApplyError) as info:
        engine.apply(root, policy, plan.changes)
    assert tree_digest(root_dir) == before
    message = str(info.value)
    assert "rolled back" in message and "ROLLBACK FAILED" not in message
    assert "JOURNAL NOT WRITTEN /var/lib/numatune/journal/%s.jsonl (No space left on device)" % _only_tx(root).txid \
        in message
