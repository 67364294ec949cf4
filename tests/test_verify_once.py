"""Verify after apply reads each value it wrote once (issue #38): the
read-back and the facts read again for the changed families (a giant
host's queue attributes, IRQ affinities, cpuidle states) share that one
read (numatune/apply/recent.py), and what verify says is what it said
when each was read twice: a write that did not hold is still reported."""
import collections
import os

import pytest

import bench_host
from numatune import engine
from numatune.apply import recent, value as values, verify
from numatune.errors import ApplyError
from numatune.rootfs import confine


@pytest.fixture(scope="module")
def giant(tmp_path_factory):
    return bench_host.build(tmp_path_factory, "once",
                            sockets=2, nodes=2, cpus=8, luns=4, paths=2, nics=2, queues=2, instances=1, procs=10)


@pytest.fixture
def host(giant, tmp_path):
    return bench_host.copied(giant, tmp_path)


_planned = bench_host.planned


def _count_opens(monkeypatch, during):
    """{real path: opens} of every file opened while ``during`` is true (by name from a
    directory's descriptor, or by its whole path through openat2)."""
    opened = collections.Counter()

    def seen(fd):
        if during[0] and fd is not None and fd >= 0:
            opened[os.readlink("/proc/self/fd/%d" % fd)] += 1
        return fd
    real_open = os.open

    def counting_open(*args, **kwargs):
        return seen(real_open(*args, **kwargs))
    monkeypatch.setattr(os, "open", counting_open)
    real_openat2 = confine._Openat2.__call__
    monkeypatch.setattr(confine._Openat2, "__call__", lambda self, *a, **k: seen(real_openat2(self, *a, **k)))
    return opened


def test_verify_opens_each_value_written_once(host, monkeypatch):
    root, policy, plan, facts = _planned(*host)
    during = [False]
    opened = _count_opens(monkeypatch, during)
    real = verify.verify_writes

    def verify_writes(*args, **kwargs):
        during[0] = True
        try:
            return real(*args, **kwargs)
        finally:
            during[0] = False
    monkeypatch.setattr(verify, "verify_writes", verify_writes)
    txid, ops, _ = engine.apply(root, policy, plan.changes, plan=plan, facts=facts)
    written = {os.path.realpath(root.join(op["path"])) for op in ops if op["kind"] == "value"}
    assert len(written) > 100 and any("/queue/" in p for p in written) and any("/irq/" in p for p in written)
    twice = sorted(p for p in written if opened[p] > 1)
    assert twice == []
    assert all(opened[p] == 1 for p in written)


def test_the_reads_answer_from_the_texts_only_while_in_force(host):
    root, policy, plan, facts = _planned(*host)
    path = next(w.path for c in plan.changes for w in c.writes if w.kind == "value" and "/queue/" in w.path)
    directory, name = path.rsplit("/", 1)
    was = root.read_text(path)
    with recent.Recent(root, [path]) as got:
        assert got.texts == {path: was}
        with open(root.join(path), "w") as f:
            f.write("changed behind its back\n")
        assert root.read_text(path) == was
        assert root.read_texts(directory, (name, "scheduler"))[name] == was
        assert root.read_value(path) == was.strip()
        assert root.read_value_alone(path) == was.strip()
    assert root.read_text(path) == "changed behind its back\n"
    assert "read_text" not in vars(root)


def test_a_value_that_did_not_hold_is_still_reported(host, monkeypatch):
    root, policy, plan, facts = _planned(*host)
    real = values._write

    def lost(root_, path, value):
        real(root_, path, value)
        if path.endswith("/queue/read_ahead_kb"):
            real(root_, path, "4")  # the kernel (or another tool) put it back
    monkeypatch.setattr(values, "_write", lost)
    with pytest.raises(ApplyError, match=r"verify after apply: .*read_ahead_kb still '4', wanted "):
        engine.apply(root, policy, plan.changes, plan=plan, facts=facts)


def test_only_plain_paths_are_read_together():
    assert recent._parts("/sys/block/sda/queue/nr_requests") == ("/sys/block/sda/queue", "nr_requests")
    for odd in ("/sys/block/../x", "/sys/./x", "/sys/block/..", "/sys//x", "relative/x", "/sys/x/", "/x"):
        assert recent._parts(odd) is None   # read by its kind, one file at a time, as before
