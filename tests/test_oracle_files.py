"""Oracle's own files, parsed and edited offline: pfiles (round trip on the
real stock sample), the real spfile, /etc/oratab, discovery of the file in
force, and the alert log (the real excerpt and lines as Oracle prints them)."""
import pytest

from conftest import REALDATA, write
from numatune.families.oracle import alertlog, discovery, oratab, pfile, spfile, values
from numatune.root import Root

ORACLE = REALDATA / "oracle"
STOCK = (ORACLE / "init.ora.oracle-stock-sample").read_text()
SPFILE = (ORACLE / "spfileperftest.ora").read_bytes()
HOME = "/u01/app/oracle/product/19.0.0/dbhome_1"


def test_stock_pfile_parses_every_parameter():
    entries = pfile.parse(STOCK)
    params = {k: e["value"] for k, e in pfile.effective(entries, "ORCL").items()}
    assert params["db_name"] == "'ORCL'"
    assert params["memory_target"] == "1G"
    assert params["processes"] == "150"          # written "processes = 150"
    assert params["control_files"] == "(ora_control1, ora_control2)"
    assert len(entries) == 16                    # the comments are not parameters
    assert values.normalize("control_files", params["control_files"]) == "ORA_CONTROL1,ORA_CONTROL2"


def test_stock_pfile_edit_keeps_every_other_line_byte_for_byte():
    new = pfile.set_value(STOCK, "memory_target", "0", "ORCL")
    new = pfile.set_value(new, "processes", "300", "ORCL")
    new = pfile.set_value(new, "use_large_pages", "'ONLY'", "ORCL")
    old_lines, new_lines = STOCK.splitlines(True), new.splitlines(True)
    assert new_lines[:-1] != old_lines  # changed
    changed = [i for i, (a, b) in enumerate(zip(old_lines, new_lines)) if a != b]
    assert [old_lines[i] for i in changed] == ["memory_target=1G\n", "processes = 150\n"]
    assert new_lines[changed[0]] == "memory_target=0\n"
    assert new_lines[changed[1]] == "processes = 300\n"        # its spacing kept
    assert new_lines[len(old_lines):] == ["use_large_pages='ONLY'\n"]
    assert pfile.set_value(new, "processes", "300", "ORCL") == new   # idempotent
    eff = pfile.effective(pfile.parse(new), "ORCL")
    assert eff["use_large_pages"]["value"] == "'ONLY'"


def test_pfile_prefixes_continuations_and_comments():
    text = ("*.sga_target=4G # sized for OLTP\n"
            "ORCL1.sga_target=8G\n"
            "*.control_files='/a/c1.ctl',\\\n"
            "   '/b/c2.ctl'\n"
            "*.dispatchers='(PROTOCOL=TCP)\n"
            "  (SERVICE=ORCLXDB)'\n"
            "*.processes=300\n")
    entries = pfile.parse(text)
    one = pfile.effective(entries, "ORCL1")
    two = pfile.effective(entries, "ORCL2")
    assert one["sga_target"]["value"] == "8G" and two["sga_target"]["value"] == "4G"
    assert values.normalize("control_files", one["control_files"]["value"]) == "/A/C1.CTL,/B/C2.CTL"
    assert (one["control_files"]["line"], one["control_files"]["end"]) == (3, 4)
    assert one["dispatchers"]["end"] == 6 and one["processes"]["line"] == 7
    # The instance's own line is edited, the shared one and its comment stay.
    new = pfile.set_value(text, "sga_target", "16G", "ORCL2")
    assert new.splitlines()[0] == "*.sga_target=16G # sized for OLTP"
    new = pfile.set_value(text, "sga_target", "16G", "ORCL1")
    assert new.splitlines()[:2] == ["*.sga_target=4G # sized for OLTP", "ORCL1.sga_target=16G"]
    # A multi-line entry becomes one line; lines around it are untouched.
    new = pfile.set_value(text, "control_files", "'/x.ctl'", "ORCL1")
    assert new.splitlines()[2:4] == ["*.control_files='/x.ctl'", "*.dispatchers='(PROTOCOL=TCP)"]
    # A shared RAC pfile gets a SID-prefixed line for a new parameter.
    assert pfile.set_value(text, "cpu_count", "8", "ORCL2").endswith("*.processes=300\nORCL2.cpu_count=8\n")
    # A file without a final newline keeps its last line intact.
    assert pfile.set_value("processes=1", "cpu_count", "8", "X") == "processes=1\ncpu_count=8\n"


