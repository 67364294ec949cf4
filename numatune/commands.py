"""What each CLI command does. Heavy modules are imported inside the
command that needs them, so `numatune --version` and `check` start fast."""
import os
import sys
import textwrap

from numatune import engine
from numatune.report import jsonout
from numatune.errors import UsageError
from numatune.apply.journal import list_transactions, load
from numatune.report.console import (Style, change_counts, clean, facts_text, finding_lines, history_text, plan_text,
                                     revert_summary, unjournaled_line, waiting_lines)
from numatune.report.grouped import ARROW, value
from numatune.root import Root


def _root(args, writes=False):
    """The root to work under. A `numatune snapshot` archive is unpacked into a
    private temporary directory for commands that only read."""
    if os.path.isfile(args.root):
        # Imported only for an archive: snapshot.py loads every family's patterns.
        from numatune import snapshot
    if os.path.isfile(args.root) and snapshot.is_archive(args.root):
        if writes:
            raise UsageError("--root %s is a snapshot archive: %s writes, so it needs a directory" % (args.root,
                                                                                                  args.command),
                             "extract it: mkdir DIR && tar -xzf %s -C DIR, then --root DIR" % args.root)
        return Root(snapshot.unpack(args.root))
    if not os.path.isdir(args.root):
        raise UsageError("--root %s: no such directory" % args.root,
                         "give a directory, or an archive from `numatune snapshot`")
    return Root(args.root)


def _print_json(data):
    sys.stdout.write(jsonout.dumps(data) + "\n")


def _prepare(args):
    """Validate everything given before touching the host."""
    engine.check_areas(args.only)
    engine.check_areas(args.skip)
    root = _root(args, writes=getattr(args, "command", None) in ("apply", "review"))
    policy = engine.load_policy(args.policy, root)
    return root, policy


def cmd_plan(args):
    if args.list_policies:
        from numatune.policy.show import shipped_list
        print(shipped_list())
        return 0
    if args.diff and args.format != "text":
        raise UsageError("--diff is for text output", "the JSON plan carries each file write's editor and args")
    root, policy = _prepare(args)
    plan, _ = engine.make_plan(root, policy, args.only, args.skip)
    if args.out:
        engine.save_plan(plan, args.out)
    if args.format == "json":
        _print_json(plan.to_json())
    else:
        print(plan_text(plan, verbose=args.verbose))
        if args.diff:
            from numatune.report.diff import diff_text
            sys.stdout.write("\n" + diff_text(root, plan.changes, Style()))
    return 0


def _confirm(args, changes):
    if args.yes:
        return True
    if not sys.stdin.isatty():
        raise UsageError("apply needs confirmation and stdin is not a terminal", "review the plan, then pass --yes")
    sys.stdout.write("Apply these %s? [y/N] " % change_counts(len(changes), engine.planned_writes(changes), True))
    sys.stdout.flush()
    return sys.stdin.readline().strip().lower() in ("y", "yes")


def cmd_apply(args):
    from numatune.plan import select_scope
    root, policy = _prepare(args)
    engine.require_write_access(root)
    saved = engine.load_saved_plan(args.plan) if args.plan else None
    if saved is not None and not args.policy and saved.policy:
        from numatune.policy.stack import from_data
        policy = from_data(saved.policy, args.plan)
    plan, _ = engine.make_plan(root, policy, args.only, args.skip)
    changes = engine.saved_changes(saved, plan) if saved is not None else plan.changes
    changes = select_scope(changes, args.live_only, args.persistent_only)
    shown = type(plan)(host=plan.host, changes=changes, findings=plan.findings, compliant=plan.compliant,
                       policy=plan.policy)
    text = args.format == "text"
    if text:
        print(plan_text(shown, verbose=args.verbose))
    if not changes:
        # Nothing to write still means a run: the lock, and no half-done transaction.
        engine.check_ready(root)
        if not text:
            _print_json({"txid": None, "changes": [], "findings": [f.to_json() for f in plan.findings]})
        return 0
    engine.refuse_blocked(plan.findings, changes)
    if not _confirm(args, changes):
        print("nothing applied")
        return 0
    style = Style()

    def on_write(change, op):
        if text:
            print("  %s %s" % (style("live", "wrote"), engine.describe_op(op)))

    from numatune.apply import confirm
    window = confirm.window_for(args, changes, root)
    txid = None
    if window:
        from numatune.apply.journal import new_txid
        txid = new_txid()
        confirm.arm(root, txid, window)
    try:
        txid, ops, findings = engine.apply(root, policy, changes, args.only, args.skip, on_write=on_write,
                                           txid=txid, plan=plan)
    except BaseException:
        if window:
            confirm.settle(root, txid, "rolled back")
        raise
    if not text:
        _print_json({"txid": txid, "changes": [c.to_json() for c in changes],
                     "findings": [f.to_json() for f in findings]})
    else:
        print("")
        # One line, never wrapped: scripts read the txid and "applied and verified" from it.
        print("transaction %s: %s applied and verified." % (txid, change_counts(len(changes), len(ops))))
        unjournaled = unjournaled_line(engine.planned_writes(changes), len(ops))
        if unjournaled:
            print(textwrap.fill(unjournaled, 79))
        for line in waiting_lines(changes, findings):
            print(line)
        for f in findings:
            print("\n".join(finding_lines(f, style)))
        print("undo with: numatune revert %s%s" % (txid, "" if root.is_live else " --root " + args.root))
    status = max([f.exit_status for f in findings] + [0])
    if window:
        return confirm.countdown(root, txid, out=sys.stdout if text else sys.stderr) or status
    return status


