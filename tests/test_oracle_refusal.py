"""Never write what the plan says will stop an instance (#19), one SID one
instance whatever the order of "*" (bug: explicit SIDs were read twice), and
plans that speak to DBAs ("unset", never Python's None)."""
import json
import shutil
from pathlib import Path

from conftest import tree_digest, write

CASES = Path(__file__).parent / "cases"
HOME = "/u01/app/oracle/product/19.0.0/dbhome_1"


def _copy(case, tmp_path):
    root = tmp_path / "root"
    shutil.copytree(CASES / case / "root", root, symlinks=True)
    return root, CASES / case / "policy.toml"


def _plan(cli, root, policy, *more):
    status, out, err = cli("plan", "--root", root, "--policy", policy, "--format", "json", *more)
    assert status == 0, err
    return json.loads(out)


def test_apply_refuses_a_change_its_finding_says_stops_the_instance(tmp_path, cli):
    root, policy = _copy("oracle/refuse-missing-group", tmp_path)
    plan = _plan(cli, root, policy)
    finding = [f for f in plan["findings"] if f["id"] == "oracle.no-cpuset:E"][0]
    assert finding["refuses"] == ["oracle.param:E:processor_group_name"]
    assert "oracle.param:E:processor_group_name" in [c["id"] for c in plan["changes"]]
    before = tree_digest(root)
    status, out, err = cli("apply", "--yes", "--root", root, "--policy", policy)
    assert status == 2
    assert "refused, nothing written" in err and "ORA-56729" in err and len(err.strip().splitlines()) == 1
    # A's caging parameters were not written either: nothing at all.
    assert tree_digest(root) == before


def test_the_same_run_adding_the_cpuset_lifts_the_refusal(tmp_path, cli):
    root, policy = _copy("oracle/refuse-missing-group", tmp_path)
    with_cpuset = write(tmp_path, "policy.toml", '[[cpuset]]\nname = "missing"\nnodes = [1]\n\n'
                        + policy.read_text())
    plan = _plan(cli, root, with_cpuset)
    assert not [f for f in plan["findings"] if f["refuses"]]
    status, out, err = cli("apply", "--yes", "--root", root, "--policy", with_cpuset, "--confirm-within", "0")
    assert status == 0, out + err
    assert "processor_group_name='missing'" in (root / HOME.lstrip("/") / "dbs/initE.ora").read_text()


def test_explicit_sid_wins_over_star_and_each_instance_is_read_once(tmp_path, cli):
    root, _ = _copy("oracle/caging-binding", tmp_path)
    policy = write(tmp_path, "policy.toml", """
[[oracle.instance]]
sid = "A"
[oracle.instance.parameters]
processes = 300

[[oracle.instance]]
sid = "*"
[oracle.instance.parameters]
processes = 200
""")
    plan = _plan(cli, root, policy)
    ids = [c["id"] for c in plan["changes"]]
    assert len(ids) == len(set(ids)), ids
    got = {c["id"]: c["desired"] for c in plan["changes"]}
    # oratab lists A, B, C, D: A keeps its own entry, "*" covers the rest.
    assert got == {"oracle.param:A:processes": "300", "oracle.param:B:processes": "200",
                   "oracle.param:C:processes": "200", "oracle.param:D:processes": "200"}
    unmanaged = [f for f in plan["findings"] if f["id"].startswith("oracle.unmanaged-cpu:")]
    assert all(f["message"].endswith("runs 4 instances") for f in unmanaged), unmanaged
    assert len(unmanaged) == len({f["id"] for f in unmanaged})


def test_no_python_none_reaches_a_dba(tmp_path, cli):
    root, _ = _copy("oracle/spfile-on-asm", tmp_path)
    policy = write(tmp_path, "policy.toml", '[hugepages]\nsize = "2M"\ncount = 10\n\n'
                   '[[oracle.instance]]\nsid = "ORCL"\n[oracle.instance.parameters]\n'
                   'processes = 400\nuse_large_pages = "ONLY"\nsga_target = "1G"\n')
    status, out, err = cli("plan", "--root", root, "--policy", policy)
    assert status == 0, err
    assert "None" not in out, out
    assert "(unset) -> 400" in out and "memlock is unset" in out  # the one rendering of an unset value


