"""Apply changes under the journal and roll back on any failure (the undo
itself, shared with `revert`, is numatune/apply/revert.py).

Like nmstate: apply everything, verify by re-reading the host, and undo the
whole run on any exception (KeyboardInterrupt included), re-raising the
original error with what was rolled back. An undo that fails does not stop
the others; the journal records it ("failed": seq, error, what) and the
error names it after "ROLLBACK FAILED for".
"""
import json

from numatune.apply import kinds as appliers
from numatune.apply.file import Edits
from numatune.errors import ApplyError, RefusedError
from numatune.apply.interrupt import HeldInterrupt
from numatune.apply import audit, journal_index
from numatune.apply.begin_changes import compact
from numatune.apply.journal import Journal, Transaction, new_txid
from numatune.apply.journal_records import batch_record, intents_record
# Re-exported: the CLI, confirm window and tests import these from here.
from numatune.apply.ops import (BATCH, BATCHABLE, VerifyError, _describe, _error_text, _new_batch,  # noqa: F401
                                _now, _one_line, _reason, describe_undo)
from numatune.apply.revert import _journal_failure, _undo, _undo_ops, revert  # noqa: F401


def refuse_if_interrupted(root):
    # From the index: the states of the kept journals without parsing each (#38).
    for tx in journal_index.summaries(root):
        if tx.state == "damaged":
            raise RefusedError("the journal of transaction %s is damaged: what it changed cannot be known"
                               % tx.txid, "see `numatune revert %s`" % tx.txid)
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
        # What a rule's changes share, once (begin_changes): a giant host's begin record was 19 MB.
        planned, shared, whys = compact(changes)
        journal = Journal(root, txid).start({"t": "begin", "txid": txid, "time": _now(), "command": command,
                                             "root": root.path, "policy": policy or {},
                                             "audit": audit.record(root, command, policy),
                                             "changes": planned, "shared": shared, "whys": whys},
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
        # The count lets a reader see an intent lost with its "done" at the end of the journal.
        journal.append({"t": "commit", "time": _now(), "writes": writer.seq})
        return txid, list(writer.announced)
    except BaseException as e:  # noqa: B902 -- KeyboardInterrupt must roll back too
        if isinstance(e, KeyboardInterrupt):
            writer.current = None   # no write failed: the run was stopped between two
        _, _, failed, journal_error = _undo_ops(root, journal, list(enumerate(writer.announced, 1))[::-1], "rollback",
                                                force=True)
        what = ""
        if writer.current is not None:
            what = "%s (%s): " % (writer.current[0].id, writer.current[1].path)
        if isinstance(e, VerifyError):
            what = "verify after apply: "
        msg = "%s%s; rolled back %d write(s) of transaction %s" % (what, _reason(e, root),
                                                                     writer.attempted - len(failed), txid)
        hint = "nothing else was changed; fix the cause and apply again"
        if not failed and journal_error is None:
            msg += ": nothing changed"
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
        try:
            journal_index.record(root, Transaction(txid, journal.appended), journal)
        finally:
            held.__exit__()     # after the rollback: a second Ctrl-C must not stop it half-way


class _GroupCommit:
    """Captures writes into a batch; ``flush`` journals the batch's intents
    with one fsync, performs them in order, then journals their results.

    The edits of one file are merged (numatune.apply.file.Edits): chained
    in plan order into one op, journaled once with the bytes before the
    first and after the last, and written once, when the run of BATCHABLE
    writes they belong to ends (a write of another kind, which may read or
    change the file, or the end of the run). The other targets of that run
    are independent of the file, so writing it after them changes nothing
    they capture; the journal then grows with the number of writes, not
    with their square.

    The results are synced by the next batch's intents or by the commit: a
    result lost in a crash leaves its intent unconfirmed, which revert undoes
    anyway (the "before" it holds was there when it was announced), exactly as
    for a run killed between an intent and its write."""

    def __init__(self, root, journal, on_write):
        self.root, self.journal, self.on_write = root, journal, on_write
        self.announced = []     # the ops in the journal, oldest first (seqs 1, 2...): what a rollback undoes
        self.attempted = 0      # writes started (the failing one included)
        # (change, write, ...) being captured or performed, for the error: a batch's own entry while
        # it is performed (35,000 pairs fewer to make, for the one a write that fails needs).
        self.current = None
        self.seq = 0            # the last intent's seq
        self._batch = []        # (change, write, kind, op, None) of the other kinds, in order
        self._targets = set()
        self._files = {}        # host path -> [Edits, [changes carried], (change, write) first]
        self._file_paths = set()    # those paths, as written and as resolved

    def add(self, change, write):
        name, path = write.kind, write.path
        if name == "file":
            self._add_file(change, write)
            return
        # A generic kind has no file form (_as_file), and is found without ChainMap's lookup in Python.
        kind = appliers.GENERIC.get(name)
        if kind is None:
            as_file = _as_file(self.root, write)
            if as_file is not None:
                self._add_file(change, as_file, write)
                return
            kind = appliers.KINDS[name]
        alone = name not in BATCHABLE
        if alone or path in self._file_paths:
            self.flush()    # a command may read or change a pending file: the file first
        elif _new_batch(name, path, self._targets, len(self._batch)):
            self.flush(files=False)
        try:
            op = kind.capture(self.root, write)
        except BaseException:  # noqa: B902 -- re-raised: the run rolls back
            # As when writes went one at a time: those before this one are made
            # (then rolled back with the run), and the error names this one.
            self.flush()
            self.current = (change, write)
            raise
        if "unchanged" in op:
            if op["unchanged"]:
                return
            del op["unchanged"]
        self._batch.append((change, write, kind, op, None))
        self._targets.add(path)
        if alone:
            self.flush()

    def _add_file(self, change, write, named=None):
        """``named``: the write the change made, when ``write`` is its file form (the error names it)."""
        self.current = (change, named or write)
        try:
            path = self.root.realpath(write.path)
            entry = self._files.get(path)
            if entry is None:
                if path in self._targets or write.path in self._targets:
                    self.flush(files=False)
                entry = self._files[path] = [Edits(self.root, write, path), [], (change, write)]
                self._file_paths.update((path, write.path))
            if entry[0].add(write, change.id):
                entry[1].append(change)
        except BaseException:  # noqa: B902 -- as in add: what came before is made, then rolled back
            self.flush()
            self.current = (change, named or write)
            raise

    def _merged_files(self):
        out = []
        for edits, carried, first in self._files.values():
            op = edits.op()
            if not op.pop("unchanged"):
                # The changes it carries (verify reads each back), the first in the journal and an error.
                out.append((carried[0], first[1], appliers.KINDS["file"], op, carried))
        self._files, self._file_paths = {}, set()
        return out

    def flush(self, files=True):
        batch, self._batch, self._targets = self._batch, [], set()
        if files:
            batch += self._merged_files()
        if not batch:
            return
        first = self.seq + 1
        intents = [{"seq": seq, "change": item[0].id, "op": item[3]} for seq, item in enumerate(batch, first)]
        self.seq += len(batch)
        # One record, one checksum for the batch's intents (journal_records.py), fsynced before any write.
        self.journal.append_many([intents_record(intents)])
        self.announced += [item[3] for item in batch]
        made = 0
        root, on_write = self.root, self.on_write
        try:
            for item in batch:
                change, _, kind, op, carried = self.current = item
                self.attempted += 1
                kind.perform(root, op)
                made += 1
                if on_write:
                    if carried is None:
                        on_write(change, op)
                    else:
                        for change in carried:  # verify reads back every change a merged op carries
                            on_write(change, op)
        except BaseException:  # noqa: B902 -- the caller rolls back; keep its error, not the journal's
            try:
                self.journal.append_many(_done(first, self.announced[first - 1:first - 1 + made]), sync=False)
            except Exception:
                pass    # the rollback's records follow; a result missing only makes its undo forced
            raise
        self.journal.append_many(_done(first, self.announced[first - 1:]), sync=False)


def _as_file(root, write):
    """A family kind's write in its file form (kinds.py: ``offline_file``), or None."""
    if write.kind in appliers.GENERIC:
        return None
    to_file = getattr(appliers.KINDS[write.kind], "offline_file", None)
    return to_file(root, write) if to_file is not None else None


def _done(first, made):
    """The "done" of the writes ``made`` (their ops, of seqs ``first``...): one record for the
    batch (a giant host's apply wrote 35,000 of one line each). A value or
    command write's "after" is what its target took; a batch's record holds
    it only where that is not the intent's (``afters``), which revert reads
    in its place."""
    if not made:
        return []
    if len(made) == 1:
        seq, op = first, made[0]
        record = {"t": "done", "seq": seq}
        if op["kind"] in ("command", "value"):
            record["after"] = op["after"]
        return [record]
    afters = {str(seq): op["after"] for seq, op in enumerate(made, first)
              if op["kind"] in ("command", "value") and "asked" in op}
    return [batch_record("done", {"afters": afters} if afters else None, list(range(first, first + len(made))))]


def _journal_estimate(root, changes):
    """Bytes the run's journal will need: each write's records and undo
    room, and a file's old and new bytes in base64 (about 2.7 times its size):
    once per file in a run of merged edits (what each edit adds is about its
    arguments' size), once per write for the other kinds that hold files."""
    total, merged = 0, set()
    for change in changes:
        for write in change.writes:
            write = _as_file(root, write) or write
            total += 2048
            if write.kind == "file":
                total += 3 * len(json.dumps(write.args, default=str))
                if write.path in merged:
                    continue
                merged.add(write.path)
            elif write.kind not in BATCHABLE:
                merged = set()  # the files are journaled again after a write of another kind
            # A family's kind that edits a file through an editor journals its bytes too.
            if write.kind in ("file", "command") or write.editor:
                for path in [write.path] + list(getattr(write, "files", None) or []):
                    try:
                        total += 3 * len(root.read_bytes(path) or b"") + 1024
                    except (OSError, ValueError):
                        total += 4096
    return total
