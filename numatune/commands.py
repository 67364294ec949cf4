"""What each CLI command does. Heavy modules are imported inside the
command that needs them, so `numatune --version` and `check` start fast."""
import os
import shlex
import sys
import textwrap

from numatune import engine
from numatune.report import jsonout
from numatune.errors import ApplyError, NumatuneError, UsageError
from numatune.report.console import (Style, change_counts, clean, facts_text, finding_lines, header_lines,
                                     history_text, plan_text,
                                     revert_summary, unjournaled_line, waiting_lines)
from numatune.report.grouped import ARROW, value
from numatune.report.hints import carry, command, context
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


def _ctx(args):
    """What a command this run suggests repeats: its --root and --policy as given."""
    return context(args.root, getattr(args, "policy", ()))


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
    # Like `git diff --exit-code`: 1 when there is something to change.
    return 1 if getattr(args, "exit_code", False) and plan.changes else 0


def _confirm(args, changes):
    if args.yes:
        return True
    if not sys.stdin.isatty():
        raise UsageError("apply needs confirmation and stdin is not a terminal", "review the plan, then pass --yes")
    sys.stdout.write("Apply these %s? [y/N] " % change_counts(len(changes), engine.planned_writes(changes), True))
    sys.stdout.flush()
    return sys.stdin.readline().strip().lower() in ("y", "yes")


def cmd_apply(args):
    # Ctrl-C anywhere: one line saying what the journal says the host is in, never a traceback.
    run = {"root": None, "txid": None, "status": 0, "window": 0}
    try:
        return _apply(args, run)
    except KeyboardInterrupt:
        return _interrupted(args, run)
    except ApplyError as e:
        if isinstance(e.__cause__, KeyboardInterrupt):
            return _interrupted(args, run)
        raise


def _apply(args, run):
    from numatune.plan import select_scope
    root, policy = _prepare(args)
    run["root"] = root
    engine.require_write_access(root)
    saved = engine.load_saved_plan(args.plan) if args.plan else None
    if saved is not None and not args.policy and saved.policy:
        from numatune.policy.stack import from_data
        policy = from_data(saved.policy, args.plan)
    plan, _ = engine.make_plan(root, policy, args.only, args.skip)
    changes = engine.saved_for_here(saved, plan) if saved is not None else plan.changes
    changes = select_scope(changes, args.live_only, args.persistent_only)
    shown = type(plan)(host=plan.host, changes=changes, findings=plan.findings, compliant=plan.compliant,
                       policy=plan.policy)
    text = args.format == "text"
    # The plan in full when someone is asked to answer it (or with -v); with --yes it was read before, with
    # `numatune plan`, and the result below says what was written, folded per rule.
    brief = text and args.yes and not args.verbose
    if text:
        print(plan_text(shown, verbose=args.verbose, header=True) if not brief else
              "\n".join(header_lines(shown, Style())).rstrip("\n"))
    if not changes:
        # Nothing to write still means a run: the lock, and no half-done transaction.
        engine.check_ready(root)
        if not text:
            _print_json({"txid": None, "changes": [], "findings": [f.to_json() for f in plan.findings]})
        return 0 if args.live_only or args.persistent_only else _unmet_status(plan.findings, policy.data)
    engine.refuse_blocked(plan.findings, changes)
    if not _confirm(args, changes):
        print("nothing applied")
        return 0
    # Someone read the plan and answered: under the lock the host must still be as shown (another run may
    # have finished meanwhile). --yes applies what it planned a moment ago, as before.
    recheck = None if args.yes else "run `numatune apply` again to see what is left to change"
    style = Style()

    written = []

    def on_write(change, op):
        written.append((change, op))
        if text and args.verbose:
            print("  %s %s" % (style("live", "wrote"), engine.describe_op(op)))

    from numatune.apply import confirm
    from numatune.apply.journal import new_txid
    window = run["window"] = confirm.window_for(args, changes, root)
    # Known before the journal has it: an interrupt asks the journal what became of it.
    txid = run["txid"] = new_txid()
    if window:
        confirm.arm(root, txid, window)
    kept = []
    try:
        txid, ops, findings = engine.apply(root, policy, changes, args.only, args.skip, on_write=on_write,
                                           txid=txid, plan=plan, recheck=recheck, compliant=kept)
    except BaseException:
        if window and _journal_state(root, txid) != "applied":
            confirm.settle(root, txid, "rolled back")
        raise
    status = run["status"] = max([f.exit_status for f in findings] + [0])
    if not text:
        _print_json({"txid": txid, "changes": [c.to_json() for c in changes],
                     "findings": [f.to_json() for f in findings]})
    else:
        _applied_text(args, txid, changes, ops, findings, written, kept, style)
    # --live-only / --persistent-only leave the other half of the policy undone on purpose: not a failure;
    # --only/--skip and a saved plan answer for their own areas only.
    if not (args.live_only or args.persistent_only):
        if args.only or args.skip or args.plan:
            findings = [f for f in findings if f.area in {c.area for c in changes}]
        status = run["status"] = max(status, _unmet_status(findings, policy.data))
    if window:
        return confirm.countdown(root, txid, out=sys.stdout if text else sys.stderr, ctx=_ctx(args)) or status
    return status


