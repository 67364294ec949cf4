"""The plan screen's details pane: a group's or finding's details at once,
a change's from a worker thread (they read the file its diff is of)."""
from textual import work
from textual.widgets import Static

from numatune.report.console import summary_line

from . import details


class DetailsPane:
    """Mixed into PlanScreen: uses its app, filters and current_row; the
    screen's __init__ sets _details_wanted and _details_busy."""

    def _show_details(self) -> None:
        pane = self.query_one("#details", Static)
        row = self.current_row()
        app = self.app
        # Only a change's details come from a worker; any other row's are shown right here.
        self._details_wanted = row.item if row is not None and row.kind == "change" else None
        if row is None:
            text = summary_line(app.plan) if app.plan else ""
            if app.plan and (app.plan.changes or app.plan.findings):
                text = ("nothing matches the filters (%s); x clears them" % self.filters.describe())
            pane.update(text)
        elif row.kind == "change":
            self._want_details(row.item)
            return
        elif row.kind == "finding":
            pane.update(details.finding_details(row.item, app.policy))
        else:
            pane.update(details.group_details(row.group, row.count, app.plan))
        self.query_one("#details-pane").scroll_home(animate=False)

    # A change's details read the file its diff is of: in a thread, never on
    # the event loop. One at a time; when the cursor moved on meanwhile, the
    # latest change is shown next and those passed over are never read.
    # Only once the frame that moved the cursor (or showed the plan's first
    # rows) is painted: the thread still holds the interpreter while it works
    # (it imports every family for their rivals), and would delay that frame.

    def _want_details(self, change) -> None:
        self._details_wanted = change
        if not self._details_busy:
            self._details_busy = True
            self.call_after_refresh(self._read_details)

    def _read_details(self) -> None:
        change = self._details_wanted
        if change is None:
            # The cursor moved to a group or finding meanwhile: its details are already shown.
            self._details_busy = False
            return
        # The diff is wrapped to the pane here (two columns kept for its scrollbar); a resize that
        # changes the table refills it, and so shows the details again at the new width.
        self.change_details(change, max(self.query_one("#details", Static).size.width - 2, 20))

    @work(thread=True, group="details")
    def change_details(self, change, width=None) -> None:
        app = self.app
        text = details.change_details(change, app.plan, app.facts, app.policy, app.root, width)
        self.app.call_from_thread(self._change_details_ready, change, text)

    def _change_details_ready(self, change, text) -> None:
        self._details_busy = False
        if self._details_wanted is not change:
            # The cursor moved on meanwhile: to another change (read it next), or to a group or finding
            # whose details are already shown (a group row has no item: never read "None"'s details).
            if self._details_wanted is not None:
                self._want_details(self._details_wanted)
            return
        self.query_one("#details", Static).update(text)
        self.query_one("#details-pane").scroll_home(animate=False)
