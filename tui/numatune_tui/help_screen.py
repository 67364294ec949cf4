"""`?` or F1: every key of every screen, from keys.KEYS, in a scrollable modal."""
from rich.table import Table
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from .keys import KEYS, SHOWN, TITLES, bindings


def keys_table():
    table = Table(box=None, show_header=False, padding=(0, 2, 0, 0))
    table.add_column("key", style="bold", no_wrap=True)
    table.add_column("what it does")
    where_was = None
    for where, key, _, _, desc, _ in KEYS:
        if TITLES[where] != where_was:
            table.add_row("", "")
            table.add_row("[b u]%s[/]" % TITLES[where].capitalize(), "")
            where_was = TITLES[where]
        table.add_row(SHOWN.get(key, key), desc)
    return table


class HelpScreen(ModalScreen[None]):
    # q quits here too, as the list says it does everywhere (a modal screen
    # does not pass it on to the app's binding).
    BINDINGS = bindings("help") + [Binding("question_mark", "close", "Close", show=False),
                                   Binding("f1", "close", "Close", show=False),
                                   Binding("q", "app.quit_review", "Quit", show=False)]

    def compose(self) -> ComposeResult:
        with Vertical(id="help"):
            yield Static("numatune review: keys", id="help-title")
            with VerticalScroll(id="help-body"):
                yield Static(keys_table())
            yield Footer(compact=True, show_command_palette=False)

    def action_close(self) -> None:
        self.dismiss(None)
