"""Ctrl-C in `apply`, in a real process with a real SIGINT: never a
traceback, one line saying what state the host is in, and an exit status
that matches the journal; and an interactive apply re-checks the host after
its [y/N] (issue #23)."""
import json
import os
import pty
import select
import signal
import subprocess
import sys
import time

import pytest

import fakehost
from conftest import REPO, run_cli, tree_digest, write

DRIVER = REPO / "tests" / "sigint_driver.py"


@pytest.fixture
def host(tmp_path):
    root_dir = fakehost.build(tmp_path / "root")
    policy_path = write(tmp_path, "policy.toml", fakehost.POLICY)
    return root_dir, policy_path


def _env():
    return dict(os.environ, NO_COLOR="1", PYTHONPATH=str(REPO))


def _as_at_a_terminal():
    """A suite started in the background (`pytest &`) ignores SIGINT, and its children inherit that:
    Python then installs no KeyboardInterrupt handler, and every Ctrl-C below would be lost. numatune
    runs at a terminal, where SIGINT is never ignored."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _driven(point, *args):
    proc = subprocess.run([sys.executable, str(DRIVER), point] + [str(a) for a in args], capture_output=True,
                          text=True, env=_env(), cwd=str(REPO), timeout=300, preexec_fn=_as_at_a_terminal)
    return proc.returncode, proc.stdout, proc.stderr


def _journal(root_dir):
    status, out, err = run_cli("history", "--root", root_dir, "--format", "json")
    assert status == 0, err
    return json.loads(out)


@pytest.mark.parametrize("point,state,status", [
    ("import-numatune.families.registry", None, 130),   # the parser being built
    ("import-numatune.engine", None, 130),              # the commands loading
    ("plan", None, 130),
    ("lock", None, 130),
    ("write-1", "rolled back", 130),
    ("write-3", "rolled back", 130),
    ("verify", "rolled back", 130),
    ("rollback", "rolled back", 130),   # a second Ctrl-C during the rollback is held too
    ("commit", "applied", 0),
    ("after", "applied", 0),
])
def test_ctrl_c_in_apply_says_what_the_journal_says(host, point, state, status):
    root_dir, policy_path = host
    before = tree_digest(root_dir)
    code, out, err = _driven(point, "apply", "--yes", "--root", root_dir, "--policy", policy_path)
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    txs = _journal(root_dir)
    assert [t["state"] for t in txs] == ([state] if state else [])
    assert code == status, err
    if state != "applied":
        assert tree_digest(root_dir) == before
        assert err.count("\n") == 1 and err.startswith("numatune: interrupted"), err
        assert "nothing changed" in err
        if state:
            assert "%s was rolled back" % txs[0]["txid"] in err
    elif point == "after":
        # The one line names the transaction that stays, and how to undo it on this root.
        assert err.count("\n") == 1 and "applied and verified" in err and txs[0]["txid"] in err, err
        assert "--root %s" % root_dir in err
    else:
        # Ctrl-C held during the commit: the run ends as applied, and says so as always.
        assert "transaction %s:" % txs[0]["txid"] in out and "applied and verified" in out


def test_ctrl_c_from_outside_during_slow_writes_rolls_back(host):
    root_dir, policy_path = host
    before = tree_digest(root_dir)
    proc = subprocess.Popen([sys.executable, str(DRIVER), "slow", "apply", "--yes", "-v", "--root", str(root_dir),
                             "--policy", str(policy_path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=_env(), cwd=str(REPO), preexec_fn=_as_at_a_terminal)
    # Wait for the first write (-v prints each as it is made), then interrupt as a person at the terminal would.
    while "wrote" not in proc.stdout.readline():
        assert proc.poll() is None
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and err.startswith("numatune: interrupted: transaction "), err
    assert [t["state"] for t in _journal(root_dir)] == ["rolled back"]
    assert tree_digest(root_dir) == before


class _Terminal:
    """numatune with a pty as its stdin (apply asks only on a terminal)."""

    def __init__(self, *args):
        self.master, slave = pty.openpty()
        self.proc = subprocess.Popen([sys.executable, "-m", "numatune"] + [str(a) for a in args], stdin=slave,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env(), cwd=str(REPO),
                                     preexec_fn=_as_at_a_terminal)
        os.close(slave)

    def wait_for_prompt(self):
        seen, deadline = b"", time.time() + 120
        while b"[y/N]" not in seen:
            assert time.time() < deadline and self.proc.poll() is None, seen[-500:]
            ready, _, _ = select.select([self.proc.stdout], [], [], 1)
            if ready:
                seen += os.read(self.proc.stdout.fileno(), 65536)

    def answer(self, text):
        os.write(self.master, text.encode())

    def finish(self):
        out, err = self.proc.communicate(timeout=300)
        os.close(self.master)
        return self.proc.returncode, out.decode(), err.decode()


def test_interactive_apply_refuses_when_another_run_changed_the_host_meanwhile(host):
    root_dir, policy_path = host
    waiting = _Terminal("apply", "--root", root_dir, "--policy", policy_path)
    waiting.wait_for_prompt()
    status, out, err = run_cli("apply", "--yes", "--root", root_dir, "--policy", policy_path)
    assert status == 0, err
    after_other = tree_digest(root_dir)
    waiting.answer("y\n")
    status, out, err = waiting.finish()
    assert status == 2, out + err
    assert err.startswith("numatune: the host drifted since the plan was shown: ") and err.count("\n") == 1, err
    assert "None" not in err
    # The hint names a command aimed at the same root.
    assert "`numatune apply --root %s --policy %s`" % (root_dir, policy_path) in err
    assert len(_journal(root_dir)) == 1 and tree_digest(root_dir) == after_other


def test_interactive_apply_applies_when_nothing_moved(host):
    root_dir, policy_path = host
    waiting = _Terminal("apply", "--root", root_dir, "--policy", policy_path)
    waiting.wait_for_prompt()
    waiting.answer("y\n")
    status, out, err = waiting.finish()
    assert status == 0, err
    assert [t["state"] for t in _journal(root_dir)] == ["applied"]


def test_ctrl_c_at_the_prompt_changes_nothing(host):
    root_dir, policy_path = host
    before = tree_digest(root_dir)
    waiting = _Terminal("apply", "--root", root_dir, "--policy", policy_path)
    waiting.wait_for_prompt()
    waiting.proc.send_signal(signal.SIGINT)
    status, out, err = waiting.finish()
    assert status == 130 and err == "numatune: interrupted: nothing changed\n", err
    assert _journal(root_dir) == [] and tree_digest(root_dir) == before
