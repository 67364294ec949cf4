"""The palette and the keys as a person meets them: each screen's palette
offers that screen's commands (and one "Keys"), x clears every filter, and
q (or ctrl+q, or the palette's Quit) does not leave while the engine writes."""
import threading

from tui_support import fake_plan, make_app, review_root, run, settle  # noqa: F401 (review_root: a fixture)

from numatune import engine
from numatune_tui.app import HISTORY_PALETTE, PALETTE
from numatune_tui.rows import Filters


def _titles(app):
    return [c.title for c in app.get_system_commands(app.screen)]


def test_each_screen_offers_its_own_commands(tmp_path):
    plan = fake_plan(20)
    app = make_app(tmp_path, plan_source=lambda: (plan, {}))

    async def go():
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(app, pilot)
            titles = _titles(app)
            assert [t for t, _, _ in PALETTE] == [t for t in titles if t in {p[0] for p in PALETTE}]
            assert titles.count("Keys") == 1
            assert not {t for t, _, _ in HISTORY_PALETTE} & set(titles)
            await pilot.press("h")
            await settle(app, pilot)
            titles = _titles(app)
            assert {t for t, _, _ in HISTORY_PALETTE} <= set(titles)
            assert not {t for t, _, _ in PALETTE} & set(titles)
            assert titles.count("Keys") == 1
    run(go())


def test_x_clears_every_filter_and_the_search(tmp_path):
    plan = fake_plan(20)
    app = make_app(tmp_path, plan_source=lambda: (plan, {}))

    async def go():
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(app, pilot)
            screen = app.screen
            await pilot.press("f", "k", "v", "slash", *"zzz", "enter")
            await pilot.pause(0.3)
            assert screen.rows == [] and "x clears them" in str(screen.query_one("#details").render())
            await pilot.press("x")
            await pilot.pause(0.3)
            assert screen.filters == Filters() and screen.rows
            assert "area all" in str(screen.query_one("#status").render())
    run(go())


def test_quit_waits_for_the_engine_to_finish_writing(review_root, monkeypatch):
    root, policy = review_root
    app = make_app(root, policy)
    release = threading.Event()
    real = engine.apply_reviewed

    def slow(*args, **kwargs):
        release.wait(10)  # the engine is in the middle of its writes
        return real(*args, **kwargs)
    monkeypatch.setattr(engine, "apply_reviewed", slow)

    async def go():
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(app, pilot)
            await pilot.press("a", "y")
            await pilot.pause(0.2)
            assert app.writing()
            await pilot.press("q")
            await pilot.press("ctrl+q")
            await pilot.pause(0.2)
            assert app.is_running and app.return_code is None
            assert any("writing to the host" in n.message for n in app._notifications)
            release.set()
            await settle(app, pilot)
            assert app.screen.outcome == "applied" and not app.writing()
            await pilot.press("q")
        assert app.return_code == 0
    try:
        run(go())
    finally:
        release.set()


def test_leaving_the_history_waits_for_a_revert(review_root, monkeypatch):
    root, policy = review_root
    app = make_app(root, policy)
    release = threading.Event()
    real = engine.revert

    def slow(*args, **kwargs):
        release.wait(10)
        return real(*args, **kwargs)
    monkeypatch.setattr(engine, "revert", slow)

    async def go():
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(app, pilot)
            await pilot.press("a", "y")
            await settle(app, pilot)
            await pilot.press("h")
            await settle(app, pilot)
            history = app.screen
            await pilot.press("r", "y")
            await pilot.pause(0.2)
            assert app.stale  # the plan is out of date from the first undo
            await pilot.press("escape", "q")
            await pilot.pause(0.2)
            assert app.screen is history and app.is_running
            release.set()
            await settle(app, pilot)
            assert [t.state for t in history.transactions] == ["reverted"]
            await pilot.press("escape")
            await settle(app, pilot)
            assert type(app.screen).__name__ == "PlanScreen" and not app.stale  # planned again
    try:
        run(go())
    finally:
        release.set()


def test_dialog_and_result_counts_agree(tmp_path):
    """The dialog counts planned writes; the result counts journaled ones and
    says how many found their target already as wanted (the san-multipath
    case: nine udev changes rewrite one rules file, the first write does it)."""
    import shutil
    from conftest import REPO
    case = REPO / "tests" / "cases" / "storage" / "san-multipath"
    shutil.copytree(case / "root", tmp_path / "root", symlinks=True)
    app = make_app(tmp_path / "root", case / "policy.toml")

    async def go():
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(app, pilot)
            planned = engine.planned_writes(app.plan.changes)
            await pilot.press("a")
            await pilot.pause()
            body = str(app.screen.query_one("#dialog-body").query_one("Static").render())
            assert "%d change(s), %d planned write(s)" % (len(app.plan.changes), planned) in body
            await pilot.press("y")
            await settle(app, pilot)
            screen = app.screen
            assert screen.outcome == "applied"
            log = "\n".join(str(line.text) for line in screen.query_one("#apply-log").lines)
            made = int(log.split(" write(s) applied")[0].rsplit(", ", 1)[1])
            assert made < planned
            assert "%d of the %d planned write(s) found their target already as wanted" % (planned - made, planned) \
                in log
            # The restart it waits for (multipathd) stays named after apply, as the CLI names it.
            restart = [c for c in app.screen.changes if c.restart_required]
            assert restart and "%d change(s) take effect after a restart:" % len(restart) in log
            assert restart[0].target[:40] in log
    run(go())


def test_a_deselected_change_leaves_no_advice_in_the_result(tmp_path):
    """The multipath.conf change deselected: the result says nothing of `multipathd reconfigure` (the
    finding that tells to run it after apply follows that change); selected, it does."""
    import shutil
    from conftest import REPO
    case = REPO / "tests" / "cases" / "storage" / "san-multipath"

    def result(deselect, root):
        shutil.copytree(case / "root", root, symlinks=True)
        app = make_app(root, case / "policy.toml")
        out = {}

        async def go():
            async with app.run_test(size=(120, 40)) as pilot:
                await settle(app, pilot)
                assert any(f.id == "block.multipath-reconfigure" for f in app.plan.findings)
                app.deselected.update(c.id for c in app.plan.changes if c.id in deselect)
                await pilot.press("a")
                await pilot.pause()
                await pilot.press("y")
                await settle(app, pilot)
                assert app.screen.outcome == "applied"
                out["log"] = "\n".join(str(line.text) for line in app.screen.query_one("#apply-log").lines)
        run(go())
        return out["log"]

    left_out = result({"block.multipath"}, tmp_path / "a")
    assert "multipathd reconfigure" not in left_out and "multipath.conf" not in left_out, left_out
    # Made, the change is named as waiting for its restart (the reconfigure).
    assert "/etc/multipath.conf: numatune section" in result(set(), tmp_path / "b")


def test_advice_that_follows_a_change_stands_only_with_it():
    from numatune.model import Change, Finding, after_apply
    advice = Finding(id="x.reconfigure", severity="info", message="after apply, run x", follows="x.conf")
    other = Finding(id="x.other", severity="warning", message="a finding of the host")
    made = Change(id="x.conf", area="storage", target="/etc/x.conf", current="a", desired="b", scope="persistent",
                  action="edit")
    assert after_apply([advice, other], [made]) == [advice, other]
    assert after_apply([advice, other], []) == [other]
