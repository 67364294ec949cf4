"""Retention (issue #37): `history --prune` removes the journals of
transactions nothing can revert any more (reverted, rolled back, set aside)
beyond the `--keep N` newest (default 20); a transaction still applied is
never pruned, so every later revert still works."""
import json
import re

import pytest

from numatune.apply.journal import JOURNAL_DIR

POLICY = '[sysctl]\n"kernel.numa_balancing" = 0\n'


@pytest.fixture
def root(capture):
    r = capture("16amd64-4n4c-cgroup-distance-merge")
    (r / "proc/sys/kernel").mkdir(parents=True, exist_ok=True)
    (r / "proc/sys/kernel/numa_balancing").write_text("1\n")
    return r


def _apply(cli, root, policy):
    status, out, err = cli("apply", "--root", root, "--policy", policy, "--yes")
    assert status == 0, err
    return re.search(r"^transaction (\S+): ", out, re.M).group(1)


def _txids(cli, root):
    return [t["txid"] for t in json.loads(cli("history", "--root", root, "--format", "json")[1])]


def test_prune_keeps_the_newest_and_every_revertable_one(cli, root, tmp_path):
    policy = tmp_path / "p.toml"
    policy.write_text(POLICY)
    reverted = []
    for _ in range(3):
        reverted.append(_apply(cli, root, policy))
        assert cli("revert", reverted[-1], "--root", root)[0] == 0
    applied = _apply(cli, root, policy)
    assert _txids(cli, root) == reverted + [applied]
    status, out, err = cli("history", "--root", root, "--prune", "--keep", "1")
    assert status == 0, err
    # The newest is kept by --keep; the applied one too were it older: a revert needs it.
    assert _txids(cli, root) == [applied]
    assert "pruned 3 transaction(s)" in out
    assert not any((root / JOURNAL_DIR.lstrip("/") / (t + ".jsonl")).exists() for t in reverted)
    assert cli("revert", applied, "--root", root)[0] == 0
    assert (root / "proc/sys/kernel/numa_balancing").read_text() == "1\n"


def test_an_applied_transaction_is_never_pruned(cli, root, tmp_path):
    policy = tmp_path / "p.toml"
    policy.write_text(POLICY)
    first = _apply(cli, root, policy)
    (root / "proc/sys/kernel/numa_balancing").write_text("1\n")
    second = _apply(cli, root, policy)
    assert cli("revert", second, "--root", root)[0] == 0
    assert cli("history", "--root", root, "--prune", "--keep", "0")[0] == 0
    assert _txids(cli, root) == [first]


def test_keep_needs_prune_and_a_whole_number(cli, root):
    assert cli("history", "--root", root, "--keep", "3")[0] == 2
    assert cli("history", "--root", root, "--prune", "--keep", "-1")[0] == 2
    assert "default 20" in cli("history", "--help")[1]