def test_real_spfile_is_read_without_error():
    assert spfile.looks_binary(SPFILE)
    entries = spfile.parse(SPFILE)
    params = pfile.effective(entries, "perftest")
    assert params["sga_target"]["value"] == "28941m"
    assert params["pga_aggregate_target"]["value"] == "9647m"
    assert params["__sga_target"]["value"] == "30400315392"
    assert params["processes"]["value"] == "300"
    # The value cut by a block boundary is joined again.
    assert params["dispatchers"]["value"] == "'(PROTOCOL=TCP) (SERVICE=perftestXDB)'"
    assert params["__oracle_base"]["comment"] == "#ORACLE_BASE set from environment"
    assert len(params["control_files"]["value"].split("','")) == 2
    assert values.to_bytes(params["sga_target"]["value"]) == 28941 * 1024 * 1024
    # Nothing binary leaks into names or values.
    for e in entries:
        assert all(32 <= ord(c) < 127 for c in e["name"] + e["value"]), e


def test_oratab_and_oracle_base():
    text = ("# comment line\n\n+ASM:/u01/app/19.0.0/grid:N\nORCL:%s:Y\n"
            "TEST:/u02/app/oracle/product/11.2.0/db_1:N:   # old\nbroken line\n" % HOME)
    tab = oratab.parse(text)
    assert [(t["sid"], t["autostart"]) for t in tab] == [("+ASM", False), ("ORCL", True), ("TEST", False)]
    assert oratab.base_from_home(HOME) == "/u01/app/oracle"
    assert oratab.version_from_home(tab[2]["home"]) == (11, 2)
    assert oratab.parse_orabasetab("%s:/opt/oracle:OraDB19Home1:N:\n" % HOME, HOME) == "/opt/oracle"


@pytest.fixture
def root(tmp_path):
    return Root(str(tmp_path))


def test_discovery_follows_oracles_order(root, tmp_path):
    dbs = HOME + "/dbs"
    write(tmp_path, dbs + "/initORCL.ora", "*.processes=100\n")
    assert discovery.param_file(root, "ORCL", HOME)["kind"] == "pfile"
    write(tmp_path, dbs + "/spfile.ora", "")
    assert discovery.param_file(root, "ORCL", HOME)["path"] == dbs + "/spfile.ora"
    (tmp_path / dbs.lstrip("/") / "spfileORCL.ora").write_bytes(SPFILE)
    found = discovery.param_file(root, "ORCL", HOME)
    assert found == {"kind": "spfile", "path": dbs + "/spfileORCL.ora", "via": None, "readable": True}
    assert pfile.effective(discovery.read_entries(root, found), "ORCL")["processes"]["value"] == "300"


def test_pfile_pointing_to_spfile(root, tmp_path):
    write(tmp_path, HOME + "/dbs/initORCL.ora", "SPFILE='+DATA/ORCL/spfileORCL.ora'\n")
    found = discovery.param_file(root, "ORCL", HOME)
    assert found["kind"] == "spfile" and found["via"] == HOME + "/dbs/initORCL.ora"
    assert found["readable"] is False                      # on ASM
    assert discovery.read_entries(root, found) == []


