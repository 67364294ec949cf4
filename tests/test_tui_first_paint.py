"""What the review screen shows before and right after the plan arrives:
the frame at once (empty table, focused, saying the host is being read),
then the plan's rows in one frame, and only then the first change's details
(bench/tui_first_paint.py times this on a 5,000-change plan)."""
import threading

from tui_support import fake_plan, make_app, run, settle

from textual.widgets import DataTable, LoadingIndicator, Static


def _text(app, selector):
    return str(app.screen.query_one(selector, Static).render())


def test_the_frame_shows_at_once_and_says_the_host_is_being_read(tmp_path, monkeypatch):
    """No animated cover while the plan is read: it kept the screen busy
    (its frames, the table disabled under it), and when the plan came the
    table took the focus, so its rows were painted twice. The table has the
    focus from the start; a reload empties it rather than show a stale plan."""
    from numatune_tui import details
    release, gate = threading.Event(), threading.Event()
    plan = fake_plan(50)

    def slow():
        release.wait(10)
        return plan, {}
    app = make_app(tmp_path, plan_source=slow)
    real = details.change_details

    def slow_details(*args, **kwargs):
        gate.wait(10)
        return real(*args, **kwargs)
    monkeypatch.setattr(details, "change_details", slow_details)

    async def go():
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            table = app.screen.query_one("#plan", DataTable)
            assert app.plan is None and table.row_count == 0
            assert "reading facts and planning" in _text(app, "#status")
            assert "reading facts and planning" in _text(app, "#details")
            assert app.focused is table and not app.screen.query(LoadingIndicator)
            release.set()
            for _ in range(100):
                await pilot.pause(0.02)
                if table.row_count:
                    break
            # The plan is read: the pane no longer says so while the first change's details are read.
            assert table.row_count and "reading facts" not in _text(app, "#details")
            gate.set()
            await settle(app, pilot)
            assert app.plan is plan and table.row_count == len(app.screen.rows) and app.focused is table
            assert "reading facts" not in _text(app, "#details")
            release.clear()
            await pilot.press("ctrl+r")
            await pilot.pause()
            assert table.row_count == 0 and app.screen.rows == []
            assert "reading facts and planning" in _text(app, "#details")
            await pilot.resize_terminal(160, 50)  # a resize refills the table: not with the stale plan
            await pilot.pause()
            assert table.row_count == 0
            release.set()
            await settle(app, pilot)
            assert table.row_count == len(app.screen.rows) > 0
    try:
        run(go())
    finally:
        release.set()
        gate.set()


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


def test_selection_keys_while_the_plan_is_read_do_nothing(tmp_path):
    """s and u (select all, none) with no plan yet raised AttributeError and ended the app."""
    release = threading.Event()
    plan = fake_plan(20)

    def slow():
        release.wait(10)
        return plan, {}
    app = make_app(tmp_path, plan_source=slow)

    async def go():
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            await pilot.press("s", "u", "space", "f", "v", "k", "x")
            await pilot.pause()
            assert app.plan is None and not app.deselected
            release.set()
            await settle(app, pilot)
            assert app.plan is plan and app.screen.rows
    try:
        run(go())
    finally:
        release.set()
