"""The oracle family end to end on fixture roots (no Oracle server here):
a pfile instance planned, applied, re-planned empty and reverted byte for
byte; an spfile instance reported, never written; bad policies refused."""
import json

import pytest

import fakehost
from conftest import REALDATA, tree_digest, write

ORACLE = REALDATA / "oracle"
HOME = "/u01/app/oracle/product/19.0.0/dbhome_1"
INIT = HOME + "/dbs/initORCL.ora"

POLICY = """
[hugepages]
size = "2M"
count = "auto"

[[oracle.instance]]
sid = "ORCL"
[oracle.instance.parameters]
_enable_NUMA_support = true
use_large_pages = "ONLY"
memory_target = 0
processor_group_name = "oracle"
processes = 300
"""


@pytest.fixture
def host(tmp_path):
    root = tmp_path / "root"
    fakehost.build(root)
    write(root, "/etc/oratab", "# oratab\nORCL:%s:Y\n" % HOME)
    write(root, INIT, (ORACLE / "init.ora.oracle-stock-sample").read_text())
    # The home's inventory says 19c: with no evidence of the release (the stock pfile's compatible = '11.2.0'
    # is only a floor), parameters newer than 11.2.0 are refused.
    write(root, HOME + "/inventory/ContentsXML/comps.xml",
          '<PRD_LIST><TL_LIST><COMP NAME="oracle.server" VER="19.3.0.0.0" BUILD_NUMBER="0"/></TL_LIST></PRD_LIST>\n')
    write(root, "/sys/fs/cgroup/cpuset/oracle/cpuset.cpus", "0-3\n")
    write(root, "/sys/fs/cgroup/cpuset/oracle/cpuset.mems", "0\n")
    return root


def _plan(cli, root, policy):
    status, out, err = cli("plan", "--root", root, "--policy", policy, "--format", "json")
    assert status == 0, err
    return json.loads(out)


def test_pfile_instance_plan_apply_revert(host, tmp_path, cli):
    policy = write(tmp_path, "policy.toml", POLICY)
    plan = _plan(cli, host, policy)
    changes = {c["id"]: c for c in plan["changes"]}
    params = {k.split(":")[2]: (c["current"], c["desired"]) for k, c in changes.items()
              if k.startswith("oracle.param:")}
    # memory_target=1G is switched off: 60% / 40% of it become the targets.
    assert params == {"_enable_numa_support": (None, "TRUE"), "use_large_pages": (None, "'ONLY'"),
                      "memory_target": ("1G", "0"), "processes": ("150", "300"),
                      "sga_target": (None, "614M"), "pga_aggregate_target": (None, "410M"),
                      "processor_group_name": (None, "'oracle'")}
    assert all(c["restart_required"] and c["writes"][0]["path"] == INIT
               for k, c in changes.items() if k.startswith("oracle.param:"))
    # SGA 614M, granule 4M: 616M, plus its shared areas estimated from 000's instance (616M x 770 / 30720
    # = 15.4M, above one granule) = 631.4M -> 316 pages; margin ceil(6.32) = 7 -> 323.
    # ORCL is bound to cpuset "oracle" (node 0): 316 there, the margin 4 + 3 over both nodes.
    assert changes["hugepages.live:node0:2048kB"]["desired"] == "320"
    assert changes["hugepages.live:node1:2048kB"]["desired"] == "3"
    assert changes["oracle.memlock"]["desired"] == "%d kB" % (323 * 2048)
    assert changes["oracle.memlock"]["current"] == "soft unset, hard unset"
    ids = {f["id"] for f in plan["findings"]}
    assert "oracle.amm-split:ORCL" in ids
    assert not {i for i in ids if i.startswith(("oracle.start-safety", "oracle.pool-too-small", "oracle.no-cpuset"))}

    before = tree_digest(host)
    status, out, err = cli("apply", "--yes", "--root", host, "--policy", policy)
    assert status == 0, out + err
    text = (host / INIT.lstrip("/")).read_text()
    assert "memory_target=0\n" in text and "processes = 300\n" in text and "_enable_NUMA_support=TRUE\n" in text
    limits = (host / "etc/security/limits.d/90-numatune-oracle.conf").read_text()
    assert "oracle soft memlock 661504\n" in limits and "oracle hard memlock 661504\n" in limits
    assert _plan(cli, host, policy)["changes"] == []
    status, out, err = cli("revert", "--last", "--root", host)
    assert status == 0, out + err
    assert tree_digest(host) == before


