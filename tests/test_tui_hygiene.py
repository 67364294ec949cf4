"""The core never imports Textual, and `numatune review` fails in one line
(exit 2, nothing changed) without Textual, without a terminal, or with a bad policy."""
import os
import subprocess
import sys

from conftest import REPO, tree_digest, write
from tui_support import review_root  # noqa: F401 (a fixture)

ENV = dict(os.environ, NO_COLOR="1", PYTHONPATH=os.pathsep.join([str(REPO), str(REPO / "tui")]))


def _python(code, *args):
    proc = subprocess.run([sys.executable, "-c", code] + [str(a) for a in args], capture_output=True, text=True,
                          env=ENV, cwd=str(REPO), stdin=subprocess.DEVNULL)
    return proc.returncode, proc.stdout, proc.stderr


# Runs the CLI, then prints which UI libraries ended up imported.
CHECK = """
import sys
from numatune.cli import main
try:
    status = main(sys.argv[1:])
except SystemExit as e:
    status = e.code
print("LOADED", sorted(m for m in ("textual", "rich", "numatune_tui") if m in sys.modules))
sys.exit(status)
"""


def test_core_commands_do_not_import_textual(review_root):
    root, policy = review_root
    status, out, err = _python(CHECK, "--version")
    assert status == 0
    status, out, err = _python(CHECK, "check", "--root", root, "--policy", policy)
    assert status == 2, err  # changes pending: critical
    assert "LOADED []" in out
    status, out, err = _python(CHECK, "plan", "--root", root, "--policy", policy)
    assert status == 0 and "LOADED []" in out


def test_review_without_textual_says_how_to_install(review_root):
    root, policy = review_root
    code = "import sys; sys.modules['textual'] = None\n" + CHECK
    status, out, err = _python(code, "review", "--root", root, "--policy", policy)
    assert status == 2
    assert err.count("\n") == 1 and "pip install 'numatune[tui]'" in err and "Traceback" not in err


def test_review_refuses_bad_input_in_one_line(review_root, tmp_path):
    root, policy = review_root
    before = tree_digest(root)
    status, out, err = _python(CHECK, "review", "--root", root, "--policy", policy)
    assert status == 2 and "review needs a terminal" in err and err.count("\n") == 1
    bad = write(tmp_path, "bad.toml", "[kernal]\nx = 1\n")
    status, out, err = _python(CHECK, "review", "--root", root, "--policy", bad)
    assert status == 2 and "bad.toml:1" in err and "kernal" in err and err.count("\n") == 1
    status, out, err = _python(CHECK, "review", "--root", tmp_path / "nowhere")
    assert status == 2 and "no such directory" in err
    status, out, err = _python(CHECK, "review", "--root", root, "--only", "memroy")
    assert status == 2 and "did you mean 'memory'" in err
    assert tree_digest(root) == before
