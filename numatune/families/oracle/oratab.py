"""/etc/oratab (``SID:ORACLE_HOME:Y|N``) and ORACLE_BASE, from text."""
import re

ORATAB = "/etc/oratab"
SID_RE = re.compile(r"^[A-Za-z+][A-Za-z0-9_$#+-]{0,29}$")


def parse(text):
    """Instances: dicts with sid, home, autostart and the 1-based line."""
    out = []
    for number, line in enumerate((text or "").splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        fields = line.split(":")
        if len(fields) < 2 or not SID_RE.match(fields[0]) or not fields[1].startswith("/"):
            continue
        out.append({"sid": fields[0], "home": fields[1].rstrip("/") or "/",
                    "autostart": len(fields) > 2 and fields[2].strip().upper() == "Y", "line": number})
    return out


def parse_orabasetab(text, home):
    """ORACLE_BASE from $ORACLE_HOME/install/orabasetab (``HOME:BASE:NAME:N:``)."""
    for line in (text or "").splitlines():
        line = line.split("#", 1)[0].strip()
        fields = line.split(":")
        if len(fields) >= 2 and fields[1].startswith("/") and (fields[0].rstrip("/") == home or not fields[0]):
            return fields[1].rstrip("/")
    return None


def base_from_home(home):
    """/u01/app/oracle/product/19.0.0/dbhome_1 -> /u01/app/oracle (OFA layout)."""
    if "/product/" in home:
        return home.split("/product/", 1)[0] or None
    return None


def version_from_home(home):
    """(19, 0) from an OFA home path, None when the path does not say."""
    m = re.search(r"/product/(\d+)\.(\d+)", home or "")
    return (int(m.group(1)), int(m.group(2))) if m else None