def _applied_text(args, txid, changes, ops, findings, written, kept, style):
    """apply's result: the writes folded per rule (each with -v, as made), the
    findings after the run, the undo command, what survives a reboot and the next step."""
    from numatune.report import applied
    if not args.verbose:
        print("")
        print(style("bold", "wrote (folded per rule; -v lists each write):"))
        for line in applied.write_lines(written):
            print(line)
    print("")
    # One line, never wrapped: scripts read the txid and "applied and verified" from it.
    print("transaction %s: %s applied and verified." % (txid, change_counts(len(changes), len(ops))))
    unjournaled = unjournaled_line(engine.planned_writes(changes), engine.carried_writes(ops), len(ops))
    if unjournaled:
        print(textwrap.fill(unjournaled, 79))
    if args.verbose:
        for line in waiting_lines(changes, findings):
            print(line)
    for f in findings:
        if args.verbose:
            print("\n".join(finding_lines(f, style)))
        elif not f.pending:
            # The reboot a pending finding waits for is in the table; the hints are the plan's.
            print("\n".join(finding_lines(type(f)(**dict(f.to_json(), why="")), style)))
    print("undo with: " + command("revert", txid, ctx=_ctx(args)))
    print("")
    print(style("bold", "what survives a reboot:"))
    for line in applied.table_lines(applied.survival(changes, kept, findings), live_only=args.live_only):
        print(line)
    step = applied.next_step(changes, findings)
    print("next: " + step.replace("numatune check", command("check", ctx=_ctx(args))))


def _journal_state(root, txid):
    """What the journal says of ``txid``: its state, or None when it never began."""
    from numatune.apply.journal import load
    try:
        return load(root, txid).state
    except NumatuneError:
        return None


def _interrupted(args, run):
    """Ctrl-C in apply: the host's state from the journal, and the exit status it means."""
    root, txid = run["root"], run["txid"]
    state = _journal_state(root, txid) if root is not None and txid else None
    ctx = _ctx(args)
    if state is None:
        line, status = "interrupted: nothing changed", 130
    elif state == "rolled back":
        line, status = "interrupted: transaction %s was rolled back, nothing changed" % txid, 130
    elif state == "applied":
        line, status = "interrupted after transaction %s was applied and verified (undo with: %s)" % (
            txid, command("revert", txid, ctx=ctx)), run["status"]
        if run["window"]:
            line += "; it is reverted at the deadline unless you run: " + command("confirm", txid, ctx=ctx)
    else:
        line, status = "interrupted: transaction %s is %s (see `numatune history %s`, then `numatune revert %s`)" % (
            txid, state, txid, txid), 1
    sys.stderr.write("numatune: %s\n" % carry(line, ctx))
    return status


def _unmet_status(findings, data):
    """1 with one line on stderr when a critical finding under the policy's rules still stands after the run."""
    line = engine.unmet_line(findings, set(data))
    if line is None:
        return 0
    sys.stderr.write(line + "\n")
    return 1


def cmd_confirm(args):
    from numatune.apply.confirm import confirm
    root = _root(args, writes=True)
    engine.require_write_access(root)
    marker = confirm(root, args.txid)
    print("transaction %s confirmed: the changes stay." % marker["txid"])
    return 0


def cmd_revert(args):
    if args.all:
        return _revert_all(args)
    if args.yes:
        raise UsageError("--yes is for --all", "a single revert does not ask")
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
            print("to restore those too: " + command("revert", tx.txid, "--force", ctx=_ctx(args)))
    if skipped or failed:
        return 1
    # Done, but the report of what was restored never reached its reader (stdout full, EIO): 0
    # would say both went well. `main` adds the line saying which stream failed. A reader that
    # closed its pipe (`| head`) took what it wanted: that is no lost report.
    sys.stdout.flush()
    failure = getattr(sys.stdout, "failure", None)
    return REPORT_LOST if failure is not None and not isinstance(failure, BrokenPipeError) else 0


REPORT_LOST = 4     # revert: the host is restored, the output saying so could not be written


def _revert_all(args):
    """revert --all: the transactions shown newest first, a question (or --yes),
    then each reverted as `revert TXID` reverts it, under its own journal."""
    if args.txid or args.last:
        raise UsageError("--all reverts every transaction: give no TXID and no --last")
    root = _root(args, writes=True)
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
                                                   change_counts(len(tx.changes), len(tx.ops)))))
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
        _print_json({"reverted": results})
    elif status:
        print("to restore what was left alone too: " + command("revert", "--all", "--force", "--yes", ctx=_ctx(args)))
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
    root = _root(args)

    def audited(tx):
        return dict(audit.of(tx), auto_reverted=audit.auto_reverted(root, tx))
    if args.txid:
        tx = load(root, args.txid)
        said = audited(tx)
        if args.format == "json":
            _print_json(dict({"txid": tx.txid, "state": tx.state, "records": tx.records, "problems": tx.problems},
                             **said))
            return 0
        state = "auto-reverted (no `numatune confirm` before the deadline)" if said["auto_reverted"] else tx.state
        print("transaction %s (%s): %s, %s" % (tx.txid, value(tx.time), state,
                                               change_counts(len(tx.changes), len(tx.ops))))
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
        _print_json([dict({"txid": t.txid, "time": t.time, "state": t.state, "changes": len(t.changes),
                           "problems": t.problems}, **audits[t.txid]) for t in txs])
    else:
        print(history_text(txs, audits))
        _print_problems([p for t in txs for p in t.problems])
    return 0


