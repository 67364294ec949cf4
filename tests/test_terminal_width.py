"""Text that a person reads at an 80-column terminal fits it, and says what
it means: `history`, `plan --list-policies`, `policy show`, a stale-plan
refusal (issue #23)."""
import json

import pytest

import fakehost
from conftest import write
from numatune import engine
from numatune.apply.journal import Transaction
from numatune.errors import DriftError
from numatune.model import Change, Plan
from numatune.policy.stack import load, shipped_names
from numatune.report.console import history_text

try:
    import tomllib
except ImportError:  # Python < 3.11
    import tomli as tomllib


def _tx(txid, state_records):
    return Transaction(txid, [{"t": "begin", "txid": txid, "time": "2026-11-25T14:09:25+01:00",
                               "changes": [{"id": "a"}] * 12}] + state_records)


def test_history_fits_80_columns_and_never_cuts_a_txid():
    # A 7-digit pid (pid_max 4194304) makes the longest txid; the longest state is an interrupted revert.
    long_id = "20261125T140925-358507-4194304"
    txs = [_tx(long_id, [{"t": "commit"}]),
           _tx("20261125T140926-000001-7", [{"t": "undo-begin", "reason": "revert"}])]
    text = history_text(txs)
    lines = text.splitlines()
    assert all(len(line) <= 80 for line in lines), "\n".join(lines)
    assert any(line.split()[0] == long_id for line in lines[1:])
    assert "interrupted revert" in text and "2026-11-25 14:09:25" in text


def test_history_command_fits_80_columns(cli, tmp_path):
    root_dir = fakehost.build(tmp_path / "root")
    policy = write(tmp_path, "policy.toml", fakehost.POLICY)
    assert cli("apply", "--yes", "--root", root_dir, "--policy", policy)[0] == 0
    status, out, err = cli("history", "--root", root_dir)
    assert status == 0 and all(len(line) <= 80 for line in out.splitlines()), out


def test_list_policies_fits_80_columns(cli):
    status, out, _ = cli("plan", "--list-policies")
    assert status == 0 and all(len(line) <= 80 for line in out.splitlines()), out
    # A long description goes on under itself; every shipped name still starts its own line.
    assert [line.split()[0] for line in out.splitlines() if not line.startswith(" ")] == shipped_names()


@pytest.mark.parametrize("name", shipped_names())
def test_policy_show_fits_80_columns_and_is_the_same_toml(cli, name):
    status, out, _ = cli("policy", "show", name)
    assert status == 0
    long = [line for line in out.splitlines() if len(line) > 80 and not line.startswith("#   ")]
    assert not long, "\n".join(long)
    # Wrapping changed no value: the text is still the merged policy.
    assert tomllib.loads(out) == json.loads(json.dumps(load([name]).data, default=str))


def test_stale_plan_refusal_says_unset_not_none():
    old = Change(id="sysctl.persist:vm.x", area="memory", target="/etc/sysctl.d/90-numatune.conf: vm.x",
                 current=None, desired="0", scope="persistent", action="write")
    now = Change(id="sysctl.persist:vm.x", area="memory", target=old.target, current="1", desired="0",
                 scope="persistent", action="write")
    with pytest.raises(DriftError) as info:
        engine.saved_changes(Plan(host={}, changes=[old]), Plan(host={}, changes=[now]))
    text = str(info.value)
    assert "None" not in text and "'" not in text
    assert "sysctl.persist:vm.x was (unset) -> 0, now 1 -> 0" in text
