"""The review app driven by Textual's pilot: on a copied real capture for
apply, rollback and revert (values checked on disk), on big fake plans
made of real model objects for navigation at scale."""
import os
import re
import shutil

from conftest import STATE, tree_digest
from tui_support import fake_plan, make_app, review_root, run, settle  # noqa: F401 (review_root: a fixture)

from numatune.errors import PolicyError
from numatune.model import AREAS
from textual.widgets import DataTable, Input, Static


def _read(root, path):
    return (root / path.lstrip("/")).read_text()


def _text(app, selector):
    return str(app.screen.query_one(selector, Static).render())


def _journal(root):
    d = root / STATE / "journal"
    return sorted(os.listdir(d)) if d.is_dir() else []


def test_opens_on_the_first_group_with_its_changes_and_q_quits(review_root):
    root, policy = review_root
    app = make_app(root, policy)

    async def go():
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(app, pilot)
            screen = app.screen
            kinds = [(r.kind, r.group) for r in screen.rows]
            assert kinds[:3] == [("group", "kernel"), ("change", "kernel"), ("change", "kernel")]
            assert ("change", "memory") not in kinds  # other groups start collapsed
            assert screen.current_row().item.id == "sysctl.live:kernel.numa_balancing"
            assert "automatic NUMA balancing" in _text(app, "#details")
            n = len(app.plan.changes)
            assert "%d changes, %d selected" % (n, n) in _text(app, "#status")
            await pilot.press("q")
        assert app.return_code == 0
    run(go())


def test_navigation_expands_and_collapses_groups(review_root):
    root, policy = review_root
    app = make_app(root, policy)

    async def go():
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(app, pilot)
            screen = app.screen
            await pilot.press("down", "down")  # the memory group
            assert screen.current_row().kind == "group" and screen.current_row().group == "memory"
            assert "memory" in _text(app, "#details")
            before = len(screen.rows)
            await pilot.press("enter")
            assert len(screen.rows) == before + sum(1 for c in app.plan.changes if c.area == "memory")
            await pilot.press("down")
            assert screen.current_row().item.id == "sysctl.live:vm.zone_reclaim_mode"
            # The details pane shows the exact write and, for persistent changes, the file diff.
            assert "write '0' to /proc/sys/vm/zone_reclaim_mode" in _text(app, "#details")
            await pilot.press("down")
            shown = _text(app, "#details")
            assert "+vm.zone_reclaim_mode = 0" in shown and "90-numatune.conf" in shown
            await pilot.press("up", "up", "enter")
            assert len(screen.rows) == before
    run(go())


def test_selection_by_change_and_by_group(review_root):
    root, policy = review_root
    app = make_app(root, policy)

    async def go():
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(app, pilot)
            screen = app.screen
            table = screen.query_one("#plan", DataTable)
            await pilot.press("space")
            assert app.deselected == {"sysctl.live:kernel.numa_balancing"}
            assert str(table.get_cell_at((1, 0))) == "·"
            assert str(table.get_cell_at((0, 2))) == "kernel: 2 changes"
            assert str(table.get_cell_at((0, 3))) == "1 selected"
            n = len(app.plan.changes)
            assert "%d changes, %d selected" % (n, n - 1) in _text(app, "#status")
            await pilot.press("space")
            assert app.deselected == set()
            await pilot.press("up", "space")  # the whole kernel group off
            assert app.deselected == {"sysctl.live:kernel.numa_balancing", "sysctl.persist:kernel.numa_balancing"}
            await pilot.press("space")  # and on again
            assert app.deselected == set()
            await pilot.press("u")
            assert len(app.deselected) == n and ", 0 selected" in _text(app, "#status")
            await pilot.press("a")  # nothing selected: no confirmation
            assert type(app.screen).__name__ == "PlanScreen"
            await pilot.press("s")
            assert app.deselected == set()
    run(go())


