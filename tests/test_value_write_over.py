"""A copied tree's value file is written by apply over no more bytes than
the new in one pwrite (issue #38), as revert restores one: emptying it first
freed its tmpfs page for the write to take a new one, 4 us of a giant host's
35,000 writes. A file whose value is longer than the new one is emptied first,
as before; whatever the way, the file ends holding the value alone."""
import os

from conftest import write
from numatune.apply.journal import load
from numatune.apply.transaction import apply_changes, revert
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


def test_a_value_is_written_over_the_old_bytes_when_they_are_no_more(tmp_path, monkeypatch):
    paths = _paths(tmp_path)
    cuts, real = [], os.ftruncate

    def ftruncate(fd, length):
        cuts.append(length)
        return real(fd, length)
    monkeypatch.setattr(os, "ftruncate", ftruncate)
    root = Root(str(tmp_path))
    txid, _ = apply_changes(root, [_change(i, p, to) for i, (p, (_, _, to)) in enumerate(zip(paths, CASES))])
    assert [(tmp_path / p.lstrip("/")).read_bytes() for p in paths] == [b"64\n", b"128\n", b"4096\n"]
    assert cuts == [0]      # the file whose old value was longer only: the others written over
    revert(root, load(root, txid))
    assert [(tmp_path / p.lstrip("/")).read_text() for p in paths] == [before for _, before, _ in CASES]