def test_only_refused_without_a_pool_that_fits(host, tmp_path, cli):
    policy = write(tmp_path, "policy.toml", POLICY.replace('count = "auto"', "count = 100"))
    plan = _plan(cli, host, policy)
    ids = {c["id"] for c in plan["changes"]}
    assert "oracle.param:ORCL:use_large_pages" not in ids
    assert "oracle.param:ORCL:memory_target" in ids
    crit = {f["id"] for f in plan["findings"] if f["severity"] == "critical"}
    assert {"oracle.start-safety:ORCL", "oracle.pool-too-small"} <= crit


def test_only_rolled_back_when_the_kernel_fills_less(host, tmp_path, cli, monkeypatch):
    """The pool was planned, but the kernel allocated fewer pages: the run is
    refused after the writes, and everything is rolled back."""
    from numatune.apply import value as value_writer
    real_write = value_writer._write

    def fragmented(root, path, value):
        if path.endswith("node0/hugepages/hugepages-2048kB/nr_hugepages") and value == "320":
            value = "100"       # the kernel found 100 free 2M blocks, not 320
        return real_write(root, path, value)
    monkeypatch.setattr(value_writer, "_write", fragmented)
    policy = write(tmp_path, "policy.toml", POLICY)
    before = tree_digest(host)
    status, out, err = cli("apply", "--yes", "--root", host, "--policy", policy)
    assert status == 1
    assert "start safety" in out + err and "rolled back" in out + err
    assert tree_digest(host) == before


def test_spfile_instance_is_reported_never_written(host, tmp_path, cli):
    (host / (HOME + "/dbs/spfileORCL.ora").lstrip("/")).write_bytes((ORACLE / "spfileperftest.ora").read_bytes())
    policy = write(tmp_path, "policy.toml", """
[[oracle.instance]]
sid = "ORCL"
pfile = "%s"
[oracle.instance.parameters]
sga_target = "28941m"
processes = 400
""" % INIT)
    plan = _plan(cli, host, policy)
    assert [c for c in plan["changes"] if c["area"] == "oracle"] == []
    findings = {f["id"]: f for f in plan["findings"]}
    assert "processes 300 -> 400" in findings["oracle.spfile:ORCL"]["message"]
    assert "sga_target" not in findings["oracle.spfile:ORCL"]["message"]   # 28941m is already there
    assert "CREATE PFILE" in findings["oracle.spfile:ORCL"]["why"]
    assert "would change nothing" in findings["oracle.pfile-shadowed:ORCL"]["message"]


def test_caging_and_binding_findings(host, tmp_path, cli):
    write(host, "/etc/oratab", "A:%s:Y\nB:%s:Y\nC:%s:Y\n" % (HOME, HOME, HOME))
    for sid in "ABC":
        write(host, HOME + "/dbs/init%s.ora" % sid, "*.db_name='%s'\n*.sga_target=1G\n" % sid)
    write(host, "/sys/fs/cgroup/cpuset/other/cpuset.cpus", "2-5\n")
    write(host, "/sys/fs/cgroup/cpuset/other/cpuset.mems", "0\n")
    policy = write(tmp_path, "policy.toml", """
[[oracle.instance]]
sid = "A"
[oracle.instance.parameters]
cpu_count = 1
resource_manager_plan = "default_plan"
[[oracle.instance]]
sid = "B"
[oracle.instance.parameters]
processor_group_name = "oracle"
[[oracle.instance]]
sid = "C"
[oracle.instance.parameters]
processor_group_name = "other"
""")
    findings = {f["id"]: f for f in _plan(cli, host, policy)["findings"]}
    assert "oracle.caging-one-cpu:A" in findings
    assert "oracle.cpuset-overlap:oracle:other" in findings           # CPUs 2-3 in both
    assert "oracle.cpuset-not-local:C" in findings                    # CPUs on nodes 0 and 1, memory on 0
    assert "oracle.cpuset-not-local:B" not in findings
    policy.write_text(policy.read_text().replace('"other"', '"missing"') + """
[[oracle.instance]]
sid = "*"
""")
    write(host, "/etc/oratab", "A:%s:Y\nB:%s:Y\nC:%s:Y\nD:%s:N\n" % (HOME, HOME, HOME, HOME))
    write(host, HOME + "/dbs/initD.ora", "*.sga_target=1G\n")
    findings = {f["id"]: f for f in _plan(cli, host, policy)["findings"]}
    assert findings["oracle.no-cpuset:C"]["severity"] == "critical"
    assert "oracle.unmanaged-cpu:D" in findings


