"""The shipped superdome-oracle policy: it loads, extends oracle-numa, says
for every rule the paper file and its Table 13 figure
(001_211b0b645b2f1cc8.txt), plans on a Superdome-shaped root (a real 8-node
capture with 3PAR LUNs over two paths each) without lowering a host value, and
leaves the settings that depend on the array's or the switches' capacity, on
how datafiles are read or cost CPU (3PAR queue_depth, nomerges, MTU 9000,
802.3ad, rx-usecs 0, udp4 sdfn) commented with the paper's figure and the
reason."""
import json
from pathlib import Path

import pytest

from block_fixture import san_host
from conftest import CAPTURES, write
from numatune.policy.stack import load
from numatune.root import Root

POLICY = Path(__file__).resolve().parents[1] / "policies" / "superdome-oracle.toml"
SHAPE = "32amd64-4s2n4c-cgroup2"     # 4 sockets x 2 nodes: the NUMA shape of a Superdome X partition


def _whys(data):
    yield "cpu", data["cpu"]["why"]
    for i, rule in enumerate(data["block"]):
        yield "block[%d]" % i, rule["why"]
    for key, spec in data["sysctl"].items():
        assert isinstance(spec, dict), key
        yield key, spec["why"]


def test_it_extends_oracle_numa_and_every_why_names_its_source(tmp_path):
    root = tmp_path / "root"
    san_host(root, luns=1, paths=2)
    data = load(["superdome-oracle"], Root(str(root))).data
    assert data["kernel"]["transparent_hugepage"] == "never"      # from oracle-numa
    assert data["sysctl"]["kernel.numa_balancing"]["value"] == 0  # from oracle-numa
    (block,) = data["block"]                                      # oracle-numa's 3PAR rule alone
    assert (block["nr_requests"], block["multipath"]) == ({"at_least": 1024}, {"rr_min_io_rq": 1})
    assert data["cpu"]["governor"] == "performance" and data["cpu"]["max_cstate"] == 1
    # Table 13 of the paper, as minimums: a host already higher keeps its value.
    table13 = {"net.core.rmem_max": 16777216, "net.core.wmem_max": 16777216,
               "net.ipv4.tcp_rmem": "4096 87380 16777216", "net.ipv4.tcp_wmem": "4096 16384 16777216"}
    for key, figure in table13.items():
        assert data["sysctl"][key] == {"at_least": figure, "why": data["sysctl"][key]["why"]}
        assert str(figure) in data["sysctl"][key]["why"] and "Table 13" in data["sysctl"][key]["why"]
    for where, why in _whys(data):
        # A paper file, or the other source named (zone reclaim is not in the papers).
        assert "001_211b0b645b2f1cc8.txt" in why or "kernel's vm documentation" in why, (where, why)


def test_risky_and_switch_dependent_settings_stay_commented_with_a_reason():
    text = POLICY.read_text()
    data = load([str(POLICY)], Root("/")).data
    assert not any("queue_depth" in r or "nomerges" in r for r in data["block"])
    assert "net" not in data and "bond" not in data
    for opt_in in ("queue_depth = 128", "nomerges = 1", "MTU 9000", "802.3ad", "rx-usecs 0", "udp4 sdfn"):
        line = next(l for l in text.splitlines() if opt_in in l)
        assert line.lstrip().startswith("#"), line
    # The paper's figures (Table 8: 32 low-, 128 high-performance) and the reason, said where it is opted into.
    assert "used 32 (the\n#   low-performance set" in text and "128 (the high-performance set" in text
    assert "QUEUE FULL" in text and "target port" in text


@pytest.mark.skipif(SHAPE not in CAPTURES, reason="capture not in realdata")
def test_it_plans_on_a_superdome_shaped_root(capture, cli):
    root = capture(SHAPE)
    san_host(root, luns=2, paths=2, multipath_conf="defaults {\n\tuser_friendly_names yes\n}\n")
    for key, value in (("core/rmem_max", "212992"), ("core/wmem_max", "212992"),
                       ("ipv4/tcp_rmem", "4096\t131072\t6291456"), ("ipv4/tcp_wmem", "4096\t16384\t4194304")):
        write(root, "/proc/sys/net/" + key, value + "\n")     # the capture kept no net sysctls
    status, out, err = cli("plan", "--root", root, "--policy", "superdome-oracle", "--format", "json")
    assert status == 0, err
    plan = json.loads(out)
    assert (plan["host"]["nodes"], plan["host"]["sockets"]) == (8, 4)
    changes = {c["id"]: c for c in plan["changes"]}
    for c in plan["changes"]:
        assert c["why"].strip(), c["id"]
    # oracle-numa's 3PAR rule on every path and map; nothing of the commented opt-ins; the boot disk alone.
    paths = {"sdb", "sdc", "sdd", "sde", "dm-0", "dm-1"}
    assert {i.split(":")[1] for i in changes if i.startswith("block.live:")} == paths
    assert all(changes["block.live:%s:nr_requests" % d]["desired"] == "1024" for d in paths)
    assert not [i for i in changes if i.endswith((":queue_depth", ":nomerges")) or ":sda:" in i]
    # The paper's socket buffers, with their source.
    rmem = changes["sysctl.live:net.core.rmem_max"]
    assert rmem["desired"] == "16777216" and "001_211b0b645b2f1cc8.txt" in rmem["why"]
    # The host's default field (131072) is above the paper's 87380: kept, only the max is raised.
    assert changes["sysctl.live:net.ipv4.tcp_rmem"]["desired"] == "4096 131072 16777216"
    assert changes["sysctl.live:net.ipv4.tcp_wmem"]["desired"] == "4096 16384 16777216"
    assert "rr_min_io_rq 1" in changes["block.multipath"]["desired"]    # oracle-numa's, in multipath.conf
    # The capture's cpufreq runs ondemand: the paper's governor is planned, with its source.
    governor = changes["cpu.governor"]
    assert (governor["current"], governor["desired"]) == ("ondemand", "performance")
    assert "001_211b0b645b2f1cc8.txt" in governor["why"]
