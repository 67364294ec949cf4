#!/usr/bin/python
# Copyright: (c) 2026, numatune maintainers
# Apache License 2.0 (see LICENSE in the numatune source or https://www.apache.org/licenses/LICENSE-2.0)
# SPDX-License-Identifier: Apache-2.0
"""Ansible module: numatune on one managed host (apply, revert; check is deprecated here)."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: numatune
short_description: Apply or revert a numatune policy on the host
description:
  - Runs numatune's plan on the managed host and applies it under numatune's write-ahead journal
    (C(applied)), or reverts a journaled transaction (C(reverted)).
  - C(state=checked) (a read-only compliance report) still works but is deprecated; use
    M(numatune.numatune.numatune_info).
  - Check mode never writes; with C(--diff) the diff is the plan, current against desired.
  - Fails when the numatune installed on the host is not the version of this collection.
version_added: "0.1.0"
requirements:
  - numatune (the C(numatune) RPM or C(pip install numatune)) of the same version as this collection, on the
    managed host, importable by its Python.
  - root on the managed host (C(become)) to change the real C(/).
attributes:
  check_mode:
    description: Plans and reports C(changed) and the diff without writing.
    support: full
  diff_mode:
    description: The plan (current against desired), or what a revert restores.
    support: full
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
      - C(applied) makes the host follow the policy; C(reverted) undoes a transaction.
      - C(checked) reports compliance and changes nothing. Deprecated, use M(numatune.numatune.numatune_info).
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
  - numatune maintainers (@numatune)
seealso:
  - module: numatune.numatune.numatune_info
  - name: numatune README
    description: Policies, the plan, the journal and revert.
    link: https://github.com/numatune/numatune/blob/main/README.md
"""

EXAMPLES = r"""
- name: Apply the site policy
  numatune.numatune.numatune:
    policy: [/etc/numatune/policy.toml]
    state: applied
  register: tuned

- name: Fail hosts with critical drift (read-only)
  numatune.numatune.numatune_info:
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
  sample: 0
status_text:
  description: OK, WARNING or CRITICAL.
  returned: state is checked or applied
  type: str
  sample: OK
counts:
  description: Rules per severity and state (critical, warning, compliant, drift, pending, waived, info).
  returned: state is checked or applied
  type: dict
results:
  description: One entry per rule, as in C(numatune check --format json).
  returned: state is checked
  type: list
  elements: dict
txid:
  description: The journal transaction of this apply or revert (C(numatune revert TXID) undoes an apply).
  returned: when something was applied or reverted, or would be reverted in check mode
  type: str
writes:
  description: How many writes the apply journaled.
  returned: state is applied and something was applied
  type: int
findings:
  description: Findings after the apply (e.g. a HugePages pool the kernel could not fill), or of the plan.
  returned: state is applied
  type: list
  elements: dict
restored:
  description: Values a revert restored.
  returned: state is reverted and a revert ran
  type: list
  elements: str
skipped:
  description: Values a revert left alone because someone changed them since (C(force) restores them).
  returned: state is reverted and a revert ran
  type: list
  elements: str
failed_writes:
  description: Values a revert could not restore.
  returned: state is reverted and the revert failed
  type: list
  elements: str
"""

from ansible.module_utils.basic import AnsibleModule  # noqa: E402
from ansible_collections.numatune.numatune.plugins.module_utils.numatune_host import (  # noqa: E402
    ARGS, checked, import_numatune, line, open_root, plan_diff)


def _applied(module, engine, root, policy, params):
    from numatune.report import compliance
    plan = engine.make_plan(root, policy, params["only"], params["skip"])[0]
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
    undo = list(tx.changes)
    diff = {"before": "".join(line(c["scope"], c["target"], c["desired"]) + "\n" for c in undo),
            "after": "".join(line(c["scope"], c["target"], c["current"]) + "\n" for c in undo),
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
                         restored=restored, skipped=skipped, failed_writes=failed)
    if skipped:
        module.warn("left alone (changed since by someone else; force: true restores them): %s" % "; ".join(skipped))
    return dict(changed=bool(restored), txid=tx.txid, restored=restored, skipped=skipped, diff=diff)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            ARGS,
            state=dict(type="str", choices=["checked", "applied", "reverted"], default="checked"),
            txid=dict(type="str"),
            force=dict(type="bool", default=False),
        ),
        supports_check_mode=True,
    )
    params = module.params
    engine, NumatuneError, Root = import_numatune(module)
    root = open_root(module, Root)
    try:
        engine.check_areas(params["only"])
        engine.check_areas(params["skip"])
        if params["state"] == "reverted":
            result = _reverted(module, root, params)
        elif params["state"] == "checked":
            module.deprecate("state=checked is read-only: use the numatune.numatune.numatune_info module",
                             version="1.0.0", collection_name="numatune.numatune")
            result = checked(engine, root, engine.load_policy(params["policy"], root), params)
        else:
            result = _applied(module, engine, root, engine.load_policy(params["policy"], root), params)
    except NumatuneError as e:
        module.fail_json(msg=str(e))
    if not module._diff:
        result.pop("diff", None)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