def test_rac_inmemory_service(host, tmp_path, cli):
    write(host, "/etc/oratab", "orcl1:%s:N\norcl2:%s:N\n" % (HOME, HOME))
    write(host, HOME + "/dbs/initorcl1.ora", "*.inmemory_size=2G\norcl1.parallel_instance_group='IMSVC'\n")
    write(host, HOME + "/dbs/initorcl2.ora", "*.inmemory_size=2G\n")
    write(host, "/tmp/srvctl.txt", "Service name: imsvc\nServer pool: \nCardinality: 1\n"
                                   "Preferred instances: orcl1\nAvailable instances: orcl2\n")
    policy = write(tmp_path, "policy.toml", """
[oracle]
srvctl_config = "/tmp/srvctl.txt"
[[oracle.instance]]
sid = "*"
""")
    findings = {f["id"]: f for f in _plan(cli, host, policy)["findings"]}
    assert "oracle.rac-inmemory:imsvc:orcl2" in findings
    assert "oracle.rac-inmemory:imsvc:orcl1" not in findings
    assert "In-Memory column store" in findings["oracle.rac-inmemory:imsvc:orcl2"]["why"]


def test_alert_log_evidence_reported(host, tmp_path, cli):
    write(host, "/u01/app/oracle/diag/rdbms/orcl/ORCL/trace/alert_ORCL.log",
          "Tue Mar 10 09:58:01 2015\nStarting ORACLE instance (normal)\nNUMA system with 2 nodes detected\n"
          "Oracle NUMA support not enabled\n")
    policy = write(tmp_path, "policy.toml", """
[[oracle.instance]]
sid = "ORCL"
[oracle.instance.parameters]
_enable_NUMA_support = true
""")
    findings = {f["id"] for f in _plan(cli, host, policy)["findings"]}
    assert "oracle.running-no-numa:ORCL" in findings


@pytest.mark.parametrize("snippet, expect", [
    ('sid = "ORCL\' OR 1=1"', "is not an Oracle SID"),
    ('sid = "ORCL"\n[oracle.instance.parameters]\n"processes; DROP TABLE x" = 1', "is not a valid key"),
    ('sid = "ORCL"\n[oracle.instance.parameters]\nresource_manager_plan = "x\' SCOPE=MEMORY; --"', "is refused"),
    ('sid = "ORCL"\nconnect = "oracle://x"', "is not understood"),
    ('sid = "ORCL"\npfile = "initORCL.ora"', "is not a valid value"),
])
def test_bad_oracle_policy_is_one_line_and_changes_nothing(host, tmp_path, cli, snippet, expect):
    policy = write(tmp_path, "bad.toml", "[[oracle.instance]]\n%s\n" % snippet)
    before = tree_digest(host)
    status, out, err = cli("plan", "--root", host, "--policy", policy)
    assert status == 2
    assert len(err.strip().splitlines()) == 1 and expect in err, err
    assert tree_digest(host) == before


def test_auto_finds_instances_in_oratab(host, tmp_path, cli):
    # No [[oracle.instance]]: ORCL comes from /etc/oratab, and its AMM
    # (memory_target=1G in the stock pfile) is flagged against the pool.
    policy = write(tmp_path, "auto.toml", '[hugepages]\ncount = "auto"\n')
    plan = _plan(cli, host, policy)
    ids = [f["id"] for f in plan["findings"]]
    assert "oracle.amm-hugepages:ORCL" in ids
    assert not [c for c in plan["changes"] if c["id"].startswith("oracle.param")]


def test_auto_without_any_instance_leaves_the_pool(host, tmp_path, cli):
    write(host, "/etc/oratab", "# no databases here\n")
    policy = write(tmp_path, "auto.toml", '[hugepages]\ncount = "auto"\n')
    plan = _plan(cli, host, policy)
    mine = [f["id"] for f in plan["findings"] if f["family"] in ("hugepages", "oracle")]
    assert mine == ["hugepages.auto-no-instances"]
    assert not [c for c in plan["changes"] if "hugepages" in c["id"]]