def _prune(args):
    from numatune.apply.prune import DEFAULT_KEEP, prune
    if args.txid:
        raise UsageError("--prune takes no TXID", "numatune history --prune --keep N")
    root = _root(args, writes=True)
    engine.require_write_access(root)
    keep = DEFAULT_KEEP if args.keep is None else args.keep
    pruned, freed, kept = prune(root, keep)
    if args.format == "json":
        _print_json({"pruned": pruned, "bytes_freed": freed, "kept": kept})
    else:
        print("pruned %s transaction(s) (reverted, rolled back or set aside, older than the %s newest), %s KiB "
              "freed; %s kept" % (len(pruned), keep, (freed + 1023) // 1024, len(kept)))
    return 0


def _print_problems(problems):
    # Host-written bytes: shown escaped, never as terminal control sequences.
    for line in problems:
        print("  BAD JOURNAL LINE %s (skipped; every record around it was read)" % line)


def cmd_facts(args):
    if args.format == "policy":
        from numatune.policy.from_host import host_policy, toml_text
        if args.policy or args.only or args.skip:
            raise UsageError("--format policy describes the whole host: it takes no --policy, --only or --skip")
        root = _root(args)
        data, facts = host_policy(root)
        sys.stdout.write(toml_text(data, facts["host"].get("hostname") or args.root))
        return 0
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
    from numatune.apply import bootfile, replay
    root = _root(args, writes=True)
    engine.require_write_access(root)
    # The fixed values first (HugePages per node before memory fragments), then the live settings planned anew.
    failed = bootfile.run(root)
    failed += replay.run(root)
    return 1 if failed else 0


def cmd_snapshot(args):
    from numatune.snapshot import capture
    root = _root(args)
    count = capture(root, args.out)
    out = shlex.quote(args.out)
    print("wrote %s (%d files); plan it offline with: %s" % (args.out, count, command("plan", "--root", args.out)))
    print("(to apply to a copy, extract it first: mkdir DIR && tar -xzf %s -C DIR; then --root DIR)" % out)
    return 0


def cmd_recommend(args):
    from numatune.recommend.build import build
    from numatune.recommend.document import to_json
    from numatune.recommend import output
    root = _root(args)
    if args.out:
        output.check(args.out)
    rec = build(root)
    for problem in rec.problems:
        sys.stderr.write("numatune: %s\n" % problem)
    text = jsonout.dumps(to_json(rec)) + "\n" if args.format == "json" else rec.text()
    if args.out:
        output.write(args.out, text)
        print("wrote %s; plan it with: numatune plan --policy %s%s" % (
            args.out, args.out, "" if root.is_live else " --root " + args.root))
    else:
        sys.stdout.write(text)
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
    if not getattr(args, "recommend", False):
        root, policy = _prepare(args)
        if not (sys.stdin.isatty() and sys.stdout.isatty()):
            raise UsageError("review needs a terminal", "use `numatune plan` (or `--format json`) in scripts")
        return numatune_tui.run(root, policy, args.only, args.skip)
    return _review_recommended(args, numatune_tui)


def _review_recommended(args, numatune_tui):
    """review --recommend: the plan of the policy `recommend` writes for this
    host (after any --policy given), shown before the DBA saves it."""
    import tempfile
    from numatune.recommend.build import build
    engine.check_areas(args.only)
    engine.check_areas(args.skip)
    root = _root(args, writes=True)
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise UsageError("review needs a terminal", "use `numatune recommend --out FILE` and `numatune plan "
                                                    "--policy FILE` in scripts")
    with tempfile.TemporaryDirectory(prefix="numatune-recommend-") as tmp:
        path = os.path.join(tmp, "recommended.toml")
        with open(path, "w", encoding="utf-8") as f:
            f.write(build(root).text())
        policy = engine.load_policy(list(args.policy) + [path], root)
        status = numatune_tui.run(root, policy, args.only, args.skip)
    print("to keep the recommended policy: numatune recommend%s --out /etc/numatune/policy.toml"
          % ("" if root.is_live else " --root " + args.root))
    return status


def cmd_policy(args):
    from numatune.policy import show
    if args.verb == "list":
        print(show.shipped_list())
        return 0
    root = _root(args)
    print(show.merged_text(engine.load_policy(args.refs + args.policy, root)))
    return 0
