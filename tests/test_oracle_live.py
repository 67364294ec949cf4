"""The live path against a fake DB-API connection that records every
statement: the exact SQL of apply and revert, bind variables for reads, and
refusal of injection attempts in names and values. An opt-in test talks to a
real database when NUMATUNE_ORACLE_DSN is set."""
import os
import shutil
import subprocess
import sys

import pytest

import fakehost
from conftest import LiveCopy, tree_digest, write
from numatune import engine
from numatune.errors import PolicyError
from numatune.apply.journal import list_transactions
from numatune.families.oracle import live, sql, values
from numatune.apply.transaction import revert
from oracle_fakes import FakeOracle

HOME = "/u01/app/oracle/product/19.0.0/dbhome_1"


def test_statements_are_exact():
    assert sql.alter_set("_enable_NUMA_support", values.render(True), "SPFILE", "ORCL") == \
        "ALTER SYSTEM SET \"_enable_NUMA_support\"=TRUE SCOPE=SPFILE SID='ORCL'"
    assert sql.alter_set("CPU_COUNT", values.render(8), "BOTH", "ORCL") == \
        "ALTER SYSTEM SET cpu_count=8 SCOPE=BOTH SID='ORCL'"
    assert sql.alter_set("use_large_pages", values.render("ONLY"), "SPFILE", "*") == \
        "ALTER SYSTEM SET use_large_pages='ONLY' SCOPE=SPFILE SID='*'"
    assert sql.alter_set("sga_target", values.render("24G"), "SPFILE", "orcl1") == \
        "ALTER SYSTEM SET sga_target=24G SCOPE=SPFILE SID='orcl1'"
    assert sql.alter_set("control_files", values.render(["/a/c1.ctl", "/b/c2.ctl"]), "SPFILE", "X") == \
        "ALTER SYSTEM SET control_files='/a/c1.ctl','/b/c2.ctl' SCOPE=SPFILE SID='X'"
    assert sql.alter_reset("cpu_count", "SPFILE", "ORCL") == "ALTER SYSTEM RESET cpu_count SCOPE=SPFILE SID='ORCL'"
    assert sql.render_stored(["DEFAULT_PLAN"]) == "'DEFAULT_PLAN'"
    assert sql.render_stored(["8"]) == "8" and sql.render_stored(["/a", "/b"]) == "'/a','/b'"


@pytest.mark.parametrize("name", [
    "processes; DROP TABLE t", 'x" = 1 --', "sga_target=1", "1abc", "", "a" * 81, "cpu count", "cpu_count\n"])
def test_injection_in_names_is_refused(name):
    with pytest.raises(PolicyError):
        sql.alter_set(name, "1", "BOTH", "ORCL")
    with pytest.raises(PolicyError):
        sql.alter_reset(name, "SPFILE", "ORCL")


@pytest.mark.parametrize("value", [
    "x' SCOPE=MEMORY; --", "ONLY'", "a;b", "line\nbreak", "tab\tin", 'dq"', "nul\x00", ["ok", "b'ad"], -1, 1.5])
def test_injection_in_values_is_refused(value):
    with pytest.raises(PolicyError):
        values.render(value)


@pytest.mark.parametrize("rendered", ["1; DROP TABLE t", "'a' SCOPE=MEMORY", "ONLY", "'x'||'y'", "8 8"])
def test_unrendered_text_never_reaches_sql(rendered):
    with pytest.raises(PolicyError):
        sql.alter_set("cpu_count", rendered, "BOTH", "ORCL")


@pytest.mark.parametrize("sid", ["ORCL' OR '1'='1", "OR CL", "", "A" * 17, "ORCL;"])
def test_injection_in_sid_is_refused(sid):
    with pytest.raises(PolicyError):
        sql.alter_set("cpu_count", "8", "BOTH", sid)


