"""A plain `pip install .` is enough for every area: every third-party
library numatune imports is a dependency or an extra, and a missing extra (or
a dependency a --no-deps install left out) is one line naming what to install,
never a traceback. .ci/plain-install runs the README's first command in a fresh
venv and plans with every area's section."""
import ast
import subprocess
import sys

import pytest

from conftest import REPO, write

try:
    import tomllib
except ImportError:  # Python < 3.11
    import tomli as tomllib

from numatune.errors import EXTRAS, missing_library

PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())
# Import name -> distribution name, where they differ.
DIST = {"oracledb": "oracledb", "textual": "textual"}

# Runs numatune's CLI with some top-level modules made unimportable.
HIDE = """
import sys
HIDDEN = set(sys.argv[1].split(","))
class Hide:
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in HIDDEN:
            raise ModuleNotFoundError("No module named %r" % name, name=name)
sys.meta_path.insert(0, Hide())
from numatune.cli import main
sys.exit(main(sys.argv[2:]))
"""


def _requirement_names(reqs):
    return {r.split(";")[0].split("[")[0].split(">")[0].split("=")[0].split("<")[0].strip().lower() for r in reqs}


def _third_party_imports():
    """Top-level modules imported anywhere under numatune/ (also inside functions)."""
    names = set()
    for path in (REPO / "numatune").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                names.update(a.name.split(".")[0] for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
    return {n for n in names if n not in sys.stdlib_module_names and n not in ("numatune", "numatune_tui", "tomllib")}


def test_every_library_imported_is_a_dependency_or_an_extra():
    deps = _requirement_names(PYPROJECT["project"]["dependencies"])
    extras = {name: _requirement_names(reqs) for name, reqs in PYPROJECT["project"]["optional-dependencies"].items()}
    assert "pyroute2" in deps and "pyudev" in deps  # the network and storage families on a live host
    for module in _third_party_imports():
        dist = DIST.get(module, module)
        in_extra = [name for name, reqs in extras.items() if dist in reqs]
        assert dist in deps or in_extra, "%s is imported but neither a dependency nor an extra" % module
        assert module in EXTRAS, "%s has no line in numatune.errors.EXTRAS" % module
        if in_extra:  # the one-line error names the extra that installs it
            assert "numatune[%s]" % in_extra[0] in EXTRAS[module][1]


def test_test_tools_are_not_published_metadata():
    assert "test" not in PYPROJECT["project"]["optional-dependencies"]
    assert not {"pytest", "hypothesis", "ansible-core"} & set().union(
        *map(_requirement_names, PYPROJECT["project"]["optional-dependencies"].values()))
    reqs = _requirement_names(l for l in (REPO / "requirements-test.txt").read_text().splitlines()
                              if l.strip() and not l.startswith("#"))
    assert {"pytest", "hypothesis", "ansible-core", "prometheus_client"} <= reqs
    # The README's test command installs it, in one command.
    readme = (REPO / "README.md").read_text()
    assert "pip install -q -e . -r requirements-test.txt && .venv/bin/python -m pytest" in readme
    # .ci/run takes the README's two commands from the README itself (its first two indented `python3 -m venv`
    # lines) and runs them verbatim in a fresh clone: the first installs and plans, the second is this one.
    ci = (REPO / ".ci" / "run").read_text()
    assert "grep -E '^    python3 -m venv ' \"$SRC/README.md\" | head -n 2" in ci
    assert 'bash -c "${CMDS[0]}"' in ci and 'bash -c "${CMDS[1]}"' in ci
    first, second = [l[4:] for l in readme.splitlines() if l.startswith("    python3 -m venv ")][:2]
    assert first.endswith("numatune plan") and "pip install -q . " in first
    assert "-r requirements-test.txt" in second and second.endswith("-m pytest")


def _run(tmp_path, hidden, *args):
    return subprocess.run([sys.executable, "-c", HIDE, ",".join(hidden)] + [str(a) for a in args],
                          capture_output=True, text=True, cwd=str(tmp_path))


def test_live_network_plan_without_pyroute2_is_one_line(tmp_path):
    policy = write(tmp_path, "net.toml", '[[net]]\nmatch = { name = "lo" }\nmtu = 65535\n')
    proc = _run(tmp_path, ["pyroute2"], "plan", "--policy", policy)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stderr.strip().splitlines() == [
        "numatune: this run needs pyroute2, which is not installed "
        "(a dependency of numatune: pip install pyroute2, or reinstall numatune)"]
    check = _run(tmp_path, ["pyroute2"], "check", "--policy", policy, "--format", "nagios")
    assert check.returncode == 3 and "Traceback" not in check.stderr
    assert check.stdout.startswith("NUMATUNE UNKNOWN - this run needs pyroute2")


def test_review_without_textual_names_the_extra(tmp_path):
    proc = _run(tmp_path, ["textual"], "review")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "numatune[tui]" in proc.stderr


@pytest.mark.parametrize("module,extra", [("oracledb", "oracle"), ("textual", "tui")])
def test_missing_extra_message(module, extra):
    error = missing_library(ModuleNotFoundError("No module named %r" % module, name=module + ".sub"))
    assert error.exit_status == 2 and "numatune[%s]" % extra in str(error)
    assert "\n" not in str(error)


def test_unknown_missing_module_stays_a_bug():
    assert missing_library(ModuleNotFoundError("No module named 'nosuch'", name="nosuch")) is None
