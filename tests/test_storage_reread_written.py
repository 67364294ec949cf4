"""Verify after apply reads again only the storage settings the writes touched
(issue #38): a device no write touched keeps its facts as planned, a device
written reads its settable queue files again, its scheduler only when that
was written. The facts are those of a whole read after the writes; anything
else a write could have changed reads them whole."""
import collections
import os

import pytest

import bench_host
from conftest import write
from numatune import engine
from numatune.apply import verify
from numatune.families.registry import load
from numatune.rootfs import confine


@pytest.fixture(scope="module")
def giant(tmp_path_factory):
    return bench_host.build(tmp_path_factory, "written",
                            sockets=2, nodes=2, cpus=8, luns=6, paths=2, nics=1, queues=2, instances=1, procs=10)


@pytest.fixture
def host(giant, tmp_path):
    return bench_host.copied(giant, tmp_path)


_planned = bench_host.planned


def _opened_during_verify(monkeypatch):
    opened, during = collections.Counter(), [False]

    def seen(fd):
        if during[0] and fd is not None and fd >= 0:
            opened[os.readlink("/proc/self/fd/%d" % fd)] += 1
        return fd
    real_open, real_openat2 = os.open, confine._Openat2.__call__
    monkeypatch.setattr(os, "open", lambda *a, **k: seen(real_open(*a, **k)))
    monkeypatch.setattr(confine._Openat2, "__call__", lambda self, *a, **k: seen(real_openat2(self, *a, **k)))
    real = verify.verify_writes

    def verify_writes(*args, **kwargs):
        during[0] = True
        try:
            return real(*args, **kwargs)
        finally:
            during[0] = False
    monkeypatch.setattr(verify, "verify_writes", verify_writes)
    return opened


def test_verify_reads_no_scheduler_and_no_queue_of_a_device_not_written(host, monkeypatch):
    root, policy, plan, facts = _planned(*host)
    opened = _opened_during_verify(monkeypatch)
    txid, ops, _ = engine.apply(root, policy, plan.changes, plan=plan, facts=facts)
    written = {op["path"].split("/")[3] for op in ops if op.get("path", "").startswith("/sys/block/")}
    others = set(facts["storage"]["devices"]) - written
    assert written and others      # the boot disk and the nvme drive are not the policy's
    queues = [p for p in opened if "/queue/" in p]
    assert queues and not [p for p in queues if p.endswith(("/scheduler", "/max_hw_sectors_kb"))]
    assert not [p for p in queues for name in others if "/%s/queue/" % name in p]


def test_the_facts_read_again_are_the_whole_read(host):
    root, policy, plan, facts = _planned(*host)
    txid, ops, _ = engine.apply(root, policy, plan.changes, plan=plan, facts=facts)
    storage = load("storage")
    again = storage.reread(root, policy.data, facts["storage"], ops)
    assert again is not None and again != facts["storage"]
    assert again == storage.read(root, policy.data)


def _lun(facts):
    return next(n for n, d in sorted(facts["storage"]["devices"].items()) if n.startswith("sd") and d["settings"])


def test_a_scheduler_written_and_what_it_resets_are_read_again(host):
    root, policy, plan, facts = _planned(*host)
    name = _lun(facts)
    queue = "/sys/block/%s/queue/" % name
    write(host[0], queue + "scheduler", "mq-deadline kyber [bfq] none\n")
    write(host[0], queue + "nr_requests", "64\n")
    op = {"kind": "blockattr", "path": queue + "scheduler", "before": "mq-deadline", "after": "bfq",
          "coupled": {queue + "nr_requests": "256"}}
    storage = load("storage")
    again = storage.reread(root, policy.data, facts["storage"], [op])
    assert again["devices"][name]["scheduler"]["current"] == "bfq"
    assert again["devices"][name]["settings"]["nr_requests"]["value"] == "64"
    assert again == storage.read(root, policy.data)


def test_a_device_that_becomes_selected_reads_its_settings(host, tmp_path):
    # A rule that matches on rotational selects the LUNs once another has set it.
    policy_path = tmp_path / "rotational.toml"
    write(tmp_path, "rotational.toml", '[[block]]\nmatch = { vendor = "3PARdata" }\nrotational = 0\n\n'
                       '[[block]]\nmatch = { rotational = false }\nread_ahead_kb = 512\n')
    root, policy, plan, facts = _planned(host[0], policy_path)
    name = _lun(facts)
    assert "read_ahead_kb" not in facts["storage"]["devices"][name]["settings"]
    path = "/sys/block/%s/queue/rotational" % name
    write(host[0], path, "0\n")
    storage = load("storage")
    again = storage.reread(root, policy.data, facts["storage"], [{"kind": "value", "path": path,
                                                                  "before": "1", "after": "0"}])
    assert again["devices"][name]["settings"]["read_ahead_kb"]["value"]
    assert again == storage.read(root, policy.data)


def test_a_write_it_cannot_place_reads_the_facts_whole(host):
    root, policy, plan, facts = _planned(*host)
    name = _lun(facts)
    real = os.path.realpath(host[0] / "sys/block" / name)[len(str(host[0])):]
    storage = load("storage")
    value = {"kind": "value", "before": "1", "after": "2"}
    assert storage.reread(root, policy.data, facts["storage"],
                          [dict(value, path="/sys/block/%s/queue/nomerges" % name)]) is not None
    for path in (real + "/queue/nomerges",                  # the device by its real path
                 "/sys/block/sdzz/queue/nomerges",          # a device the plan does not know
                 "/sys/block/%s/queue/iosched/fifo_batch" % name,
                 "/sys/block/%s/device/timeout" % name,
                 "/etc/udev/udev.conf", "/etc/udev/rules.d/60-other.rules"):
        assert storage.reread(root, policy.data, facts["storage"], [dict(value, path=path)]) is None, path
    rules = {"kind": "file", "path": "/etc/udev/rules.d/90-numatune.rules"}
    assert storage.reread(root, policy.data, facts["storage"], [rules]) is not None
