"""A copied tree's value file is written over its old bytes, its tail cut
only where the new value is shorter (issue #38): emptying it first freed its
tmpfs page for the write to take a new one, a third of a giant host's write
time. Whatever the order, the file ends holding the value alone, and a run
stopped between the write and the cut is rolled back to its exact bytes."""
import errno
import os

import pytest

from conftest import write
from numatune.apply import value
from numatune.apply.journal import load
from numatune.apply.transaction import apply_changes, revert
from numatune.errors import ApplyError
from numatune.model import Change, Write
from numatune.root import Root

CASES = [("shorter", "1024\n", "64"), ("equal", "256\n", "128"), ("longer", "32\n", "4096")]


def _change(i, path, to):
    return Change(id="v%d" % i, area="storage", target="t%d" % i, current="x", desired=to, scope="live",
                  action="write " + path, writes=[Write(kind="value", path=path, value=to)])


def _paths(tmp_path):
    paths = []
    for name, before, _ in CASES:
        path = "/sys/block/%s/queue/nr_requests" % name
        write(tmp_path, path, before)
        paths.append(path)
    return paths


def test_a_value_is_written_over_and_cut_only_when_shorter(tmp_path, monkeypatch):
    paths = _paths(tmp_path)
    cuts, real = [], os.ftruncate

    def ftruncate(fd, length):
        cuts.append(length)
        return real(fd, length)
    monkeypatch.setattr(os, "ftruncate", ftruncate)
    root = Root(str(tmp_path))
    txid, _ = apply_changes(root, [_change(i, p, to) for i, (p, (_, _, to)) in enumerate(zip(paths, CASES))])
    assert [(tmp_path / p.lstrip("/")).read_bytes() for p in paths] == [b"64\n", b"128\n", b"4096\n"]
    assert cuts == [3]      # the shorter value's tail only: no file emptied first
    revert(root, load(root, txid))
    assert [(tmp_path / p.lstrip("/")).read_text() for p in paths] == [before for _, before, _ in CASES]


def test_a_run_stopped_between_the_write_and_the_cut_is_rolled_back(tmp_path, monkeypatch):
    paths = _paths(tmp_path)
    calls, real = [], os.ftruncate

    def ftruncate(fd, length):
        calls.append(length)
        if len(calls) == 1:     # the cut; the rollback's restore truncates as it always did
            raise OSError(errno.EIO, "injected between the write and the cut")
        return real(fd, length)
    monkeypatch.setattr(value.os, "ftruncate", ftruncate)
    root = Root(str(tmp_path))
    with pytest.raises(ApplyError, match="rolled back 1 write") as e:
        apply_changes(root, [_change(0, paths[0], "64")])
    assert "ROLLBACK FAILED" not in str(e.value) and calls[0] == 3
    # The write landed over "1024\n" ("64\n4\n") and was never cut: the rollback put the exact bytes back.
    assert (tmp_path / paths[0].lstrip("/")).read_bytes() == b"1024\n"
