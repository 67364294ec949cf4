"""A valid policy that never converged (#14 item 8): count = "auto" with a
[[cpuset]] on a real 8-node capture whose pool already holds pages
(nr_hugepages 17217 from an earlier run, 513 free in the copy's sysfs).
Pages in use came from sysfs nr - free; on a copy numatune's own write of
nr_hugepages leaves free_hugepages as it was, so the re-plan after apply
sized another pool and verify failed on every apply."""
import json

import pytest

from conftest import CAPTURES, tree_digest, write

PFILE = "/u01/app/oracle/product/19.0.0/dbhome_1/dbs/initORCL.ora"
POLICY = """
[hugepages]
size = "2M"
count = "auto"

[[cpuset]]
name = "oracle"
nodes = [0]

[[oracle.instance]]
sid = "ORCL"
[oracle.instance.parameters]
processor_group_name = "oracle"
use_large_pages = "ONLY"
memory_target = 0
"""


@pytest.mark.skipif("32amd64-4s2n4c-cgroup2" not in CAPTURES, reason="capture not in realdata")
def test_auto_hugepages_with_a_cpuset_on_eight_nodes_converges(capture, cli, tmp_path):
    from test_cpuset import cgroup_v1
    root = capture("32amd64-4s2n4c-cgroup2")
    write(root, "/etc/oratab", "ORCL:/u01/app/oracle/product/19.0.0/dbhome_1:Y\n")
    write(root, PFILE, "db_name='ORCL'\nmemory_target=50G\nprocesses = 300\n")
    write(root, "/u01/app/oracle/product/19.0.0/dbhome_1/inventory/ContentsXML/comps.xml",
          '<COMP NAME="oracle.server" VER="19.3.0.0.0"/>\n')     # the release: processor_group_name needs 12.1
    write(root, "/proc/sys/vm/nr_hugepages", "0\n")
    write(root, "/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages", "17217\n")
    cgroup_v1(root)
    assert len(list((root / "sys/devices/system/node").glob("node[0-9]*"))) == 8
    before = tree_digest(root)
    policy = write(tmp_path, "p.toml", POLICY)
    # -v: apply folds its writes per rule; -v lists each as made.
    status, out, err = cli("apply", "--root", root, "--policy", policy, "--yes", "-v")
    assert status == 0, err
    # memory_target=50G leaves AMM: sga_target = 60% = 30720M, granule 64M (<= 32G), already whole.
    # No alert log: shared areas estimated as 000's instance showed them, max(64M, 30720M * 770/30720) = 770M.
    # (30720 + 770) MiB / 2 MiB = 15745 pages; + ceil(15745 * 2%) = 315 margin -> 16060
    # (above the 513 pages in use). Without the areas it was (30720 + 64) / 2 = 15392 + 308 = 15700.
    assert "nr_hugepages: 17217 -> 16060" in out
    status, out, err = cli("plan", "--root", root, "--policy", policy, "--format", "json")
    assert status == 0 and json.loads(out)["changes"] == [], out
    status, out, err = cli("revert", "--last", "--root", root)
    assert status == 0, out + err
    assert tree_digest(root) == before
