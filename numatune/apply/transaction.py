"""Apply changes under the journal, roll back on any failure, and revert.

Like nmstate: apply everything, verify by re-reading the host, and undo the
whole run on any exception (KeyboardInterrupt included), re-raising the
original error with what was rolled back. An undo that fails does not stop
the others; the journal records it ("failed": seq, error, what) and the
error names it after "ROLLBACK FAILED for".
"""
import datetime

from numatune.apply import kinds as appliers
from numatune.errors import ApplyError, NumatuneError, RefusedError
from numatune.apply.interrupt import HeldInterrupt
from numatune.apply.journal import TEXT_CAP, Journal, list_transactions, new_txid


class VerifyError(Exception):
    pass


def _now():
    return datetime.datetime.now().astimezone().isoformat(timespec="seconds")


def refuse_if_interrupted(root):
    for tx in list_transactions(root):
        if tx.needs_recovery:
            raise RefusedError("transaction %s (%s) was interrupted and may be half done" % (tx.txid, tx.time),
                               "run `numatune revert %s` to finish undoing it first" % tx.txid)


def apply_changes(root, changes, command="apply", policy=None, verify=None, on_write=None, txid=None):
    """Journal, write and verify ``changes``; returns (txid, ops).

    ``txid`` is given when something must know it before the first write
    (the confirm-window watchdog)."""
    txid = txid or new_txid()
    held = HeldInterrupt().__enter__()
    try:
        journal = Journal(root, txid).start({"t": "begin", "txid": txid, "time": _now(), "command": command,
                                             "root": root.path, "policy": policy or {},
                                             "changes": [c.to_json() for c in changes]},
                                            _journal_estimate(root, changes))
    except BaseException:
        held.__exit__()
        raise
    writer = _GroupCommit(root, journal, on_write)
    try:
        for change in changes:
            for write in change.writes:
                writer.add(change, write)
                held.check()
        writer.flush()
        writer.current = None
        held.check()
        if verify is not None:
            problems = verify()
            if problems:
                raise VerifyError("; ".join(problems))
        held.check()
        journal.append({"t": "commit", "time": _now()})
        return txid, [op for _, op in writer.announced]
    except BaseException as e:  # noqa: B902 -- KeyboardInterrupt must roll back too
        if isinstance(e, KeyboardInterrupt):
            writer.current = None   # no write failed: the run was stopped between two
        _, _, failed, journal_error = _undo_ops(root, journal, list(reversed(writer.announced)), "rollback",
                                                force=True)
        what = ""
        if writer.current is not None:
            what = "%s (%s): " % (writer.current[0].id, writer.current[1].path)
        if isinstance(e, VerifyError):
            what = "verify after apply: "
        msg = "%s%s; rolled back %d write(s) of transaction %s" % (what, _reason(e, root),
                                                                     writer.attempted - len(failed), txid)
        hint = "nothing else was changed; fix the cause and apply again"
        if failed:
            msg += "; ROLLBACK FAILED for %s" % ", ".join(failed)
            # The CLI (and the review screen) add the run's --root to the commands named (report/hints.py).
            hint = ("the host is only partly restored: see `numatune history %s`, fix the cause, then "
                    "`numatune revert %s`" % (txid, txid))
        if journal_error is not None:
            msg += "; " + _journal_failure(root, journal, journal_error)[0]
        raise ApplyError(msg, hint) from e
    finally:
        journal.close()
        held.__exit__()     # after the rollback: a second Ctrl-C must not stop it half-way


# Group commit: the generic kinds whose capture reads only their own target are
# journaled in batches (one fsync for a batch's intents) as long as no two writes
# of a batch share a target: a second edit of a file must see the first. Any other
# kind (a command, netlink, a cgroup, SQL) may change what later captures read,
# so it is a batch of its own, captured after everything before it was written.
BATCHABLE = frozenset(("value", "file"))
BATCH = 256


def _new_batch(kind, path, targets, size):
    """Whether a write starts a new batch, in apply and in revert alike: a
    kind outside BATCHABLE goes alone, and no batch holds a target twice (a
    later write's capture or decision must see the earlier one done)."""
    return kind not in BATCHABLE or path in targets or size >= BATCH