def test_connect_targets_hold_no_secret():
    assert live.target("env:ORA_DSN", "ORCL", HOME) == {
        "spec": "env:ORA_DSN", "sid": "ORCL", "home": HOME, "thick": False, "auth": "password", "env": "ORA_DSN",
        "dsn": None}
    assert live.target("os", "ORCL", HOME)["thick"] is True                  # thin cannot do / as sysdba
    assert live.target("env:X", "OLD", "/u01/app/oracle/product/11.2.0/db_1")["thick"] is True   # < 12.1
    assert live.target("external:prod_wallet", "ORCL", HOME)["dsn"] == "prod_wallet"


POLICY = """
[[oracle.instance]]
sid = "ORCL"
connect = "env:NUMATUNE_TEST_DSN"
[oracle.instance.parameters]
_enable_NUMA_support = true
cpu_count = 8
resource_manager_plan = "default_plan"
processes = 300
"""


@pytest.fixture
def fake(tmp_path, monkeypatch):
    db = FakeOracle(
        memory={"cpu_count": ("2", "IMMEDIATE"), "resource_manager_plan": ("", "IMMEDIATE"),
                "processes": ("300", "FALSE"), "sga_target": ("4294967296", "IMMEDIATE")},
        spfile={("*", "cpu_count"): ["2"], ("*", "processes"): ["300"], ("*", "sga_target"): ["4G"]})
    monkeypatch.setattr(live, "FACTORY", db.connect)
    from numatune.families.oracle import sql_write as sql_writer
    monkeypatch.setattr(sql_writer, "_open", {})
    return db


def test_live_plan_apply_revert_issue_exact_sql(tmp_path, fake, cli):
    path = tmp_path / "root"
    fakehost.build(path)
    write(path, "/etc/oratab", "ORCL:%s:Y\n" % HOME)
    root = LiveCopy(str(path))
    policy_file = write(tmp_path, "policy.toml", POLICY)
    policy = engine.load_policy([str(policy_file)], root)
    plan, _ = engine.make_plan(root, policy)
    changes = [c for c in plan.changes if c.area == "oracle"]
    got = {c.id: (c.current, c.desired, c.restart_required, c.writes[0].args["scope"]) for c in changes}
    assert got == {
        "oracle.param:ORCL:_enable_numa_support": (None, "TRUE", True, "SPFILE"),   # static
        "oracle.param:ORCL:cpu_count": ("'2'", "8", False, "BOTH"),                 # dynamic
        "oracle.param:ORCL:resource_manager_plan": (None, "'default_plan'", False, "BOTH"),
    }
    assert all(c.writes[0].kind == "sql" for c in changes)
    # Reads go through bind variables only.
    assert all(":" not in q or b for q, b in fake.queries)

    before = tree_digest(path)
    engine.apply(root, policy, changes)
    assert fake.statements == [
        "ALTER SYSTEM SET \"_enable_NUMA_support\"=TRUE SCOPE=SPFILE SID='ORCL'",
        "ALTER SYSTEM SET cpu_count=8 SCOPE=BOTH SID='ORCL'",
        "ALTER SYSTEM SET resource_manager_plan='default_plan' SCOPE=BOTH SID='ORCL'",
    ]
    again, _ = engine.make_plan(root, policy)
    assert [c for c in again.changes if c.area == "oracle"] == []

    fake.statements.clear()
    # `numatune revert` on a copy never talks to a database: the ops fail, recorded.
    status, out, err = cli("revert", "--last", "--root", str(path))
    assert status == 1 and fake.statements == [] and "only on the real root" in out + err
    (tx,) = list_transactions(root)
    restored, skipped, failed = revert(root, tx, force=True)
    assert (skipped, failed) == ([], [])
    assert fake.statements == [
        "ALTER SYSTEM RESET resource_manager_plan SCOPE=SPFILE SID='ORCL'",
        "ALTER SYSTEM SET resource_manager_plan='' SCOPE=MEMORY SID='ORCL'",
        "ALTER SYSTEM SET cpu_count=2 SCOPE=SPFILE SID='ORCL'",
        "ALTER SYSTEM SET cpu_count=2 SCOPE=MEMORY SID='ORCL'",
        "ALTER SYSTEM RESET \"_enable_NUMA_support\" SCOPE=SPFILE SID='ORCL'",
    ]
    assert fake.spfile == {("*", "cpu_count"): ["2"], ("*", "processes"): ["300"], ("*", "sga_target"): ["4G"],
                           ("ORCL", "cpu_count"): ["2"]}
    assert tree_digest(path, ignore=("var/lib/numatune",)) == before


