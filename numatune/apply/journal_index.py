"""The journal's index: each kept transaction's state, so apply (which must
find a run left half done) and `revert --last` (which must find the newest
transaction not yet undone) do not parse every kept journal. A giant host's
journal is 40 MB; with 50 kept, parsing them all was most of a run (#38).

The index is a cache, never a record. Each entry holds the stat of the
journal it was made from (inode, size, mtime and ctime in nanoseconds: an
append, an edit or a copy over it changes one of them, and ctime cannot be
set back); an entry whose journal's stat differs, a journal with no entry,
and an index that is missing, unreadable or not in this format are read
from the journals again, and the index rewritten. So a crash at any point
(before, during or after its atomic replace) leaves it right or stale,
never believed when wrong. It only says which transaction a command is
about: what a revert restores comes from that journal, read in full.

An entry is a dict: ``stat``, ``state``, ``time``, ``changes`` (how many
the begin record lists; entries written before lack it), all made from the
journal by ``_entry`` (the one place to add a field the journal holds, e.g.
who ran the transaction); a reader ignores keys it does not know.
"""
import json
import os
import re

from numatune.apply.journal import JOURNAL_DIR, STATE_DIR, list_transactions, load

# Beside the journal directory, not in it: an admin may move that by a link (a cache need not follow).
INDEX = STATE_DIR + "/journal-index.json"
FORMAT = 1


class Summary:
    """What the index says of one transaction: its id, state and time."""

    def __init__(self, txid, entry):
        self.txid = txid
        self.state = entry["state"]
        self.time = str(entry.get("time", ""))
        changes = entry.get("changes")     # an index written before it was kept: not known
        self.changes = changes if type(changes) is int and changes >= 0 else None

    @property
    def needs_recovery(self):
        return self.state in ("interrupted", "interrupted revert", "damaged")


def _stat(root, txid):
    try:
        st = os.lstat(root.join("%s/%s.jsonl" % (JOURNAL_DIR, txid), follow=False))
    except (OSError, ValueError):
        return None
    return [st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns]


def _read(root):
    """The index's entries, or {} when it is missing, unreadable or damaged."""
    try:
        data = root.read_bytes(INDEX)
        index = json.loads(data.decode("utf-8")) if data else None
    except (OSError, ValueError, UnicodeDecodeError, RecursionError):
        return {}
    if not isinstance(index, dict) or index.get("format") != FORMAT or not isinstance(index.get("journals"), dict):
        return {}
    return {k: v for k, v in index["journals"].items()
            if isinstance(v, dict) and isinstance(v.get("state"), str) and isinstance(v.get("stat"), list)}


def _write(root, entries):
    """Replace the index (temporary file and rename). Best effort: it is a
    cache, and a run must not fail for it (a full disk, a read-only copy)."""
    data = json.dumps({"format": FORMAT, "journals": entries}, sort_keys=True).encode()
    try:
        root.write_atomic(INDEX, data, 0o600)
    except Exception:
        pass


def _entry(tx, stat):
    # "changes": revert --last says how many without decoding the begin record (journal.load).
    return {"stat": stat, "state": tx.state, "time": tx.time, "changes": tx.change_count}


def _txids(root):
    names = [n[:-6] for n in root.listdir(JOURNAL_DIR) if n.endswith(".jsonl")]
    return sorted(t for t in names if re.match(r"^[0-9T-]+$", t))


def summaries(root):
    """Every kept transaction's Summary, oldest first: from the index where
    its entry matches the journal, else from the journal (and the index
    rewritten)."""
    try:
        txids = _txids(root)
    except (OSError, ValueError):
        return [Summary(tx.txid, _entry(tx, None)) for tx in list_transactions(root)]
    entries = _read(root)
    fresh, changed = {}, set(entries) - set(txids)
    for txid in txids:
        stat = _stat(root, txid)
        entry = entries.get(txid)
        if stat is None or root.isdir("%s/%s.jsonl" % (JOURNAL_DIR, txid)):
            continue    # gone since the listing, or a directory of that name: no journal
        if entry is None or entry["stat"] != stat:
            entry = _entry(load(root, txid), stat)
            changed.add(txid)
        fresh[txid] = entry
    if changed:
        _write(root, fresh)
    return [Summary(txid, fresh[txid]) for txid in txids if txid in fresh]


def changes_of(root, txid):
    """How many changes the begin record of ``txid`` lists, from its entry
    when that matches the journal (else None: nothing read or rewritten)."""
    entry = _read(root).get(txid)
    changes = entry.get("changes") if entry is not None else None
    if type(changes) is not int or changes < 0 or entry["stat"] != _stat(root, txid):
        return None
    return changes


def record(root, tx, journal):
    """The entry of ``tx`` after this run wrote ``journal`` (its records
    folded into ``tx``): the state the run knows, with the journal's stat
    now, so the next run need not read it. Not when a journal write failed
    (the file may hold less than the run meant): the next run reads it."""
    if journal.write_failed:
        return
    stat = _stat(root, tx.txid)
    if stat is None:
        return
    entries = _read(root)
    entries[tx.txid] = _entry(tx, stat)
    _write(root, entries)
