"""The one-way flow, end to end: policy -> facts -> plan -> apply -> verify.

The CLI, the TUI and the Ansible module all go through here.
"""
import os

from numatune import plan as plan_mod
from numatune.errors import DriftError, HostError, NumatuneError, RefusedError, UsageError
from numatune.facts import kernel, once, procs, topology
from numatune.families.registry import FAMILIES, for_host, selectors
from numatune.model import Plan, after_apply, refusals
from numatune.resolve import resolve
from numatune.rootfs.given import require_write_access
from numatune.rootfs.readfile import read_path


def check_areas(names):
    """Each --only/--skip name is an area a rule carries or a family's name."""
    known = selectors()
    for name in names or ():
        if name not in known:
            import difflib
            close = difflib.get_close_matches(name, known, 1)
            raise UsageError("unknown area %r" % name,
                             "did you mean %r?" % close[0] if close else "areas: %s" % ", ".join(known))


def load_policy(refs, root):
    # The policy code here, not at import: revert, history and confirm read no policy (tomllib, typing).
    from numatune.policy import stack as policy_mod
    return policy_mod.load(refs, root)


def gather(root, data, every=False, families=None, reread=None):
    """Everything the plan needs: host, topology, the facts of each family
    the policy selects (``every``: all of them, whole (Family.read_whole), for `numatune facts`;
    ``families``: only these, for verify after apply), and the values resolved from them.
    ``reread``: {family name: fn(root) -> its facts, or None to read them whole}
    (verify: a family's facts read again from the plan's, see Family.reread)."""
    procs.forget(root)
    once.forget(root)
    root.forget()       # directories kept open by the last reads: a host's devices come and go
    facts = {"root": root.path}
    if families is None:
        families = FAMILIES if every else for_host(data, root)
    # Resolve, plan and after-apply run exactly the families read here.
    facts["families"] = [f.name for f in families]
    # ``reread`` may hold the topology's too (verify: what no write changed, from the plan's).
    again = (reread or {}).get("topology")
    readers = [("host", kernel.read), ("topology", topology.read if again is None else
                                       lambda r: again(r) or topology.read(r))]
    readers += [(family.name, _reader(family, data, (reread or {}).get(family.name), every)) for family in families]
    for name, read in readers:
        try:
            facts[name] = read(root)
        except NumatuneError:
            raise
        except (ValueError, RecursionError) as e:
            # Fact readers parse host files only: a value that is not what the
            # kernel writes ends the run with one line, not a traceback.
            raise HostError("cannot read the host's %s facts: %s" % (name, str(e)[:200]),
                            "a host file is not in the kernel's format; nothing was changed")
    root.forget()       # the directories kept open for these reads: closed, not held by a long-lived Root
    return resolve(data, facts)


def _reader(family, data, again, whole=False):
    if again is None:
        # ``whole``: `numatune facts` and what shows the facts read what only they show too.
        read = (family.read_whole or family.read) if whole else family.read
        return lambda r: read(r, data)

    def read(r):
        got = again(r)
        return family.read(r, data) if got is None else got
    return read


def make_plan(root, policy, only=None, skip=None, strict=True):
    """The plan and the facts. ``strict``: an --only name that selects no rule
    of the policy is a UsageError (a check of nothing must never read OK)."""
    facts = gather(root, policy.data)
    plan = plan_mod.build(policy.data, facts, only, skip)
    if strict and plan.unselected:
        raise UsageError("--only %s selects nothing: the policy has no rule there on this host"
                         % ", ".join(plan.unselected),
                         "areas and families: %s" % ", ".join(selectors()))
    return plan, facts


MAX_PLAN_BYTES = 256 << 20  # a giant host's plan is tens of MiB; /dev/zero is endless


