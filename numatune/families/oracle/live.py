"""A running instance over python-oracledb: read its parameters, run the
ALTER SYSTEM statements ``sql`` builds. Only on the real root.

Thin mode by default. Thick mode (the Oracle client in $ORACLE_HOME/lib)
when the policy asks for OS authentication (``connect = "os"``, i.e.
``/ as sysdba``) or external/wallet authentication, or when the home is
older than 12.1: thin mode can do neither. oracledb is imported here, never
by the core.
"""
import os

from numatune.errors import PolicyError
from numatune.families.oracle import oratab

# Tests (and embedders) put a callable here: (target) -> DB-API connection.
FACTORY = None


class ConnectError(OSError):
    """The instance could not be reached; a finding at plan time."""


def target(spec, sid, home):
    """What to connect with, from the policy's ``connect``; no secrets kept."""
    version = oratab.version_from_home(home or "")
    old = version is not None and version < (12, 1)
    if spec == "os":
        return {"spec": spec, "sid": sid, "home": home, "thick": True, "auth": "os", "dsn": None}
    if spec.startswith(("external:", "wallet:")):
        return {"spec": spec, "sid": sid, "home": home, "thick": True, "auth": "external",
                "dsn": spec.split(":", 1)[1]}
    if spec.startswith("env:"):
        return {"spec": spec, "sid": sid, "home": home, "thick": old, "auth": "password", "env": spec[4:],
                "dsn": None}
    raise PolicyError("connect = %r is not understood" % spec,
                      'use "env:VARIABLE" (user/password@host/service), "os" or "external:ALIAS"')


def no_new_privs():
    """Whether this process runs with no_new_privs (numatune-check.service's NoNewPrivileges=yes)."""
    try:
        with open("/proc/self/status") as f:
            return any(line.split() == ["NoNewPrivs:", "1"] for line in f)
    except OSError:
        return False


def connect(tgt):
    if FACTORY is not None:
        return FACTORY(tgt)
    if tgt["auth"] == "os" and no_new_privs():
        # Bequeath starts $ORACLE_HOME/bin/oracle, setuid to the Oracle owner; under no_new_privs the
        # kernel ignores that bit, so the server process is not the owner and cannot attach the SGA.
        raise ConnectError('connect = "os" starts $ORACLE_HOME/bin/oracle, whose setuid bit no_new_privs '
                           "ignores here (NoNewPrivileges=yes): connect through the listener "
                           '("external:ALIAS") or add packaging/systemd/numatune-check-oracle-os.conf')
    try:
        import oracledb
    except ImportError:
        raise ConnectError("python-oracledb is not installed (pip install 'numatune[oracle]')")
    try:
        if tgt["thick"]:
            lib = os.path.join(tgt["home"], "lib") if tgt.get("home") else None
            oracledb.init_oracle_client(lib_dir=lib)
        if tgt["auth"] == "os":
            # Bequeath login as the instance's owner: Oracle picks the instance
            # from these two variables.
            os.environ["ORACLE_SID"] = tgt["sid"]
            if tgt.get("home"):
                os.environ["ORACLE_HOME"] = tgt["home"]
            return oracledb.connect(mode=oracledb.AUTH_MODE_SYSDBA)
        if tgt["auth"] == "external":
            return oracledb.connect(dsn=tgt["dsn"], externalauth=True, mode=oracledb.AUTH_MODE_SYSDBA)
        dsn = os.environ.get(tgt["env"])
        if not dsn:
            raise ConnectError("%s is not set in the environment" % tgt["env"])
        return oracledb.connect(dsn=dsn)
    except oracledb.Error as e:
        raise ConnectError(str(e).splitlines()[0])


def _rows(conn, statement, binds=None):
    cur = conn.cursor()
    try:
        if binds is None:
            cur.execute(statement)
        else:
            cur.execute(statement, binds)
        return list(cur.fetchall())
    finally:
        cur.close()


def read(conn):
    """Parameters in memory and in the spfile, instances, SGA components."""
    # The statements load with a live connection only: a plan under --root never queries.
    from numatune.families.oracle import sql
    memory = {}
    for name, value, isdefault, sysmod, instmod in _rows(conn, sql.PARAMETERS):
        memory[name.lower()] = {"value": value, "default": isdefault == "TRUE", "modifiable": sysmod}
    stored = {}
    for sid, name, value, _ in _rows(conn, sql.SPPARAMETERS):
        stored.setdefault(name.lower(), {}).setdefault(sid, []).append(value)
    instances = [{"inst_id": r[0], "name": r[1], "host": r[2], "version": r[3]}
                 for r in _rows(conn, sql.INSTANCES)]
    sga = {r[0]: int(r[1]) for r in _rows(conn, sql.SGAINFO) if r[1] is not None}
    return {"memory": memory, "spfile": stored, "instances": instances, "sgainfo": sga}


def current(conn, name, sid):
    """{"spfile": {"sid": ..., "values": [...]} or None, "memory": value}."""
    from numatune.families.oracle import sql
    rows = _rows(conn, sql.SPPARAMETER_ONE, {"name": name.lower(), "sid": sid})
    own = [r for r in rows if r[0] == sid] or [r for r in rows if r[0] == "*"]
    spfile = {"sid": own[0][0], "values": [r[1] for r in own]} if own else None
    mem = _rows(conn, sql.PARAMETER_ONE, {"name": name.lower()})
    return {"spfile": spfile, "memory": mem[0][0] if mem else None}


def execute(conn, statement):
    cur = conn.cursor()
    try:
        cur.execute(statement)
    finally:
        cur.close()