def test_unreachable_instance_is_a_finding(tmp_path, monkeypatch):
    def refuse(target):
        raise live.ConnectError("ORA-12541: TNS:no listener")
    monkeypatch.setattr(live, "FACTORY", refuse)
    path = tmp_path / "root"
    fakehost.build(path)
    write(path, "/etc/oratab", "ORCL:%s:Y\n" % HOME)
    write(path, HOME + "/dbs/initORCL.ora", "*.cpu_count=2\n")
    root = LiveCopy(str(path))
    policy = engine.load_policy([str(write(tmp_path, "policy.toml", POLICY))], root)
    plan, _ = engine.make_plan(root, policy)
    assert any(f.id == "oracle.no-connection:ORCL" and "TNS:no listener" in f.message for f in plan.findings)
    # Falls back to the pfile it can see.
    assert {c.writes[0].kind for c in plan.changes if c.area == "oracle"} == {"file"}


def test_core_does_not_import_oracledb(tmp_path):
    import subprocess
    import sys
    code = ("import sys, numatune.cli, numatune.families.oracle.knob, numatune.families.oracle.sql_write; "
            "print('oracledb' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=str(tmp_path),
                         env=dict(os.environ, PYTHONPATH=str(__import__("conftest").REPO)))
    assert out.stdout.strip() == "False", out.stderr


@pytest.mark.skipif(not os.environ.get("NUMATUNE_ORACLE_DSN"), reason="set NUMATUNE_ORACLE_DSN=user/pw@host/svc")
def test_real_database_reads_parameters():
    pytest.importorskip("oracledb")
    tgt = live.target("env:NUMATUNE_ORACLE_DSN", os.environ.get("NUMATUNE_ORACLE_SID", "ORCL"), None)
    conn = live.connect(tgt)
    try:
        got = live.read(conn)
        assert "cpu_count" in got["memory"] and got["instances"]
        sid = got["instances"][0]["name"]
        now = live.current(conn, "cpu_count", sid)
        assert now["memory"] == got["memory"]["cpu_count"]["value"]
        # A no-op change and its revert, on a dynamic parameter, in memory only.
        value = now["memory"]
        live.execute(conn, sql.alter_set("cpu_count", value, "MEMORY", sid))
        assert live.current(conn, "cpu_count", sid)["memory"] == value
    finally:
        conn.close()


def test_bequeath_under_no_new_privs_says_why_it_cannot_connect(tmp_path):
    """numatune-check.service runs with NoNewPrivileges=yes: connect = "os" would start the setuid oracle
    binary, whose setuid bit the kernel then ignores. A real no_new_privs process (setpriv) gets one line
    that names it and the way out; without no_new_privs the connection is tried as before."""
    setpriv = shutil.which("setpriv")
    if not setpriv:
        pytest.skip("setpriv (util-linux) is not installed")
    script = ("from numatune.families.oracle import live\n"
              "try:\n"
              "    live.connect(live.target('os', 'ORCL', %r))\n"
              "except live.ConnectError as e:\n"
              "    print(e)\n" % str(tmp_path / "home"))
    under = subprocess.run([setpriv, "--no-new-privs", sys.executable, "-c", script], capture_output=True, text=True)
    assert under.returncode == 0, under.stderr
    assert "no_new_privs" in under.stdout and "numatune-check-oracle-os.conf" in under.stdout, under.stdout
    assert "external:ALIAS" in under.stdout
    plain = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert "no_new_privs" not in plain.stdout, plain.stdout
