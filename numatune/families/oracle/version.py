"""Which Oracle release an instance runs, and which parameters that release
knows. An unknown parameter in a pfile stops the instance at startup
(LRM-00101), so a parameter the release lacks is refused; a release that
cannot be found stays unknown, and the plan says so.

Where the release is read: the home's inventory
(``inventory/ContentsXML/comps.xml``, the ``oracle.server`` component),
``opatch lsinventory`` output kept under ``cfgtoollogs/opatch/lsinv``, the
alert log's startup banner (parsed with the rest of the alert log, see
``alertlog``): each says the release exactly. ``compatible`` (in the
parameter file, or in the alert log's list of the last startup's
parameters) says only a floor: a release runs with compatible at or below
itself. The highest evidence wins, and the plan names it; a floor proves a
parameter known only up to itself, so above it the release stays unknown.
Parsers are pure (text in); ``read`` does the I/O.
"""
import re

from numatune.model import Finding

COMPS = "inventory/ContentsXML/comps.xml"
LSINV_DIR = "cfgtoollogs/opatch/lsinv"

# The first release that knows each parameter (Oracle Database Reference of
# that release). Hidden parameters are left out: they come and go.
MINIMUM = {
    "memory_target": (11, 1), "memory_max_target": (11, 1),
    "use_large_pages": (11, 2, 0, 2),
    "processor_group_name": (12, 1),
    "pga_aggregate_limit": (12, 1),
    "inmemory_size": (12, 1, 0, 2), "inmemory_force": (12, 1, 0, 2), "inmemory_query": (12, 1, 0, 2),
    "inmemory_clause_default": (12, 1, 0, 2), "inmemory_max_populate_servers": (12, 1, 0, 2),
    "inmemory_trickle_repopulate_servers_percent": (12, 1, 0, 2),
    "sga_min_size": (12, 2), "inmemory_expressions_usage": (12, 2), "inmemory_virtual_columns": (12, 2),
}


def _tuple(text):
    return tuple(int(x) for x in text.split("."))


def show(version):
    return ".".join(str(x) for x in version)


def from_comps(text):
    """The oracle.server component's VER in comps.xml, None without one."""
    m = re.search(r'<COMP\b[^>]*\bNAME="oracle\.server"[^>]*\bVER="(\d+(?:\.\d+)+)"', text or "")
    return _tuple(m.group(1)) if m else None


def from_lsinventory(text):
    """"Oracle Database 19c   19.0.0.0.0" in `opatch lsinventory` output."""
    m = re.search(r"^Oracle Database \d+[a-z]*\s+(\d+(?:\.\d+){3,})\s*$", text or "", re.M)
    return _tuple(m.group(1)) if m else None


def from_compatible(value):
    """``compatible = '12.1.0.2.0'`` (quoted or not) as a version tuple, None
    when it does not read as one."""
    m = re.match(r"^\s*['\"]?(\d+(?:\.\d+)*)['\"]?\s*$", value or "")
    return _tuple(m.group(1)) if m else None


def read(root, home, banner, compatible=()):
    """{"version": [..] or None, "source": where it was read, or None,
    "exact": whether it is the release itself or only a floor};
    ``banner``: the version the alert log's last startup printed, if any;
    ``compatible``: [(value, where)] of the instance's compatible setting."""
    evidence = []
    if home:
        path = "%s/%s" % (home.rstrip("/"), COMPS)
        got = from_comps(root.read_text(path))
        if got:
            evidence.append((got, path, True))
        else:
            for path in sorted(root.glob("%s/%s" % (home.rstrip("/"), LSINV_DIR), "*.txt"), reverse=True):
                got = from_lsinventory(root.read_text(path))
                if got:
                    evidence.append((got, path, True))
                    break
    if banner:
        evidence.append((tuple(banner), "the alert log's startup banner", True))
    for value, where in compatible:
        got = from_compatible(value)
        if got:
            evidence.append((got, "compatible = %s in %s" % (value.strip(), where), False))
    return best(evidence)


def best(evidence):
    """The highest of [(version, source, exact)]; exact beats a floor of the
    same release (both say it runs at least that)."""
    if not evidence:
        return {"version": None, "source": None, "exact": False}
    got, source, exact = max(evidence, key=lambda e: (_padded(e[0]), e[2]))
    return {"version": list(got), "source": source, "exact": exact}


def _padded(v):
    return tuple(v) + (0,) * (6 - len(v))


def lacks(name, version):
    """The release a parameter needs when ``version`` is older, else None."""
    need = MINIMUM.get(name.lower())
    if need is None or version is None:
        return None
    return need if tuple(version)[:len(need)] < need else None


def findings(inst, differing):
    """A parameter the instance's release lacks stops it at startup
    (LRM-00101): critical, and it refuses the change. A release that cannot
    be told (none found, or only a compatible floor below what the parameter
    needs) is said, not guessed, and refuses the change the same way: a
    warning let a 12.2 parameter into a 12.1.0.2 pfile."""
    sid, got = inst["sid"], inst.get("version") or {}
    unknown = []
    for name, _, _ in differing:
        if name.lower() not in MINIMUM:
            continue
        need = lacks(name, got.get("version"))
        if got.get("version") is None or (need and not got.get("exact", True)):
            unknown.append((name, MINIMUM[name.lower()]))
            continue
        if need:
            yield Finding(id="oracle.version:%s:%s" % (sid, name.lower()), severity="critical", area="oracle",
                          target=sid, rule="oracle.parameters." + name,
                          refuses=["oracle.param:%s:%s" % (sid, name.lower())],
                          message="%s runs Oracle %s (from %s); %s needs %s: an unknown parameter stops the "
                                  "instance at startup (LRM-00101); apply refuses to write it"
                                  % (sid, show(got["version"]), got["source"], name, show(need)),
                          why="leave %s out of this instance's parameters" % name)
    if unknown:
        names = ", ".join("%s (needs %s)" % (n, show(need)) for n, need in unknown)
        if got.get("version") is None:
            known = ("%s's Oracle release is unknown (no inventory/ContentsXML/comps.xml, OPatch lsinventory output, "
                     "alert log banner or compatible setting)" % sid)
        else:
            known = "%s runs Oracle %s or later (from %s), not known to be new enough" % (
                sid, show(got["version"]), got["source"])
        yield Finding(id="oracle.version-unknown:" + sid, severity="critical", area="oracle", target=sid,
                      rule="oracle.parameters",
                      refuses=["oracle.param:%s:%s" % (sid, n.lower()) for n, _ in unknown],
                      message="%s: apply refuses to write %s, since an unknown parameter stops the instance at "
                              "startup (LRM-00101)" % (known, names),
                      why="give numatune the home's inventory (inventory/ContentsXML/comps.xml) or an alert log with "
                          "the startup banner, or leave those parameters out")