def test_filters_and_search(review_root):
    root, policy = review_root
    app = make_app(root, policy)

    async def go():
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(app, pilot)
            screen = app.screen
            await pilot.press("f", "f")  # kernel, then memory
            assert screen.filters.area == "memory"
            groups = {r.group for r in screen.rows}
            assert "kernel" not in groups and "memory" in groups
            assert "area memory" in _text(app, "#status")
            await pilot.press("f")  # back to every area
            assert screen.filters.area is None
            await pilot.press("k")  # this plan has no high-risk change and no critical finding
            assert screen.rows == []
            assert "nothing matches" in _text(app, "#details")
            await pilot.press("k", "v")  # findings: warning and worse
            findings = [r.item.severity for r in screen.rows if r.kind == "finding"]
            # Exactly the plan's warnings and criticals (#25 made some host findings info), none of its info.
            serious = [f.severity for f in app.plan.findings if f.severity in ("warning", "critical")]
            assert findings == serious and "info" not in findings
            await pilot.press("v", "v")
            await pilot.press("slash")
            assert screen.query_one("#search", Input).has_focus
            await pilot.press(*"zone", "enter")
            changes = [r.item.id for r in screen.rows if r.kind == "change"]
            assert changes == ["sysctl.live:vm.zone_reclaim_mode", "sysctl.persist:vm.zone_reclaim_mode"]
            assert screen.query_one("#plan", DataTable).has_focus
            await pilot.press("escape")
            assert screen.filters.search == "" and len(screen.rows) > 3
    run(go())


def test_apply_a_selection_to_a_copied_root(review_root):
    root, policy = review_root
    app = make_app(root, policy)

    async def go():
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(app, pilot)
            await pilot.press("down", "down", "enter", "down", "space")  # leave zone_reclaim_mode live alone
            await pilot.press("a")
            assert type(app.screen).__name__ == "ConfirmScreen"
            await pilot.press("y")
            await settle(app, pilot)
            screen = app.screen
            assert type(screen).__name__ == "ApplyScreen" and screen.outcome == "applied"
            n = len(screen.changes)
            assert n == len(app.plan.changes) - 1
            # The edits of one file are written once (merged records): fewer writes than changes, never more.
            title = _text(app, "#apply-title")
            m = re.search(r"(\d+) change\(s\), (\d+) write\(s\) applied and verified", title)
            assert m and int(m.group(1)) == n and 0 < int(m.group(2)) <= n, title
            await pilot.press("escape")
            await settle(app, pilot)
            # Re-planned: only what was left out is still to do, and it stays deselected.
            assert [c.id for c in app.plan.changes] == ["sysctl.live:vm.zone_reclaim_mode"]
            assert app.deselected == {"sysctl.live:vm.zone_reclaim_mode"}
    run(go())
    assert _read(root, "/proc/sys/kernel/numa_balancing") == "0\n"
    assert _read(root, "/proc/sys/vm/zone_reclaim_mode") == "1\n"
    conf = _read(root, "/etc/sysctl.d/90-numatune.conf")
    assert "kernel.numa_balancing = 0" in conf and "vm.zone_reclaim_mode = 0" in conf
    assert len(_journal(root)) == 1


def test_no_and_escape_in_the_confirmation_change_nothing(review_root):
    root, policy = review_root
    before = tree_digest(root)
    app = make_app(root, policy)

    async def go():
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(app, pilot)
            for key in ("n", "escape"):
                await pilot.press("a")
                assert type(app.screen).__name__ == "ConfirmScreen"
                await pilot.press(key)
                await settle(app, pilot)
                assert type(app.screen).__name__ == "PlanScreen"
    run(go())
    assert tree_digest(root) == before and _journal(root) == []


def test_a_refused_write_shows_the_failure_and_the_rollback(review_root):
    root, policy = review_root
    # The persistent file is a directory: its write fails after the live
    # write before it has been made, so the run must be rolled back.
    (root / "etc/sysctl.d/90-numatune.conf").mkdir(parents=True)
    before = tree_digest(root)
    app = make_app(root, policy)

    async def go():
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(app, pilot)
            await pilot.press("a", "y")
            await settle(app, pilot)
            screen = app.screen
            assert screen.outcome == "failed"
            assert "APPLY FAILED: the run was rolled back" in _text(app, "#apply-title")
            log = "\n".join(str(line.text) for line in screen.query_one("#apply-log").lines)
            assert "wrote /proc/sys/kernel/numa_balancing: 1 -> 0" in log
            assert "Is a directory" in log and "rolled back 1 write(s)" in log
            assert "/proc/sys/kernel/numa_balancing: 0 -> 1 restored" in log
            assert ": rolled back" in log  # the journal's own verdict
    run(go())
    assert _read(root, "/proc/sys/kernel/numa_balancing") == "1\n"
    assert tree_digest(root) == before


