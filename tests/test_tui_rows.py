"""The review screen's pure parts: grouping, filters, row cells, details."""
import pytest

from conftest import write
from tui_support import fake_plan, review_root  # noqa: F401 (a fixture)

from numatune import engine
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
    assert group[0][0] == "▼" and group[2][0] == "oracle: 1 change" and group[3][0] == "0 selected"
    # A filter that shows part of a group says so; the selection counts the whole group.
    members = tuple(c.id for c in plan.changes if c.area == "oracle") + ("x", "y")
    part = rows.cells(rows.Row("group", "oracle", None, 1, members), set(), set(), plan)
    assert part[0][0] == "▶" and part[2][0] == "oracle: 1 of %d changes" % len(members)
    assert part[3][0] == "%d selected" % len(members)


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


def test_file_diff_is_the_engines_diff_of_the_change(tmp_path):
    write(tmp_path, "/etc/sysctl.d/90-numatune.conf", "# Managed by numatune\nvm.swappiness = 60\n")
    w = Write(kind="file", path="/etc/sysctl.d/90-numatune.conf", editor="sysctl_set",
              args={"key": "vm.swappiness", "value": "10"})
    change = Change(id="sysctl.persistent:vm.swappiness", area="memory", target="vm.swappiness", current="60",
                    desired="10", scope="persistent", action="edit", writes=[w])
    lines = details.file_diff(Root(str(tmp_path)), change)
    assert "-vm.swappiness = 60" in lines and "+vm.swappiness = 10" in lines
    assert (tmp_path / "etc/sysctl.d/90-numatune.conf").read_text().endswith("= 60\n")
    assert "\n".join(lines) + "\n" == engine.diff_text(Root(str(tmp_path)), [change])


def test_a_wrapped_diff_line_breaks_between_words_and_its_continuations_say_so():
    """The diff pane wraps a long line at a space or after a comma, never inside a word, and each
    continuation starts with its line's +/- and the continuation mark, so it does not read as a line of
    its own."""
    from numatune_tui.details import CONTINUED, diff_rows
    line = "+net.ipv4.ip_local_reserved_ports = " + ",".join("%d-%d" % (p, p + 9) for p in range(20000, 20300, 20))
    context = " # Oracle's preinstall package sets these values for the database listener and its clients"
    for text in (line, context):
        rows = diff_rows(["@@ -1 +1 @@", text], width=40)[1:]
        assert len(rows) > 1 and all(len(t) <= 40 for t, _ in rows)
        marker = text[0]
        assert rows[0][0].startswith(marker) and not rows[0][0].startswith(marker + CONTINUED)
        assert all(t.startswith(marker + CONTINUED) for t, _ in rows[1:])
        pieces = [rows[0][0][1:]] + [t[1 + len(CONTINUED):] for t, _ in rows[1:]]
        # Nothing lost but the spaces at the breaks, and every break falls at a space or after a comma.
        body, at = text[1:], 0
        for piece in pieces:
            at = body.index(piece, at) + len(piece)
            assert at == len(body) or body[at - 1] == "," or body[at] == " ", (piece, pieces)
        assert "".join(pieces).replace(" ", "") == body.replace(" ", "")
    assert {style for _, style in diff_rows([line], width=40)} == {"green"}