def cmd_confirm(args):
    from numatune.apply.confirm import confirm
    root = _root(args, writes=True)
    engine.require_write_access(root)
    marker = confirm(root, args.txid)
    print("transaction %s confirmed: the changes stay." % marker["txid"])
    return 0


def cmd_revert(args):
    root = _root(args, writes=True)
    tx, restored, skipped, failed = engine.revert(root, args.txid, args.last, args.force)
    if args.format == "json":
        _print_json({"txid": tx.txid, "restored": restored, "skipped": skipped, "failed": failed})
    else:
        for line in restored:
            print("  %s" % clean(line))
        for line in skipped:
            print("  LEFT ALONE %s: changed since by someone else" % clean(line))
        for line in failed:
            print("  FAILED %s" % clean(line))
        print(revert_summary(tx, restored, skipped, failed))
        if skipped:
            print("to restore those too: numatune revert %s --force" % tx.txid)
    return 1 if skipped or failed else 0


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
    root = _root(args)
    if args.txid:
        tx = load(root, args.txid)
        if args.format == "json":
            _print_json({"txid": tx.txid, "state": tx.state, "records": tx.records, "problems": tx.problems})
            return 0
        print("transaction %s (%s): %s, %s" % (tx.txid, value(tx.time), tx.state,
                                               change_counts(len(tx.changes), len(tx.ops))))
        for c in tx.changes:
            print(clean("  %-10s %s: %s %s %s" % (c.get("scope"), c.get("target"), value(c.get("current")), ARROW,
                                                     value(c.get("desired")))))
        for line in _failed_undos(tx):
            print(clean(line))
        _print_problems(tx.problems)
        return 0
    txs = list_transactions(root)
    if args.format == "json":
        _print_json([{"txid": t.txid, "time": t.time, "state": t.state, "changes": len(t.changes),
                      "problems": t.problems} for t in txs])
    else:
        print(history_text(txs))
        _print_problems([p for t in txs for p in t.problems])
    return 0


def _print_problems(problems):
    # Host-written bytes: shown escaped, never as terminal control sequences.
    for line in problems:
        print("  BAD JOURNAL LINE %s (skipped; every record around it was read)" % line)


def cmd_facts(args):
    root, policy = _prepare(args)
    facts = engine.gather(root, policy.data, every=True)
    if args.format == "json":
        _print_json(facts)
    else:
        print(facts_text(facts))
    return 0


def cmd_check(args):
    from numatune.report.check import run
    return run(args, _prepare, engine.make_plan)


def cmd_boot(args):
    from numatune.apply import bootfile
    root = _root(args, writes=True)
    engine.require_write_access(root)
    return 1 if bootfile.run(root) else 0


def cmd_snapshot(args):
    from numatune.snapshot import capture
    root = _root(args)
    count = capture(root, args.out)
    print("wrote %s (%d files); plan it offline with: numatune plan --root %s" % (args.out, count, args.out))
    print("(to apply to a copy, extract it first: mkdir DIR && tar -xzf %s -C DIR; then --root DIR)" % args.out)
    return 0


def cmd_review(args):
    try:
        import numatune_tui  # noqa: F401
    except ImportError:
        raise UsageError("the review screen is not installed", "pip install 'numatune[tui]' (or the numatune-tui RPM)")
    try:
        import textual  # noqa: F401
    except ImportError:
        raise UsageError("the review screen needs Textual, which is not installed",
                         "pip install 'numatune[tui]' (or the numatune-tui RPM)")
    # Validated as every command validates; review can apply, so a snapshot archive is refused.
    root, policy = _prepare(args)
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise UsageError("review needs a terminal", "use `numatune plan` (or `--format json`) in scripts")
    return numatune_tui.run(root, policy, args.only, args.skip)


def cmd_policy(args):
    from numatune.policy import show
    if args.verb == "list":
        print(show.shipped_list())
        return 0
    root = _root(args)
    print(show.merged_text(engine.load_policy(args.refs, root)))
    return 0
