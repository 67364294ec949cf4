"""The write-ahead journal: one JSON-lines file per transaction under
``/var/lib/numatune/journal``. Every record is fsynced before the write it
announces, so a run killed at any point leaves enough to finish or undo it.

Records, in order:
  begin      txid, time, command, policy, the planned changes (what a rule's share once: begin_changes.py)
  intent     seq, change id, the op (target, before, after)      fsynced, then the write
  intents    seq, intents (a batch's intents, one checksum)      fsynced, then the writes
  done       seq[, seqs]                                          the writes returned (a batch at once)
  commit     writes (how many intents the run wrote)              apply and verify succeeded
  undo-begin reason ("rollback" after a failure, or "revert")
  undoing    seq[, seqs]                                          fsynced (a batch at once), then the restores
  undone     seq[, seqs] (or skipped with a reason)
  failed     seq, error, what (an undo that raised; the others still ran)
  undo-end   reason

Space (a full disk must never leave a half-applied host): ``start`` reserves
the run's estimated journal up front (fallocate KEEP_SIZE: allocated past the
end, so O_APPEND writes land in it without asking the filesystem again) or
refuses the run with nothing written. Every ``intent`` also holds room for
its own undo records, so a rollback, and a later revert of the same
transaction, never need new space. A record is written whole (short writes
looped) and fsynced, or cut off again: no torn record announces a write.
Readers skip a bad line, say which (file:line), and keep every record around it.
A record naming a batch lists its writes in ``seqs`` (numatune/apply/journal_records.py).
"""
import datetime
import errno
import os
import re

from numatune.apply.journal_records import (REQUIRED, BeginStub, blocking, expand,  # noqa: F401 -- re-exported
                                            parse_journal, seqs_of)
from numatune.apply.seal import _sum, line, sealed  # noqa: F401 -- _sum, sealed: re-exported
from numatune.apply.state_dir import fsync_dir, open_state_file
from numatune.errors import RefusedError, UsageError

STATE_DIR = "/var/lib/numatune"
JOURNAL_DIR = STATE_DIR + "/journal"

UNDO_RECORDS = ("undo-begin", "undoing", "undone", "skipped", "failed", "undo-end")
UNDO_ROOM = 1024       # per intent: its "undoing" + "undone"/"failed" (texts capped at TEXT_CAP)
FRAME_ROOM = 1024      # per undo pass: "undo-begin" + "undo-end"
DONE_ROOM = 256        # the "done" after a write (with a value's "after")
TEXT_CAP = 300
_FALLOC_FL_KEEP_SIZE = 0x01


def new_txid():
    now = datetime.datetime.now()
    return now.strftime("%Y%m%dT%H%M%S") + "-%06d" % now.microsecond + "-%d" % os.getpid()


def _fallocate(fd, offset, length):
    """Allocate [offset, offset+length) past the end without growing the
    file. False where the filesystem cannot (then only the checks remain)."""
    try:
        import ctypes   # here: `check` imports the journal to read it, and never allocates
        libc = ctypes.CDLL(None, use_errno=True)
        ret = libc.fallocate(ctypes.c_int(fd), ctypes.c_int(_FALLOC_FL_KEEP_SIZE), ctypes.c_int64(offset),
                             ctypes.c_int64(length))
    except (ImportError, OSError, AttributeError):
        return False
    if ret == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EOPNOTSUPP, errno.ENOSYS, errno.EINVAL):
        return False
    raise OSError(err, os.strerror(err))


