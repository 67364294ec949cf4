"""Merged file records (#28): the edits of one file in a transaction are
chained into one journaled op and one atomic write, so the journal grows
with the number of writes, not with their square (2,000 sysctl keys made a
96 MB journal, each key's record holding the whole file twice). Revert
restores the file once and says which changes the record undid; journals
written before the merge (one record per edit) are still reverted."""
import glob
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import fakehost
from conftest import STATE, tree_digest, write
from numatune.apply.file import edit_bytes
from numatune.apply.journal import JOURNAL_DIR, sealed
from numatune.apply.journal_records import expand
from numatune.root import Root

OURS = "/etc/sysctl.d/90-numatune.conf"


def _many_keys(root, n, prefix="nt"):
    """A policy of ``n`` sysctl keys the host has (a live write and a line in numatune's file each)."""
    for i in range(n):
        write(root, "proc/sys/kernel/%s%d" % (prefix, i), "0\n")
    return "[sysctl]\n" + "".join('"kernel.%s%d" = 1\n' % (prefix, i) for i in range(n))


def _journals(root):
    return sorted(glob.glob(str(Path(root) / STATE / "journal" / "*.jsonl")))


def _intents(path):
    return [i for r in map(json.loads, open(path)) for i in expand(r) if i["t"] == "intent"]


@pytest.fixture
def count_writes(monkeypatch):
    """{host path: atomic writes} of whole files during the test."""
    seen = {}
    real = Root.write_atomic

    def counting(self, path, *args, **kwargs):
        seen[path] = seen.get(path, 0) + 1
        return real(self, path, *args, **kwargs)
    monkeypatch.setattr(Root, "write_atomic", counting)
    return seen


def _apply(cli, tmp_path, name, n):
    root = fakehost.build(tmp_path / name / "root")
    policy = write(tmp_path / name, "policy.toml", _many_keys(root, n))
    status, out, err = cli("apply", "--root", root, "--policy", policy, "--yes")
    assert status == 0, out + err
    [journal] = _journals(root)
    return root, journal, out


def test_the_journal_grows_linearly_and_the_file_is_written_once(cli, tmp_path, count_writes):
    sizes = {}
    for n in (500, 1000):
        count_writes.clear()
        root, journal, out = _apply(cli, tmp_path, "n%d" % n, n)
        sizes[n] = os.path.getsize(journal)
        assert count_writes.get(OURS) == 1, count_writes
        [merged] = [i for i in _intents(journal) if i["op"]["kind"] == "file"]
        assert [e["change"] for e in merged["op"]["edits"]] == ["sysctl.persist:kernel.nt%d" % i for i in range(n)]
        assert "%d planned write(s) made as %d:" % (2 * n, n + 1) in " ".join(out.replace(",", "").split()), out
    # Quadratic growth doubles twice; each record holding the whole file made 1,000 keys 3.7 times 500's.
    assert sizes[1000] / sizes[500] < 2.3, sizes


def test_apply_then_revert_of_many_keys_restores_byte_for_byte(cli, tmp_path):
    root = fakehost.build(tmp_path / "root")
    # An existing file of ours, odd mode and owner: restored once, as it was.
    write(root, OURS, "# kept by hand\nkernel.nt3 = 7\n", mode=0o640)
    os.chown(str(root / OURS.lstrip("/")), 4242, 4343)
    policy = write(tmp_path, "policy.toml", _many_keys(root, 300))
    before = tree_digest(root)
    status, out, err = cli("apply", "--root", root, "--policy", policy, "--yes")
    assert status == 0, out + err
    assert tree_digest(root) != before
    status, out, err = cli("revert", "--last", "--root", root)
    assert status == 0, out + err
    assert tree_digest(root) == before
    # The record names the changes it undid.
    [line] = [l for l in out.splitlines() if OURS in l]
    assert "undid 300 edits: sysctl.persist:kernel.nt0, sysctl.persist:kernel.nt1" in line and "297 more" in line