def load_saved_plan(path):
    try:
        raw = read_path(path, MAX_PLAN_BYTES)
    except HostError as e:
        raise UsageError(e.message, "give a plan saved with `numatune plan --out FILE`")
    except FileNotFoundError:
        raise UsageError("%s: no such plan file" % path, "save one with `numatune plan --out FILE`")
    except OSError as e:
        raise UsageError("%s: cannot read the plan: %s" % (path, e.strerror or e))
    if len(raw) > MAX_PLAN_BYTES:
        raise UsageError("%s: not a numatune plan (larger than %d MiB)" % (path, MAX_PLAN_BYTES >> 20))
    import json     # here: plan and check read no saved plan, and start without the JSON decoder
    try:
        return Plan.from_json(json.loads(raw.decode("utf-8")))
    except RecursionError:
        raise UsageError("%s: not a numatune plan (nested too deeply)" % path)
    except (ValueError, KeyError, TypeError, AttributeError) as e:
        raise UsageError("%s: not a numatune plan (%s)" % (path, str(e)[:200]))


def saved_changes(saved, fresh, since="the plan was saved", hint="make a new plan with `numatune plan --out FILE`"):
    """The fresh changes matching a saved plan, or DriftError."""
    from numatune.report.grouped import ARROW, elide, value
    by_id = {c.id: c for c in fresh.changes}
    out = []
    for old in saved.changes:
        new = by_id.get(old.id)
        if new is None or new.key() != old.key():
            # The plan's own words for values ("(unset)" for an absent one), not Python's None.
            def was(change):
                return "%s %s %s" % (elide(value(change.current), 40), ARROW, elide(value(change.desired), 40))
            now = "no longer needed" if new is None else "now " + was(new)
            raise DriftError("the host drifted since %s: %s was %s, %s" % (since, old.id, was(old), now), hint)
        out.append(new)
    return out


def _where(host):
    """``host:root`` as scp names a place; the root alone for a capture with no hostname."""
    name, root = host.get("hostname") or "", host.get("root") or "?"
    return "%s:%s" % (name, root) if name else root


def saved_for_here(saved, fresh):
    """The saved plan's changes as they are on this host now; a plan made for
    another host is refused as such (DriftError, exit 2), not as a drift of
    this one. A plan made on a copy of this host (another root, the same
    hostname: a snapshot planned offline) applies while the host still matches it."""
    made, here = saved.host or {}, fresh.host or {}
    hint = "make a plan on this host: `numatune plan --out FILE`"
    other = "this plan was made for %s, not for %s" % (_where(made), _where(here))
    if made.get("hostname") and here.get("hostname") and made["hostname"] != here["hostname"]:
        raise DriftError(other, hint)
    try:
        return saved_changes(saved, fresh)
    except DriftError:
        if not (made.get("hostname") and here.get("hostname")) and made.get("root") != here.get("root"):
            raise DriftError(other, hint) from None
        raise


def refuse_blocked(findings, changes):
    """RefusedError (exit 2) when a finding of the plan refuses one of the
    changes about to be written: nothing is written at all."""
    blocked = refusals(findings, changes)
    if blocked:
        finding, ids = blocked[0]
        more = " (and %d more refusal(s))" % (len(blocked) - 1) if len(blocked) > 1 else ""
        raise RefusedError("refused, nothing written: %s%s" % (finding.message, more),
                           "%s; or leave out %s" % (finding.why or "fix what the finding says", ", ".join(ids)))


def check_ready(root):
    """What every apply does first, even one with nothing to change: take
    the lock (another run refuses it) and refuse while a transaction is
    half done."""
    from numatune.apply.lock import RunLock
    from numatune.apply.transaction import refuse_if_interrupted
    require_write_access(root)
    with RunLock(root):
        refuse_if_interrupted(root)


