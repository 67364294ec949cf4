"""Oracle parameters over SQL: ``ALTER SYSTEM SET name=value SCOPE=... SID=...``.

The op keeps what the spfile (and, for SCOPE=BOTH, memory) held before, so
restore sets the old value back, or ``ALTER SYSTEM RESET`` when the
parameter was not in the spfile at all. Live root only; the connection
target in the op names an environment variable or OS authentication, never
a password.
"""
from numatune.families.oracle import live, values
from numatune.families.oracle import sql as statements

_open = {}


def _conn(root, op):
    if not root.is_live:
        # A journal copied with a tree must not reach the database it came from.
        raise live.ConnectError("Oracle parameters are changed over SQL only on the real root")
    key = (op["target"]["spec"], op["target"]["sid"])
    if key not in _open:
        _open[key] = live.connect(op["target"])
    return _open[key]


def _norm(name, items):
    if items is None:
        return None
    return values.normalize(name, ",".join("'%s'" % v if v is not None else "" for v in items))


def capture(root, write):
    a = write.args
    tgt = live.target(a["connect"], a["sid"], a.get("home"))
    op = {"kind": "sql", "path": write.path, "name": a["name"], "sid": a["sid"], "scope": a["scope"],
          "value": write.value, "target": tgt,
          "statement": statements.alter_set(a["name"], write.value, a["scope"], a["sid"])}
    now = live.current(_conn(root, op), a["name"], a["sid"])
    op["before"] = now
    op["unchanged"] = _holds(op, now, "after")
    return op


def perform(root, op):
    live.execute(_conn(root, op), op["statement"])


def _holds(op, now, side):
    name = op["name"]
    if side == "after":
        want = values.normalize(name, op["value"])
        if _norm(name, (now["spfile"] or {}).get("values")) != want:
            return False
        return op["scope"] != "BOTH" or values.normalize(name, now["memory"]) == want
    before = op["before"]
    if _norm(name, (now["spfile"] or {}).get("values")) != _norm(name, (before["spfile"] or {}).get("values")):
        return False
    return op["scope"] != "BOTH" or values.normalize(name, now["memory"]) == values.normalize(
        name, before["memory"])


def current_matches(root, op, side):
    return _holds(op, live.current(_conn(root, op), op["name"], op["sid"]), side)


def restore_statements(op):
    """What puts "before" back, in order."""
    before = op["before"]
    out = []
    if before["spfile"] is None:
        out.append(statements.alter_reset(op["name"], "SPFILE", op["sid"]))
    else:
        out.append(statements.alter_set(op["name"], statements.render_stored(before["spfile"]["values"]),
                                        "SPFILE", op["sid"]))
    if op["scope"] == "BOTH" and before["memory"] is not None:
        out.append(statements.alter_set(op["name"], statements.render_stored([before["memory"]]),
                                        "MEMORY", op["sid"]))
    return out


def restore(root, op):
    conn = _conn(root, op)
    for statement in restore_statements(op):
        live.execute(conn, statement)


def describe(op):
    return op["statement"]