class _GroupCommit:
    """Captures writes into a batch; ``flush`` journals the batch's intents
    with one fsync, performs them in order, then journals their results.

    The results are synced by the next batch's intents or by the commit: a
    result lost in a crash leaves its intent unconfirmed, which revert undoes
    anyway (the "before" it holds was there when it was announced), exactly as
    for a run killed between an intent and its write."""

    def __init__(self, root, journal, on_write):
        self.root, self.journal, self.on_write = root, journal, on_write
        self.announced = []     # (seq, op) in the journal, oldest first: what a rollback undoes
        self.attempted = 0      # writes started (the failing one included)
        self.current = None     # (change, write) being captured or performed, for the error
        self._seq = 0
        self._batch = []
        self._targets = set()

    def add(self, change, write):
        alone = write.kind not in BATCHABLE
        if _new_batch(write.kind, write.path, self._targets, len(self._batch)):
            self.flush()
        self.current = (change, write)
        kind = appliers.KINDS[write.kind]
        try:
            op = kind.capture(self.root, write)
        except BaseException:  # noqa: B902 -- re-raised: the run rolls back
            # As when writes went one at a time: those before this one are made
            # (then rolled back with the run), and the error names this one.
            self.flush()
            self.current = (change, write)
            raise
        if op.get("unchanged"):
            return
        op.pop("unchanged", None)
        self._batch.append((change, write, kind, op))
        self._targets.add(write.path)
        if alone:
            self.flush()

    def flush(self):
        batch, self._batch, self._targets = self._batch, [], set()
        if not batch:
            return
        intents = []
        for change, write, kind, op in batch:
            self._seq += 1
            intents.append((self._seq, change, write, kind, op))
        self.journal.append_many([{"t": "intent", "seq": seq, "change": change.id, "op": op}
                                  for seq, change, _, _, op in intents])
        self.announced += [(seq, op) for seq, _, _, _, op in intents]
        results = []
        try:
            for seq, change, write, kind, op in intents:
                self.current = (change, write)
                self.attempted += 1
                kind.perform(self.root, op)
                record = {"t": "done", "seq": seq}
                if op["kind"] in ("command", "value"):
                    record["after"] = op["after"]
                results.append(record)
                if self.on_write:
                    self.on_write(change, op)
        except BaseException:  # noqa: B902 -- the caller rolls back; keep its error, not the journal's
            try:
                self.journal.append_many(results, sync=False)
            except Exception:
                pass    # the rollback's records follow; a result missing only makes its undo forced
            raise
        self.journal.append_many(results, sync=False)


def _journal_estimate(root, changes):
    """Bytes the run's journal will need: each write's records and undo
    room, and a file's old and new bytes in base64 (about 2.7 times its size)."""
    total = 0
    for change in changes:
        for write in change.writes:
            total += 2048
            # A family's kind that edits a file through an editor journals its bytes too.
            if write.kind in ("file", "command") or write.editor:
                for path in [write.path] + list(getattr(write, "files", None) or []):
                    try:
                        total += 3 * len(root.read_bytes(path) or b"") + 1024
                    except (OSError, ValueError):
                        total += 4096
    return total


def _one_line(text):
    # The CLI prints one line per error; ORA- errors and tool output come in several.
    return " / ".join(line.strip() for line in str(text).splitlines() if line.strip())


def _error_text(e):
    """``Type: message`` for the journal: a NetlinkError says "(16, 'Device or
    resource busy')", which means little without its class."""
    text = _one_line(e)
    return "%s: %s" % (type(e).__name__, text) if text else type(e).__name__


def _reason(e, root=None):
    """What went wrong, for the user: an OSError in its own words (the file
    relative to --root when ``root`` is given), anything else with its class."""
    if isinstance(e, (VerifyError, NumatuneError)):
        return _one_line(e) or type(e).__name__
    if not isinstance(e, OSError):
        return _error_text(e)
    reason = _one_line(e.strerror or e) or type(e).__name__
    if root is not None and e.filename:
        reason = "%s: %s" % (reason, root.rel(str(e.filename)))
    return reason


def _describe(op):
    # Naming a failed undo must not fail too: fall back to the journal's own fields.
    try:
        return appliers.for_op(op).describe(op)
    except Exception:
        return "%s write to %s" % (op.get("kind", "unknown"), op.get("path", "?"))


def describe_undo(op):
    """What an undo did, in the undo direction ("1024 -> 128 restored"): a
    kind's own ``describe_undo``, else its ``describe`` of the op with before
    and after swapped, else "undid" and the forward description."""
    try:
        kind = appliers.for_op(op)
        if hasattr(kind, "describe_undo"):
            return kind.describe_undo(op)
        if "before" in op and "after" in op:
            return kind.describe(dict(op, before=op["after"], after=op["before"])) + " restored"
    except Exception:
        pass
    return "undid " + _describe(op)


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


def _undo_decision(root, op, seq, force, interrupted):
    """"already", "skipped" or "restore" for one op, from what its target holds now."""
    kind = appliers.for_op(op)
    if hasattr(kind, "cleanup"):
        kind.cleanup(root, op)
    sides = kind.current_sides(root, op) if hasattr(kind, "current_sides") else None  # one read for both
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
    twice, at most BATCH; any other kind alone): within one, no restore
    changes what another op's decision reads, so all are decided first."""
    batch, targets = [], set()
    for seq, op in seq_ops:
        alone = op.get("kind") not in BATCHABLE
        if batch and _new_batch(op.get("kind"), op.get("path"), targets, len(batch)):
            yield batch
            batch, targets = [], set()
        batch.append((seq, op))
        targets.add(op.get("path"))
        if alone:
            yield batch
            batch, targets = [], set()
    if batch:
        yield batch


