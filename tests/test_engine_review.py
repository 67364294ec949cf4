"""What the review screen and the CLI both ask of the engine (numatune.engine):
write descriptions, rivals, the policy line behind a rule, saved plans,
apply of reviewed changes (drift refused), revert and the undo report. The
TUI only shows what these return (tests/test_tui_boundary.py enforces it)."""
import json

import pytest

from conftest import tree_digest, write
from tui_support import review_root  # noqa: F401 (a fixture)

from numatune import engine
from numatune.errors import DriftError, UsageError
from numatune.model import Change, Finding, Plan, Write
from numatune.root import Root


@pytest.mark.parametrize("write_, text", [
    (Write(kind="value", path="/proc/sys/vm/x", value="1"), "write '1' to /proc/sys/vm/x"),
    (Write(kind="command", path="", argv=["grubby", "--update-kernel=ALL"]), "run grubby --update-kernel=ALL"),
    (Write(kind="file", path="/etc/sysctl.d/90-numatune.conf", editor="sysctl_set", args={"key": "a", "value": "1"}),
     "edit /etc/sysctl.d/90-numatune.conf (sysctl_set key=a value=1)"),
])
def test_describe_write(write_, text):
    assert engine.describe_write(write_) == text


def test_describe_op_never_fails_on_an_unknown_kind():
    assert engine.describe_op({"kind": "value", "path": "/proc/sys/vm/x", "format": "plain", "before": "1",
                               "after": "0"}) == "/proc/sys/vm/x: 1 -> 0"
    assert "/x" in engine.describe_op({"kind": "no-such-kind", "path": "/x"})


def test_rivals_name_sysctl_files_and_findings():
    change = Change(id="sysctl.live:vm.swappiness", area="memory", target="vm.swappiness", current="60",
                    desired="10", scope="live", action="write", rule="sysctl.vm.swappiness",
                    writes=[Write(kind="value", path="/proc/sys/vm/swappiness", value="10")])
    facts = {"sysctl": {"files": [
        {"path": "/etc/sysctl.d/10-base.conf", "settings": [[3, "vm.swappiness", "30"]]},
        {"path": "/etc/sysctl.d/90-numatune.conf", "settings": []},
        {"path": "/etc/sysctl.d/99-tuned.conf", "settings": [[1, "vm.swappiness", "60"]]}]}}
    plan = Plan(host={}, changes=[change], findings=[
        Finding(id="tuned.conflict:sysctl_vm.swappiness", severity="warning", rule="tuned.profile",
                target="/usr/lib/tuned/throughput-performance/tuned.conf",
                message="tuned profile throughput-performance sets vm.swappiness = 10 (...), so tuned wins"),
        Finding(id="tuned.conflict:sysctl_vm.dirty_ratio", severity="warning", rule="tuned.profile",
                message="tuned profile throughput-performance sets vm.dirty_ratio = 40")])
    out = engine.rivals(change, plan, facts)
    assert out[0] == "sysctl.d /etc/sysctl.d/10-base.conf:3 sets vm.swappiness = 30 (loads before ours)"
    assert "99-tuned.conf:1" in out[1] and "wins at boot" in out[1]
    assert out[2].startswith("WARNING: tuned profile throughput-performance sets vm.swappiness")
    assert len(out) == 3


def test_policy_line_names_the_line_that_sets_a_rule(review_root):
    root, policy_path = review_root
    policy = engine.load_policy([str(policy_path)], Root(str(root)))
    where = engine.policy_line(policy, "sysctl.kernel.numa_balancing")
    assert "oracle-numa.toml:" in where and '"kernel.numa_balancing" = ' in where
    assert engine.policy_line(policy, "hugepages.count").startswith(str(policy_path) + ":")
    assert engine.policy_line(policy, "") is None


def test_save_plan_round_trips_and_never_overwrites_a_chosen_name(review_root, tmp_path):
    root, policy_path = review_root
    r = Root(str(root))
    plan, _ = engine.make_plan(r, engine.load_policy([str(policy_path)], r))
    path = tmp_path / "plan.json"
    engine.save_plan(plan, str(path), replace=False)
    assert [c.id for c in engine.load_saved_plan(str(path)).changes] == [c.id for c in plan.changes]
    with pytest.raises(UsageError, match="cannot write the plan"):
        engine.save_plan(plan, str(path), replace=False)
    assert json.loads(path.read_text())["changes"]  # untouched by the refused write
    with pytest.raises(UsageError, match="cannot write the plan"):
        engine.save_plan(plan, str(tmp_path / "no" / "such" / "dir.json"))


def test_apply_reviewed_refuses_drift_and_revert_undoes_it(review_root):
    root, policy_path = review_root
    r = Root(str(root))
    policy = engine.load_policy([str(policy_path)], r)
    before = tree_digest(root)
    reviewed, _ = engine.make_plan(r, policy)
    # Someone changes a reviewed value meanwhile: nothing is applied.
    write(root, "/proc/sys/vm/zone_reclaim_mode", "2\n")
    with pytest.raises(DriftError, match="drifted"):
        engine.apply_reviewed(r, policy, reviewed.changes)
    assert engine.transactions(r) == []
    write(root, "/proc/sys/vm/zone_reclaim_mode", "1\n")
    assert tree_digest(root) == before
    txid, changes, ops, findings = engine.apply_reviewed(r, policy, reviewed.changes)
    assert [c.id for c in changes] == [c.id for c in reviewed.changes] and ops
    assert (root / "proc/sys/vm/zone_reclaim_mode").read_text() == "0\n"
    state, writes = engine.undo_report(r, txid)
    assert state == "applied" and {s for s, _ in writes} == {"pending"} and len(writes) == len(ops)
    tx, restored, skipped, failed = engine.revert(r, txid)
    assert tx.txid == txid and len(restored) == len(ops) and not skipped and not failed
    assert tree_digest(root) == before
    with pytest.raises(UsageError, match="already reverted"):
        engine.revert(r, txid)
    with pytest.raises(UsageError, match="nothing to revert"):
        engine.revert(r, last=True)
    state, writes = engine.undo_report(r, txid)
    assert state == "reverted" and {s for s, _ in writes} == {"undone"}
    assert any(what.endswith("-> 512 restored") for _, what in writes), writes  # the undo direction
    assert engine.undo_report(r, "20990101T000000-000001-1") is None
