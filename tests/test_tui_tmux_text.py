"""The review screen's text in a real terminal (tmux) at 80x24 and 120x40
(issue #23): transaction ids are never cut, a sysctl.d row names its key, a
value keeps both its ends, the diff's wrapped lines keep their +/-, the
documented filter keys work, a pasted hint aims at the same root."""
import os
import re
import sys
import time

import pytest

from conftest import REPO, write
from test_tui_tmux import Tmux, pytestmark  # noqa: F401 (skips without tmux)
from tui_support import review_root  # noqa: F401 (a fixture)

from numatune.apply.journal import Journal
from numatune.root import Root

SIZES = [(80, 24), (120, 40)]
LONG_TXID = "20261121T101500-000001-4194304"    # a 7-digit pid: the longest txid there is
# A reduction hidden at the end of a long value: the current last number is 33554432, the wanted one 6291456.
RMEM_NOW, RMEM_WANTED = "4096 131072 33554432", "4096 87380 6291456"
# A value longer than any details pane is wide: its diff line wraps.
PORTS = ",".join("%d-%d" % (p, p + 9) for p in range(20000, 20300, 20))
POLICY = """
[policy]
name = "tui-text"
extends = ["oracle-hugepages"]

[hugepages]
size = "2M"
count = 64

[sysctl]
"net.ipv4.tcp_rmem" = "%s"
"net.ipv4.ip_local_reserved_ports" = "%s"
""" % (RMEM_WANTED, PORTS)


def _readme_keys():
    """The documented keys for the plan's filters: (area, severity, high risk, search)."""
    row = next(line for line in (REPO / "docs" / "commands.md").read_text().splitlines() if "only high risk" in line)
    return re.findall(r"`([^`]+)`", row.split("|")[1])


@pytest.fixture
def text_root(review_root, tmp_path):
    root, _ = review_root
    write(root, "/proc/sys/net/ipv4/tcp_rmem", RMEM_NOW + "\n")
    write(root, "/proc/sys/net/ipv4/ip_local_reserved_ports", "\n")
    journal = Journal(Root(str(root)), LONG_TXID).open()
    journal.append({"t": "begin", "txid": LONG_TXID, "time": "2026-11-21T10:15:00+00:00", "command": "apply",
                    "root": str(root), "policy": {}, "changes": []})
    journal.append({"t": "commit", "time": "2026-11-21T10:15:01+00:00"})
    journal.close()
    return root, write(tmp_path, "policy.toml", POLICY)


def _start(tmp_path, root, policy, size):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), str(REPO / "tui")]), TERM="xterm-256color")
    env.pop("TMUX", None)
    term = Tmux(tmp_path, *size)
    # The screen stays a while after the app ends: a crash's traceback shows in the test's failure.
    term.start(["sh", "-c", '"$@"; status=$?; sleep 20; exit $status', "sh", sys.executable, "-m", "numatune",
                "review", "--root", str(root), "--policy", str(policy)], tmp_path / "status", env)
    return term


def _search(term, text):
    """The plan's search: only rows matching ``text``, their group open, the cursor on the group."""
    term.keys("/")
    term.wait_for("search target")
    time.sleep(0.5)     # the input has the focus once it is drawn
    term.keys(text)
    term.wait_for(text + " ")
    term.keys("Enter")
    shown = term.wait_for("/" + text)
    if "▶" in shown:
        term.keys("Home", "Enter")
        shown = term.wait_for("▼")
    return shown


def _pane(shown):
    """The details pane's lines: below the table at 80 columns, right of its border at 120."""
    return [re.split("[▏│▎▕┃]", line)[-1].strip() for line in shown.splitlines()]


@pytest.mark.parametrize("size", SIZES, ids=["%dx%d" % s for s in SIZES])
def test_review_text_in_a_real_terminal(text_root, tmp_path, size):
    root, policy = text_root
    term = _start(tmp_path, root, policy, size)
    try:
        term.wait_for("kernel: ")
        term.wait_for("q Quit")
        shown = _search(term, "tcp_rmem")
        lines = shown.splitlines()
        # The sysctl.d row names its key, whole, not only the cut file path.
        persistent = [line for line in lines if " persistent " in line]
        assert persistent and all(re.search(r"\bnet\.ipv4\.tcp_rmem\b", line) for line in persistent), shown
        # The reduction is on screen: both values keep their ends.
        live = [line for line in lines if " live " in line]
        assert live and all("33554432" in line and "6291456" in line for line in live), shown
        term.keys("Escape")
        term.wait_for("area all")
        # The persistent reserved-ports change: its diff line is wider than the pane; each piece keeps its +.
        shown = _search(term, "reserved_ports")
        row = next(i for i, line in enumerate(shown.splitlines()) if " persistent " in line)
        group = next(i for i, line in enumerate(shown.splitlines()) if "▼" in line)
        term.keys(*["Down"] * (row - group))
        # The details of that row are loaded (at 80x24 its "writes" part is below the pane's fold).
        term.wait_for("why")
        term.keys("Tab")  # into the details pane, to scroll it to the diff
        pane, start, end = [], None, None
        for _ in range(40):
            pane = _pane(term.screen())
            start = next((i for i, line in enumerate(pane) if line.startswith("+net.ipv4.ip_local_reserved_port")),
                         None)
            end = next((i for i, line in enumerate(pane) if start is not None and i > start
                        and "20280-20289" in line), None)
            if end is not None:
                break
            term.keys("Down")
        assert end is not None, "\n".join(pane)
        # The value is longer than the pane: it went on over several lines, each with its +.
        assert end > start and all(line.startswith("+") for line in pane[start:end + 1]), "\n".join(pane)
        term.keys("Tab")
        time.sleep(0.5)
        term.keys("Escape")
        time.sleep(0.5)    # a lone Escape, not an Alt prefix for the next key
        term.wait_for("area all")
        # The documented high-risk key is the app's.
        area, severity, risk, search = _readme_keys()
        term.keys(risk)
        term.wait_for("high risk only")
        term.keys("x")
        term.wait_for("area all")
        # History: the longest txid whole.
        term.keys("h")
        term.wait_for("transactions in")
        shown = term.wait_for(LONG_TXID)
        assert re.search(r"(^|[^0-9])%s($|[^0-9])" % LONG_TXID, shown), shown
        term.keys("Escape")
        term.keys("q")
    finally:
        term.stop()


def test_readme_names_the_apps_filter_keys():
    from numatune_tui.keys import KEYS
    actions = {key: action for where, key, action, _, _, _ in KEYS if where == "plan"}
    area, severity, risk, search = _readme_keys()
    assert [actions.get(area), actions.get(severity), actions.get(risk)] == ["area", "severity", "high_risk"]
    assert search == "/" and actions.get("slash") == "search"
