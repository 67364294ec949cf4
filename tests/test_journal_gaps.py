"""A journal that lost records at the end of a group says so (#39): a
"done" (or any record) naming a seq with no intent, or a commit counting
more writes than the journal holds, is a gap like one in the middle: revert
refuses (exit 2, nothing restored), `--force` restores what the intact
records say. A write announced and made whose "done" was lost is restored."""
import json

import pytest

import fakehost
from conftest import STATE, tree_digest, write
from journal_lines import drop_intent, intents, text
from numatune.apply.seal import line


def _applied(cli, tmp_path):
    root = fakehost.build(tmp_path / "root")
    policy = write(tmp_path, "policy.toml", fakehost.POLICY)
    before = tree_digest(root)
    status, out, err = cli("apply", "--root", root, "--policy", policy, "--yes")
    assert status == 0, err
    [journal] = (root / STATE / "journal").glob("*.jsonl")
    return root, before, tree_digest(root), journal


def _records(journal):
    return [json.loads(raw) for raw in journal.read_bytes().splitlines()]


def _rewrite(journal, keep):
    lines = journal.read_bytes().splitlines(keepends=True)
    journal.write_bytes(b"".join(raw for raw, r in zip(lines, _records(journal)) if keep(r)))


def _last_intent(journal):
    return max(r["seq"] for r in intents(_records(journal)))


@pytest.mark.parametrize("damage", ["intent", "intent-and-done"])
def test_the_last_intent_lost_refuses_the_revert(cli, tmp_path, damage):
    root, before, applied, journal = _applied(cli, tmp_path)
    last = _last_intent(journal)
    gone = set() if damage == "intent" else {"done"}
    lost = next(r for r in intents(_records(journal)) if r["seq"] == last)["op"]["path"]
    _rewrite(journal, lambda r: not (r["t"] in gone and r.get("seq") == last))
    journal.write_text(text(drop_intent(_records(journal), last)))
    status, out, err = cli("revert", "--last", "--root", root)
    assert status == 2 and "intent %d missing" % last in err, (out, err)
    assert tree_digest(root) == applied
    status, out, err = cli("history", "--root", root)
    assert "reverted" not in out, out
    # --force restores what the intact records say; the lost write is named as not undone (exit 1).
    status, out, err = cli("revert", "--last", "--root", root, "--force")
    assert status == 1, (out, err)
    after = tree_digest(root)
    assert [k for k in after if after[k] != before.get(k)] == [lost.lstrip("/")], out
    assert "intent %d missing" % last in out


def test_a_done_naming_a_seq_no_intent_has_is_refused(cli, tmp_path):
    root, before, applied, journal = _applied(cli, tmp_path)
    extra = _last_intent(journal) + 1
    lines = journal.read_bytes().splitlines(keepends=True)
    journal.write_bytes(b"".join(lines[:-1]) + line({"t": "done", "seq": extra}) + lines[-1])
    status, out, err = cli("revert", "--last", "--root", root)
    assert status == 2 and "intent %d missing" % extra in err, (out, err)
    assert tree_digest(root) == applied


def test_a_write_made_whose_done_was_lost_is_restored(cli, tmp_path):
    # Cut at a record boundary after the intents: a run killed there. Every
    # target holds its intent's "after" (the writes were made): revert puts each back.
    root, before, applied, journal = _applied(cli, tmp_path)
    _rewrite(journal, lambda r: r["t"] in ("begin", "intent", "intents"))
    status, out, err = cli("revert", "--last", "--root", root)
    assert status == 0, (out, err)
    assert tree_digest(root) == before
    status, out, err = cli("history", "--root", root)
    assert "reverted" in out, out