def test_a_journal_of_one_record_per_edit_is_still_reverted(cli, tmp_path):
    # Written as numatune wrote journals before records were merged: each edit of the file
    # a record of its own holding the whole file before and after it.
    import base64
    import hashlib
    root = fakehost.build(tmp_path / "root")
    path = root / OURS.lstrip("/")
    before = tree_digest(root)
    assert not path.exists()

    def state(data):
        if data is None:
            return {"exists": False}
        return {"exists": True, "mode": 0o644, "uid": 0, "gid": 0, "sha256": hashlib.sha256(data).hexdigest(),
                "data": base64.b64encode(data).decode()}
    txid = "20260101T000000-000001-1"
    records = [{"t": "begin", "txid": txid, "time": "2026-01-01T00:00:00+00:00", "command": "apply",
                "root": str(root), "policy": {}, "changes": []}]
    data = None
    for seq in range(1, 6):
        new = edit_bytes(data, "sysctl_set", {"key": "kernel.old%d" % seq, "value": "1"})
        op = {"kind": "file", "path": OURS, "editor": "sysctl_set", "before": state(data), "after": state(new),
              "created_dirs": []}
        records += [{"t": "intent", "seq": seq, "change": "sysctl.persist:kernel.old%d" % seq, "op": op},
                    {"t": "done", "seq": seq}]
        data = new
    records.append({"t": "commit", "time": "2026-01-01T00:00:01+00:00"})
    journal = root / JOURNAL_DIR.lstrip("/") / (txid + ".jsonl")
    journal.parent.mkdir(parents=True)
    journal.write_text("".join(json.dumps(sealed(r), sort_keys=True) + "\n" for r in records))
    path.write_bytes(data)
    status, out, err = cli("revert", txid, "--root", root)
    assert status == 0, out + err
    assert not path.exists() and tree_digest(root) == before
    assert "5 restored" in out, out


def test_history_counts_the_records_and_the_edits_they_carry(cli, tmp_path):
    root, journal, out = _apply(cli, tmp_path, "h", 20)
    txid = Path(journal).name[:-6]
    # A live and a persistent change per key: 20 value writes and one file record carrying 20 edits.
    assert "40 change(s), 21 write(s) applied and verified" in out, out
    status, out, err = cli("history", txid, "--root", root)
    assert status == 0 and "40 change(s), 21 write(s)" in out, out + err


def _campaign():
    sys.path.insert(0, str(Path(__file__).parent / "faults"))
    import campaign
    import roots
    return campaign, roots


@pytest.mark.skipif(not shutil.which("strace"), reason="needs strace")
@pytest.mark.parametrize("fault", ["kill", "enospc"])
def test_a_fault_in_the_merged_write_rolls_back_or_is_reverted(tmp_path, monkeypatch, fault):
    """SIGKILL or ENOSPC at each rename, and at the writes of the merged
    file's bytes: after `revert --last` the tree is the tree before apply."""
    campaign, roots = _campaign()

    def build(work):
        root = fakehost.build(work / "pristine")
        return root, str(write(work, "policy.toml", _many_keys(root, 40))), ()
    monkeypatch.setitem(roots.BUILD, "manykeys", build)
    case = campaign.Case(tmp_path, "manykeys")
    probe = tmp_path / "probe"
    subprocess.run(["cp", "-a", str(case.pristine), str(probe)], check=True)
    picked = campaign.calls.count(campaign.numatune, case.apply_args(probe), probe, ("renameat", "write"))
    # The merged file is the one rename; its bytes are among the last writes (the journal's results follow).
    assert picked["renameat"], picked
    runs = [("renameat", n) for n in picked["renameat"]] + [("write", n) for n in picked["write"][-7:]]
    problems = {r: campaign.syscall_run(case, "apply", r[0], fault, r[1]) for r in runs}
    assert not any(problems.values()), problems