def apply(root, policy, changes, only=None, skip=None, command="apply", on_write=None, txid=None, plan=None,
          recheck=None, compliant=None, facts=None):
    """Apply ``changes`` (from a fresh plan) under the lock and journal.

    ``plan``: the plan they come from (planned again when not given), whose
    findings may refuse the run. ``recheck``: the changes are what a person
    was shown and answered; under the lock the host is planned again and
    must still match them (DriftError otherwise, as a saved plan is refused:
    another run may have finished while they read). ``recheck`` is the hint
    of that refusal. ``facts``: the plan's (what verify need not read again).
    Returns (txid, ops, findings after apply)."""
    require_write_access(root)
    if plan is None:
        plan, facts = make_plan(root, policy, only, skip)
    refuse_blocked(plan.findings, changes)
    after, planned_on = {}, [facts]
    written = []    # (change, op) as each write is made, oldest first: what verify reads back

    def wrote(change, op):
        # A merged file op comes once per change it carries: verify reads them all, the user sees one write.
        if on_write is not None and not (written and written[-1][1] is op):
            on_write(change, op)
        written.append((change, op))

    def verify():
        # Read back what was written, not the whole host (issue #29): a re-plan is `check`'s work.
        from numatune.apply.verify import verify_writes
        again = []
        problems, after["findings"] = verify_writes(root, policy, plan.findings, written, gather, only, skip,
                                                    compliant=again, facts=planned_on[0])
        after["compliant"] = again
        return problems

    # Imported here: plan and check never write, and start faster without the journal's code.
    from numatune.apply.lock import RunLock
    from numatune.apply.transaction import apply_changes, refuse_if_interrupted
    with RunLock(root):
        refuse_if_interrupted(root)
        if recheck is not None:
            fresh, planned_on[0] = make_plan(root, policy, only, skip)
            changes = saved_changes(Plan(host=fresh.host, changes=list(changes)), fresh,
                                    since="the plan was shown", hint=recheck)
            refuse_blocked(fresh.findings, changes)
            plan = fresh
        try:
            txid, ops = apply_changes(root, changes, command=command, policy=policy.data, txid=txid,
                                      verify=verify, on_write=wrote)
        finally:
            root.forget()   # directories kept open by captures and read-backs
    if compliant is not None:
        changed = {c.family for c, _ in written}
        compliant.extend([c for c in plan.compliant if c.family not in changed] + after.get("compliant", []))
    # The findings of the families that changed something, planned again after the writes; the others' as planned.
    return txid, ops, after_apply(after.get("findings", list(plan.findings)), changes)


# What every front end (the CLI, the review screen) asks of a plan, a
# transaction or a write: computed here once, so the screens only show it.

def unmet(findings, tables=None):
    """Critical findings that still stand: what apply could not make true (a
    cpuset naming CPUs the host lacks, a misspelt sysctl key). A finding that
    waits for a reboot or a restart is not one: that fix is made, and pending.
    ``tables``: the policy's top-level tables; a finding whose rule names
    none of them (numa=off, rule kernel.cmdline.absent, seen by a policy with
    no [kernel]) is the host's: reported, but not the policy unmet. A rule
    names a table anywhere in its path (oracle.hugepages answers [hugepages])."""
    pending = {f.rule for f in findings if f.pending and f.rule}
    return [f for f in findings if f.severity == "critical" and not f.pending and f.rule not in pending
            and (tables is None or not f.rule or set(f.rule.split(".")) & set(tables))]


def unmet_line(findings, tables=None):
    """One line naming what is not met, or None."""
    left = unmet(findings, tables)
    if not left:
        return None
    return "numatune: the policy is not met: %s" % "; ".join("%s (%s)" % (f.id, f.message) for f in left)


# Revert, history and the words for journaled writes: numatune.apply.history,
# loaded only when asked for (plan and check start without the journal's code).
HISTORY = ("FINAL_STATES", "pick_transaction", "revert_all_plan", "revert", "transactions", "journal_dir",
           "describe_op", "describe_undo", "undo_report", "new_txid")


def __getattr__(name):
    if name not in HISTORY:
        raise AttributeError("module 'numatune.engine' has no attribute %r" % name)
    from numatune.apply import history
    return getattr(history, name)


