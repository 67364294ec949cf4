"""What the review screen shows right after the plan arrives: the plan's
rows in one frame, and only then the first change's details
(bench/tui_first_paint.py times this on a 5,000-change plan)."""
from tui_support import fake_plan, make_app, run, settle

from textual.widgets import DataTable, Static


def _text(app, selector):
    return str(app.screen.query_one(selector, Static).render())


def test_a_changes_details_are_read_after_the_plans_rows_are_painted(tmp_path, monkeypatch):
    """Reading a change's details (the diff of its file, every family's
    rivals) takes the interpreter from the event loop even in a thread: the
    first change's are read once the frame with the plan's rows is on screen."""
    from numatune_tui.plan_screen import PlanScreen
    plan = fake_plan(5000)
    app = make_app(tmp_path, plan_source=lambda: (plan, {}))
    painted, asked = [0], []
    real_refresh, real_details = PlanScreen._compositor_refresh, PlanScreen.change_details

    def refresh(screen):
        real_refresh(screen)
        painted[0] = screen.query_one("#plan", DataTable).row_count

    def details(screen, change, *args, **kwargs):
        asked.append((change.id, painted[0]))
        return real_details(screen, change, *args, **kwargs)
    monkeypatch.setattr(PlanScreen, "_compositor_refresh", refresh)
    monkeypatch.setattr(PlanScreen, "change_details", details)

    async def go():
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(app, pilot)
            first = app.screen.rows[1].item
            assert asked and asked[0][0] == first.id
            assert asked[0][1] > 0, "details read before the plan's rows were painted"
            assert "fake knob" in _text(app, "#details")
    run(go())
