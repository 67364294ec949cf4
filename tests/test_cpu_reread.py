"""Verify after apply reads the cpu facts again from the plan's (issue #38):
each governor and cpuidle disable again, not every state's files and every
process's descriptors; the same facts as a whole read after the writes, and
a whole read where something else may have changed."""

import pytest

import bench_host
from numatune import engine
from numatune.families.cpu import facts as cpupower
from numatune.families.registry import load


@pytest.fixture(scope="module")
def giant(tmp_path_factory):
    return bench_host.build(tmp_path_factory, "cpureread",
                            sockets=2, nodes=2, cpus=8, luns=2, paths=2, nics=1, queues=2, instances=1, procs=10)


@pytest.fixture
def host(giant, tmp_path):
    return bench_host.copied(giant, tmp_path)


def _applied(root_dir, policy_path):
    root, policy, plan, facts = bench_host.planned(root_dir, policy_path)
    assert any(c.family == "cpu" for c in plan.changes)
    txid, ops, _ = engine.apply(root, policy, plan.changes, plan=plan, facts=facts)
    return root, policy, facts, ops


def test_the_cpu_facts_read_again_are_the_whole_read(host, monkeypatch):
    root, policy, facts, ops = _applied(*host)
    cpu = load("cpu")
    whole = cpu.read(root, policy.data)
    assert whole != facts["cpu"]     # the writes changed governors and C-states

    def holders(root_):
        raise AssertionError("the latency file's holders read again")
    monkeypatch.setattr(cpupower, "dma_latency_holders", holders)
    assert cpu.reread(root, policy.data, facts["cpu"], ops) == whole


def test_a_host_tool_a_write_elsewhere_or_other_cpus_read_it_whole(host):
    root, policy, facts, ops = _applied(*host)
    cpu = load("cpu")
    assert cpu.reread(root, policy.data, facts["cpu"], ops) is not None
    assert cpu.reread(root, policy.data, facts["cpu"], ops + [{"kind": "command", "argv": ["tuned-adm"]}]) is None
    online = {"kind": "value", "path": "/sys/devices/system/cpu/cpu3/online", "before": "1", "after": "0"}
    assert cpu.reread(root, policy.data, facts["cpu"], ops + [online]) is None
    fewer = dict(facts["cpu"], cpuidle=dict(facts["cpu"]["cpuidle"], cpus={
        k: v for k, v in facts["cpu"]["cpuidle"]["cpus"].items() if k != "3"}),
        cpufreq=dict(facts["cpu"]["cpufreq"], policies=[
            p for p in facts["cpu"]["cpufreq"]["policies"] if 3 not in p["cpus"]]))
    assert cpu.reread(root, policy.data, fewer, ops) is None


def test_the_tuned_family_after_it_takes_the_c_states_read_again(host, monkeypatch):
    # The tuned family reads the C-states too (max_cstate); verify read every state's three files for it
    # once more after the cpu facts had just been read again. Now it takes those, as a plan takes the cpu
    # family's whole read.
    from numatune.facts import once
    root, policy, facts, ops = _applied(*host)
    assert policy.data["cpu"].get("max_cstate")
    tuned = load("tuned")
    whole = tuned.read(root, policy.data)
    once.forget(root)
    load("cpu").reread(root, policy.data, facts["cpu"], ops)

    def whole_read(*args):
        raise AssertionError("every C-state's files read again")
    monkeypatch.setattr(cpupower, "_read_cpuidle", whole_read)
    assert tuned.read(root, policy.data) == whole


def test_the_topology_read_again_keeps_the_cpus_ids_as_planned(host, monkeypatch):
    # Verify read every CPU's topology directory again (480 of them on the bench host), though no write
    # numatune makes changes a CPU's ids: the same facts now from the plan's, the nodes read again.
    from numatune.facts import once, topology
    from numatune.facts.topology_again import reread as reread_topology
    root, policy, facts, ops = _applied(*host)
    once.forget(root)
    whole = topology.read(root)
    once.forget(root)
    real = topology._read_cpus
    monkeypatch.setattr(topology, "_read_cpus", lambda r: pytest.fail("every CPU's topology read again"))
    assert reread_topology(root, facts["topology"], ops) == whole
    assert topology.read_cpus(root) == (whole["cpus"], whole["online"])     # what the families get after
    monkeypatch.setattr(topology, "_read_cpus", real)
    once.forget(root)
    online = {"kind": "value", "path": "/sys/devices/system/cpu/cpu3/online", "before": "1", "after": "0"}
    assert reread_topology(root, facts["topology"], ops + [online]) is None
    assert reread_topology(root, facts["topology"], ops + [{"kind": "command", "argv": ["tuned-adm"]}]) is None
    # A CPU gone offline since the plan (by someone else): read whole.
    (host[0] / "sys/devices/system/cpu/online").write_text("0-2,4-%d\n" % max(whole["online"]))
    assert reread_topology(root, facts["topology"], ops) is None


@pytest.mark.parametrize("op, keeps", [
    ({"kind": "value", "path": "/sys/devices/system/cpu/cpufreq/policy0/scaling_governor"}, True),
    ({"kind": "value", "path": "/sys/devices/system/cpu/cpu7/cpuidle/state3/disable"}, True),
    ({"kind": "value", "path": "/proc/sys/vm/swappiness"}, True),
    ({"kind": "value", "path": "/sys/devices/system/cpu/cpu7/online"}, False),
    ({"kind": "value", "path": "/sys/devices/system/cpu/smt/control"}, False),     # SMT off: siblings go
    ({"kind": "value", "path": "/proc/sys/vm/swappiness",
      "coupled": ["/sys/devices/system/cpu/cpu2/online"]}, False),
    ({"kind": "command", "argv": ["tuned-adm", "profile", "x"]}, False),
])
def test_which_writes_keep_the_cpus_ids(op, keeps):
    from numatune.facts.topology_again import keeps_ids
    assert keeps_ids(op) is keeps