def test_release_from_each_source(tmp_path, cli):
    from numatune.families.oracle import alertlog, version
    root, policy = _copy("oracle/version-aware", tmp_path)
    old = (root / "u01/app/oracle/product/11.2.0/dbhome_1/inventory/ContentsXML/comps.xml").read_text()
    assert version.from_comps(old) == (11, 2, 0, 4, 0)
    lsinv = next((root / "u01/app/oracle/product/12.1.0/dbhome_1/cfgtoollogs/opatch/lsinv").iterdir()).read_text()
    assert version.from_lsinventory(lsinv) == (12, 1, 0, 1, 0)
    banner = (root / "u01/app/oracle/diag/rdbms/new/NEW/trace/alert_NEW.log").read_text()
    assert alertlog.parse(banner)["version"] == [19, 3, 0, 0, 0]      # "Version" beats "Release 19.0"
    eleven = "Starting ORACLE instance (normal)\nOracle Database 11g Enterprise Edition Release 11.2.0.4.0 - 64bit " \
             "Production\n"
    assert alertlog.parse(eleven)["version"] == [11, 2, 0, 4, 0]
    assert version.lacks("inmemory_size", (12, 1, 0, 1, 0)) == (12, 1, 0, 2)
    assert version.lacks("inmemory_size", (12, 1, 0, 2, 0)) is None
    assert version.lacks("processor_group_name", (19, 3)) is None
    assert version.lacks("cpu_count", (9, 2)) is None                 # not in the table: never refused

    plan = _plan(cli, root, policy)
    refusing = {f["id"]: f["refuses"] for f in plan["findings"] if f["refuses"]}
    assert refusing == {"oracle.version:OLD:processor_group_name": ["oracle.param:OLD:processor_group_name"],
                        "oracle.version:IMC:inmemory_size": ["oracle.param:IMC:inmemory_size"],
                        # A release found nowhere refuses what needs one (#25), as a known old one does.
                        "oracle.version-unknown:UNK": ["oracle.param:UNK:processor_group_name"]}
    assert [f["id"] for f in plan["findings"] if "unknown" in f["id"]] == ["oracle.version-unknown:UNK"]
    before = tree_digest(root)
    status, out, err = cli("apply", "--yes", "--root", root, "--policy", policy)
    assert status == 2 and "LRM-00101" in err
    assert tree_digest(root) == before


def test_old_large_pages_report_gives_expected_pages():
    from numatune.families.oracle import alertlog
    # 11.2.0.3 as Tanel Poder quoted it: 512 pages used, 89 more asked for.
    text = ("Starting ORACLE instance (normal)\n****************** Large Pages Information *****************\n"
            "Total Shared Global Region in Large Pages = 1024 MB (85%)\n"
            "Large Pages used by this instance: 512 (1024 MB)\nLarge Page size = 2048 KB\n"
            "  Total Shared Global Region size is 1202 MB. For optimal performance,\n"
            "  prior to the next instance restart increase the number\n"
            "  of unused Large Pages by atleast 89 2048 KB Large Pages (178 MB)\n")
    row = alertlog.parse(text)["large_pages"]["2048"]
    assert row["expected"] == 601 and row["allocated"] == 512


def test_rhel6_cpuset_is_found_and_its_remote_memory_reported(tmp_path, cli):
    root, policy = _copy("oracle/rhel6-remote-binding", tmp_path)
    plan = _plan(cli, root, policy)
    found = {f["id"]: f for f in plan["findings"]}
    assert "oracle.no-cpuset:PROD" not in found
    msg = found["oracle.cpuset-not-local:PROD"]["message"]
    assert "/cgroup/cpuset/oracle" in msg and "distance 22, local 10" in msg and "2.15x" in msg
    # The measure, then its comparison, then the source (#36: "2.15x fewer logical reads, 000_... than local").
    assert "(2.15x fewer logical reads than local, 000_bee41b021388c063.txt)" in msg, msg
    assert '"Instance started in processor group oracle (NUMA Nodes: 7 CPUs: 1-9)"' in msg


def test_rac_host_without_service_data_says_so(tmp_path, cli):
    root, _ = _copy("oracle/rac-services", tmp_path)
    policy = write(tmp_path, "policy.toml", '[hugepages]\nsize = "2M"\ncount = "auto"\n')
    plan = _plan(cli, root, policy)
    found = {f["id"]: f for f in plan["findings"]}
    assert "orcl" in found["oracle.rac-no-services"]["message"]
    # orcl (the oratab name) was resolved to the local instance orcl1 and sized from its pfile.
    auto = found["hugepages.auto"]["message"]
    # sga_target 8G with no alert log: 8192M + its shared areas estimated from 000's instance
    # (8192M x 770 / 30720 = 205.3M, above one 16M granule) = 8397.3M -> 4199 x 2M
    assert "orcl1 needs 4199" in auto


