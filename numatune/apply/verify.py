"""Verify after apply: read back what was written, not the whole host.

Issue #29 decided it: each journaled write is read back through its kind's
``current_matches``, and each family that changed something and judges its
own result (``after_apply``) does so on its facts read again. A whole
re-plan is what `numatune check` does; on a giant host it cost as much as
the plan itself.
"""
from numatune import plan as plan_mod
from numatune.apply import kinds
from numatune.families.registry import selected


def _target_key(op):
    """What a write's op sets, so that of two writes to one target only the last is read back."""
    return (op.get("kind"), op.get("path"), op.get("ifname"), op.get("group"), op.get("sid"), op.get("name"),
            op.get("action"))


def verify_writes(root, policy, written, findings, gather, only=None, skip=None):
    """Problems after apply, from reading back what was written, not the whole
    host (issue #29): each journaled write through its kind's current_matches,
    then each family that changed something and judges its own result
    (after_apply) on its facts read again. A whole re-plan is `check`'s work.
    Findings the families report go to ``findings``; ``gather`` is engine.gather."""
    problems, seen, failed = [], set(), []
    for change, op in reversed(written):
        key = _target_key(op)
        if key in seen:
            continue    # a later write to the same target is the one that must hold
        seen.add(key)
        # A write the kernel may take in part is judged by its family below.
        if change.partial_ok:
            continue
        if "asked" in op or not kinds.for_op(op).current_matches(root, op, "after"):
            failed.append(change)
    if failed:
        problems += _still(root, policy, failed, gather, only, skip)
    changed = []
    for change, _ in written:
        if change.family not in changed:
            changed.append(change.family)
    judges = [f for f in selected(changed) if f.name in changed and f.after_apply is not None]
    if judges:
        # A family judges on its own facts read again (and those of the families it reads).
        facts = gather(root, policy.data, families=selected([f.name for f in judges]))
        changes = [c for c, _ in written]
        for family in judges:
            said = family.after_apply(policy.data, list({id(c): c for c in changes if family.owns(c)}.values()),
                                      facts)
            problems += said.problems
            for finding in said.findings:
                finding.family = family.name
            findings += said.findings
    return problems


def _still(root, policy, failed, gather, only, skip):
    """"<target> still <now>, wanted <desired>" for changes whose writes did not
    hold, from their families planned again (only when something failed)."""
    facts = gather(root, policy.data, families=selected(sorted({c.family for c in failed})))
    now = {c.id: c for c in plan_mod.build(policy.data, facts, only, skip).changes}
    out = []
    for change in failed:
        again = now.get(change.id)
        if again is not None:
            out.append("%s still %r, wanted %r" % (change.target, again.current, again.desired))
        else:
            out.append("%s: not as written (%s)" % (change.target, change.action))
    return out
