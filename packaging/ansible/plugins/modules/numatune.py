#!/usr/bin/python
"""Ansible module: numatune on one managed host (check, apply, revert)."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: numatune
short_description: Check, apply or revert a numatune policy on the host
description:
  - Runs numatune's plan on the managed host and checks it (C(checked)), applies it under numatune's
    write-ahead journal (C(applied)), or reverts a journaled transaction (C(reverted)).
  - Check mode never writes; with C(--diff) the diff is the plan, current against desired.
  - numatune (the RPM or the Python package) must be installed on the host.
version_added: "0.1.0"
options:
  policy:
    description:
      - Policy files or shipped policy names, stacked in order like repeated C(--policy).
      - Empty means the host's default, C(/etc/numatune/policy.toml) else the shipped C(oracle-numa).
    type: list
    elements: str
    default: []
  state:
    description:
      - C(checked) reports compliance and changes nothing; C(applied) makes the host follow the policy;
        C(reverted) undoes a transaction.
    type: str
    choices: [checked, applied, reverted]
    default: checked
  root:
    description: Work on a copy or snapshot of a host under this directory instead of C(/) (files only).
    type: path
    default: /
  only:
    description: Only these areas (kernel, memory, sysctl, storage, network, cpu, oracle).
    type: list
    elements: str
    default: []
  skip:
    description: Skip these areas.
    type: list
    elements: str
    default: []
  txid:
    description: With C(state=reverted), the transaction to revert; default the newest one not yet reverted.
    type: str
  force:
    description: With C(state=reverted), also restore values someone changed since.
    type: bool
    default: false
author:
  - numatune maintainers
"""

EXAMPLES = r"""
- name: Apply the site policy
  numatune.numatune.numatune:
    policy: [/etc/numatune/policy.toml]
    state: applied
  register: tuned

- name: Fail hosts with critical drift
  numatune.numatune.numatune:
    state: checked
  register: compliance
  failed_when: compliance.status >= 2

- name: Undo the last apply
  numatune.numatune.numatune:
    state: reverted
"""

RETURN = r"""
plan:
  description: numatune's plan (the JSON of C(numatune plan --format json)).
  returned: state is checked or applied
  type: dict
status:
  description: Compliance as a Nagios status, 0 OK, 1 WARNING, 2 CRITICAL (after the run for C(applied)).
  returned: state is checked or applied
  type: int
status_text:
  description: OK, WARNING or CRITICAL.
  returned: state is checked or applied
  type: str
counts:
  description: Rules per severity and state (critical, warning, compliant, drift, pending, waived, info).
  returned: state is checked or applied
  type: dict
results:
  description: One entry per rule, as in C(numatune check --format json).
  returned: state is checked
  type: list
txid:
  description: The journal transaction of this apply or revert (C(numatune revert TXID) undoes an apply).
  returned: when something was applied or reverted
  type: str
findings:
  description: Findings after the apply (e.g. a HugePages pool the kernel could not fill).
  returned: state is applied
  type: list
restored:
  description: Values a revert restored; C(skipped) those changed since by someone else.
  returned: state is reverted
  type: list
"""

from ansible.module_utils.basic import AnsibleModule  # noqa: E402


def _line(scope, target, value):
    return "%-10s %s = %s" % (scope, target, "(unset)" if value is None else value)


def plan_diff(changes):
    """Ansible's diff of a plan: each change's current value against its desired one."""
    before = "".join(_line(c.scope, c.target, c.current) + "\n" for c in changes)
    after = "".join(_line(c.scope, c.target, c.desired) + "\n" for c in changes)
    return {"before": before, "after": after, "before_header": "host now", "after_header": "numatune policy"}


def _checked(module, engine, root, policy, params):
    from numatune.report import compliance
    plan, facts = engine.make_plan(root, policy, params["only"], params["skip"])
    report = compliance.build(plan, policy.data, facts, policy_name=policy.name)
    return dict(changed=False, plan=plan.to_json(), status=report.status, status_text=report.status_text,
                counts=report.counts, results=[r.to_json() for r in report.results],
                diff=plan_diff(plan.changes))


