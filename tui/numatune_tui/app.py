"""The review app: the state every screen shares (root, policy, the plan,
what is deselected) and the engine calls, which always run in workers."""
from pathlib import Path

from textual.app import App
from textual.binding import Binding

from numatune import engine

from .plan_screen import PlanScreen


class ReviewApp(App[int]):
    # Absolute: a subclass elsewhere (the benchmark) must find it too.
    CSS_PATH = Path(__file__).with_name("review.tcss")
    TITLE = "numatune review"
    # The details pane sits beside the table when there is room, below it otherwise.
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (110, "-wide")]
    BINDINGS = [Binding("q", "quit_review", "Quit", priority=False)]

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
