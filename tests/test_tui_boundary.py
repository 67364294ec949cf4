"""The review screen never does engine work itself: every module of tui/
imports from numatune only a declared set of entry points (the engine's
functions, the errors, model data and the one-line plan summary). Revert,
saved-plan checks, write descriptions, diffs, the journal: numatune.engine,
which the CLI calls too."""
import ast
from pathlib import Path

from conftest import REPO

# module -> names the TUI may import from it (None: the module itself, as `from numatune import engine`).
ALLOWED = {
    "numatune": {"engine"},
    "numatune.errors": None,                         # any error class
    "numatune.model": {"AREAS", "SEVERITIES"},       # what the filters cycle through
    "numatune.report.console": {"summary_line", "waiting_lines",  # the CLI's own verdict and reminders
                                # and its wording of counts, the history order and revert's result
                                "change_counts", "unjournaled_line", "newest_first", "revert_summary"},
    "numatune.report.grouped": {"ARROW", "SEVERITY"},  # the one arrow and severity spelling
    "numatune.report.hints": {"carry", "command", "context"},  # suggested commands repeat the --root
}
# engine functions the TUI calls: each must exist, and the CLI (numatune.commands) uses the shared ones too.
SHARED_WITH_CLI = {"make_plan", "revert", "describe_op", "save_plan"}
TUI = REPO / "tui" / "numatune_tui"


def _imports(path):
    tree = ast.parse(path.read_text(), str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name, None
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            for alias in node.names:
                yield node.lineno, node.module, alias.name


def test_tui_imports_only_the_declared_entry_points():
    bad = []
    for path in sorted(TUI.glob("*.py")):
        for line, module, name in _imports(path):
            if module != "numatune" and not module.startswith("numatune."):
                continue
            allowed = ALLOWED.get(module, set())
            if module not in ALLOWED or (allowed is not None and name not in allowed):
                bad.append("%s:%d: %s%s" % (path.name, line, module, "" if name is None else " import " + name))
    assert not bad, "the TUI reaches past numatune.engine:\n" + "\n".join(bad)


def test_the_engine_calls_of_the_tui_exist_and_the_cli_shares_them():
    from numatune import engine
    called = set()
    for path in TUI.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                    and node.value.id == "engine"):
                called.add(node.attr)
    assert called, "the TUI calls no engine function?"
    missing = sorted(n for n in called if not hasattr(engine, n))
    assert not missing, missing
    commands = "".join((REPO / "numatune" / name).read_text()
                       for name in ("commands.py", "apply/journal_commands.py"))
    assert SHARED_WITH_CLI <= called
    for name in SHARED_WITH_CLI:
        assert "engine.%s(" % name in commands, "the CLI does not call engine.%s" % name
