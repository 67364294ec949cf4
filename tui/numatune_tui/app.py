"""The review app: the state every screen shares (root, policy, the plan,
what is deselected) and the engine calls, which always run in workers."""
from pathlib import Path

from textual.app import App, SystemCommand

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

    def action_quit_review(self) -> None:
        self.exit(0)

    def action_help(self) -> None:
        from .help_screen import HelpScreen
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

    def get_system_commands(self, screen):
        """numatune's own commands in the palette (ctrl+p), where the plan screen can run them."""
        yield from super().get_system_commands(screen)
        yield SystemCommand("Keys", "list every key of every screen (? or F1)", self.action_help)
        plan = self.plan_screen()
        if plan is None:
            return
        for title, help_text, action in PALETTE:
            yield SystemCommand(title, help_text, getattr(plan, "action_" + action))

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
]
