"""History that audits (issue #37): each transaction records and shows its
user, command line, policy (name and content hash) and host; an
auto-reverted transaction shows as auto-reverted, a boot replay as a boot replay."""
import hashlib
import json
import shutil

import pytest

from conftest import STATE
from numatune import engine
from numatune.apply import confirm
from numatune.root import Root

POLICY = '[policy]\nname = "audit-test"\n\n[sysctl]\n"kernel.numa_balancing" = 0\n'


@pytest.fixture
def root(capture, tmp_path):
    r = capture("16amd64-4n4c-cgroup-distance-merge")
    (r / "proc/sys/kernel").mkdir(parents=True, exist_ok=True)
    (r / "proc/sys/kernel/numa_balancing").write_text("1\n")
    (r / "proc/sys/kernel/hostname").write_text("db07.example.com\n")
    return r


def _history(cli, root):
    status, out, err = cli("history", "--root", root, "--format", "json")
    assert status == 0, err
    return json.loads(out)


def test_history_names_user_command_policy_and_host(cli, root, tmp_path, monkeypatch):
    monkeypatch.setenv("SUDO_USER", "alice")
    policy = tmp_path / "p.toml"
    policy.write_text(POLICY)
    status, out, err = cli("apply", "--root", root, "--policy", policy, "--yes", "--confirm-within", "0")
    assert status == 0, err
    [tx] = _history(cli, root)
    assert "alice" in tx["user"]
    assert tx["command_line"].startswith("numatune apply --root %s --policy %s --yes" % (root, policy))
    data = engine.load_policy([str(policy)], Root(str(root))).data
    digest = hashlib.sha256(json.dumps(data, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
    assert tx["policy"] == {"name": "audit-test", "sha256": digest}
    assert tx["host"] == "db07.example.com" and tx["kind"] == "apply" and tx["auto_reverted"] is False
    text = cli("history", "--root", root)[1]
    for word in ("alice", "numatune apply", "audit-test", digest[:12], "db07.example.com"):
        assert word in text, (word, text)
    one = cli("history", tx["txid"], "--root", root)[1]
    assert "alice" in one and digest in one and "db07.example.com" in one and "numatune apply" in one


def test_auto_reverted_and_boot_replay_are_named(cli, root, tmp_path):
    policy = tmp_path / "p.toml"
    policy.write_text(POLICY)
    r = Root(str(root))
    pol = engine.load_policy([str(policy)], r)
    plan, _ = engine.make_plan(r, pol)
    txid, _, _ = engine.apply(r, pol, plan.changes, command="apply", plan=plan)
    # The watchdog's deadline, reached with no `numatune confirm`: the real expiry path reverts it.
    confirm.write_marker(r, {"txid": txid, "state": "pending", "seconds": 1, "deadline": 0, "root": r.path})
    assert confirm.expire(r, txid) == "reverted"
    plan, _ = engine.make_plan(r, pol)
    boot, _, _ = engine.apply(r, pol, plan.changes, command="boot", plan=plan)
    txs = {t["txid"]: t for t in _history(cli, root)}
    assert txs[txid]["auto_reverted"] is True and txs[txid]["state"] == "reverted"
    assert txs[boot]["kind"] == "boot replay"
    text = cli("history", "--root", root)[1]
    assert "auto-reverted" in text and "boot replay" in text, text
    assert "auto-reverted" in cli("history", txid, "--root", root)[1]
