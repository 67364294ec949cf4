"""Columns grow with the terminal: at every size each column of the plan and
history tables keeps at least its least width (scope and risk whole), the
table's columns together use the width the layout gives the table, and
what a wider terminal adds goes to the target and the values, which are
what gets cut at 80 columns."""
import pytest

from tui_support import fake_plan, make_app, run, settle

from numatune.model import Change, Write
from textual.widgets import DataTable

from numatune_tui import rows

SIZES = [(80, 24), (120, 40), (160, 50), (220, 60)]
LONG = "sdb (path of ora_data0) queue/max_sectors_kb"  # 44 characters: cut to 29 at 80 columns


def _plan():
    plan = fake_plan(12)
    plan.changes.insert(0, Change(
        id="block.live:sdb:max_sectors_kb", area=plan.changes[0].area, target=LONG, current="512",
        desired="4096", scope="persistent", action="set", why="a long target", risk="medium",
        writes=[Write(kind="value", path="/sys/block/sdb/queue/max_sectors_kb", value="4096")]))
    return plan


def _room(table):
    return table.size.width - table.styles.scrollbar_size_vertical


def test_column_widths_are_the_least_then_grow_by_share():
    least = tuple(w for _, w, _ in rows.COLUMNS)
    padding = rows.CELL_PADDING * len(rows.COLUMNS)
    assert rows.column_widths(0) == least
    assert rows.column_widths(sum(least) + padding) == least
    for room in range(sum(least) + padding, 400, 7):
        widths = rows.column_widths(room)
        assert sum(widths) + padding == room  # every cell of the room is used
        assert all(w >= m for w, m in zip(widths, least))
        # Only target and values grow, target the more.
        grown = [w - m for w, m in zip(widths, least)]
        assert [i for i, g in enumerate(grown) if g] in ([], [2], [2, 3])
        assert grown[2] >= grown[3]


@pytest.mark.parametrize("size", SIZES, ids=["%dx%d" % s for s in SIZES])
def test_plan_columns_use_the_tables_width(tmp_path, size):
    plan = _plan()
    app = make_app(tmp_path, plan_source=lambda: (plan, {}))

    async def go():
        async with app.run_test(size=size) as pilot:
            await settle(app, pilot)
            table = app.screen.query_one("#plan", DataTable)
            widths = [c.width for c in table.ordered_columns]
            assert tuple(widths) == rows.column_widths(_room(table), wanted=table.wanted)
            used = sum(c.get_render_width(table) for c in table.ordered_columns)
            assert used == max(_room(table), used)  # nothing left over, nothing past the edge but the least
            assert table.region.right <= size[0]
            assert widths[1] >= len("persistent") and widths[5] >= len("medium")
            # Targets grow with the terminal (the long one is whole once its column holds it).
            assert widths[2] >= rows.COLUMNS[2][1]
            # The rows are drawn at those widths, not the ones they were added with: fitted to the column
            # (both ends kept), whole where it fits.
            cell = table.get_cell_at((1, 2))
            assert cell.plain == rows.target_text(LONG, widths[2]) and len(cell.plain) <= widths[2]
            assert cell.plain == LONG or widths[2] < len(LONG)
    run(go())


def test_columns_follow_a_resize(tmp_path):
    plan = _plan()
    app = make_app(tmp_path, plan_source=lambda: (plan, {}))

    async def go():
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(app, pilot)
            table = app.screen.query_one("#plan", DataTable)
            narrow = [c.width for c in table.ordered_columns]
            await pilot.press("down")
            cursor = app.screen.current_row().item.id
            await pilot.resize_terminal(160, 50)
            await settle(app, pilot)
            wide = [c.width for c in table.ordered_columns]
            assert wide[2] > narrow[2] and wide[3] > narrow[3]
            assert tuple(wide) == rows.column_widths(_room(table), wanted=table.wanted)
            assert app.screen.current_row().item.id == cursor  # the cursor stays on its change
            await pilot.resize_terminal(80, 24)
            await settle(app, pilot)
            assert [c.width for c in table.ordered_columns] == narrow
    run(go())


