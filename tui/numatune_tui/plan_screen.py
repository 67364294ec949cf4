"""The plan screen: changes grouped by area in a DataTable (left or top),
the selected row's details (right or below), selection, filters and search.

5,000 changes: the DataTable only draws visible rows, but it measures every
added cell once, so rows beyond the first screenful are added in chunks
between frames and keys stay responsive while a big plan fills in."""
from functools import partial

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Container, VerticalScroll
from textual.coordinate import Coordinate
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Input, Static

from numatune.errors import NumatuneError
from numatune.report.console import summary_line

from . import rows
from .details_pane import DetailsPane
from .file_commands import FileCommands
from .keys import bindings
from .rows import Filters
from .tables import FittedTable

FIRST_ROWS = 20
CHUNK_ROWS = 250
SEARCH_DELAY = 0.15


class PlanTable(FittedTable):
    """The plan's table; its enter (open a group) shows in the footer."""
    BINDINGS = bindings("table")
    COLUMNS = rows.COLUMNS


class PlanScreen(DetailsPane, FileCommands, Screen):
    BINDINGS = bindings("plan")

    class PlanReady(Message):
        def __init__(self, plan, facts):
            super().__init__()
            self.plan = plan
            self.facts = facts

    class PlanFailed(Message):
        def __init__(self, error):
            super().__init__()
            self.error = error

    def __init__(self):
        super().__init__()
        self.filters = Filters()
        self.expanded = set()
        self.rows = []
        self._generation = 0
        self._widths = None
        self._search_timer = None
        self._first_load = True
        self._details_wanted = None
        self._details_busy = False
        self._reading = False  # the plan is being read: what app.plan holds is not shown

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("", id="status")
        search = Input(placeholder="/ search target, id, value or why (enter: done, escape: clear)",
                       id="search", compact=True)
        # Shown by `/`; until then disabled too, or it would take the first focus.
        search.display = False
        search.disabled = True
        search.cursor_blink = False
        yield search
        with Container(id="body"):
            yield PlanTable(id="plan", cursor_type="row", zebra_stripes=True)
            with VerticalScroll(id="details-pane"):
                yield Static("", id="details")
        yield Footer(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        self.reload()

    # Reading the host happens in a thread; the screen hears back by message.

    def reload(self) -> None:
        # The table stays focused, empty, with no animated cover over it: a cover disables the table
        # and keeps the screen repainting, and focusing the table when the plan came painted its
        # rows a second time (bench/tui_first_paint.py). A plan shown before is stale: emptied.
        self._reading = True
        self._generation += 1  # rows still being added in chunks stop
        self.rows = []
        self._details_wanted = None
        self.query_one("#plan", DataTable).clear()
        waiting = "reading facts and planning under %s ..." % self.app.root.path
        self._status(waiting)
        self.query_one("#details", Static).update(Text(waiting, style="dim"))
        self.load_plan()

    @work(thread=True, exclusive=True, group="plan")
    def load_plan(self) -> None:
        try:
            plan, facts = self.app.read_plan()
        except (NumatuneError, OSError) as e:
            self.post_message(self.PlanFailed(str(e)))
            return
        self.post_message(self.PlanReady(plan, facts))

    @on(PlanReady)
    def _plan_ready(self, event: PlanReady) -> None:
        app = self.app
        app.plan, app.facts = event.plan, event.facts
        app.stale = False
        self._reading = False
        # Until a change's details are read (after the rows are painted), not the wait's message.
        self.query_one("#details", Static).update("")
        self.sub_title = "%s · policy %s" % (rows.host_label(event.plan), app.policy.name if app.policy else "-")
        names = rows.groups(event.plan)
        if self._first_load or not self.expanded & set(names):
            # Open on the first group, so the first changes are in view, and
            # on critical findings, which must never sit folded away.
            self.expanded.update(names[:1])
            if any(f.severity == "critical" for f in event.plan.findings):
                self.expanded.add(rows.FINDINGS)
            self._first_load = False
        table = self.query_one("#plan", DataTable)
        table.wanted = {rows.TARGET: rows.longest_target(event.plan)}
        # The columns at the table's new width now: its resize then finds them fitted, and the
        # first rows (a big plan's first paint) are not added all over again.
        table.fit_columns(self._fit_table())
        self.refill(cursor=1)
        table.focus()

    def on_resize(self) -> None:
        self._fit_table()

    def _fit_table(self):
        """Beside the details (a wide terminal), the table takes what its targets need (rows.wide_table_width);
        below them, the stylesheet's width. Its columns follow on its own resize (tables.FittedTable).
        Returns the width given, None for the stylesheet's."""
        table = self.query_one("#plan", DataTable)
        wide = self.has_class("-wide") and self.app.plan is not None
        width = rows.wide_table_width(self.size.width, self.app.plan) if wide else None
        table.styles.width = width
        return width

    @on(PlanFailed)
    def _plan_failed(self, event: PlanFailed) -> None:
        self._reading = False
        self.query_one("#plan", DataTable).focus()
        self._status("could not plan: %s" % event.error)
        self.query_one("#details", Static).update(Text("numatune: %s" % event.error, style="bold red"))

    # The table.

    def refill(self, cursor=None) -> None:
        """Rebuild the rows from the plan, filters and expanded groups;
        keep the cursor on the same item when it is still shown."""
        plan = self.app.plan
        if plan is None or self._reading:
            return
        table = self.query_one("#plan", DataTable)
        current = self.current_row()
        self.rows = rows.visible_rows(plan, self.filters, self.expanded)
        index = 0 if cursor is None else min(cursor, max(len(self.rows) - 1, 0))
        if cursor is None and current is not None:
            for i, row in enumerate(self.rows):
                if (row.kind, row.group, row.item) == (current.kind, current.group, current.item):
                    index = i
                    break
        self._generation += 1
        # The columns' widths now (a resize refills): the target and values are fitted to them.
        self._widths = [c.width for c in table.ordered_columns] or None
        table.clear()
        # Enough rows to fill the screen around the cursor; the rest follow.
        first = max(self.size.height + FIRST_ROWS, index + FIRST_ROWS)
        table.add_rows(self._cells(r) for r in self.rows[:first])
        if len(self.rows) > first:
            # After this frame is on screen: the first paint waits for no chunk.
            self.call_after_refresh(self.set_timer, 0.01, partial(self._fill_more, self._generation, first))
        if self.rows:
            table.move_cursor(row=index, animate=False)
        self._update_status()
        self._show_details()

    def _fill_more(self, generation, start) -> None:
        if generation != self._generation:
            return  # a newer refill replaced these rows
        table = self.query_one("#plan", DataTable)
        end = start + CHUNK_ROWS
        table.add_rows(self._cells(r) for r in self.rows[start:end])
        if end < len(self.rows):
            self.set_timer(0.01, partial(self._fill_more, generation, end))

    def _cells(self, row):
        return [Text(text, style=rows.STYLE.get(style, style), no_wrap=True, overflow="ellipsis")
                for text, style in rows.cells(row, self.expanded, self.app.deselected, self.app.plan,
                                              self._widths)]

    def _update_row(self, index) -> None:
        table = self.query_one("#plan", DataTable)
        if index >= table.row_count:
            return
        for column, cell in enumerate(self._cells(self.rows[index])):
            table.update_cell_at(Coordinate(index, column), cell)

    def current_row(self):
        table = self.query_one("#plan", DataTable)
        if not self.rows or table.row_count == 0:
            return None
        i = table.cursor_row
        return self.rows[i] if 0 <= i < len(self.rows) else None

    def _status(self, text) -> None:
        self.query_one("#status", Static).update(text)

    def _update_status(self) -> None:
        plan = self.app.plan
        if plan is None:
            return
        if not plan.changes and not plan.findings:
            self._status(summary_line(plan))
        else:
            self._status(rows.summary(plan, self.app.deselected, self.filters))

    @on(DataTable.RowHighlighted, "#plan")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_details()

    @on(DataTable.RowSelected, "#plan")
    def _selected(self, event: DataTable.RowSelected) -> None:
        self.action_open()

    def action_open(self) -> None:
        row = self.current_row()
        if row is not None and row.kind == "group":
            self.expanded ^= {row.group}
            self.refill()

    def action_reload(self) -> None:
        self.reload()

    def action_reload_plan(self) -> None:
        self.reload()

    # Selection.

    def action_toggle(self) -> None:
        row = self.current_row()
        if row is None:
            return
        deselected = self.app.deselected
        if row.kind == "finding":
            self.notify("findings are reported, not applied", severity="warning")
            return
        if row.kind == "change":
            deselected ^= {row.item.id}
            index = self.query_one("#plan", DataTable).cursor_row
            self._update_row(index)
            group = next(i for i in range(index, -1, -1) if self.rows[i].kind == "group")
            self._update_row(group)
        else:
            members = [c.id for c in self.app.plan.changes
                       if c.area == row.group and self.filters.change_matches(c)]
            if any(i in deselected for i in members):
                deselected.difference_update(members)
            else:
                deselected.update(members)
            self.refill()
        self._update_status()

    def action_select_all(self) -> None:
        if self.app.plan is None:
            return  # still being read
        self.app.deselected.difference_update(c.id for c in self.app.plan.changes if self.filters.change_matches(c))
        self.refill()

    def action_select_none(self) -> None:
        if self.app.plan is None:
            return  # still being read
        self.app.deselected.update(c.id for c in self.app.plan.changes if self.filters.change_matches(c))
        self.refill()

    # Filters and search.

    def action_area(self) -> None:
        if self.app.plan is None:
            return
        self.filters.area = rows.next_area(self.app.plan, self.filters.area)
        if self.filters.area:
            self.expanded.add(self.filters.area)
        self.refill(cursor=0)

    def action_severity(self) -> None:
        self.filters.severity = rows.next_severity(self.filters.severity)
        self.expanded.add(rows.FINDINGS)
        self.refill(cursor=0)

    def action_high_risk(self) -> None:
        self.filters.high_risk_only = not self.filters.high_risk_only
        self.refill(cursor=0)

    def action_clear_filters(self) -> None:
        search = self.query_one("#search", Input)
        search.value = ""
        self.filters = Filters()
        self.action_clear_search()
        self.refill(cursor=0)

    def action_search(self) -> None:
        search = self.query_one("#search", Input)
        search.disabled = False
        search.display = True
        search.focus()

    def action_clear_search(self) -> None:
        search = self.query_one("#search", Input)
        search.display = False
        search.disabled = True
        if self.filters.search:
            search.value = ""
            self.filters.search = ""
            self.refill()
        self.query_one("#plan", DataTable).focus()

    @on(Input.Changed, "#search")
    def _search_changed(self, event: Input.Changed) -> None:
        # Wait for a pause in typing: each refill re-measures the rows.
        if self._search_timer is not None:
            self._search_timer.stop()
        self._search_timer = self.set_timer(SEARCH_DELAY, partial(self._apply_search, event.value))

    def _apply_search(self, text) -> None:
        self._search_timer = None
        if text == self.filters.search:
            return
        self.filters.search = text
        if text and self.app.plan is not None:
            # Show what matched: a search looks into every group.
            self.expanded.update(rows.groups(self.app.plan))
        self.refill(cursor=0)

    @on(Input.Submitted, "#search")
    def _search_done(self, event: Input.Submitted) -> None:
        if self._search_timer is not None:
            self._search_timer.stop()
        self._apply_search(event.value)
        self.query_one("#plan", DataTable).focus()

    # Other screens.

    def action_apply(self) -> None:
        from .apply_screen import ApplyScreen, confirm_text
        from .confirm import ConfirmScreen
        plan = self.app.plan
        if plan is None:
            return
        chosen = rows.selected_changes(plan, self.app.deselected)
        if not chosen:
            self.notify("nothing selected to apply", severity="warning")
            return

        def answered(ok):
            if ok:
                self.app.push_screen(ApplyScreen(chosen))

        title = "Apply %d change%s to %s?" % (len(chosen), "" if len(chosen) == 1 else "s", rows.host_label(plan))
        hidden = sum(1 for c in chosen if not self.filters.change_matches(c))
        self.app.push_screen(ConfirmScreen(title, confirm_text(chosen, hidden), yes="Apply (y)", no="Cancel (n)"),
                             answered)

    def action_history(self) -> None:
        from .history_screen import HistoryScreen
        self.app.push_screen(HistoryScreen())

    def on_screen_resume(self) -> None:
        # Back from apply or history: what the host holds may have changed.
        if getattr(self.app, "stale", False):
            self.reload()
