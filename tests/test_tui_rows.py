"""The review screen's pure parts: grouping, filters, row cells, details."""
import pytest

from conftest import write
from tui_support import fake_plan, review_root  # noqa: F401 (a fixture)

from numatune.model import AREAS, Change, Plan, Write
from numatune.root import Root
from numatune_tui import details, rows
from numatune_tui.rows import Filters


def test_groups_follow_area_order_then_findings():
    plan = fake_plan(14)
    assert rows.groups(plan) == list(AREAS) + ["findings"]
    plan.findings = []
    assert rows.groups(plan)[-1] == "oracle"


def test_only_expanded_groups_show_their_items():
    plan = fake_plan(14)
    out = rows.visible_rows(plan, Filters(), {"memory"})
    kinds = [(r.kind, r.group) for r in out]
    assert kinds[:4] == [("group", "kernel"), ("group", "memory"), ("change", "memory"), ("change", "memory")]
    assert ("change", "kernel") not in kinds
    assert out[0].count == len(range(0, 14, len(AREAS))) and out[-1].kind == "group" and out[-1].count == 3


def test_filters_area_risk_severity_and_search():
    plan = fake_plan(70)
    every = set(rows.groups(plan))
    by_area = rows.visible_rows(plan, Filters(area="cpu"), every)
    assert {r.item.area for r in by_area if r.kind == "change"} == {"cpu"}
    # Findings of other areas are hidden by an area filter too.
    assert {r.item.area for r in by_area if r.kind == "finding"} <= {"cpu", ""}
    high = [r for r in rows.visible_rows(plan, Filters(high_risk_only=True), every) if r.kind == "change"]
    assert high and all(r.item.risk == "high" for r in high)
    severe = [r.item.severity for r in rows.visible_rows(plan, Filters(severity="warning"), every)
              if r.kind == "finding"]
    assert sorted(severe) == ["critical", "warning"]
    found = [r.item.id for r in rows.visible_rows(plan, Filters(search="KNOB_0042"), every) if r.kind == "change"]
    assert found == ["fake.live:kernel.fake_knob_0042"]
    assert rows.visible_rows(plan, Filters(search="no such thing"), every) == []


def test_cells_show_selection_scope_values_flags_and_risk():
    plan = fake_plan(7)
    change = next(c for c in plan.changes if c.area == "oracle")
    row = rows.Row("change", "oracle", change)
    on = rows.cells(row, set(), set(), plan)
    assert on[0] == ("✓", "selected")
    assert on[3][0] == "%s -> %s" % (change.current, change.desired)  # the one arrow, as the CLI prints it
    assert "S" in on[4][0]
    off = rows.cells(row, set(), {change.id}, plan)
    assert off[0] == ("·", "unselected")
    group = rows.cells(rows.Row("group", "oracle", None, 1, (change.id,)), {"oracle"}, {change.id}, plan)
    assert group[0][0] == "▼" and group[2][0] == "oracle: 1 change, 0 selected"


def test_cycles_and_summary():
    plan = fake_plan(7)
    assert rows.next_area(plan, None) == "kernel"
    assert rows.next_area(plan, "oracle") is None
    assert rows.next_severity("critical") == "info"
    text = rows.summary(plan, {plan.changes[0].id}, Filters(area="cpu"))
    assert text.startswith("7 changes, 6 selected")
    assert "area cpu" in text
    assert rows.host_label(plan) == "db01"
    plan.host = {"hostname": "", "root": "/tmp/x/root-capture"}
    assert rows.host_label(plan) == "root-capture"


def test_file_diff_previews_the_edit_without_writing(tmp_path):
    write(tmp_path, "/etc/sysctl.d/90-numatune.conf", "# Managed by numatune\nvm.swappiness = 60\n")
    w = Write(kind="file", path="/etc/sysctl.d/90-numatune.conf", editor="sysctl_set",
              args={"key": "vm.swappiness", "value": "10"})
    lines = details.file_diff(Root(str(tmp_path)), w)
    assert "-vm.swappiness = 60" in lines and "+vm.swappiness = 10" in lines
    assert (tmp_path / "etc/sysctl.d/90-numatune.conf").read_text().endswith("= 60\n")
    created = details.file_diff(Root(str(tmp_path)), Write(kind="file", path="/etc/sysctl.d/new.conf",
                                                          editor="sysctl_set", args={"key": "a.b", "value": "1"}))
    assert created[0].startswith("--- a/etc/sysctl.d/new.conf") and "+a.b = 1" in created


def test_rivals_name_sysctl_files_and_findings():
    change = Change(id="sysctl.live:vm.swappiness", area="memory", target="vm.swappiness", current="60",
                    desired="10", scope="live", action="write", rule="sysctl.vm.swappiness",
                    writes=[Write(kind="value", path="/proc/sys/vm/swappiness", value="10")])
    facts = {"sysctl": {"files": [
        {"path": "/etc/sysctl.d/10-base.conf", "settings": [[3, "vm.swappiness", "30"]]},
        {"path": "/etc/sysctl.d/90-numatune.conf", "settings": []},
        {"path": "/etc/sysctl.d/99-tuned.conf", "settings": [[1, "vm.swappiness", "60"]]}]}}
    from numatune.model import Finding
    plan = Plan(host={}, changes=[change], findings=[
        Finding(id="tuned.conflict:sysctl_vm.swappiness", severity="warning", rule="tuned.profile",
                target="/usr/lib/tuned/throughput-performance/tuned.conf",
                message="tuned profile throughput-performance sets vm.swappiness = 10 (...), so tuned wins"),
        Finding(id="tuned.conflict:sysctl_vm.dirty_ratio", severity="warning", rule="tuned.profile",
                message="tuned profile throughput-performance sets vm.dirty_ratio = 40")])
    out = details.rivals(change, plan, facts)
    assert out[0] == "sysctl.d /etc/sysctl.d/10-base.conf:3 sets vm.swappiness = 30 (loads before ours)"
    assert "99-tuned.conf:1" in out[1] and "wins at boot" in out[1]
    assert out[2].startswith("WARNING: tuned profile throughput-performance sets vm.swappiness")
    assert len(out) == 3


def test_evidence_names_the_policy_line(review_root):
    from numatune import engine
    root, policy_path = review_root
    policy = engine.load_policy([str(policy_path)], Root(str(root)))
    where = details.evidence(policy, "sysctl.kernel.numa_balancing")
    assert "oracle-numa.toml:" in where and '"kernel.numa_balancing" = ' in where
    assert details.evidence(policy, "") is None


@pytest.mark.parametrize("write_, text", [
    (Write(kind="value", path="/proc/sys/vm/x", value="1"), "write '1' to /proc/sys/vm/x"),
    (Write(kind="command", path="", argv=["grubby", "--update-kernel=ALL"]), "run grubby --update-kernel=ALL"),
])
def test_write_text(write_, text):
    assert details.write_text(write_) == text
