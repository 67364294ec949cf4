"""Confirm-or-revert on small roots: the watchdog is a real detached
process; the live kill test with a veth pair is in test_net_live.py."""
import json
import os
import signal
import subprocess
import sys
import time
from types import SimpleNamespace

import pytest

from conftest import REPO, tree_digest, write
from numatune.apply import confirm
from numatune.model import Change
from numatune.root import Root

POLICY = '[[net]]\nmatch = { name = "eth1" }\nmtu = 9000\n'


@pytest.fixture
def root(tmp_path):
    """A tiny root: one NIC's sysfs files (a whole capture is slow to copy)."""
    r = tmp_path / "root"
    write(r, "/sys/class/net/eth1/mtu", "1500\n")
    write(r, "/sys/class/net/eth1/address", "78:2b:cb:38:ac:1d\n")
    write(r, "/sys/class/net/eth1/device/numa_node", "0\n")
    write(r, "/sys/devices/system/node/node0/cpulist", "0-3\n")
    write(r, "/sys/devices/system/node/online", "0\n")
    return r


def test_window_defaults_on_only_for_risky_changes():
    risky = Change(id="net.mtu:eth0", area="network", target="eth0", current="1500", desired="9000",
                   scope="live", action="x", needs_confirm=True)
    plain = Change(id="net.mtu:eth1", area="network", target="eth1", current="1500", desired="9000",
                   scope="live", action="x")
    assert confirm.window_for(SimpleNamespace(confirm_within=None), [plain]) == 0
    assert confirm.window_for(SimpleNamespace(confirm_within=None), [plain, risky]) == confirm.DEFAULT_WINDOW
    assert confirm.window_for(SimpleNamespace(confirm_within=0), [risky]) == 0
    assert confirm.window_for(SimpleNamespace(confirm_within=7), [plain]) == 7
    # A copy under --root carries no SSH session: no window unless asked for.
    assert confirm.window_for(SimpleNamespace(confirm_within=None), [risky], Root("/tmp")) == 0
    assert confirm.window_for(SimpleNamespace(confirm_within=None), [risky], Root("/")) == confirm.DEFAULT_WINDOW


def test_systemd_is_detected_by_its_runtime_dir_not_its_binary(tmp_path):
    # This VM has systemd-run installed but systemd is not PID 1.
    assert confirm.uses_systemd(Root("/")) == os.path.isdir("/run/systemd/system")
    assert not confirm.uses_systemd(Root(str(tmp_path)))
    argv = confirm.systemd_argv(Root("/"), "TX1", 120)
    assert argv[:2] == ["systemd-run", "--quiet"] and "--on-active=120s" in argv
    assert argv[-4:] == ["numatune.apply.confirm", "--root", "/", "TX1"]


def test_confirm_with_nothing_waiting(root, cli):
    status, out, err = cli("confirm", "--root", root)
    assert status == 2 and "no transaction is waiting" in err and "Traceback" not in err


def test_confirm_after_the_deadline_is_refused(root, cli):
    r = Root(str(root))
    confirm.write_marker(r, {"txid": "20260101T000000-000001-1", "state": "pending", "deadline": time.time() - 1,
                             "seconds": 1, "root": r.path, "watchdog": "setsid"})
    status, out, err = cli("confirm", "--root", root)
    assert status == 2 and "too late" in err
    assert confirm.read_marker(r, "20260101T000000-000001-1")["state"] == "pending"


def test_watchdog_with_no_journal_has_nothing_to_undo(root):
    # The applier died between arming and its first journal record.
    r = Root(str(root))
    confirm.write_marker(r, {"txid": "20260101T000000-000002-1", "state": "pending", "deadline": time.time(),
                             "seconds": 0, "root": r.path, "watchdog": "setsid"})
    assert confirm.watch(r, "20260101T000000-000002-1") == "reverted"


def test_sigkilled_apply_on_a_copy_is_reverted_exactly(root, tmp_path):
    policy = write(tmp_path, "p.toml", POLICY)
    before = tree_digest(root)
    env = dict(os.environ, PYTHONPATH=str(REPO), NO_COLOR="1")
    proc = subprocess.Popen([sys.executable, "-m", "numatune", "apply", "--root", str(root), "--policy",
                             str(policy), "--yes", "--confirm-within", "1"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env, cwd=str(REPO))
    try:
        for line in proc.stdout:
            if "confirm within" in line:
                break
        txid = line.split("numatune confirm ")[1].split()[0]
        assert (root / "sys/class/net/eth1/mtu").read_text() == "9000\n"
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.communicate()
    deadline = time.time() + 15
    while time.time() < deadline and confirm.read_marker(Root(str(root)), txid)["state"] == "pending":
        time.sleep(0.1)
    assert confirm.read_marker(Root(str(root)), txid)["state"] == "reverted"
    assert tree_digest(root) == before
    journal = root / "var/lib/numatune/journal" / ("%s.jsonl" % txid)
    records = [json.loads(x) for x in journal.read_text().splitlines()]
    assert [r["t"] for r in records][-1] == "undo-end" and records[-1]["reason"] == "revert"


def test_countdown_on_a_terminal_confirms_with_y(root, tmp_path):
    import pty
    import select
    policy = write(tmp_path, "p.toml", POLICY)
    master, slave = pty.openpty()
    env = dict(os.environ, PYTHONPATH=str(REPO), NO_COLOR="1")
    proc = subprocess.Popen([sys.executable, "-m", "numatune", "apply", "--root", str(root), "--policy",
                             str(policy), "--yes", "--confirm-within", "30"], stdin=slave, stdout=slave,
                            stderr=slave, env=env, cwd=str(REPO), close_fds=True)
    os.close(slave)
    seen = b""
    try:
        deadline = time.time() + 20
        while b"left: confirm?" not in seen and time.time() < deadline:
            if select.select([master], [], [], 0.5)[0]:
                seen += os.read(master, 4096)
        assert b"type y here" in seen, seen
        os.write(master, b"y\n")
        assert proc.wait(timeout=15) == 0
        while select.select([master], [], [], 0.2)[0]:
            try:
                seen += os.read(master, 4096)
            except OSError:
                break
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)
    assert b"confirmed: the changes stay" in seen
    txid = seen.split(b"numatune confirm ")[1].split()[0].decode()
    assert confirm.read_marker(Root(str(root)), txid)["state"] == "confirmed"
    assert (root / "sys/class/net/eth1/mtu").read_text() == "9000\n"
