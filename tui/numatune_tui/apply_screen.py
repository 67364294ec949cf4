"""Applying the selected changes: what the confirmation says, then a
progress view while the engine journals, writes and verifies in a worker
thread. A failure and the automatic rollback are shown write by write."""
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Header, ProgressBar, RichLog, Static

from numatune import engine
from numatune.errors import NumatuneError
from numatune.report.hints import carry, command, context
from numatune.report.console import change_counts, unjournaled_line, waiting_lines
from numatune.report.grouped import ARROW

from .keys import bindings
from .rows import STYLE, value_text

LISTED = 300  # changes listed by name in the confirmation; a dialog is no place for 5,000


def confirm_text(changes, hidden=0):
    """What the confirmation lists: every change, then the consequences.
    ``hidden``: how many of them the screen's filter keeps out of view."""
    t = Text()
    t.append("%s, journaled first and rolled back on any failure.\n"
             % change_counts(len(changes), engine.planned_writes(changes), planned=True))
    if hidden:
        t.append("%d of them are hidden by the current filter; they are applied too.\n" % hidden,
                 style="bold yellow")
    t.append("\n")
    reboot = [c for c in changes if c.reboot_required]
    restart = [c for c in changes if c.restart_required]
    high = [c for c in changes if c.risk == "high"]
    if reboot:
        t.append("%d take effect only at the next reboot.\n" % len(reboot), style="bold magenta")
    if restart:
        t.append("%d take effect only after a restart (the instance or the service).\n" % len(restart),
                 style="bold yellow")
    if high:
        t.append("%d are high risk.\n" % len(high), style="bold red")
    if not (reboot or restart):
        t.append("No reboot or restart needed.\n", style="green")
    t.append("\n")
    for c in changes[:LISTED]:
        t.append("%-10s " % c.scope, style=STYLE.get(c.scope, ""))
        t.append("%s: %s %s %s\n" % (c.target, value_text(c.current), ARROW, value_text(c.desired)))
    if len(changes) > LISTED:
        t.append("... and %d more (all are journaled)\n" % (len(changes) - LISTED), style="bold")
    return t


UNDO_STYLE = {"undone": "green", "left alone": "bold red", "pending": "bold red"}
UNDO_LABEL = {"undone": "", "left alone": "NOT UNDONE ", "pending": "still pending "}


def rolled_back(root, txid):
    """The engine's account of what was undone after a failure, as
    [(text, style)]; empty when the run stopped before its journal was opened."""
    report = engine.undo_report(root, txid)
    if report is None:
        return []
    state, writes = report
    return [("transaction %s: %s" % (txid, state), "bold")] + [
        ("  %s%s" % (UNDO_LABEL[what_happened], what), UNDO_STYLE[what_happened]) for what_happened, what in writes]


class ApplyScreen(Screen):
    BINDINGS = bindings("apply") + [Binding("enter", "back", "Back", show=False)]

    class WriteDone(Message):
        def __init__(self, change_id, description):
            super().__init__()
            self.change_id = change_id
            self.description = description

    class Finished(Message):
        def __init__(self, txid, changes, ops, findings):
            super().__init__()
            self.txid = txid
            self.changes = changes
            self.ops = ops
            self.findings = findings

    class Failed(Message):
        def __init__(self, error, undone):
            super().__init__()
            self.error = error
            self.undone = undone

    def __init__(self, changes):
        super().__init__()
        self.changes = changes
        self.done = False
        self.outcome = None  # "applied" or "failed" once the worker is through

    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical(id="apply-body"):
            yield Static("applying %d change(s) ..." % len(self.changes), id="apply-title")
            yield ProgressBar(total=engine.planned_writes(self.changes) or 1, show_eta=False,
                              id="apply-progress")
            yield RichLog(id="apply-log", wrap=True, markup=False, min_width=20)
        yield Footer(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        self.app.stale = True
        self.run_apply()

    @work(thread=True, exclusive=True, group="apply")
    def run_apply(self) -> None:
        app = self.app
        # Chosen here so a failure can be read back from its journal.
        txid = engine.new_txid()

        def on_write(change, op):
            self.post_message(self.WriteDone(change.id, engine.describe_op(op)))

        try:
            # The engine plans again and insists the host still matches what
            # was reviewed, as `apply --plan` does with a saved plan.
            txid, changes, ops, findings = engine.apply_reviewed(app.root, app.policy, self.changes, app.only,
                                                                 app.skip, command="review", on_write=on_write,
                                                                 txid=txid)
        except (NumatuneError, OSError) as e:
            self.post_message(self.Failed(carry(str(e), context(app.root.path)), rolled_back(app.root, txid)))
            return
        self.post_message(self.Finished(txid, changes, ops, findings))

    @on(WriteDone)
    def _write_done(self, event: WriteDone) -> None:
        self.query_one("#apply-progress", ProgressBar).advance(1)
        self.query_one("#apply-log", RichLog).write(Text("wrote %s" % event.description, style="green"))

    @on(Finished)
    def _finished(self, event: Finished) -> None:
        self.done, self.outcome = True, "applied"
        bar = self.query_one("#apply-progress", ProgressBar)
        bar.update(total=max(len(event.ops), 1), progress=max(len(event.ops), 1))
        log = self.query_one("#apply-log", RichLog)
        title = Text("transaction %s: %s applied and verified"
                     % (event.txid, change_counts(len(event.changes), len(event.ops))), style="bold green")
        self.query_one("#apply-title", Static).update(title)
        log.write(title)
        needless = unjournaled_line(engine.planned_writes(event.changes), engine.carried_writes(event.ops),
                                   len(event.ops))
        if needless:
            # The dialog counted planned writes: say where the difference went (as `numatune apply` does).
            log.write(Text(needless, style="dim"))
        # What waits for a reboot or a restart, named, as `numatune apply` prints it.
        for line in waiting_lines(event.changes, event.findings):
            log.write(Text(line, style="magenta" if not line.startswith(" ") else ""))
        for f in event.findings:
            log.write(Text("%s %s" % (f.severity.upper(), f.message), style=STYLE.get(f.severity, "")))
        root = self.app.root
        log.write(Text("undo it from the history screen (h), or: "
                       + command("revert", event.txid, ctx=context(root.path)), style="dim"))

    @on(Failed)
    def _failed(self, event: Failed) -> None:
        self.done, self.outcome = True, "failed"
        undone = any(style == "green" for _, style in event.undone)
        self.query_one("#apply-title", Static).update(
            Text("APPLY FAILED: %s" % ("the run was rolled back" if undone else "nothing was changed"),
                 style="bold red"))
        log = self.query_one("#apply-log", RichLog)
        log.write(Text("numatune: %s" % event.error, style="bold red"))
        for text, style in event.undone:
            log.write(Text(text, style=style))
        if not event.undone:
            log.write(Text("nothing was written: the run stopped before its first write", style="green"))

    def action_back(self) -> None:
        if not self.done:
            self.notify("the engine is still working; it journals every write", severity="warning")
            return
        self.app.pop_screen()

    def action_history(self) -> None:
        if not self.done:
            return
        from .history_screen import HistoryScreen
        self.app.switch_screen(HistoryScreen())
