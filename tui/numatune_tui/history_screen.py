"""Past transactions from the journal, what each changed, and revert with
confirmation. Reading the journal and reverting run in worker threads."""
import os

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Container, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Static

from numatune import engine
from numatune.errors import NumatuneError
from numatune.report.hints import carry, command, context
from numatune.report.console import newest_first, revert_summary
from numatune.report.grouped import ARROW

from .keys import bindings
from .rows import STYLE, value_text
from .tables import FittedTable

STATE_STYLE = {"applied": "green", "reverted": "dim", "rolled back": "yellow", "partly reverted": "bold yellow",
               "interrupted": "bold red", "interrupted revert": "bold red"}


def tx_details(tx):
    t = Text()
    t.append("transaction %s\n" % tx.txid, style="bold")
    t.append("%s · %s · %s\n" % (tx.time or "?", tx.begin.get("command", "?"), tx.state),
             style=STATE_STYLE.get(tx.state, ""))
    t.append("\nchanges\n", style="bold underline")
    for c in tx.changes:
        t.append("%-10s " % c.get("scope", ""), style=STYLE.get(c.get("scope"), ""))
        t.append("%s: %s %s %s\n" % (c.get("target"), value_text(c.get("current")), ARROW,
                                      value_text(c.get("desired"))))
    t.append("\nwrites\n", style="bold underline")
    if not tx.ops:
        t.append("(none)\n", style="dim")
    for seq in sorted(tx.ops):
        what = engine.describe_op(tx.ops[seq]["op"])
        status = ("undone" if seq in tx.undone else "left alone" if seq in tx.skipped
                  else "done" if seq in tx.done else "announced, not confirmed")
        t.append("%d %s: %s\n" % (seq, status, what), style="dim" if seq in tx.undone else "")
    return t


class HistoryTable(FittedTable):
    # A txid is up to 30 characters (a 7-digit pid) and is never cut: it is what a person copies. The time
    # is 19, the longest state 18 ("interrupted revert"). With padding and scrollbar: 80 columns.
    COLUMNS = (("transaction", 30, 0), ("time", 19, 0), ("state", 18, 1), ("chg", 3, 0))


