"""The one-way flow, end to end: policy -> facts -> plan -> apply -> verify.

The CLI, the TUI and the Ansible module all go through here.
"""
import json
import os

from numatune import plan as plan_mod
from numatune.errors import DriftError, HostError, NumatuneError, RefusedError, UsageError
from numatune.facts import kernel, once, procs, topology
from numatune.families.registry import FAMILIES, for_facts, for_host, selectors
from numatune.model import Plan, refusals
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


def gather(root, data, every=False):
    """Everything the plan needs: host, topology, the facts of each family
    the policy selects (``every``: all of them, for `numatune facts`), and
    the values resolved from them."""
    procs.forget(root)
    once.forget(root)
    facts = {"root": root.path}
    families = FAMILIES if every else for_host(data, root)
    # Resolve, plan and after-apply run exactly the families read here.
    facts["families"] = [f.name for f in families]
    readers = [("host", kernel.read), ("topology", topology.read)]
    readers += [(family.name, lambda r, family=family: family.read(r, data)) for family in families]
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


MAX_PLAN_BYTES = 256 << 20  # a giant host's plan is tens of MiB; /dev/zero is endless


def load_saved_plan(path):
    try:
        with open(path, "rb") as f:
            raw = f.read(MAX_PLAN_BYTES + 1)
    except FileNotFoundError:
        raise UsageError("%s: no such plan file" % path, "save one with `numatune plan --out FILE`")
    except OSError as e:
        raise UsageError("%s: cannot read the plan: %s" % (path, e.strerror or e))
    if len(raw) > MAX_PLAN_BYTES:
        raise UsageError("%s: not a numatune plan (larger than %d MiB)" % (path, MAX_PLAN_BYTES >> 20))
    try:
        return Plan.from_json(json.loads(raw.decode("utf-8")))
    except RecursionError:
        raise UsageError("%s: not a numatune plan (nested too deeply)" % path)
    except (ValueError, KeyError, TypeError, AttributeError) as e:
        raise UsageError("%s: not a numatune plan (%s)" % (path, str(e)[:200]))


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


def apply(root, policy, changes, only=None, skip=None, command="apply", on_write=None, txid=None, plan=None):
    """Apply ``changes`` (from a fresh plan) under the lock and journal.

    ``plan``: the plan they come from (planned again when not given), whose
    findings may refuse the run. Returns (txid, ops, findings after apply)."""
    require_write_access(root)
    if plan is None:
        plan, _ = make_plan(root, policy, only, skip)
    refuse_blocked(plan.findings, changes)
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
        for family in for_facts(policy.data, facts):
            if family.after_apply is not None:
                said = family.after_apply(policy.data, [c for c in changes if family.owns(c)], facts)
                problems += said.problems
                for finding in said.findings:
                    finding.family = family.name
                after["findings"] += said.findings
        return problems

    # Imported here: plan and check never write, and start faster without the journal's code.
    from numatune.apply.lock import RunLock
    from numatune.apply.transaction import apply_changes, refuse_if_interrupted
    with RunLock(root):
        refuse_if_interrupted(root)
        txid, ops = apply_changes(root, changes, command=command, policy=policy.data, txid=txid,
                                  verify=verify, on_write=on_write)
    findings = list(after["plan"].findings) if "plan" in after else []
    return txid, ops, findings + after.get("findings", [])