class Journal:
    def __init__(self, root, txid):
        self.root = root
        self.txid = txid
        self.path = root.join("%s/%s.jsonl" % (JOURNAL_DIR, txid))
        self._fd = None
        self._size = 0      # bytes written (the file's length)
        self._end = 0       # bytes allocated (reserved past the length)
        self._held = 0      # reserved bytes promised to undo records
        self.appended = []  # the records this run wrote, in order (the journal index's view of its end)
        self.write_failed = False

    def open(self):
        directory = os.path.dirname(self.path)
        self._fd = open_state_file(self.root, "%s/%s.jsonl" % (JOURNAL_DIR, self.txid), "the journal",
                                   os.O_WRONLY | os.O_APPEND)
        st = os.fstat(self._fd)
        self._size = st.st_size
        # A journal reopened by revert still has the room its apply reserved.
        self._end = max(st.st_size, st.st_blocks * 512)
        self._held = self._end - self._size
        try:
            fsync_dir(directory, "the journal directory")
        except RefusedError:
            self.close()
            raise
        return self

    def start(self, record, estimate):
        """Open, reserve ``estimate`` bytes for the run and write its
        "begin", or refuse (exit 2) leaving no journal behind."""
        self.open()
        try:
            # Encoded once: a giant host's "begin" lists 33,000 changes.
            first = line(record)
            self._reserve(len(first) + estimate + FRAME_ROOM)
            self._append_lines([first], [record.get("t")])
            self.appended.append(record)
        except OSError as e:
            self.close()
            try:
                os.unlink(self.path)
            except OSError:
                pass
            raise RefusedError("no room for the journal in %s (about %d KiB needed): %s"
                               % (os.path.dirname(self.path), (estimate + FRAME_ROOM) // 1024 + 1,
                                  e.strerror or e),
                               "free space there and apply again; nothing was changed")
        self._held = FRAME_ROOM
        return self

    def _reserve(self, need):
        """Make sure ``need`` bytes past the end are allocated, or raise ENOSPC."""
        if self._end - self._size >= need:
            return
        if _fallocate(self._fd, self._size, need):
            self._end = self._size + need

    def append(self, record):
        """Write one record whole and fsync it. A record that does not fit
        raises before anything is written; undo records use the room their
        intent held and never ask for more."""
        self.append_many([record])

    def append_many(self, records, sync=True):
        """Several records in one write and, with ``sync``, one fsync (group
        commit: a batch of intents; its results are synced with the next).
        The same rules as ``append``: room is reserved first (intents hold
        their undo room), a batch that cannot be written whole is cut off
        again, and undo records use held room only."""
        if not records:
            return
        self._append_lines([line(r) for r in records], [r.get("t") for r in records], sync,
                           sum(len(r["intents"]) for r in records if r.get("t") == "intents"))
        for r in records:
            self.appended += expand(r)

    def _append_lines(self, chunks, kinds, sync=True, grouped=0):
        """``append_many`` of records already encoded (``chunks``, their types
        ``kinds``; ``grouped``: the intents their "intents" records hold)."""
        if self._fd is None:
            self.open()
        data = b"".join(chunks)
        intents = kinds.count("intent") + grouped
        undo_bytes = sum(len(c) for c, k in zip(chunks, kinds) if k in UNDO_RECORDS)
        extra = intents * (UNDO_ROOM + DONE_ROOM)
        if undo_bytes < len(data):
            self._reserve(len(data) - undo_bytes + self._held + extra)
        start = self._size
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(self._fd, view):]
            if sync:
                os.fsync(self._fd)
        except OSError:
            self.write_failed = True
            try:
                os.ftruncate(self._fd, start)
            except OSError:
                pass
            raise
        self._size += len(data)
        self._end = max(self._end, self._size)
        self._held = max(0, self._held - undo_bytes) + intents * UNDO_ROOM

    def close(self):
        if self._fd is not None:
            fd, self._fd = self._fd, None
            try:
                os.close(fd)
            except OSError:
                # Linux frees the descriptor even when close reports an error, and each
                # record was fsynced before anything relied on it: nothing is lost (#28).
                pass


def _read(root, txid, stub_begin=False):
    if not re.match(r"^[0-9T-]+$", txid or ""):
        raise UsageError("%r is not a transaction id" % txid, "see `numatune history`")
    path = root.join("%s/%s.jsonl" % (JOURNAL_DIR, txid))
    try:
        with open(path, "rb") as f:
            data = f.read()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        raise UsageError("no transaction %s in %s" % (txid, root.join(JOURNAL_DIR)),
                         "see `numatune history`")
    except PermissionError:
        raise RefusedError("cannot read the journal %s: permission denied" % path, "run as root")
    return parse_journal(data, root.rel(path), stub_begin)


def read_records(root, txid):
    return _read(root, txid)[0]


def load(root, txid, changes=None):
    """The Transaction a journal records, with its unreadable lines.
    ``changes``: how many changes its begin record lists, when the caller
    knows (the journal index): the record is then decoded only if asked for."""
    records, problems = _read(root, txid, stub_begin=changes is not None)
    return Transaction(txid, records, problems, changes)


def shared_whys(changes):
    """(changes, whys) for a begin record as written before begin_changes.py
    (the tests write such journals): each distinct ``why`` once in
    ``whys``, a change naming its text by index (``why_at``). One storage rule
    over 5,120 devices gave 5,120 copies of one text, a fifth of a giant
    host's begin record (issue #38). Journals without ``whys`` keep the text
    in each change; readers take both (``with_whys``)."""
    whys, at, out = [], {}, []
    for change in changes:
        why = change.get("why")
        if isinstance(why, str):
            from numatune.apply.begin_changes import index_of     # here: it imports the model
            # A copy, the text's index in its place: the record is encoded with its keys sorted.
            change = dict(change, why_at=index_of(why, at, whys))
            del change["why"]
        out.append(change)
    return out, whys


