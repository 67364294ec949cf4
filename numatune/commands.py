"""What each CLI command does. Heavy modules are imported inside the
command that needs them, so `numatune --version` and `check` start fast."""
import os
import sys
import textwrap

from numatune import engine
from numatune.errors import ApplyError, NumatuneError, UsageError
from numatune.report.console import (Style, change_counts, facts_text, finding_lines, header_lines, plan_text,
                                     unjournaled_line, waiting_lines)
from numatune.report.hints import carry, command, context_of
from numatune.rootfs.given import root_given


def _jsonout():
    # Loaded by the JSON outputs only: a text `check` or `plan` starts without the json package.
    from numatune.report import jsonout
    return jsonout


def _prepare(args):
    """Validate everything given before touching the host."""
    engine.check_areas(args.only)
    engine.check_areas(args.skip)
    root = root_given(args, writes=getattr(args, "command", None) in ("apply", "review"))
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
        from numatune.report.changejson import encoded_changes
        _jsonout().emit(plan.to_json(encoded_changes))
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
    plan, facts = engine.make_plan(root, policy, args.only, args.skip)
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
            _jsonout().emit({"txid": None, "changes": [], "findings": [f.to_json() for f in plan.findings]})
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
                                           txid=txid, plan=plan, recheck=recheck, compliant=kept,
                                           facts=facts)
    except BaseException:
        if window and _journal_state(root, txid) != "applied":
            confirm.settle(root, txid, "rolled back")
        raise
    status = run["status"] = max([f.exit_status for f in findings] + [0])
    if not text:
        _jsonout().emit({"txid": txid, "changes": [c.to_json() for c in changes],
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
        return confirm.countdown(root, txid, out=sys.stdout if text else sys.stderr, ctx=context_of(args)) or status
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
    print("undo with: " + command("revert", txid, ctx=context_of(args)))
    print("")
    print(style("bold", "what survives a reboot:"))
    for line in applied.table_lines(applied.survival(changes, kept, findings), live_only=args.live_only):
        print(line)
    step = applied.next_step(changes, findings)
    print("next: " + step.replace("numatune check", command("check", ctx=context_of(args))))


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
    ctx = context_of(args)
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


# confirm, revert and history read the journal: their code lives beside it (numatune.apply.journal_commands),
# imported only when one of them runs.
def cmd_confirm(args):
    from numatune.apply import journal_commands
    return journal_commands.cmd_confirm(args)


def cmd_revert(args):
    from numatune.apply import journal_commands
    return journal_commands.cmd_revert(args)


def cmd_history(args):
    from numatune.apply import journal_commands
    return journal_commands.cmd_history(args)


def cmd_facts(args):
    if args.format == "policy":
        from numatune.policy.from_host import host_policy, toml_text
        if args.policy or args.only or args.skip:
            raise UsageError("--format policy describes the whole host: it takes no --policy, --only or --skip")
        root = root_given(args)
        data, facts = host_policy(root)
        sys.stdout.write(toml_text(data, facts["host"].get("hostname") or args.root))
        return 0
    root, policy = _prepare(args)
    facts = engine.gather(root, policy.data, every=True)
    if args.format == "json":
        _jsonout().emit(facts)
    else:
        print(facts_text(facts))
    return 0


def cmd_check(args):
    from numatune.report.check import run
    return run(args, _prepare, engine.make_plan)


def cmd_boot(args):
    from numatune.apply import bootfile, replay
    root = root_given(args, writes=True)
    engine.require_write_access(root)
    # The fixed values first (HugePages per node before memory fragments), then the live settings planned anew.
    failed = bootfile.run(root)
    failed += replay.run(root)
    return 1 if failed else 0


def cmd_snapshot(args):
    from numatune.snapshot import capture
    root = root_given(args)
    count = capture(root, args.out)
    import shlex
    out = shlex.quote(args.out)
    print("wrote %s (%d files); plan it offline with: %s" % (args.out, count, command("plan", "--root", args.out)))
    print("(to apply to a copy, extract it first: mkdir DIR && tar -xzf %s -C DIR; then --root DIR)" % out)
    return 0


def cmd_recommend(args):
    from numatune.recommend.build import build
    from numatune.recommend.document import to_json
    from numatune.recommend import output
    root = root_given(args)
    if args.out:
        output.check(args.out)
    rec = build(root)
    for problem in rec.problems:
        sys.stderr.write("numatune: %s\n" % problem)
    text = _jsonout().dumps(to_json(rec)) + "\n" if args.format == "json" else rec.text()
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
    root = root_given(args, writes=True)
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
    root = root_given(args)
    print(show.merged_text(engine.load_policy(args.refs + args.policy, root)))
    return 0