class _Outcomes:
    """What an undo pass did, for the user and (unsynced) for the journal."""

    def __init__(self):
        self.restored, self.skipped, self.failed = [], [], []
        self.records = []
        self.held = None    # the first KeyboardInterrupt/SystemExit, raised once every op was tried

    def fail(self, seq, op, e):
        if not isinstance(e, Exception) and self.held is None:
            self.held = e
        what = _describe(op)
        self.failed.append("%s (%s)" % (what, _reason(e)))
        # Capped: the room each intent holds for its undo records is fixed.
        self.records.append({"t": "failed", "seq": seq, "error": _error_text(e)[:TEXT_CAP],
                             "what": what[:TEXT_CAP]})

    def note(self, seq, op, outcome):
        if outcome == "superseded":
            self.records.append({"t": "undone", "seq": seq, "note": "superseded by the undo of an older write"})
        elif outcome == "already":
            self.records.append({"t": "undone", "seq": seq, "note": "already as before"})
        elif outcome == "skipped":
            self.skipped.append(_describe(op))
            self.records.append({"t": "skipped", "seq": seq, "reason": "changed since by someone else"})
        else:
            self.restored.append(describe_undo(op))
            self.records.append({"t": "undone", "seq": seq})


def _undo_batch(root, batch, force, interrupted, record, done, superseded=()):
    """Decide every op of ``batch``, journal the "undoing" of those to restore
    with one fsync (group commit), restore them, then journal the outcomes
    unsynced. "undoing" is durable before its restore: a revert killed
    mid-restore (a file left empty) is known as its own half-done undo and
    finished, not taken for someone else's change. A result lost in a crash
    only makes the next revert find that op already as before."""
    to_restore = []
    for seq, op in batch:
        if seq in superseded:
            done.note(seq, op, "superseded")
            continue
        try:
            decision = _undo_decision(root, op, seq, force, interrupted)
        except BaseException as e:  # noqa: B902 -- see _undo_ops
            done.fail(seq, op, e)
            continue
        if decision == "restore":
            to_restore.append((seq, op))
        else:
            done.note(seq, op, decision)
    if to_restore:
        record.many([{"t": "undoing", "seq": seq} for seq, _ in to_restore])
    for seq, op in to_restore:
        try:
            appliers.for_op(op).restore(root, op)
        except BaseException as e:  # noqa: B902 -- see _undo_ops
            done.fail(seq, op, e)
            continue
        done.note(seq, op, "restored")
    records, done.records = done.records, []
    record.many(records, sync=False)


def _undo_ops(root, journal, seq_ops, reason, force=False, interrupted=(), superseded=()):
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
        _undo_batch(root, batch, force, interrupted, record, done, superseded)
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


def _undo(root, journal, seq_ops, reason, force=False, interrupted=(), superseded=()):
    """Restore ``seq_ops`` (newest first). Returns (restored, skipped, failed)."""
    restored, skipped, failed, error = _undo_ops(root, journal, seq_ops, reason, force, interrupted, superseded)
    return restored, skipped, failed + _journal_failure(root, journal, error)


WHOLE_TARGET = ("file", "value")


def revert(root, tx, force=False):
    """Undo a transaction (or finish undoing an interrupted one)."""
    pending = [(i["seq"], i["op"]) for i in tx.pending_undo()]
    # Not confirmed done, or an undo of ours that a crash cut short.
    interrupted = {s for s, _ in pending if s not in tx.done or s in tx.undoing}
    # A restore that failed while the undo went on to older writes of the
    # same target: those put an older state there, which restoring this
    # newer "before" now would overwrite with a state in between.
    # Only the generic kinds whose write replaces the whole target: a path is
    # one thing there (a netdev or database op may share one with others).
    undone_at = {}
    for s in tx.undone:
        op = (tx.ops.get(s) or {}).get("op")
        if isinstance(op, dict) and op.get("kind") in WHOLE_TARGET and op.get("path"):
            undone_at.setdefault((op["kind"], op["path"]), []).append(s)
    superseded = {seq for seq, op in pending
                  if any(s < seq for s in undone_at.get((op.get("kind"), op.get("path")), ()))}
    for seq, op in pending:
        after = tx.done_after.get(seq)
        if after is not None:
            op["after"] = after
    journal = Journal(root, tx.txid).open()
    try:
        return _undo(root, journal, pending, "revert", force=force, interrupted=interrupted,
                     superseded=superseded)
    finally:
        journal.close()
