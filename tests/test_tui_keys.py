"""A TUI you can learn by looking: `?`/F1 lists every key, numatune's
commands are in the palette, the footer shows Tab/Enter/s/u, dialogs show
their own keys, `r` means one thing, critical findings start expanded, and
the apply dialog says what the filter hides."""
import pytest

from tui_support import fake_plan, make_app, run, settle

from numatune_tui import keys
from numatune_tui.app import PALETTE


def _app(tmp_path, n=40):
    root = tmp_path / "db01"
    root.mkdir()
    plan = fake_plan(n)
    return make_app(root, plan_source=lambda: (plan, {})), plan


def _footer_keys(app):
    from textual.widgets import Footer
    footer = app.screen.query_one(Footer)
    return {item.key for item in footer.query("FooterKey")}


def _screen_text(app):
    from textual.widgets import Static
    return "\n".join(str(getattr(w.content, "plain", w.content)) for w in app.screen.query(Static))


@pytest.mark.parametrize("key", ["question_mark", "f1"])
def test_help_lists_every_key_of_every_screen(tmp_path, key):
    from numatune_tui.help_screen import HelpScreen
    app, _ = _app(tmp_path)

    async def go():
        async with app.run_test(size=(100, 40)) as pilot:
            await settle(app, pilot)
            await pilot.press(key)
            await pilot.pause()
            assert isinstance(app.screen, HelpScreen)
            table = app.screen.query_one("#help-body Static").content
            from rich.console import Console
            console = Console(width=90, record=True)
            console.print(table)
            text = console.export_text()
            for where, k, _, _, desc, _ in keys.KEYS:
                assert desc in text, desc
            await pilot.press("escape")
            await pilot.pause()
            assert not isinstance(app.screen, HelpScreen)
    run(go())


def test_q_quits_from_the_help_screen_as_the_list_says(tmp_path):
    """The list says q quits everywhere: on the list itself too (escape, ? and F1 close it)."""
    from numatune_tui.help_screen import HelpScreen
    app, _ = _app(tmp_path)

    async def go():
        async with app.run_test(size=(100, 40)) as pilot:
            await settle(app, pilot)
            await pilot.press("question_mark")
            await pilot.pause()
            assert isinstance(app.screen, HelpScreen)
            await pilot.press("q")
        assert app.return_code == 0
    run(go())


def test_every_binding_of_every_screen_is_in_the_key_list():
    """A key bound on a screen but missing from `?` (and the man page) fails here."""
    from numatune_tui.apply_screen import ApplyScreen
    from numatune_tui.app import ReviewApp
    from numatune_tui.confirm import ConfirmScreen
    from numatune_tui.help_screen import HelpScreen
    from numatune_tui.history_screen import HistoryScreen
    from numatune_tui.plan_screen import PlanScreen, PlanTable
    listed = {(k, a) for _, k, a, _, _, _ in keys.KEYS}
    for cls in (ReviewApp, PlanScreen, PlanTable, HistoryScreen, ApplyScreen, ConfirmScreen, HelpScreen):
        for b in cls.BINDINGS:
            if b.show:
                assert (b.key, b.action) in listed, (cls.__name__, b.key)


def test_r_means_one_thing_on_every_screen():
    meanings = {a for _, k, a, _, _, _ in keys.KEYS if k == "r"}
    assert meanings == {"revert"}


def test_the_footer_shows_tab_enter_s_u_and_dialogs_show_their_own(tmp_path):
    app, _ = _app(tmp_path)

    async def go():
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(app, pilot)
            shown = _footer_keys(app)
            assert {"tab", "enter", "s", "u", "question_mark"} <= shown, shown
            await pilot.press("a")
            await pilot.pause()
            shown = _footer_keys(app)
            assert shown == {"y", "n", "escape"}, shown
            await pilot.press("escape")
    run(go())


def test_the_palette_has_numatunes_commands_and_they_run(tmp_path):
    app, plan = _app(tmp_path)

    async def go():
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(app, pilot)
            titles = [c.title for c in app.get_system_commands(app.screen)]
            for title, _, _ in PALETTE:
                assert title in titles
            # Run one through the palette as a user would: ctrl+p, type, enter.
            await pilot.press("ctrl+p")
            await pilot.pause()
            await pilot.press(*"Filter by area")
            await pilot.pause(0.3)
            await pilot.press("enter")
            await settle(app, pilot)
            assert app.screen.filters.area == plan.changes[0].area
    run(go())


def test_critical_findings_start_expanded(tmp_path):
    from numatune_tui import rows
    app, plan = _app(tmp_path)

    async def go():
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(app, pilot)
            screen = app.screen
            assert rows.FINDINGS in screen.expanded
            crit = [r for r in screen.rows if r.kind == "finding" and r.item.severity == "critical"]
            assert crit
    run(go())


def test_apply_dialog_says_what_the_filter_hides(tmp_path):
    app, plan = _app(tmp_path)

    async def go():
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(app, pilot)
            await pilot.press("f")  # the first area only: the other areas' selected changes are hidden
            await pilot.pause()
            area = app.screen.filters.area
            hidden = sum(1 for c in plan.changes if c.area != area)
            await pilot.press("a")
            await pilot.pause()
            body = _screen_text(app)
            assert "%d of them are hidden by the current filter" % hidden in body
            assert "Apply %d changes" % len(plan.changes) in body
            await pilot.press("n")
    run(go())


def test_the_dialog_lists_at_most_its_limit_then_and_n_more(tmp_path):
    from numatune_tui.apply_screen import LISTED, confirm_text
    plan = fake_plan(LISTED + 25)
    text = confirm_text(plan.changes).plain
    assert "... and 25 more" in text and text.count("kernel.fake_knob_") == LISTED


def test_the_docs_key_table_lists_every_key():
    """docs/commands.md's key table names every key of the review screens (keys.KEYS), as `?` lists them."""
    import re
    from pathlib import Path
    text = (Path(__file__).resolve().parents[1] / "docs" / "commands.md").read_text()
    table = text[text.index("| key | does |"):]
    table = table[:table.index("\n\n")]
    documented = {k.lower() for row in table.splitlines()[2:] for k in re.findall(r"`([^`]+)`", row.split("|")[1])}
    missing = sorted({keys.SHOWN.get(key, key) for _, key, *_ in keys.KEYS} - documented)
    assert not missing, "keys the docs' table lacks: %s" % ", ".join(missing)
