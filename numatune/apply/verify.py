"""Verify after apply: read back what was written, not the whole host.

Issue #29 decided it: each journaled write is read back through its kind's
``current_matches``, and only the families that changed something read their
facts again: their ``after_apply`` judges the result on them, and their
findings are planned anew (a boot line written makes a running numa=off
"pending a reboot", no longer unmet). The other families' findings stand as
planned. A whole re-plan is what `numatune check` does; on a giant host it
cost as much as the plan itself.
"""
from numatune import plan as plan_mod
from numatune.apply import kinds
from numatune.apply.recent import Recent
from numatune.families.registry import selected


def _target_key(op):
    """What a write's op sets, so that of two writes to one target only the last is read back."""
    return (op.get("kind"), op.get("path"), op.get("ifname"), op.get("group"), op.get("sid"), op.get("name"),
            op.get("action"))


def verify_writes(root, policy, planned, written, gather, only=None, skip=None, compliant=None, facts=None):
    """(problems, findings) after apply. ``planned``: the findings of the plan
    applied; ``written``: [(change, op)] as the writes were made, oldest first;
    ``gather`` is engine.gather (passed in: no import cycle). ``compliant``: a
    list to extend with the changed families' compliant rules planned again
    (what keeps each value at boot, for apply's result). ``facts``: the
    plan's, from which a family with a ``reread`` reads again only what the
    writes can change (None: every family reads its facts whole)."""
    checked, seen = [], set()
    for change, op in reversed(written):
        # A value op sets its file alone: its path is its key (a string: no other kind's key equals it).
        key = op["path"] if op.get("kind") == "value" else _target_key(op)
        if key in seen:
            continue    # a later write to the same target is the one that must hold
        seen.add(key)
        # A write the kernel may take in part is judged by its family below.
        if not change.partial_ok:
            checked.append((change, op))
    changed = []
    for change, _ in written:
        if change.family not in changed:
            changed.append(change.family)
    # Each value written is read once, for its read-back and for the facts read again (recent.py).
    with Recent(root, [op["path"] for _, op in checked if op.get("kind") == "value" and "asked" not in op]) as recent:
        texts = recent.texts
        failed = [change for change, op in checked if "asked" in op or not _holds(root, op, texts)]
        if not changed:
            return [], list(planned)
        # The families that changed something (with those whose facts they read), read once.
        families = selected(changed)
        facts = gather(root, policy.data, families=families,
                       reread=_rereads(policy.data, families, facts, written))
    again = plan_mod.build(policy.data, facts, only, skip)
    if compliant is not None:
        compliant.extend(again.compliant)
    problems = _still(failed, {c.id: c for c in again.changes})
    findings = [f for f in planned if f.family not in changed] + [f for f in again.findings if f.family in changed]
    changes = [c for c, _ in written]
    for family in families:
        if family.name not in changed or family.after_apply is None:
            continue
        # A family may refuse what it planned once it sees the host after the
        # writes (Oracle: use_large_pages=ONLY only with a pool that was filled).
        said = family.after_apply(policy.data, list({id(c): c for c in changes if family.owns(c)}.values()), facts)
        problems += said.problems
        for finding in said.findings:
            finding.family = family.name
        findings += said.findings
    return problems, findings


def _holds(root, op, texts):
    """Whether ``op``'s target holds its "after" (its kind's ``current_matches``).
    A plain value read back as its text and a newline (35,000 sysfs values of
    a giant host's 35,000) is judged from that text as value.current_matches
    judges it (the text stripped, compared), without the calls around it;
    any other text, format or kind is asked of its kind."""
    if op.get("kind") == "value" and op.get("format") == "plain":
        after = op.get("after")
        if type(after) is str and texts.get(op.get("path")) == after + "\n":
            return after.strip() == after
    return kinds.for_op(op).current_matches(root, op, "after")


def _rereads(data, families, planned, written):
    """gather's ``reread``: each family with one, from its facts as planned (and the topology)."""
    if not planned:
        return None
    ops = [op for _, op in written]
    again = {f.name: (lambda r, f=f: f.reread(r, data, planned[f.name], ops))
             for f in families if f.reread is not None and planned.get(f.name) is not None}
    # The topology every gather reads: its CPUs' ids as planned where no write can have changed them.
    from numatune.facts import topology_again
    again["topology"] = lambda r: topology_again.reread(r, planned.get("topology"), ops)
    return again


def _still(failed, now):
    """"<target> still <now>, wanted <desired>" for changes whose writes did not hold."""
    out = []
    for change in failed:
        again = now.get(change.id)
        if again is not None:
            out.append("%s still %r, wanted %r" % (change.target, again.current, again.desired))
        else:
            out.append("%s: not as written (%s)" % (change.target, change.action))
    return out
