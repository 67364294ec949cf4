"""Verify after apply reads again only what the writes can change (issue #38):
a family with a ``reread`` (storage) starts from the plan's facts and reads
each device's queue and numatune's files, not who each device is. What
verify says is the same as when every fact is read again: the findings, the
problems, the compliant rules (apply's survives-a-reboot table); a write that
did not hold is still reported; and anything that may have changed more (a
host tool run, a write elsewhere in a device's directory, a device come or
gone) reads the facts whole."""
import shutil

import pytest

import bench_host
from numatune import engine
from numatune.apply import value as values
from numatune.errors import ApplyError
from numatune.families.registry import load
from numatune.families.storage import facts as facts_block


@pytest.fixture(scope="module")
def giant(tmp_path_factory):
    return bench_host.build(tmp_path_factory, "reread",
                            sockets=4, nodes=4, cpus=32, luns=8, paths=4, nics=2, queues=2, instances=1, procs=20)


@pytest.fixture
def host(giant, tmp_path):
    return bench_host.copied(giant, tmp_path)


_planned = bench_host.planned


def _said(findings, compliant):
    return sorted(repr(f.to_json()) for f in findings), sorted(repr(c) for c in compliant)


def test_the_storage_facts_read_again_are_the_whole_read(host):
    root, policy, plan, facts = _planned(*host)
    assert any(c.family == "storage" for c in plan.changes)
    txid, ops, _ = engine.apply(root, policy, plan.changes, plan=plan, facts=facts)
    storage = load("storage")
    again = storage.reread(root, policy.data, facts["storage"], ops)
    assert again is not None
    assert again == storage.read(root, policy.data)
    # The writes changed what it read again (the queues), not only what it kept.
    assert again != facts["storage"]


def test_verify_reads_no_device_identity_and_says_what_a_whole_read_says(host, tmp_path, monkeypatch):
    other = tmp_path / "other"
    shutil.copytree(host[0], other, symlinks=True)
    whole = _planned(other, host[1])
    kept = []
    txid, ops, findings = engine.apply(*whole[:2], whole[2].changes, plan=whole[2], compliant=kept)
    root, policy, plan, facts = _planned(*host)

    def discover(*args, **kwargs):
        raise AssertionError("verify read each device's identity again")
    monkeypatch.setattr(facts_block, "discover", discover)
    narrow = []
    txid2, ops2, findings2 = engine.apply(root, policy, plan.changes, plan=plan, compliant=narrow, facts=facts)
    assert len(ops2) == len(ops)
    assert _said(findings2, narrow) == _said(findings, kept)


def test_a_queue_write_that_did_not_hold_is_still_reported(host, monkeypatch):
    root, policy, plan, facts = _planned(*host)
    real = values._write

    def lost(root_, path, value):
        real(root_, path, value)
        if path == "/sys/block/sdb/queue/nomerges":
            real(root_, path, "0")  # the kernel (or another tool) put it back
    monkeypatch.setattr(values, "_write", lost)
    with pytest.raises(ApplyError, match=r"verify after apply: .*sdb.*nomerges still '0', wanted '1'"):
        engine.apply(root, policy, plan.changes, plan=plan, facts=facts)


def _ops(root, policy, plan, facts):
    return engine.apply(root, policy, plan.changes, plan=plan, facts=facts)[1]


def test_a_host_tool_or_a_write_elsewhere_in_a_device_reads_it_whole(host):
    root, policy, plan, facts = _planned(*host)
    ops = _ops(root, policy, plan, facts)
    storage = load("storage")
    assert storage.reread(root, policy.data, facts["storage"], ops) is not None
    # multipathd reconfigure reloads the maps; tuned-adm and grubby are host tools too.
    tool = dict(next(op for op in ops if op["kind"] == "multipath"), argv=["/sbin/multipathd", "reconfigure"])
    assert storage.reread(root, policy.data, facts["storage"], ops + [tool]) is None
    for path in ("/sys/block/sdb/device/rescan", "/run/udev/data/b8:16", "/sys/devices/pci0000:00/numa_node"):
        elsewhere = {"kind": "value", "path": path, "before": "0", "after": "1"}
        assert storage.reread(root, policy.data, facts["storage"], ops + [elsewhere]) is None


def test_a_device_come_or_gone_reads_the_facts_whole(host):
    root, policy, plan, facts = _planned(*host)
    ops = _ops(root, policy, plan, facts)
    storage = load("storage")
    (host[0] / "sys/block/sdzz").symlink_to(host[0] / "sys/block/sdb")
    assert storage.reread(root, policy.data, facts["storage"], ops) is None
    (host[0] / "sys/block/sdzz").unlink()
    for where in ("sys/block/sdb", "sys/class/block/sdb"):
        if (host[0] / where).is_symlink():
            (host[0] / where).unlink()
    assert storage.reread(root, policy.data, facts["storage"], ops) is None
    assert "sdb" not in storage.read(root, policy.data)["devices"]


def test_only_the_families_with_a_reread_start_from_the_plan(host, monkeypatch):
    root, policy, plan, facts = _planned(*host)
    seen = []
    real = engine.gather

    def gather(root_, data, every=False, families=None, reread=None):
        seen.append(([f.name for f in families], sorted(reread or ())))
        return real(root_, data, every, families, reread)
    monkeypatch.setattr(engine, "gather", gather)
    engine.apply(root, policy, plan.changes, plan=plan, facts=facts)
    [(read, rereads)] = seen
    # And the topology every gather reads (its CPUs' ids from the plan's: families/cpu/reread.py).
    assert rereads == ["cpu", "network", "storage", "topology"]
    # The others (sysctl, hugepages...) read their facts whole, as before.
    assert {"sysctl", "cpu", "hugepages"} <= set(read)
    assert sorted(name for name in read if load(name).reread is not None) == ["cpu", "network", "storage"]


def test_the_network_facts_read_again_are_the_whole_read(host):
    root, policy, plan, facts = _planned(*host)
    assert any(c.family == "network" for c in plan.changes)
    txid, ops, _ = engine.apply(root, policy, plan.changes, plan=plan, facts=facts)
    network = load("network")
    again = network.reread(root, policy.data, facts["network"], ops)
    assert again is not None and any(info.get("irqs") for info in again["interfaces"].values())
    assert again == network.read(root, policy.data)
    assert again != facts["network"]


def test_a_nic_whose_vectors_changed_reads_its_facts_whole(host):
    root, policy, plan, facts = _planned(*host)
    ops = _ops(root, policy, plan, facts)
    network = load("network")
    assert network.reread(root, policy.data, facts["network"], ops) is not None
    name, info = next((n, i) for n, i in facts["network"]["interfaces"].items() if i.get("msi_irqs"))
    moved = dict(facts["network"], interfaces=dict(facts["network"]["interfaces"],
                                                   **{name: dict(info, msi_irqs=info["msi_irqs"][1:])}))
    assert network.reread(root, policy.data, moved, ops) is None
    assert network.reread(root, policy.data, facts["network"], ops + [{"kind": "command", "argv": ["x"]}]) is None
