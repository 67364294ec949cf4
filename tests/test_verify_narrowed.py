"""Verify after apply reads back what was written, not the whole host
(issue #29): no re-plan, only the families that changed something read
again (their after_apply and findings); a write that did not hold is
still caught, and a re-plan after apply is still empty."""
import pytest

import fakehost
from conftest import tree_digest, write
from numatune import engine
from numatune.apply import value as values
from numatune.errors import ApplyError
from numatune.policy.stack import load
from numatune.root import Root


@pytest.fixture
def applied(tmp_path, monkeypatch):
    root_dir = fakehost.build(tmp_path / "root")
    root = Root(str(root_dir))
    policy = load([str(write(tmp_path, "policy.toml", fakehost.POLICY))], root)
    plan, _ = engine.make_plan(root, policy)
    assert {c.family for c in plan.changes} >= {"sysctl", "hugepages"}
    return root_dir, root, policy, plan


def test_apply_does_not_plan_again_and_reads_only_judging_families(applied, monkeypatch):
    root_dir, root, policy, plan = applied
    read = []
    real_gather = engine.gather

    def gather(root_, data, every=False, families=None, reread=None):
        assert families is not None, "apply planned the whole host again"
        read.append(sorted(f.name for f in families))
        return real_gather(root_, data, every, families, reread)
    monkeypatch.setattr(engine, "gather", gather)
    monkeypatch.setattr(engine, "make_plan", lambda *a, **k: pytest.fail("apply planned again"))
    # Not the hugepages changes: that family (and tuned, storage, oracle) is not read again.
    changes = [c for c in plan.changes if c.family != "hugepages"]
    txid, ops, findings = engine.apply(root, policy, changes, plan=plan)
    assert ops
    # Only the families that changed something read their facts again (with those they read from),
    # once, for their after_apply and their findings after the writes.
    from numatune.families.registry import selected
    changed = sorted({c.family for c in changes})
    assert read == [sorted(f.name for f in selected(changed))]
    planned = {f.name for f in engine.for_host(policy.data, root)}
    assert {"hugepages", "tuned", "storage"} <= planned and not {"hugepages", "tuned", "storage"} & set(read[0])
    monkeypatch.setattr(engine, "gather", real_gather)
    monkeypatch.undo()
    again, _ = engine.make_plan(root, policy)
    assert {c.family for c in again.changes} == {"hugepages"}


def test_a_write_that_did_not_hold_is_caught_by_reading_it_back(applied, monkeypatch):
    root_dir, root, policy, plan = applied
    before = tree_digest(root_dir)
    real = values._write

    def lost(root_, path, value):
        real(root_, path, value)
        if path.endswith("/vm/swappiness"):
            real(root_, path, "60")     # the kernel (or another tool) put it back
    monkeypatch.setattr(values, "_write", lost)
    with pytest.raises(ApplyError, match=r"verify after apply: .*vm.swappiness.* still '60', wanted '10'"):
        engine.apply(root, policy, plan.changes, plan=plan)
    assert tree_digest(root_dir) == before
