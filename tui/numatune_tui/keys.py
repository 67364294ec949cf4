"""Every key of the review screens, in one place: the screens build their
bindings from it, the help screen (`?`/F1) lists it and the man page
(packaging/cli_docs.py) prints it. Plain data: no Textual import, so the
man page can be generated without it.

(screen, key, action, footer label, description, in the footer)."""

# 80 columns hold about ten footer keys: the filters and search are in `?` and ctrl+p.
KEYS = [
    ("any", "question_mark", "app.help", "Keys", "list every key (also F1)", True),
    ("any", "f1", "app.help", "Keys", "list every key", False),
    ("any", "ctrl+p", "app.command_palette", "Commands", "commands: apply, revert, filters, reload, export, diff",
     False),
    ("any", "q", "quit_review", "Quit", "quit", True),
    ("plan", "tab", "app.focus_next", "Pane", "move between the plan and the details", True),
    ("table", "enter", "select_cursor", "Open", "open or close a group", True),
    ("plan", "space", "toggle", "Select", "select or deselect the change (a group: all of it)", True),
    ("plan", "s", "select_all", "All", "select every change the filters show", True),
    ("plan", "u", "select_none", "None", "deselect every change the filters show", True),
    ("plan", "a", "apply", "Apply", "apply the selected changes (asks first)", True),
    ("plan", "slash", "search", "Search", "search targets, ids, values and whys", False),
    ("plan", "f", "area", "Area", "filter by area (cycles)", False),
    ("plan", "v", "severity", "Severity", "filter findings by severity (cycles)", False),
    ("plan", "k", "high_risk", "Risk", "show only high-risk changes and critical findings", False),
    ("plan", "x", "clear_filters", "Clear", "clear every filter and the search", False),
    ("plan", "ctrl+r", "reload", "Reload", "read the host and plan again", False),
    ("plan", "h", "history", "History", "the journal: past transactions, revert", True),
    ("plan", "escape", "clear_search", "Clear", "clear the search", False),
    ("history", "r", "revert", "Revert", "revert the transaction under the cursor (asks first)", True),
    ("history", "escape", "back", "Plan", "back to the plan (also h)", True),
    ("apply", "escape", "back", "Plan", "back to the plan (also enter)", True),
    ("apply", "h", "history", "History", "the journal", True),
    ("dialog", "y", "answer(True)", "Yes", "yes", True),
    ("dialog", "n", "answer(False)", "No", "no", True),
    ("dialog", "escape", "cancel", "Cancel", "cancel", True),
    ("help", "escape", "close", "Close", "close this list (also ? and F1); q still quits", True),
]
SHOWN = {"slash": "/", "question_mark": "?"}
TITLES = {"any": "everywhere", "table": "the plan", "plan": "the plan", "history": "history",
          "apply": "after apply",
          "dialog": "a question", "help": "this list"}


def bindings(screen):
    """Textual Bindings of one screen, from KEYS."""
    from textual.binding import Binding
    return [Binding(key, action, label, show=shown, tooltip=desc)
            for where, key, action, label, desc, shown in KEYS if where == screen]


def man_keys():
    """[(key, text)] for the man page."""
    return [(SHOWN.get(key, key), "%s: %s" % (TITLES[where], desc))
            for where, key, _, _, desc, _ in KEYS]