def test_engine_apply_refuses_for_every_caller(tmp_path):
    """The review screen and the Ansible module call engine.apply without a
    plan: it plans again and refuses the same way."""
    import pytest
    from numatune import engine
    from numatune.errors import RefusedError
    from numatune.root import Root
    root, policy = _copy("oracle/refuse-missing-group", tmp_path)
    r = Root(str(root))
    loaded = engine.load_policy([str(policy)], r)
    plan, _ = engine.make_plan(r, loaded)
    before = tree_digest(root)
    with pytest.raises(RefusedError) as e:
        engine.apply(r, loaded, plan.changes)
    assert e.value.exit_status == 2 and "ORA-56729" in e.value.message
    assert tree_digest(root) == before


def test_auto_leaves_cpuless_nodes_alone(tmp_path, cli):
    root, _ = _copy("hugepages/even-skips-cpuless", tmp_path)
    write(root, "/sys/devices/system/node/node2/hugepages/hugepages-2048kB/nr_hugepages", "100\n")
    write(root, "/etc/oratab", "ORCL:%s:Y\n" % HOME)
    write(root, HOME + "/dbs/initORCL.ora", "*.db_name='ORCL'\n*.sga_target=1G\n")
    policy = write(tmp_path, "policy.toml", '[hugepages]\nsize = "2M"\ncount = "auto"\n')
    plan = _plan(cli, root, policy)
    live = {c["id"]: c["desired"] for c in plan["changes"] if c["id"].startswith("hugepages.live")}
    # 1G + its estimated shared areas (1024M x 770 / 30720 = 25.7M, above one 4M granule) = 1049.7M
    # -> 525 pages + ceil(10.5) = 536, over nodes 0 and 1 (the ones with CPUs).
    assert live == {"hugepages.live:node0:2048kB": "268", "hugepages.live:node1:2048kB": "268"}


def test_highest_evidence_wins_and_a_compatible_floor_proves_only_up_to_itself():
    from numatune.families.oracle import alertlog, version
    assert version.from_compatible("'12.1.0.2.0'") == (12, 1, 0, 2, 0)
    assert version.from_compatible('"19.0.0"') == (19, 0, 0)
    assert version.from_compatible("'x'") is None
    # compatible below the banner: the banner (exact) wins; a floor above nothing else wins as a floor.
    got = version.best([((12, 1, 0, 2, 0), "banner", True), ((11, 2, 0), "compatible = 11.2.0 in pfile", False)])
    assert got == {"version": [12, 1, 0, 2, 0], "source": "banner", "exact": True}
    got = version.best([((19, 0, 0), "compatible = 19.0.0", False), ((12, 2, 0, 1), "banner", True)])
    assert got["exact"] is False and got["version"] == [19, 0, 0]
    # The floor's own release: the exact evidence of the same release wins.
    got = version.best([((12, 1, 0, 2, 0), "compat", False), ((12, 1, 0, 2, 0), "banner", True)])
    assert got["source"] == "banner"
    inst = {"sid": "X", "version": {"version": [12, 1, 0, 2, 0], "source": "compatible", "exact": False}}
    found = list(version.findings(inst, [("inmemory_size", None, "1G"), ("sga_min_size", None, "1G")]))
    assert [(f.id, f.severity, f.refuses) for f in found] == [
        ("oracle.version-unknown:X", "critical", ["oracle.param:X:sga_min_size"])]
    # The startup's parameter list: every name, repeated ones joined; the list ends at the next timestamp.
    text = ("Mon Jun 12 03:14:07 2017\nStarting ORACLE instance (normal)\nSystem parameters with non-default values:\n"
            "  processes                = 300\n  control_files            = \"/a\"\n  control_files            = \"/b\"\n"
            "  compatible               = \"12.1.0.2.0\"\nMon Jun 12 03:14:08 2017\n  stray = 1\n")
    ev = alertlog.parse(text)
    assert ev["listed"] == {"processes": "300", "control_files": '"/a", "/b"', "compatible": '"12.1.0.2.0"'}
    assert ev["parameters"]["processes"] == "300"       # the sizing's own reading still sees it


