"""Which files belong to an instance: the parameter file Oracle would read at
startup and the alert log. I/O under a Root; the rules are Oracle's:
``spfile<SID>.ora``, then ``spfile.ora``, then ``init<SID>.ora`` in
``$ORACLE_HOME/dbs``; a pfile that only names ``SPFILE=`` points to that one.
"""
import re

from numatune.families.oracle import oratab, pfile, spfile


def param_file(root, sid, home):
    """{"kind": "spfile"|"pfile"|None, "path", "via"} for the file in force.

    ``via`` is the pfile that pointed to an spfile. An spfile on ASM
    (``+DATA/...``) cannot be read from the filesystem: kind "spfile",
    ``readable`` False."""
    dbs = home.rstrip("/") + "/dbs"
    for name in ("spfile%s.ora" % sid, "spfile.ora"):
        path = "%s/%s" % (dbs, name)
        if root.exists(path):
            return {"kind": "spfile", "path": path, "via": None, "readable": True}
    init = "%s/init%s.ora" % (dbs, sid)
    text = root.read_text(init)
    if text is None:
        return {"kind": None, "path": init, "via": None, "readable": False}
    pointer = pfile.spfile_pointer(pfile.parse(text))
    if pointer:
        readable = pointer.startswith("/") and root.exists(pointer)
        return {"kind": "spfile", "path": pointer, "via": init, "readable": readable}
    return {"kind": "pfile", "path": init, "via": None, "readable": True}


def rac_instance(root, database, home):
    """The local instance of a RAC database oratab lists by its name: the
    one SID ``<database>N`` or ``<database>_N`` with a parameter file in
    ``$ORACLE_HOME/dbs``; None when there is none or several."""
    rx = re.compile(r"^(?:init|spfile)(%s_?\d+)\.ora$" % re.escape(database), re.I)
    found = {m.group(1) for m in (rx.match(n) for n in root.listdir(home.rstrip("/") + "/dbs")) if m}
    return found.pop() if len(found) == 1 else None


def read_entries(root, found):
    """Parameter entries of the file ``param_file`` found, [] if unreadable."""
    if not found.get("readable"):
        return []
    data = root.read_bytes(found["path"])
    if data is None:
        return []
    if found["kind"] == "spfile" or spfile.looks_binary(data):
        return spfile.parse(data)
    return pfile.parse(data.decode("utf-8", "surrogateescape"))


def oracle_base(root, home):
    text = root.read_text(home.rstrip("/") + "/install/orabasetab")
    return oratab.parse_orabasetab(text, home.rstrip("/")) or oratab.base_from_home(home)


def alert_log_candidates(root, sid, home, params):
    """Alert log paths to try, best first: under diagnostic_dest when set,
    else ORACLE_BASE; the directory is the db_unique_name (db_name when
    unset) in lower case."""
    dest = params.get("diagnostic_dest")
    bases = [dest.strip("'\"")] if dest and dest.strip("'\"").startswith("/") else []
    base = oracle_base(root, home) if home else None
    if base and base not in bases:
        bases.append(base)
    names = []
    for key in ("db_unique_name", "db_name"):
        value = params.get(key)
        if value and value.strip("'\"") and value.strip("'\"").lower() not in names:
            names.append(value.strip("'\"").lower())
    out = []
    for b in bases:
        for n in names:
            out.append("%s/diag/rdbms/%s/%s/trace/alert_%s.log" % (b.rstrip("/"), n, sid, sid))
        # db_name unknown (an spfile on ASM): any database dir with this SID.
        for d in root.listdir("%s/diag/rdbms" % b.rstrip("/")):
            path = "%s/diag/rdbms/%s/%s/trace/alert_%s.log" % (b.rstrip("/"), d, sid, sid)
            if path not in out:
                out.append(path)
    return out


def alert_log(root, sid, home, params):
    for path in alert_log_candidates(root, sid, home, params):
        if root.exists(path):
            return path
    return None
