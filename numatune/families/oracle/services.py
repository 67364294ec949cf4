"""RAC service placement: from the policy's ``[[oracle.service]]`` or from
``srvctl config service`` output saved to a file. Pure parsing."""
import re


def parse_srvctl(text):
    """Services with preferred/available instances from `srvctl config service -d DB`."""
    out = []
    cur = None
    for line in (text or "").splitlines():
        m = re.match(r"^\s*Service name:\s*(\S+)", line)
        if m:
            cur = {"name": m.group(1), "preferred": [], "available": []}
            out.append(cur)
            continue
        m = re.match(r"^\s*(Preferred|Available) instances:\s*(.*)$", line)
        if m and cur is not None:
            cur[m.group(1).lower()] = [s.strip() for s in m.group(2).split(",") if s.strip()]
    return out


def read_services(data, facts):
    ora = data.get("oracle") or {}
    out = [{"name": s["name"], "preferred": list(s.get("preferred", [])), "available": list(s.get("available", []))}
           for s in ora.get("service", [])]
    known = {s["name"].upper() for s in out}
    out += [s for s in facts["oracle"].get("srvctl", []) if s["name"].upper() not in known]
    return out
