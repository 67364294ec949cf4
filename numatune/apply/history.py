"""The journal's transactions as the front ends (the CLI, the review
screen) use them: which one a revert is about, its revert under the run
lock, the list, and one line for each write it journaled.

Reached through numatune.engine, which loads this module only when one of
these is asked for: plan and check never read the journal's code."""
import re

from numatune.errors import NumatuneError, RefusedError, UsageError
from numatune.rootfs.given import require_write_access


FINAL_STATES = ("reverted", "rolled back", "set aside")


def pick_transaction(root, txid=None, last=False):
    """The transaction a revert is about: ``txid``, or the newest one not yet undone."""
    from numatune.apply.journal import list_transactions, load
    if txid and last:
        raise UsageError("give a TXID or --last, not both")
    if txid:
        from numatune.apply.journal_index import changes_of
        return load(root, txid, changes_of(root, txid) if re.match(r"^[0-9T-]+$", txid) else None)
    if not last:
        raise UsageError("which transaction?", "give a TXID from `numatune history`, or --last")
    # The journal index names it (#38); what is restored comes from its journal, read in full.
    from numatune.apply.journal_index import summaries
    candidates = [t for t in summaries(root) if t.state not in FINAL_STATES]
    tx = load(root, candidates[-1].txid, candidates[-1].changes) if candidates else None
    if tx is not None and tx.state in FINAL_STATES:
        candidates = [t for t in list_transactions(root) if t.state not in FINAL_STATES]  # the index was wrong
        tx = candidates[-1] if candidates else None
    if tx is None:
        raise UsageError("nothing to revert: every transaction is already reverted or rolled back")
    return tx


def revert_all_plan(root):
    """The transactions `revert --all` undoes, newest first: every one not
    yet reverted, rolled back or set aside (the applied ones, an interrupted
    one to finish). Undone in that order, each restores the "before" its
    writes journaled, so the last leaves the host as before the first."""
    from numatune.apply.journal import list_transactions
    todo = [t for t in list_transactions(root) if t.state not in FINAL_STATES]
    if not todo:
        raise UsageError("nothing to revert: every transaction is already reverted or rolled back",
                         "see `numatune history`")
    return sorted(todo, key=lambda t: t.txid, reverse=True)


def revert(root, txid=None, last=False, force=False):
    """Revert one transaction under the run lock. Returns (transaction,
    restored, left alone, failed); a journal line that could not be read
    counts as failed: what it announced cannot be undone by numatune."""
    from numatune.apply.lock import RunLock
    from numatune.apply.revert import revert as undo
    require_write_access(root)
    with RunLock(root):
        tx = pick_transaction(root, txid, last)
        if tx.state in FINAL_STATES and not force:
            raise UsageError("transaction %s is already %s" % (tx.txid, tx.state))
        from numatune.apply.journal import blocking
        if tx.damaged:
            return _set_aside(root, tx, force)
        refused = blocking(tx.problems)
        if refused and not force:
            # A journal that fails its integrity check could restore wrong bytes: nothing is restored.
            raise RefusedError("journal of %s fails its integrity check, nothing restored: %s%s"
                               % (tx.txid, refused[0], " (and %d more)" % (len(refused) - 1) if refused[1:] else ""),
                               "see `numatune history %s`; `numatune revert %s --force` restores what its intact "
                               "records say" % (tx.txid, tx.txid))
        try:
            restored, skipped, failed = undo(root, tx, force=force)
        finally:
            root.forget()   # directories kept open by the restores' reads
    unknown = ["%s: a write it announced (if any) cannot be undone by numatune; check it by hand" % p
               for p in tx.problems]
    return tx, restored, skipped, failed + unknown


def _set_aside(root, tx, force):
    """A journal with no record numatune can use (empty, or every line lost):
    nothing can be restored from it, and whether its run changed anything
    cannot be known. Refused without --force; with it, the journal gets an
    undo pass that restores nothing, so the transaction no longer blocks
    apply, and the revert exits 1 (less than the transaction may be restored)."""
    from numatune.apply.journal import Journal
    from numatune.apply.revert import set_aside
    what = tx.problems[0] if tx.problems else "%s: no usable record" % tx.txid
    if not force:
        raise RefusedError("journal of %s is damaged, nothing restored: %s" % (tx.txid, what),
                           "numatune cannot know what it changed: check the host against your policy "
                           "(`numatune plan`) and restore by hand what needs it, then "
                           "`numatune revert %s --force` sets it aside" % tx.txid)
    failed = set_aside(root, tx)
    return tx, [], [], failed + ["%s: what this transaction changed (if anything) cannot be undone by numatune; "
                                 "check the host by hand" % what]


def transactions(root):
    """Every transaction in the journal, oldest first."""
    from numatune.apply.journal import list_transactions
    return list_transactions(root)


def journal_dir():
    from numatune.apply.journal import JOURNAL_DIR
    return JOURNAL_DIR


def describe_op(op):
    """One line for a journaled write; never fails (a write kind this
    version does not know is named by the journal's own fields)."""
    from numatune.apply.transaction import _describe
    return _describe(op)


def describe_undo(op):
    """One line for an undone write, in the undo direction."""
    from numatune.apply.transaction import describe_undo as undo_text
    return undo_text(op)


def undo_report(root, txid):
    """What the journal of ``txid`` says: (the transaction's state, [(what
    happened to a write, its description)] newest first), what happened being
    "undone", "left alone" or "pending". None when the run stopped before its
    journal was opened."""
    from numatune.apply.journal import load
    try:
        tx = load(root, txid)
    except NumatuneError:
        return None
    out = []
    for seq in sorted(tx.ops, reverse=True):
        op = tx.ops[seq]["op"]
        if seq in tx.undone:
            out.append(("undone", describe_undo(op)))
        else:
            out.append(("left alone" if seq in tx.skipped else "pending", describe_op(op)))
    return tx.state, out


def new_txid():
    """A transaction id chosen before the run, so a failure can be read back from its journal."""
    from numatune.apply.journal import new_txid as make
    return make()
