"""No engine call that reads or writes the host runs on the event loop: a
session through every screen (plan, a change's details and diff, the diff
and export commands, apply, history, revert) with every such engine entry
point wrapped to note the thread it runs on."""
import os
import threading

from tui_support import make_app, review_root, run, settle  # noqa: F401 (review_root: a fixture)

from numatune import engine

# The engine functions that touch the host or the journal.
IO = ("make_plan", "apply_reviewed", "revert", "transactions", "undo_report", "diff_text", "save_plan")


def test_every_host_read_and_write_runs_in_a_worker(review_root, monkeypatch, tmp_path):
    root, policy = review_root
    calls = []
    for name in IO:
        real = getattr(engine, name)

        def wrapped(*args, _real=real, _name=name, **kwargs):
            calls.append((_name, threading.current_thread() is threading.main_thread()))
            return _real(*args, **kwargs)
        monkeypatch.setattr(engine, name, wrapped)
    monkeypatch.chdir(tmp_path)  # the export lands here
    app = make_app(root, policy)

    async def go():
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(app, pilot)
            screen = app.screen
            # A persistent change: its details show the diff of its file.
            index = next(i for i, r in enumerate(screen.rows) if r.kind == "change" and r.item.scope == "persistent")
            screen.query_one("#plan").move_cursor(row=index)
            await settle(app, pilot)
            assert "+++ b" in str(screen.query_one("#details").render())
            screen.action_diff()
            await settle(app, pilot)
            screen.action_export()
            await settle(app, pilot)
            await pilot.press("a", "y")
            await settle(app, pilot)
            assert app.screen.outcome == "applied"
            await pilot.press("h")
            await settle(app, pilot)
            await pilot.press("r", "y")
            await settle(app, pilot)
            assert [t.state for t in app.screen.transactions] == ["reverted"]
    run(go())
    called = {name for name, _ in calls}
    assert called == set(IO) - {"undo_report"} or called == set(IO)  # undo_report: only after a failure
    on_loop = sorted({name for name, main in calls if main})
    assert not on_loop, "engine calls on the event loop: %s" % on_loop
    assert [n for n in os.listdir(tmp_path) if n.startswith("numatune-plan-")]
