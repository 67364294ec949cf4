"""The journal index (#38): apply and `revert --last` find the blocking and
the newest transaction without parsing every kept journal; the index is a
cache, rebuilt from the journals when it is missing, stale or damaged, and
never what a revert restores from."""
import json

import pytest

import fakehost
from conftest import STATE, tree_digest, write
from numatune.apply import journal


@pytest.fixture
def host(tmp_path):
    root = fakehost.build(tmp_path / "root")
    policy = write(tmp_path, "policy.toml", fakehost.POLICY)
    return root, policy


@pytest.fixture
def parses(monkeypatch):
    """The journals parsed in full, by name, as the commands run."""
    seen = []
    real = journal.parse_journal

    def counting(data, name, *args):
        seen.append(name)
        return real(data, name, *args)
    monkeypatch.setattr(journal, "parse_journal", counting)
    return seen


def _cycles(cli, root, policy, n):
    for _ in range(n):
        assert cli("apply", "--root", root, "--policy", policy, "--yes")[0] == 0
        assert cli("revert", "--last", "--root", root)[0] == 0


def test_kept_journals_are_not_parsed_again(cli, host, parses):
    root, policy = host
    _cycles(cli, root, policy, 4)
    del parses[:]
    assert cli("apply", "--root", root, "--policy", policy, "--yes")[0] == 0
    assert parses == [], parses
    assert cli("revert", "--last", "--root", root)[0] == 0
    # Only the journal revert undoes, once: what it restores is read from the journal itself.
    assert len(parses) == 1, parses
    newest = sorted((root / STATE / "journal").glob("*.jsonl"))[-1]
    assert parses[0].endswith(newest.name)


def _index(root):
    return root / STATE / "journal-index.json"


@pytest.mark.parametrize("damage", ["missing", "garbage", "empty", "other-format", "directory"])
def test_a_damaged_index_is_rebuilt_from_the_journals(cli, host, damage):
    root, policy = host
    _cycles(cli, root, policy, 2)
    assert cli("apply", "--root", root, "--policy", policy, "--yes")[0] == 0
    index = _index(root)
    assert index.is_file()
    index.unlink()
    if damage == "garbage":
        index.write_bytes(b"\x00{not json")
    elif damage == "empty":
        index.write_bytes(b"")
    elif damage == "other-format":
        index.write_text(json.dumps({"format": 99, "journals": []}))
    elif damage == "directory":
        index.mkdir()
    before = tree_digest(root)
    status, out, err = cli("revert", "--last", "--root", root)
    assert status == 0 and tree_digest(root) != before, (out, err)
    status, out, err = cli("revert", "--last", "--root", root)
    assert status == 2 and "nothing to revert" in err, (out, err)


def test_a_journal_changed_after_its_entry_is_read_again(cli, host):
    # The newest transaction reverted, then its journal cut back to before the revert (as a copy
    # restored from a backup would be): the index's "reverted" is stale, apply must see it applied.
    root, policy = host
    assert cli("apply", "--root", root, "--policy", policy, "--yes")[0] == 0
    [path] = (root / STATE / "journal").glob("*.jsonl")
    applied_journal = path.read_bytes()
    applied = tree_digest(root)
    assert cli("revert", "--last", "--root", root)[0] == 0
    path.write_bytes(applied_journal[:applied_journal.rindex(b'{"sum"')])     # the commit lost too
    # A run cut short is found: apply refuses, revert --last finishes it.
    status, out, err = cli("apply", "--root", root, "--policy", policy, "--yes")
    assert status == 2 and "interrupted" in err, (out, err)
    assert tree_digest(root) != applied
    assert cli("revert", "--last", "--root", root)[0] == 0


def test_a_forged_entry_is_never_what_revert_restores_from(cli, host):
    # An index that says the newest transaction is applied while its journal says reverted (its stat
    # copied so the entry looks fresh): revert --last reads the journal and finds nothing to revert.
    root, policy = host
    _cycles(cli, root, policy, 1)
    before = tree_digest(root)
    index = json.loads(_index(root).read_text())
    [txid] = index["journals"]
    index["journals"][txid]["state"] = "applied"
    _index(root).write_text(json.dumps(index))
    status, out, err = cli("revert", "--last", "--root", root)
    assert status == 2 and "nothing to revert" in err, (out, err)
    assert tree_digest(root) == before
