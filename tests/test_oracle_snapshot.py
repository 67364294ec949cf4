"""`numatune snapshot` and packaging/numatune-snapshot.sh keep what the oracle
family reads: oratab, the parameter files under each ORACLE_HOME/dbs,
orabasetab and the memlock limits; the snapshot plans like its source."""
from test_oracle_plan import HOME, ORACLE, POLICY, _plan, host  # noqa: F401 (host is a fixture)
from conftest import write

def test_snapshot_keeps_the_oracle_files_in_python_and_sh(host, tmp_path, cli):
    import os
    import subprocess
    import tarfile
    from conftest import REPO, run_cli
    (host / (HOME + "/dbs/spfileDEV.ora").lstrip("/")).write_bytes((ORACLE / "spfileperftest.ora").read_bytes())
    write(host, HOME + "/dbs/hc_ORCL.dat", "not a parameter file\n")
    write(host, HOME + "/install/orabasetab", "%s:/u01/app/oracle:OraDB19Home1:N:\n" % HOME)
    # The release: the inventory's comps.xml and saved `opatch lsinventory` output (and nothing beside them).
    inv, lsinv = HOME + "/inventory/ContentsXML/", HOME + "/cfgtoollogs/opatch/lsinv/"
    write(host, inv + "comps.xml", '<PRD_LIST><TL_LIST><COMP NAME="oracle.server" VER="19.0.0.0.0"/></TL_LIST>'
          '</PRD_LIST>\n')
    write(host, inv + "libs.xml", "<LIBS/>\n")
    write(host, lsinv + "lsinventory2024-01-15_10-00-00AM.txt", "Oracle Database 19c 19.0.0.0.0\n")
    write(host, "/etc/oratab", "ORCL:%s:Y\nDEV:%s/:N\n" % (HOME, HOME))
    write(host, "/etc/security/limits.d/oracle-database-preinstall-19c.conf", "oracle soft memlock 134217728\n")
    status, out, err = run_cli("snapshot", "--root", host, "--out", tmp_path / "py.tar.gz")
    assert status == 0, err
    proc = subprocess.run(["sh", str(REPO / "packaging/numatune-snapshot.sh"), str(tmp_path / "sh.tar.gz")],
                          capture_output=True, text=True, env=dict(os.environ, NUMATUNE_SNAPSHOT_ROOT=str(host)))
    assert proc.returncode == 0, proc.stderr
    names = {}
    for kind in ("py", "sh"):
        with tarfile.open(tmp_path / ("%s.tar.gz" % kind)) as tar:
            names[kind] = {m.name.lstrip("./") for m in tar.getmembers() if m.isfile()}
            if kind == "py":
                tar.extractall(tmp_path / "snap")
    assert names["py"] == names["sh"]
    dbs = HOME.lstrip("/") + "/dbs/"
    assert {dbs + "initORCL.ora", dbs + "spfileDEV.ora", "etc/oratab", HOME.lstrip("/") + "/install/orabasetab",
            "etc/security/limits.d/oracle-database-preinstall-19c.conf"} <= names["py"]
    assert dbs + "hc_ORCL.dat" not in names["py"]
    assert {(inv + "comps.xml").lstrip("/"), (lsinv + "lsinventory2024-01-15_10-00-00AM.txt").lstrip("/")} \
        <= names["py"] and (inv + "libs.xml").lstrip("/") not in names["py"]
    # The snapshot plans like the host it came from.
    policy = write(tmp_path, "policy.toml", POLICY)
    assert _plan(cli, tmp_path / "snap", policy)["changes"] == _plan(cli, host, policy)["changes"]

