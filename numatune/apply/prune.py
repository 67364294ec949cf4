"""Retention: `numatune history --prune [--keep N]` (issue #37).

A journal is what a later revert reads, so only journals nothing can revert
any more are removed: transactions reverted, rolled back or set aside, older
than the ``keep`` newest of all. Applied, partly reverted, interrupted and
damaged ones stay whatever their age (a revert, `revert --force` or recovery
needs them). The confirm marker of a pruned transaction goes with it. Each
removal is one unlink under the run lock: a crash leaves some journals
pruned and the others whole, never one half-read."""
import os

from numatune.apply.journal import JOURNAL_DIR, list_transactions
from numatune.apply.state_dir import fsync_dir

DEFAULT_KEEP = 20
PRUNABLE = ("reverted", "rolled back", "set aside")


def prunable(transactions, keep):
    """The transactions ``prune`` would remove, oldest first."""
    ordered = sorted(transactions, key=lambda t: t.txid)
    older = ordered[:max(len(ordered) - keep, 0)]
    return [t for t in older if t.state in PRUNABLE]


def _unlink(path):
    try:
        size = os.lstat(path).st_size
        os.unlink(path)
        return size
    except FileNotFoundError:
        return 0


def prune(root, keep=DEFAULT_KEEP):
    """Remove what ``prunable`` says, under the run lock. Returns (pruned
    txids, bytes freed, txids kept)."""
    from numatune.apply.confirm import CONFIRM_DIR, read_marker
    from numatune.apply.lock import RunLock
    with RunLock(root):
        txs = list_transactions(root)
        gone = prunable(txs, keep)
        freed = 0
        for tx in gone:
            freed += _unlink(root.join("%s/%s.jsonl" % (JOURNAL_DIR, tx.txid)))
            marker = read_marker(root, tx.txid)
            if marker is not None and marker.get("state") != "pending":
                _unlink(root.join("%s/%s.json" % (CONFIRM_DIR, tx.txid)))
        if gone:
            fsync_dir(root.join(JOURNAL_DIR), "the journal directory")
    names = {t.txid for t in gone}
    return [t.txid for t in gone], freed, [t.txid for t in txs if t.txid not in names]