@pytest.mark.parametrize("size", SIZES[:3], ids=["%dx%d" % s for s in SIZES[:3]])
def test_history_columns_use_the_tables_width(tmp_path, size):
    from numatune_tui.history_screen import HistoryTable
    plan = _plan()
    app = make_app(tmp_path, plan_source=lambda: (plan, {}))

    async def go():
        async with app.run_test(size=size) as pilot:
            await settle(app, pilot)
            await pilot.press("h")
            await settle(app, pilot)
            table = app.screen.query_one("#history", DataTable)
            widths = tuple(c.width for c in table.ordered_columns)
            assert widths == rows.column_widths(_room(table), HistoryTable.COLUMNS)
            assert widths[0] >= len("20261121T101500-000001-4242") and widths[2] >= len("interrupted revert")
            assert sum(c.get_render_width(table) for c in table.ordered_columns) == _room(table)
    run(go())


def test_the_search_bar_takes_no_width_from_the_table(tmp_path):
    plan = _plan()
    app = make_app(tmp_path, plan_source=lambda: (plan, {}))

    async def go():
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(app, pilot)
            table = app.screen.query_one("#plan", DataTable)
            await pilot.press("slash", *"knob", "enter")
            await pilot.pause(0.3)
            # Its margins once made the body two columns short: "medium" was cut to "mediu".
            assert table.size.width == 80
            used = sum(c.get_render_width(table) for c in table.ordered_columns)
            assert used <= _room(table)
    run(go())


UDEV = "/etc/udev/rules.d/90-numatune.rules: Oracle data LUNs"   # 53 characters


@pytest.mark.parametrize("size", [(160, 50), (220, 60)], ids=["160x50", "220x60"])
def test_a_wide_terminal_shows_targets_whole_before_it_widens_the_details(tmp_path, size):
    """At 160 columns the table took 65% and cut a 53-character target while the details pane was 56
    wide: a wide table now grows to hold its longest target, leaving the details at least
    rows.DETAILS_LEAST columns."""
    plan = _plan()
    plan.changes.insert(0, Change(
        id="block.udev:sdb", area=plan.changes[0].area, target=UDEV, current=None, desired='ACTION=="add"',
        scope="persistent", action="write", why="a udev rule", writes=[]))
    app = make_app(tmp_path, plan_source=lambda: (plan, {}))

    async def go():
        async with app.run_test(size=size) as pilot:
            await settle(app, pilot)
            table = app.screen.query_one("#plan", DataTable)
            cell = table.get_cell_at((1, 2))
            assert cell.plain == UDEV, cell.plain
            details = app.screen.query_one("#details-pane")
            assert details.size.width + 1 >= rows.DETAILS_LEAST   # its border is the +1
            assert table.region.right <= details.region.x
    run(go())


@pytest.mark.parametrize("size", SIZES, ids=["%dx%d" % s for s in SIZES])
def test_the_plan_is_added_once_at_the_columns_final_widths(tmp_path, size, monkeypatch):
    """The first rows are measured at the widths the table has once the plan
    is in (a wide table's width follows its longest target): they were added
    once at the width the table had while loading, then all over again at
    its new width, which delayed the first paint of a big plan."""
    from numatune_tui.plan_screen import PlanTable
    plan = _plan()
    app = make_app(tmp_path, plan_source=lambda: (plan, {}))
    added = []  # the columns' widths at each adding of rows
    real = PlanTable.add_rows

    def counted(table, cells):
        added.append([c.width for c in table.ordered_columns])
        return real(table, cells)
    monkeypatch.setattr(PlanTable, "add_rows", counted)

    async def go():
        async with app.run_test(size=size) as pilot:
            await settle(app, pilot)
            table = app.screen.query_one("#plan", DataTable)
            final = [c.width for c in table.ordered_columns]
            assert added == [final]
            assert tuple(final) == rows.column_widths(_room(table), wanted=table.wanted)
    run(go())
