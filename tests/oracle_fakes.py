"""A fake DB-API connection standing in for a running Oracle instance:
it answers numatune's fixed queries from a small state and applies the
ALTER SYSTEM statements it receives, recording every statement verbatim."""
import re

from numatune.families.oracle import sql

SET_RE = re.compile(r"^ALTER SYSTEM SET (\"?)(\w+)\1=(.*) SCOPE=(MEMORY|SPFILE|BOTH) SID='([\w*]+)'$")
RESET_RE = re.compile(r"^ALTER SYSTEM RESET (\"?)(\w+)\1 SCOPE=SPFILE SID='([\w*]+)'$")


class FakeOracle:
    def __init__(self, memory=None, spfile=None, instances=(("ORCL",),)):
        # memory: {name: (value, issys_modifiable)}; spfile: {(sid, name): [values]}
        self.memory = dict(memory or {})
        self.memory.setdefault("spfile", ("/u01/app/oracle/product/19.0.0/dbhome_1/dbs/spfileORCL.ora", "IMMEDIATE"))
        self.spfile = {k: list(v) for k, v in (spfile or {}).items()}
        self.instances = instances
        self.statements = []
        self.queries = []

    def connect(self, target):
        self.target = target
        return _Conn(self)

    def _values(self, text):
        return [v.strip().strip("'") for v in re.findall(r"'[^']*'|[^,]+", text)]

    def run(self, statement, binds):
        if statement.startswith("ALTER SYSTEM"):
            self.statements.append(statement)
            m = SET_RE.match(statement)
            if m:
                name, vals, scope, sid = m.group(2).lower(), self._values(m.group(3)), m.group(4), m.group(5)
                if scope in ("SPFILE", "BOTH"):
                    self.spfile[(sid, name)] = vals
                if scope in ("MEMORY", "BOTH"):
                    self.memory[name] = (",".join(vals), self.memory.get(name, (None, "FALSE"))[1])
                return []
            m = RESET_RE.match(statement)
            if m:
                self.spfile.pop((m.group(3), m.group(2).lower()), None)
                return []
            raise AssertionError("unexpected statement %r" % statement)
        self.queries.append((statement, binds))
        if statement == sql.PARAMETERS:
            return [(n, v, "FALSE", mod, "TRUE") for n, (v, mod) in sorted(self.memory.items())]
        if statement == sql.SPPARAMETERS:
            return [(sid, n, v, i + 1) for (sid, n), vals in sorted(self.spfile.items()) for i, v in enumerate(vals)]
        if statement == sql.SPPARAMETER_ONE:
            out = []
            for sid in (binds["sid"], "*"):
                for i, v in enumerate(self.spfile.get((sid, binds["name"]), [])):
                    out.append((sid, v, i + 1))
            return out
        if statement == sql.PARAMETER_ONE:
            return [(self.memory[binds["name"]][0],)] if binds["name"] in self.memory else []
        if statement == sql.INSTANCES:
            return [(i + 1, inst[0], "db1", "19.0.0.0.0") for i, inst in enumerate(self.instances)]
        if statement == sql.SGAINFO:
            return [("Granule Size", 16777216)]
        raise AssertionError("unexpected query %r" % statement)


class _Conn:
    def __init__(self, db):
        self.db = db

    def cursor(self):
        return _Cursor(self.db)

    def close(self):
        pass


class _Cursor:
    def __init__(self, db):
        self.db = db
        self.rows = []

    def execute(self, statement, binds=None):
        self.rows = self.db.run(statement, binds)

    def fetchall(self):
        return self.rows

    def close(self):
        pass