def test_alert_log_location(root, tmp_path):
    base = "/u01/app/oracle"
    path = base + "/diag/rdbms/orcl_site1/ORCL/trace/alert_ORCL.log"
    write(tmp_path, path, "x\n")
    params = {"db_name": "'ORCL'", "db_unique_name": "'ORCL_SITE1'"}
    assert discovery.alert_log(root, "ORCL", HOME, params) == path
    # diagnostic_dest wins over ORACLE_BASE.
    write(tmp_path, "/diag/x/diag/rdbms/orcl/ORCL/trace/alert_ORCL.log", "y\n")
    assert discovery.alert_log(root, "ORCL", HOME, {"db_name": "ORCL", "diagnostic_dest": "'/diag/x'"}) == \
        "/diag/x/diag/rdbms/orcl/ORCL/trace/alert_ORCL.log"


def test_alert_log_real_excerpt():
    ev = alertlog.parse((ORACLE / "alert_excerpt_oracle-docker-images-issue-1730.log").read_text())
    assert ev["startups"] == 1
    assert ev["started"] == "2020-10-13T12:31:26.173526+02:00"
    assert ev["errors"] == ["System cannot support SGA size of 9536 MB.", "Total system memory configured is 10 GB.",
                            "Instance maximum shared memory size should be less than 9023 MB."]


# Lines as Oracle writes them (11g text timestamps, 12.1 large pages block,
# 19c page-size table), as quoted in Oracle's NUMA and HugePages papers.
OLD_FORMAT = """\
Tue Mar 10 09:58:01 2015
Starting ORACLE instance (normal)
NUMA system with 4 nodes detected
Oracle NUMA support not enabled
The parameter _enable_NUMA_support should be set to TRUE to enable Oracle NUMA support
Tue Mar 10 10:01:12 2015
Starting ORACLE instance (normal)
NUMA system found and support enabled (4 domains - 8,8,8,8)
****************** Large Pages Information *****************
Per process system memlock (soft) limit = UNLIMITED

Total Shared Global Region in Large Pages = 1538 MB (100%)

Large Pages used by this instance: 769 (1538 MB)
Large Pages unused system wide = 3 (6144 KB)
Large Pages configured system wide = 772 (1544 MB)
Large Page size = 2048 KB
***********************************************************
"""
NEW_FORMAT = """\
2023-05-02T08:11:40.512774+00:00
Starting ORACLE instance (normal) (OS id: 4242)
2023-05-02T08:11:40.530113+00:00
Instance started in processor group oltp (NUMA Nodes: 0 CPUs: 0-15)
2023-05-02T08:11:40.530421+00:00
 Supported system pagesize(s):
2023-05-02T08:11:40.530470+00:00
  PAGESIZE  AVAILABLE_PAGES  EXPECTED_PAGES  ALLOCATED_PAGES  ERROR(s)
2023-05-02T08:11:40.530512+00:00
        4K       Configured              12              12        NONE
2023-05-02T08:11:40.530556+00:00
     2048K             6000            6145            6000        NONE
2023-05-02T09:00:00.000000+00:00
Detected change in CPU count to 12
"""


def test_alert_log_old_format_keeps_only_the_last_startup():
    ev = alertlog.parse(OLD_FORMAT)
    assert ev["startups"] == 2 and ev["started"] == "Tue Mar 10 10:01:12 2015"
    assert ev["numa_nodes"] == 4 and ev["numa_enabled"] is True
    assert ev["large_pages_percent"] == 100 and ev["large_pages_used"] == 769
    assert "2048" in ev["large_pages"]
    first = alertlog.parse(OLD_FORMAT.split("Tue Mar 10 10:01:12")[0])
    assert first["numa_nodes"] == 4 and first["numa_enabled"] is False


def test_alert_log_new_format():
    ev = alertlog.parse(NEW_FORMAT)
    assert ev["processor_group"] == {"name": "oltp", "nodes": "0", "cpus": "0-15"}
    assert ev["large_pages"]["2048"] == {"available": "6000", "expected": 6145, "allocated": 6000, "error": "NONE"}
    assert ev["large_pages"]["4"]["expected"] == 12
    assert ev["cpu_count_changes"] == [12]
    assert alertlog.is_timestamp("2023-05-02T08:11:40.530556+00:00")
    assert alertlog.is_timestamp("Tue Mar 10 09:58:01 2015")
    assert not alertlog.is_timestamp("Starting ORACLE instance")