class HistoryScreen(Screen):
    BINDINGS = bindings("history") + [Binding("h", "back", "Plan", show=False)]

    class Loaded(Message):
        def __init__(self, transactions, error=None):
            super().__init__()
            self.transactions = transactions
            self.error = error

    class Reverted(Message):
        def __init__(self, txid, restored, skipped, failed, error=None):
            super().__init__()
            self.txid = txid
            self.restored = restored
            self.skipped = skipped
            self.failed = failed
            self.error = error

    def __init__(self):
        super().__init__()
        self.transactions = []
        self.result = None  # a Text saying how the last revert went

    def compose(self) -> ComposeResult:
        yield Header()
        root = self.app.root
        where = "" if root.is_live else " under --root %s" % (os.path.basename(root.path) or "/")
        yield Static("transactions in %s%s (newest first)" % (engine.journal_dir(), where), id="history-status")
        with Container(id="history-body"):
            yield HistoryTable(id="history", cursor_type="row", zebra_stripes=True)
            with VerticalScroll(id="tx-pane"):
                yield Static("", id="tx-details")
        yield Footer(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        table = self.query_one("#history", DataTable)
        table.loading = True
        self.load()

    @work(thread=True, exclusive=True, group="history")
    def load(self) -> None:
        try:
            txs = engine.transactions(self.app.root)
        except (NumatuneError, OSError) as e:
            self.post_message(self.Loaded([], str(e)))
            return
        self.post_message(self.Loaded(newest_first(txs)))

    @on(Loaded)
    def _loaded(self, event: Loaded) -> None:
        table = self.query_one("#history", DataTable)
        table.loading = False
        keep = self.current().txid if self.current() else None
        self.transactions = event.transactions
        self.refill()
        if event.error:
            self.query_one("#tx-details", Static).update(Text("numatune: %s" % event.error, style="bold red"))
            return
        if not self.transactions:
            self.query_one("#tx-details", Static).update("no transactions in the journal yet")
            return
        index = next((i for i, tx in enumerate(self.transactions) if tx.txid == keep), 0)
        table.move_cursor(row=index, animate=False)
        table.focus()
        self._show()

    def refill(self) -> None:
        """The rows, from the transactions read last (again after a resize)."""
        table = self.query_one("#history", DataTable)
        cursor = table.cursor_row
        table.clear()
        for tx in self.transactions:
            table.add_row(tx.txid, (tx.time or "?")[:19].replace("T", " "),
                          Text(tx.state, style=STATE_STYLE.get(tx.state, "")), str(len(tx.changes)))
        if self.transactions:
            table.move_cursor(row=min(cursor, len(self.transactions) - 1), animate=False)

    def current(self):
        if not self.transactions:
            return None
        i = self.query_one("#history", DataTable).cursor_row
        return self.transactions[i] if 0 <= i < len(self.transactions) else None

    def _show(self) -> None:
        tx = self.current()
        if tx is None:
            return
        text = Text()
        if self.result is not None:
            text.append_text(self.result)
            text.append("\n")
        text.append_text(tx_details(tx))
        self.query_one("#tx-details", Static).update(text)

    @on(DataTable.RowHighlighted, "#history")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show()

    def action_revert(self) -> None:
        from .confirm import ConfirmScreen
        tx = self.current()
        if tx is None:
            return
        if tx.state in engine.FINAL_STATES:
            self.notify("transaction %s is already %s" % (tx.txid, tx.state), severity="warning")
            return
        body = Text("Put back what these writes replaced, newest first, in the undo direction. A value "
                    "changed since by someone else is left alone (see `numatune revert --force`).\n\n")
        for item in tx.pending_undo():
            body.append("%s\n" % engine.describe_undo(item["op"]))

        def answered(ok):
            if ok:
                # Before the first write: the plan behind this screen is out of date from here on.
                self.app.stale = True
                self.run_revert(tx.txid)

        self.app.push_screen(ConfirmScreen("Revert transaction %s?" % tx.txid, body,
                                           yes="Revert (y)", no="Cancel (n)"), answered)

    @work(thread=True, exclusive=True, group="revert")
    def run_revert(self, txid) -> None:
        try:
            # The engine's revert, as `numatune revert TXID` runs it: lock, journal, checks.
            _, restored, skipped, failed = engine.revert(self.app.root, txid)
        except (NumatuneError, OSError) as e:
            self.post_message(self.Reverted(txid, [], [], [], carry(str(e), context(self.app.root.path))))
            return
        self.post_message(self.Reverted(txid, restored, skipped, failed))

    @on(Reverted)
    def _reverted(self, event: Reverted) -> None:
        self.app.stale = True
        t = Text()
        if event.error:
            t.append("revert failed: %s\n" % event.error, style="bold red")
        else:
            ok = not (event.skipped or event.failed)
            tx = next(tx for tx in self.transactions if tx.txid == event.txid)
            t.append(revert_summary(tx, event.restored, event.skipped, event.failed) + "\n",
                     style="bold green" if ok else "bold red")
            for line in event.skipped:
                t.append("  LEFT ALONE %s: changed since by someone else\n" % line, style="yellow")
            for line in event.failed:
                t.append("  FAILED %s\n" % line, style="bold red")
            if event.skipped:
                t.append("to restore those too: %s\n" % command("revert", event.txid, "--force",
                                                                  ctx=context(self.app.root.path)), style="dim")
        self.result = t
        self.load()

    def action_back(self) -> None:
        if self.app.writing():
            self.notify("the revert is still running; it journals every undo", severity="warning")
            return
        self.app.pop_screen()
