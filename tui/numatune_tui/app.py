"""The review app: the state every screen shares (root, policy, the plan,
what is deselected) and the engine calls, which always run in workers."""
from pathlib import Path

from textual.app import App, SystemCommand
from textual.worker import WorkerState

from numatune import engine

from .keys import bindings
from .plan_screen import PlanScreen


class ReviewApp(App[int]):
    # Absolute: a subclass elsewhere (the benchmark) must find it too.
    CSS_PATH = Path(__file__).with_name("review.tcss")
    TITLE = "numatune review"
    # The details pane sits beside the table when there is room, below it otherwise.
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (110, "-wide")]
    BINDINGS = bindings("any")

    def __init__(self, root, policy, only=None, skip=None, plan_source=None):
        """``plan_source`` () -> (plan, facts) replaces the engine's fact
        reading and planning (tests and the benchmark feed big plans)."""
        super().__init__()
        self.root = root
        self.policy = policy
        self.only = only or None
        self.skip = skip or None
        self._plan_source = plan_source
        self.plan = None
        self.facts = None
        # Deselected, not selected: a change that appears after a re-plan is
        # selected, one the user turned off stays off.
        self.deselected = set()
        # Set after an apply or revert: the plan on screen no longer matches the host.
        self.stale = False

    def get_default_screen(self):
        return PlanScreen()

    def read_plan(self):
        """Facts and plan; slow (reads the host), so only call it in a worker."""
        if self._plan_source is not None:
            return self._plan_source()
        return engine.make_plan(self.root, self.policy, self.only, self.skip)

    # Groups of the workers that write to the host: quitting under them would
    # leave a transaction half done (the journal would make the next run revert it).
    WRITING = ("apply", "revert")

    def writing(self):
        return any(w.group in self.WRITING and w.state in (WorkerState.PENDING, WorkerState.RUNNING)
                   for w in self.workers)

    def action_quit_review(self) -> None:
        if self.writing():
            self.notify("numatune is writing to the host; quit when it is done (it journals every write)",
                        severity="warning")
            return
        self.exit(0)

    async def action_quit(self) -> None:
        # Textual's own ctrl+q and the palette's Quit: the same guard as q.
        self.action_quit_review()

    def action_help(self) -> None:
        from .help_screen import HelpScreen
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

    def get_system_commands(self, screen):
        """numatune's own commands in the palette (ctrl+p): the plan screen's
        on the plan, the history's on the history. Textual's "Keys" panel is
        left out: ? and F1 open numatune's own list of every key."""
        from .history_screen import HistoryScreen
        for command in super().get_system_commands(screen):
            if command.title != "Keys":
                yield command
        yield SystemCommand("Keys", "list every key of every screen (? or F1)", self.action_help)
        if isinstance(screen, PlanScreen):
            for title, help_text, action in PALETTE:
                yield SystemCommand(title, help_text, getattr(screen, "action_" + action))
        elif isinstance(screen, HistoryScreen):
            for title, help_text, action in HISTORY_PALETTE:
                yield SystemCommand(title, help_text, getattr(screen, "action_" + action))

    def plan_screen(self):
        return next((s for s in self.screen_stack if isinstance(s, PlanScreen)), None)


# (title, help, PlanScreen action)
PALETTE = [
    ("Apply selected changes", "apply what is selected, after a confirmation", "apply"),
    ("Revert a transaction", "open the history: pick a transaction and press r", "history"),
    ("Filter by area", "cycle the area filter", "area"),
    ("Filter by severity", "cycle the findings' severity filter", "severity"),
    ("Filter: high risk only", "only high-risk changes and critical findings", "high_risk"),
    ("Reload the plan", "read the host and plan again", "reload_plan"),
    ("Export plan JSON", "write the plan as JSON for `numatune apply --plan`", "export"),
    ("Show diff", "the unified diff of every file the selected changes edit", "diff"),
    ("Select all", "select every change the filters show", "select_all"),
    ("Select none", "deselect every change the filters show", "select_none"),
    ("Clear the filters", "show every area, severity and risk, and clear the search", "clear_filters"),
]
HISTORY_PALETTE = [
    ("Revert this transaction", "revert the transaction under the cursor, after a confirmation", "revert"),
    ("Back to the plan", "the plan, read again if something was applied or reverted", "back"),
]
