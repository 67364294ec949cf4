"""A copied tree's one-value file is opened once per write (issue #38): the
capture's descriptor, held until the intent is journaled, serves the write;
in revert, the read that decides serves the restore.
What a link, a hardlink or a FIFO at the name gets stays as before."""
import os

import pytest

from conftest import write
from numatune.apply import value
from numatune.apply.journal import load
from numatune.apply.transaction import apply_changes, revert
from numatune.model import Change, Write
from numatune.root import Root
from numatune.rootfs import reads


def _change(i, path):
    return Change(id="v%d" % i, area="kernel", target="t%d" % i, current="64", desired="128", scope="live",
                  action="write " + path, writes=[Write(kind="value", path=path, value="128")])


def test_each_value_file_is_opened_once_by_apply(tmp_path, monkeypatch):
    paths = ["/sys/block/sd%d/queue/nr_requests" % i for i in range(5)]
    for p in paths:
        write(tmp_path, p.lstrip("/"), "64\n")
    opened = []

    def counting(real):
        def counted(self, path, *args):
            opened.append(path)
            return real(self, path, *args)
        return counted
    for name in ("open_named", "read_bytes", "read_text"):  # every way Root opens a file by its name
        monkeypatch.setattr(reads.Reads, name, counting(getattr(reads.Reads, name)))
    root = Root(str(tmp_path))
    txid, _ = apply_changes(root, [_change(i, p) for i, p in enumerate(paths)])
    assert [opened.count(p) for p in paths] == [1] * 5
    assert all((tmp_path / p.lstrip("/")).read_text() == "128\n" for p in paths)
    # Revert too: the read that decides serves the restore.
    del opened[:]
    (tmp_path / paths[0].lstrip("/")).write_text("32\n")   # changed since by someone else: left, and closed
    revert(root, load(root, txid))
    assert [opened.count(p) for p in paths] == [1] * 5
    assert [(tmp_path / p.lstrip("/")).read_text() for p in paths] == ["32\n"] + ["64\n"] * 4
    assert value._DECIDED == {}


def test_a_value_captured_and_never_written_leaves_nothing_open(tmp_path):
    write(tmp_path, "proc/sys/vm/swappiness", "60\n")
    root = Root(str(tmp_path))
    op = value.capture(root, Write(kind="value", path="/proc/sys/vm/swappiness", value="10"))
    fd = op.fd
    os.fstat(fd)
    del op
    with pytest.raises(OSError):
        os.fstat(fd)
    assert (tmp_path / "proc/sys/vm/swappiness").read_text() == "60\n"


def test_a_value_file_with_two_names_is_still_refused_at_its_write(tmp_path):
    write(tmp_path, "proc/sys/vm/swappiness", "60\n")
    os.link(tmp_path / "proc/sys/vm/swappiness", tmp_path / "other")
    root = Root(str(tmp_path))
    op = value.capture(root, Write(kind="value", path="/proc/sys/vm/swappiness", value="10"))
    assert not isinstance(op, value._Held) and op["before"] == "60"
    with pytest.raises(Exception, match="hard links"):
        value.perform(root, op)
    assert (tmp_path / "other").read_text() == "60\n"


def test_a_value_undo_is_said_as_any_kind_s_undo_is():
    # value.describe_undo formats without copying the op; the text is the generic one.
    from numatune.apply import ops, value
    op = {"kind": "value", "path": "/proc/sys/vm/x", "before": "1", "after": "always madvise [never]",
          "format": "bracket"}
    mine = value.describe_undo(op)
    assert ops.describe_undo(op) == mine
    assert mine == value.describe(dict(op, before=op["after"], after=op["before"])) + " restored"
