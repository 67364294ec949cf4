"""The plan screen's two commands that touch files (ctrl+p): export the
plan as JSON, and the diff of the files the selected changes edit. Both
run in worker threads: a big plan is megabytes, a diff reads every file."""
import os
import time

from rich.text import Text
from textual import work
from textual.widgets import Static

from numatune import engine
from numatune.errors import NumatuneError

from . import rows


class FileCommands:
    """Mixed into PlanScreen: uses its app, _status and _update_status."""

    def action_export(self) -> None:
        """The plan as JSON beside the working directory, for `numatune apply --plan`."""
        if self.app.plan is None:
            return
        path = os.path.abspath("numatune-plan-%s.json" % time.strftime("%Y%m%dT%H%M%S"))
        self.save_plan(self.app.plan, path)

    @work(thread=True, exclusive=True, group="export")
    def save_plan(self, plan, path) -> None:
        # A thread: thousands of changes are megabytes of JSON, written to a disk that may be slow.
        try:
            engine.save_plan(plan, path, replace=False)
        except NumatuneError as e:
            self.app.call_from_thread(self.notify, str(e), severity="error")
            return
        self.app.call_from_thread(self.notify, "plan written to %s" % path)

    def action_diff(self) -> None:
        """The engine's diff of the selected changes' file edits (numatune.report.diff), in the details pane."""
        if self.app.plan is None:
            return
        self._status("diffing the files the selected changes edit ...")
        self.make_diff(rows.selected_changes(self.app.plan, self.app.deselected))

    @work(thread=True, exclusive=True, group="diff")
    def make_diff(self, chosen) -> None:
        # A thread: it reads every file the changes edit.
        try:
            text = engine.diff_text(self.app.root, chosen)
        except (NumatuneError, OSError) as e:
            text = "cannot diff: %s" % e
        self.app.call_from_thread(self._show_diff, text)

    def _show_diff(self, text) -> None:
        self._update_status()
        self.query_one("#details", Static).update(Text(text))
        self.query_one("#details-pane").scroll_home(animate=False)
