"""The one-way flow, end to end: policy -> facts -> plan -> apply -> verify.

The CLI, the TUI and the Ansible module all go through here.
"""
import json
import os

from numatune import plan as plan_mod
from numatune.apply.lock import RunLock
from numatune.apply.transaction import apply_changes, refuse_if_interrupted
from numatune.errors import DriftError, RefusedError, UsageError
from numatune.facts import kernel, procs, topology
from numatune.families.registry import FAMILIES, selectors
from numatune.model import Plan
from numatune.policy import stack as policy_mod
from numatune.resolve import resolve


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
    return policy_mod.load(refs, root)


def gather(root, data):
    """Everything the plan needs: host, topology, each family's facts, and
    the values resolved from them."""
    procs.forget(root)
    facts = {"root": root.path, "host": kernel.read(root), "topology": topology.read(root)}
    for family in FAMILIES:
        facts[family.name] = family.read(root, data)
    return resolve(data, facts)


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


def require_write_access(root):
    if root.is_live and os.geteuid() != 0:
        raise RefusedError("numatune changes the real / only as root",
                           "run it with sudo, or use --root DIR on a copy")


def load_saved_plan(path):
    try:
        with open(path, encoding="utf-8") as f:
            return Plan.from_json(json.load(f))
    except FileNotFoundError:
        raise UsageError("%s: no such plan file" % path, "save one with `numatune plan --out FILE`")
    except (ValueError, KeyError, TypeError) as e:
        raise UsageError("%s: not a numatune plan (%s)" % (path, e))


def saved_changes(saved, fresh):
    """The fresh changes matching a saved plan, or DriftError."""
    by_id = {c.id: c for c in fresh.changes}
    out = []
    for old in saved.changes:
        new = by_id.get(old.id)
        if new is None or new.key() != old.key():
            now = "no longer needed" if new is None else "now %r -> %r" % (new.current, new.desired)
            raise DriftError("the host drifted since the plan was saved: %s was %r -> %r, %s"
                             % (old.id, old.current, old.desired, now),
                             "make a new plan with `numatune plan --out FILE`")
        out.append(new)
    return out


def apply(root, policy, changes, only=None, skip=None, command="apply", on_write=None, txid=None):
    """Apply ``changes`` (from a fresh plan) under the lock and journal.

    Returns (txid, ops, findings after apply)."""
    require_write_access(root)
    after = {}

    def verify():
        plan, facts = make_plan(root, policy, only, skip, strict=False)
        after["plan"], after["facts"] = plan, facts
        still = {c.id: c for c in plan.changes}
        problems = []
        for change in changes:
            now = still.get(change.id)
            # A write the kernel may take in part is judged by its family below.
            if now is None or change.partial_ok:
                continue
            problems.append("%s still %r, wanted %r" % (change.target, now.current, now.desired))
        # A family may refuse what it planned once it sees the host after the
        # writes (Oracle: use_large_pages=ONLY only with a pool that was filled).
        after["findings"] = []
        for family in FAMILIES:
            if family.after_apply is not None:
                said = family.after_apply(policy.data, [c for c in changes if family.owns(c)], facts)
                problems += said.problems
                for finding in said.findings:
                    finding.family = family.name
                after["findings"] += said.findings
        return problems

    with RunLock(root):
        refuse_if_interrupted(root)
        txid, ops = apply_changes(root, changes, command=command, policy=policy.data, txid=txid,
                                  verify=verify, on_write=on_write)
    findings = list(after["plan"].findings) if "plan" in after else []
    return txid, ops, findings + after.get("findings", [])
