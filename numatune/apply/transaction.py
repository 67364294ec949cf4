"""Apply changes under the journal, roll back on any failure, and revert.

Like nmstate: apply everything, verify by re-reading the host, and undo the
whole run on any exception (KeyboardInterrupt included), re-raising the
original error with what was rolled back.
"""
import datetime

from numatune.apply import kinds as appliers
from numatune.errors import ApplyError, RefusedError
from numatune.apply.journal import Journal, list_transactions, new_txid


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
    journal = Journal(root, txid).open()
    journal.append({"t": "begin", "txid": txid, "time": _now(), "command": command,
                    "root": root.path, "policy": policy or {},
                    "changes": [c.to_json() for c in changes]})
    done = []
    seq = 0
    current = None
    try:
        for change in changes:
            for write in change.writes:
                current = (change, write)
                kind = appliers.KINDS[write.kind]
                op = kind.capture(root, write)
                if op.get("unchanged"):
                    continue
                op.pop("unchanged", None)
                seq += 1
                journal.append({"t": "intent", "seq": seq, "change": change.id, "op": op})
                done.append((seq, op))
                kind.perform(root, op)
                record = {"t": "done", "seq": seq}
                if op["kind"] in ("command", "value"):
                    record["after"] = op["after"]
                journal.append(record)
                if on_write:
                    on_write(change, op)
        current = None
        if verify is not None:
            problems = verify()
            if problems:
                raise VerifyError("; ".join(problems))
        journal.append({"t": "commit", "time": _now()})
        return txid, [op for _, op in done]
    except BaseException as e:  # noqa: B902 -- KeyboardInterrupt must roll back too
        failures = _undo(root, journal, list(reversed(done)), "rollback", force=True)[2]
        what = ""
        if current is not None:
            what = "%s (%s): " % (current[0].id, current[1].path)
        if isinstance(e, VerifyError):
            what = "verify after apply: "
        reason = e.strerror if isinstance(e, OSError) and e.strerror else str(e) or type(e).__name__
        if isinstance(e, OSError) and e.filename:
            reason = "%s: %s" % (reason, root.rel(str(e.filename)))
        msg = "%s%s; rolled back %d write(s) of transaction %s" % (what, reason, len(done), txid)
        if failures:
            msg += "; ROLLBACK FAILED for %s" % ", ".join(failures)
        raise ApplyError(msg, "nothing else was changed; fix the cause and apply again"
                         if not failures else "see `numatune history %s`" % txid) from e
    finally:
        journal.close()


def _undo(root, journal, seq_ops, reason, force=False, interrupted=()):
    """Restore ``seq_ops`` (newest first). Returns (restored, skipped, failed)."""
    journal.append({"t": "undo-begin", "reason": reason, "time": _now()})
    restored, skipped, failed = [], [], []
    for seq, op in seq_ops:
        kind = appliers.for_op(op)
        try:
            if hasattr(kind, "cleanup"):
                kind.cleanup(root, op)
            if kind.current_matches(root, op, "before"):
                journal.append({"t": "undone", "seq": seq, "note": "already as before"})
                continue
            holds_after = seq not in interrupted and kind.current_matches(root, op, "after")
            # A write announced but never confirmed may have landed: restoring
            # is safe because "before" is what was there when it was announced.
            if not (holds_after or force or seq in interrupted):
                skipped.append(kind.describe(op))
                journal.append({"t": "skipped", "seq": seq, "reason": "changed since by someone else"})
                continue
            kind.restore(root, op)
            journal.append({"t": "undone", "seq": seq})
            restored.append(kind.describe(op))
        except OSError as e:
            failed.append("%s (%s)" % (kind.describe(op), e.strerror or e))
            journal.append({"t": "failed", "seq": seq, "error": str(e)})
    journal.append({"t": "undo-end", "reason": reason, "time": _now(),
                    "skipped": len(skipped), "failed": len(failed)})
    return restored, skipped, failed


def revert(root, tx, force=False):
    """Undo a transaction (or finish undoing an interrupted one)."""
    pending = [(i["seq"], i["op"]) for i in tx.pending_undo()]
    interrupted = {s for s, _ in pending if s not in tx.done}
    for seq, op in pending:
        after = tx.done_after.get(seq)
        if after is not None:
            op["after"] = after
    journal = Journal(root, tx.txid).open()
    try:
        return _undo(root, journal, pending, "revert", force=force, interrupted=interrupted)
    finally:
        journal.close()
