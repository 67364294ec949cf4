"""NUMA and HugePages on the guest's real 2-node kernel (node0 = CPUs 0-1, node1 = CPUs 2-3)."""
import json
import re
from pathlib import Path

import pytest

from labkit import cycle, guest_only, numatune, policy_file, read

pytestmark = guest_only
NODE = Path("/sys/devices/system/node")
HP2M = "hugepages/hugepages-2048kB/nr_hugepages"
HP1G = "hugepages/hugepages-1048576kB/nr_hugepages"
SYSCTL_D = Path("/etc/sysctl.d/90-numatune.conf")


def nodes():
    return sorted(int(p.name[4:]) for p in NODE.glob("node[0-9]*"))


def expand(cpulist):
    """'0-1,4' -> [0, 1, 4], as the kernel writes cpulists."""
    out = []
    for part in cpulist.split(","):
        lo, _, hi = part.partition("-")
        out += range(int(lo), int(hi or lo) + 1)
    return out


def pools(rel=HP2M):
    return {n: int(read(NODE / ("node%d" % n) / rel)) for n in nodes()}


def pools_and_file():
    return pools(), SYSCTL_D.read_text() if SYSCTL_D.exists() else None


def test_facts_node_distances_equal_the_kernels():
    """`numatune facts` reports each node's cpulist and distances exactly as the guest's kernel has them."""
    status, out, err = numatune("facts", "--format", "json")
    assert status == 0, err
    topo = json.loads(out)["topology"]
    assert len(nodes()) == 2
    for n in nodes():
        fact = topo["nodes"][str(n)]
        kernel = [int(d) for d in read(NODE / ("node%d" % n) / "distance").split()]
        assert fact["distance"] == {str(peer): d for peer, d in zip(nodes(), kernel)}
        assert fact["cpus"] == expand(read(NODE / ("node%d" % n) / "cpulist"))
    assert topo["nodes"]["0"]["distance"]["1"] > topo["nodes"]["0"]["distance"]["0"]


def test_placement_per_node_on_the_real_kernel(tmp_path):
    """placement {0 = 16, 1 = 48} fills node0 and node1's own 2 MiB pools, not an even split, and reverts."""
    policy = policy_file(tmp_path, '[hugepages]\nsize = "2M"\ncount = 64\nplacement = { 0 = 16, 1 = 48 }\n')
    before, applied, out = cycle(policy, pools_and_file)
    assert applied[0] == {0: 16, 1: 48}
    assert "vm.nr_hugepages = 64" in applied[1]


ORACLE_HOME = Path("/u01/app/oracle/product/19.0.0/dbhome_1")


@pytest.fixture
def fake_instance():
    """An Oracle instance as numatune finds it on a host: /etc/oratab and its pfile (the guest's / is throw-away)."""
    oratab = Path("/etc/oratab")
    old = oratab.read_text() if oratab.exists() else None
    pfile = ORACLE_HOME / "dbs" / "initLAB.ora"
    pfile.parent.mkdir(parents=True, exist_ok=True)
    pfile.write_text("db_name='LAB'\nsga_target=192M\npga_aggregate_target=64M\nprocesses=150\n")
    oratab.write_text("LAB:%s:Y\n" % ORACLE_HOME)
    yield pfile
    if old is None:
        oratab.unlink()
    else:
        oratab.write_text(old)
    pfile.unlink()


def test_count_auto_sizes_the_pool_from_a_fake_instance(tmp_path, fake_instance):
    """count = "auto" sizes the live pool from the instance's 192M SGA and the kernel holds exactly the planned pages."""
    policy = policy_file(tmp_path, '[hugepages]\nsize = "2M"\ncount = "auto"\n\n[[oracle.instance]]\nsid = "LAB"\n')
    status, out, err = numatune("plan", "--policy", policy, "--format", "json")
    assert status == 0, err
    planned = {c["target"]: int(c["desired"]) for c in json.loads(out)["changes"]
               if c["id"].startswith("hugepages.live")}
    before, applied, _ = cycle(policy, pools)
    assert sum(applied.values()) == sum(planned.values())
    assert {"node%d hugepages-2048kB" % n: v for n, v in applied.items() if v != before[n]} == planned
    # At least the SGA in 2 MiB pages (192M / 2M = 96) plus a granule: not a fixed default.
    assert sum(applied.values()) > 96


def test_partial_fill_is_reported_as_the_kernel_gave_it(tmp_path):
    """A 1 GiB pool the kernel cannot fill at runtime: apply exits 1 naming the pages it really got, revert restores."""
    before = pools(HP1G)
    policy = policy_file(tmp_path, '[hugepages]\nsize = "1G"\ncount = 2\nplacement = { 0 = 1, 1 = 1 }\n')
    status, out, err = numatune("apply", "--yes", "--live-only", "--policy", policy)
    got = pools(HP1G)
    try:
        assert status == 1, out + err
        short = [n for n in nodes() if got[n] < 1]
        assert short, "the kernel filled every 1G pool: nothing partial to report (%s)" % got
        for n in short:
            assert re.search(r"allocated %d of 1 pages for node%d hugepages-1048576kB" % (got[n], n), out + err)
    finally:
        rstatus, rout, rerr = numatune("revert", "--last")
    assert rstatus == 0, rout + rerr
    assert pools(HP1G) == before


def sysctls(*keys):
    def read_all():
        return {k: read("/proc/sys/" + k.replace(".", "/")) for k in keys}, \
            SYSCTL_D.read_text() if SYSCTL_D.exists() else None
    return read_all


@pytest.mark.parametrize("key", ["kernel.numa_balancing", "vm.zone_reclaim_mode"])
def test_numa_sysctl_live_and_persisted(tmp_path, key):
    """kernel.numa_balancing / vm.zone_reclaim_mode: the kernel takes the flipped value, sysctl.d keeps it, revert restores."""
    now = read("/proc/sys/" + key.replace(".", "/"))
    want = "0" if now != "0" else "1"
    policy = policy_file(tmp_path, '[sysctl]\n"%s" = %s\n' % (key, want))
    before, applied, _ = cycle(policy, sysctls(key))
    assert applied[0][key] == want
    assert re.search(r"^%s = %s$" % (re.escape(key), want), applied[1], re.M)