def _applied(module, engine, root, policy, params):
    from numatune.report import compliance
    plan, _ = engine.make_plan(root, policy, params["only"], params["skip"])
    result = dict(changed=bool(plan.changes), plan=plan.to_json(), diff=plan_diff(plan.changes))
    if not plan.changes or module.check_mode:
        after, facts = plan, None
        result.update(findings=[f.to_json() for f in plan.findings])
    else:
        txid, ops, findings = engine.apply(root, policy, plan.changes, params["only"], params["skip"],
                                           command="ansible")
        result.update(txid=txid, writes=len(ops), findings=[f.to_json() for f in findings])
        after, facts = engine.make_plan(root, policy, params["only"], params["skip"])
        if any(c.reboot_required for c in plan.changes):
            module.warn("%d change(s) take effect at the next reboot" % sum(c.reboot_required for c in plan.changes))
    report = compliance.build(after, policy.data, facts, policy_name=policy.name)
    result.update(status=report.status, status_text=report.status_text, counts=report.counts)
    return result


def _reverted(module, root, params):
    from numatune.errors import UsageError
    from numatune.apply.journal import Transaction, list_transactions, read_records
    from numatune.apply.lock import RunLock
    from numatune.apply.transaction import revert
    if params["txid"]:
        tx = Transaction(params["txid"], read_records(root, params["txid"]))
    else:
        open_txs = [t for t in list_transactions(root) if t.state not in ("reverted", "rolled back")]
        if not open_txs:
            return dict(changed=False, msg="nothing to revert")
        tx = open_txs[-1]
    if tx.state in ("reverted", "rolled back") and not params["force"]:
        return dict(changed=False, txid=tx.txid, msg="transaction %s is already %s" % (tx.txid, tx.state))
    undo = [c for c in tx.changes]
    diff = {"before": "".join(_line(c["scope"], c["target"], c["desired"]) + "\n" for c in undo),
            "after": "".join(_line(c["scope"], c["target"], c["current"]) + "\n" for c in undo),
            "before_header": "transaction %s" % tx.txid, "after_header": "before it"}
    if module.check_mode:
        return dict(changed=bool(undo), txid=tx.txid, diff=diff)
    if root.is_live:
        import os
        if os.geteuid() != 0:
            raise UsageError("numatune changes the real / only as root", "use become: true")
    with RunLock(root):
        restored, skipped, failed = revert(root, tx, force=params["force"])
    if failed:
        module.fail_json(msg="revert of %s failed for: %s" % (tx.txid, "; ".join(failed)), txid=tx.txid,
                         restored=restored, skipped=skipped, failed=failed)
    if skipped:
        module.warn("left alone (changed since by someone else; force: true restores them): %s" % "; ".join(skipped))
    return dict(changed=bool(restored), txid=tx.txid, restored=restored, skipped=skipped, diff=diff)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            policy=dict(type="list", elements="str", default=[]),
            state=dict(type="str", choices=["checked", "applied", "reverted"], default="checked"),
            root=dict(type="path", default="/"),
            only=dict(type="list", elements="str", default=[]),
            skip=dict(type="list", elements="str", default=[]),
            txid=dict(type="str"),
            force=dict(type="bool", default=False),
        ),
        supports_check_mode=True,
    )
    params = module.params
    try:
        from numatune import engine
        from numatune.errors import NumatuneError
        from numatune.root import Root
    except ImportError as e:
        module.fail_json(msg="numatune is not installed on this host (%s)" % e,
                         hint="install the numatune RPM or `pip install numatune` for %s" % module._name)
    import os
    if not os.path.isdir(params["root"]):
        module.fail_json(msg="root %s: no such directory" % params["root"])
    root = Root(params["root"])
    try:
        engine.check_areas(params["only"])
        engine.check_areas(params["skip"])
        if params["state"] == "reverted":
            result = _reverted(module, root, params)
        else:
            policy = engine.load_policy(params["policy"], root)
            handler = _checked if params["state"] == "checked" else _applied
            result = handler(module, engine, root, policy, params)
    except NumatuneError as e:
        module.fail_json(msg=str(e))
    if not module._diff:
        result.pop("diff", None)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