LISTENERS = """
[oracle.listeners]
out = "/etc/numatune/listeners"
service = "ORCL"
port = 1522
home = "%s"
[[oracle.listeners.node]]
node = 0
address = "10.0.0.10"
interface = "ens1f0"
[[oracle.listeners.node]]
node = 1
address = "10.0.1.10"
interface = "ens2f0"
""" % HOME


def test_per_node_listener_files(host, tmp_path, cli):
    write(host, "/sys/class/net/ens1f0/device/numa_node", "0\n")
    write(host, "/sys/class/net/ens2f0/device/numa_node", "0\n")      # the second NIC sits on node 0
    policy = write(tmp_path, "policy.toml", LISTENERS)
    plan = _plan(cli, host, policy)
    paths = sorted(c["target"] for c in plan["changes"])
    assert paths == ["/etc/numatune/listeners/" + n for n in (
        "listener.ora", "local_listener.sql", "oracle-listener-node0.service", "oracle-listener-node1.service",
        "start-listeners.sh", "tnsnames.ora")]
    assert [f["id"] for f in plan["findings"] if f["area"] == "oracle"] == ["oracle.listener-nic:ens2f0"]
    before = tree_digest(host)
    status, out, err = cli("apply", "--yes", "--root", host, "--policy", policy)
    assert status == 0, out + err
    d = host / "etc/numatune/listeners"
    assert "LISTENER_N1 =\n  (DESCRIPTION_LIST =\n    (DESCRIPTION = (ADDRESS=(PROTOCOL=TCP)(HOST=10.0.1.10)(PORT=1522)))" \
        in (d / "listener.ora").read_text()
    # --cpunodebind only, as the Superdome X paper starts them (membind = true opts in).
    assert 'numactl --cpunodebind=1 "$ORACLE_HOME/bin/lsnrctl" start LISTENER_N1\n' in \
        (d / "start-listeners.sh").read_text()
    assert "(ADDRESS_LIST = (LOAD_BALANCE = on)(ADDRESS=" in (d / "tnsnames.ora").read_text()
    assert "ExecStart=/usr/bin/numactl --cpunodebind=0 %s/bin/lsnrctl start LISTENER_N0" % HOME in \
        (d / "oracle-listener-node0.service").read_text()
    assert (d / "local_listener.sql").read_text().endswith(
        "ALTER SYSTEM SET local_listener='(ADDRESS_LIST=(ADDRESS=(PROTOCOL=TCP)(HOST=10.0.0.10)(PORT=1522))"
        "(ADDRESS=(PROTOCOL=TCP)(HOST=10.0.1.10)(PORT=1522)))' SCOPE=BOTH;\n")
    assert _plan(cli, host, policy)["changes"] == []
    status, out, err = cli("revert", "--last", "--root", host)
    assert status == 0, out + err
    assert tree_digest(host) == before


def test_listener_address_cannot_carry_sql(host, tmp_path, cli):
    policy = write(tmp_path, "policy.toml", LISTENERS.replace("10.0.1.10", "x')(HOST=evil"))
    status, out, err = cli("plan", "--root", host, "--policy", policy)
    assert status == 2 and len(err.strip().splitlines()) == 1 and "address" in err


def test_sga_placement_from_smon_numa_maps(host, tmp_path, cli):
    write(host, "/proc/4242/comm", "ora_smon_ORCL\n")
    write(host, "/proc/4242/numa_maps",
          "00400000 default file=/u01/app/oracle/product/19.0.0/dbhome_1/bin/oracle mapped=9000 N0=9000 "
          "kernelpagesize_kB=4\n"
          "60000000 interleave:0-1 file=/SYSV00000000\\040(deleted) huge dirty=2 N0=1 N1=1 kernelpagesize_kB=2048\n"
          "c0000000 bind:0 file=/SYSV6f8a5b21\\040(deleted) huge dirty=300 N0=300 kernelpagesize_kB=2048\n")
    policy = write(tmp_path, "policy.toml", """
[[oracle.instance]]
sid = "ORCL"
[oracle.instance.parameters]
processor_group_name = "oracle"
""")
    findings = {f["id"]: f for f in _plan(cli, host, policy)["findings"]}
    # 2 MB of the SGA sit on node 1 although ORCL is bound to node 0 (cpuset "oracle").
    assert "node(s) 1" in findings["oracle.sga-off-node:ORCL"]["message"]
    from numatune.families.oracle.instance import parse_numa_maps
    assert parse_numa_maps((host / "proc/4242/numa_maps").read_text()) == {"0": 301 * 2048, "1": 2048}