def test_restart_pending_clears_after_a_startup_with_the_new_values(tmp_path, cli):
    root, policy = _copy("oracle/restart-pending", tmp_path)
    pfile = root / "u01/app/oracle/product/19.0.0/dbhome_1/dbs/initPROD.ora"
    alert = root / "u01/app/oracle/diag/rdbms/prod/PROD/trace/alert_PROD.log"
    # The pfile as it was before the apply: the plan changes it, then the re-plan keeps the restart in sight.
    pfile.write_text(pfile.read_text().replace("*.sga_target=2G", "*.sga_target=1G"))
    plan = _plan(cli, root, policy)
    assert [c["id"] for c in plan["changes"]] == ["oracle.param:PROD:sga_target"]
    assert plan["changes"][0]["restart_required"]
    assert "oracle.restart-pending:PROD:sga_target" not in {f["id"] for f in plan["findings"]}  # the change says it
    status, out, err = cli("apply", "--yes", "--root", root, "--policy", policy)
    assert status == 0, out + err
    plan = _plan(cli, root, policy)
    assert plan["changes"] == []
    pending = {f["id"]: f for f in plan["findings"] if f["pending"]}
    assert {"oracle.restart-pending:PROD:sga_target", "oracle.restart-pending:PROD:processes",
            "oracle.running-group:PROD"} <= set(pending)
    assert "ran with 1G" in pending["oracle.restart-pending:PROD:sga_target"]["message"]
    status, out, err = cli("check", "--root", root, "--policy", policy)
    assert status == 1 and "restart-pending" in out, out          # waiting: WARNING, not compliant
    # PROD restarts with the new values (and in its group): nothing is pending any more.
    with alert.open("a") as f:
        f.write("2024-03-05T22:00:00.000000+00:00\nStarting ORACLE instance (normal) (OS id: 5151)\n"
                "2024-03-05T22:00:00.100000+00:00\nInstance started in processor group oltp (NUMA Nodes: 0 CPUs: 0-3)\n"
                "2024-03-05T22:00:00.200000+00:00\nSystem parameters with non-default values:\n"
                "  processes                = 600\n  sga_target               = 2G\n"
                "  processor_group_name     = \"oltp\"\n  db_name                  = \"PROD\"\n"
                "2024-03-05T22:00:00.300000+00:00\nPMON started with pid=2, OS id=5153\n")
    plan = _plan(cli, root, policy)
    assert not [f["id"] for f in plan["findings"] if f["pending"]], plan["findings"]


def test_memlock_is_planned_when_no_startup_logged_one(tmp_path, cli):
    from numatune.families.oracle import alertlog
    assert alertlog.memlock_kb("UNLIMITED") == -1 and alertlog.memlock_kb("31G") == 31 << 20
    assert alertlog.memlock_kb("garbage") is None
    root, policy = _copy("oracle/memlock-from-alert-log", tmp_path)
    assert "oracle.memlock" not in {c["id"] for c in _plan(cli, root, policy)["changes"]}
    alert = root / "u01/app/oracle/diag/rdbms/prod/PROD/trace/alert_PROD.log"
    # A startup that could lock only 64 MB is no evidence the pool can be locked: limits.d is planned.
    alert.write_text(alert.read_text().replace("limit = UNLIMITED", "limit = 64M"))
    changes = {c["id"]: c for c in _plan(cli, root, policy)["changes"]}
    assert changes["oracle.memlock"]["desired"] == "32890880 kB"
    alert.write_text(alert.read_text().replace(" Per process system memlock (soft) limit = 64M\n", ""))
    assert "oracle.memlock" in {c["id"] for c in _plan(cli, root, policy)["changes"]}


def test_bound_and_caged_hint_quotes_the_papers_runs_and_does_not_advise_the_mix(tmp_path, cli):
    # 000_bee41b021388c063.txt under LIO pressure: binding alone 5.8M logical reads/s, binding + caging 5.1M
    # (the ~10%), caging alone 3.5M. PROD is already bound and caged: the mix is what it runs, not the fix.
    root, policy = _copy("oracle/bound-and-caged", tmp_path)
    plan = _plan(cli, root, policy)
    (finding,) = [f for f in plan["findings"] if f["id"] == "oracle.bound-and-caged:PROD"]
    why = finding["why"]
    assert "5.1M" in why and "5.8M" in why and "3.5M" in why, why
    assert "binding + caging" in why and "binding alone" in why and "caging alone" in why, why
    assert "caging alone interleaves it over every node and ran ~10%" not in why
    assert "while cpu_count caps" not in why      # no advice to do what the host already does
