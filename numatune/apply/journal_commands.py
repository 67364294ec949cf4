"""The commands that read the journal: confirm, revert (one transaction or
--all) and history (with --prune). The CLI's other commands are in
numatune.commands, which forwards these here."""
import sys

from numatune import engine
from numatune.errors import UsageError
from numatune.report.console import change_counts, clean, history_text, revert_summary
from numatune.report.grouped import ARROW, is_clean, value
from numatune.report import jsonout
from numatune.report.hints import command, context_of
from numatune.rootfs.given import root_given


def cmd_confirm(args):
    from numatune.apply.confirm import confirm
    root = root_given(args, writes=True)
    engine.require_write_access(root)
    marker = confirm(root, args.txid)
    print("transaction %s confirmed: the changes stay." % marker["txid"])
    return 0


def cmd_revert(args):
    if args.all:
        return _revert_all(args)
    if args.yes:
        raise UsageError("--yes is for --all", "a single revert does not ask")
    root = root_given(args, writes=True)
    tx, restored, skipped, failed = engine.revert(root, args.txid, args.last, args.force)
    if args.format == "json":
        jsonout.emit({"txid": tx.txid, "restored": restored, "skipped": skipped, "failed": failed})
    else:
        if restored:
            # One write for a giant host's 35,000 lines, not a print each.
            print(_indented(restored))
        for line in skipped:
            print("  LEFT ALONE %s: changed since by someone else" % clean(line))
        for line in failed:
            print("  FAILED %s" % clean(line))
        print(revert_summary(tx, restored, skipped, failed))
        if skipped:
            print("to restore those too: " + command("revert", tx.txid, "--force", ctx=context_of(args)))
    if skipped or failed:
        return 1
    # Done, but the report of what was restored never reached its reader (stdout full, EIO): 0
    # would say both went well. `main` adds the line saying which stream failed. A reader that
    # closed its pipe (`| head`) took what it wanted: that is no lost report.
    sys.stdout.flush()
    failure = getattr(sys.stdout, "failure", None)
    return REPORT_LOST if failure is not None and not isinstance(failure, BrokenPipeError) else 0


def _indented(lines):
    """``lines`` cleaned, each indented, as one text: one search over them all
    when none holds what ``clean`` escapes (a newline of its own included)."""
    text = "\n".join(lines)
    if text.count("\n") == len(lines) - 1 and is_clean(text.replace("\n", " ")):
        return "  " + text.replace("\n", "\n  ")
    return "\n".join(["  %s" % clean(line) for line in lines])


REPORT_LOST = 4     # revert: the host is restored, the output saying so could not be written


def _revert_all(args):
    """revert --all: the transactions shown newest first, a question (or --yes),
    then each reverted as `revert TXID` reverts it, under its own journal."""
    if args.txid or args.last:
        raise UsageError("--all reverts every transaction: give no TXID and no --last")
    root = root_given(args, writes=True)
    engine.require_write_access(root)
    todo = engine.revert_all_plan(root)
    text = args.format == "text"
    writes = sum(len(t.ops) for t in todo)
    first = todo[-1]
    if text:
        print("revert --all: %d transaction(s), newest first, %s write(s) to restore: the host as before %s (%s)"
              % (len(todo), writes, first.txid, value(first.time)))
        for tx in todo:
            print(clean("  %-30s %-19s %-18s %s" % (tx.txid, value(tx.time)[:19].replace("T", " "), tx.state,
                                                   change_counts(tx.change_count, len(tx.ops)))))
        print("")
    if not args.yes:
        if not sys.stdin.isatty():
            raise UsageError("revert --all needs confirmation and stdin is not a terminal",
                             "read what it undoes above, then pass --yes")
        sys.stdout.write("Revert these %d transaction(s)? [y/N] " % len(todo))
        sys.stdout.flush()
        if sys.stdin.readline().strip().lower() not in ("y", "yes"):
            print("nothing reverted")
            return 0
    results, status = [], 0
    for tx in todo:
        done, restored, skipped, failed = engine.revert(root, tx.txid, force=args.force)
        results.append({"txid": done.txid, "restored": restored, "skipped": skipped, "failed": failed})
        if text:
            for line in skipped:
                print("  LEFT ALONE %s: changed since by someone else" % clean(line))
            for line in failed:
                print("  FAILED %s" % clean(line))
            print(revert_summary(done, restored, skipped, failed))
        if skipped or failed:
            status = 1
    if not text:
        jsonout.emit({"reverted": results})
    elif status:
        print("to restore what was left alone too: " + command("revert", "--all", "--force", "--yes", ctx=context_of(args)))
    return status


