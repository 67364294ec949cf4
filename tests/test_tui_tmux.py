"""The real program in a real terminal: `numatune review --root <copied
capture>` runs in tmux; keys go in with send-keys and the screen is read
back with capture-pane."""
import os
import shutil
import subprocess
import sys
import time
import uuid

import pytest

from conftest import REPO
from tui_support import review_root  # noqa: F401 (a fixture)

from numatune_tui.app import PALETTE

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux (apt-get install tmux)")


class Tmux:
    def __init__(self, tmp_path, width=100, height=30):
        self.name = "numatune-tui-%s" % uuid.uuid4().hex[:8]
        # A private server socket: the test never sees or touches other tmux sessions.
        self.base = ["tmux", "-S", str(tmp_path / "tmux.sock")]
        self.width, self.height = width, height

    def start(self, argv, status_file, env):
        command = "%s; echo $? > %s" % (" ".join("'%s'" % a for a in argv), status_file)
        subprocess.run(self.base + ["-f", "/dev/null", "new-session", "-d", "-s", self.name, "-x", str(self.width),
                                    "-y", str(self.height), command], check=True, env=env)

    def keys(self, *keys):
        for key in keys:
            subprocess.run(self.base + ["send-keys", "-t", self.name, key], check=True)
            time.sleep(0.15)

    def screen(self):
        proc = subprocess.run(self.base + ["capture-pane", "-p", "-t", self.name], capture_output=True, text=True)
        return proc.stdout

    def wait_for(self, text, timeout=30):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            shown = self.screen()
            if text in shown:
                return shown
            time.sleep(0.2)
        raise AssertionError("%r never appeared; the screen was:\n%s" % (text, self.screen()))

    def wait_for_row(self, *parts, timeout=30):
        """Wait for one screen line that holds every part (the columns of a table row)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            shown = self.screen()
            if any(all(p in line for p in parts) for line in shown.splitlines()):
                return shown
            time.sleep(0.2)
        raise AssertionError("no line holds %r; the screen was:\n%s" % (parts, self.screen()))

    def stop(self):
        subprocess.run(self.base + ["kill-server"], capture_output=True)


def test_review_in_a_real_terminal(review_root, tmp_path):
    root, policy = review_root
    status_file = tmp_path / "status"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), str(REPO / "tui")]), TERM="xterm-256color")
    env.pop("TMUX", None)
    term = Tmux(tmp_path)
    try:
        term.start([sys.executable, "-m", "numatune", "review", "--root", str(root), "--policy", str(policy)],
                   status_file, env)
        shown = term.wait_for_row("kernel: 2 changes", " 2 selected")
        assert "kernel.numa_balancing" in shown and "1 -> 0" in shown
        term.wait_for("policy tui-test")  # the header may be painted a frame after the list
        term.wait_for("q Quit")  # the footer may land a frame later
        # Leave the live numa_balancing change out, apply the rest.
        term.keys("Space")
        term.wait_for_row("kernel: 2 changes", " 1 selected")
        term.keys("a")
        term.wait_for("Apply (y)")
        term.keys("y")
        shown = term.wait_for("applied and verified")
        assert "wrote /etc/sysctl.d/90-numatune.conf: create" in shown
        assert (root / "proc/sys/kernel/numa_balancing").read_text() == "1\n"
        assert (root / "proc/sys/vm/zone_reclaim_mode").read_text() == "0\n"
        assert "kernel.numa_balancing = 0" in (root / "etc/sysctl.d/90-numatune.conf").read_text()
        term.keys("Escape")
        term.wait_for("1 change, 0 selected")
        term.keys("q")
        deadline = time.monotonic() + 15
        while not (status_file.exists() and status_file.read_text().strip()) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert status_file.read_text().strip() == "0"
    finally:
        term.stop()


def test_help_and_palette_in_a_real_terminal(review_root, tmp_path):
    """`?` opens the keys screen, F1 too; ctrl+p lists numatune's own commands."""
    root, policy = review_root
    status_file = tmp_path / "status"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), str(REPO / "tui")]), TERM="xterm-256color")
    env.pop("TMUX", None)
    term = Tmux(tmp_path)
    try:
        term.start([sys.executable, "-m", "numatune", "review", "--root", str(root), "--policy", str(policy)],
                   status_file, env)
        shown = term.wait_for("? Keys")
        assert "tab Pane" in shown and "s All" in shown and "u None" in shown
        term.keys("?")
        shown = term.wait_for("numatune review: keys")
        assert "revert the transaction under the cursor" in shown or "select or deselect" in shown
        term.keys("Escape")
        term.wait_for("kernel: 2 changes")
        term.keys("F1")
        term.wait_for("numatune review: keys")
        term.keys("Escape")
        term.wait_for("kernel: 2 changes")
        time.sleep(0.5)  # a lone Escape, not an Alt prefix for the next key
        term.keys("C-p")
        term.wait_for("Search for commands")
        # Every numatune command is in the palette, found by what a person would type.
        for title in [t for t, _, _ in PALETTE] + ["Keys"]:
            term.keys(title)
            shown = term.wait_for(title)
            term.keys("C-u")  # clear the palette's input for the next one
            time.sleep(0.3)
        # numatune's list of keys, not Textual's key panel as well.
        assert "list every key of every screen" in shown and "Show help for the focused widget" not in shown
        # Run one: the area filter, from the palette.
        term.keys("Filter by area")
        term.wait_for("cycle the area filter")
        term.keys("Enter")
        term.wait_for("area kernel")
        term.keys("x")  # clears every filter
        term.wait_for("area all")
        # On the history screen the palette offers the history's commands, not the plan's.
        term.keys("h")
        term.wait_for("transactions in")
        term.keys("C-p")
        term.wait_for("Search for commands")
        term.keys("Revert")
        shown = term.wait_for("Revert this transaction")
        assert "Apply selected changes" not in shown
        term.keys("Escape")
        time.sleep(0.5)
        term.keys("Escape")
        term.wait_for("kernel: 2 changes")
        term.keys("q")
        deadline = time.monotonic() + 15
        while not (status_file.exists() and status_file.read_text().strip()) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert status_file.read_text().strip() == "0"
        assert (root / "proc/sys/kernel/numa_balancing").read_text() == "1\n"  # nothing applied
    finally:
        term.stop()
