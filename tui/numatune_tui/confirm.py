"""A yes/no question as a modal screen: y, n and escape, or the buttons."""
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Static

from .keys import bindings


class ConfirmScreen(ModalScreen[bool]):
    BINDINGS = bindings("dialog")

    def __init__(self, title, body, yes="Yes (y)", no="No (n)"):
        super().__init__()
        self.title_text = title
        self.body = body
        self.yes = yes
        self.no = no

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(self.title_text, id="dialog-title")
            with VerticalScroll(id="dialog-body"):
                yield Static(self.body)
            with Horizontal(id="dialog-buttons"):
                yield Button(self.yes, id="yes", variant="warning")
                yield Button(self.no, id="no", variant="primary")
        # Its own keys (y, n, esc), not the plan screen's.
        yield Footer(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        # The safe answer has the focus: enter alone never applies.
        self.query_one("#no", Button).focus()

    def action_answer(self, value: bool) -> None:
        self.dismiss(value)

    def action_cancel(self) -> None:
        self.dismiss(False)

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")
