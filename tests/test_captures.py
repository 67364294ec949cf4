"""On a copy of every real hwloc and lscpu capture: facts and plan succeed,
apply then plan shows no drift, and revert restores the tree byte for byte."""
import json

import pytest

from conftest import CAPTURES, tree_digest, write

POLICY = """
[policy]
name = "captures"
extends = ["oracle-numa"]

[hugepages]
size = "2M"
count = 64
"""


@pytest.fixture
def policy(tmp_path):
    return write(tmp_path, "policy.toml", POLICY)


def _seed(root):
    # No capture carries these; a RHEL host would.
    write(root, "/proc/sys/kernel/numa_balancing", "1\n")
    write(root, "/proc/sys/vm/zone_reclaim_mode", "1\n")


@pytest.mark.parametrize("name", sorted(CAPTURES))
def test_apply_then_plan_is_empty_and_revert_is_exact(name, capture, cli, policy):
    root = capture(name)
    _seed(root)
    status, out, err = cli("facts", "--root", root, "--policy", policy)
    assert status == 0, err
    assert "NUMA:" in out
    status, out, err = cli("plan", "--root", root, "--policy", policy, "--format", "json")
    assert status == 0, err
    plan = json.loads(out)
    assert plan["version"] == 1
    ids = {c["id"] for c in plan["changes"]}
    assert "sysctl.live:kernel.numa_balancing" in ids
    before = tree_digest(root)

    status, out, err = cli("apply", "--root", root, "--policy", policy, "--yes")
    assert status == 0, err + out
    assert (root / "proc/sys/kernel/numa_balancing").read_text() == "0\n"
    assert "kernel.numa_balancing = 0" in (root / "etc/sysctl.d/90-numatune.conf").read_text()

    status, out, err = cli("plan", "--root", root, "--policy", policy, "--format", "json")
    assert status == 0, err
    assert json.loads(out)["changes"] == []

    status, out, err = cli("revert", "--last", "--root", root)
    assert status == 0, err + out
    assert tree_digest(root) == before


def test_sparse_node_ids_and_cpumap_fallback(capture):
    from numatune.facts import topology
    from numatune.root import Root
    facts = topology.read(Root(str(capture("x86_64-64cpu"))))
    assert sorted(facts["nodes"], key=int) == ["0", "2", "3"]
    # node0's cpumap on this machine is 0x5555...: every other CPU.
    cpus0 = facts["nodes"]["0"]["cpus"]
    assert cpus0[:4] == [0, 2, 4, 6]


def test_cpu_less_node(capture):
    from numatune.facts import topology
    from numatune.root import Root
    facts = topology.read(Root(str(capture("ppc64-POWER7-64cpu"))))
    assert facts["nodes"]["1"]["cpus"] == []
    assert len(facts["nodes"]["0"]["cpus"]) == 64


def test_asymmetric_distances_and_two_pool_sizes(capture):
    from numatune.facts import topology
    from numatune.root import Root
    facts = topology.read(Root(str(capture("memorysidecaches"))))
    d = {n: facts["nodes"][n]["distance"] for n in facts["nodes"]}
    assert d["0"] == {"0": 10, "1": 21, "2": 11, "3": 21}
    assert set(facts["nodes"]["0"]["hugepages"]) == {"2048", "1048576"}


def test_hugepages_even_placement_on_sparse_nodes(capture, cli, tmp_path):
    root = capture("16amd64-4n4c-cgroup-distance-merge")
    policy = write(tmp_path, "hp.toml", '[hugepages]\nsize = "2M"\ncount = 1026\n')
    status, out, err = cli("plan", "--root", root, "--policy", policy, "--format", "json")
    assert status == 0, err
    desired = {c["target"]: c["desired"] for c in json.loads(out)["changes"] if c["id"].startswith("hugepages.live")}
    # 1026 over 4 nodes: the first two get the remainder.
    assert desired == {"node0 hugepages-2048kB": "257", "node1 hugepages-2048kB": "257",
                       "node2 hugepages-2048kB": "256", "node3 hugepages-2048kB": "256"}