def test_revert_from_history(review_root):
    root, policy = review_root
    before = tree_digest(root)
    app = make_app(root, policy)

    async def go():
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(app, pilot)
            planned = [c.id for c in app.plan.changes]
            await pilot.press("a", "y")
            await settle(app, pilot)
            assert app.screen.outcome == "applied"
            assert _read(root, "/proc/sys/kernel/numa_balancing") == "0\n"
            await pilot.press("h")
            await settle(app, pilot)
            history = app.screen
            assert type(history).__name__ == "HistoryScreen"
            assert [t.state for t in history.transactions] == ["applied"]
            assert "kernel.numa_balancing: 1 -> 0" in _text(app, "#tx-details")
            await pilot.press("r")
            assert type(app.screen).__name__ == "ConfirmScreen"
            # The dialog lists the restores in the undo direction, as revert reports them.
            asked = "\n".join(str(getattr(w.content, "plain", w.content)) for w in app.screen.query("Static"))
            assert "/proc/sys/kernel/numa_balancing: 0 -> 1" in asked and "1 -> 0" not in asked
            await pilot.press("y")
            await settle(app, pilot)
            assert [t.state for t in history.transactions] == ["reverted"]
            ops = history.transactions[0].ops
            writes = len(ops)
            from numatune import engine
            assert engine.carried_writes([r["op"] for r in ops.values()]) == engine.planned_writes(app.plan.changes)
            assert "%d restored, 0 left alone, 0 failed" % writes in _text(app, "#tx-details")
            await pilot.press("r")  # already reverted: refused without a dialog
            assert app.screen is history
            await pilot.press("escape")
            await settle(app, pilot)
            assert [c.id for c in app.plan.changes] == planned  # re-planned after the revert
    run(go())
    assert tree_digest(root) == before


def test_five_thousand_changes_stay_responsive(tmp_path):
    plan = fake_plan(5000)
    app = make_app(tmp_path, plan_source=lambda: (plan, {}))

    async def go():
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(app, pilot)
            screen = app.screen
            table = screen.query_one("#plan", DataTable)
            kernel = sum(1 for c in plan.changes if c.area == "kernel")
            assert screen.rows[0].count == kernel and len(screen.rows) == kernel + len(AREAS) + 1 + len(plan.findings)  # critical: findings open
            # Keys work while the rest of the rows are still being added.
            await pilot.press("end")
            await pilot.press("space")
            assert len(app.deselected) == 1
            for _ in range(100):
                if table.row_count == len(screen.rows):
                    break
                await pilot.pause(0.05)
            assert table.row_count == len(screen.rows)
            await pilot.press("slash", *"knob_4999", "enter")
            await pilot.pause(0.3)
            assert [r.item.id for r in screen.rows if r.kind == "change"] == ["fake.persistent:kernel.fake_knob_4999"]
    run(go())


def test_a_plan_that_cannot_be_made_is_shown_not_raised(tmp_path):
    def broken():
        raise PolicyError("policy.toml:3: unknown key 'kernal'", "did you mean 'kernel'?")
    app = make_app(tmp_path, plan_source=broken)

    async def go():
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(app, pilot)
            assert "could not plan: policy.toml:3: unknown key 'kernal'" in _text(app, "#status")
            await pilot.press("a", "space", "f")  # nothing to act on: no crash
            await pilot.press("q")
        assert app.return_code == 0
    run(go())


def test_keys_work_while_facts_are_read(tmp_path):
    import threading
    release = threading.Event()
    plan = fake_plan(50)

    def slow():
        release.wait(10)  # facts still being read
        return plan, {}
    app = make_app(tmp_path, plan_source=slow)

    async def go():
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            assert app.plan is None and "reading facts and planning" in _text(app, "#status")
            await pilot.press("h")  # the UI answers while the worker waits
            assert type(app.screen).__name__ == "HistoryScreen"
            await pilot.press("escape")
            assert type(app.screen).__name__ == "PlanScreen"
            release.set()
            await settle(app, pilot)
            assert app.plan is plan and app.screen.rows[0].group == "kernel"
    try:
        run(go())
    finally:
        release.set()
