"""Undo: a rollback after a failed apply, and `revert` of a transaction
from its journal (or finishing an undo a crash cut short).

Every op is tried whatever another raised (like nmstate's rollback): an undo
that fails is journaled ("failed": seq, error, what) and the others still run.
"""
import os

from numatune.apply import kinds as appliers
from numatune.apply.journal import TEXT_CAP, Journal
from numatune.apply.journal_records import batch_record
from numatune.errors import RefusedError
from numatune.apply.ops import BATCH, BATCHABLE, _describe, _error_text, _now, _reason, describe_undo


class _Records:
    """Journal appends during an undo. A journal that cannot be written (disk
    full) must not stop the undo: the host comes first, and the error is
    reported with the failed undos."""

    def __init__(self, journal):
        self.journal = journal
        self.error = None

    def __call__(self, record):
        """One record, synced (undo-begin, undo-end)."""
        try:
            self.journal.append(record)
        except Exception as e:
            self.error = self.error or e

    def many(self, records, sync=True):
        try:
            self.journal.append_many(records, sync=sync)
        except Exception as e:
            self.error = self.error or e


def _has(kind, _cache={}):
    """Which optional verbs a kind has (cleanup, current_sides, release),
    asked once: a module without one raises inside hasattr, 35,000 times a
    revert. Each is still looked up when called (a test may replace it)."""
    got = _cache.get(kind)
    if got is None:
        got = _cache[kind] = tuple(hasattr(kind, name) for name in ("cleanup", "current_sides", "release"))
    return got


def _undo_decision(root, op, seq, force, interrupted, kind=None):
    """"already", "skipped" or "restore" for one op, from what its target holds now."""
    if kind is None:
        kind = appliers.for_op(op)
    cleanup, current_sides, _ = _has(kind)
    if cleanup:
        kind.cleanup(root, op)
    sides = kind.current_sides(root, op) if current_sides else None  # one read for both
    if sides[0] if sides else kind.current_matches(root, op, "before"):
        return "already"
    holds_after = seq not in interrupted and (sides[1] if sides else kind.current_matches(root, op, "after"))
    # A write announced but never confirmed may have landed: restoring
    # is safe because "before" is what was there when it was announced.
    if not (holds_after or force or seq in interrupted):
        return "skipped"
    return "restore"


def _undo_batches(seq_ops):
    """``seq_ops`` in the batches apply journals (BATCHABLE kinds, no target
    twice, at most BATCH; any other kind alone, as ops._new_batch says):
    within one, no restore changes what another op's decision reads, so all
    are decided first."""
    batch, targets = [], set()
    for item in seq_ops:
        op = item[1]
        kind, path = op.get("kind"), op.get("path")
        if kind in BATCHABLE:
            # ops._new_batch inline (35,000 calls a revert): a target twice or a full batch starts another
            if path in targets or len(batch) >= BATCH:
                yield batch
                batch, targets = [], set()
            batch.append(item)
            targets.add(path)
            continue
        if batch:
            yield batch
        yield [item]
        batch, targets = [], set()
    if batch:
        yield batch


class _Outcomes:
    """What an undo pass did, for the user and (unsynced) for the journal."""

    def __init__(self):
        self.restored, self.skipped, self.failed = [], [], []
        self.records = []   # this batch's records in order: an outcome (its seqs in ``groups``), or a "failed" record
        self.groups = {}    # this batch's outcome -> the seqs it names, in order
        self.held = None    # the first KeyboardInterrupt/SystemExit, raised once every op was tried

    def fail(self, seq, op, e):
        if not isinstance(e, Exception) and self.held is None:
            self.held = e
        what = _describe(op)
        self.failed.append("%s (%s)" % (what, _reason(e)))
        # Capped: the room each intent holds for its undo records is fixed.
        self.records.append({"t": "failed", "seq": seq, "error": _error_text(e)[:TEXT_CAP],
                             "what": what[:TEXT_CAP]})

    def note(self, seq, op, outcome, kind=None):
        if outcome == "skipped":
            self.skipped.append(_describe(op))
        elif outcome == "restored":
            self.restored.append(describe_undo(op, kind))
        self._seq(seq, outcome)

    def _seq(self, seq, outcome):
        # Grouped as noted (a giant host's batch: one group of 256), not in a second pass.
        seqs = self.groups.get(outcome)
        if seqs is None:
            seqs = self.groups[outcome] = []
            self.records.append(outcome)
        seqs.append(seq)

    def journaled(self):
        """This batch's outcome records, and the batch emptied: one record
        per kind of outcome naming its writes in ``seqs`` (a giant host's
        revert wrote 35,000 records of one line each), placed where its
        first write's was; a failure on its own, with its error."""
        records, groups = self.records, self.groups
        self.records, self.groups = [], {}
        return [item if isinstance(item, dict) else batch_record(*_OUTCOMES[item], seqs=groups[item])
                for item in records]