def with_whys(changes, whys):
    """The begin record's changes with each ``why`` text in place (see shared_whys)."""
    if not isinstance(whys, list):
        return changes
    out = []
    for change in changes:
        i = change.get("why_at")
        if type(i) is int and 0 <= i < len(whys) and "why" not in change:
            change = {("why" if k == "why_at" else k): (whys[i] if k == "why_at" else v) for k, v in change.items()}
        out.append(change)
    return out


class Transaction:
    """What a journal says happened."""

    def __init__(self, txid, records, problems=(), changes=None):
        self.txid = txid
        self.records = records
        self.problems = list(problems)
        self.undoing = set()
        begin = records[0] if records and records[0].get("t") == "begin" else {}
        self._begin = begin     # a BeginStub until its whole record is asked for
        self._changes = changes
        self.ops = {}
        self.done = set()
        self.done_after = {}
        self.skipped = set()
        self.undone = set()
        self.committed = False
        self.undo_reasons = []
        self.undo_ended = []
        # Whether the last undo pass has no end: a killed revert that a later
        # one finished has more begins than ends, and is not interrupted.
        self.undo_open = False
        for r in records:
            self.add(r)

    def add(self, r):
        """Fold one more record in (the journal read in order, or a record this run appended)."""
        t = r.get("t")
        if t == "intent":
            self.ops[r["seq"]] = r
        elif t == "intents":
            for intent in expand(r):
                self.add(intent)
        elif t == "done":
            self.done.update(seqs_of(r))
            if "after" in r:
                self.done_after[r["seq"]] = r["after"]
            for seq, after in (r.get("afters") or {}).items():     # a batch's: only those that differ
                self.done_after[int(seq)] = after
        elif t == "undoing":
            self.undoing.update(seqs_of(r))
        elif t == "undone":
            seqs = seqs_of(r)
            self.undone.update(seqs)
            self.skipped.difference_update(seqs)
            self.undoing.difference_update(seqs)
        elif t == "skipped":
            seqs = seqs_of(r)
            self.skipped.update(seqs)
            self.undoing.difference_update(seqs)
        elif t == "failed":
            # Still "undoing": a restore that failed may have left its own
            # half-written bytes (a copied value file truncated, then
            # ENOSPC), which the next revert must finish, not take for
            # someone else's change.
            self.skipped.add(r["seq"])
        elif t == "commit":
            self.committed = True
        elif t == "undo-begin":
            self.undo_reasons.append(r.get("reason"))
            self.undo_open = True
        elif t == "undo-end":
            self.undo_ended.append(r.get("reason"))
            self.undo_open = False

    @property
    def begin(self):
        if type(self._begin) is BeginStub:
            self._begin = self._begin.whole()
        return self._begin

    @property
    def damaged(self):
        """No begin record and no intent: an empty journal (or one whose every
        record was lost). What it changed cannot be known: a run killed before
        its first record changed nothing, a journal truncated after its commit
        leaves the host applied, and nothing tells the two apart."""
        return not self._begin and not self.ops

    @property
    def state(self):
        if self.damaged:
            # Set aside by `revert --force`: someone checked the host by hand.
            return "set aside" if self.undo_ended else "damaged"
        if self.undo_open:
            return "interrupted revert"
        if self.undo_ended:
            if self.skipped:
                return "partly reverted"
            return "reverted" if self.undo_ended[-1] == "revert" else "rolled back"
        if self.committed:
            return "applied"
        return "interrupted"

    @property
    def needs_recovery(self):
        return self.state in ("interrupted", "interrupted revert", "damaged")

    @property
    def time(self):
        return str(self._begin.get("time", ""))

    @property
    def change_count(self):
        """len(self.changes), without putting each change's why back in place
        (revert's summary line of a giant host's 33,000 changes); the count
        the caller gave while the begin record is not decoded."""
        if type(self._begin) is BeginStub and self._changes is not None:
            return self._changes
        changes = self.begin.get("changes")
        return sum(1 for c in changes if isinstance(c, dict)) if isinstance(changes, list) else 0

    @property
    def changes(self):
        from numatune.apply.begin_changes import expand     # here: it imports the model
        changes = self.begin.get("changes")
        changes = [c for c in changes if isinstance(c, dict)] if isinstance(changes, list) else []
        return with_whys(expand(changes, self.begin.get("shared")), self.begin.get("whys"))

    def pending_undo(self):
        """Intents not yet undone, newest first."""
        return [self.ops[s] for s in sorted(self.ops, reverse=True) if s not in self.undone]


def list_transactions(root):
    names = [n[:-6] for n in root.listdir(JOURNAL_DIR) if n.endswith(".jsonl")]
    out = []
    for txid in sorted(names):
        # Not a file (a directory of that name): no journal, nothing to read.
        if re.match(r"^[0-9T-]+$", txid) and not root.isdir("%s/%s.jsonl" % (JOURNAL_DIR, txid)):
            out.append(load(root, txid))
    return out
