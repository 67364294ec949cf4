"""The write-ahead journal: one JSON-lines file per transaction under
``/var/lib/numatune/journal``. Every record is fsynced before the write it
announces, so a run killed at any point leaves enough to finish or undo it.

Records, in order:
  begin      txid, time, command, policy, the planned changes
  intent     seq, change id, the op (target, before, after)      fsynced, then the write
  done       seq                                                  the write returned
  commit                                                          apply and verify succeeded
  undo-begin reason ("rollback" after a failure, or "revert")
  undone     seq (or skipped with a reason)
  failed     seq, error, what (an undo that raised; the others still ran)
  undo-end   reason
"""
import datetime
import json
import os
import re

from numatune.errors import RefusedError, UsageError

STATE_DIR = "/var/lib/numatune"
JOURNAL_DIR = STATE_DIR + "/journal"


def new_txid():
    now = datetime.datetime.now()
    return now.strftime("%Y%m%dT%H%M%S") + "-%06d" % now.microsecond + "-%d" % os.getpid()


class Journal:
    def __init__(self, root, txid):
        self.root = root
        self.txid = txid
        self.path = root.join("%s/%s.jsonl" % (JOURNAL_DIR, txid))
        self._fd = None

    def open(self):
        directory = os.path.dirname(self.path)
        try:
            os.makedirs(directory, exist_ok=True)
            self._fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        except PermissionError:
            raise RefusedError("cannot write the journal %s: permission denied" % self.path,
                               "run as root, or use --root on a tree you own")
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        return self

    def append(self, record):
        if self._fd is None:
            self.open()
        os.write(self._fd, (json.dumps(record, sort_keys=True) + "\n").encode())
        os.fsync(self._fd)

    def append_many(self, records, sync=True):
        """Several records in one write and, with ``sync``, one fsync (group
        commit: a batch of intents; its results are synced with the next)."""
        if not records:
            return
        if self._fd is None:
            self.open()
        data = "".join(json.dumps(r, sort_keys=True) + "\n" for r in records).encode()
        while data:
            data = data[os.write(self._fd, data):]
        if sync:
            os.fsync(self._fd)

    def close(self):
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def read_records(root, txid):
    path = root.join("%s/%s.jsonl" % (JOURNAL_DIR, txid))
    records = []
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                try:
                    records.append(json.loads(line))
                except ValueError:
                    # A torn last line from a crash mid-append: the write it
                    # would have announced never started.
                    break
    except FileNotFoundError:
        raise UsageError("no transaction %s in %s" % (txid, root.join(JOURNAL_DIR)),
                         "see `numatune history`")
    return records


class Transaction:
    """What a journal says happened."""

    def __init__(self, txid, records):
        self.txid = txid
        self.records = records
        begin = records[0] if records and records[0].get("t") == "begin" else {}
        self.begin = begin
        self.ops = {}
        self.done = set()
        self.done_after = {}
        self.skipped = set()
        self.undone = set()
        self.committed = False
        self.undo_reasons = []
        self.undo_ended = []
        for r in records:
            t = r.get("t")
            if t == "intent":
                self.ops[r["seq"]] = r
            elif t == "done":
                self.done.add(r["seq"])
                if "after" in r:
                    self.done_after[r["seq"]] = r["after"]
            elif t == "undone":
                self.undone.add(r["seq"])
                self.skipped.discard(r["seq"])
            elif t in ("skipped", "failed"):
                self.skipped.add(r["seq"])
            elif t == "commit":
                self.committed = True
            elif t == "undo-begin":
                self.undo_reasons.append(r.get("reason"))
            elif t == "undo-end":
                self.undo_ended.append(r.get("reason"))

    @property
    def state(self):
        if len(self.undo_reasons) > len(self.undo_ended):
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
        return self.state in ("interrupted", "interrupted revert")

    @property
    def time(self):
        return self.begin.get("time", "")

    @property
    def changes(self):
        return self.begin.get("changes", [])

    def pending_undo(self):
        """Intents not yet undone, newest first."""
        return [self.ops[s] for s in sorted(self.ops, reverse=True) if s not in self.undone]


def list_transactions(root):
    names = [n[:-6] for n in root.listdir(JOURNAL_DIR) if n.endswith(".jsonl")]
    out = []
    for txid in sorted(names):
        if re.match(r"^[0-9T-]+$", txid):
            out.append(Transaction(txid, read_records(root, txid)))
    return out