# outcome -> (record type, its fields)
_OUTCOMES = {
    "superseded": ("undone", {"note": "superseded by the undo of an older write"}),
    "already": ("undone", {"note": "already as before"}),
    "skipped": ("skipped", {"reason": "changed since by someone else"}),
    "restored": ("undone", {}),
}


def _undo_batch(root, batch, force, interrupted, record, done, superseded=(), unprovable=()):
    """Decide every op of ``batch``, journal the "undoing" of those to restore
    with one fsync (group commit), restore them, then journal the outcomes
    unsynced. "undoing" is durable before its restore: a revert killed
    mid-restore (a file left empty) is known as its own half-done undo and
    finished, not taken for someone else's change. A result lost in a crash
    only makes the next revert find that op already as before."""
    kinds = {}      # id(op) -> its kind module, looked up once per op (not four times)
    restored = set()    # id(op) of the ops whose restore returned: it took what their decision held
    try:
        _decide_and_restore(root, batch, force, interrupted, record, done, superseded, unprovable, kinds, restored)
    finally:
        for _, op in batch:     # what a decision held for a restore that did not come (value.release)
            if id(op) in restored:
                continue
            kind = kinds.get(id(op))
            if kind is None:
                try:
                    kind = appliers.for_op(op)
                except (KeyError, TypeError):
                    continue
            if _has(kind)[2]:
                kind.release(op)


def _decide_and_restore(root, batch, force, interrupted, record, done, superseded, unprovable, kinds, restored):
    to_restore = []
    for seq, op in batch:
        if seq in superseded:
            done.note(seq, op, "superseded")
            continue
        if seq in unprovable:
            done.fail(seq, op, RefusedError("not restored: an older record of the journal is missing, so what "
                                            "was there before apply cannot be known; check it by hand"))
            continue
        try:
            kind = kinds[id(op)] = appliers.for_op(op)
            decision = _undo_decision(root, op, seq, force, interrupted, kind)
        except BaseException as e:  # noqa: B902 -- see _undo_ops
            done.fail(seq, op, e)
            continue
        if decision == "restore":
            to_restore.append((seq, op, kind))
        else:
            done.note(seq, op, decision)
    if to_restore:
        record.many([batch_record("undoing", None, [seq for seq, _, _ in to_restore])])
    for seq, op, kind in to_restore:
        try:
            kind.restore(root, op)
        except BaseException as e:  # noqa: B902 -- see _undo_ops
            done.fail(seq, op, e)
            continue
        restored.add(id(op))
        done.note(seq, op, "restored", kind)
    record.many(done.journaled(), sync=False)


def _undo_ops(root, journal, seq_ops, reason, force=False, interrupted=(), superseded=(), unprovable=()):
    """Restore ``seq_ops`` (newest first).
    Returns (restored, skipped, failed, error writing the journal or None).

    Whatever one op raises (a netlink or database error as much as an
    OSError) is recorded as "failed" and the next op is undone: stopping
    would leave the older writes in place. A KeyboardInterrupt or SystemExit
    is recorded the same way and raised only once every op was tried."""
    record = _Records(journal)
    # undo-begin, undo-end and each batch's "undoing" records are synced.
    record({"t": "undo-begin", "reason": reason, "time": _now()})
    done = _Outcomes()
    for batch in _undo_batches(seq_ops):
        _undo_batch(root, batch, force, interrupted, record, done, superseded, unprovable)
    record({"t": "undo-end", "reason": reason, "time": _now(), "skipped": len(done.skipped),
            "failed": len(done.failed)})
    if done.held is not None:
        raise done.held
    return done.restored, done.skipped, done.failed, record.error


def _journal_failure(root, journal, error):
    if error is None:
        return []
    return ["JOURNAL NOT WRITTEN %s (%s): it does not record all that was undone"
            % (root.rel(journal.path), _reason(error))]


def _undo(root, journal, seq_ops, reason, force=False, interrupted=(), superseded=(), unprovable=()):
    """Restore ``seq_ops`` (newest first). Returns (restored, skipped, failed)."""
    restored, skipped, failed, error = _undo_ops(root, journal, seq_ops, reason, force, interrupted, superseded,
                                                 unprovable)
    return restored, skipped, failed + _journal_failure(root, journal, error)


WHOLE_TARGET = ("file", "value")