def apply_reviewed(root, policy, reviewed, only=None, skip=None, command="review", on_write=None, txid=None):
    """Apply changes a person reviewed on an earlier plan: plan again,
    insist the host still matches them (DriftError otherwise, as `apply
    --plan` does with a saved plan) and apply the fresh ones under that plan's
    findings. Returns (txid, changes, ops, findings after apply)."""
    require_write_access(root)
    fresh, facts = make_plan(root, policy, only, skip)
    changes = saved_changes(Plan(host=fresh.host, changes=list(reviewed)), fresh)
    txid, ops, findings = apply(root, policy, changes, only, skip, command=command, on_write=on_write, txid=txid,
                                plan=fresh, facts=facts)
    return txid, changes, ops, findings


def planned_writes(changes):
    """Writes the changes plan. Apply journals fewer when a write finds its
    target already as wanted (a file an earlier write of the run rewrote)."""
    return sum(len(c.writes) for c in changes)


def carried_writes(ops):
    """The planned writes ``ops`` made: a merged file op (the edits of one
    file, written once) carries each of its edits."""
    return sum(len(op["edits"]) if isinstance(op.get("edits"), list) else 1 for op in ops)


def describe_write(write):
    """One line saying exactly what a planned write will do to the host."""
    if write.kind == "value":
        return "write %r to %s" % (write.value, write.path)
    if write.kind == "file":
        args = " ".join("%s=%s" % (k, v) for k, v in sorted(write.args.items()))
        return "edit %s (%s%s)" % (write.path, write.editor, " " + args if args else "")
    if write.kind == "command":
        return "run %s" % " ".join(write.argv)
    # Kinds the families add (blockattr, netdev, cgroup, sql): what the plan holds.
    return "%s %s %s" % (write.kind, write.path, write.value or write.args or "")


def diff_text(root, changes):
    """The unified diff of every file ``changes`` edit (`plan --diff`); read only."""
    from numatune.report.diff import diff_text as text
    return text(root, changes)


def rivals(change, plan, facts):
    """Who else sets what this change sets: the families' own rivals, then
    the findings about the same rule or target."""
    out = []
    for family in FAMILIES:
        out += family.rivals(change, plan, facts)
    for finding in plan.findings:
        if (change.rule and finding.rule == change.rule) or (finding.target and finding.target == change.target):
            out.append("%s: %s" % (finding.severity.upper(), finding.message))
    return out


def policy_line(policy, rule):
    """``file:line: text`` of the policy line that sets ``rule``, or None when
    no line names it (a default the family applies)."""
    import re
    from numatune.policy.loader import key_lines
    if policy is None or not rule:
        return None
    key = re.sub(r"\[\d+\]", "", rule)  # key_lines drops array indices
    # The key itself, else its table when that is more than a top-level one.
    keys = [key] + ([key.rsplit(".", 1)[0]] if key.count(".") >= 2 else [])
    for path in reversed(policy.sources):
        text = policy.texts.get(path, "")
        lines = key_lines(text)
        number = next((lines[k] for k in keys if k in lines), None)
        if number:
            # Shipped policies by name: their install path says nothing.
            from numatune.policy.stack import shipped_dir
            shown = os.path.basename(path) if os.path.dirname(path) == shipped_dir() else path
            return "%s:%d: %s" % (shown, number, text.splitlines()[number - 1].strip())
    return None


def save_plan(plan, path, replace=True):
    """Write ``plan`` as JSON for `numatune apply --plan`. ``replace``: False
    when numatune chose the name (the review screen's export): an existing file
    is an error, never overwritten."""
    from numatune.report import jsonout
    from numatune.report.changejson import encoded_changes
    try:
        with open(path, "w" if replace else "x", encoding="utf-8") as f:
            f.write(jsonout.dumps(plan.to_json(encoded_changes)) + "\n")
    except OSError as e:
        raise UsageError("cannot write the plan to %s: %s" % (path, e.strerror or e),
                         "give a file path in a directory you can write")