def _failed_undos(tx):
    """One line per undo the journal says failed, and whether a later revert did it."""
    reason, out = None, []
    for r in tx.records:
        if r.get("t") == "undo-begin":
            reason = r.get("reason")
        elif r.get("t") == "failed":
            seq = r.get("seq")
            what = r.get("what") or tx.ops.get(seq, {}).get("op", {}).get("path", "?")
            later = "; undone since" if seq in tx.undone else ""
            out.append("  UNDO FAILED (%s) #%s %s: %s%s" % (reason, seq, what, r.get("error"), later))
    return out


def cmd_history(args):
    # The journal's reader here, not at the top: `check` and `plan` never open it (a tenth of check's start).
    from numatune.apply import audit
    from numatune.apply.journal import list_transactions, load
    if args.keep is not None and not args.prune:
        raise UsageError("--keep is for --prune", "numatune history --prune --keep N")
    if args.prune:
        return _prune(args)
    root = root_given(args)

    def audited(tx):
        return dict(audit.of(tx), auto_reverted=audit.auto_reverted(root, tx))
    if args.txid:
        tx = load(root, args.txid)
        said = audited(tx)
        if args.format == "json":
            jsonout.emit(dict({"txid": tx.txid, "state": tx.state, "records": tx.records, "problems": tx.problems},
                             **said))
            return 0
        state = "auto-reverted (no `numatune confirm` before the deadline)" if said["auto_reverted"] else tx.state
        print("transaction %s (%s): %s, %s" % (tx.txid, value(tx.time), state,
                                               change_counts(tx.change_count, len(tx.ops))))
        for label, text in (("user", said["user"]), ("host", said["host"]),
                            ("command", "boot replay (numatune boot)" if said["kind"] == "boot replay"
                             else said["command_line"]),
                            ("policy", "%s (sha256 %s)" % (said["policy"]["name"] or "(unnamed)",
                                                           said["policy"]["sha256"] or "?"))):
            if text:
                print(clean("  %-8s %s" % (label + ":", text)))
        for c in tx.changes:
            print(clean("  %-10s %s: %s %s %s" % (c.get("scope"), c.get("target"), value(c.get("current")), ARROW,
                                                     value(c.get("desired")))))
        for line in _failed_undos(tx):
            print(clean(line))
        _print_problems(tx.problems)
        return 0
    txs = list_transactions(root)
    audits = {t.txid: audited(t) for t in txs}
    if args.format == "json":
        jsonout.emit([dict({"txid": t.txid, "time": t.time, "state": t.state, "changes": t.change_count,
                           "problems": t.problems}, **audits[t.txid]) for t in txs])
    else:
        print(history_text(txs, audits))
        _print_problems([p for t in txs for p in t.problems])
    return 0


def _prune(args):
    from numatune.apply.prune import DEFAULT_KEEP, prune
    if args.txid:
        raise UsageError("--prune takes no TXID", "numatune history --prune --keep N")
    root = root_given(args, writes=True)
    engine.require_write_access(root)
    keep = DEFAULT_KEEP if args.keep is None else args.keep
    pruned, freed, kept = prune(root, keep)
    if args.format == "json":
        jsonout.emit({"pruned": pruned, "bytes_freed": freed, "kept": kept})
    else:
        print("pruned %s transaction(s) (reverted, rolled back or set aside, older than the %s newest), %s KiB "
              "freed; %s kept" % (len(pruned), keep, (freed + 1023) // 1024, len(kept)))
    return 0


def _print_problems(problems):
    # Host-written bytes: shown escaped, never as terminal control sequences.
    for line in problems:
        print("  BAD JOURNAL LINE %s (skipped; every record around it was read)" % line)