def revert(root, tx, force=False):
    """Undo a transaction (or finish undoing an interrupted one)."""
    pending = [(i["seq"], i["op"]) for i in tx.pending_undo()]
    # Not confirmed done, or an undo of ours that a crash cut short.
    interrupted = {s for s, _ in pending if s not in tx.done or s in tx.undoing}
    superseded = _superseded(tx, pending)
    for seq, after in tx.done_after.items():
        op = tx.ops.get(seq)
        if op is not None and seq not in tx.undone:
            op["op"]["after"] = after
    journal = Journal(root, tx.txid).open()
    try:
        result = _undo(root, journal, pending, "revert", force=force, interrupted=interrupted,
                       superseded=superseded, unprovable=_unprovable(tx))
    finally:
        journal.close()
        _index(root, tx, journal)
    _sweep_created_dirs(root, tx)
    return result


def _superseded(tx, pending):
    """The ``pending`` seqs whose restore would undo an older write's undo:
    a restore that failed while the undo went on to older writes of the same
    target, which put an older state there; restoring this newer "before"
    now would overwrite it with a state in between. Only the generic kinds
    whose write replaces the whole target: a path is one thing there (a
    netdev or database op may share one with others)."""
    oldest_undone = {}
    for s in tx.undone:
        op = (tx.ops.get(s) or {}).get("op")
        if isinstance(op, dict) and op.get("kind") in WHOLE_TARGET and op.get("path"):
            target = (op["kind"], op["path"])
            oldest_undone[target] = min(s, oldest_undone.get(target, s))
    if not oldest_undone:     # a first revert: nothing undone yet
        return set()
    return {seq for seq, op in pending if oldest_undone.get((op.get("kind"), op.get("path")), seq) < seq}


def _index(root, tx, journal):
    """The journal index's entry for ``tx`` with what this pass appended."""
    from numatune.apply import journal_index
    for r in journal.appended:
        tx.add(r)
    journal_index.record(root, tx, journal)


def _sweep_created_dirs(root, tx):
    """The directories apply made for its files, removed once empty: an older
    write's undo could not remove /etc/systemd while a newer write's file,
    whose restore failed, was still below it, and the next revert undoes only
    that newer write (fault campaign, #28)."""
    dirs = set()
    for record in tx.ops.values():
        op = record.get("op") if isinstance(record, dict) else None
        if isinstance(op, dict) and "created_dirs" in op and op.get("kind") == "file" \
                and isinstance(op["created_dirs"], list):
            dirs.update(d for d in op["created_dirs"] if isinstance(d, str))
    for d in sorted(dirs, key=lambda d: d.count("/"), reverse=True):
        try:
            os.rmdir(root.join(d, follow=False))
        except (OSError, ValueError):
            pass    # not empty, gone already, or not removable now: left as it is


def _unprovable(tx):
    """Seqs a forced revert of a journal with a gap must not restore: the
    whole-target ops (file, value) of a target whose oldest intact record
    comes after a missing one. That missing record may have been the
    target's first write, so the oldest "before" left is a state apply made
    in between: restoring it would put bytes there the host never held
    before apply (found by tests/faults: a dropped or bit-flipped line)."""
    if not tx.ops:
        return set()
    missing = set(range(1, max(tx.ops) + 1)) - set(tx.ops)
    if not missing:
        return set()
    first_missing = min(missing)
    targets = {seq: _whole_target(tx.ops[seq]["op"]) for seq in tx.ops}
    oldest = {}
    for seq in sorted(tx.ops):
        if targets[seq] is not None:
            oldest.setdefault(targets[seq], seq)
    return {seq for seq, target in targets.items() if target is not None and oldest[target] > first_missing}


def _whole_target(op):
    """(kind, path) of the target ``op``'s restore rewrites whole, or None:
    the generic file and value kinds, and a family kind that says so through
    its ``whole_target(op)`` (e.g. a file restored from the raw bytes each
    op kept of it)."""
    kind = op.get("kind")
    if kind in WHOLE_TARGET:
        return kind, op.get("path")
    try:
        declared = getattr(appliers.KINDS[kind], "whole_target", None)
    except (KeyError, TypeError):
        return None
    path = declared(op) if declared is not None else None
    return (kind, path) if isinstance(path, str) else None


def set_aside(root, tx):
    """Journal an undo pass that restores nothing over a damaged journal
    (engine: `revert --force` of a journal with no usable record), so the
    transaction no longer blocks apply. Returns the journal error as failed."""
    journal = Journal(root, tx.txid).open()
    try:
        record = _Records(journal)
        record({"t": "undo-begin", "reason": "set aside", "time": _now()})
        record({"t": "undo-end", "reason": "set aside", "time": _now(), "skipped": 0, "failed": 0})
        return _journal_failure(root, journal, record.error)
    finally:
        journal.close()
        _index(root, tx, journal)
