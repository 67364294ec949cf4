"""The next boot of a HugePages pool (numatune.families.hugepages.atboot):
the kernel's own even spread, the route that keeps a per-node placement
(the node format of Linux 5.16+, the boot file) and the refusal of a spread
that starves a bound node. Pure: facts as the readers give them."""
import pytest

from numatune.families.hugepages import atboot

ENTRY = "/boot/loader/entries/x.conf"


def topo(nodes=8, with_memory=None):
    ids = [str(n) for n in range(nodes)]
    return {"nodes": {n: {"hugepages": {"2048": {"nr": 0}}} for n in ids},
            "nodes_with_memory": with_memory if with_memory is not None else ids}


def boot(kind="bls", args=()):
    return {"error": None, "config": {"kind": kind, "entries": [{"path": ENTRY, "args": list(args)}]}}


def need(per_node, others=None, sid="BDT12CG_1"):
    return {"total": sum(per_node.values()), "per_node": per_node, "others_per_node": others or {},
            "instances": [{"sid": sid, "nodes": list(per_node), "pages": sum(per_node.values())}]}


def test_the_kernels_spread_is_round_robin_lowest_ids_first():
    # Issue #24's 8-node host: vm.nr_hugepages = 16315 comes back as 2040 x 3 and 2039 x 5.
    spread = atboot.kernel_spread(16315, topo())
    assert [spread[str(n)] for n in range(8)] == [2040] * 3 + [2039] * 5


def test_a_movable_only_node_gets_none_at_boot():
    # Node 2's memory is all movable: the allocation fails there and the loop moves on.
    spread = atboot.kernel_spread(101, topo(3), normal_memory=["0", "1"])
    assert spread == {"0": 51, "1": 50}


@pytest.mark.parametrize("release, kind, ids, args, ok, said", [
    ("6.12.0-1.el9uek.x86_64", "bls", None, (), True, ""),
    ("5.16.0", "grub2-legacy", None, (), True, ""),
    ("5.15.0-200.el9uek.x86_64", "bls", None, (), False, "older than Linux 5.16"),
    ("5.14.0-503.11.1.el9_5.x86_64", "bls", None, (), False, "older than Linux 5.16"),
    ("", "bls", None, (), False, "(unknown) is older"),
    ("6.12.0", "none", None, (), False, "no boot entries numatune edits"),
    ("6.12.0", "bls", ["0", "2"], (), False, "not numbered 0..1"),
    ("6.12.0", "bls", None, ("hugepagesz=1G", "hugepages=4"), False, "another pool's hugepagesz=1G"),
    # The same size said another way is no other pool.
    ("6.12.0", "bls", None, ("hugepagesz=2048k", "hugepages=512"), True, ""),
])
def test_when_the_node_format_is_used(release, kind, ids, args, ok, said):
    got, why = atboot.node_format(release, topo(4, ids), boot(kind, args), 2048)
    assert got is ok and said in why


def test_a_placement_that_is_not_the_spread_goes_on_the_command_line():
    want = {"0": 40, "1": 40, "2": 0, "3": 16039}
    route = atboot.plan(2048, 2048, want, topo(4), None, "6.12.0", boot(), {"init": "systemd"})
    assert route["route"] == "cmdline"
    assert route["args"] == ["hugepagesz=2M", "hugepages=0:40,1:40,3:16039"]   # node 2: none named, none given
    assert route["at_boot"] == want


def test_before_5_16_the_boot_file_keeps_it_unless_nothing_runs_it():
    want = {"0": 40, "1": 40, "2": 40, "3": 16039}
    route = atboot.plan(2048, 2048, want, topo(4), None, "3.10.0-1160.el7.x86_64", boot(), {"init": "systemd"})
    assert (route["route"], route["args"]) == ("bootfile", [])
    route = atboot.plan(2048, 2048, want, topo(4), None, "2.6.32-431.el6.x86_64", None,
                        {"init": "sysv", "runner": {"problem": "/etc/rc.d/init.d/numatune-boot is missing"}})
    assert route["route"] == "spread" and route["at_boot"] == atboot.kernel_spread(16159, topo(4))
    assert "nothing would run the boot file at boot (/etc/rc.d/init.d/numatune-boot is missing)" in route["why"]


def test_1g_pages_before_5_16_are_spread_at_boot_and_that_is_refused_for_a_bound_node():
    want = {"0": 0, "1": 0, "2": 0, "3": 32}
    route = atboot.plan(1048576, 2048, want, topo(4), None, "4.18.0-513.el8.x86_64", boot(), {"init": "systemd"})
    assert route["route"] == "spread" and route["args"] == ["hugepagesz=1G", "hugepages=32"]
    assert "1G pages are allocated at boot only" in route["why"]
    (finding,) = atboot.starved(route, need({"3": 30}), 1048576, False, want)
    assert finding["id"] == "hugepages.boot-starves:node3" and finding["severity"] == "critical"
    assert "node 3 would get 8 where the plan places 32, less than the 30 BDT12CG_1 need" in finding["message"]
    # Linux 5.16 places them: hugepagesz=1G hugepages=3:32.
    route = atboot.plan(1048576, 2048, want, topo(4), None, "6.12.0", boot(), {"init": "systemd"})
    assert route["args"] == ["hugepagesz=1G", "hugepages=3:32"] and not atboot.starved(
        route, need({"3": 30}), 1048576, False, want)


def test_the_even_spread_asked_for_is_no_boot_refusal():
    # The pool placed evenly live too: what starves the node is the placement, the live guard's to say.
    want = atboot.kernel_spread(100, topo(2))
    route = atboot.plan(2048, 2048, want, topo(2), None, "4.18.0", boot(), {"init": "systemd"})
    assert route["route"] == "spread" and not atboot.starved(route, need({"0": 310}), 2048, False, want)


def test_others_on_the_node_count_and_allow_shrink_persists_anyway():
    want = {"0": 10, "1": 1000}
    route = atboot.plan(2048, 2048, want, topo(2), None, "2.6.32", None, {"init": "sysv", "runner": {"problem": "/etc/rc.d/init.d/numatune-boot is missing"}})
    assert route["at_boot"] == {"0": 505, "1": 505}
    assert not atboot.starved(route, need({"1": 400}), 2048, False, want)
    (finding,) = atboot.starved(route, need({"1": 400}, others={"1": 255}), 2048, False, want)
    assert "and the 255 others hold there" in finding["message"]
    assert not atboot.starved(route, need({"1": 400}, others={"1": 255}), 2048, True, want)
